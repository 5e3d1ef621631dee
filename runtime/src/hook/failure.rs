//! Why a hook run gave the empty decision (HOOK-3). The caller still gets
//! `{}`; the reason is kept for doctor and tracing.

use serde::Serialize;

/// One reason a hook run failed open.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum HookFailure {
    /// No executable was configured.
    #[error("the hook argv is empty")]
    EmptyArgv,
    /// The executable could not be started (missing, not executable, …).
    #[error("could not start `{program}`: {error}")]
    Spawn {
        /// `argv[0]`.
        program: String,
        /// The OS error.
        error: String,
    },
    /// The wall-time limit was hit; the child was killed.
    #[error("the hook did not answer within {limit_ms} ms and was killed")]
    Timeout {
        /// The limit in milliseconds.
        limit_ms: u64,
    },
    /// The stdout cap was hit; the child was killed.
    #[error("the hook wrote more than {limit_bytes} bytes to stdout and was killed")]
    OutputTooLarge {
        /// The cap in bytes.
        limit_bytes: usize,
    },
    /// The child exited unsuccessfully (its stdout is ignored, even when valid).
    #[error("the hook exited with {status}")]
    ExitStatus {
        /// The status as the OS reports it (`exit status: 3`, `signal: 9`, …).
        status: String,
    },
    /// Talking to the child failed.
    #[error("hook I/O failed: {error}")]
    Io {
        /// The I/O error.
        error: String,
    },
    /// The trimmed stdout was empty.
    #[error("the hook printed nothing")]
    EmptyOutput,
    /// The stdout was not JSON.
    #[error("the hook printed invalid JSON ({message})")]
    InvalidJson {
        /// The parser's message.
        message: String,
    },
    /// The stdout was JSON but not an object (`null`, an array, …).
    #[error("the hook printed JSON {found}, not an object")]
    NotAnObject {
        /// The JSON type printed.
        found: String,
    },
}
