//! `pi-gortex diff <before> <after> [--path NAME]`: the `EditDetails` of one
//! change, exactly as the extension would store it. A debugging tool, and
//! the way tests drive the whole pipeline from the outside.
//!
//! Both files go through the snapshot rules, so one missing file
//! diffs as empty (a creation or a deletion) and a binary one gets its note.
//! Two missing files, or a path that is not a regular file, are usage errors:
//! the snapshot rules would skip them silently and print `{}`, hiding a typo.
//! The containment rule of DIFF-8 does not apply: the user names the files.

use std::path::Path;

use pi_gortex_schema::edit_details::EditDetails;

use super::outcome::{edit_details, file_outcome};
use super::snapshot::snapshot;

/// Why the command could not print its result.
#[derive(Debug, thiserror::Error)]
pub enum DiffCliError {
    #[error("neither {before} nor {after} exists")]
    NeitherExists { before: String, after: String },
    #[error("{path} is not a regular file")]
    NotAFile { path: String },
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
    check_inputs(before, after)?;
    let details = details_for_files(before, after, display);
    serde_json::to_string(&details).map_err(|source| DiffCliError::Serialize { source })
}

/// Rejects what the snapshot rules would silently skip (see the module doc).
fn check_inputs(before: &Path, after: &Path) -> Result<(), DiffCliError> {
    for path in [before, after] {
        if path.exists() && !path.is_file() {
            return Err(DiffCliError::NotAFile {
                path: path.display().to_string(),
            });
        }
    }
    if !before.exists() && !after.exists() {
        return Err(DiffCliError::NeitherExists {
            before: before.display().to_string(),
            after: after.display().to_string(),
        });
    }
    Ok(())
}
