//! Framing + dispatch throughput of the own MCP client's inbound path
//! (FrameDecoder + route), against the floor measured in the same run: a
//! plain memchr split of the whole contiguous input plus `serde_json::from_slice`
//! of each line, once into the same narrow envelope and once into a `Value`.
//! The router reads a response's text in the same pass (it unescapes what the
//! own client will show), which the narrow envelope skips: that floor bounds the
//! routing alone, the `Value` floor the whole of what the router does.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use pi_gortex_runtime::mcp::call_result::take_call_result;
use pi_gortex_runtime::mcp::envelope::Envelope;
use pi_gortex_runtime::mcp::framing::FrameDecoder;
use pi_gortex_runtime::mcp::routing::{route, Routed};
use std::time::Duration;

/// One response frame of exactly `size` bytes (newline excluded) whose text
/// has the escapes a GCX reply carries.
fn frame(id: usize, size: usize) -> Vec<u8> {
    let head =
        format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":""#);
    let tail = r#""}],"isError":false}}"#;
    let mut bytes = head.into_bytes();
    let pattern = br#"fn handle(req) -> \"ok\"\n  calls: 3, refs: 12\t"#;
    while bytes.len() + pattern.len() <= size - tail.len() {
        bytes.extend_from_slice(pattern);
    }
    while bytes.len() < size - tail.len() {
        bytes.push(b'x');
    }
    bytes.extend_from_slice(tail.as_bytes());
    assert_eq!(bytes.len(), size);
    bytes
}

fn workload(count: usize, size: usize) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(count * (size + 1));
    for id in 0..count {
        bytes.extend_from_slice(&frame(id + 1, size));
        bytes.push(b'\n');
    }
    bytes
}

/// Ours: chunked input through the decoder and the router.
fn decode_and_route(bytes: &[u8], chunk: usize) -> usize {
    let mut decoder = FrameDecoder::default();
    let mut responses = 0;
    for piece in bytes.chunks(chunk) {
        decoder
            .push(piece, |frame| {
                if let Routed::Response {
                    outcome: Ok(raw), ..
                } = route(frame)
                {
                    responses += black_box(raw.json().len()).min(1);
                }
            })
            .expect("under the cap");
    }
    responses
}

/// Ours up to what the own client hands on: the decoder, the router and the
/// call result's reading (the text each call shows), for the comparison with
/// a reading that happens after routing.
fn decode_route_and_read(bytes: &[u8], chunk: usize) -> usize {
    let mut decoder = FrameDecoder::default();
    let mut text = 0;
    for piece in bytes.chunks(chunk) {
        decoder
            .push(piece, |frame| {
                if let Routed::Response {
                    outcome: Ok(mut raw),
                    ..
                } = route(frame)
                {
                    text += black_box(take_call_result(&mut raw).text.len());
                }
            })
            .expect("under the cap");
    }
    text
}

/// Floor: contiguous input, memchr split, from_slice into the narrow envelope.
fn floor_envelope(bytes: &[u8]) -> usize {
    let mut start = 0;
    let mut parsed = 0;
    for newline in memchr::memchr_iter(b'\n', bytes) {
        if black_box(Envelope::parse(&bytes[start..newline])).is_some() {
            parsed += 1;
        }
        start = newline + 1;
    }
    parsed
}

/// Floor: contiguous input, memchr split, from_slice into a `Value`.
fn floor_value(bytes: &[u8]) -> usize {
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

fn bench(c: &mut Criterion) {
    let workloads = [
        ("100000x300B_64KiB_chunks", 100_000, 300, 64 * 1024),
        ("200x64KiB_4KiB_chunks", 200, 64 * 1024, 4 * 1024),
        ("4x16MiB_64KiB_chunks", 4, 16 * 1024 * 1024, 64 * 1024),
    ];
    for (name, count, size, chunk) in workloads {
        let bytes = workload(count, size);
        assert_eq!(decode_and_route(&bytes, chunk), count);
        assert_eq!(floor_envelope(&bytes), count);
        let mut group = c.benchmark_group(format!("mcp_framing/{name}"));
        group
            .throughput(Throughput::Bytes(bytes.len() as u64))
            .sample_size(10)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(3));
        group.bench_function("ours_decoder_route", |b| {
            b.iter(|| decode_and_route(black_box(&bytes), chunk))
        });
        group.bench_function("ours_decoder_route_read", |b| {
            b.iter(|| decode_route_and_read(black_box(&bytes), chunk))
        });
        group.bench_function("floor_memchr_envelope", |b| {
            b.iter(|| floor_envelope(black_box(&bytes)))
        });
        group.bench_function("floor_memchr_value", |b| {
            b.iter(|| floor_value(black_box(&bytes)))
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
