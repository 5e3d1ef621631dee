//! DIFF-17..20: claims at `tool_call`, contested paths, diffs at
//! `tool_result`, release at `tool_execution_end`, cleanup at `turn_end`,
//! driven as Pi would emit the events.

use std::fs;
use std::path::Path;

use pi_gortex_runtime::diff::{edit_candidates, merge_details, EditClaims, ToolCall};
use serde_json::{json, Value};

mod common;

fn repo() -> common::DiffRepo {
    common::diff_repo(&[("a.txt", "one\ntwo\n"), ("b.txt", "bee\n")])
}

fn call<'a>(id: &'a str, tool: &'a str, input: &'a Value) -> ToolCall<'a> {
    ToolCall {
        tool_call_id: id,
        tool_name: tool,
        input,
        parent_tool_call_id: None,
    }
}

/// `tool_call` as the extension core runs it: the claim under the claims' lock,
/// the before side read outside it (`read_before` in `extension/tool_events.rs`).
async fn on_call(w: &mut EditClaims, c: ToolCall<'_>, cwd: &Path) {
    if let Some(ticket) = w.begin_tool_call(c, true, cwd, edit_candidates) {
        let before = ticket.read_before().await;
        w.complete_claim(ticket, before);
    }
}

/// `tool_result` as the addon's `toolResult` runs it: the pending
/// comparison taken out, the after side read, the details merged when a
/// diff came out.
async fn on_result(
    w: &mut EditClaims,
    id: &str,
    is_error: bool,
    existing: &Value,
    cwd: &Path,
) -> Option<Value> {
    let pending = w.take_result(id, is_error)?;
    let after = pending.read_after().await;
    let details = pending.finish(&after, &w.shell, cwd);
    details.diffs.as_ref()?;
    Some(merge_details(existing, &details))
}

fn gortex_edit(path: &str) -> Value {
    json!({"operation": "file", "path": path})
}

#[tokio::test]
async fn a_gortex_edit_is_diffed_and_merged_into_pi_details() {
    let r = repo();
    let mut w = EditClaims::new();
    let input = gortex_edit("a.txt");
    on_call(&mut w, call("g1", "mcp__gortex__edit", &input), &r.cwd).await;
    assert!(w.has_claim("g1"));
    fs::write(r.cwd.join("a.txt"), "one\nTWO\n").unwrap();
    let details = on_result(&mut w, "g1", false, &json!({"server": "gortex"}), &r.cwd)
        .await
        .expect("a diff");
    assert_eq!(details["server"], json!("gortex"));
    assert_eq!(details["diff"], json!(" 1 one\n-2 two\n+2 TWO"));
    assert_eq!(details["diffs"][0]["path"], json!("a.txt"));
    assert_eq!(details["firstChangedLine"], json!(2));
    w.on_tool_execution_end("g1");
    assert!(!w.has_claim("g1"));
}

#[tokio::test]
async fn an_inferred_edit_without_operation_is_diffed() {
    let r = repo();
    let mut w = EditClaims::new();
    let input = json!({"target": {"file": "b.txt"}, "content": "BEE\n"});
    on_call(&mut w, call("g1", "mcp__gortex__edit", &input), &r.cwd).await;
    fs::write(r.cwd.join("b.txt"), "BEE\n").unwrap();
    let details = on_result(&mut w, "g1", false, &json!({}), &r.cwd)
        .await
        .expect("a diff");
    assert_eq!(details["diff"], json!("-1 bee\n+1 BEE"));
}

#[tokio::test]
async fn nothing_is_claimed_off_the_native_path_for_sub_calls_or_non_edits() {
    let r = repo();
    let mut w = EditClaims::new();
    let input = gortex_edit("a.txt");
    let own_client = w.begin_tool_call(
        call("own", "mcp__gortex__edit", &input),
        false,
        &r.cwd,
        edit_candidates,
    );
    assert!(own_client.is_none());
    assert!(!w.has_claim("own"));
    let mut sub = call("sub", "mcp__gortex__edit", &input);
    sub.parent_tool_call_id = Some("parent");
    on_call(&mut w, sub, &r.cwd).await;
    assert!(!w.has_claim("sub"));
    let search = json!({"path": "a.txt"});
    on_call(&mut w, call("s", "mcp__gortex__search", &search), &r.cwd).await;
    assert!(!w.has_claim("s"));
    let dry = json!({"operation": "file", "path": "a.txt", "dry_run": true});
    on_call(&mut w, call("d", "mcp__gortex__edit", &dry), &r.cwd).await;
    assert!(!w.has_claim("d"));
    let nameless = json!({"operation": "file"});
    on_call(&mut w, call("n", "mcp__gortex__edit", &nameless), &r.cwd).await;
    assert!(
        !w.has_claim("n"),
        "an edit without candidates claims nothing"
    );
    let other_server = gortex_edit("a.txt");
    on_call(&mut w, call("o", "mcp__other__edit", &other_server), &r.cwd).await;
    assert!(!w.has_claim("o"));
}

#[tokio::test]
async fn error_results_and_pi_own_edits_produce_nothing() {
    let r = repo();
    let mut w = EditClaims::new();
    let input = gortex_edit("a.txt");
    on_call(&mut w, call("g1", "mcp__gortex__edit", &input), &r.cwd).await;
    fs::write(r.cwd.join("a.txt"), "changed\n").unwrap();
    assert_eq!(
        on_result(&mut w, "g1", true, &json!({}), &r.cwd).await,
        None
    );

    let own = json!({"path": "b.txt", "oldText": "bee", "newText": "BEE"});
    on_call(&mut w, call("p1", "edit", &own), &r.cwd).await;
    assert!(w.has_claim("p1"), "Pi's own edit claims its path");
    fs::write(r.cwd.join("b.txt"), "BEE\n").unwrap();
    assert_eq!(
        on_result(&mut w, "p1", false, &json!({}), &r.cwd).await,
        None,
        "no snapshot"
    );
}

#[tokio::test]
async fn a_path_shared_with_pi_own_write_is_contested_and_gets_no_diff() {
    let r = repo();
    let mut w = EditClaims::new();
    let gortex = json!({"operation": "batch", "changes": [{"path": "a.txt"}, {"path": "b.txt"}]});
    let pi_write = json!({"path": "@a.txt", "content": "x"});
    on_call(&mut w, call("g1", "mcp__gortex__edit", &gortex), &r.cwd).await;
    on_call(&mut w, call("p1", "write", &pi_write), &r.cwd).await;
    assert_eq!(w.contested_paths("g1"), [r.cwd.join("a.txt")]);
    assert_eq!(w.contested_paths("p1"), [r.cwd.join("a.txt")]);
    fs::write(r.cwd.join("a.txt"), "x").unwrap();
    fs::write(r.cwd.join("b.txt"), "BEE\n").unwrap();
    let _ = on_result(&mut w, "p1", false, &json!({}), &r.cwd).await;
    w.on_tool_execution_end("p1");
    let details = on_result(&mut w, "g1", false, &json!({}), &r.cwd)
        .await
        .expect("b.txt diff");
    let diffs = details["diffs"].as_array().unwrap();
    assert_eq!(
        diffs.len(),
        1,
        "no diff and no note for the contested path: {details}"
    );
    assert_eq!(diffs[0]["path"], json!("b.txt"));
}

#[tokio::test]
async fn a_claim_that_never_ran_stops_contesting_when_released() {
    let r = repo();
    let mut w = EditClaims::new();
    let gortex = gortex_edit("a.txt");
    let pi_edit = json!({"path": "a.txt"});
    on_call(&mut w, call("g1", "mcp__gortex__edit", &gortex), &r.cwd).await;
    on_call(&mut w, call("p1", "edit", &pi_edit), &r.cwd).await;
    assert!(!w.contested_paths("g1").is_empty());
    // p1 was blocked: it ends without a result.
    w.on_tool_execution_end("p1");
    assert!(w.contested_paths("g1").is_empty());
    fs::write(r.cwd.join("a.txt"), "one\n").unwrap();
    let details = on_result(&mut w, "g1", false, &json!({}), &r.cwd)
        .await
        .expect("diff");
    assert_eq!(details["diff"], json!(" 1 one\n-2 two"));
}

#[tokio::test]
async fn two_gortex_edits_of_one_file_contest_each_other() {
    let r = repo();
    let mut w = EditClaims::new();
    let first = gortex_edit("a.txt");
    let second = json!({"target": {"symbol": "a.txt::f"}});
    on_call(&mut w, call("g1", "mcp__gortex__edit", &first), &r.cwd).await;
    on_call(
        &mut w,
        call("g2", "mcp__gortex__edit_symbol", &second),
        &r.cwd,
    )
    .await;
    fs::write(r.cwd.join("a.txt"), "changed\n").unwrap();
    assert_eq!(
        on_result(&mut w, "g1", false, &json!({}), &r.cwd).await,
        None
    );
    w.on_tool_execution_end("g1");
    // g1 ran, so it still contests g2.
    assert_eq!(
        on_result(&mut w, "g2", false, &json!({}), &r.cwd).await,
        None
    );
}

#[tokio::test]
async fn a_shell_call_during_a_native_edit_replaces_the_diff_with_a_note() {
    let r = repo();
    let mut w = EditClaims::new();
    let input = gortex_edit("a.txt");
    on_call(&mut w, call("g1", "mcp__gortex__edit", &input), &r.cwd).await;
    let bash = json!({"command": "sed -i s/two/2/ a.txt"});
    on_call(&mut w, call("b1", "bash", &bash), &r.cwd).await;
    fs::write(r.cwd.join("a.txt"), "one\n2\n").unwrap();
    w.on_tool_execution_end("b1");
    let details = on_result(&mut w, "g1", false, &json!({}), &r.cwd)
        .await
        .expect("a note");
    assert_eq!(
        details["diffs"],
        json!([{"path": "a.txt", "diff": "", "patch": "", "note": "not diffed: a shell command ran at the same time"}])
    );
    assert!(details.get("diff").is_none() && details.get("patch").is_none());
}

#[tokio::test]
async fn turn_end_clears_claims_and_running_shells() {
    let r = repo();
    let mut w = EditClaims::new();
    let input = gortex_edit("a.txt");
    let bash = json!({"command": "true"});
    on_call(&mut w, call("b1", "bash", &bash), &r.cwd).await;
    on_call(&mut w, call("g1", "mcp__gortex__edit", &input), &r.cwd).await;
    w.clear();
    assert!(!w.has_claim("g1"));
    assert!(!w.shell.is_running());
    fs::write(r.cwd.join("a.txt"), "x\n").unwrap();
    assert_eq!(
        on_result(&mut w, "g1", false, &json!({}), &r.cwd).await,
        None
    );
}

#[tokio::test]
async fn unchanged_files_produce_no_details() {
    let r = repo();
    let mut w = EditClaims::new();
    let input = gortex_edit("a.txt");
    on_call(&mut w, call("g1", "mcp__gortex__edit", &input), &r.cwd).await;
    assert_eq!(
        on_result(&mut w, "g1", false, &json!({"server": "gortex"}), &r.cwd).await,
        None
    );
}

#[tokio::test]
async fn a_claim_can_be_snapshotted_outside_the_claims_lock() {
    let r = repo();
    let mut w = EditClaims::new();
    let input = gortex_edit("a.txt");
    let ticket = w
        .begin_tool_call(
            call("g1", "mcp__gortex__edit", &input),
            true,
            &r.cwd,
            edit_candidates,
        )
        .expect("a Gortex edit with candidates");
    assert!(w.has_claim("g1"), "claimed before the files are read");
    assert!(ticket.paths().contains(&r.cwd.join("a.txt")));
    let before = ticket.read_before().await;
    w.complete_claim(ticket, before);
    fs::write(r.cwd.join("a.txt"), "one\n").unwrap();
    let details = on_result(&mut w, "g1", false, &json!({}), &r.cwd)
        .await
        .expect("diff");
    assert_eq!(details["diff"], json!(" 1 one\n-2 two"));

    // Pi's own tools and non-edits need no ticket.
    let own = json!({"path": "b.txt"});
    assert!(w
        .begin_tool_call(call("p1", "write", &own), true, &r.cwd, edit_candidates)
        .is_none());
    assert!(w.has_claim("p1"));
    // A ticket completed after turn_end does not resurrect the claim.
    let ticket = w
        .begin_tool_call(
            call("g2", "mcp__gortex__edit", &input),
            true,
            &r.cwd,
            edit_candidates,
        )
        .unwrap();
    w.clear();
    w.complete_claim(ticket, Default::default());
    assert!(!w.has_claim("g2"));
}
