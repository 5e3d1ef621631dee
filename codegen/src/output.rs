//! What every emitter produces: one output file, so that emitters and the driver that collects
//! their files (`generate`) depend on this type, not on each other.

use std::path::PathBuf;

/// One output file: path relative to the repository root, and its full contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedFile {
    pub path: PathBuf,
    pub contents: String,
}
