//! Edit-call classification and candidate paths (DIFF-2..8, DIFF-14) on
//! arbitrary arguments, against a real directory tree.
//!
//! Input: a control byte (low bits pick the tool name; bit 7 set: the rest
//! is one raw path, sent as `target.file`, so hostile names are reached
//! without JSON syntax), then JSON arguments. The tree, created once under
//! the temp dir, is `repo/.git`, `repo/sub` (the cwd), `repo/sub/a.ts`, and
//! `repo/sub/escape`, a symlink to `/`. Checked: only `edit` and the legacy
//! edit tools can be edits; candidates are absolute, normalized, sorted and
//! unique, inside the cwd or the repo root, and, with the symlink followed,
//! never a file outside the repo (DIFF-8 security rule; a path that leaves
//! through the link and comes back in is inside).

use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

use pi_gortex_runtime::diff::classify::{edit_kind, raw_names, LEGACY_EDIT_TOOLS};
use pi_gortex_runtime::diff::paths::display_path;
use pi_gortex_runtime::diff::{edit_candidates, snapshot_all};
use serde_json::{json, Value};

use super::input::control;

const TOOL_NAMES: [&str; 8] = [
    "edit",
    "edit_file",
    "write_file",
    "edit_symbol",
    "batch_edit",
    "read",
    "refactor",
    "gortex_edit",
];

/// The repo root and the cwd of the fixed tree.
struct Tree {
    root: PathBuf,
    cwd: PathBuf,
}

fn tree() -> &'static Tree {
    static TREE: OnceLock<Tree> = OnceLock::new();
    TREE.get_or_init(|| {
        let base = std::env::temp_dir().join("pi-gortex-fuzz-tree");
        let base = std::fs::create_dir_all(&base)
            .and_then(|()| std::fs::canonicalize(&base))
            .expect("temp dir usable");
        let root = base.join("repo");
        let cwd = root.join("sub");
        std::fs::create_dir_all(root.join(".git")).expect("tree");
        std::fs::create_dir_all(&cwd).expect("tree");
        std::fs::write(cwd.join("a.ts"), "export const a = 1;\n").expect("tree");
        let escape = cwd.join("escape");
        if std::fs::symlink_metadata(&escape).is_err() {
            #[cfg(unix)]
            std::os::unix::fs::symlink("/", &escape).expect("tree");
            // The root of the current drive, where Windows has no single root.
            #[cfg(windows)]
            std::os::windows::fs::symlink_dir("\\", &escape).expect("tree");
        }
        Tree { root, cwd }
    })
}

fn arguments(mode: u8, rest: &[u8]) -> Option<Value> {
    if mode & 0x80 != 0 {
        let name = String::from_utf8_lossy(rest);
        return Some(json!({"target": {"file": name}, "content": "x"}));
    }
    serde_json::from_slice(rest).ok()
}

/// Where a candidate really points, knowing the tree's only symlink
/// (`escape` -> `/`): the prefix is replaced until none is left, because a
/// path may leave through the link and come back into the repo.
fn real_location(candidate: &Path, tree: &Tree) -> PathBuf {
    let escape = tree.cwd.join("escape");
    let mut path = candidate.to_path_buf();
    while let Ok(rest) = path.strip_prefix(&escape) {
        path = Path::new("/").join(rest);
    }
    path
}

fn check_candidate(candidate: &Path, tree: &Tree) {
    assert!(candidate.is_absolute(), "{candidate:?}");
    assert!(
        candidate
            .components()
            .all(|c| !matches!(c, Component::CurDir | Component::ParentDir)),
        "normalized: {candidate:?}"
    );
    assert!(
        candidate.starts_with(&tree.cwd) || candidate.starts_with(&tree.root),
        "inside the session's directories: {candidate:?}"
    );
    assert!(
        real_location(candidate, tree).starts_with(&tree.root),
        "never a file outside the repo, through the symlink or not: {candidate:?}"
    );
    assert!(!display_path(candidate, &tree.cwd).is_empty());
}

/// Classifies one call and checks its candidate paths.
pub fn run(data: &[u8]) {
    let Some((mode, rest)) = control(data) else {
        return;
    };
    let Some(args) = arguments(mode, rest) else {
        return;
    };
    let tool = TOOL_NAMES[usize::from(mode & 0x7f) % TOOL_NAMES.len()];
    let tree = tree();

    let kind = edit_kind(tool, &args);
    let may_edit = tool == "edit" || LEGACY_EDIT_TOOLS.contains(&tool);
    if !may_edit {
        assert!(kind.is_none(), "{tool} is never an edit");
    }
    let dry_run_named = String::from_utf8_lossy(rest).contains("dry_run");
    if LEGACY_EDIT_TOOLS.contains(&tool) && !dry_run_named {
        assert!(kind.is_some(), "{tool} without dry_run is an edit");
    }
    for name in raw_names(&args) {
        assert!(!name.is_empty(), "empty names are dropped");
    }

    let candidates = edit_candidates(tool, &args, &tree.cwd);
    assert_eq!(candidates.is_some(), kind.is_some());
    let Some(candidates) = candidates else {
        return;
    };
    assert!(
        candidates.windows(2).all(|pair| pair[0] < pair[1]),
        "sorted and unique"
    );
    for candidate in &candidates {
        check_candidate(candidate, tree);
    }
    let _ = snapshot_all(&candidates);
}
