//! The executable, resolved once at configuration time (CFG-6, CFG-18).
//!
//! Every child (`daemon start`, `mcp`, `hook`, the native `command` handed to
//! Pi, doctor) runs the one absolute path decided here, so the program that
//! NAT-3 approved is the program that runs: a bare name is never handed to
//! the OS, whose own `PATH` search would honour empty and `.` entries in the
//! project. A relative `bin` is never read against the project either.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::{ConfigWarning, Layer};
use crate::native::{self, Platform};

/// The outcome for `bin`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BinResolution {
    /// What the user configured (after `~/` expansion), or the default.
    pub configured: String,
    /// The layer that supplied it.
    pub layer: Layer,
    /// The absolute executable, when it resolves.
    pub path: Option<PathBuf>,
    /// Problems: a refused relative value, a skipped program in the project.
    pub warnings: Vec<ConfigWarning>,
}

impl BinResolution {
    /// The text every spawn uses: the absolute path, or (when nothing
    /// resolved) the configured text, which spawners refuse unless absolute.
    pub fn program(&self) -> String {
        self.path
            .as_ref()
            .map(|path| path.display().to_string())
            .unwrap_or_else(|| self.configured.clone())
    }
}

/// Where one candidate came from, for the refusal warning.
pub struct BinCandidate {
    /// The trimmed value.
    pub value: String,
    /// Its layer.
    pub layer: Layer,
    /// `GORTEX_BIN` or the global sidecar's path.
    pub origin: String,
}

/// CFG-18 for one candidate: `~` and `~/…` against `home`; another relative
/// value with a separator is refused (`None`), because it would be read
/// against the working directory, which is the project.
fn expand(value: &str, home: &Path) -> Option<String> {
    if value == "~" {
        return Some(home.display().to_string());
    }
    if let Some(rest) = value.strip_prefix("~/") {
        return Some(home.join(rest).display().to_string());
    }
    if native::has_separator(value) && !Path::new(value).is_absolute() {
        return None;
    }
    Some(value.to_string())
}

/// Resolves the first usable candidate (in layer order) to an absolute path.
/// `cwd` is only used to notice a `gortex` that a relative `PATH` entry would
/// have run, never to resolve one.
pub fn resolve_bin(
    candidates: Vec<BinCandidate>,
    env: &HashMap<String, String>,
    home: &Path,
    cwd: &Path,
) -> BinResolution {
    let mut warnings = Vec::new();
    let (configured, layer) = candidates
        .into_iter()
        .find_map(|candidate| match expand(&candidate.value, home) {
            Some(value) => Some((value, candidate.layer)),
            None => {
                warnings.push(ConfigWarning::RelativeBin {
                    origin: candidate.origin,
                    value: candidate.value,
                });
                None
            }
        })
        .unwrap_or_else(|| (super::DEFAULT_BIN.to_string(), Layer::Default));
    let platform = Platform::current();
    let path =
        native::resolve_binary_on(&configured, env, platform).filter(|path| path.is_absolute());
    let skipped = native::skipped_relative_binaries(&configured, env, cwd, platform);
    if !skipped.is_empty() {
        warnings.push(ConfigWarning::SkippedRelativePath {
            bin: configured.clone(),
            entries: skipped
                .iter()
                .map(|(entry, found)| {
                    let entry = if entry.is_empty() { "(empty)" } else { entry };
                    format!("{entry} -> {}", found.display())
                })
                .collect(),
        });
    }
    BinResolution {
        configured,
        layer,
        path,
        warnings,
    }
}

/// CFG-18 at every spawn: only an absolute program is run. A bare name would
/// make the OS search `PATH` itself, empty and `.` entries included, from the
/// child's working directory: the project. This is the last line behind
/// [`resolve_bin`], for a `bin` that did not resolve.
pub fn ensure_absolute(program: &std::ffi::OsStr) -> std::io::Result<()> {
    if Path::new(program).is_absolute() {
        return Ok(());
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::NotFound,
        format!(
            "`{}` was not found as an executable in an absolute PATH entry, and a relative program is never run",
            crate::terminal_text::shown(&program.to_string_lossy())
        ),
    ))
}
