//! HOOK-18 leaks: 1,000 events answered on the session's spare leave no hook process once
//! the session ends, and no moment has two spares. This binary holds this one test, so every
//! child of the test process is a hook process of its slot.

// Children are counted from /proc.
#![cfg(target_os = "linux")]

mod common_config;

use common_config::{fake_gortex, temp_dir};
use pi_gortex_runtime::config::{hook_argv, HookMode};
use pi_gortex_runtime::hook::{envelope_for_tool_call, EnvelopeContext, SpareSlot};
use serde_json::json;

/// The processes whose parent is this test process, zombies included (not yet reaped).
fn children() -> Vec<u32> {
    let me = std::process::id().to_string();
    std::fs::read_dir("/proc")
        .expect("/proc")
        .filter_map(|entry| {
            let pid: u32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // `pid (comm) state ppid ...`: the fields after the last ')'.
            let ppid = stat
                .rsplit_once(')')?
                .1
                .split_whitespace()
                .nth(1)?
                .to_string();
            (ppid == me).then_some(pid)
        })
        .collect()
}

#[test]
fn a_thousand_events_leave_no_hook_process_after_the_sessions_end_and_never_two_spares() {
    let dir = temp_dir();
    let mut argv = vec![
        "/usr/bin/env".to_string(),
        format!("FAKE_GORTEX_STATE={}", dir.path().display()),
    ];
    argv.extend(hook_argv(
        fake_gortex().to_str().expect("utf8"),
        HookMode::Deny,
    ));
    let context = EnvelopeContext {
        cwd: "/repo".into(),
        session_id: "s-leak".into(),
    };
    let call = envelope_for_tool_call("read", &json!({"path": "src/a.go"}), &context, |_| None);
    let slot = SpareSlot::default();
    slot.refill(&argv);
    for i in 0..1000 {
        let run = slot.run_blocking(&argv, &call);
        assert_eq!(run.failure, None, "call {i}");
        // Between the answer and the refill, no process of ours is left.
        assert_eq!(children(), Vec::<u32>::new(), "after call {i}");
        slot.refill(&argv);
        let spare = slot.spare_id().expect("a spare waits");
        assert_eq!(children(), vec![spare], "after refill {i}: the spare alone");
    }
    slot.close();
    assert_eq!(children(), Vec::<u32>::new(), "after the session's end");
    let counts = slot.counts();
    assert_eq!(
        (counts.started, counts.used, counts.alive, counts.peak),
        (1001, 1000, 0, 1)
    );
}
