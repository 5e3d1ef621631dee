//! Errors of the code generator, one variant per way a run can fail.

use std::path::PathBuf;

/// Why a codegen step failed.
#[derive(Debug, thiserror::Error)]
pub enum CodegenError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A schema file is not valid JSON.
    #[error("{path}:{line}:{column}: not JSON: {message}")]
    NotJson {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    /// A schema uses a keyword or shape outside the supported subset.
    #[error("{file}#{pointer}: {message}")]
    Lint {
        file: String,
        pointer: String,
        message: String,
    },
    /// typify refused a schema.
    #[error("{file}: typify: {message}")]
    Typify { file: String, message: String },
    /// The Rust produced for a schema does not parse.
    #[error("{file}: generated Rust does not parse: {message}")]
    RustSyntax { file: String, message: String },
}
