//! Peak extra memory of the inbound path for one 16 MiB frame, measured with
//! a counting global allocator: framing + routing alone, and with the
//! result decoded and its text extracted, as `call_tool` does.

use std::sync::atomic::Ordering;

use pi_gortex_runtime::mcp::call_result::take_call_result;
use pi_gortex_runtime::mcp::framing::FrameDecoder;
use pi_gortex_runtime::mcp::routing::{route, Routed};
use pi_gortex_runtime::mcp::tools::model_text;

#[path = "../../../runtime/tests/support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::{Counting, LIVE, PEAK};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const FRAME: usize = 16 * 1024 * 1024;
const CHUNK: usize = 64 * 1024;

fn frame() -> Vec<u8> {
    let head = br#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":""#;
    let tail = br#""}],"isError":false}}"#;
    let mut bytes = Vec::with_capacity(FRAME + 1);
    bytes.extend_from_slice(head);
    let pattern = br#"fn handle(req) -> \"ok\"\n  calls: 3, refs: 12\t"#;
    while bytes.len() + pattern.len() <= FRAME - tail.len() {
        bytes.extend_from_slice(pattern);
    }
    bytes.resize(FRAME - tail.len(), b'x');
    bytes.extend_from_slice(tail);
    bytes.push(b'\n');
    bytes
}

/// Peak bytes allocated above the baseline while `work` runs.
fn peak_extra(work: impl FnOnce()) -> usize {
    let baseline = LIVE.load(Ordering::SeqCst);
    PEAK.store(baseline, Ordering::SeqCst);
    work();
    PEAK.load(Ordering::SeqCst) - baseline
}

fn main() {
    let input = frame();
    let framing_only = peak_extra(|| {
        let mut decoder = FrameDecoder::default();
        for chunk in input.chunks(CHUNK) {
            decoder
                .push(chunk, |frame| {
                    let Routed::Response {
                        outcome: Ok(raw), ..
                    } = route(frame)
                    else {
                        panic!("a response");
                    };
                    assert!(raw.json().len() > FRAME - 100);
                })
                .unwrap();
        }
    });
    let with_text = peak_extra(|| {
        let mut decoder = FrameDecoder::default();
        let mut text_len = 0;
        for chunk in input.chunks(CHUNK) {
            decoder
                .push(chunk, |frame| {
                    let Routed::Response {
                        outcome: Ok(raw), ..
                    } = route(frame)
                    else {
                        panic!("a response");
                    };
                    let result: serde_json::Value = raw.decode().unwrap();
                    drop(raw);
                    text_len = model_text(&result).len();
                })
                .unwrap();
        }
        assert!(text_len > 0);
    });
    let with_lazy_text = peak_extra(|| {
        let mut decoder = FrameDecoder::default();
        let mut text_len = 0;
        for chunk in input.chunks(CHUNK) {
            decoder
                .push(chunk, |frame| {
                    let Routed::Response {
                        outcome: Ok(mut raw),
                        ..
                    } = route(frame)
                    else {
                        panic!("a response");
                    };
                    text_len = take_call_result(&mut raw).text.len();
                })
                .unwrap();
        }
        assert!(text_len > 0);
    });
    let ratio = |bytes: usize| bytes as f64 / FRAME as f64;
    println!("mcp_memory: one 16 MiB frame in 64 KiB chunks");
    println!(
        "  framing + routing:                  peak extra {:>10} B = {:.3}x the frame",
        framing_only,
        ratio(framing_only)
    );
    println!(
        "  + decode to Value + extract text:   peak extra {:>10} B = {:.3}x the frame",
        with_text,
        ratio(with_text)
    );
    println!(
        "  + read_call_result (call_tool path): peak extra {:>10} B = {:.3}x the frame",
        with_lazy_text,
        ratio(with_lazy_text)
    );
}
