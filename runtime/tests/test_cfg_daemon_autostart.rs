//! CFG-20: `daemon_autostart` (env `GORTEX_DAEMON_AUTOSTART`, default true):
//! its layers (a project sidecar may only turn it off), the `GORTEX_AUTOSTART=0`
//! every `gortex mcp` child gets when it is off, and the doctor, which then
//! starts no daemon and says who does.

mod common_config;

use common_config::{
    assert_valid_report, env_map, fake_gortex, inputs, run_doctor, temp_dir, write_file,
};
use pi_gortex_runtime::config::{
    child_env, native_registration_holds, resolve, resolve_with_trust, Layer,
};

#[test]
fn cfg_20_defaults_to_true_and_env_beats_the_sidecars() {
    let root = temp_dir();
    let (cwd, home) = (root.path().join("repo"), root.path().join("home"));
    let config = resolve(&inputs(&[], &cwd, &home));
    assert!(config.daemon_autostart);
    assert_eq!(config.provenance.daemon_autostart, Layer::Default);

    write_file(
        &home.join(".pi/agent/extensions/gortex.json"),
        r#"{"daemon_autostart":false}"#,
    );
    let config = resolve(&inputs(&[], &cwd, &home));
    assert!(!config.daemon_autostart);
    assert_eq!(config.provenance.daemon_autostart, Layer::Global);

    let config = resolve(&inputs(&[("GORTEX_DAEMON_AUTOSTART", " ON ")], &cwd, &home));
    assert!(config.daemon_autostart);
    assert_eq!(config.provenance.daemon_autostart, Layer::Env);

    // A spelling that is not a boolean falls through, with one warning.
    let config = resolve(&inputs(
        &[("GORTEX_DAEMON_AUTOSTART", "maybe")],
        &cwd,
        &home,
    ));
    assert!(!config.daemon_autostart, "the global sidecar's false");
    assert_eq!(config.warnings.len(), 1, "{:?}", config.warnings);
    assert!(config.warnings[0]
        .to_string()
        .contains("GORTEX_DAEMON_AUTOSTART"));
}

#[test]
fn cfg_20_a_project_sidecar_may_turn_autostart_off_but_never_on() {
    let root = temp_dir();
    let (cwd, home) = (root.path().join("repo"), root.path().join("home"));
    write_file(
        &cwd.join(".pi/gortex.json"),
        r#"{"daemon_autostart":false}"#,
    );
    let config = resolve(&inputs(&[], &cwd, &home));
    assert!(!config.daemon_autostart);
    assert_eq!(config.provenance.daemon_autostart, Layer::Project);

    // The user's global false holds against a cloned repository's true.
    write_file(&cwd.join(".pi/gortex.json"), r#"{"daemon_autostart":true}"#);
    write_file(
        &home.join(".pi/agent/extensions/gortex.json"),
        r#"{"daemon_autostart":false}"#,
    );
    let config = resolve(&inputs(&[], &cwd, &home));
    assert!(!config.daemon_autostart);
    assert_eq!(config.provenance.daemon_autostart, Layer::Global);
    assert!(config.warnings.is_empty(), "{:?}", config.warnings);
}

#[test]
fn cfg_20_a_wrong_type_falls_through_with_one_warning() {
    let root = temp_dir();
    let (cwd, home) = (root.path().join("repo"), root.path().join("home"));
    write_file(&cwd.join(".pi/gortex.json"), r#"{"daemon_autostart":"no"}"#);
    let config = resolve(&inputs(&[], &cwd, &home));
    assert!(config.daemon_autostart);
    assert_eq!(config.warnings.len(), 1, "{:?}", config.warnings);
    let text = config.warnings[0].to_string();
    assert!(
        text.contains("daemon_autostart") && text.contains("boolean"),
        "{text}"
    );
}

#[test]
fn cfg_20_the_native_registration_is_withdrawn_when_trust_changes_autostart() {
    let root = temp_dir();
    let (cwd, home) = (root.path().join("repo"), root.path().join("home"));
    write_file(
        &cwd.join(".pi/gortex.json"),
        r#"{"daemon_autostart":false}"#,
    );
    let at_load = resolve(&inputs(&[], &cwd, &home));
    let untrusted = resolve_with_trust(&inputs(&[], &cwd, &home), false);
    assert!(untrusted.daemon_autostart);
    assert!(!native_registration_holds(&at_load, &untrusted));
}

#[test]
fn cfg_20_children_get_gortex_autostart_0_only_when_it_is_off() {
    let env = env_map(&[]);
    assert!(child_env("core", true, &env).is_empty());
    assert_eq!(
        child_env("core", false, &env)
            .get("GORTEX_AUTOSTART")
            .map(String::as_str),
        Some("0")
    );
    let exported = env_map(&[("GORTEX_AUTOSTART", "0")]);
    assert!(
        child_env("core", true, &exported).is_empty(),
        "an exported value is inherited, not repeated"
    );
}

fn doctor_lines(
    root: &tempfile::TempDir,
    autostart: Option<&str>,
) -> (serde_json::Value, Vec<String>, String) {
    let log = root.path().join("calls");
    let mut vars = vec![
        (
            "GORTEX_BIN",
            fake_gortex().to_str().expect("utf8").to_string(),
        ),
        ("FAKE_GORTEX_LOG", log.to_str().expect("utf8").to_string()),
        (
            "FAKE_GORTEX_STATE",
            root.path().to_str().expect("utf8").to_string(),
        ),
    ];
    if let Some(value) = autostart {
        vars.push(("GORTEX_DAEMON_AUTOSTART", value.to_string()));
    }
    let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let cwd = root.path().to_str().expect("utf8");
    let home = root.path().join("home");
    let json = run_doctor(&["--json", "--cwd", cwd], &vars, &home);
    assert_eq!(json.code, 0, "{}", json.stdout);
    let text = run_doctor(&["--cwd", cwd], &vars, &home);
    (json.json(), read_lines(&log), text.stdout)
}

/// Each start of the fake, from its log, as `<verb> <subcommand> autostart=<GORTEX_AUTOSTART|unset>`.
fn read_lines(log: &std::path::Path) -> Vec<String> {
    let records = std::fs::read_to_string(log).unwrap_or_default();
    records
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|record| record["ev"] == "start")
        .map(|record| {
            let arg = |i: usize| record["argv"][i].as_str().unwrap_or("").to_string();
            let autostart = record["env"]["GORTEX_AUTOSTART"]
                .as_str()
                .unwrap_or("unset");
            format!("{} {} autostart={autostart}", arg(1), arg(2))
        })
        .collect()
}

#[test]
fn cfg_20_with_autostart_off_the_doctor_starts_no_daemon_and_says_who_does() {
    let root = temp_dir();
    let (report, calls, text) = doctor_lines(&root, Some("false"));
    assert_valid_report(&report);
    assert_eq!(report["config"]["daemon_autostart"], false);
    assert_eq!(report["config"]["provenance"]["daemon_autostart"], "env");
    assert_eq!(
        report["native"]["server_config"]["env"]["GORTEX_AUTOSTART"],
        "0"
    );
    // The launcher is spawned before `gortex mcp`, and the fake logs its start
    // before it runs anything, so by the handshake it would be here.
    assert!(
        !calls.iter().any(|line| line.starts_with("daemon start")),
        "{calls:?}"
    );
    let mcp: Vec<&String> = calls.iter().filter(|l| l.starts_with("mcp ")).collect();
    assert!(!mcp.is_empty(), "{calls:?}");
    assert!(
        mcp.iter().all(|line| line.ends_with("autostart=0")),
        "{mcp:?}"
    );
    assert!(
        text.contains("\nDaemon\n  started by someone else: daemon_autostart is off"),
        "{text}"
    );
}

#[test]
fn cfg_20_by_default_the_doctor_starts_the_daemon_as_a_session_would() {
    let root = temp_dir();
    let (report, calls, text) = doctor_lines(&root, None);
    assert_eq!(report["config"]["daemon_autostart"], true);
    assert_eq!(
        report["config"]["provenance"]["daemon_autostart"],
        "default"
    );
    // The launcher is fire and forget: wait for its line.
    let started = |lines: &[String]| {
        lines
            .iter()
            .any(|line| line.starts_with("daemon start") && line.ends_with("autostart=unset"))
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !started(&read_lines(&root.path().join("calls"))) && std::time::Instant::now() < deadline
    {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(
        started(&read_lines(&root.path().join("calls"))),
        "{calls:?}"
    );
    assert!(
        calls
            .iter()
            .filter(|line| line.starts_with("mcp "))
            .all(|line| line.ends_with("autostart=unset")),
        "{calls:?}"
    );
    assert!(
        text.contains("\nDaemon\n  started by pi-gortex when none runs"),
        "{text}"
    );
}
