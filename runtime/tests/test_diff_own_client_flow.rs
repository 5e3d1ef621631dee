//! DIFF-16 (the parts in Rust): candidates, shell window + before snapshot,
//! after snapshot + compare + DIFF-15. Pi's file locks are taken by the
//! TypeScript glue around these calls. The steps are the addon's: the
//! window opened, the before side read within the session boundary, the
//! after side read again, compared, DIFF-15 applied.

use std::fs;

use pi_gortex_runtime::diff::{
    edit_candidates, Boundary, EditDetails, PendingCompare, ShellTracker,
};

/// DIFF-16 step 7 as the addon's `close_own_window` runs it.
async fn finish(
    pending: PendingCompare,
    shell: &ShellTracker,
    cwd: &std::path::Path,
) -> EditDetails {
    let after = pending.read_after().await;
    pending.finish(&after, shell, cwd)
}
use serde_json::json;

#[tokio::test]
async fn a_batch_edit_gets_one_entry_per_changed_file() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = fs::canonicalize(tmp.path()).unwrap();
    fs::create_dir_all(cwd.join(".git")).unwrap();
    fs::write(cwd.join("a.txt"), "a\n").unwrap();
    fs::write(cwd.join("b.txt"), "b\n").unwrap();
    let args =
        json!({"changes": "[{\"path\":\"a.txt\"},{\"path\":\"b.txt\"},{\"path\":\"new.txt\"}]"});
    let files = edit_candidates("edit", &args, &cwd).expect("an inferred batch edit");
    let shell = ShellTracker::default();
    let pending = PendingCompare::open(files, shell.open_window(), Boundary::for_cwd(&cwd)).await;
    fs::write(cwd.join("a.txt"), "A\n").unwrap();
    fs::write(cwd.join("new.txt"), "fresh\n").unwrap();
    let details = serde_json::to_value(finish(pending, &shell, &cwd).await).unwrap();
    let paths: Vec<_> = details["diffs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["path"].clone())
        .collect();
    assert_eq!(paths, [json!("a.txt"), json!("new.txt")]);
    assert!(
        details.get("diff").is_none(),
        "two entries: no top-level diff"
    );
    assert_eq!(
        details["patch"],
        json!("--- a.txt\n+++ a.txt\n@@ -1,1 +1,1 @@\n-a\n+A\n--- new.txt\n+++ new.txt\n@@ -0,0 +1,1 @@\n+fresh\n")
    );
    pi_gortex_schema::validate("EditDetails", &details).unwrap();
}

#[tokio::test]
async fn a_shell_call_inside_the_window_turns_entries_into_notes() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = fs::canonicalize(tmp.path()).unwrap();
    fs::write(cwd.join("a.txt"), "a\n").unwrap();
    let files = edit_candidates("edit_file", &json!({"path": "a.txt"}), &cwd).unwrap();
    let mut shell = ShellTracker::default();
    let pending = PendingCompare::open(files, shell.open_window(), Boundary::for_cwd(&cwd)).await;
    shell.on_tool_call("bash", "b1");
    fs::write(cwd.join("a.txt"), "A\n").unwrap();
    shell.on_tool_execution_end("b1");
    let details = serde_json::to_value(finish(pending, &shell, &cwd).await).unwrap();
    assert_eq!(
        details,
        json!({"diffs": [{"path": "a.txt", "diff": "", "patch": "", "note": "not diffed: a shell command ran at the same time"}]})
    );
}
