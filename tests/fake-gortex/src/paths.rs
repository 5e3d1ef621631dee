//! Repo-root discovery and path resolution shared by edits and the orientation (DIFF-7 rules).

use std::path::{Path, PathBuf};

/// The nearest directory at or above `start` holding `.git`, else `start`.
pub fn repo_root(start: &Path) -> PathBuf {
    let mut dir = Some(start);
    while let Some(d) = dir {
        if d.join(".git").exists() {
            return d.to_path_buf();
        }
        dir = d.parent();
    }
    start.to_path_buf()
}

/// Resolves a tool path: absolute kept; relative against the repo root, with a first segment
/// equal to the repo root's basename stripped (Gortex paths may start with the repo name).
pub fn resolve(root: &Path, raw: &str) -> PathBuf {
    let raw = raw.replace('\\', "/");
    let p = Path::new(&raw);
    if p.is_absolute() {
        return p.to_path_buf();
    }
    let base = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let rel = match raw.split_once('/') {
        Some((first, rest)) if !base.is_empty() && first == base && !rest.is_empty() => rest,
        _ => raw.as_str(),
    };
    root.join(rel)
}
