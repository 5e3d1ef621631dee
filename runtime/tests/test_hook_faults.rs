//! HOOK-1..HOOK-3 against fake-gortex: the run is asynchronous, bounded and
//! fails open. Every fault gives the empty decision and a recorded reason.

// Its hooks are `/usr/bin/env` and `/bin/sh` command lines and it measures
// CPU time with getrusage; the Windows exchange is tested in
// test_hook_windows.rs.
#![cfg(unix)]

mod common_config;
mod script_file;

use std::path::Path;
use std::time::Duration;

use common_config::{fake_gortex, scenario, temp_dir};
use pi_gortex_runtime::hook::{
    empty_decision, envelope_for_tool_call, outcome, run, EnvelopeContext, HookEvent, HookFailure,
    HookOutcome, HookRun,
};
use serde_json::{json, Value};

/// A Read of an indexed source file: fake-gortex denies it in `deny` mode.
fn read_envelope() -> HookEvent {
    envelope_for_tool_call(
        "read",
        &json!({"path":"src/a.go"}),
        &EnvelopeContext {
            cwd: "/repo".into(),
            session_id: "s1".into(),
        },
        |_| None,
    )
}

/// The hook argv with the scenario and log passed through `env`, so tests
/// never mutate the test process's environment.
fn argv(dir: &Path, faults: Value) -> Vec<String> {
    let scenario = scenario(dir, &json!({"faults": faults}));
    vec![
        "/usr/bin/env".into(),
        format!("FAKE_GORTEX_SCENARIO={}", scenario.display()),
        format!("FAKE_GORTEX_LOG={}", dir.join("log.jsonl").display()),
        format!("FAKE_GORTEX_STATE={}", dir.display()),
        fake_gortex().display().to_string(),
        "hook".into(),
        "--agent=pi".into(),
    ]
}

async fn run_with(faults: Value) -> (HookRun, tempfile::TempDir) {
    let dir = temp_dir();
    let run = run(&argv(dir.path(), faults), &read_envelope()).await;
    (run, dir)
}

fn assert_failed_open(run: &HookRun) {
    assert_eq!(run.decision, empty_decision());
    assert_eq!(outcome(&run.decision), HookOutcome::None);
    assert!(run.failure.is_some());
}

#[tokio::test]
async fn healthy_hook_blocks_an_indexed_read() {
    let (run, dir) = run_with(json!([])).await;
    assert_eq!(run.failure, None);
    match outcome(&run.decision) {
        HookOutcome::Block { reason } => {
            assert!(
                reason.starts_with("[Gortex] BLOCKED: Read of src/a.go"),
                "{reason}"
            )
        }
        other => panic!("expected a block, got {other:?}"),
    }
    // The hook received the envelope exactly as serialized.
    let log = std::fs::read_to_string(dir.path().join("log.jsonl")).expect("log");
    let hook = log
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|rec| rec["ev"] == "hook")
        .expect("hook record");
    assert_eq!(
        hook["envelope"],
        serde_json::to_value(read_envelope()).expect("json")
    );
}

#[tokio::test]
async fn timeout_kills_the_child_and_leaves_nothing_behind() {
    let (run, dir) = run_with(json!([{"kind":"hook_timeout","delay_ms":8000}])).await;
    assert_failed_open(&run);
    assert_eq!(run.failure, Some(HookFailure::Timeout { limit_ms: 5000 }));
    assert!(
        run.latency >= Duration::from_millis(5000),
        "{:?}",
        run.latency
    );
    assert!(
        run.latency < Duration::from_millis(7000),
        "{:?}",
        run.latency
    );
    let log = std::fs::read_to_string(dir.path().join("log.jsonl")).expect("log");
    let pid = log
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|rec| rec["ev"] == "start" && rec["verb"] == "hook")
        .and_then(|rec| rec["pid"].as_i64())
        .expect("start record with pid");
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists(),
        "hook child {pid} still exists after the run"
    );
    assert!(
        !log.contains("\"ev\":\"exit\""),
        "the child never finished on its own"
    );
}

#[tokio::test]
async fn garbage_null_and_arrays_fail_open() {
    for (stdout, expected) in [
        ("not json", "invalid_json"),
        ("null", "not_an_object"),
        ("[]", "not_an_object"),
        ("", "empty_output"),
    ] {
        let (run, _dir) = run_with(json!([{"kind":"hook_garbage","stdout":stdout}])).await;
        assert_failed_open(&run);
        let kind = serde_json::to_value(run.failure.as_ref().expect("failure")).expect("json")
            ["kind"]
            .clone();
        assert_eq!(kind, expected, "{stdout:?}");
    }
}

#[tokio::test]
async fn wrong_typed_fields_are_ignored_not_failures() {
    let (run, _dir) =
        run_with(json!([{"kind":"hook_garbage","stdout":"{\"block\":\"yes\",\"reason\":5}"}]))
            .await;
    assert_eq!(run.failure, None);
    assert_eq!(run.decision, empty_decision());
}

#[tokio::test]
async fn non_zero_exit_ignores_a_valid_deny() {
    let (run, _dir) = run_with(json!([{"kind":"hook_exit","exit_code":3}])).await;
    assert_failed_open(&run);
    assert_eq!(
        run.failure,
        Some(HookFailure::ExitStatus {
            status: "exit status: 3".into()
        })
    );
}

#[tokio::test]
async fn twenty_mib_of_output_is_cut_off() {
    let (run, _dir) = run_with(json!([{"kind":"hook_huge","bytes": 20 * 1024 * 1024}])).await;
    assert_failed_open(&run);
    assert_eq!(
        run.failure,
        Some(HookFailure::OutputTooLarge {
            limit_bytes: 16 * 1024 * 1024
        })
    );
}

#[tokio::test]
async fn stderr_noise_does_not_disturb_the_decision() {
    let (run, _dir) =
        run_with(json!([{"kind":"hook_stderr","text":"panic: something loud\n"}])).await;
    assert_eq!(run.failure, None);
    assert!(matches!(outcome(&run.decision), HookOutcome::Block { .. }));
}

#[tokio::test]
async fn missing_binary_and_empty_argv_fail_open() {
    let missing = run(
        &[
            "/nonexistent/gortex".to_string(),
            "hook".into(),
            "--agent=pi".into(),
        ],
        &read_envelope(),
    )
    .await;
    assert_failed_open(&missing);
    match missing.failure {
        Some(HookFailure::Spawn { program, .. }) => assert_eq!(program, "/nonexistent/gortex"),
        other => panic!("expected a spawn failure, got {other:?}"),
    }
    let empty = run(&[], &read_envelope()).await;
    assert_failed_open(&empty);
    assert_eq!(empty.failure, Some(HookFailure::EmptyArgv));
}

#[tokio::test(flavor = "current_thread")]
async fn hook_runs_do_not_block_the_runtime() {
    // HOOK-2: on a single-threaded runtime, a hook that takes 1.5 s is in
    // flight while another task ticks ten times. A run that blocked the
    // thread (a synchronous spawn) would finish the hook the first time it
    // is polled, before the ticker's second tick.
    let dir = temp_dir();
    let slow = argv(dir.path(), json!([{"kind":"hook_timeout","delay_ms":1500}]));
    let envelope = read_envelope();
    let hook = tokio::spawn(async move { run(&slow, &envelope).await });
    for tick in 0..10 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(
            !hook.is_finished(),
            "the hook finished before tick {tick}: it ran on the runtime's thread"
        );
    }
    let hook = hook.await.expect("hook task");
    assert!(hook.latency >= Duration::from_millis(1500));
}

#[tokio::test]
async fn timeout_also_kills_what_a_wrapper_script_started() {
    // A `gortex` shim that runs the real binary without `exec`: the kill
    // must reach the grandchild too, or it would linger after the run.
    let dir = temp_dir();
    let pid_file = dir.path().join("grandchild.pid");
    let shim = dir.path().join("gortex");
    script_file::write_executable(
        &shim,
        &format!(
            "#!/bin/sh\nsleep 30 &\necho $! > {}\nwait\n",
            pid_file.display()
        ),
    );
    let limits = pi_gortex_runtime::hook::HookLimits {
        timeout: Duration::from_millis(500),
        ..Default::default()
    };
    let run = pi_gortex_runtime::hook::run_with_limits(
        &[
            shim.display().to_string(),
            "hook".into(),
            "--agent=pi".into(),
        ],
        &read_envelope(),
        limits,
    )
    .await;
    assert_eq!(run.failure, Some(HookFailure::Timeout { limit_ms: 500 }));
    let pid = std::fs::read_to_string(&pid_file).expect("grandchild pid");
    let pid: i32 = pid.trim().parse().expect("pid");
    // Once killed, the grandchild is gone or a zombie waiting for whoever
    // inherited it (not every container's init reaps promptly).
    let gone = (0..50).any(|_| {
        std::thread::sleep(Duration::from_millis(20));
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => true,
            Ok(stat) => stat
                .rsplit_once(')')
                .is_some_and(|(_, rest)| rest.trim_start().starts_with(['Z', 'X'])),
        }
    });
    assert!(gone, "grandchild {pid} still alive");
}

#[tokio::test]
async fn a_hook_that_never_reads_its_input_is_still_cut_off_at_the_timeout() {
    // The envelope (a 1 MiB edit) is larger than a pipe holds, and the hook
    // never reads it: only a non-blocking write lets the timeout fire while
    // the envelope is still being written.
    let big = "x".repeat(1024 * 1024);
    let envelope = envelope_for_tool_call(
        "write",
        &json!({"path": "src/a.go", "content": big}),
        &EnvelopeContext {
            cwd: "/repo".into(),
            session_id: "s1".into(),
        },
        |_| None,
    );
    let limits = pi_gortex_runtime::hook::HookLimits {
        timeout: Duration::from_millis(300),
        ..Default::default()
    };
    let started = std::time::Instant::now();
    let run = pi_gortex_runtime::hook::run_with_limits(
        &["/bin/sh".into(), "-c".into(), "exec sleep 20".into()],
        &envelope,
        limits,
    )
    .await;
    assert_eq!(run.failure, Some(HookFailure::Timeout { limit_ms: 300 }));
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "cut off at the timeout, not when the hook exited: {:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_megabyte_envelope_reaches_the_hook_whole() {
    // Larger than a pipe holds: the envelope goes out in many non-blocking
    // writes, each resumed after EAGAIN, never cut short.
    let dir = temp_dir();
    let big = "y".repeat(1024 * 1024);
    let envelope = envelope_for_tool_call(
        "read",
        &json!({"path": "src/a.go", "note": big}),
        &EnvelopeContext {
            cwd: "/repo".into(),
            session_id: "s1".into(),
        },
        |_| None,
    );
    let run = run(&argv(dir.path(), json!([])), &envelope).await;
    assert_eq!(run.failure, None);
    assert!(matches!(outcome(&run.decision), HookOutcome::Block { .. }));
    let log = std::fs::read_to_string(dir.path().join("log.jsonl")).expect("log");
    let hook = log
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|rec| rec["ev"] == "hook")
        .expect("the hook parsed the envelope");
    assert_eq!(
        hook["envelope"]["tool_input"]["note"]
            .as_str()
            .map(str::len),
        Some(1024 * 1024)
    );
}

/// A hook that prints `output` (all of it in one write) after reading its
/// input, run with a stdout cap of `cap` bytes.
async fn run_printing(output: &str, cap: usize) -> HookRun {
    let limits = pi_gortex_runtime::hook::HookLimits {
        stdout_cap: cap,
        ..Default::default()
    };
    let argv = [
        "/bin/sh".into(),
        "-c".into(),
        r#"cat >/dev/null; printf %s "$0""#.into(),
        output.into(),
    ];
    pi_gortex_runtime::hook::run_with_limits(&argv, &read_envelope(), limits).await
}

#[tokio::test]
async fn output_of_exactly_the_cap_is_read_and_one_byte_more_is_cut_off() {
    // HOOK-2: the cap is the most a hook may print, inclusive. The whole
    // answer arrives in one read, so a cap check that only fired on an exact
    // match, or one that refused the cap itself, would each fail one half.
    let answer = r#"{"block":true,"reason":"use gortex"}"#;
    let at_cap = run_printing(answer, answer.len()).await;
    assert_eq!(
        at_cap.failure, None,
        "{answer:?} fits a cap of its own length"
    );
    assert_eq!(
        outcome(&at_cap.decision),
        HookOutcome::Block {
            reason: "use gortex".into()
        }
    );

    let over = run_printing(answer, answer.len() - 1).await;
    assert_failed_open(&over);
    assert_eq!(
        over.failure,
        Some(HookFailure::OutputTooLarge {
            limit_bytes: answer.len() - 1
        })
    );
}

/// Runs the hook on this thread and checks HOOK-2's "never spins": the run
/// succeeds, lasts at least `min_wall` (the hook's own pause) and costs this
/// thread under 150 ms of CPU over it (a busy loop would cost about the whole
/// pause). `what` names the wait in the failure message.
#[cfg(target_os = "linux")]
fn run_without_spinning(
    argv: &[String],
    envelope: &HookEvent,
    min_wall: Duration,
    what: &str,
) -> HookRun {
    let before = thread_cpu_time();
    let started = std::time::Instant::now();
    let run = pi_gortex_runtime::hook::run_blocking(argv, envelope);
    let (wall, cpu) = (started.elapsed(), thread_cpu_time() - before);
    assert_eq!(run.failure, None);
    assert!(wall >= min_wall, "{what}: {wall:?}");
    assert!(
        cpu < Duration::from_millis(150),
        "{what} burnt {cpu:?} of CPU over {wall:?}"
    );
    run
}

/// A hook that is a shell script; the answer it prints is its `$0`.
fn sh_hook(script: &str, answer: &str) -> [String; 4] {
    ["/bin/sh".into(), "-c".into(), script.into(), answer.into()]
}

/// CPU time this thread has used (user + system); RUSAGE_THREAD is Linux's.
#[cfg(target_os = "linux")]
fn thread_cpu_time() -> Duration {
    // SAFETY: getrusage fills the struct we pass and touches nothing else.
    let usage = unsafe {
        let mut usage = std::mem::zeroed::<libc::rusage>();
        libc::getrusage(libc::RUSAGE_THREAD, &mut usage);
        usage
    };
    let micros = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    Duration::from_micros(micros(usage.ru_utime) + micros(usage.ru_stime))
}

#[cfg(target_os = "linux")]
#[test]
fn waiting_for_a_hook_that_lingers_after_answering_does_not_spin() {
    // HOOK-2: the hook runs on one of Pi's blocking threads. A hook that
    // closes stdout and lingers a second before exiting is waited for on a
    // pidfd, not by polling try_wait in a loop: the thread sleeps meanwhile.
    idle_a_second(
        r#"cat >/dev/null; printf %s "$0"; exec 1>&-; sleep 1"#,
        "the wait for the exit",
    );
}

#[cfg(target_os = "linux")]
#[test]
fn waiting_for_a_late_answer_after_the_envelope_is_written_does_not_spin() {
    // HOOK-2: once the envelope is written, stdin is closed and its slot in
    // poll(2) holds a negative descriptor, which poll skips. The thread then
    // sleeps in poll until the answer arrives a second later. (Any other
    // descriptor there, say this process's stdout, is always writable: the
    // loop would wake at once, every time, for that whole second.)
    idle_a_second(
        r#"cat >/dev/null; sleep 1; printf %s "$0""#,
        "the exchange waiting for the answer",
    );
}

/// A blocking hook `script` that keeps the exchange waiting about a second
/// (its answer is `$0`) must leave the thread asleep for it: `what` waited.
#[cfg(target_os = "linux")]
fn idle_a_second(script: &str, what: &str) {
    let argv = sh_hook(script, r#"{"block":true,"reason":"r"}"#);
    run_without_spinning(&argv, &read_envelope(), Duration::from_millis(900), what);
}

#[cfg(target_os = "linux")]
#[test]
fn a_signal_handled_during_the_exchange_does_not_end_it() {
    // A signal handled on the thread that waits in poll(2) (Pi's, or any
    // library's: SIGCHLD, SIGWINCH) makes poll return EINTR. That means
    // "poll again", not a failed hook: the answer that follows still counts.
    extern "C" fn handled(_: libc::c_int) {}
    // SAFETY: a zeroed sigaction with an empty mask and a handler that does
    // nothing; SIGUSR1 is used by nothing else in this test binary.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = handled as extern "C" fn(libc::c_int) as usize;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGUSR1, &action, std::ptr::null_mut());
    }
    // SAFETY: pthread_self has no preconditions. The handle crosses to the
    // signalling thread as an address because musl's pthread_t is a raw
    // pointer (not Send) where glibc's is an integer.
    let waiter = unsafe { libc::pthread_self() } as usize;
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let signaller = {
        let done = done.clone();
        std::thread::spawn(move || {
            let mut sent = 0;
            while !done.load(std::sync::atomic::Ordering::SeqCst) && sent < 5 {
                std::thread::sleep(Duration::from_millis(100));
                // SAFETY: the waiting thread outlives this one (joined below).
                unsafe { libc::pthread_kill(waiter as libc::pthread_t, libc::SIGUSR1) };
                sent += 1;
            }
            sent
        })
    };
    let argv = sh_hook(
        r#"cat >/dev/null; sleep 0.8; printf %s "$0""#,
        r#"{"block":true,"reason":"after signals"}"#,
    );
    let run = pi_gortex_runtime::hook::run_blocking(&argv, &read_envelope());
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    let sent = signaller.join().expect("the signalling thread");
    assert!(sent >= 3, "signals sent during the exchange: {sent}");
    assert_eq!(run.failure, None);
    assert_eq!(
        outcome(&run.decision),
        HookOutcome::Block {
            reason: "after signals".into()
        }
    );
}

#[cfg(target_os = "linux")]
#[test]
fn a_hook_that_closes_its_input_unread_is_not_written_to_again() {
    // A hook that closes stdin without reading makes the next write fail
    // with EPIPE (the envelope is larger than a pipe holds, so a write is
    // still pending). That ends the writing: stdin leaves the poll set. A
    // loop that kept the broken pipe would wake on its POLLERR at once,
    // every time, for as long as the hook's stdout stays open (here a
    // second, held by a background sleep).
    let big = "z".repeat(1024 * 1024);
    let envelope = envelope_for_tool_call(
        "read",
        &json!({"path": "src/a.go", "note": big}),
        &EnvelopeContext {
            cwd: "/repo".into(),
            session_id: "s1".into(),
        },
        |_| None,
    );
    let argv = sh_hook(
        r#"exec 0<&-; printf %s "$0"; sleep 1"#,
        r#"{"block":true,"reason":"unread"}"#,
    );
    let run = run_without_spinning(
        &argv,
        &envelope,
        Duration::from_millis(900),
        "the exchange reading to EOF",
    );
    assert_eq!(
        outcome(&run.decision),
        HookOutcome::Block {
            reason: "unread".into()
        }
    );
}

#[cfg(unix)]
fn never_readable_pipe() -> (std::os::fd::OwnedFd, std::os::fd::OwnedFd) {
    use std::os::fd::FromRawFd;
    let mut fds = [0; 2];
    // SAFETY: pipe(2) fills the two-element array with new descriptors.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: both descriptors were just created for this test alone.
    unsafe {
        (
            std::os::fd::OwnedFd::from_raw_fd(fds[0]),
            std::os::fd::OwnedFd::from_raw_fd(fds[1]),
        )
    }
}

#[cfg(unix)]
#[test]
fn a_poll_that_times_out_is_not_taken_for_readiness() {
    // poll(2) returning 0 means "nothing yet": the wait goes on to the
    // deadline and then reports it passed, never "ready".
    use std::os::fd::AsRawFd;
    let (read_end, _write_end) = never_readable_pipe();
    let mut fds = [libc::pollfd {
        fd: read_end.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    }];
    let started = std::time::Instant::now();
    let ready = pi_gortex_runtime::hook::exchange::poll_until_for_tests(
        &mut fds,
        started + Duration::from_millis(50),
    );
    assert_eq!(ready, Ok(false));
    assert!(started.elapsed() >= Duration::from_millis(50));
}

#[cfg(unix)]
#[test]
fn a_failing_poll_is_an_io_failure_at_once_not_a_wait() {
    // poll(2) fails with EINVAL when asked about more descriptors than
    // RLIMIT_NOFILE allows: an error other than EINTR ends the wait now.
    // SAFETY: getrlimit fills the struct it is given.
    let mut limit: libc::rlimit = unsafe { std::mem::zeroed() };
    assert_eq!(
        unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) },
        0
    );
    let Some(count) = usize::try_from(limit.rlim_cur)
        .ok()
        .and_then(|soft| soft.checked_add(1))
        .filter(|count| *count <= 1 << 24)
    else {
        eprintln!("RLIMIT_NOFILE too high to exceed here; not tested");
        return;
    };
    let mut fds = vec![
        libc::pollfd {
            fd: -1,
            events: 0,
            revents: 0
        };
        count
    ];
    let started = std::time::Instant::now();
    let result = pi_gortex_runtime::hook::exchange::poll_until_for_tests(
        &mut fds,
        started + Duration::from_secs(3),
    );
    assert!(
        matches!(result, Err(HookFailure::Io { .. })),
        "poll of {count} descriptors: {result:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(1));
}

#[tokio::test]
async fn an_answer_followed_by_a_pause_before_exit_is_read_whole() {
    // The answer is read as it arrives; with the hook still running, the
    // next read finds the pipe empty (EAGAIN), which means "poll again", not
    // a failure. The pipe closes when the hook exits 200 ms later.
    let argv = sh_hook(
        r#"cat >/dev/null; printf %s "$0"; sleep 0.2"#,
        r#"{"block":true,"reason":"later"}"#,
    );
    let run = run(&argv, &read_envelope()).await;
    assert_eq!(run.failure, None);
    assert_eq!(
        outcome(&run.decision),
        HookOutcome::Block {
            reason: "later".into()
        }
    );
}
