//! Compares freshly rendered output with the checked-in files and renders unified diffs.

use crate::output::GeneratedFile;
use similar::TextDiff;
use std::path::Path;

/// A generated file whose checked-in copy differs (or is missing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Drift {
    pub path: String,
    pub unified_diff: String,
}

/// Every drift between `expected` and the files under `root`.
pub fn find_drift(root: &Path, expected: &[GeneratedFile]) -> Vec<Drift> {
    expected
        .iter()
        .filter_map(|file| {
            let actual = std::fs::read_to_string(root.join(&file.path)).unwrap_or_default();
            if actual == file.contents {
                return None;
            }
            let path = file.path.display().to_string();
            let unified_diff = TextDiff::from_lines(&actual, &file.contents)
                .unified_diff()
                .context_radius(3)
                .header(
                    &format!("a/{path} (checked in)"),
                    &format!("b/{path} (generated)"),
                )
                .to_string();
            Some(Drift { path, unified_diff })
        })
        .collect()
}
