//! The untrusted environment: a variable whose value is no string (a lone
//! surrogate on Windows, a byte that is not UTF-8 on Unix) panics nothing
//! (`vars_os` everywhere), is left out of the configuration's map only, and
//! reaches the hook child raw. The hook is fake-gortex, whose `start` record
//! logs such a value's code units.

mod common_config;

use std::ffi::OsString;

use common_config::{fake_gortex, temp_dir};
use pi_gortex_runtime::config::{process_env, ConfigInputs};
use pi_gortex_runtime::hook::{self, HookOutcome};
use serde_json::{json, Value};

/// `c`, the value's one invalid unit, `x`; and how fake-gortex logs it.
#[cfg(windows)]
fn raw_value() -> (OsString, Value) {
    use std::os::windows::ffi::OsStringExt;
    let units = [u16::from(b'c'), 0xD800, u16::from(b'x')];
    (OsString::from_wide(&units), json!({ "not_unicode": units }))
}

#[cfg(unix)]
fn raw_value() -> (OsString, Value) {
    use std::os::unix::ffi::OsStringExt;
    let bytes = vec![b'c', 0xFF, b'x'];
    (
        OsString::from_vec(bytes.clone()),
        json!({ "not_unicode": bytes }),
    )
}

#[tokio::test]
async fn a_value_that_is_no_string_is_skipped_by_config_and_reaches_the_hook_child_raw() {
    // This test binary holds only this test, so setting the variables races nothing.
    let (raw, logged) = raw_value();
    assert!(raw.to_str().is_none(), "not representable as UTF-8");
    std::env::set_var("PI_GORTEX_TEST_RAW", &raw);
    std::env::set_var("GORTEX_TOOLS", &raw);
    let env = process_env();
    assert!(!env.contains_key("PI_GORTEX_TEST_RAW"));
    assert!(!env.contains_key("GORTEX_TOOLS"));
    let _ = ConfigInputs::from_process();

    let dir = temp_dir();
    let log = dir.path().join("log.jsonl");
    std::env::set_var("FAKE_GORTEX_LOG", &log);
    std::env::remove_var("FAKE_GORTEX_UPSTREAM_HOOK");
    let argv = vec![
        fake_gortex().display().to_string(),
        "hook".to_string(),
        "--agent=pi".to_string(),
    ];
    let envelope = hook::envelope_for_tool_call(
        "read",
        &json!({"path": "src/a.go"}),
        &hook::EnvelopeContext {
            cwd: "C:\\repo".into(),
            session_id: String::new(),
        },
        |_| None,
    );
    let run = hook::run(&argv, &envelope).await;
    assert_eq!(run.failure, None);
    assert!(matches!(
        hook::outcome(&run.decision),
        HookOutcome::Block { .. }
    ));
    let starts: Vec<Value> = std::fs::read_to_string(&log)
        .expect("the hook's log")
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|r| r["verb"] == "hook" && r["ev"] == "start")
        .collect();
    assert_eq!(starts.len(), 1, "{starts:?}");
    assert_eq!(
        starts[0]["env"]["GORTEX_TOOLS"], logged,
        "the hook child got the value unchanged"
    );
}
