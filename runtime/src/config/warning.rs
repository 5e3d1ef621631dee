//! Configuration warnings: every way a layer can be unusable, each naming the
//! file (and line, column or key) so a user can fix it. Never fatal: the layer
//! or the key falls through to the next one.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::terminal_text::shown;

/// A path as a warning shows it: escaped and cut, since a cloned
/// repository chooses the names under the project.
fn path(file: &Path) -> String {
    shown(&file.display().to_string())
}

/// One problem found while resolving the configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ConfigWarning {
    /// The file exists but could not be read; the layer reads as `{}`.
    #[error("{}: {}; the file is ignored", path(file), shown(error))]
    Unreadable {
        /// The sidecar path.
        file: PathBuf,
        /// What was wrong: "it is a FIFO, not a regular file", "it could not be read (…)".
        error: String,
    },
    /// The file is not JSON; the layer reads as `{}`.
    #[error(
        "{}:{line}:{column}: not valid JSON ({}); the file is ignored",
        path(file),
        shown(message)
    )]
    Unparseable {
        /// The sidecar path.
        file: PathBuf,
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// The parser's message.
        message: String,
    },
    /// The file is JSON but not an object; the layer reads as `{}`.
    #[error(
        "{}: expected a JSON object, found {found}; the file is ignored",
        path(file)
    )]
    NotAnObject {
        /// The sidecar path.
        file: PathBuf,
        /// The JSON type found instead.
        found: String,
    },
    /// A known key holds a value of the wrong type; that key falls through.
    #[error(
        "{}: key `{}` must be a {expected}, found {found}; the value is ignored",
        path(file),
        shown(key)
    )]
    WrongType {
        /// The sidecar path.
        file: PathBuf,
        /// The key.
        key: String,
        /// The JSON type the key takes.
        expected: String,
        /// The JSON type found.
        found: String,
    },
    /// A key the sidecar does not know (a typo, most likely); ignored.
    #[error("{}: unknown key `{}` is ignored", path(file), shown(key))]
    UnknownKey {
        /// The sidecar path.
        file: PathBuf,
        /// The key.
        key: String,
    },
    /// A project sidecar tried to choose the executable.
    #[error("{}: key `bin` is ignored in a project sidecar, because a cloned repository must never choose the executable; set GORTEX_BIN or `bin` in the global sidecar instead", path(file))]
    ProjectBin {
        /// The project sidecar path.
        file: PathBuf,
    },
    /// An environment boolean that is none of the CFG-9 spellings; it falls through.
    #[error(
        "{}=\"{}\" is not a boolean (1/true/yes/on or 0/false/no/off); the variable is ignored",
        shown(var),
        shown(value)
    )]
    EnvNotBoolean {
        /// The variable name.
        var: String,
        /// Its raw value.
        value: String,
    },
    /// A relative `GORTEX_BIN` or global `bin` with a path separator: it
    /// would be read against the project, so it is refused and falls
    /// through.
    #[error("{}: `bin` value `{}` is a relative path, which would be read inside the project; use an absolute path or one starting with ~/; the value is ignored", shown(origin), shown(value))]
    RelativeBin {
        /// `GORTEX_BIN` or the global sidecar path.
        origin: String,
        /// The refused value.
        value: String,
    },
    /// `PATH` has relative or empty entries holding a `gortex` that was
    /// skipped: the OS would have run it from the project.
    #[error("`{}` in a relative or empty PATH entry was skipped ({}): only absolute PATH entries are searched, so a program in the project never runs as gortex", shown(bin), shown(&entries.join(", ")))]
    SkippedRelativePath {
        /// The bare name looked up.
        bin: String,
        /// `entry -> found path`, one per skipped entry.
        entries: Vec<String>,
    },
}
