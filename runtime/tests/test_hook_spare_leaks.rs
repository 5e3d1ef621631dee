//! HOOK-18 leaks: 1,000 events answered on the session's spare leave no hook process once
//! the session ends, and no moment has two spares. This binary holds this one test per
//! platform: on Linux every child of the test process is a hook process of its slot (counted
//! from /proc); on Windows (`make test-windows`, under wine) every hook process the simulator
//! logged is looked up by its pid.

#![cfg(any(target_os = "linux", windows))]

#[cfg(windows)]
mod common;
mod common_config;

use common_config::{fake_gortex, temp_dir};
use pi_gortex_runtime::config::{hook_argv, HookMode};
use pi_gortex_runtime::hook::{envelope_for_tool_call, EnvelopeContext, HookEvent, SpareSlot};
use serde_json::json;

/// The events each test answers.
const EVENTS: usize = 1000;

fn read_call() -> HookEvent {
    let context = EnvelopeContext {
        cwd: "/repo".into(),
        session_id: "s-leak".into(),
    };
    envelope_for_tool_call("read", &json!({"path": "src/a.go"}), &context, |_| None)
}

/// The waiting spare's pid; when there is none, the panic says why its start failed.
fn waiting(slot: &SpareSlot, call: usize) -> u32 {
    slot.spare_id().unwrap_or_else(|| {
        panic!(
            "no spare waits at call {call}: {:?}, last start failure {:?}",
            slot.counts(),
            slot.last_failure()
        )
    })
}

/// The processes whose parent is this test process, zombies included (not yet reaped).
#[cfg(target_os = "linux")]
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

#[cfg(target_os = "linux")]
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
    let call = read_call();
    let slot = SpareSlot::default();
    slot.refill(&argv);
    for i in 0..EVENTS {
        let run = slot.run_blocking(&argv, &call);
        assert_eq!(run.failure, None, "call {i}");
        // Between the answer and the refill, no process of ours is left.
        assert_eq!(children(), Vec::<u32>::new(), "after call {i}");
        slot.refill(&argv);
        let spare = waiting(&slot, i);
        assert_eq!(children(), vec![spare], "after refill {i}: the spare alone");
    }
    slot.close();
    assert_eq!(children(), Vec::<u32>::new(), "after the session's end");
    let counts = slot.counts();
    assert_eq!(
        (counts.started, counts.used, counts.alive, counts.peak),
        (EVENTS + 1, EVENTS, 0, 1)
    );
}

/// Under wine: each hook process runs in a kill-on-close job. The spare an event used has
/// exited by its answer, so the new one is the only one alive; after the session's end no hook
/// process the simulator logged is alive.
#[cfg(windows)]
#[test]
fn a_thousand_events_leave_no_hook_process_after_the_sessions_end_and_never_two_spares() {
    let dir = temp_dir();
    let log = dir.path().join("log.jsonl");
    // Windows has no `/usr/bin/env`: the simulator's variables are this process's.
    std::env::set_var("FAKE_GORTEX_LOG", &log);
    std::env::set_var("FAKE_GORTEX_STATE", dir.path());
    std::env::remove_var("FAKE_GORTEX_SCENARIO");
    let argv = hook_argv(fake_gortex().to_str().expect("utf8"), HookMode::Deny);
    let call = read_call();
    let slot = SpareSlot::default();
    slot.refill(&argv);
    for i in 0..EVENTS {
        let used = waiting(&slot, i);
        let run = slot.run_blocking(&argv, &call);
        assert_eq!(run.failure, None, "call {i}");
        assert!(
            !common::is_alive(used),
            "the spare {used} outlived call {i}"
        );
        slot.refill(&argv);
        let spare = waiting(&slot, i);
        assert!(common::is_alive(spare), "the spare {spare} after call {i}");
    }
    slot.close();
    let started: Vec<u32> = std::fs::read_to_string(&log)
        .expect("the simulator's log")
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|record| record["ev"] == "start" && record["verb"] == "hook")
        .filter_map(|record| record["pid"].as_u64()?.try_into().ok())
        .collect();
    // The last spare may be ended before it logged its start; every used one logged it.
    assert!(
        started.len() >= EVENTS,
        "{} hook processes logged",
        started.len()
    );
    let left: Vec<u32> = started
        .into_iter()
        .filter(|pid| common::is_alive(*pid))
        .collect();
    assert_eq!(
        left,
        Vec::<u32>::new(),
        "hook processes left after the session's end"
    );
    let counts = slot.counts();
    assert_eq!(
        (counts.started, counts.used, counts.alive, counts.peak),
        (EVENTS + 1, EVENTS, 0, 1)
    );
}
