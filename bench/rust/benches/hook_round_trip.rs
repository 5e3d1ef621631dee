//! Hook round trip through the runtime (`hook::run`: async spawn, envelope
//! on stdin, capped read, decision parse) against a bare spawn-and-wait of
//! the same fake-gortex hook with the same envelope, in the same run.
//! Goal: runtime p50 <= 1.1x the bare spawn.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use pi_gortex_runtime::hook::{self, envelope_for_tool_call, EnvelopeContext, HookEvent};
use serde_json::json;

/// fake-gortex next to this bench's profile dir, built there if missing.
fn fake_gortex() -> PathBuf {
    let exe = std::env::current_exe().expect("bench path");
    let profile = exe
        .parent()
        .and_then(Path::parent)
        .expect("profile dir")
        .to_path_buf();
    let path = profile.join("fake-gortex");
    if !path.is_file() {
        let target = profile.parent().expect("target dir");
        let status = Command::new(env!("CARGO"))
            .args(["build", "-q", "--release", "-p", "fake-gortex"])
            .env("CARGO_TARGET_DIR", target)
            .status()
            .expect("cargo build fake-gortex");
        assert!(status.success());
    }
    path
}

fn envelope() -> HookEvent {
    envelope_for_tool_call(
        "read",
        &json!({"path": "src/a.go"}),
        &EnvelopeContext {
            cwd: "/repo".into(),
            session_id: "bench".into(),
        },
        |_| None,
    )
}

/// The baseline: what any caller must pay to run the hook once.
fn bare_spawn_and_wait(argv: &[String], stdin_bytes: &[u8]) -> Vec<u8> {
    let mut child = Command::new(&argv[0])
        .args(&argv[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(stdin_bytes).expect("write");
    drop(stdin);
    let mut out = Vec::new();
    child
        .stdout
        .take()
        .expect("stdout")
        .read_to_end(&mut out)
        .expect("read");
    child.wait().expect("wait");
    out
}

fn bench(c: &mut Criterion) {
    let argv = vec![
        fake_gortex().display().to_string(),
        "hook".to_string(),
        "--agent=pi".to_string(),
    ];
    let event = envelope();
    let bytes = serde_json::to_vec(&event).expect("json");
    // Sanity: both paths get the same (blocking) answer.
    let baseline = bare_spawn_and_wait(&argv, &bytes);
    assert!(String::from_utf8_lossy(&baseline).contains("\"block\":true"));

    let current = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let multi = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let run = current.block_on(hook::run(&argv, &event));
    assert_eq!(run.failure, None);
    assert_eq!(run.decision.block, Some(true));

    interleaved_p50(&argv, &event, &bytes, &current, &multi);

    let mut group = c.benchmark_group("hook_round_trip");
    group
        .sample_size(60)
        .measurement_time(Duration::from_secs(12));
    group.bench_function("bare_spawn_and_wait", |b| {
        b.iter(|| bare_spawn_and_wait(&argv, &bytes))
    });
    group.bench_function("runtime_current_thread", |b| {
        b.iter(|| current.block_on(hook::run(&argv, &event)))
    });
    group.bench_function("runtime_multi_thread", |b| {
        b.iter(|| multi.block_on(hook::run(&argv, &event)))
    });
    group.finish();
}

/// Alternates the three variants call by call, so machine load hits them
/// alike, and prints each p50 and the runtime/bare ratios.
fn interleaved_p50(
    argv: &[String],
    event: &HookEvent,
    bytes: &[u8],
    current: &tokio::runtime::Runtime,
    multi: &tokio::runtime::Runtime,
) {
    const ROUNDS: usize = 300;
    let mut samples: [Vec<Duration>; 3] = Default::default();
    for _ in 0..ROUNDS {
        let started = std::time::Instant::now();
        bare_spawn_and_wait(argv, bytes);
        samples[0].push(started.elapsed());
        let started = std::time::Instant::now();
        current.block_on(hook::run(argv, event));
        samples[1].push(started.elapsed());
        let started = std::time::Instant::now();
        multi.block_on(hook::run(argv, event));
        samples[2].push(started.elapsed());
    }
    let p50 = |samples: &mut Vec<Duration>| {
        samples.sort();
        samples[samples.len() / 2]
    };
    let [bare, cur, mul] = samples.each_mut().map(p50);
    eprintln!(
        "interleaved p50 over {ROUNDS} rounds: bare {bare:?}, runtime current-thread {cur:?} ({:.3}x), runtime multi-thread {mul:?} ({:.3}x)",
        cur.as_secs_f64() / bare.as_secs_f64(),
        mul.as_secs_f64() / bare.as_secs_f64()
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
