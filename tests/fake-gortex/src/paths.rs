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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repo_name_prefix_is_stripped_and_absolute_paths_kept() {
        let root = Path::new("/w/myrepo");
        assert_eq!(
            resolve(root, "myrepo/src/a.ts"),
            Path::new("/w/myrepo/src/a.ts")
        );
        assert_eq!(resolve(root, "src\\a.ts"), Path::new("/w/myrepo/src/a.ts"));
        assert_eq!(resolve(root, "/abs/b.ts"), Path::new("/abs/b.ts"));
        assert_eq!(resolve(root, "myrepo"), Path::new("/w/myrepo/myrepo"));
    }
}
