//! Windows' side of the untrusted environment: a variable whose value is not
//! valid UTF-16 (a lone surrogate) panics nothing (`vars_os` everywhere), is
//! left out of the configuration's map only, and a child still starts with
//! it in its environment. The hook is fake-gortex.

#![cfg(windows)]

mod common_config;

use std::ffi::OsString;
use std::os::windows::ffi::OsStringExt;

use common_config::{fake_gortex, temp_dir};
use pi_gortex_runtime::config::{process_env, ConfigInputs};
use pi_gortex_runtime::hook::{self, HookOutcome};

#[tokio::test]
async fn a_lone_surrogate_is_skipped_by_config_and_children_still_start() {
    // This test binary holds only this test, so setting the variable races nothing.
    let lone = OsString::from_wide(&[u16::from(b'c'), 0xD800, u16::from(b'x')]);
    assert!(lone.to_str().is_none(), "not representable as UTF-8");
    std::env::set_var("PI_GORTEX_TEST_RAW", &lone);
    std::env::set_var("GORTEX_TOOLS", &lone);
    let env = process_env();
    assert!(!env.contains_key("PI_GORTEX_TEST_RAW"));
    assert!(!env.contains_key("GORTEX_TOOLS"));
    let _ = ConfigInputs::from_process();

    let dir = temp_dir();
    std::env::set_var("FAKE_GORTEX_LOG", dir.path().join("log.jsonl"));
    let argv = vec![
        fake_gortex().display().to_string(),
        "hook".to_string(),
        "--agent=pi".to_string(),
    ];
    let envelope = hook::envelope_for_tool_call(
        "read",
        &serde_json::json!({"path": "src/a.go"}),
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
}
