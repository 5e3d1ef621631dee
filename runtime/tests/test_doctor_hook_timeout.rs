//! `pi-gortex doctor` when the hook hangs: the round trip fails open after
//! 5 s with the reason recorded, and the own client itself still works (exit 0).

mod common_config;

use common_config::{assert_valid_report, fake_gortex, run_doctor, scenario, temp_dir};
use serde_json::json;

#[test]
fn hook_timeout_is_reported_with_its_latency() {
    let root = temp_dir();
    let scenario = scenario(
        root.path(),
        &json!({"faults": [{"kind": "hook_timeout", "delay_ms": 8000}]}),
    );
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
    assert_eq!(run.code, 0, "{}", run.stdout);
    let report = run.json();
    assert_valid_report(&report);
    let hook = &report["hook"];
    assert_eq!(
        hook["failure"],
        "the hook did not answer within 5000 ms and was killed"
    );
    assert_eq!(hook["decision"], json!({}));
    assert_eq!(hook["outcome"], "none");
    let latency = hook["latency_ms"].as_f64().expect("latency");
    assert!((5000.0..7000.0).contains(&latency), "{latency}");
    assert_eq!(report["handshake"]["status"], "ok");
}
