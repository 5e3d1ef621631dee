//! `pi-gortex doctor` with `GORTEX_BIN=/nonexistent`: exit 1 with a reason
//! naming the binary; the later checks are skipped or fail open.

mod common_config;

use common_config::{abs, assert_valid_report, run_doctor, temp_dir};

#[test]
fn missing_binary_exits_1_naming_it() {
    let root = temp_dir();
    let missing = abs("/nonexistent");
    let run = run_doctor(
        &["--json", "--cwd", root.path().to_str().expect("utf8")],
        &[("GORTEX_BIN", &missing)],
        &root.path().join("home"),
    );
    assert_eq!(run.code, 1, "{}", run.stdout);
    let report = run.json();
    assert_valid_report(&report);
    assert_eq!(report["ok"], false);
    let reason = report["reason"].as_str().expect("reason");
    assert!(reason.contains(&format!("`{missing}`")), "{reason}");
    assert!(report["binary"].get("resolved").is_none());
    assert_eq!(report["handshake"]["status"], "skipped");
    assert_eq!(report["tools"]["status"], "skipped");
    assert_eq!(report["hook"]["decision"], serde_json::json!({}));
    assert!(report["hook"]["failure"]
        .as_str()
        .expect("failure")
        .contains(&format!("could not start `{missing}`")));
    assert_eq!(report["native"]["path"], "own_client");
    assert_eq!(report["native"]["reason"], "binary_does_not_resolve");
}

#[test]
fn missing_bare_name_on_path_says_path() {
    let root = temp_dir();
    let run = run_doctor(
        &["--cwd", root.path().to_str().expect("utf8")],
        &[("PATH", root.path().to_str().expect("utf8"))],
        &root.path().join("home"),
    );
    assert_eq!(run.code, 1);
    assert!(
        run.stdout.contains("Bridge: DOWN: gortex binary `gortex` was not found as an executable regular file on PATH"),
        "{}",
        run.stdout
    );
}
