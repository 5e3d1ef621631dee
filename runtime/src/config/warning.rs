//! Configuration warnings: every way a layer can be unusable, each naming the
//! file (and line, column or key) so a user can fix it. Never fatal: the layer
//! or the key falls through to the next one.

use std::path::PathBuf;

use serde::Serialize;

/// One problem found while resolving the configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ConfigWarning {
    /// The file exists but could not be read; the layer reads as `{}`.
    #[error("{}: could not be read ({error}); the file is ignored", file.display())]
    Unreadable {
        /// The sidecar path.
        file: PathBuf,
        /// The I/O error.
        error: String,
    },
    /// The file is not JSON; the layer reads as `{}`.
    #[error("{}:{line}:{column}: not valid JSON ({message}); the file is ignored", file.display())]
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
    #[error("{}: expected a JSON object, found {found}; the file is ignored", file.display())]
    NotAnObject {
        /// The sidecar path.
        file: PathBuf,
        /// The JSON type found instead.
        found: String,
    },
    /// A known key holds a value of the wrong type; that key falls through.
    #[error("{}: key `{key}` must be a {expected}, found {found}; the value is ignored", file.display())]
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
    #[error("{}: unknown key `{key}` is ignored", file.display())]
    UnknownKey {
        /// The sidecar path.
        file: PathBuf,
        /// The key.
        key: String,
    },
    /// A project sidecar tried to choose the executable (CFG-6).
    #[error("{}: key `bin` is ignored in a project sidecar, because a cloned repository must never choose the executable; set GORTEX_BIN or `bin` in the global sidecar instead", file.display())]
    ProjectBin {
        /// The project sidecar path.
        file: PathBuf,
    },
    /// An environment boolean that is none of the CFG-9 spellings; it falls through.
    #[error("{var}={value:?} is not a boolean (1/true/yes/on or 0/false/no/off); the variable is ignored")]
    EnvNotBoolean {
        /// The variable name.
        var: String,
        /// Its raw value.
        value: String,
    },
}
