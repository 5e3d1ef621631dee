//! Shared helpers of the runtime integration tests: locating (building once)
//! the `fake-gortex` test double, a per-test scenario/log/state directory,
//! reading the fake's JSONL log, and counting live children.
#![allow(dead_code)]

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::Value;

/// The `fake-gortex` executable: `FAKE_GORTEX_BIN` when set, else built once
/// with `cargo build -p fake-gortex` into this test's own target directory.
pub fn fake_gortex_bin() -> PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        if let Some(bin) = std::env::var_os("FAKE_GORTEX_BIN") {
            return PathBuf::from(bin);
        }
        let target_dir = target_dir();
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let status = Command::new(cargo)
            .args(["build", "-q", "-p", "fake-gortex"])
            .env("CARGO_TARGET_DIR", &target_dir)
            .current_dir(workspace_root())
            .status()
            .expect("cargo runs");
        assert!(status.success(), "cargo build -p fake-gortex failed");
        let bin = target_dir.join("debug").join("fake-gortex");
        assert!(bin.is_file(), "missing {}", bin.display());
        bin
    })
    .clone()
}

/// The repository root.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("runtime/ has a parent")
        .to_path_buf()
}

/// The target directory this test binary was built into
/// (`<target>/debug/deps/<test>`).
fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test exe path");
    exe.ancestors()
        .nth(3)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| workspace_root().join("target"))
}

/// One test's scenario file, log and state directory for the fake.
pub struct Fake {
    pub dir: tempfile::TempDir,
    pub bin: PathBuf,
}

impl Fake {
    /// A fake configured by `scenario` (FAKE-2).
    pub fn new(scenario: Value) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(
            dir.path().join("scenario.json"),
            serde_json::to_vec(&scenario).expect("scenario serializes"),
        )
        .expect("write scenario");
        Self {
            dir,
            bin: fake_gortex_bin(),
        }
    }

    pub fn log_path(&self) -> PathBuf {
        self.dir.path().join("log.jsonl")
    }

    /// The variables that point a child at this fake's files.
    pub fn env(&self) -> Vec<(OsString, OsString)> {
        vec![
            (
                "FAKE_GORTEX_SCENARIO".into(),
                self.dir.path().join("scenario.json").into(),
            ),
            ("FAKE_GORTEX_LOG".into(), self.log_path().into()),
            ("FAKE_GORTEX_STATE".into(), self.dir.path().into()),
        ]
    }

    /// Every log record so far.
    pub fn records(&self) -> Vec<Value> {
        let text = std::fs::read_to_string(self.log_path()).unwrap_or_default();
        text.lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect()
    }

    /// Records of one event kind (`start`, `recv`, `answer`, ...), for one verb.
    pub fn events(&self, verb: &str, ev: &str) -> Vec<Value> {
        self.records()
            .into_iter()
            .filter(|record| record["verb"] == verb && record["ev"] == ev)
            .collect()
    }

    /// Methods the `mcp` children received, in order.
    pub fn received_methods(&self) -> Vec<String> {
        self.events("mcp", "recv")
            .iter()
            .filter_map(|record| record["method"].as_str().map(str::to_string))
            .collect()
    }

    /// Pids of every `mcp` child that ever started.
    pub fn mcp_pids(&self) -> Vec<u32> {
        self.events("mcp", "start")
            .iter()
            .filter_map(|record| record["pid"].as_u64().map(|pid| pid as u32))
            .collect()
    }

    /// Those `mcp` children still alive (zombies included: a child we did
    /// not reap counts as leaked).
    pub fn live_mcp_pids(&self) -> Vec<u32> {
        self.mcp_pids()
            .into_iter()
            .filter(|pid| is_alive(*pid))
            .collect()
    }
}

/// `kill(pid, 0)` succeeds.
#[cfg(unix)]
pub fn is_alive(pid: u32) -> bool {
    // SAFETY: signal 0 only checks for existence and permission.
    unsafe { libc::kill(pid as libc::pid_t, 0) == 0 }
}

/// The process can be opened and has no exit code yet.
#[cfg(windows)]
pub fn is_alive(pid: u32) -> bool {
    use windows::Win32::Foundation::{CloseHandle, STILL_ACTIVE};
    use windows::Win32::System::Threading::{
        GetExitCodeProcess, OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION,
    };
    // SAFETY: the handle is checked, queried once and closed; no memory of
    // ours is passed but the exit-code slot.
    unsafe {
        let Ok(process) = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, false, pid) else {
            return false;
        };
        let mut code = 0u32;
        let running =
            GetExitCodeProcess(process, &mut code).is_ok() && code == STILL_ACTIVE.0 as u32;
        let _ = CloseHandle(process);
        running
    }
}

/// Short timeouts so fault tests run fast; the values the spec fixes are
/// asserted on their own.
pub fn fast_timeouts() -> pi_gortex_runtime::mcp::Timeouts {
    pi_gortex_runtime::mcp::Timeouts {
        initialize: Duration::from_millis(3_000),
        rpc: Duration::from_millis(3_000),
        call: Duration::from_millis(3_000),
        kill_grace: Duration::from_millis(300),
        retry_backoff: Duration::from_millis(100),
        exit_drain: Duration::from_millis(100),
    }
}

/// Polls `condition` every 10 ms for up to `limit`.
pub async fn eventually(limit: Duration, mut condition: impl FnMut() -> bool) -> bool {
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        if condition() {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// A client of `<fake> mcp` with this fake's environment and fast timeouts.
pub fn client(fake: &Fake) -> pi_gortex_runtime::mcp::McpClient {
    client_with(fake, fast_timeouts())
}

/// A client of `<fake> mcp` with the given timeouts.
pub fn client_with(
    fake: &Fake,
    timeouts: pi_gortex_runtime::mcp::Timeouts,
) -> pi_gortex_runtime::mcp::McpClient {
    let mut config = pi_gortex_runtime::mcp::ClientConfig::new(&fake.bin);
    config.extra_env = fake.env();
    config.timeouts = timeouts;
    pi_gortex_runtime::mcp::McpClient::new(config)
}

/// An own client on this fake with fast timeouts and the daemon launcher on.
pub fn own_client(fake: &Fake) -> pi_gortex_runtime::mcp::own_client::OwnClient {
    let mut config = pi_gortex_runtime::mcp::own_client::OwnClientConfig::new(&fake.bin);
    config.extra_env = fake.env();
    config.timeouts = fast_timeouts();
    pi_gortex_runtime::mcp::own_client::OwnClient::new(config)
}

/// `params` as the raw JSON the client sends.
pub fn raw(value: serde_json::Value) -> Box<serde_json::value::RawValue> {
    serde_json::value::to_raw_value(&value).expect("serializes")
}

/// A client whose "server" is a `sh` script, for exact wire sequences the
/// fake cannot produce on cue. `$CAPTURE` names a file the script may tee
/// its stdin into; it is returned with the client.
pub fn script_client(
    script: &str,
    timeouts: pi_gortex_runtime::mcp::Timeouts,
) -> (pi_gortex_runtime::mcp::McpClient, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut config = pi_gortex_runtime::mcp::ClientConfig::new("/bin/sh");
    config.args = vec!["-c".into(), script.into()];
    config.extra_env = vec![("CAPTURE".into(), dir.path().join("stdin.jsonl").into())];
    config.timeouts = timeouts;
    (pi_gortex_runtime::mcp::McpClient::new(config), dir)
}

/// A client of `<fake> mcp` running the replay program `steps` (fake-gortex's `replay`), for
/// exact wire sequences on every platform; it captures every line it reads, for `captured`.
pub fn replay_client(
    steps: Value,
    timeouts: pi_gortex_runtime::mcp::Timeouts,
) -> (pi_gortex_runtime::mcp::McpClient, Fake) {
    let fake = Fake::new(serde_json::json!({ "replay": steps }));
    let mut config = pi_gortex_runtime::mcp::ClientConfig::new(&fake.bin);
    config.extra_env = fake.env();
    config
        .extra_env
        .push(("CAPTURE".into(), fake.dir.path().join("stdin.jsonl").into()));
    config.timeouts = timeouts;
    (pi_gortex_runtime::mcp::McpClient::new(config), fake)
}

/// The frames a script child captured from its stdin.
pub fn captured(dir: &tempfile::TempDir) -> Vec<Value> {
    std::fs::read_to_string(dir.path().join("stdin.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

/// The initialize reply a script child sends for request id 1.
pub const SCRIPT_INIT_REPLY: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","serverInfo":{"name":"gortex","version":"0.64.4"}}}"#;

/// A temporary repository for the diff tests: a canonical cwd with `.git`
/// and the given files.
pub struct DiffRepo {
    _tmp: tempfile::TempDir,
    pub cwd: PathBuf,
}

/// A [`DiffRepo`] holding `files` (relative path, content).
pub fn diff_repo(files: &[(&str, &str)]) -> DiffRepo {
    let tmp = tempfile::tempdir().expect("tempdir");
    let cwd = std::fs::canonicalize(tmp.path()).expect("canonical");
    std::fs::create_dir_all(cwd.join(".git")).expect(".git");
    for (rel, content) in files {
        std::fs::write(cwd.join(rel), content).expect("file");
    }
    DiffRepo { _tmp: tmp, cwd }
}
