//! Edit diffs (DIFF-*): which tool calls write files, which files they
//! name, snapshots before and after, and diffs byte-identical to Pi's own
//! edit details, so Pi's renderer draws them.
//!
//! Files by concern:
//! - [`classify`]: which calls are edits, flattening, raw names,
//!   including the operation inference for `edit` without `operation`.
//! - [`paths`]: repo root, candidates, containment, display paths.
//! - [`snapshot`]: reading a file as diffable text.
//! - [`engine`]: jsdiff 8.0.4 `diffLines`, reproduced exactly.
//! - [`format`]: Pi's display diff and unified patch.
//! - [`budget`]: what a diff may cost.
//! - [`outcome`]: notes, entries, `EditDetails`, merging (DIFF-10/11/19/21).
//! - [`claims`]: shell overlap and native edit claims.
//! - [`cli`]: `pi-gortex diff`.
//!
//! Everything here is fail-open: no function panics or returns an error to
//! the tool call on bad input; a problem means no diff.

pub mod budget;
pub mod claims;
pub mod classify;
pub mod cli;
pub mod engine;
pub mod format;
pub mod outcome;
pub mod paths;
pub mod snapshot;

use std::path::{Path, PathBuf};

use serde_json::Value;

pub use claims::{
    ClaimTicket, EditClaims, PendingCompare, PrefetchUse, PrefetchWaiter, ShellTracker,
    ShellWindow, ToolCall, MAX_PREFETCHES,
};
pub use outcome::{compare, edit_details, merge_details};
pub use paths::Boundary;
pub use pi_gortex_schema::edit_details::{EditDetails, FileDiff};
#[cfg(any(test, feature = "test-support"))]
pub use snapshot::snapshot_all;
pub use snapshot::{snapshot_all_in, snapshot_all_timed, Snapshot, Snapshots, SNAPSHOT_TIME_LIMIT};

/// `None` when the call is not a file edit; otherwise its
/// candidate files (possibly none), sorted, de-duplicated and inside the
/// cwd or the repo root. `bare_tool_name` has no `mcp__gortex__` prefix.
pub fn edit_candidates(bare_tool_name: &str, args: &Value, cwd: &Path) -> Option<Vec<PathBuf>> {
    classify::edit_kind(bare_tool_name, args)?;
    Some(paths::candidates(&classify::raw_names(args), cwd))
}
