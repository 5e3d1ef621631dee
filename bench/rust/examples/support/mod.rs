//! Shared helpers of the load and soak examples: the fake-gortex
//! binary, a scratch directory holding the scenario and the fake's JSONL
//! log, process resource readings from `/proc/self`, and percentiles.
#![allow(dead_code)]

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use pi_gortex_runtime::mcp::own_client::{OwnClient, OwnClientConfig};
use serde_json::Value;

/// `FAKE_GORTEX_BIN`, else `fake-gortex` built (release) into the target
/// directory this example runs from.
pub fn fake_gortex_bin() -> PathBuf {
    if let Some(bin) = std::env::var_os("FAKE_GORTEX_BIN") {
        return PathBuf::from(bin);
    }
    let exe = std::env::current_exe().expect("own path");
    // <target>/<profile>/examples/<name>
    let target = exe.ancestors().nth(3).expect("target dir").to_path_buf();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("repo root");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args(["build", "-q", "--release", "-p", "fake-gortex"])
        .env("CARGO_TARGET_DIR", &target)
        .current_dir(root)
        .status()
        .expect("cargo runs");
    assert!(status.success(), "cargo build -p fake-gortex failed");
    target.join("release").join("fake-gortex")
}

/// A scratch directory with a scenario file and the fake's log.
pub struct Scratch {
    pub dir: tempfile::TempDir,
}

impl Scratch {
    pub fn new(scenario: &Value) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("scenario.json"), scenario.to_string()).expect("scenario");
        Scratch { dir }
    }

    pub fn log_path(&self) -> PathBuf {
        self.dir.path().join("log.jsonl")
    }

    /// The fake's environment (FAKE-1), plus `extra`.
    pub fn env(&self, extra: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        let mut env: Vec<(OsString, OsString)> = vec![
            (
                "FAKE_GORTEX_SCENARIO".into(),
                self.dir.path().join("scenario.json").into(),
            ),
            ("FAKE_GORTEX_LOG".into(), self.log_path().into()),
            ("FAKE_GORTEX_STATE".into(), self.dir.path().into()),
        ];
        env.extend(
            extra
                .iter()
                .map(|(k, v)| (OsString::from(k), OsString::from(v))),
        );
        env
    }

    /// An own client on the fake, without the daemon launcher.
    pub fn own_client(&self, extra_env: &[(&str, &str)]) -> OwnClient {
        let mut config = OwnClientConfig::new(fake_gortex_bin());
        config.extra_env = self.env(extra_env);
        config.launch_daemon = false;
        OwnClient::new(config)
    }

    /// How many log records have this `ev` and `method` (any method when
    /// `method` is empty). Streams the log
    /// and matches text, because a soak's log runs to gigabytes.
    pub fn count(&self, ev: &str, method: &str) -> usize {
        use std::io::BufRead;
        let Ok(file) = std::fs::File::open(self.log_path()) else {
            return 0;
        };
        let any_method = method.is_empty();
        let ev = format!("\"ev\":\"{ev}\"");
        let method = format!("\"method\":\"{method}\"");
        std::io::BufReader::new(file)
            .lines()
            .map_while(Result::ok)
            .filter(|line| line.contains(&ev) && (any_method || line.contains(&method)))
            .count()
    }

    /// How many requests of `method` the fake received.
    pub fn received(&self, method: &str) -> usize {
        self.count("recv", method)
    }

    /// How many `list_changed` notifications the fake sent.
    pub fn list_changed_sent(&self) -> usize {
        self.count("send", "notifications/tools/list_changed")
    }
}

/// Resident set size of this process, in KiB (`VmRSS`).
pub fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// Open file descriptors of this process.
pub fn fd_count() -> usize {
    std::fs::read_dir("/proc/self/fd")
        .map(|d| d.count())
        .unwrap_or(0)
}

/// The `q`-quantile (0..=1) of sorted durations.
pub fn quantile(sorted: &[Duration], q: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let index = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

/// Milliseconds with two decimals.
pub fn ms(duration: Duration) -> String {
    format!("{:.2} ms", duration.as_secs_f64() * 1000.0)
}
