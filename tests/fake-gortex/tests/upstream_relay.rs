//! FAKE-9: the `hook` verb's relay to Gortex's own handler logs `upstream_answered` only when
//! the handler exited with a JSON answer, and `upstream_failed` when it did not start, wrote no
//! JSON or was killed; the suites that claim Gortex's decision count on exactly that.
// The stand-in handlers are `/bin/sh` scripts.
#![cfg(unix)]

mod common;

use common::Fake;
use serde_json::{json, Value};
use std::os::unix::fs::PermissionsExt;

fn envelope() -> Value {
    json!({"event": "tool_call", "tool_name": "Read", "tool_input": {"file_path": "a.go"}, "cwd": "/repo", "session_id": "", "is_gortex_tool": false})
}

/// A stand-in for Gortex's handler: a shell script with `body`.
fn handler(fake: &Fake, body: &str) -> String {
    let path = fake.dir.join("gortex-hook");
    std::fs::write(&path, format!("#!/bin/sh\ncat >/dev/null\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.to_string_lossy().into_owned()
}

/// One hook run relayed to the handler `bin` names; returns the fake, stdout and exit code.
fn relayed_through(bin: impl FnOnce(&Fake) -> String) -> (Fake, String, i32) {
    let fake = Fake::defaults();
    let bin = bin(&fake);
    let fake = fake.with_env("FAKE_GORTEX_UPSTREAM_HOOK", &bin);
    let (stdout, code) = fake.hook(&[], &envelope());
    (fake, stdout, code)
}

#[test]
fn an_answer_is_logged_as_upstream_answered_before_the_hook_record() {
    let (fake, stdout, code) =
        relayed_through(|f| handler(f, r#"printf '{"block":true,"reason":"no"}'"#));
    assert_eq!(
        (stdout.as_str(), code),
        (r#"{"block":true,"reason":"no"}"#, 0)
    );
    let records = fake.records();
    let kinds: Vec<&str> = records
        .iter()
        .filter_map(|r| r["ev"].as_str())
        .filter(|ev| ev.starts_with("upstream") || *ev == "hook")
        .collect();
    assert_eq!(kinds, ["upstream_answered", "hook"]);
    let answered = &fake.events("upstream_answered")[0];
    assert_eq!(answered["code"], 0);
    assert!(answered["hook_pid"].as_u64().is_some(), "{answered}");
    assert_eq!(fake.events("hook")[0]["upstream"], true);
}

#[test]
fn a_handler_that_cannot_start_is_logged_as_a_failure() {
    let (fake, stdout, code) = relayed_through(|_| "/nonexistent/gortex-hook".to_string());
    assert_eq!((stdout.as_str(), code), ("", 1));
    assert!(fake.events("upstream_answered").is_empty());
    let failed = fake.events("upstream_failed");
    assert_eq!(failed.len(), 1);
    assert!(
        failed[0]["error"]
            .as_str()
            .unwrap()
            .starts_with("cannot start it"),
        "{}",
        failed[0]
    );
    assert_eq!(fake.events("hook")[0]["upstream"], false);
}

#[test]
fn a_handler_without_a_json_answer_is_logged_as_a_failure() {
    for body in ["exit 0", "echo not json", "kill -KILL $$"] {
        let (fake, _, code) = relayed_through(|f| handler(f, body));
        assert_eq!(code, 1, "{body}");
        assert!(fake.events("upstream_answered").is_empty(), "{body}");
        assert_eq!(fake.events("upstream_failed").len(), 1, "{body}");
        assert_eq!(fake.events("hook")[0]["upstream"], false, "{body}");
    }
}
