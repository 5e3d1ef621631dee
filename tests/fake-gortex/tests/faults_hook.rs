//! FAKE-8 faults of the `hook` and `daemon` verbs.

mod common;
use common::Fake;
use serde_json::json;
use std::time::Instant;

fn read_call() -> serde_json::Value {
    json!({"event": "tool_call", "tool_name": "Read", "tool_input": {"file_path": "src/a.go"}, "cwd": "/r", "session_id": ""})
}

#[test]
fn hook_timeout_sleeps_then_answers() {
    let fake = Fake::new(json!({"faults": [{"kind": "hook_timeout", "delay_ms": 120}]}));
    let t = Instant::now();
    let (out, code) = fake.hook(&[], &read_call());
    assert!(t.elapsed().as_millis() >= 120);
    assert_eq!(code, 0);
    assert!(out.starts_with("{\"block\":true"));
}

#[test]
fn hook_fault_event_filter() {
    let fake = Fake::new(
        json!({"faults": [{"kind": "hook_garbage", "stdout": "not json", "event": "session_start"}]}),
    );
    let (out, _) = fake.hook(&[], &json!({"event": "session_start", "cwd": "/r"}));
    assert_eq!(out, "not json");
    let (out, _) = fake.hook(&[], &read_call());
    assert!(out.starts_with("{\"block\":true"));
}

#[test]
fn hook_garbage_prints_the_given_stdout() {
    for junk in [
        "not json",
        "null",
        "[]",
        "{\"block\":\"yes\"}",
        "{\"reason\":5}",
    ] {
        let fake = Fake::new(json!({"faults": [{"kind": "hook_garbage", "stdout": junk}]}));
        let (out, code) = fake.hook(&[], &read_call());
        assert_eq!(out, junk);
        assert_eq!(code, 0);
    }
}

#[test]
fn hook_exit_fails_with_a_valid_deny_on_stdout() {
    let fake = Fake::new(json!({"faults": [{"kind": "hook_exit", "exit_code": 3}]}));
    let (out, code) = fake.hook(&[], &read_call());
    assert_eq!(code, 3);
    let d: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(d["block"], true);
    assert_eq!(fake.events("hook")[0]["code"], 3);
    let custom =
        Fake::new(json!({"faults": [{"kind": "hook_exit", "exit_code": 2, "stdout": "{}"}]}));
    assert_eq!(custom.hook(&[], &read_call()), ("{}".to_string(), 2));
}

#[test]
fn hook_huge_writes_exactly_that_many_bytes() {
    let fake = Fake::new(json!({"faults": [{"kind": "hook_huge", "bytes": 4096}]}));
    let (out, _) = fake.hook(&[], &read_call());
    assert_eq!(out.len(), 4096);
    assert!(out.starts_with("{\"additional_context\":\""));
    let default = Fake::new(json!({"faults": [{"kind": "hook_huge"}]}));
    let (out, _) = default.hook(&[], &read_call());
    assert_eq!(out.len(), 16_777_217);
    assert_eq!(default.events("hook")[0]["decision"]["bytes"], 16_777_217);
}

#[test]
fn hook_stderr_goes_to_stderr_only() {
    let fake = Fake::new(json!({"faults": [{"kind": "hook_stderr", "text": "boom on stderr\n"}]}));
    let out = fake.run(&["hook", "--agent=pi"], read_call().to_string().as_bytes());
    assert_eq!(String::from_utf8_lossy(&out.stderr), "boom on stderr\n");
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("{\"block\":true"));
}

#[test]
fn daemon_start_succeeds_or_fails_as_scripted() {
    let fake = Fake::defaults();
    let out = fake.run(&["daemon", "start", "--detach"], b"");
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    assert_eq!(fake.events("daemon_start").len(), 1);

    let failing = Fake::new(
        json!({"faults": [{"kind": "daemon_start_fail", "exit_code": 4, "stderr": "nope\n"}]}),
    );
    let out = failing.run(&["daemon", "start", "--detach"], b"");
    assert_eq!(out.status.code(), Some(4));
    assert_eq!(out.stderr, b"nope\n");
    assert_eq!(failing.events("daemon_start").len(), 1);
    assert_eq!(failing.events("exit")[0]["reason"], "daemon_start_fail");
}

#[test]
fn hook_startup_ms_delays_the_hook_before_it_reads_stdin() {
    let mut fake = Fake::new(json!({}));
    fake.env
        .push(("FAKE_GORTEX_HOOK_STARTUP_MS".into(), "150".into()));
    let t = Instant::now();
    let (out, code) = fake.hook(&[], &read_call());
    assert!(t.elapsed().as_millis() >= 150);
    assert_eq!(code, 0);
    assert!(out.starts_with("{\"block\":true"));
}

#[test]
fn hook_idle_exit_ends_a_hook_whose_stdin_stays_silent_and_answers_one_fed_at_once() {
    let fake =
        Fake::new(json!({"faults": [{"kind": "hook_idle_exit", "after_ms": 100, "exit_code": 4}]}));
    // Fed at once (the envelope is in the pipe before the fake starts): it answers.
    let (out, code) = fake.hook(&[], &read_call());
    assert_eq!(code, 0);
    assert!(out.starts_with("{\"block\":true"));
    // Kept waiting, as a spare is: it exits without reading and without a decision.
    let mut child = fake
        .command(&["hook", "--agent=pi"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Held open: `wait` would close a stdin still in the child handle.
    let stdin = child.stdin.take();
    let status = child.wait().unwrap();
    drop(stdin);
    assert_eq!(status.code(), Some(4));
    assert_eq!(fake.events("hook").len(), 1, "one decision, the fed hook's");
    let exits = fake.events("exit");
    assert!(
        exits
            .iter()
            .any(|e| e["reason"] == "exit_on_start" && e["code"] == 4),
        "{exits:?}"
    );
}
