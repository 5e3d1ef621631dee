//! FAKE-5 edits: facade and legacy edit tools really change files under the repo root.

mod common;
use common::{repo, Fake, Mcp};
use serde_json::{json, Value};
use std::path::Path;

fn in_repo(fake: &Fake, root: &Path) -> Mcp {
    let mut m = fake.mcp_in(&root.join("src"));
    m.initialize();
    m
}

fn read(root: &Path, rel: &str) -> String {
    std::fs::read_to_string(root.join(rel)).unwrap()
}

fn reply(m: &mut Mcp, name: &str, args: Value) -> (Value, bool) {
    let r = m.tool(name, args);
    let text = r["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    let parsed = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (parsed, r["result"]["isError"] == true)
}

#[test]
fn facade_file_edit_replaces_first_or_all_occurrences() {
    let fake = Fake::defaults();
    let root = repo(&fake, "myrepo");
    std::fs::write(root.join("src/a.ts"), "one\ntwo\nthree\ntwo\n").unwrap();
    let mut m = in_repo(&fake, &root);
    let (r, err) = reply(
        &mut m,
        "edit",
        json!({"operation": "file", "target": {"file": "src/a.ts"}, "match": "two", "replacement": "TWO"}),
    );
    assert!(!err);
    assert_eq!(
        r,
        json!({"path": "src/a.ts", "status": "applied", "replacements": 1})
    );
    assert_eq!(read(&root, "src/a.ts"), "one\nTWO\nthree\ntwo\n");
    // Inferred `file` (no operation), the repo-name prefix stripped, replace_all in options.
    let (r, _) = reply(
        &mut m,
        "edit",
        json!({"target": {"file": "myrepo/src/a.ts"}, "match": "e", "replacement": "E", "options": {"replace_all": true}}),
    );
    assert_eq!(r["replacements"], 3);
    assert_eq!(read(&root, "src/a.ts"), "onE\nTWO\nthrEE\ntwo\n");
}

#[test]
fn facade_write_creates_then_overwrites() {
    let fake = Fake::defaults();
    let root = repo(&fake, "r");
    let mut m = in_repo(&fake, &root);
    let (r, _) = reply(
        &mut m,
        "edit",
        json!({"target": {"file": "src/new/b.go"}, "content": "package b\n"}),
    );
    assert_eq!(r["status"], "created");
    assert_eq!(read(&root, "src/new/b.go"), "package b\n");
    let (r, _) = reply(
        &mut m,
        "edit",
        json!({"operation": "write", "target": {"file": "src/new/b.go"}, "content": "package c\n"}),
    );
    assert_eq!(r["status"], "overwritten");
    assert_eq!(read(&root, "src/new/b.go"), "package c\n");
}

#[test]
fn facade_symbol_and_batch_edits() {
    let fake = Fake::defaults();
    let root = repo(&fake, "r");
    std::fs::write(root.join("src/b.ts"), "function f() { return 1; }\n").unwrap();
    std::fs::write(root.join("src/c.ts"), "x\n").unwrap();
    let mut m = in_repo(&fake, &root);
    let (r, _) = reply(
        &mut m,
        "edit",
        json!({"target": {"symbol": "r/src/b.ts::f"}, "match": "1", "replacement": "2"}),
    );
    assert_eq!(r["status"], "applied");
    assert_eq!(read(&root, "src/b.ts"), "function f() { return 2; }\n");
    // A JSON-string batch, inferred from `changes`.
    let changes = json!([
        {"target": {"file": "src/c.ts"}, "match": "x", "replacement": "y"},
        {"target": {"file": "src/d.ts"}, "content": "d\n"}
    ])
    .to_string();
    let (r, err) = reply(&mut m, "edit", json!({"changes": changes}));
    assert!(!err, "{r}");
    assert_eq!(r["status"], "applied");
    assert_eq!(r["results"][1]["status"], "created");
    assert_eq!(read(&root, "src/c.ts"), "y\n");
    assert_eq!(read(&root, "src/d.ts"), "d\n");
}

#[test]
fn a_failing_batch_item_writes_nothing() {
    let fake = Fake::defaults();
    let root = repo(&fake, "r");
    std::fs::write(root.join("src/c.ts"), "x\n").unwrap();
    let mut m = in_repo(&fake, &root);
    let (r, err) = reply(
        &mut m,
        "edit",
        json!({"operation": "batch", "changes": [
            {"target": {"file": "src/c.ts"}, "match": "x", "replacement": "y"},
            {"target": {"file": "src/c.ts"}, "match": "zzz", "replacement": "q"}
        ]}),
    );
    assert!(err);
    assert_eq!(
        r,
        Value::String("edit failed: match not found in src/c.ts".into())
    );
    assert_eq!(read(&root, "src/c.ts"), "x\n");
}

#[test]
fn dry_runs_write_nothing() {
    let fake = Fake::defaults();
    let root = repo(&fake, "r");
    std::fs::write(root.join("src/a.go"), "a\n").unwrap();
    let mut m = in_repo(&fake, &root);
    let (r, _) = reply(
        &mut m,
        "edit",
        json!({"operation": "file", "target": {"file": "src/a.go"}, "match": "a", "replacement": "b", "options": {"dry_run": true}}),
    );
    assert_eq!(
        r,
        json!({"path": "src/a.go", "status": "would_apply", "replacements": 1, "dry_run": true})
    );
    let (r, _) = reply(
        &mut m,
        "edit",
        json!({"target": {"file": "src/z.go"}, "content": "z", "dry_run": true}),
    );
    assert_eq!(r["status"], "would_apply");
    assert_eq!(read(&root, "src/a.go"), "a\n");
    assert!(!root.join("src/z.go").exists());
}

#[test]
fn missing_match_is_a_tool_error() {
    let fake = Fake::defaults();
    let root = repo(&fake, "r");
    std::fs::write(root.join("src/a.go"), "a\n").unwrap();
    let mut m = in_repo(&fake, &root);
    let (r, err) = reply(
        &mut m,
        "edit",
        json!({"operation": "file", "target": {"file": "src/a.go"}, "match": "nope", "replacement": "b"}),
    );
    assert!(err);
    assert_eq!(
        r,
        Value::String("edit failed: match not found in src/a.go".into())
    );
}

#[test]
fn non_edit_operations_get_the_default_reply() {
    let fake = Fake::defaults();
    let root = repo(&fake, "r");
    let mut m = in_repo(&fake, &root);
    let text = m.tool_text(
        "edit",
        json!({"operation": "docs", "target": {"file": "src/a.go"}}),
    );
    assert!(text.starts_with("[fake-gortex] edit docs "), "{text}");
}

#[test]
fn legacy_edit_tools_write_files() {
    let fake = Fake::defaults().with_env("GORTEX_TOOLS", "edit");
    let root = repo(&fake, "r");
    std::fs::write(root.join("src/a.py"), "x = 1\n").unwrap();
    let mut m = in_repo(&fake, &root);
    let (r, _) = reply(
        &mut m,
        "edit_file",
        json!({"path": "src/a.py", "old_string": "1", "new_string": "2"}),
    );
    assert_eq!(
        r,
        json!({"path": "src/a.py", "status": "applied", "replacements": 1})
    );
    let (r, _) = reply(
        &mut m,
        "edit_symbol",
        json!({"id": "src/a.py::x", "old_source": "x = 2", "new_source": "x = 3"}),
    );
    assert_eq!(r["status"], "applied");
    assert_eq!(read(&root, "src/a.py"), "x = 3\n");
    let (r, _) = reply(
        &mut m,
        "write_file",
        json!({"path": "src/b.py", "content": "b\n"}),
    );
    assert_eq!(r["status"], "created");
    let edits = json!([{"path": "src/a.py", "old_string": "3", "new_string": "4"}, {"path": "src/b.py", "content": "c\n"}]);
    let (r, err) = reply(&mut m, "batch_edit", json!({"edits": edits.to_string()}));
    assert!(!err, "{r}");
    assert_eq!(read(&root, "src/a.py"), "x = 4\n");
    assert_eq!(read(&root, "src/b.py"), "c\n");
    assert!(fake.events("edit").len() >= 4);
}

#[test]
fn absolute_paths_are_kept() {
    let fake = Fake::defaults();
    let root = repo(&fake, "r");
    let abs = root.join("src/abs.go");
    std::fs::write(&abs, "q\n").unwrap();
    let mut m = in_repo(&fake, &root);
    let (r, _) = reply(
        &mut m,
        "edit",
        json!({"operation": "file", "target": {"file": abs.to_string_lossy()}, "match": "q", "replacement": "w"}),
    );
    assert_eq!(r["status"], "applied");
    assert_eq!(std::fs::read_to_string(&abs).unwrap(), "w\n");
}
