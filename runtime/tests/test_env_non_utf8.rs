//! A variable whose value is not UTF-8 panics nothing
//! (`vars_os` everywhere), and children inherit it byte for byte.

// Unix variables are bytes; Windows' (UTF-16, lone surrogates) are tested in
// test_env_non_utf16.rs.
#![cfg(unix)]

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;

use pi_gortex_runtime::config::{process_env, ConfigInputs};
use pi_gortex_runtime::hook;

const RAW: &[u8] = b"caf\xe9\xff";

#[tokio::test]
async fn non_utf8_variable_is_skipped_by_config_and_passed_to_children() {
    // This test binary holds only this test, so setting the variable races nothing.
    std::env::set_var("PI_GORTEX_TEST_RAW", OsStr::from_bytes(RAW));
    let env = process_env();
    assert!(!env.contains_key("PI_GORTEX_TEST_RAW"));
    let _ = ConfigInputs::from_process();

    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("seen");
    let script = format!("printf %s \"$PI_GORTEX_TEST_RAW\" > '{}'", out.display());
    let argv = vec!["/bin/sh".to_string(), "-c".to_string(), script];
    let envelope = hook::envelope_for_tool_call(
        "read",
        &serde_json::json!({"path": "a"}),
        &hook::EnvelopeContext {
            cwd: "/tmp".into(),
            session_id: String::new(),
        },
        |_| None,
    );
    let _ = hook::run(&argv, &envelope).await;
    assert_eq!(std::fs::read(&out).unwrap(), RAW, "inherited untouched");
}
