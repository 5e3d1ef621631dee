//! `pi-gortex doctor` against a healthy fake-gortex: exit 0, a valid
//! `DoctorReport` with the handshake, tool surface, hook round trip, native
//! choice, and the configuration with provenance and warnings.

mod common_config;

use common_config::{assert_valid_report, fake_gortex, native, run_doctor, temp_dir, write_file};

#[test]
fn healthy_setup_reports_ok_as_json() {
    let root = temp_dir();
    let repo = root.path().join("repo");
    // A cloned repo trying to pick the binary: ignored, and reported.
    write_file(
        &repo.join(".pi/gortex.json"),
        r#"{"bin":"./evil","hook_mode":"enrich"}"#,
    );
    let fake = fake_gortex();
    let run = run_doctor(
        &["--json", "--cwd", repo.to_str().expect("utf8")],
        &[
            ("GORTEX_BIN", fake.to_str().expect("utf8")),
            ("FAKE_GORTEX_STATE", root.path().to_str().expect("utf8")),
        ],
        &root.path().join("home"),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    let report = run.json();
    assert_valid_report(&report);
    assert_eq!(report["ok"], true);
    assert!(report.get("reason").is_none());

    let config = &report["config"];
    assert_eq!(config["bin"], fake.to_str().expect("utf8"));
    assert_eq!(config["provenance"]["bin"], "env");
    assert_eq!(config["hook_mode"], "enrich");
    assert_eq!(config["provenance"]["hook_mode"], "project");
    let warnings = config["warnings"].as_array().expect("warnings");
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].as_str().expect("text").contains(&format!(
        "{}: key `bin` is ignored",
        native(".pi/gortex.json").display()
    )));

    assert_eq!(report["binary"]["resolved"], fake.to_str().expect("utf8"));
    let handshake = &report["handshake"];
    assert_eq!(handshake["status"], "ok");
    assert_eq!(handshake["server_version"], "0.64.4");
    assert_eq!(handshake["protocol"], "2025-11-25");
    assert_eq!(handshake["below_floor"], false);
    assert!(handshake.get("skew_warning").is_none());

    let tools = &report["tools"];
    assert_eq!(tools["status"], "ok");
    assert_eq!(tools["count"], 21);
    let aliased = tools["aliased"].as_array().expect("aliased");
    assert!(aliased.contains(&serde_json::json!({"name":"gortex_read","daemon_name":"read"})));
    assert!(aliased.contains(&serde_json::json!({"name":"gortex_edit","daemon_name":"edit"})));

    let hook = &report["hook"];
    assert_eq!(hook["argv"][3], "--mode=enrich");
    assert_eq!(hook["envelope"]["event"], "tool_call");
    assert_eq!(hook["envelope"]["tool_name"], "Read");
    assert!(hook.get("failure").is_none(), "{hook}");
    assert_eq!(hook["outcome"], "none", "README.md is not indexed source");

    assert_eq!(report["native"]["path"], "native");
    assert_eq!(report["native"]["server_config"]["timeout"], 600);
}

#[test]
fn healthy_setup_text_ends_with_bridge_ok() {
    let root = temp_dir();
    let fake = fake_gortex();
    let run = run_doctor(
        &["--cwd", root.path().to_str().expect("utf8")],
        &[("GORTEX_BIN", fake.to_str().expect("utf8"))],
        &root.path().join("home"),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(run.stdout.contains("MCP handshake: ok"), "{}", run.stdout);
    assert!(
        run.stdout.contains("aliased: gortex_read -> read"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.trim_end().ends_with("Bridge: OK"),
        "{}",
        run.stdout
    );
}
