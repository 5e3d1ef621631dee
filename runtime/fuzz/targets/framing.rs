//! NDJSON framing (MCP-6, MCP-7) under arbitrary chunk splits.
//!
//! Input: a control byte (bit 7 clear: a small cap of `(c & 0x7f) * 3 + 1`
//! bytes, so the overflow path is reachable; set: the real 64 MiB cap), two
//! seed bytes for the chunk sizes, then the stream. The stream is decoded
//! three ways (seeded random chunks, one byte at a time, one chunk) and
//! every way must equal a one-shot reference split: the same non-blank
//! lines, the same overflow verdict, the same buffered tail. Every frame
//! then goes through the envelope router, as the client does.

use pi_gortex_runtime::mcp::envelope::Envelope;
use pi_gortex_runtime::mcp::framing::{FrameDecoder, FramingError, MAX_FRAME_BYTES};

use super::input::{control, Chooser};

/// Longest stream still decoded one byte at a time (keeps execs fast).
const BYTEWISE_LIMIT: usize = 512;

/// What a stream decodes to.
#[derive(Debug, PartialEq, Eq)]
struct Decoded {
    frames: Vec<Vec<u8>>,
    overflow: bool,
    /// Bytes held for an unterminated frame (only meaningful without overflow).
    tail: usize,
}

fn is_blank(line: &[u8]) -> bool {
    line.iter()
        .all(|byte| matches!(byte, b' ' | b'\t' | b'\r' | b'\n'))
}

/// The spec read literally, on the whole stream at once.
fn reference(stream: &[u8], cap: usize) -> Decoded {
    let mut frames = Vec::new();
    let mut pieces: Vec<&[u8]> = stream.split(|byte| *byte == b'\n').collect();
    let tail = pieces.pop().unwrap_or_default();
    for line in pieces {
        if line.len() > cap {
            return Decoded {
                frames,
                overflow: true,
                tail: 0,
            };
        }
        if !is_blank(line) {
            frames.push(line.to_vec());
        }
    }
    let overflow = tail.len() > cap;
    Decoded {
        frames,
        overflow,
        tail: if overflow { 0 } else { tail.len() },
    }
}

fn decode<'a>(cap: usize, chunks: impl Iterator<Item = &'a [u8]>) -> Decoded {
    let mut decoder = FrameDecoder::new(cap);
    let mut frames = Vec::new();
    for chunk in chunks {
        let pushed = decoder.push(chunk, |frame| frames.push(frame.into_owned()));
        if let Err(FramingError::FrameTooLarge { limit }) = pushed {
            assert_eq!(limit, cap);
            assert_eq!(decoder.buffered_bytes(), 0, "overflow drops the buffer");
            return Decoded {
                frames,
                overflow: true,
                tail: 0,
            };
        }
        assert!(
            decoder.buffered_bytes() <= cap,
            "buffer never exceeds the cap"
        );
    }
    Decoded {
        frames,
        overflow: false,
        tail: decoder.buffered_bytes(),
    }
}

/// Seeded chunk sizes, including empty chunks.
fn random_chunks(stream: &[u8], seed: u16) -> Vec<&[u8]> {
    let mut chooser = Chooser::new(seed);
    let mut chunks = Vec::new();
    let mut rest = stream;
    while !rest.is_empty() {
        let size = chooser.below(rest.len().min(64) + 1);
        let (chunk, after) = rest.split_at(size);
        chunks.push(chunk);
        rest = after;
    }
    chunks
}

/// Decodes `data` (see the module doc) and checks every split agrees.
pub fn run(data: &[u8]) {
    let Some((mode, rest)) = control(data) else {
        return;
    };
    if rest.len() < 2 {
        return;
    }
    let seed = u16::from_le_bytes([rest[0], rest[1]]);
    let stream = &rest[2..];
    let cap = if mode & 0x80 == 0 {
        usize::from(mode & 0x7f) * 3 + 1
    } else {
        MAX_FRAME_BYTES
    };

    let expected = reference(stream, cap);
    let chunked = decode(cap, random_chunks(stream, seed).into_iter());
    assert_eq!(chunked, expected, "seeded chunks, cap {cap}");
    if stream.len() <= BYTEWISE_LIMIT {
        let bytewise = decode(cap, stream.chunks(1));
        assert_eq!(bytewise, expected, "byte by byte, cap {cap}");
    }
    let whole = decode(cap, std::iter::once(stream));
    assert_eq!(whole, expected, "one chunk, cap {cap}");

    for frame in &expected.frames {
        if let Some(envelope) = Envelope::parse(frame) {
            let _ = envelope.classify();
        }
    }
}
