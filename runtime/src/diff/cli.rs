//! `pi-gortex diff <before> <after> [--path NAME]`: the `EditDetails` of one
//! change, exactly as the extension would store it. A debugging tool, and
//! the way tests drive the whole pipeline from the outside.
//!
//! Both files go through the snapshot rules (DIFF-9), so a missing file
//! diffs as empty and a binary one gets its note. The containment rule of
//! DIFF-8 does not apply: the user names the files.

use std::path::Path;

use pi_gortex_schema::edit_details::EditDetails;

use super::outcome::{edit_details, file_outcome};
use super::snapshot::snapshot;

/// Why the command could not print its result.
#[derive(Debug, thiserror::Error)]
pub enum DiffCliError {
    #[error("could not serialize the edit details: {source}")]
    Serialize {
        #[source]
        source: serde_json::Error,
    },
}

/// The details of changing `before` into `after`, shown as `display`
/// (default: the `after` path as given).
pub fn details_for_files(before: &Path, after: &Path, display: Option<&str>) -> EditDetails {
    let shown = display
        .map(str::to_owned)
        .unwrap_or_else(|| after.to_string_lossy().into_owned());
    let entry = file_outcome(&shown, &snapshot(before), &snapshot(after));
    edit_details(entry.into_iter().collect())
}

/// The command's output: one line of JSON.
pub fn run(before: &Path, after: &Path, display: Option<&str>) -> Result<String, DiffCliError> {
    let details = details_for_files(before, after, display);
    serde_json::to_string(&details).map_err(|source| DiffCliError::Serialize { source })
}
