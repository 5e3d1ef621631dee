use super::*;
use crate::mcp::call_result::take_call_result;
use crate::mcp::routing::scan_differs;

/// Routes `frame` both ways and says whether this reader took it.
fn check(frame: &[u8]) -> bool {
    let taken = scan_response(frame).is_some();
    if let Some(difference) = scan_differs(frame) {
        panic!(
            "{}: routed differently\n{difference}",
            String::from_utf8_lossy(frame)
        );
    }
    taken
}

#[test]
fn a_text_result_is_read_in_one_scan_as_the_serde_reader_reads_it() {
    let frames: [&[u8]; 12] = [
        br#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hello"}]}}"#,
        b" {\r\n \"id\" : 2 ,\t\"result\" : { \"content\" : [ { \"text\" : \"a\\nb\" , \"type\" : \"text\" } ] } , \"jsonrpc\" : \"2.0\" }\r",
        br#"{"id":3,"result":{"content":[{"type":"text","text":"one"},{"type":"text","text":"two"},{"type":"text","text":""}]}}"#,
        br#"{"id":4,"result":{"content":[{"type":"text","text":"\"q\" \\ \/ \b\f\n\r\t \u00e9 \ud83d\ude00 \u0000"}]}}"#,
        "{\"id\":5,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"caf\u{e9} \u{1f600} \u{4e2d}\u{6587}\"}]}}".as_bytes(),
        br#"{"id":6,"result":{"content":[{"type":"text","text":"x"}],"isError":true}}"#,
        br#"{"id":7,"result":{"isError":false,"content":[{"type":"text","text":"x","annotations":{"audience":["user"],"priority":0.5e-3}}],"_meta":{"k":[1,-2,3.25E+2,true,false,null,"s"]}}}"#,
        br#"{"id":8,"result":{"content":[],"structuredContent":{"rows":[{"a":1}]}}}"#,
        br#"{"id":9,"result":{"content":[{"type":"text","text":""}],"structuredContent":null}}"#,
        br#"{"id":10,"result":{"tools":[{"name":"search","inputSchema":{"type":"object"}}]}}"#,
        br#"{"id":0,"params":{"x":1},"result":{}}"#,
        br#"{"id":18446744073709551615,"result":{"content":[{"type":"text","text":"max"}]}}"#,
    ];
    for frame in frames {
        assert!(check(frame), "taken: {}", String::from_utf8_lossy(frame));
    }
    let Some(scanned) = scan_response(frames[3]) else {
        panic!("taken");
    };
    let read = take_call_result(&mut crate::mcp::RawResponse::new(
        frames[3].to_vec(),
        scanned.result,
        Some(scanned.read),
    ));
    assert_eq!(
        read.text,
        "\"q\" \\ / \u{8}\u{c}\n\r\t \u{e9} \u{1f600} \u{0}"
    );
}

#[test]
fn what_it_does_not_understand_is_left_to_the_serde_reader() {
    let declined: [&[u8]; 30] = [
        b"{\"id\":1,\"result\":{\"x\":\"\xc3(\"}}",
        b"{\"id\":1,\"result\":{\"structuredContent\":{\"\xe2\x82(\":1}}}",
        b"{\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"\xed\xa0\x80\"}]}}",
        br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{}}"#,
        br#"{"id":1,"error":{"code":-1,"message":"no"}}"#,
        br#"{"id":1,"result":{"content":[]},"error":null}"#,
        br#"{"id":1,"res\u0075lt":{"content":[]}}"#,
        br#"{"id":1,"id":2,"result":{}}"#,
        br#"{"id":1,"result":{},"result":{}}"#,
        br#"{"id":1,"result":{"content":[],"content":[]}}"#,
        br#"{"id":1,"result":{"content":[{"type":"text","text":"a","text":"b"}]}}"#,
        br#"{"id":1,"result":{"content":[{"type":"image","data":"AA==","mimeType":"image/png"}]}}"#,
        br#"{"id":1,"result":{"content":[{"type":"text"}]}}"#,
        br#"{"id":1,"result":{"content":[{"type":"text","text":5}]}}"#,
        br#"{"id":1,"result":{"content":["text"]}}"#,
        br#"{"id":1,"result":{"content":null}}"#,
        br#"{"id":1,"result":{"content":[{"type":"text","text":"\ud83d"}]}}"#,
        br#"{"id":1,"result":{"content":[{"type":"text","text":"\ude00"}]}}"#,
        b"{\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"\xff\"}]}}",
        b"{\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"a\x01\"}]}}",
        br#"{"id":1,"result":{"content":[{"type":"text","text":"\x"}]}}"#,
        br#"{"id":1,"result":{}} x"#,
        br#"{"id":01,"result":{}}"#,
        br#"{"id":1.0,"result":{}}"#,
        br#"{"id":-1,"result":{}}"#,
        br#"{"id":"1","result":{}}"#,
        br#"{"id":1,"result":null}"#,
        br#"{"id":1,"result":{"content":[{"type":"text","text":"a"}],}}"#,
        br#"{"id":1,"result":{"x":[1 2]}}"#,
    ];
    for frame in declined {
        assert!(
            !check(frame),
            "declined: {}",
            String::from_utf8_lossy(frame)
        );
    }
    let deep = |depth: usize| {
        let mut frame = br#"{"id":1,"result":{"x":"#.to_vec();
        frame.extend(std::iter::repeat_n(b'[', depth));
        frame.extend(std::iter::repeat_n(b']', depth));
        frame.extend_from_slice(b"}}");
        frame
    };
    assert!(check(&deep(MAX_DEPTH - 2)));
    assert!(!check(&deep(MAX_DEPTH)));
    assert!(!check(&deep(200)));
}

#[test]
fn the_text_bound_holds_the_joined_text_without_a_reallocation() {
    let frame = br#"{"id":1,"result":{"content":[{"type":"text","text":"a\\b\n"},{"type":"text","text":"\u00e9\"c"}]}}"#;
    let scanned = scan_response(frame).expect("taken");
    let read = take_call_result(&mut crate::mcp::RawResponse::new(
        frame.to_vec(),
        scanned.result,
        Some(scanned.read),
    ));
    assert_eq!(read.text, "a\\b\n\n\u{e9}\"c");
    assert_eq!(
        read.blocks,
        vec![ReadBlock::Text(0..4), ReadBlock::Text(5..9)]
    );
}

/// A small deterministic generator (xorshift), so the differential test
/// needs no dependency and fails the same way every run.
struct Rng(u64, bool);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    /// One of `items`, only from the first `good` when generating frames
    /// the reader should take.
    fn pick_of<'a>(&mut self, items: &[&'a str], good: usize) -> &'a str {
        let n = if self.1 { good } else { items.len() };
        items[self.below(n)]
    }

    fn chance(&mut self, one_in: usize) -> bool {
        !self.1 && self.below(one_in) == 0
    }
}

const SPACES: [&str; 5] = ["", "", " ", "\n ", "\t\r"];
const PIECES: [&str; 24] = [
    "plain text ",
    "x",
    "\\n",
    "\\\"",
    "\\\\",
    "\\u00e9",
    "\\ud83d\\ude00",
    "é",
    "😀",
    "12345678",
    "\\/",
    "\\t",
    "\\u4e2d",
    "\\ud83d",
    "\\ude00",
    "\\ud83dx",
    "\\u12",
    "\\q",
    "中文",
    "\u{7f}",
    "\u{1}",
    "\t",
    "\\u0000",
    "\\uD83D\\uDE00",
];

fn string(rng: &mut Rng) -> String {
    let mut out = String::from("\"");
    for _ in 0..rng.below(6) {
        out.push_str(rng.pick_of(&PIECES, 10));
    }
    out.push('"');
    out
}

fn value(rng: &mut Rng, depth: usize) -> String {
    match rng.below(if depth > 3 { 6 } else { 9 }) {
        0 => string(rng),
        1 => rng
            .pick_of(&["0", "-1", "12.5", "1e3", "-0.0E-2", "01", "1.", "-"], 5)
            .to_string(),
        2 => rng
            .pick_of(&["true", "false", "null", "nul", "tru"], 3)
            .to_string(),
        3 => String::from("\"text\""),
        4 => String::from("[]"),
        5 => String::from("{}"),
        6 => {
            let items: Vec<String> = (0..rng.below(4)).map(|_| value(rng, depth + 1)).collect();
            format!("[{}]", items.join(","))
        }
        _ => {
            let members: Vec<String> = (0..rng.below(4))
                .map(|_| format!("{}:{}", string(rng), value(rng, depth + 1)))
                .collect();
            format!("{{{}}}", members.join(","))
        }
    }
}

fn block(rng: &mut Rng) -> String {
    let mut members = Vec::new();
    if !rng.chance(8) {
        members.push(format!(
            "\"type\":{}",
            rng.pick_of(
                &["\"text\"", "\"text\"", "\"image\"", "\"te\\u0078t\"", "1"],
                2
            )
        ));
    }
    if !rng.chance(8) {
        members.push(format!("\"text\":{}", string(rng)));
    }
    for _ in 0..rng.below(3) {
        let name = rng.pick_of(
            &[
                "\"annotations\"",
                "\"_meta\"",
                "\"text\"",
                "\"data\"",
                "\"k\\u0031\"",
            ],
            2,
        );
        members.push(format!("{name}:{}", value(rng, 2)));
    }
    let space = rng.pick(&SPACES);
    shuffle(rng, &mut members);
    format!("{{{space}{}{space}}}", members.join(&format!(",{space}")))
}

fn frame(rng: &mut Rng) -> Vec<u8> {
    let blocks: Vec<String> = (0..rng.below(4)).map(|_| block(rng)).collect();
    let mut result = vec![format!("\"content\":[{}]", blocks.join(","))];
    if rng.below(3) == 0 {
        result.push(format!(
            "\"isError\":{}",
            rng.pick_of(&["true", "false", "null", "\"true\"", "1"], 5)
        ));
    }
    if rng.below(3) == 0 {
        result.push(format!("\"structuredContent\":{}", value(rng, 1)));
    }
    if rng.chance(4) {
        result.push(format!("\"content\":[{}]", block(rng)));
    }
    shuffle(rng, &mut result);
    let mut members = vec![
        format!(
            "\"id\":{}",
            rng.pick_of(&["1", "7", "0", "-3", "\"s\"", "null", "2.0"], 3)
        ),
        format!("\"result\":{{{}}}", result.join(",")),
    ];
    for _ in 0..rng.below(3) {
        let name = rng.pick_of(
            &[
                "\"jsonrpc\"",
                "\"x\"",
                "\"params\"",
                "\"method\"",
                "\"error\"",
            ],
            2,
        );
        members.push(format!("{name}:{}", value(rng, 1)));
    }
    shuffle(rng, &mut members);
    let space = rng.pick(&SPACES);
    let mut bytes =
        format!("{space}{{{}}}{space}", members.join(&format!("{space},"))).into_bytes();
    // Now and then a byte changed, removed or doubled, as a broken server
    // or a bad pipe would send it.
    if rng.chance(4) && !bytes.is_empty() {
        let at = rng.below(bytes.len());
        match rng.below(4) {
            0 => {
                let odd = b"\"\\{}[],:0x\xff\x80\x01 ";
                bytes[at] = odd[rng.below(odd.len())];
            }
            1 => {
                bytes.remove(at);
            }
            2 => bytes.insert(at, bytes[at]),
            _ => bytes.truncate(at),
        }
    }
    bytes
}

fn shuffle<T>(rng: &mut Rng, items: &mut [T]) {
    for at in (1..items.len()).rev() {
        items.swap(at, rng.below(at + 1));
    }
}

#[test]
fn generated_frames_route_as_the_serde_reader_routes_them() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15, false);
    let (mut taken, mut cases) = (0, 0);
    for case in 0..40_000 {
        // Every other frame built only of what the reader takes.
        rng.1 = case % 2 == 0;
        let frame = frame(&mut rng);
        cases += 1;
        taken += usize::from(check(&frame));
    }
    // The generator reaches both sides of every choice: many frames taken,
    // many declined.
    assert!(taken > cases / 4, "{taken} of {cases} taken");
    assert!(taken < cases * 3 / 4, "{taken} of {cases} taken");
}
