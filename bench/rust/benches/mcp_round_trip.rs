//! Tool-call round trip over a pipe to fake-gortex (`tools/call` through the
//! own client the glue calls: request framing, stdin write, child, reader task,
//! routing, settlement, result text), against a raw line echo over a pipe to `cat` in the same
//! run. Criterion reports the means; p50/p99 are printed from a separate
//! sampling pass.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use pi_gortex_runtime::mcp::own_client::{OwnClient, OwnClientConfig};
use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{ChildStdin, ChildStdout, Command};

/// fake-gortex: `FAKE_GORTEX_BIN`, else built in release next to this bench.
fn fake_gortex() -> PathBuf {
    if let Some(bin) = std::env::var_os("FAKE_GORTEX_BIN") {
        return bin.into();
    }
    let exe = std::env::current_exe().expect("bench exe");
    let target = exe.ancestors().nth(3).expect("target dir").to_path_buf();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let status = std::process::Command::new(std::env::var_os("CARGO").unwrap_or("cargo".into()))
        .args(["build", "-q", "--release", "-p", "fake-gortex"])
        .env("CARGO_TARGET_DIR", &target)
        .current_dir(root)
        .status()
        .expect("cargo runs");
    assert!(status.success());
    target.join("release/fake-gortex")
}

struct Echo {
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    line: String,
    _child: tokio::process::Child,
}

impl Echo {
    fn spawn() -> Self {
        Self::spawn_command(Command::new("cat"))
    }

    /// fake-gortex spoken to with raw lines: the server's own cost.
    async fn spawn_fake(bin: &PathBuf) -> Self {
        let mut command = Command::new(bin);
        command.arg("mcp");
        let mut fake = Self::spawn_command(command);
        fake.round_trip(br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pi","version":"1.0.0"}}}
"#).await;
        fake.stdin
            .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
            .await
            .unwrap();
        fake
    }

    fn spawn_command(mut command: Command) -> Self {
        let mut child = command
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("cat");
        Self {
            stdin: child.stdin.take().unwrap(),
            stdout: BufReader::new(child.stdout.take().unwrap()),
            line: String::new(),
            _child: child,
        }
    }

    async fn round_trip(&mut self, frame: &[u8]) {
        self.stdin.write_all(frame).await.unwrap();
        self.line.clear();
        self.stdout.read_line(&mut self.line).await.unwrap();
    }
}

const REQUEST: &[u8] = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search","arguments":{"operation":"text","query":"handle"}}}
"#;

/// One call as the glue makes it: registered name, arguments, outcome text.
async fn tool_call(own_client: &OwnClient) {
    let outcome = own_client
        .call_tool(
            "search",
            json!({"operation": "text", "query": "handle"}),
            None,
        )
        .await
        .unwrap();
    assert!(!outcome.text.is_empty());
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let bin = fake_gortex();
    let mut config = OwnClientConfig::new(&bin);
    config.launch_daemon = false;
    let own_client = OwnClient::new(config);
    let mut raw_fake = runtime.block_on(Echo::spawn_fake(&bin));
    runtime
        .block_on(own_client.start())
        .expect("fake-gortex handshake");
    let mut echo = {
        let _context = runtime.enter();
        Echo::spawn()
    };

    let mut group = c.benchmark_group("mcp_round_trip");
    group
        .sample_size(50)
        .measurement_time(Duration::from_secs(4));
    group.bench_function("raw_line_echo_cat", |b| {
        b.iter(|| runtime.block_on(echo.round_trip(REQUEST)))
    });
    group.bench_function("raw_line_fake_gortex", |b| {
        b.iter(|| runtime.block_on(raw_fake.round_trip(REQUEST)))
    });
    group.bench_function("tool_call_fake_gortex", |b| {
        b.iter(|| runtime.block_on(tool_call(&own_client)))
    });
    group.finish();

    let samples = 5_000;
    let measure = |label: &str, run: &mut dyn FnMut()| {
        let mut times: Vec<Duration> = (0..samples)
            .map(|_| {
                let started = Instant::now();
                run();
                started.elapsed()
            })
            .collect();
        times.sort();
        let (p50, p99) = (percentile(&times, 0.50), percentile(&times, 0.99));
        println!("mcp_round_trip/{label}: p50 {p50:?} p99 {p99:?} ({samples} samples)");
        (p50, p99)
    };
    let (echo_p50, _) = measure("raw_line_echo_cat", &mut || {
        runtime.block_on(echo.round_trip(REQUEST))
    });
    measure("raw_line_fake_gortex", &mut || {
        runtime.block_on(raw_fake.round_trip(REQUEST))
    });
    let (call_p50, _) = measure("tool_call_fake_gortex", &mut || {
        runtime.block_on(tool_call(&own_client))
    });
    println!(
        "mcp_round_trip: tool call p50 / echo p50 = {:.2}x",
        call_p50.as_secs_f64() / echo_p50.as_secs_f64()
    );
    runtime.block_on(own_client.stop());
}

criterion_group!(benches, bench);
criterion_main!(benches);
