//! DIFF-5..8 and DIFF-14: raw names, batch items, repo root, candidate
//! resolution, the containment rule (improvement over 0.4.0, symlinks
//! followed) and display paths.

mod links;

use std::fs;
use std::path::{Path, PathBuf};

use pi_gortex_runtime::diff::classify::raw_names;
use pi_gortex_runtime::diff::edit_candidates;
use pi_gortex_runtime::diff::paths::{
    candidates, clear_repo_root_cache, find_repo_root, real_location, repo_root, resolve_name,
    resolve_pi_path, Boundary,
};
use pi_gortex_runtime::diff::{snapshot_all, Snapshot};
use serde_json::json;

/// A repo `<tmp>/repo` (with `.git`) whose session cwd is `<tmp>/repo/pkg`,
/// and a directory `<tmp>/outside` next to it.
struct Layout {
    _tmp: tempfile::TempDir,
    repo: PathBuf,
    cwd: PathBuf,
    outside: PathBuf,
}

fn layout() -> Layout {
    let tmp = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(tmp.path()).unwrap();
    let repo = base.join("repo");
    let cwd = repo.join("pkg");
    let outside = base.join("outside");
    fs::create_dir_all(repo.join(".git")).unwrap();
    fs::create_dir_all(cwd.join("src")).unwrap();
    fs::create_dir_all(&outside).unwrap();
    Layout {
        _tmp: tmp,
        repo,
        cwd,
        outside,
    }
}

#[test]
fn named_paths_come_from_path_keys_and_symbol_ids() {
    let names = raw_names(&json!({
        "path": "a.ts", "file": "b.ts", "file_path": "c.ts", "source": "d.ts", "destination": "e.ts",
        "id": "myrepo/src/f.ts::f", "symbol": "g.ts::G::m", "symbol_id": "no-separator",
        "other": "x.ts", "content": "y.ts",
    }));
    assert_eq!(
        names,
        [
            "a.ts",
            "b.ts",
            "c.ts",
            "d.ts",
            "e.ts",
            "myrepo/src/f.ts",
            "g.ts"
        ]
    );
    // Non-strings and empty names contribute nothing.
    assert!(raw_names(&json!({"path": 1, "file": "", "id": ["a::b"]})).is_empty());
    // target.file / target.symbol are lifted (DIFF-4).
    assert_eq!(raw_names(&json!({"target": {"file": "t.ts"}})), ["t.ts"]);
    assert_eq!(
        raw_names(&json!({"target": {"symbol": "s.ts::x"}})),
        ["s.ts"]
    );
}

#[test]
fn batch_items_come_from_changes_else_edits_as_array_or_json_string() {
    let from_array =
        raw_names(&json!({"changes": [{"path": "a.ts"}, {"id": "b.ts::f"}, "c.ts", 3]}));
    assert_eq!(from_array, ["a.ts", "b.ts"]);
    let from_string = raw_names(&json!({"edits": "[{\"file\":\"d.ts\"}]"}));
    assert_eq!(from_string, ["d.ts"]);
    let changes_first = raw_names(&json!({"changes": [{"path": "c1"}], "edits": [{"path": "e1"}]}));
    assert_eq!(changes_first, ["c1"]);
    // A `null` `changes` counts as absent: `edits` is read.
    let null_changes = raw_names(&json!({"changes": null, "edits": [{"path": "e2"}]}));
    assert_eq!(null_changes, ["e2"]);
    assert!(raw_names(&json!({"changes": "not json"})).is_empty());
    assert!(
        raw_names(&json!({"changes": "{\"path\":\"x\"}"})).is_empty(),
        "not an array"
    );
    let nested = raw_names(&json!({"arguments": {"changes": [{"path": "n.ts"}]}}));
    assert_eq!(
        nested,
        ["n.ts"],
        "changes are read from the flattened arguments"
    );
}

#[test]
fn repo_root_is_the_nearest_dot_git_at_or_above_cwd_else_cwd() {
    let l = layout();
    assert_eq!(find_repo_root(&l.cwd), l.repo);
    assert_eq!(find_repo_root(&l.repo), l.repo);
    assert_eq!(
        find_repo_root(&l.outside),
        l.outside
            .ancestors()
            .find(|d| d.join(".git").exists())
            .unwrap_or(&l.outside)
    );
    // A `.git` file (worktrees, submodules) counts too.
    let worktree = l.outside.join("wt");
    fs::create_dir_all(worktree.join("deep")).unwrap();
    fs::write(worktree.join(".git"), "gitdir: elsewhere").unwrap();
    assert_eq!(find_repo_root(&worktree.join("deep")), worktree);
}

/// The caches are the process's: a test that clears them holds this, so
/// another's clear cannot land between its "still cached" steps.
static CACHE_CLEARING: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn repo_root_is_cached_per_cwd_until_cleared() {
    let _only = CACHE_CLEARING.lock().unwrap_or_else(|e| e.into_inner());
    let tmp = tempfile::tempdir().unwrap();
    let plain = fs::canonicalize(tmp.path()).unwrap().join("plain");
    let dir = plain.join("sub");
    fs::create_dir_all(&dir).unwrap();
    assert_eq!(repo_root(&dir), dir, "no .git above: the cwd itself");
    // A `git init` one level up changes the answer, but not the cached one.
    fs::create_dir_all(plain.join(".git")).unwrap();
    assert_eq!(find_repo_root(&dir), plain);
    assert_eq!(repo_root(&dir), dir, "cached");
    clear_repo_root_cache();
    assert_eq!(repo_root(&dir), plain, "re-read after clearing");
}

// Unix path literals (`/w/repo`), which are not absolute on Windows.
#[cfg(unix)]
#[test]
fn relative_names_resolve_against_cwd_and_root_with_and_without_the_first_segment() {
    let cwd = Path::new("/w/repo/pkg");
    let root = Path::new("/w/repo");
    let got = resolve_name("myrepo\\src\\a.ts", cwd, root);
    assert_eq!(
        got,
        [
            "/w/repo/pkg/myrepo/src/a.ts",
            "/w/repo/pkg/src/a.ts",
            "/w/repo/myrepo/src/a.ts",
            "/w/repo/src/a.ts"
        ]
        .map(PathBuf::from)
    );
    // No segment to strip in a bare name.
    assert_eq!(
        resolve_name("a.ts", cwd, root),
        ["/w/repo/pkg/a.ts", "/w/repo/a.ts"].map(PathBuf::from)
    );
    // Absolute names are normalized and kept as they are.
    assert_eq!(
        resolve_name("/w/repo/./x/../b.ts", cwd, root),
        [PathBuf::from("/w/repo/b.ts")]
    );
    assert!(resolve_name("", cwd, root).is_empty());
}

#[test]
fn candidates_are_deduplicated_and_sorted() {
    let l = layout();
    let names = ["src/b.ts", "pkg/src/a.ts", "src/b.ts"].map(String::from);
    let got = candidates(&names, &l.cwd);
    let mut expected = vec![
        l.cwd.join("src/b.ts"),
        l.cwd.join("b.ts"),
        l.repo.join("src/b.ts"),
        l.repo.join("b.ts"),
        l.cwd.join("pkg/src/a.ts"),
        l.cwd.join("src/a.ts"),
        l.repo.join("src/a.ts"),
    ];
    expected.sort();
    expected.dedup();
    assert_eq!(got, expected);
}

/// Every candidate, symlinks followed, lies inside the repo root.
fn assert_all_inside(got: &[PathBuf], repo: &Path) {
    for candidate in got {
        let real = real_location(candidate).unwrap();
        assert!(
            real.starts_with(repo),
            "{} escapes to {}",
            candidate.display(),
            real.display()
        );
    }
}

#[test]
fn candidates_outside_cwd_and_repo_root_are_dropped() {
    let l = layout();
    let secret = l.outside.join("secret.txt");
    fs::write(&secret, "secret").unwrap();
    let names = [
        secret.display().to_string(),
        "../../outside/secret.txt".into(),
        "../../../../../../etc/passwd".into(),
    ];
    let got = candidates(&names, &l.cwd);
    assert!(!got.contains(&secret), "{got:?}");
    assert!(!got.contains(&PathBuf::from("/etc/passwd")), "{got:?}");
    assert_all_inside(&got, &l.repo);
    // Inside the repo root but above the cwd is allowed.
    let got = candidates(&["../README.md".into()], &l.cwd);
    assert!(got.contains(&l.repo.join("README.md")), "{got:?}");
}

#[cfg_attr(
    windows,
    ignore = "wine 8 shows no reparse points: its symlinks are not seen as links"
)]
#[test]
fn a_symlink_inside_the_repo_pointing_outside_is_never_a_candidate() {
    let l = layout();
    let secret = l.outside.join("secret.txt");
    fs::write(&secret, "secret").unwrap();
    links::symlink(&secret, l.cwd.join("src/link.txt")).unwrap();
    links::symlink(&l.outside, l.cwd.join("src/linkdir")).unwrap();
    let names = [
        "src/link.txt",
        "src/linkdir/secret.txt",
        "src/linkdir/new.txt",
    ]
    .map(String::from);
    let got = candidates(&names, &l.cwd);
    for link in [
        "src/link.txt",
        "src/linkdir/secret.txt",
        "src/linkdir/new.txt",
    ] {
        assert!(!got.contains(&l.cwd.join(link)), "{link} kept: {got:?}");
    }
    assert_all_inside(&got, &l.repo);
    // The whole pipeline never reads the target.
    let call = json!({"operation": "file", "path": "src/link.txt"});
    let files = edit_candidates("edit", &call, &l.cwd).unwrap();
    for (path, snap) in snapshot_all(&files) {
        assert!(
            !matches!(snap, Snapshot::Text { .. }),
            "{} was read",
            path.display()
        );
    }
    // A symlink that stays inside is fine.
    fs::write(l.cwd.join("src/real.txt"), "x").unwrap();
    links::symlink(l.cwd.join("src/real.txt"), l.cwd.join("src/inner.txt")).unwrap();
    assert!(candidates(&["src/inner.txt".into()], &l.cwd).contains(&l.cwd.join("src/inner.txt")));
}

/// A cwd named through a symlink (macOS's `/tmp` is one): its files are judged
/// by where the cwd really is, and a link beneath it still may not lead out.
#[cfg_attr(
    windows,
    ignore = "wine 8 shows no reparse points: its symlinks are not seen as links"
)]
#[test]
fn a_cwd_named_through_a_symlink_keeps_its_files_and_still_drops_escapes() {
    let l = layout();
    let named = l.outside.parent().unwrap().join("named");
    links::symlink(&l.repo, &named).unwrap();
    let cwd = named.join("pkg");
    fs::write(l.cwd.join("src/a.ts"), "x").unwrap();
    links::symlink(&l.outside, l.cwd.join("src/out")).unwrap();
    let names = ["src/a.ts", "src/new.ts", "src/out/x.ts", "../top.ts"].map(String::from);
    let got = candidates(&names, &cwd);
    for kept in ["pkg/src/a.ts", "pkg/src/new.ts", "top.ts"] {
        assert!(got.contains(&named.join(kept)), "{kept} dropped: {got:?}");
    }
    assert!(
        !got.contains(&named.join("pkg/src/out/x.ts")),
        "the link under src/ leads outside: {got:?}"
    );
    assert_all_inside(&got, &l.repo);
}

#[test]
fn files_that_do_not_exist_yet_are_candidates_inside_the_boundary() {
    let l = layout();
    let got = candidates(&["src/new/deep/file.ts".into()], &l.cwd);
    assert!(got.contains(&l.cwd.join("src/new/deep/file.ts")), "{got:?}");
}

#[test]
fn edit_candidates_is_none_for_non_edits_and_lists_files_for_edits() {
    let l = layout();
    assert_eq!(
        edit_candidates("search", &json!({"path": "a.ts"}), &l.cwd),
        None
    );
    assert_eq!(
        edit_candidates(
            "edit",
            &json!({"operation": "file", "dry_run": true, "path": "a"}),
            &l.cwd
        ),
        None
    );
    let got = edit_candidates(
        "edit",
        &json!({"target": {"file": "a.ts"}, "content": "x"}),
        &l.cwd,
    )
    .unwrap();
    assert_eq!(got, [l.repo.join("a.ts"), l.cwd.join("a.ts")]);
}

// Expects `/` separators; Windows shows `src\\a.ts`, as Pi's path.relative does there.
#[cfg(unix)]
#[test]
fn display_path_is_relative_to_cwd_else_absolute() {
    let cwd = Path::new("/w/repo/pkg");
    assert_eq!(
        pi_gortex_runtime::diff::paths::display_path(Path::new("/w/repo/pkg/src/a.ts"), cwd),
        "src/a.ts"
    );
    assert_eq!(
        pi_gortex_runtime::diff::paths::display_path(Path::new("/w/repo/b.ts"), cwd),
        "../b.ts"
    );
    assert_eq!(
        pi_gortex_runtime::diff::paths::display_path(Path::new("/w/repo/pkg"), cwd),
        "/w/repo/pkg"
    );
}

#[test]
fn pi_own_paths_resolve_like_pi_resolve_to_cwd() {
    let cwd = Path::new("/w/repo");
    assert_eq!(
        resolve_pi_path("src/a.ts", cwd),
        PathBuf::from("/w/repo/src/a.ts")
    );
    assert_eq!(
        resolve_pi_path("@src/a.ts", cwd),
        PathBuf::from("/w/repo/src/a.ts")
    );
    assert_eq!(
        resolve_pi_path("./x/../b.ts", cwd),
        PathBuf::from("/w/repo/b.ts")
    );
    assert_eq!(
        resolve_pi_path("/abs/c.ts", cwd),
        PathBuf::from("/abs/c.ts")
    );
    assert_eq!(
        resolve_pi_path("file:///abs/d.ts", cwd),
        PathBuf::from("/abs/d.ts")
    );
    assert_eq!(
        resolve_pi_path("my\u{00A0}file.ts", cwd),
        PathBuf::from("/w/repo/my file.ts")
    );
    if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        assert_eq!(
            resolve_pi_path("~/e.ts", cwd),
            PathBuf::from(home).join("e.ts")
        );
    }
}

#[test]
fn normalize_is_lexical_and_keeps_leading_parent_dirs_of_relative_paths() {
    use pi_gortex_runtime::diff::paths::normalize;
    assert_eq!(normalize(Path::new("/a/./b/../c")), PathBuf::from("/a/c"));
    assert_eq!(normalize(Path::new("/../tmp/x")), PathBuf::from("/tmp/x"));
    assert_eq!(normalize(Path::new("../../x")), PathBuf::from("../../x"));
    assert_eq!(normalize(Path::new("a/../../x")), PathBuf::from("../x"));
}

#[test]
fn a_leading_separator_is_no_first_segment_to_strip() {
    // `\\lead.ts` becomes `/lead.ts`: joined to either base it stays itself,
    // and there is no repo-name segment in front of it to drop.
    let got = resolve_name("\\lead.ts", Path::new("/w/repo/pkg"), Path::new("/w/repo"));
    assert_eq!(got, ["/lead.ts", "/lead.ts"].map(PathBuf::from));
}

#[test]
fn the_session_boundary_of_a_cwd_holds_its_repo_root_too() {
    let l = layout();
    let boundary = Boundary::for_cwd(&l.cwd);
    assert!(boundary.contains(&l.cwd.join("src/a.ts")));
    assert!(
        boundary.contains(&l.repo.join("top.ts")),
        "the repo root is inside the boundary (DIFF-7)"
    );
    assert!(!boundary.contains(&l.outside.join("x.ts")));
    // A relative cwd bounds nothing.
    assert!(!Boundary::for_cwd(Path::new("rel")).contains(&l.cwd.join("src/a.ts")));
    // `pi-gortex diff` reads whatever file the user names.
    assert!(Boundary::unrestricted().contains(&l.outside.join("x.ts")));
}

/// The walk vouches only for what one `lstat` per part proves: plain parts,
/// existing or not, beneath a root. A link (even one that stays inside), a
/// `..`, a part beneath a file or a path beyond the roots gets no verdict
/// from it and is left to the full resolution.
#[cfg_attr(
    windows,
    ignore = "wine 8 shows no reparse points: its symlinks are not seen as links"
)]
#[test]
fn the_walk_places_plain_parts_and_leaves_links_dot_dots_and_files_to_the_resolution() {
    let l = layout();
    fs::write(l.cwd.join("src/a.ts"), "x").unwrap();
    links::symlink(l.cwd.join("src"), l.cwd.join("inner")).unwrap();
    let boundary = Boundary::for_cwd(&l.cwd);
    for placed in ["src/a.ts", "src/new/deep/file.ts"] {
        assert!(boundary.walk_places(&l.cwd.join(placed)), "{placed}");
    }
    assert!(
        boundary.walk_places(&l.repo.join("top.ts")),
        "the repo root's walk"
    );
    let unplaced = [
        l.cwd.join("inner/a.ts"),
        l.cwd.join("src/../src/a.ts"),
        l.cwd.join("src/a.ts/x"),
        l.outside.join("x.ts"),
    ];
    for path in &unplaced {
        assert!(!boundary.walk_places(path), "{path:?}");
    }
    assert!(
        boundary.contains(&l.cwd.join("inner/a.ts")),
        "the resolution keeps it"
    );
    assert!(!boundary.contains(&l.outside.join("x.ts")));
}

/// A session's roots are resolved once: a cwd link re-pointed mid-session
/// is judged by where it led at the first edit until the caches are cleared
/// (at session start).
#[cfg_attr(
    windows,
    ignore = "wine 8 shows no reparse points: its symlinks are not seen as links"
)]
#[test]
fn a_sessions_roots_are_resolved_once_until_the_caches_are_cleared() {
    let _only = CACHE_CLEARING.lock().unwrap_or_else(|e| e.into_inner());
    let l = layout();
    let base = l.outside.parent().unwrap().to_path_buf();
    let (first, second, cwd) = (base.join("first"), base.join("second"), base.join("cwd"));
    for repo in [&first, &second] {
        fs::create_dir_all(repo.join(".git")).unwrap();
    }
    links::symlink(&l.outside, first.join("x")).unwrap();
    links::symlink(&first, &cwd).unwrap();
    let escape = ["x/f.ts".to_string()];
    let through_link = cwd.join("x/f.ts");
    assert!(
        !candidates(&escape, &cwd).contains(&through_link),
        "x leads outside"
    );
    fs::remove_file(&cwd).unwrap();
    links::symlink(&second, &cwd).unwrap();
    assert!(
        !candidates(&escape, &cwd).contains(&through_link),
        "judged by the first root until cleared"
    );
    clear_repo_root_cache();
    assert!(
        candidates(&escape, &cwd).contains(&through_link),
        "second/x/f.ts is a new file inside"
    );
}
