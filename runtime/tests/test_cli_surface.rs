//! The `pi-gortex` command line as CI uses it: `--version`, `--format json|text` with `--json` as
//! an alias, and exit code 2 for every usage error (0 fine, 1 a finding).

mod common_config;

use common_config::{assert_valid_report, run_doctor, temp_dir};
use std::process::Command;

fn pi_gortex(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_pi-gortex"))
        .args(args)
        .output()
        .expect("pi-gortex runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn prints_its_version() {
    let (code, stdout) = pi_gortex(&["--version"]);
    assert_eq!(code, Some(0));
    assert_eq!(
        stdout.trim(),
        format!("pi-gortex {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn doctor_format_json_is_the_same_report_as_json() {
    let root = temp_dir();
    let cwd = root.path().to_str().expect("utf8");
    let vars = [("GORTEX_BIN", "/nonexistent")];
    let home = root.path().join("home");
    let by_format = run_doctor(&["--format", "json", "--cwd", cwd], &vars, &home);
    let by_alias = run_doctor(&["--json", "--cwd", cwd], &vars, &home);
    assert_eq!(by_format.code, 1, "{}", by_format.stdout);
    let mut report = by_format.json();
    assert_valid_report(&report);
    let mut alias_report = by_alias.json();
    // The one member that differs between two runs.
    for r in [&mut report, &mut alias_report] {
        r["hook"]["latency_ms"] = serde_json::Value::Null;
    }
    assert_eq!(report, alias_report);
    let text = run_doctor(&["--format", "text", "--cwd", cwd], &vars, &home);
    assert_eq!(text.code, 1);
    assert!(
        serde_json::from_str::<serde_json::Value>(&text.stdout).is_err(),
        "text is not JSON: {}",
        text.stdout
    );
}

#[test]
fn usage_errors_exit_2_in_every_command() {
    for args in [
        &["doctor", "--format", "yaml"][..],
        &["doctor", "--cwd", "/nonexistent/dir"],
        &["diff", "only-one-file"],
        &["diff", "/nonexistent/a", "/nonexistent/b"],
        &["no-such-command"],
    ] {
        let (code, _) = pi_gortex(args);
        assert_eq!(code, Some(2), "pi-gortex {args:?}");
    }
}
