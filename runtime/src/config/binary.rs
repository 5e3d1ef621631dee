//! The executable, resolved once at configuration time.
//!
//! Every child (`daemon start`, `mcp`, `hook`, the native `command` handed to
//! Pi, doctor) runs the one absolute path decided here, so the program
//! approved here is the program that runs: a bare name is never handed to
//! the OS, whose own `PATH` search would honour empty and `.` entries in the
//! project. A relative `bin` is never read against the project either.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::{ConfigWarning, Layer};

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

/// The resolution of one candidate: `~` and `~/…` against `home`; another relative
/// value with a separator is refused (`None`), because it would be read
/// against the working directory, which is the project.
fn expand(value: &str, home: &Path) -> Option<String> {
    if value == "~" {
        return Some(home.display().to_string());
    }
    if let Some(rest) = value.strip_prefix("~/") {
        return Some(home.join(rest).display().to_string());
    }
    if has_separator(value) && !Path::new(value).is_absolute() {
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
    let path = resolve_binary_on(&configured, env, platform).filter(|path| path.is_absolute());
    let skipped = skipped_relative_binaries(&configured, env, cwd, platform);
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

/// At every spawn: only an absolute program is run. A bare name would
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

/// Windows `PATHEXT` when the variable is unset.
pub const DEFAULT_PATHEXT: &str = ".EXE;.CMD;.BAT";

/// The platform rules NAT-3 follows; explicit so both are testable anywhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Platform {
    /// `:`-separated `PATH`, execute bit required.
    Unix,
    /// `;`-separated `PATH`, `PATHEXT` extensions tried after the bare name.
    Windows,
}

impl Platform {
    /// The platform this binary was built for.
    pub fn current() -> Self {
        if cfg!(windows) {
            Platform::Windows
        } else {
            Platform::Unix
        }
    }

    fn path_delimiter(self) -> char {
        match self {
            Platform::Unix => ':',
            Platform::Windows => ';',
        }
    }
}

/// The path `bin` resolves to on the current platform, if any.
pub fn resolve_binary(bin: &str, env: &HashMap<String, String>) -> Option<PathBuf> {
    resolve_binary_on(bin, env, Platform::current())
}

/// [`resolve_binary`] with explicit platform rules.
///
/// A `bin` with a path separator is checked as written; a bare name is joined
/// with each *absolute* `PATH` entry. Empty and relative entries are skipped:
/// they name the current directory, which is the project, and a cloned
/// repository must never choose the program that runs as `gortex` (the rule
/// Go 1.19 adopted as `exec.ErrDot`). A candidate passes only when it is a
/// regular file the current user may execute, so a directory named `gortex`
/// on `PATH` never resolves.
pub fn resolve_binary_on(
    bin: &str,
    env: &HashMap<String, String>,
    platform: Platform,
) -> Option<PathBuf> {
    if bin.is_empty() {
        return None;
    }
    let candidates: Vec<PathBuf> = if has_separator(bin) {
        vec![PathBuf::from(bin)]
    } else {
        path_entries(env, platform)
            .filter(|dir| Path::new(dir).is_absolute())
            .map(|dir| Path::new(dir).join(bin))
            .collect()
    };
    candidates
        .iter()
        .find_map(|candidate| executable_variant(candidate, env, platform))
}

/// The relative or empty `PATH` entries that hold an executable `bin`
/// when read from `cwd`, as `(entry, path)`. They were skipped by
/// [`resolve_binary_on`]; the user is told, since the OS would have run them.
pub fn skipped_relative_binaries(
    bin: &str,
    env: &HashMap<String, String>,
    cwd: &Path,
    platform: Platform,
) -> Vec<(String, PathBuf)> {
    if bin.is_empty() || has_separator(bin) {
        return Vec::new();
    }
    path_entries(env, platform)
        .filter(|dir| !Path::new(dir).is_absolute())
        .filter_map(|dir| {
            let found = executable_variant(&cwd.join(dir).join(bin), env, platform)?;
            Some((dir.to_string(), found))
        })
        .collect()
}

/// Whether `bin` names a path rather than a program to look up.
pub fn has_separator(bin: &str) -> bool {
    bin.contains(['/', '\\'])
}

fn path_entries(env: &HashMap<String, String>, platform: Platform) -> impl Iterator<Item = &str> {
    env.get("PATH")
        .map(String::as_str)
        .unwrap_or("")
        .split(platform.path_delimiter())
}

/// `candidate` or, on Windows, the first `PATHEXT` variant that is executable.
fn executable_variant(
    candidate: &Path,
    env: &HashMap<String, String>,
    platform: Platform,
) -> Option<PathBuf> {
    let extensions: Vec<&str> = match platform {
        Platform::Unix => vec![""],
        Platform::Windows => std::iter::once("")
            .chain(
                env.get("PATHEXT")
                    .map(String::as_str)
                    .unwrap_or(DEFAULT_PATHEXT)
                    .split(';')
                    .filter(|ext| !ext.is_empty()),
            )
            .collect(),
    };
    extensions.iter().find_map(|ext| {
        let mut path = candidate.as_os_str().to_os_string();
        path.push(ext);
        let path = PathBuf::from(path);
        is_executable_file(&path, platform).then_some(path)
    })
}

/// A regular file (after symlinks) that the current user may execute.
fn is_executable_file(path: &Path, platform: Platform) -> bool {
    let Ok(metadata) = std::fs::metadata(path) else {
        return false;
    };
    if !metadata.is_file() {
        return false;
    }
    match platform {
        // Windows has no execute bit; PATHEXT stands in for it.
        Platform::Windows => true,
        Platform::Unix => user_may_execute(path),
    }
}

#[cfg(unix)]
fn user_may_execute(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c_path) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // access(2) applies the real user's permissions, ACLs included, which is
    // what "executable by the current user" means.
    // SAFETY: c_path is a valid NUL-terminated string that outlives the call.
    unsafe { libc::access(c_path.as_ptr(), libc::X_OK) == 0 }
}

#[cfg(not(unix))]
#[cfg_attr(mutants, mutants::skip)] // not compiled on Linux, where mutants run
fn user_may_execute(_path: &Path) -> bool {
    true
}
