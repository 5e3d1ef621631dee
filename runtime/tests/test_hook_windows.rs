//! HOOK-1..HOOK-3 on Windows: the exchange through tokio's process and
//! pipes, the child in a kill-on-close job object. The hook is fake-gortex;
//! its scenario reaches it through this process's environment (Windows has
//! no `/usr/bin/env` to pass it on the command line), so the runs here take
//! turns.

#![cfg(windows)]

mod common;
mod common_config;

use std::time::Duration;

use common_config::{fake_gortex, scenario, temp_dir};
use pi_gortex_runtime::hook::{
    empty_decision, envelope_for_tool_call, outcome, run, run_blocking, EnvelopeContext, HookEvent,
    HookFailure, HookOutcome, HookRun,
};
use serde_json::{json, Value};

/// The environment is the process's: one scenario at a time.
static SCENARIO: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn read_envelope() -> HookEvent {
    envelope_for_tool_call(
        "read",
        &json!({"path":"src/a.go"}),
        &EnvelopeContext {
            cwd: "C:\\repo".into(),
            session_id: "s1".into(),
        },
        |_| None,
    )
}

fn argv() -> Vec<String> {
    vec![
        fake_gortex().display().to_string(),
        "hook".into(),
        "--agent=pi".into(),
    ]
}

/// Runs the hook with `faults`; returns the run and the log's records.
async fn run_with(faults: Value) -> (HookRun, Vec<Value>) {
    let dir = temp_dir();
    let path = scenario(dir.path(), &json!({"faults": faults}));
    let log = dir.path().join("log.jsonl");
    let run = {
        let _turn = SCENARIO.lock().await;
        std::env::set_var("FAKE_GORTEX_SCENARIO", &path);
        std::env::set_var("FAKE_GORTEX_LOG", &log);
        std::env::set_var("FAKE_GORTEX_STATE", dir.path());
        run(&argv(), &read_envelope()).await
    };
    let records = std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect();
    (run, records)
}

fn assert_failed_open(run: &HookRun) {
    assert_eq!(run.decision, empty_decision());
    assert!(run.failure.is_some());
}

fn hook_pid(records: &[Value]) -> u32 {
    records
        .iter()
        .find(|rec| rec["ev"] == "start" && rec["verb"] == "hook")
        .and_then(|rec| rec["pid"].as_u64())
        .and_then(|pid| u32::try_from(pid).ok())
        .expect("start record with pid")
}

#[tokio::test]
async fn a_healthy_hook_blocks_an_indexed_read_with_the_envelope_whole() {
    let (run, records) = run_with(json!([])).await;
    assert_eq!(run.failure, None);
    assert!(
        matches!(outcome(&run.decision), HookOutcome::Block { .. }),
        "{:?}",
        run.decision
    );
    let hook = records
        .iter()
        .find(|rec| rec["ev"] == "hook")
        .expect("hook record");
    assert_eq!(
        hook["envelope"],
        serde_json::to_value(read_envelope()).expect("json")
    );
}

#[tokio::test]
async fn hook_2_a_hanging_hook_is_killed_at_the_timeout() {
    let (run, records) = run_with(json!([{"kind":"hook_timeout","delay_ms":8000}])).await;
    assert_failed_open(&run);
    assert_eq!(run.failure, Some(HookFailure::Timeout { limit_ms: 5000 }));
    let pid = hook_pid(&records);
    assert!(!common::is_alive(pid), "hook child {pid} outlived the run");
    assert!(
        !records.iter().any(|rec| rec["ev"] == "exit"),
        "the child never finished on its own"
    );
}

#[tokio::test]
async fn hook_2_twenty_mib_of_output_is_cut_off() {
    let (run, _) = run_with(json!([{"kind":"hook_huge","bytes": 20 * 1024 * 1024}])).await;
    assert_failed_open(&run);
    assert_eq!(
        run.failure,
        Some(HookFailure::OutputTooLarge {
            limit_bytes: 16 * 1024 * 1024
        })
    );
}

#[tokio::test]
async fn hook_10_a_non_zero_exit_ignores_a_valid_deny() {
    let (run, _) = run_with(json!([{"kind":"hook_exit","exit_code":3}])).await;
    assert_failed_open(&run);
    assert!(
        matches!(run.failure, Some(HookFailure::ExitStatus { .. })),
        "{:?}",
        run.failure
    );
}

#[test]
fn run_blocking_answers_on_the_calling_thread() {
    let dir = temp_dir();
    let path = scenario(dir.path(), &json!({"faults": []}));
    let run = {
        let _turn = SCENARIO.blocking_lock();
        std::env::set_var("FAKE_GORTEX_SCENARIO", &path);
        std::env::set_var("FAKE_GORTEX_LOG", dir.path().join("log.jsonl"));
        run_blocking(&argv(), &read_envelope())
    };
    assert_eq!(run.failure, None);
    assert!(run.latency < Duration::from_secs(5));
}

#[test]
fn hook_18_a_spare_answers_as_a_fresh_spawn_and_its_job_ends_it_with_the_slot() {
    use pi_gortex_runtime::hook::SpareSlot;
    let dir = temp_dir();
    let path = scenario(dir.path(), &json!({"faults": []}));
    let _turn = SCENARIO.blocking_lock();
    std::env::set_var("FAKE_GORTEX_SCENARIO", &path);
    std::env::set_var("FAKE_GORTEX_LOG", dir.path().join("log.jsonl"));
    std::env::set_var("FAKE_GORTEX_STATE", dir.path());
    let fresh = run_blocking(&argv(), &read_envelope());
    let slot = SpareSlot::default();
    slot.refill(&argv());
    let first = slot.spare_id().expect("a spare waits");
    let spared = slot.run_blocking(&argv(), &read_envelope());
    assert_eq!(spared.failure, None);
    assert_eq!(spared.decision, fresh.decision);
    assert_eq!(slot.counts().used, 1);
    slot.refill(&argv());
    let waiting = slot.spare_id().expect("a new spare waits");
    assert_ne!(waiting, first);
    drop(slot);
    assert!(
        !common::is_alive(waiting),
        "the spare {waiting} outlived its slot"
    );
}
