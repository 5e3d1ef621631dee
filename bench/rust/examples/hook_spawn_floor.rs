//! The hook's per-call floor for `make bench-session`: p50 of a bare spawn-and-wait of the hook
//! binary (std `Command`, envelope on stdin, read stdout to EOF, wait) against p50 of the
//! runtime's hook exchange (`hook::run` on a multi-thread tokio runtime, as the addon runs it),
//! the hook's own decision time (a process started ahead and past its start-up: envelope in,
//! stdin closed, stdout read to EOF, exit), and the exchange on the session's warm spare
//! (`SpareSlot`, refilled after each answer as the extension does), interleaved call by call.
//! Prints one JSON object.
//!
//! Usage: `hook_spawn_floor <gortex binary> [samples]`; `HOOK_FLOOR_GAP_MS` (default 100) is the
//! untimed pause before each timed run.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use pi_gortex_runtime::hook::{self, envelope_for_tool_call, EnvelopeContext};
use serde_json::json;

fn bare_spawn_and_wait(argv: &[String], envelope: &[u8]) {
    let mut child = Command::new(&argv[0])
        .args(&argv[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the hook binary");
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(envelope);
    }
    let mut out = Vec::new();
    if let Some(mut stdout) = child.stdout.take() {
        let _ = stdout.read_to_end(&mut out);
    }
    let _ = child.wait();
}

/// A hook process started now, to answer later.
fn started_ahead(argv: &[String]) -> std::process::Child {
    Command::new(&argv[0])
        .args(&argv[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the hook binary")
}

/// The decision of a process already past its start-up: what a call on a spare cannot beat.
fn decide(mut child: std::process::Child, envelope: &[u8]) {
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(envelope);
    }
    let mut out = Vec::new();
    if let Some(mut stdout) = child.stdout.take() {
        let _ = stdout.read_to_end(&mut out);
    }
    let _ = child.wait();
}

fn p50_ms(mut xs: Vec<Duration>) -> f64 {
    xs.sort();
    xs[xs.len() / 2].as_secs_f64() * 1000.0
}

fn main() {
    let mut args = std::env::args().skip(1);
    let bin = args
        .next()
        .expect("usage: hook_spawn_floor <gortex binary> [samples]");
    let samples: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(200);
    let argv = vec![bin, "hook".to_string(), "--agent=pi".to_string()];
    // A graph call: the hook answers `{}` at once, the commonest case in a session.
    let event = envelope_for_tool_call(
        "search",
        &json!({"operation": "symbols", "query": "Hello"}),
        &EnvelopeContext {
            cwd: std::env::current_dir()
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
            session_id: "bench".into(),
        },
        |name| (name == "search").then_some("search"),
    );
    let envelope = serde_json::to_vec(&event).expect("envelope serializes");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let current = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let (mut bare, mut exchange, mut exchange_current) = (Vec::new(), Vec::new(), Vec::new());
    let (mut decision, mut spare) = (Vec::new(), Vec::new());
    // The untimed pause before each timed run: the process started ahead and the spare get past
    // their start-up, no start-up competes with a timed run, and each run starts from idle as a
    // tool call after the model's turn does.
    let gap = Duration::from_millis(
        std::env::var("HOOK_FLOOR_GAP_MS")
            .ok()
            .and_then(|ms| ms.parse().ok())
            .unwrap_or(100),
    );
    let slot = hook::SpareSlot::default();
    slot.refill(&argv);
    let mut ahead = started_ahead(&argv);
    for _ in 0..samples {
        std::thread::sleep(gap);
        let started = Instant::now();
        bare_spawn_and_wait(&argv, &envelope);
        bare.push(started.elapsed());
        std::thread::sleep(gap);
        let started = Instant::now();
        let run = runtime.block_on(hook::run(&argv, &event));
        exchange.push(started.elapsed());
        assert!(run.failure.is_none(), "hook failed: {:?}", run.failure);
        std::thread::sleep(gap);
        let started = Instant::now();
        let run = current.block_on(hook::run(&argv, &event));
        exchange_current.push(started.elapsed());
        assert!(run.failure.is_none(), "hook failed: {:?}", run.failure);
        std::thread::sleep(gap);
        let started = Instant::now();
        decide(ahead, &envelope);
        decision.push(started.elapsed());
        std::thread::sleep(gap);
        let started = Instant::now();
        let run = slot.run_blocking(&argv, &event);
        spare.push(started.elapsed());
        assert!(run.failure.is_none(), "hook failed: {:?}", run.failure);
        slot.refill(&argv);
        ahead = started_ahead(&argv);
    }
    decide(ahead, &envelope);
    let counts = slot.counts();
    assert_eq!(
        counts.used, samples,
        "every spare call took the spare: {counts:?}"
    );
    slot.close();
    println!(
        "{}",
        json!({
            "samples": samples,
            "bare_p50_ms": p50_ms(bare),
            "exchange_p50_ms": p50_ms(exchange),
            "exchange_current_thread_p50_ms": p50_ms(exchange_current),
            "decision_p50_ms": p50_ms(decision),
            "spare_p50_ms": p50_ms(spare),
        })
    );
}
