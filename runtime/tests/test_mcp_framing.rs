//! MCP-6, MCP-7 at the framing level: a stream decodes the same however it is
//! chunked, blank lines are skipped, and the cap is counted in bytes.

use pi_gortex_runtime::mcp::framing::{FrameDecoder, FramingError, MAX_FRAME_BYTES};

fn stream() -> Vec<u8> {
    let mut bytes = Vec::new();
    bytes.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"t\":\"caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80\"}}\n");
    bytes.extend_from_slice(b"\n\r\n   \n");
    bytes.extend_from_slice(b"not json\n");
    bytes.extend_from_slice(
        b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\r\n",
    );
    bytes.extend_from_slice(b"{\"a\":\"");
    bytes.extend(std::iter::repeat_n(b'x', 3000));
    bytes.extend_from_slice(b"\"}\n{\"id\":2,\"result\":{}}");
    bytes
}

fn decode(chunks: &[&[u8]]) -> (Vec<Vec<u8>>, usize) {
    let mut decoder = FrameDecoder::default();
    let mut frames = Vec::new();
    for chunk in chunks {
        decoder
            .push(chunk, |frame| frames.push(frame.into_owned()))
            .expect("under the cap");
    }
    (frames, decoder.buffered_bytes())
}

#[test]
fn mcp_6_a_frame_split_at_every_byte_boundary_decodes_the_same() {
    let bytes = stream();
    let whole = decode(&[&bytes]);
    assert_eq!(whole.0.len(), 4, "blank lines are skipped");
    assert_eq!(
        whole.1,
        "{\"id\":2,\"result\":{}}".len(),
        "the unterminated tail waits"
    );
    for cut in 0..=bytes.len() {
        let (left, right) = bytes.split_at(cut);
        assert_eq!(decode(&[left, right]), whole, "cut at {cut}");
    }
    for second in (0..bytes.len()).step_by(7) {
        for first in (0..second).step_by(13) {
            let chunks = [&bytes[..first], &bytes[first..second], &bytes[second..]];
            assert_eq!(decode(&chunks), whole, "cuts at {first} and {second}");
        }
    }
    let bytewise: Vec<&[u8]> = bytes.chunks(1).collect();
    assert_eq!(decode(&bytewise), whole);
}

#[test]
fn mcp_6_a_multibyte_character_cut_across_chunks_is_not_corrupted() {
    let line = "{\"t\":\"😀✓é\"}\n".as_bytes();
    for cut in 1..line.len() {
        let (frames, _) = decode(&[&line[..cut], &line[cut..]]);
        assert_eq!(std::str::from_utf8(&frames[0]).unwrap(), "{\"t\":\"😀✓é\"}");
    }
}

#[test]
fn mcp_7_cap_is_64_mib_in_bytes_excluding_the_newline() {
    assert_eq!(MAX_FRAME_BYTES, 67_108_864);
    let mut decoder = FrameDecoder::new(10);
    let mut seen = Vec::new();
    decoder
        .push(b"0123456789\n", |frame| seen.push(frame.into_owned()))
        .expect("exactly the cap, newline excluded");
    assert_eq!(seen, [b"0123456789".to_vec()]);
    assert_eq!(
        decoder.push(b"0123456789A\n", |_| {}),
        Err(FramingError::FrameTooLarge { limit: 10 })
    );
}

#[test]
fn mcp_7_cap_applies_before_the_newline_arrives() {
    let mut decoder = FrameDecoder::new(10);
    decoder.push(b"01234", |_| {}).unwrap();
    decoder.push(b"56789", |_| {}).unwrap();
    assert_eq!(
        decoder.push(b"A", |_| panic!("no frame")),
        Err(FramingError::FrameTooLarge { limit: 10 })
    );
    assert_eq!(decoder.buffered_bytes(), 0, "the buffer is dropped");
}
