//! A 16 MiB `tools/call` result through the own client's inbound path and
//! the output limit (FrameDecoder + route + text read + MCP-33 cut, the full
//! text not saved), against the floor of the same run: a memchr split of the
//! contiguous input plus `serde_json::from_slice` into a `Value`. A counting
//! allocator reports the peak memory each path adds over its input.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use pi_gortex_runtime::mcp::call_result::take_call_result;
use pi_gortex_runtime::mcp::framing::FrameDecoder;
use pi_gortex_runtime::mcp::output_limit::{
    limited_text, save_full_output, truncate_middle, FullOutput, MCP_OUTPUT_MAX_BYTES,
};
use pi_gortex_runtime::mcp::routing::{route, Routed};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            let live = LIVE.fetch_add(new_size - layout.size(), Ordering::Relaxed)
                + (new_size - layout.size());
            PEAK.fetch_max(live, Ordering::Relaxed);
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const SIZE: usize = 16 * 1024 * 1024;
const CHUNK: usize = 64 * 1024;

/// One response line of `size` bytes whose text has the escapes a GCX reply carries.
fn frame(size: usize) -> Vec<u8> {
    let head = br#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":""#;
    let tail = b"\"}],\"isError\":false}}";
    let mut bytes = head.to_vec();
    let pattern = br#"fn handle(req) -> \"ok\"\n  calls: 3, refs: 12\t"#;
    while bytes.len() + pattern.len() <= size - tail.len() {
        bytes.extend_from_slice(pattern);
    }
    bytes.resize(size - tail.len(), b'x');
    bytes.extend_from_slice(tail);
    bytes.push(b'\n');
    bytes
}

/// Ours: chunked input, decoder, router, the text read, the MCP-33 cut.
fn ours(bytes: &[u8]) -> usize {
    let mut decoder = FrameDecoder::default();
    let mut out = 0;
    for piece in bytes.chunks(CHUNK) {
        decoder
            .push(piece, |frame| {
                if let Routed::Response {
                    outcome: Ok(mut raw),
                    ..
                } = route(frame)
                {
                    let read = take_call_result(&mut raw);
                    let text = match truncate_middle(&read.text, MCP_OUTPUT_MAX_BYTES) {
                        Some(cut) => limited_text(&cut, &FullOutput::NotSaved),
                        None => read.text,
                    };
                    out += black_box(text).len();
                }
            })
            .expect("under the cap");
    }
    out
}

/// Floor: contiguous input, memchr split, from_slice into a `Value`.
fn floor(bytes: &[u8]) -> usize {
    let mut start = 0;
    let mut parsed = 0;
    for newline in memchr::memchr_iter(b'\n', bytes) {
        if black_box(serde_json::from_slice::<serde_json::Value>(
            &bytes[start..newline],
        ))
        .is_ok()
        {
            parsed += 1;
        }
        start = newline + 1;
    }
    parsed
}

/// Peak bytes allocated over what was live before `run`.
fn peak_extra(run: impl FnOnce() -> usize) -> usize {
    let before = LIVE.load(Ordering::SeqCst);
    PEAK.store(before, Ordering::SeqCst);
    black_box(run());
    PEAK.load(Ordering::SeqCst) - before
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// Ours and the floor one after the other, round after round, so a change
/// of load on a shared machine weighs on both alike; then, reported apart,
/// writing the full text to the temp file as `limit_text` does when saving
/// (disk work the floor has no counterpart for).
fn interleaved(bytes: &[u8]) {
    const ROUNDS: usize = 21;
    let (mut ours_times, mut floor_times, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let start = Instant::now();
        black_box(ours(black_box(bytes)));
        let mine = start.elapsed();
        let start = Instant::now();
        black_box(floor(black_box(bytes)));
        let base = start.elapsed();
        ours_times.push(mine);
        floor_times.push(base);
        ratios.push(mine.as_secs_f64() / base.as_secs_f64());
    }
    ratios.sort_by(f64::total_cmp);
    let text = read_text(bytes);
    let mut saves = Vec::new();
    for _ in 0..5 {
        let start = Instant::now();
        let saved = save_full_output(&text);
        saves.push(start.elapsed());
        if let FullOutput::Saved(path) = saved {
            let _ = std::fs::remove_file(path);
        }
    }
    eprintln!(
        "mcp_truncation/16MiB interleaved, medians of {ROUNDS} rounds: ours {:.1} ms, floor {:.1} ms, ours/floor {:.2} (median of the per-round ratios); saving the {} B full text apart: {:.1} ms",
        median(ours_times).as_secs_f64() * 1e3,
        median(floor_times).as_secs_f64() * 1e3,
        ratios[ROUNDS / 2],
        text.len(),
        median(saves).as_secs_f64() * 1e3,
    );
}

/// The full text of the bench's frame, read the way `ours` reads it.
fn read_text(bytes: &[u8]) -> String {
    let mut decoder = FrameDecoder::default();
    let mut text = String::new();
    decoder
        .push(bytes, |frame| {
            if let Routed::Response {
                outcome: Ok(mut raw),
                ..
            } = route(frame)
            {
                text = take_call_result(&mut raw).text;
            }
        })
        .expect("under the cap");
    text
}

fn bench(c: &mut Criterion) {
    let bytes = frame(SIZE);
    assert!(ours(&bytes) <= MCP_OUTPUT_MAX_BYTES + 200);
    assert_eq!(floor(&bytes), 1);
    let (ours_peak, floor_peak) = (peak_extra(|| ours(&bytes)), peak_extra(|| floor(&bytes)));
    eprintln!(
        "mcp_truncation/16MiB peak extra memory: ours {ours_peak} B ({:.2}x input), floor {floor_peak} B ({:.2}x input), ours/floor {:.2}",
        ours_peak as f64 / SIZE as f64,
        floor_peak as f64 / SIZE as f64,
        ours_peak as f64 / floor_peak as f64,
    );
    interleaved(&bytes);
    let mut group = c.benchmark_group("mcp_truncation/16MiB_64KiB_chunks");
    group
        .throughput(Throughput::Bytes(bytes.len() as u64))
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    group.bench_function("ours_decoder_route_read_cut", |b| {
        b.iter(|| ours(black_box(&bytes)))
    });
    group.bench_function("floor_memchr_value", |b| {
        b.iter(|| floor(black_box(&bytes)))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
