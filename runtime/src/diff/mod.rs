//! Edit diffs (DIFF-*): which tool calls write files, which files they name,
//! snapshots before and after, and Pi-identical diffs of the change.
pub mod engine;
pub mod format;
