//! `pi-gortex doctor` against a daemon below the version floor: the own client
//! still works (exit 0) and the report carries the floor verdict and the
//! MCP-22 warning.

mod common_config;

use common_config::{assert_valid_report, fake_gortex, run_doctor, scenario, temp_dir};
use serde_json::json;

#[test]
fn old_daemon_is_flagged_below_the_floor() {
    let root = temp_dir();
    let scenario = scenario(root.path(), &json!({"version": "0.60.0"}));
    let fake = fake_gortex();
    let run = run_doctor(
        &["--json", "--cwd", root.path().to_str().expect("utf8")],
        &[
            ("GORTEX_BIN", fake.to_str().expect("utf8")),
            ("FAKE_GORTEX_SCENARIO", scenario.to_str().expect("utf8")),
            ("FAKE_GORTEX_STATE", root.path().to_str().expect("utf8")),
        ],
        &root.path().join("home"),
    );
    assert_eq!(
        run.code, 0,
        "skew is a warning, not an outage: {}",
        run.stdout
    );
    let report = run.json();
    assert_valid_report(&report);
    let handshake = &report["handshake"];
    assert_eq!(handshake["server_version"], "0.60.0");
    assert_eq!(handshake["floor"], "0.61.2");
    assert_eq!(handshake["below_floor"], true);
    assert_eq!(
        handshake["skew_warning"],
        "gortex 0.60.0 is older than 0.61.2, which this extension needs. Graph tools and read discipline may be missing or wrong. Run `gortex upgrade`."
    );
}

/// The doctor's text report against a daemon that negotiates `protocol`.
fn doctor_text_with_protocol(protocol: &str) -> String {
    let root = temp_dir();
    let scenario = scenario(root.path(), &json!({ "protocol": protocol }));
    let fake = fake_gortex();
    let run = run_doctor(
        &["--cwd", root.path().to_str().expect("utf8")],
        &[
            ("GORTEX_BIN", fake.to_str().expect("utf8")),
            ("FAKE_GORTEX_SCENARIO", scenario.to_str().expect("utf8")),
            ("FAKE_GORTEX_STATE", root.path().to_str().expect("utf8")),
        ],
        &root.path().join("home"),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    run.stdout
}

#[test]
fn protocol_skew_is_reported() {
    let text = doctor_text_with_protocol("2023-01-01");
    assert!(
        text.contains("protocol        2023-01-01 (expected 2025-11-25)"),
        "{text}"
    );
}

#[test]
fn an_accepted_older_protocol_is_not_reported_as_skew() {
    let text = doctor_text_with_protocol("2025-06-18");
    assert!(
        text.contains("protocol        2025-06-18 (accepted; offered 2025-11-25)"),
        "{text}"
    );
}
