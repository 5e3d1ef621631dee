//! Criterion figures for the diff engine (DIFF-12, DIFF-13): our
//! `generateDiffString` on four benchmark inputs, plus the cost of a
//! search that runs into `MAX_DIFF_STEPS` (the most a refused diff costs).
//!
//! With `DIFF_BENCH_INPUTS=<dir>` the inputs are read from `<id>.old` /
//! `<id>.new` there (the files `bench/node/diff.mjs` timed Pi on);
//! without it, inputs of the same shapes are generated here.
//!
//! With `DIFF_BENCH_RAW=<runs>` the binary skips criterion and prints one
//! JSON object `{case: [ms, ...]}` of `<runs>` plain timings per case:
//! diff.mjs interleaves such rounds with Pi's, so both sides see the same
//! machine load (the development machine is shared).

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{criterion_group, BenchmarkId, Criterion};
use pi_gortex_runtime::diff::budget::MAX_DIFF_STEPS;
use pi_gortex_runtime::diff::engine::diff_lines;
use pi_gortex_runtime::diff::format::generate_diff_string;

const CASES: [&str; 4] = [
    "a_2000_lines_5_edits",
    "b_1mib_50_edits",
    "c_1mib_2000_edits",
    "d_rewrite_5000_lines",
];

/// xorshift64*, so generated inputs are the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Source-like lines with some repeated structural lines (`}` and blanks).
fn code_line(rng: &mut Rng, tag: &str, i: usize) -> String {
    let roll = rng.unit();
    if roll < 0.08 {
        "}".into()
    } else if roll < 0.14 {
        String::new()
    } else {
        let indent = "    ".repeat(1 + (rng.next() % 3) as usize);
        let pad = "x".repeat((rng.next() % 24) as usize);
        format!(
            "{indent}let {tag}{i} = compute({}, \"{pad}\");",
            rng.next() % 1_000_000
        )
    }
}

fn code_lines(rng: &mut Rng, count: usize, tag: &str) -> Vec<String> {
    (0..count).map(|i| code_line(rng, tag, i)).collect()
}

fn lines_for_bytes(rng: &mut Rng, bytes: usize, tag: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut size = 0;
    for i in 0.. {
        let line = code_line(rng, tag, i);
        if size + line.len() + 1 > bytes {
            break;
        }
        size += line.len() + 1;
        out.push(line);
    }
    out
}

/// `edits` evenly spread, jittered edits: replace, insert or delete a line.
fn scatter(rng: &mut Rng, base: &[String], edits: usize) -> Vec<String> {
    let mut out = base.to_vec();
    let step = out.len() as f64 / edits as f64;
    for e in (0..edits).rev() {
        let at = ((e as f64 * step + rng.unit() * step * 0.5) as usize).min(out.len() - 1);
        match e % 3 {
            0 => out[at] = format!("    edited({e}, {});", rng.next() % 1_000_000),
            1 => out.insert(at, format!("    inserted({e});")),
            _ => {
                out.remove(at);
            }
        }
    }
    out
}

fn join(lines: &[String]) -> String {
    lines.join("\n") + "\n"
}

fn generated(id: &str) -> (String, String) {
    let mut rng = Rng(0xbe7c4);
    match id {
        "a_2000_lines_5_edits" => {
            let a = code_lines(&mut rng, 2000, "a");
            (join(&a), join(&scatter(&mut rng, &a, 5)))
        }
        "b_1mib_50_edits" => {
            let b = lines_for_bytes(&mut rng, 1024 * 1024 - 1, "b");
            (join(&b), join(&scatter(&mut rng, &b, 50)))
        }
        "c_1mib_2000_edits" => {
            let c = lines_for_bytes(&mut rng, 1024 * 1024 - 1, "c");
            (join(&c), join(&scatter(&mut rng, &c, 2000)))
        }
        _ => (
            join(&code_lines(&mut rng, 5000, "d")),
            join(&code_lines(&mut rng, 5000, "w")),
        ),
    }
}

fn inputs(id: &str) -> (String, String) {
    match std::env::var_os("DIFF_BENCH_INPUTS") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            let read = |ext: &str| {
                std::fs::read_to_string(dir.join(format!("{id}.{ext}")))
                    .unwrap_or_else(|e| panic!("{id}.{ext} in {}: {e}", dir.display()))
            };
            (read("old"), read("new"))
        }
        None => generated(id),
    }
}

fn bench_generate_diff_string(c: &mut Criterion) {
    let mut group = c.benchmark_group("generate_diff_string");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(4));
    for id in CASES {
        let (old, new) = inputs(id);
        group.bench_with_input(
            BenchmarkId::from_parameter(id),
            &(old, new),
            |b, (old, new)| {
                b.iter(|| generate_diff_string(black_box(old), black_box(new), u64::MAX))
            },
        );
    }
    group.finish();
}

/// The longest any diff may run: a whole rewrite of a ~1 MiB file, which
/// the search abandons at `MAX_DIFF_STEPS`.
fn bench_step_limit(c: &mut Criterion) {
    let mut rng = Rng(7);
    let old = join(&lines_for_bytes(&mut rng, 1024 * 1024 - 1, "o"));
    let new = join(&lines_for_bytes(&mut rng, 1024 * 1024 - 1, "n"));
    let mut group = c.benchmark_group("budget");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(4));
    group.bench_function("at_step_limit", |b| {
        b.iter(|| {
            let outcome = diff_lines(black_box(&old), black_box(&new), MAX_DIFF_STEPS);
            assert!(outcome.is_err(), "the rewrite must reach the limit");
        })
    });
    group.finish();
}

/// `DIFF_BENCH_RAW` mode: plain wall-clock timings, as JSON on stdout.
fn raw_timings(runs: usize) {
    let mut fields = Vec::new();
    for id in CASES {
        let (old, new) = inputs(id);
        let _ = generate_diff_string(&old, &new, u64::MAX); // warm-up
        let times: Vec<String> = (0..runs.max(1))
            .map(|_| {
                let start = std::time::Instant::now();
                black_box(generate_diff_string(
                    black_box(&old),
                    black_box(&new),
                    u64::MAX,
                ))
                .ok();
                format!("{:.4}", start.elapsed().as_secs_f64() * 1e3)
            })
            .collect();
        fields.push(format!("\"{id}\":[{}]", times.join(",")));
    }
    println!("{{{}}}", fields.join(","));
}

criterion_group!(benches, bench_generate_diff_string, bench_step_limit);

fn main() {
    if let Some(runs) = std::env::var("DIFF_BENCH_RAW")
        .ok()
        .and_then(|r| r.parse().ok())
    {
        raw_timings(runs);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
