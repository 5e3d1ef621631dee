//! Opening an untrusted path for reading without following a final link and
//! without blocking: a project file swapped for a link, a
//! FIFO or a device must neither steer what is read nor hang the reader.
//!
//! Unix: `O_NOFOLLOW | O_NONBLOCK | O_NOCTTY`; a final symlink fails with
//! `ELOOP` (`EMLINK` on some BSDs). Windows: the path is opened with
//! `FILE_FLAG_OPEN_REPARSE_POINT`, so a final symlink or junction is opened
//! as itself and then refused; a handle that is not a disk file (a console,
//! `NUL`, a pipe) is refused before anything is read from it.

use std::fs::{File, Metadata};
use std::path::Path;

pub use imp::{is_link_refusal, open_no_follow};

/// A short name for a type of file that is not a regular file, for warnings.
pub fn kind_of(metadata: &Metadata) -> &'static str {
    if metadata.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let kind = metadata.file_type();
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_char_device() {
            return "a character device";
        }
        if kind.is_block_device() {
            return "a block device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    "a special file"
}

#[cfg(unix)]
mod imp {
    use super::{File, Path};

    /// Opens `path` read-only; a final symlink is an error
    /// ([`is_link_refusal`]), a FIFO opens without waiting for a writer.
    pub fn open_no_follow(path: &Path) -> std::io::Result<File> {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
            .open(path)
    }

    /// Whether `error` is [`open_no_follow`]'s refusal of a final link (or
    /// a real symlink loop, which callers tell apart with `lstat`).
    pub fn is_link_refusal(error: &std::io::Error) -> bool {
        matches!(error.raw_os_error(), Some(libc::ELOOP) | Some(libc::EMLINK))
    }
}

#[cfg(windows)]
#[cfg_attr(mutants, mutants::skip)] // not compiled on Linux, where mutants run
mod imp {
    use std::os::windows::fs::{MetadataExt, OpenOptionsExt};
    use std::os::windows::io::AsRawHandle;

    use windows::Win32::Foundation::HANDLE;
    use windows::Win32::Storage::FileSystem::{
        GetFileType, FILE_ATTRIBUTE_REPARSE_POINT, FILE_FLAG_BACKUP_SEMANTICS,
        FILE_FLAG_OPEN_REPARSE_POINT, FILE_TYPE_CHAR, FILE_TYPE_DISK, FILE_TYPE_PIPE,
    };

    use super::{File, Path};

    /// The refusal of a final reparse point (symlink, junction or other).
    #[derive(Debug)]
    struct LinkRefused;

    impl std::fmt::Display for LinkRefused {
        fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            formatter.write_str("the path is a reparse point (a link), which is not followed")
        }
    }

    impl std::error::Error for LinkRefused {}

    /// Opens `path` read-only; a final reparse point is an error
    /// ([`is_link_refusal`]), and so is a handle that is not a disk file.
    pub fn open_no_follow(path: &Path) -> std::io::Result<File> {
        // BACKUP_SEMANTICS lets a directory open too, so it is refused as a
        // directory rather than as an access error.
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags((FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS).0)
            .open(path)?;
        // SAFETY: GetFileType only reads the type of a handle we own.
        let kind = unsafe { GetFileType(HANDLE(file.as_raw_handle())) };
        if kind != FILE_TYPE_DISK {
            let name = match kind {
                FILE_TYPE_CHAR => "a character device",
                FILE_TYPE_PIPE => "a pipe",
                _ => "a special file",
            };
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("not a regular file: {name}"),
            ));
        }
        if file.metadata()?.file_attributes() & FILE_ATTRIBUTE_REPARSE_POINT.0 != 0 {
            return Err(std::io::Error::other(LinkRefused));
        }
        Ok(file)
    }

    /// Whether `error` is [`open_no_follow`]'s refusal of a final link.
    pub fn is_link_refusal(error: &std::io::Error) -> bool {
        error
            .get_ref()
            .is_some_and(|inner| inner.is::<LinkRefused>())
    }
}
