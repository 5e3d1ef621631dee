//! Shared helpers of the config/hook/session/native/doctor tests: locating
//! (and if need be building) the fake-gortex test double, writing scenario
//! files and sidecars, and building explicit config inputs.

#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use pi_gortex_runtime::config::ConfigInputs;

/// The cargo target profile dir this test binary was built into.
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    // <target>/<profile>/deps/<test>-<hash>
    exe.parent()
        .and_then(Path::parent)
        .expect("profile dir")
        .to_path_buf()
}

/// Path of the fake-gortex binary: `FAKE_GORTEX_BIN` when set (as `make test`
/// and `make mutants` do; the latter builds its tests in a profile the fake is
/// not built in), else built once per test process if missing.
pub fn fake_gortex() -> PathBuf {
    static FAKE: OnceLock<PathBuf> = OnceLock::new();
    FAKE.get_or_init(|| {
        if let Some(bin) = std::env::var_os("FAKE_GORTEX_BIN") {
            return PathBuf::from(bin);
        }
        let name = format!("fake-gortex{}", std::env::consts::EXE_SUFFIX);
        let path = profile_dir().join(&name);
        if !path.is_file() {
            let target_dir = profile_dir().parent().expect("target dir").to_path_buf();
            let status = Command::new(env!("CARGO"))
                .args(["build", "-q", "-p", "fake-gortex"])
                .env("CARGO_TARGET_DIR", &target_dir)
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .status()
                .expect("cargo build fake-gortex");
            assert!(status.success(), "building fake-gortex failed");
        }
        assert!(
            path.is_file(),
            "fake-gortex not found at {}",
            path.display()
        );
        path
    })
    .clone()
}

/// A temporary directory that lives as long as the returned guard.
pub fn temp_dir() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

/// Writes `text` to `path`, creating parent directories.
pub fn write_file(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// Explicit config inputs: the given variables, a cwd and a home, nothing
/// from the process.
pub fn inputs(vars: &[(&str, &str)], cwd: &Path, home: &Path) -> ConfigInputs {
    ConfigInputs {
        env: vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<HashMap<_, _>>(),
        cwd: cwd.to_path_buf(),
        home: home.to_path_buf(),
    }
}

/// An absolute path on this platform for a Unix-style one: `/opt/g` on Unix,
/// `C:/opt/g` on Windows (where `/opt/g` is relative to the current drive).
pub fn abs(unix: &str) -> String {
    if cfg!(windows) {
        format!("C:{unix}")
    } else {
        unix.to_string()
    }
}

/// A relative path written with `/`, with this platform's separators, as the
/// product joins it (`.pi\\gortex.json` on Windows).
pub fn native(relative: &str) -> PathBuf {
    relative.split('/').collect()
}

/// An environment map from pairs.
pub fn env_map(vars: &[(&str, &str)]) -> HashMap<String, String> {
    vars.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// A fake-gortex scenario file in `dir`, returned as its path.
pub fn scenario(dir: &Path, json: &serde_json::Value) -> PathBuf {
    let path = dir.join("scenario.json");
    std::fs::write(&path, serde_json::to_vec(json).expect("json")).expect("write scenario");
    path
}

/// The result of one `pi-gortex doctor` run.
pub struct DoctorRun {
    /// Process exit code.
    pub code: i32,
    /// Everything printed on stdout.
    pub stdout: String,
}

impl DoctorRun {
    /// stdout parsed as JSON (for `--json` runs).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).expect("doctor --json prints JSON")
    }
}

/// Runs `pi-gortex doctor <args>` with a clean configuration environment:
/// no inherited `GORTEX_*`/`PI_*`/`FAKE_*` variables, the home (`HOME`, and
/// `USERPROFILE`, which Windows reads first) in `home`.
pub fn run_doctor(args: &[&str], vars: &[(&str, &str)], home: &Path) -> DoctorRun {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pi-gortex"));
    command.arg("doctor").args(args);
    for (name, _) in std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v)))
        .filter(|(k, _)| {
            k.starts_with("GORTEX_") || k.starts_with("PI_") || k.starts_with("FAKE_GORTEX")
        })
    {
        command.env_remove(name);
    }
    command.env("HOME", home).env("USERPROFILE", home);
    for (name, value) in vars {
        command.env(name, value);
    }
    let output = command.output().expect("run pi-gortex doctor");
    DoctorRun {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
    }
}

/// Asserts a `--json` report is a valid `DoctorReport`.
pub fn assert_valid_report(report: &serde_json::Value) {
    if let Err(errors) = pi_gortex_schema::validate("DoctorReport", report) {
        panic!("invalid DoctorReport: {errors:?}\n{report:#}");
    }
}
