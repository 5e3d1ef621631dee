//! FAKE-1/FAKE-7: verbs, usage, `version`, scenario validation and the log's start/exit pairs.

mod common;
use common::Fake;
use serde_json::json;

#[test]
fn version_texts() {
    let fake = Fake::defaults();
    assert_eq!(
        fake.run(&["version", "--short"], b"").stdout,
        b"v0.64.4+fa4e0001\n"
    );
    assert_eq!(
        fake.run(&["version"], b"").stdout,
        b"gortex v0.64.4+fa4e0001\n"
    );
    let old = Fake::new(json!({"version": "0.60.0"}));
    assert_eq!(
        old.run(&["version", "--short"], b"").stdout,
        b"v0.60.0+fa4e0001\n"
    );
    let dev = Fake::new(json!({"version": null}));
    assert_eq!(
        dev.run(&["version", "--short"], b"").stdout,
        b"v0.0.0-dev\n"
    );
}

#[test]
fn unknown_verbs_print_usage_and_exit_1() {
    let fake = Fake::defaults();
    for args in [vec!["frobnicate"], vec![], vec!["daemon", "stop"]] {
        let out = fake.run(&args, b"");
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(out.stdout.is_empty());
        assert!(String::from_utf8_lossy(&out.stderr).starts_with("Usage: gortex"));
    }
}

#[test]
fn scenario_typos_fail_loudly_with_exit_2() {
    let fake = Fake::new(json!({"verison": "1.0.0"}));
    let out = fake.run(&["version"], b"");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown field `verison`"), "{err}");

    let bad_fault = Fake::new(json!({"faults": [{"kind": "hang", "metod": "ping"}]}));
    let out = bad_fault.run(&["mcp"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("metod"));
    assert_eq!(bad_fault.events("exit")[0]["reason"], "bad_scenario");

    let bad_kind = Fake::new(json!({"faults": [{"kind": "explode"}]}));
    assert_eq!(bad_kind.run(&["mcp"], b"").status.code(), Some(2));
}

#[test]
fn every_process_logs_a_start_and_exit_pair() {
    let fake = Fake::defaults();
    fake.run(&["version"], b"");
    fake.run(&["hook", "--agent=pi"], b"{}");
    fake.run(&["mcp"], b"");
    fake.run(&["daemon", "start", "--detach"], b"");
    let starts = fake.events("start");
    let exits = fake.events("exit");
    assert_eq!(starts.len(), 4);
    for s in &starts {
        assert!(exits
            .iter()
            .any(|e| e["pid"] == s["pid"] && e["verb"] == s["verb"]));
    }
    let verbs: Vec<_> = starts
        .iter()
        .map(|s| s["verb"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(verbs, ["version", "hook", "mcp", "daemon"]);
}

#[test]
fn state_dir_defaults_to_the_log_directory_and_can_be_overridden() {
    let fake = Fake::new(json!({"faults": [{"kind": "failing_handshake", "n": 1}]}));
    fake.run(
        &["mcp"],
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}\n",
    );
    assert_eq!(
        std::fs::read_to_string(fake.dir.join("fake-gortex-counter-failing_handshake")).unwrap(),
        "1"
    );
    let state = fake.dir.join("elsewhere");
    let fake = fake.with_env("FAKE_GORTEX_STATE", &state.to_string_lossy());
    let out = fake.run(
        &["mcp"],
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}\n",
    );
    // A fresh state dir: the first initialize fails again.
    assert!(String::from_utf8_lossy(&out.stdout).contains("daemon warming up"));
    assert!(state.join("fake-gortex-counter-failing_handshake").exists());
}

#[test]
fn counters_are_safe_under_concurrent_processes() {
    let fake = Fake::new(json!({"faults": [{"kind": "failing_handshake", "n": 1000}]}));
    let init = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}\n";
    std::thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(|| {
                for _ in 0..5 {
                    fake.run(&["mcp"], init);
                }
            });
        }
    });
    assert_eq!(
        std::fs::read_to_string(fake.dir.join("fake-gortex-counter-failing_handshake")).unwrap(),
        "40"
    );
}
