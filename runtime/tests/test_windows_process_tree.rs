//! MCP-15 / HOOK-2 on Windows: a grandchild never outlives its owner. The
//! hook exchange runs a child in its kill-on-close job object; the child starts
//! a long-lived grandchild of its own, writes the grandchild's pid to a file
//! and never answers. When the timeout kills the tree, the grandchild must be
//! gone too.
//!
//! The child and the grandchild are this very test binary, re-run with one
//! helper test selected (`--exact`) and a role in `PI_GORTEX_TREE_ROLE`: no
//! fake-gortex mode or shell is needed to start a process and learn its pid.

#![cfg(windows)]

mod common_config;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use common_config::temp_dir;
use pi_gortex_runtime::hook::{
    envelope_for_tool_call, run_with_limits, EnvelopeContext, HookFailure, HookLimits,
};
use serde_json::json;
use windows::Win32::Foundation::{CloseHandle, WAIT_OBJECT_0, WAIT_TIMEOUT};
use windows::Win32::System::Threading::{
    OpenProcess, WaitForSingleObject, PROCESS_QUERY_LIMITED_INFORMATION, PROCESS_SYNCHRONIZE,
};

const ROLE: &str = "PI_GORTEX_TREE_ROLE";
const PID_FILE: &str = "PI_GORTEX_TREE_PID_FILE";
const HELPER: &str = "tree_helper";

/// Not a test of its own: the body of the child and grandchild roles, run
/// only when this binary is re-run for exactly this test with a role set.
#[test]
fn tree_helper() {
    let selected = std::env::args().any(|arg| arg == "--exact");
    match std::env::var(ROLE).ok().filter(|_| selected).as_deref() {
        Some("child") => be_the_child(),
        Some("grandchild") => std::thread::sleep(Duration::from_secs(120)),
        _ => {}
    }
}

/// Starts the grandchild outside our stdout (so only the kill can end the
/// hook's exchange), records its pid, then waits for it, i.e. until killed.
fn be_the_child() {
    let pid_file = std::env::var(PID_FILE).expect("pid file");
    let mut grandchild = Command::new(std::env::current_exe().expect("current exe"))
        .args([HELPER, "--exact", "--nocapture"])
        .env(ROLE, "grandchild")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn grandchild");
    let partial = format!("{pid_file}.partial");
    std::fs::write(&partial, grandchild.id().to_string()).expect("write pid");
    std::fs::rename(&partial, &pid_file).expect("publish pid");
    // The grandchild sleeps 120 s: only the job's kill ends this wait early.
    let _ = grandchild.wait();
}

/// Waits (for the process's own exit event, up to `limit`) until `pid` is
/// gone; true if it exited or no longer exists.
fn gone_within(pid: u32, limit: Duration) -> bool {
    // SAFETY: OpenProcess takes plain values; the handle is closed below.
    let handle = match unsafe {
        OpenProcess(
            PROCESS_SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION,
            false,
            pid,
        )
    } {
        Ok(handle) => handle,
        Err(_) => return true, // no such process any more
    };
    let millis = u32::try_from(limit.as_millis()).unwrap_or(u32::MAX);
    // SAFETY: the handle is valid until CloseHandle.
    let waited = unsafe { WaitForSingleObject(handle, millis) };
    // SAFETY: the handle came from OpenProcess and is closed once.
    let _ = unsafe { CloseHandle(handle) };
    assert!(
        waited == WAIT_OBJECT_0 || waited == WAIT_TIMEOUT,
        "WaitForSingleObject failed: {waited:?}"
    );
    waited == WAIT_OBJECT_0
}

#[tokio::test]
async fn a_hook_killed_at_its_timeout_takes_its_grandchild_with_it() {
    let dir = temp_dir();
    let pid_file: PathBuf = dir.path().join("grandchild.pid");
    // The hook's child inherits this process's environment; only the helper
    // test run with `--exact` acts on the role, so this process is unaffected.
    std::env::set_var(ROLE, "child");
    std::env::set_var(PID_FILE, &pid_file);
    let argv = vec![
        std::env::current_exe()
            .expect("current exe")
            .display()
            .to_string(),
        HELPER.into(),
        "--exact".into(),
        "--nocapture".into(),
    ];
    let envelope = envelope_for_tool_call(
        "read",
        &json!({"path":"src/a.go"}),
        &EnvelopeContext {
            cwd: "C:\\repo".into(),
            session_id: "s1".into(),
        },
        |_| None,
    );
    // Long enough for the child to start the grandchild under wine.
    let limits = HookLimits {
        timeout: Duration::from_secs(10),
        ..Default::default()
    };
    let run = run_with_limits(&argv, &envelope, limits).await;
    assert_eq!(run.failure, Some(HookFailure::Timeout { limit_ms: 10_000 }));
    let pid: u32 = std::fs::read_to_string(&pid_file)
        .expect("the child wrote the grandchild's pid before the timeout")
        .trim()
        .parse()
        .expect("pid");
    // The grandchild would sleep 120 s on its own; the job's kill ends it now.
    assert!(
        gone_within(pid, Duration::from_secs(30)),
        "grandchild {pid} outlived the killed hook"
    );
}

/// MCP-3/MCP-15: the owner of an MCP child goes away without stopping it (a
/// dropped client, or a host that dies, whose handles the system closes):
/// closing the job's handle alone must end the grandchild too.
#[tokio::test]
async fn a_dropped_mcp_child_takes_its_grandchild_with_it() {
    use pi_gortex_runtime::mcp::transport::child_process::{spawn_piped, ChildSpec};

    let dir = temp_dir();
    let pid_file: PathBuf = dir.path().join("grandchild.pid");
    let spec = ChildSpec {
        program: std::env::current_exe().expect("current exe").into(),
        args: vec![HELPER.into(), "--exact".into(), "--nocapture".into()],
        extra_env: vec![
            (ROLE.into(), "child".into()),
            (PID_FILE.into(), pid_file.clone().into()),
        ],
        cwd: None,
    };
    let child = spawn_piped(&spec).expect("spawn the child");
    // Up to a minute for wine to start the child and the grandchild.
    let mut pid = None;
    for _ in 0..600 {
        if let Ok(text) = std::fs::read_to_string(&pid_file) {
            pid = text.trim().parse::<u32>().ok();
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let pid = pid.expect("the child wrote the grandchild's pid");
    drop(child);
    assert!(
        gone_within(pid, Duration::from_secs(30)),
        "grandchild {pid} outlived its dropped owner"
    );
}
