//! HOOK-18: the session's warm spare answers as a hook spawned at the call, against the
//! simulator and against Gortex's own hook (through fake-gortex's relay); a spare that died,
//! went stale or was started for another posture never answers, and the call still gets its
//! decision.

// The hooks are `/usr/bin/env` command lines, and Gortex's own hook asks a Unix socket; the
// Windows spare is covered by test_hook_windows.rs.
#![cfg(unix)]

mod common_config;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common_config::{fake_gortex, scenario, temp_dir, write_file};
use pi_gortex_runtime::config::{hook_argv, HookMode};
use pi_gortex_runtime::hook::exchange::fail_next_warm_spawns_for_tests;
use pi_gortex_runtime::hook::{
    envelope_for_tool_call, outcome, run_blocking, EnvelopeContext, HookEvent, HookFailure,
    HookLimits, HookOutcome, SpareSlot,
};
use serde_json::{json, Value};

fn context(cwd: &str, session: &str) -> EnvelopeContext {
    EnvelopeContext {
        cwd: cwd.into(),
        session_id: session.into(),
    }
}

/// A session's calls as the hook sees them: indexed reads, a search, graph calls in between
/// (which unlock consult-unlock and reset the nudge streak), and a shell read.
fn session_calls(cwd: &str, session: &str, file: &str) -> Vec<HookEvent> {
    let ctx = context(cwd, session);
    let graph = |name: &str| (name == "search").then_some("search");
    vec![
        envelope_for_tool_call("read", &json!({ "path": file }), &ctx, |_| None),
        envelope_for_tool_call("grep", &json!({"pattern": "Serve"}), &ctx, |_| None),
        envelope_for_tool_call("search", &json!({"query": "Serve"}), &ctx, graph),
        envelope_for_tool_call("read", &json!({ "path": file }), &ctx, |_| None),
        envelope_for_tool_call(
            "bash",
            &json!({"command": format!("cat {file}")}),
            &ctx,
            |_| None,
        ),
        envelope_for_tool_call("read", &json!({ "path": file }), &ctx, |_| None),
        envelope_for_tool_call("read", &json!({ "path": "README.md" }), &ctx, |_| None),
    ]
}

/// The simulator's hook argv for `mode`, its scenario, log and state in `dir`.
fn simulator_argv(dir: &Path, mode: HookMode, faults: Value) -> Vec<String> {
    let scenario = scenario(dir, &json!({ "faults": faults }));
    let mut argv = vec![
        "/usr/bin/env".to_string(),
        format!("FAKE_GORTEX_SCENARIO={}", scenario.display()),
        format!("FAKE_GORTEX_LOG={}", dir.join("log.jsonl").display()),
        format!("FAKE_GORTEX_STATE={}", dir.display()),
    ];
    argv.extend(hook_argv(fake_gortex().to_str().expect("utf8"), mode));
    argv
}

/// Each call's decision, the hook spawned at each call.
fn fresh_decisions(argv: &[String], calls: &[HookEvent]) -> Vec<Value> {
    calls
        .iter()
        .map(|call| {
            let run = run_blocking(argv, call);
            assert_eq!(run.failure, None);
            serde_json::to_value(&run.decision).expect("decision")
        })
        .collect()
}

/// Each call's decision, answered on the spare started after the one before.
fn spare_decisions(slot: &SpareSlot, argv: &[String], calls: &[HookEvent]) -> Vec<Value> {
    slot.refill(argv);
    calls
        .iter()
        .map(|call| {
            let run = slot.run_blocking(argv, call);
            slot.refill(argv);
            assert_eq!(run.failure, None);
            serde_json::to_value(&run.decision).expect("decision")
        })
        .collect()
}

fn log_records(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

#[test]
fn the_simulators_decisions_are_the_same_with_and_without_the_spare() {
    for mode in [
        HookMode::Deny,
        HookMode::Enrich,
        HookMode::ConsultUnlock,
        HookMode::Nudge,
    ] {
        let (fresh_dir, spare_dir) = (temp_dir(), temp_dir());
        let calls = session_calls("/repo", "s-spare", "src/a.go");
        let fresh = fresh_decisions(&simulator_argv(fresh_dir.path(), mode, json!([])), &calls);
        let slot = SpareSlot::default();
        let argv = simulator_argv(spare_dir.path(), mode, json!([]));
        let spared = spare_decisions(&slot, &argv, &calls);
        assert_eq!(spared, fresh, "{mode:?}");
        assert!(
            fresh.iter().any(|d| d != &json!({})),
            "{mode:?}: the session had decisions to compare: {fresh:?}"
        );
        let counts = slot.counts();
        assert_eq!(
            counts.used,
            calls.len(),
            "{mode:?}: every call took a spare"
        );
        slot.close();
        assert_eq!(slot.counts().alive, 0);
    }
}

#[test]
fn a_spare_that_died_waiting_gives_way_to_a_fresh_spawn_within_the_call() {
    let dir = temp_dir();
    // A hook whose stdin stays silent for 300 ms exits without reading it.
    let argv = simulator_argv(
        dir.path(),
        HookMode::Deny,
        json!([{"kind": "hook_idle_exit", "after_ms": 300}]),
    );
    let slot = SpareSlot::default();
    slot.refill(&argv);
    let spare = slot.spare_id().expect("a spare waits");
    wait_for_exit(spare);
    let log = dir.path().join("log.jsonl");
    assert!(
        log_records(&log)
            .iter()
            .any(|r| r["pid"] == spare && r["reason"] == "exit_on_start"),
        "the spare exited before reading stdin"
    );
    let call = &session_calls("/repo", "s-died", "src/a.go")[0];
    let run = slot.run_blocking(&argv, call);
    assert_eq!(run.failure, None, "the call itself did not fail");
    match outcome(&run.decision) {
        HookOutcome::Block { reason } => assert!(reason.contains("src/a.go"), "{reason}"),
        other => panic!("the hook's block, from a fresh spawn: {other:?}"),
    }
    let answered: Vec<Value> = log_records(&log)
        .into_iter()
        .filter(|r| r["ev"] == "hook")
        .collect();
    assert_eq!(answered.len(), 1, "{answered:?}");
    assert_ne!(answered[0]["pid"], spare, "not the dead spare");
    assert_eq!(slot.counts().alive, 0);
}

#[test]
fn a_spare_older_than_the_bound_is_replaced_and_ended() {
    let dir = temp_dir();
    let argv = simulator_argv(dir.path(), HookMode::Deny, json!([]));
    // Every spare is past a bound of zero by the time a call comes.
    let slot = SpareSlot::with_max_age(Duration::ZERO);
    slot.refill(&argv);
    let stale = slot.spare_id().expect("a spare waits");
    let call = &session_calls("/repo", "s-stale", "src/a.go")[0];
    let run = slot.run_blocking(&argv, call);
    assert_eq!(run.failure, None);
    assert!(matches!(outcome(&run.decision), HookOutcome::Block { .. }));
    let counts = slot.counts();
    assert_eq!((counts.used, counts.ended, counts.alive), (0, 1, 0));
    assert!(!alive(stale), "the stale spare was killed and reaped");
    let hooks: Vec<Value> = log_records(&dir.path().join("log.jsonl"))
        .into_iter()
        .filter(|r| r["ev"] == "hook")
        .collect();
    assert_eq!(hooks.len(), 1, "one answer, from a fresh spawn: {hooks:?}");
    assert_ne!(hooks[0]["pid"], stale);
    slot.refill(&argv);
    assert_ne!(slot.spare_id(), Some(stale), "a new spare replaces it");
}

#[test]
fn a_posture_change_replaces_the_spare_and_the_call_gets_the_new_postures_answer() {
    let dir = temp_dir();
    let deny = simulator_argv(dir.path(), HookMode::Deny, json!([]));
    let enrich = simulator_argv(dir.path(), HookMode::Enrich, json!([]));
    let slot = SpareSlot::default();
    slot.refill(&deny);
    let started_for_deny = slot.spare_id().expect("a spare waits");
    let call = &session_calls("/repo", "s-posture", "src/a.go")[0];
    let run = slot.run_blocking(&enrich, call);
    assert_eq!(run.failure, None);
    match outcome(&run.decision) {
        HookOutcome::Steer { text } => assert!(text.contains("src/a.go"), "{text}"),
        other => panic!("enrich's guidance, not deny's block: {other:?}"),
    }
    let counts = slot.counts();
    assert_eq!((counts.used, counts.ended), (0, 1));
    assert!(!alive(started_for_deny));
    slot.refill(&enrich);
    let run = slot.run_blocking(&enrich, call);
    assert!(matches!(outcome(&run.decision), HookOutcome::Steer { .. }));
    assert_eq!(slot.counts().used, 1, "the new posture's spare is used");
}

#[test]
fn a_closed_slot_ends_its_spare_and_starts_none() {
    let dir = temp_dir();
    let argv = simulator_argv(dir.path(), HookMode::Deny, json!([]));
    let slot = SpareSlot::default();
    slot.refill(&argv);
    let spare = slot.spare_id().expect("a spare waits");
    slot.close();
    assert!(!alive(spare));
    slot.refill(&argv);
    assert_eq!(slot.spare_id(), None);
    // A dropped slot ends its spare too.
    let dropped = SpareSlot::default();
    dropped.refill(&argv);
    let spare = dropped.spare_id().expect("a spare waits");
    drop(dropped);
    assert!(!alive(spare));
}

#[test]
fn a_spare_that_cannot_start_is_counted_with_its_error_and_the_next_event_spawns_fresh() {
    let dir = temp_dir();
    let argv = simulator_argv(dir.path(), HookMode::Deny, json!([]));
    let missing = vec![dir.path().join("no-such-gortex").display().to_string()];
    let slot = SpareSlot::default();
    slot.refill(&missing);
    assert_eq!(slot.spare_id(), None);
    let counts = slot.counts();
    assert_eq!(
        (counts.failed, counts.alive),
        (2, 0),
        "two attempts: {counts:?}"
    );
    assert!(
        matches!(slot.last_failure(), Some(HookFailure::Spawn { .. })),
        "{:?}",
        slot.last_failure()
    );
    let run = slot.run_blocking(&argv, &session_calls("/repo", "s-spare", "src/a.go")[0]);
    assert_eq!(run.failure, None);
    assert_eq!(slot.counts().used, 0, "answered by a fresh spawn");
    // The slot is not closed by a failed start: the next refill starts a spare.
    slot.refill(&argv);
    assert!(slot.spare_id().is_some());
}

#[test]
fn a_spare_whose_start_fails_once_is_started_by_the_second_attempt() {
    let dir = temp_dir();
    let argv = simulator_argv(dir.path(), HookMode::Deny, json!([]));
    let slot = SpareSlot::default();
    fail_next_warm_spawns_for_tests(1);
    slot.refill(&argv);
    assert!(slot.spare_id().is_some(), "{:?}", slot.counts());
    assert_eq!(slot.counts().failed, 1);
    assert!(matches!(
        slot.last_failure(),
        Some(HookFailure::Spawn { .. })
    ));
    let run = slot.run_blocking(&argv, &session_calls("/repo", "s-spare", "src/a.go")[0]);
    assert_eq!((run.failure, slot.counts().used), (None, 1));
    // Two failures in a row: no spare, and the next refill starts one.
    fail_next_warm_spawns_for_tests(2);
    slot.refill(&argv);
    assert_eq!(slot.spare_id(), None);
    assert_eq!(slot.counts().failed, 3);
    slot.refill(&argv);
    assert!(slot.spare_id().is_some());
}

/// Waits until the simulator's log in `dir` has the hook record of `pid` (the envelope it read
/// and the decision it wrote), at most 20 s.
fn wait_for_hook_record(dir: &Path, pid: u32) -> Value {
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let found = log_records(&dir.join("log.jsonl"))
            .into_iter()
            .find(|r| r["ev"] == "hook" && r["pid"] == pid);
        if let Some(record) = found {
            return record;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the spare {pid} never decided"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn the_spare_decides_once_the_exchange_begins_before_any_thread_waits_for_it() {
    let dir = temp_dir();
    let argv = simulator_argv(dir.path(), HookMode::Deny, json!([]));
    let slot = SpareSlot::default();
    slot.refill(&argv);
    let spare = slot.spare_id().expect("a spare waits");
    let call = &session_calls("/repo", "s-begin", "src/a.go")[0];
    let begun = slot.begin(true, &argv, call, HookLimits::default());
    // Nobody finishes the exchange yet: the envelope was handed over by `begin` itself.
    let record = wait_for_hook_record(dir.path(), spare);
    assert_eq!(
        record["envelope"],
        serde_json::to_value(call).expect("envelope")
    );
    let run = slot.finish(begun);
    assert_eq!(run.failure, None);
    assert!(matches!(outcome(&run.decision), HookOutcome::Block { .. }));
    assert_eq!(serde_json::to_value(&run.decision).expect("decision"), {
        let decision: Value = serde_json::from_str(record["decision"].as_str().expect("text"))
            .expect("the decision the spare wrote");
        decision
    });
    assert_eq!(slot.counts().used, 1);
}

#[test]
fn an_envelope_larger_than_the_pipe_reaches_the_spare_whole() {
    let dir = temp_dir();
    let argv = simulator_argv(dir.path(), HookMode::Deny, json!([]));
    let slot = SpareSlot::default();
    slot.refill(&argv);
    let spare = slot.spare_id().expect("a spare waits");
    // 256 KiB: more than a pipe takes at once, so the finishing thread writes the rest.
    let text = "x".repeat(256 * 1024);
    let call = envelope_for_tool_call(
        "bash",
        &json!({ "command": format!("echo {text}") }),
        &context("/repo", "s-large"),
        |_| None,
    );
    let run = slot.run_blocking(&argv, &call);
    assert_eq!(run.failure, None);
    let record = wait_for_hook_record(dir.path(), spare);
    assert_eq!(
        record["envelope"],
        serde_json::to_value(&call).expect("envelope")
    );
    assert_eq!(slot.counts().used, 1);
}

#[test]
fn a_call_that_may_not_use_the_spare_spawns_fresh_and_ends_the_spare() {
    let dir = temp_dir();
    let argv = simulator_argv(dir.path(), HookMode::Deny, json!([]));
    let slot = SpareSlot::default();
    slot.refill(&argv);
    let spare = slot.spare_id().expect("a spare waits");
    let call = &session_calls("/repo", "s-off", "src/a.go")[0];
    let run = slot.finish(slot.begin(false, &argv, call, HookLimits::default()));
    assert_eq!(run.failure, None);
    assert!(matches!(outcome(&run.decision), HookOutcome::Block { .. }));
    let counts = slot.counts();
    assert_eq!((counts.used, counts.ended, counts.alive), (0, 1, 0));
    assert!(!alive(spare), "the spare was killed and reaped");
    assert_eq!(slot.spare_id(), None);
    let hooks: Vec<Value> = log_records(&dir.path().join("log.jsonl"))
        .into_iter()
        .filter(|r| r["ev"] == "hook")
        .collect();
    assert_eq!(hooks.len(), 1, "{hooks:?}");
    assert_ne!(hooks[0]["pid"], spare, "a fresh spawn answered");
}

/// Waits until the child `pid` has exited, leaving it to be reaped by its owner.
fn wait_for_exit(pid: u32) {
    let pid = libc::id_t::from(pid);
    // SAFETY: `info` is a zeroed siginfo_t the call fills; WNOWAIT leaves the child unreaped.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    // SAFETY: as above; the pointer is to a live local.
    let waited =
        unsafe { libc::waitid(libc::P_PID, pid, &mut info, libc::WEXITED | libc::WNOWAIT) };
    assert_eq!(waited, 0, "{}", std::io::Error::last_os_error());
}

/// Whether `pid` names a process, a zombie included (not yet reaped by us).
fn alive(pid: u32) -> bool {
    let pid = libc::pid_t::try_from(pid).expect("pid");
    // SAFETY: signal 0 only checks that the process exists.
    unsafe { libc::kill(pid, 0) == 0 }
}

/// Whether `pid` is a process that has not exited (an unreaped zombie has: after its host's
/// death the spare's reaper is whoever adopts it).
fn running(pid: u32) -> bool {
    if cfg!(target_os = "linux") {
        return std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|stat| {
                stat.rsplit_once(')')
                    .map(|(_, rest)| rest.trim_start().to_string())
            })
            .is_some_and(|rest| !rest.starts_with('Z'));
    }
    alive(pid)
}

/// Gortex's own hook handler: `GORTEX_UPSTREAM_HOOK` (set by the Makefile), else where
/// `make gortex-hook` puts it.
fn upstream_hook() -> PathBuf {
    let path = std::env::var_os("GORTEX_UPSTREAM_HOOK")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/gortex-upstream/bin/gortex-hook")
        });
    assert!(
        path.is_file(),
        "{} is missing: run `make gortex-hook`",
        path.display()
    );
    path
}

/// A repository with one Go file, fake-gortex's daemon socket tracking it, and a HOME for
/// Gortex's own hook; the daemon ends with the workspace.
struct Upstream {
    dir: tempfile::TempDir,
    repo: PathBuf,
    daemon: Child,
}

impl Upstream {
    fn new() -> Self {
        let dir = temp_dir();
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).expect("repo");
        write_file(
            &repo.join("src/app.go"),
            "package app\n\nfunc renderWidget() {}\n\nfunc Serve() {}\n",
        );
        let mut daemon = Command::new(fake_gortex())
            .args(["daemon", "serve"])
            .current_dir(&repo)
            .env("GORTEX_DAEMON_SOCKET", dir.path().join("d.sock"))
            .env("FAKE_GORTEX_LOG", dir.path().join("daemon.log"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("daemon serve");
        let mut ready = String::new();
        BufReader::new(daemon.stdout.take().expect("stdout"))
            .read_line(&mut ready)
            .expect("daemon ready line");
        assert!(ready.contains("\"ready\":true"), "daemon serve: {ready:?}");
        Upstream { dir, repo, daemon }
    }

    /// The CFG-8 argv through the relay, with its own HOME (the handler's session state).
    fn argv(&self, mode: HookMode, home: &str) -> Vec<String> {
        let dir = self.dir.path();
        std::fs::create_dir_all(dir.join(home)).expect("home");
        let mut argv = vec![
            "/usr/bin/env".to_string(),
            format!(
                "FAKE_GORTEX_LOG={}",
                dir.join(format!("{home}.log")).display()
            ),
            format!("FAKE_GORTEX_UPSTREAM_HOOK={}", upstream_hook().display()),
            format!("FAKE_GORTEX_HOOK_HOME={}", dir.join(home).display()),
            format!("GORTEX_DAEMON_SOCKET={}", dir.join("d.sock").display()),
        ];
        argv.extend(hook_argv(fake_gortex().to_str().expect("utf8"), mode));
        argv
    }

    /// `home`'s log holds `runs` hook runs, each answered by Gortex's own handler: the relay
    /// writes `upstream_answered` before a run's `hook` record only once the handler exited
    /// with its answer.
    fn all_answered_upstream(&self, home: &str, runs: usize) {
        let log = log_records(&self.dir.path().join(format!("{home}.log")));
        let hooks: Vec<&Value> = log.iter().filter(|r| r["ev"] == "hook").collect();
        assert_eq!(hooks.len(), runs, "{log:#?}");
        for hook in hooks {
            let answered = log
                .iter()
                .filter(|r| r["ev"] == "upstream_answered" && r["pid"] == hook["pid"])
                .count();
            assert_eq!(
                answered, 1,
                "run {} was not answered: {log:#?}",
                hook["pid"]
            );
        }
    }
}

impl Drop for Upstream {
    fn drop(&mut self) {
        drop(self.daemon.stdin.take());
        let _ = self.daemon.wait();
    }
}

#[test]
fn gortex_own_hooks_decisions_are_the_same_with_and_without_the_spare() {
    let ws = Upstream::new();
    let repo = ws.repo.to_str().expect("utf8").to_string();
    for mode in [
        HookMode::Deny,
        HookMode::Enrich,
        HookMode::ConsultUnlock,
        HookMode::Nudge,
    ] {
        // Each side has its own HOME, so the handler's session state starts empty for both.
        let (fresh_home, spare_home) = (format!("fresh-{mode:?}"), format!("spare-{mode:?}"));
        let calls = session_calls(&repo, "s-upstream", "src/app.go");
        let fresh = fresh_decisions(&ws.argv(mode, &fresh_home), &calls);
        let slot = SpareSlot::default();
        let spared = spare_decisions(&slot, &ws.argv(mode, &spare_home), &calls);
        assert_eq!(spared, fresh, "{mode:?}");
        assert!(
            fresh.iter().any(|d| d != &json!({})),
            "{mode:?}: Gortex's hook had decisions to compare: {fresh:?}"
        );
        assert_eq!(slot.counts().used, calls.len());
        slot.close();
        ws.all_answered_upstream(&fresh_home, calls.len());
        ws.all_answered_upstream(&spare_home, calls.len());
    }
}

#[test]
fn refills_racing_each_other_start_one_spare() {
    let dir = temp_dir();
    let argv = simulator_argv(dir.path(), HookMode::Deny, json!([]));
    let slot = SpareSlot::default();
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| slot.refill(&argv));
        }
    });
    let spare = slot.spare_id().expect("a spare waits");
    slot.refill(&argv);
    assert_eq!(slot.spare_id(), Some(spare), "a waiting spare is kept");
    let counts = slot.counts();
    assert_eq!((counts.started, counts.alive, counts.peak), (1, 1, 1));
}

/// The host side of the next test: a process that keeps a spare, says its pid, and waits to be
/// killed. Runs only when that test starts it.
#[test]
#[ignore = "a helper process of a_spare_ends_when_its_host_is_killed"]
fn spare_host_helper() {
    let Some(dir) = std::env::var_os("SPARE_HOST_DIR") else {
        return;
    };
    let argv = simulator_argv(Path::new(&dir), HookMode::Deny, json!([]));
    let slot = SpareSlot::default();
    slot.refill(&argv);
    println!("spare {}", slot.spare_id().expect("a spare waits"));
    loop {
        std::thread::park();
    }
}

#[test]
fn a_spare_ends_when_its_host_is_killed() {
    let dir = temp_dir();
    let mut host = Command::new(std::env::current_exe().expect("test binary"))
        .args(["--exact", "spare_host_helper", "--ignored", "--nocapture"])
        .env("SPARE_HOST_DIR", dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("host");
    let mut lines = BufReader::new(host.stdout.take().expect("stdout")).lines();
    let spare: u32 = lines
        .find_map(|line| line.ok()?.strip_prefix("spare ")?.parse().ok())
        .expect("the host's spare");
    assert!(alive(spare));
    // SIGKILL: the host runs no code of ours on the way out, as when Pi is killed.
    host.kill().expect("kill the host");
    host.wait().expect("reap the host");
    // The spare's stdin closed with its host: it reads the end, answers nobody and exits.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while running(spare) {
        assert!(
            std::time::Instant::now() < deadline,
            "the spare {spare} outlived its host"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}
