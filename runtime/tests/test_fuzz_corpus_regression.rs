//! Replays every committed fuzz corpus file through its fuzz target body
//! (`make test` runs the corpus as a regression test).
//!
//! The bodies are the same files the libFuzzer binaries run
//! (`runtime/fuzz/targets/`), included here by path so this test needs
//! neither nightly nor libFuzzer. A body panics on a wrong answer as well as
//! on a crash, so a seed or a minimized crash input committed under
//! `runtime/fuzz/corpus/<target>/` keeps its property checked forever.

#[path = "../fuzz/targets/mod.rs"]
mod targets;

use std::path::PathBuf;

fn corpus_dir(target: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz")
        .join("corpus")
        .join(target)
}

/// Runs every file of one target's corpus; a failure names the file.
fn replay(target: &str, run: targets::Target) -> usize {
    let dir = corpus_dir(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|error| panic!("corpus {} unreadable: {error}", dir.display()))
        .map(|entry| entry.expect("corpus entry").path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    for file in &files {
        let data = std::fs::read(file).expect("corpus file readable");
        let outcome = std::panic::catch_unwind(|| run(&data));
        assert!(outcome.is_ok(), "{target}: {} fails", file.display());
    }
    files.len()
}

#[test]
fn every_fuzz_target_has_a_committed_seed_corpus() {
    for (target, _) in targets::TARGETS {
        let dir = corpus_dir(target);
        let count = std::fs::read_dir(&dir).map(|d| d.count()).unwrap_or(0);
        assert!(count > 0, "no seeds in {}", dir.display());
    }
}

#[test]
fn framing_corpus_replays_clean() {
    assert!(replay("framing", targets::framing::run) > 0);
}

#[test]
fn mcp_frame_corpus_replays_clean() {
    assert!(replay("mcp_frame", targets::mcp_frame::run) > 0);
}

#[test]
fn call_result_corpus_replays_clean() {
    assert!(replay("call_result", targets::call_result::run) > 0);
}

#[test]
fn hook_decision_corpus_replays_clean() {
    assert!(replay("hook_decision", targets::hook_decision::run) > 0);
}

#[test]
fn sidecar_config_corpus_replays_clean() {
    assert!(replay("sidecar_config", targets::sidecar_config::run) > 0);
}

#[test]
#[cfg_attr(
    windows,
    ignore = "wine 8 shows no reparse points: the target's symlink out of the repo is not seen as a link"
)]
fn edit_paths_corpus_replays_clean() {
    assert!(replay("edit_paths", targets::edit_paths::run) > 0);
}

#[test]
fn diff_engine_corpus_replays_clean() {
    assert!(replay("diff_engine", targets::diff_engine::run) > 0);
}

/// Found by the `edit_paths` target: `..` directly under the root was kept
/// (`/../tmp/x`), so one file could appear as two candidates (`/../tmp/x`
/// and `/tmp/x`) and get two diff entries, and the candidate was not the
/// normalized path DIFF-8 asks for. `..` at the root stays at the root.
#[test]
fn dotdot_at_the_root_names_the_same_file_once() {
    use pi_gortex_runtime::diff::edit_candidates;
    let dir = tempfile::tempdir().expect("temp dir");
    let cwd = std::fs::canonicalize(dir.path()).expect("canonical cwd");
    let file = cwd.join("a.ts");
    std::fs::write(&file, "x\n").expect("file");
    let direct = file.to_string_lossy().into_owned();
    // `..` right below the root (`/../tmp/…`; `\\\\?\\C:\\..\\users\\…` on Windows).
    let root = file.ancestors().last().expect("a root");
    let below_root = file.strip_prefix(root).expect("below its root");
    let via_root = format!(
        "{}..{}{}",
        root.display(),
        std::path::MAIN_SEPARATOR,
        below_root.display()
    );
    let args = serde_json::json!({"path": via_root, "file": direct});
    let candidates = edit_candidates("edit_file", &args, &cwd).expect("an edit");
    assert_eq!(candidates, vec![file]);
}
