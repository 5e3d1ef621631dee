//! MCP-7 memory bound: framing and routing one 16 MiB frame that arrives in
//! 64 KiB chunks, its text read on the way, allocates at most 2x the frame:
//! the accumulated buffer grows by half rather than doubling and is handed
//! to the response without a copy, and the text is unescaped once, into its
//! final string, never through serde's scratch buffer. Measured
//! with a counting global allocator; this binary holds only this test so no
//! other thread allocates meanwhile.

use std::sync::atomic::Ordering;

use pi_gortex_runtime::mcp::call_result::take_call_result;
use pi_gortex_runtime::mcp::framing::FrameDecoder;
use pi_gortex_runtime::mcp::routing::{route, Routed};

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::{Counting, LIVE, PEAK};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const FRAME: usize = 16 * 1024 * 1024;

#[test]
fn mcp_7_one_16_mib_frame_costs_at_most_2x_its_size_to_frame_and_route() {
    let head = br#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":""#;
    let tail = br#""}]}}"#;
    let mut input = Vec::with_capacity(FRAME + 1);
    input.extend_from_slice(head);
    // GCX-like text: escapes every few bytes, so unescaping shrinks it.
    let pattern = br#"fn handle(req) -> \"ok\"\n  calls: 3\t"#;
    while input.len() + pattern.len() <= FRAME - tail.len() {
        input.extend_from_slice(pattern);
    }
    input.resize(FRAME - tail.len(), b'x');
    input.extend_from_slice(tail);
    input.push(b'\n');

    let baseline = LIVE.load(Ordering::SeqCst);
    PEAK.store(baseline, Ordering::SeqCst);
    let mut decoder = FrameDecoder::default();
    let mut routed = 0;
    for chunk in input.chunks(64 * 1024) {
        decoder
            .push(chunk, |frame| {
                if let Routed::Response {
                    id: 1,
                    outcome: Ok(raw),
                } = route(frame)
                {
                    routed = raw.json().len();
                }
            })
            .unwrap();
    }
    let extra = PEAK.load(Ordering::SeqCst) - baseline;
    // The result is the whole frame but the envelope's 34 bytes around it.
    assert_eq!(
        routed,
        FRAME - r#"{"jsonrpc":"2.0","id":1,"result":"#.len() - 1
    );
    assert!(
        extra <= 2 * FRAME,
        "peak extra {extra} B is {:.2}x the frame",
        extra as f64 / FRAME as f64
    );

    // The tool-call path also reads the text out (TOOL-6): still within 2x.
    let baseline = LIVE.load(Ordering::SeqCst);
    PEAK.store(baseline, Ordering::SeqCst);
    let mut decoder = FrameDecoder::default();
    let mut text_len = 0;
    for chunk in input.chunks(64 * 1024) {
        decoder
            .push(chunk, |frame| {
                if let Routed::Response {
                    outcome: Ok(mut raw),
                    ..
                } = route(frame)
                {
                    text_len = take_call_result(&mut raw).text.len();
                }
            })
            .unwrap();
    }
    let extra = PEAK.load(Ordering::SeqCst) - baseline;
    assert!(text_len > FRAME / 2);
    assert!(
        extra <= 2 * FRAME,
        "text path peak extra {extra} B is {:.2}x the frame",
        extra as f64 / FRAME as f64
    );
}
