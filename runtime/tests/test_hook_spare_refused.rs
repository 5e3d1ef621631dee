//! HOOK-18: a spare that closed its stdin before the call gives way to a fresh spawn within the
//! same call. Alone in its binary: while another thread of the same process spawns a child, that
//! child holds a copy of every pipe until its exec, so the write to the closed spare could
//! succeed and the refusal the test is about would not be seen.

#![cfg(unix)]

use std::time::{Duration, Instant};

use pi_gortex_runtime::hook::{envelope_for_tool_call, EnvelopeContext, SpareSlot};
use serde_json::json;

/// Whether `pid` names a process, a zombie included (not yet reaped by us).
fn alive(pid: u32) -> bool {
    let pid = libc::pid_t::try_from(pid).expect("pid");
    // SAFETY: signal 0 only checks that the process exists.
    unsafe { libc::kill(pid, 0) == 0 }
}

#[test]
fn a_spare_that_closed_its_stdin_gives_way_to_a_fresh_spawn_within_the_call() {
    let dir = tempfile::tempdir().expect("temp dir");
    let closed = dir.path().join("closed");
    // The first process (the spare) closes its stdin, says so, and lingers without answering;
    // every later one answers.
    let script = format!(
        "if [ -e '{0}' ]; then cat >/dev/null; echo '{{}}'; else exec 0<&-; : > '{0}'; sleep 1; fi",
        closed.display()
    );
    let argv = vec!["/bin/sh".to_string(), "-c".to_string(), script];
    let slot = SpareSlot::default();
    slot.refill(&argv);
    let spare = slot.spare_id().expect("a spare waits");
    let deadline = Instant::now() + Duration::from_secs(20);
    while !closed.exists() {
        assert!(
            Instant::now() < deadline,
            "the spare never closed its stdin"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    let context = EnvelopeContext {
        cwd: "/repo".into(),
        session_id: "s-refused".into(),
    };
    let call = envelope_for_tool_call("read", &json!({"path": "src/a.go"}), &context, |_| None);
    let run = slot.run_blocking(&argv, &call);
    assert_eq!(run.failure, None, "a fresh spawn answered: {run:?}");
    assert_eq!(
        serde_json::to_value(&run.decision).expect("decision"),
        json!({})
    );
    assert_eq!(slot.counts().used, 1);
    assert!(!alive(spare), "the spare was killed and reaped");
}
