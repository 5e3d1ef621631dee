//! Opening one sidecar file safely (CFG-16).
//!
//! A sidecar is untrusted input: the project one comes with whatever the user
//! cloned. So the file is opened without blocking (`O_NONBLOCK`: a FIFO or a
//! terminal cannot stall the open), the *opened descriptor* is checked to be
//! a regular file (`fstat`, so what is read is what was checked), and it is
//! read through a 64 KiB cap (a symlink to `/dev/zero` or a 20 MB file cannot
//! grow the host). A project sidecar must also stay inside the project after
//! every symlink is resolved; the global one may be a symlink (dotfile
//! managers use them) but gets the same type and size checks.

use std::io::{ErrorKind, Read};
use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::platform::no_follow;

/// The most a sidecar may hold. Real ones are a few hundred bytes.
pub const SIDECAR_MAX_BYTES: u64 = 64 * 1024;

/// Why a sidecar that exists was not read. Each becomes one warning.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SidecarFileError {
    /// Not a regular file (a directory, FIFO, device or socket).
    #[error("it is {0}, not a regular file")]
    NotRegular(&'static str),
    /// Over [`SIDECAR_MAX_BYTES`].
    #[error("it is larger than 64 KiB")]
    TooLarge,
    /// A project sidecar whose real location is outside the project.
    #[error("it leads outside the project through a symlink (to {})", .0.display())]
    OutsideProject(PathBuf),
    /// Not UTF-8 text.
    #[error("it is not UTF-8 text")]
    NotUtf8,
    /// Any other I/O error.
    #[error("it could not be read ({0})")]
    Io(String),
}

/// Reads `path` under the checks above. `Ok(None)` when there is no file
/// (nothing at the path, or a dangling symlink): an absent layer, not an
/// error. `project_root` is given for a project sidecar only.
pub fn read_capped(
    path: &Path,
    project_root: Option<&Path>,
) -> Result<Option<String>, SidecarFileError> {
    let target = match std::fs::canonicalize(path) {
        Ok(target) => target,
        Err(error) if error.kind() == ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(SidecarFileError::Io(error.to_string())),
    };
    if let Some(root) = project_root {
        // The root itself may sit behind a symlink (/tmp on macOS); compare
        // real paths with real paths.
        let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        if !target.starts_with(&root) {
            return Err(SidecarFileError::OutsideProject(target));
        }
    }
    // The checked real path is opened, and not followed again if a final
    // component was swapped for a symlink meanwhile.
    let file = no_follow::open_no_follow(&target).map_err(|error| {
        if no_follow::is_link_refusal(&error) {
            SidecarFileError::OutsideProject(target.clone())
        } else {
            SidecarFileError::Io(error.to_string())
        }
    })?;
    let metadata = file
        .metadata()
        .map_err(|error| SidecarFileError::Io(error.to_string()))?;
    if !metadata.is_file() {
        return Err(SidecarFileError::NotRegular(no_follow::kind_of(&metadata)));
    }
    if metadata.len() > SIDECAR_MAX_BYTES {
        return Err(SidecarFileError::TooLarge);
    }
    // The size can change after fstat; the cap on the read is what holds.
    let mut bytes = Vec::new();
    file.take(SIDECAR_MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| SidecarFileError::Io(error.to_string()))?;
    if bytes.len() as u64 > SIDECAR_MAX_BYTES {
        return Err(SidecarFileError::TooLarge);
    }
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| SidecarFileError::NotUtf8)
}
