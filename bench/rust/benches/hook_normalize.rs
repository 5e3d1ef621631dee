//! Normalization of one Pi tool call into a hook envelope, no spawn
//! (HOOK-5..9). Goal: <= 2 us. Also measured with the JSON serialization
//! that goes to the hook's stdin.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use pi_gortex_runtime::hook::{envelope_for_tool_call, EnvelopeContext};
use serde_json::json;

fn bench(c: &mut Criterion) {
    let context = EnvelopeContext {
        cwd: "/home/dev/repo".into(),
        session_id: "01a229b5-042f-7456-9654-522c6a609810".into(),
    };
    let read = json!({"path": "src/server/handler.go", "offset": 120, "limit": 80});
    let bash = json!({"command": "grep -rn 'func Handle' src/", "timeout": 30});
    let graph = json!({"operation": "source", "target": {"file": "src/a.go", "symbol": "Handle"}});
    let registry = |name: &str| (name == "gortex_read").then_some("read");

    let mut group = c.benchmark_group("hook_normalize");
    group.bench_function("read_envelope", |b| {
        b.iter(|| envelope_for_tool_call(black_box("read"), black_box(&read), &context, |_| None))
    });
    group.bench_function("bash_envelope", |b| {
        b.iter(|| envelope_for_tool_call(black_box("bash"), black_box(&bash), &context, |_| None))
    });
    group.bench_function("graph_alias_envelope", |b| {
        b.iter(|| {
            envelope_for_tool_call(
                black_box("gortex_read"),
                black_box(&graph),
                &context,
                registry,
            )
        })
    });
    group.bench_function("read_envelope_to_stdin_bytes", |b| {
        b.iter(|| {
            let envelope =
                envelope_for_tool_call(black_box("read"), black_box(&read), &context, |_| None);
            serde_json::to_vec(&envelope).expect("json")
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
