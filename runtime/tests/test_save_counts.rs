//! What one session counts (SAVE-1): Pi's token estimate, the tally of
//! redirected reads, graph answers and guided reads, and the bytes a `read`
//! would have put into the context, sized as Pi's read tool cuts a file.

use pi_gortex_runtime::savings::{
    range_bytes, read_bytes, tokens, ReadKind, Savings, PI_READ_MAX_BYTES, PI_READ_MAX_LINES,
};
use serde_json::json;

#[test]
fn save_1_tokens_are_pis_estimate() {
    assert_eq!(tokens(0), 0);
    assert_eq!(tokens(1), 1);
    assert_eq!(tokens(4), 1);
    assert_eq!(tokens(5), 2);
    assert_eq!(tokens(40_000), 10_000);
}

#[test]
fn save_1_a_blocked_read_is_sized_and_the_net_subtracts_graph_answers() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("big.go"), vec![b'a'; 40_000]).unwrap();
    let bytes = read_bytes(&json!({"path": "big.go"}), dir.path());
    assert_eq!(bytes, Some(40_000));
    let mut savings = Savings::default();
    assert!(savings.is_empty());
    savings.record_blocked(ReadKind::Read, bytes);
    assert!(!savings.is_empty());
    savings.record_blocked(ReadKind::Grep, None);
    savings.record_graph_answer("é".repeat(1_001).as_str());
    assert_eq!(savings.redirected_total(), 2);
    assert_eq!(savings.not_sized, 1);
    assert_eq!(savings.kept_out_tokens(), 10_000);
    assert_eq!(savings.graph_tokens(), 251);
    assert_eq!(savings.net_tokens(), 10_000 - 251);
}

#[test]
fn save_1_each_kind_is_counted_under_its_own_name_and_only_pis_tools_have_one() {
    let mut savings = Savings::default();
    for (n, kind) in ReadKind::ALL.into_iter().enumerate() {
        assert_eq!(ReadKind::of_tool(kind.as_str()), Some(kind));
        for _ in 0..=n {
            savings.record_blocked(kind, None);
        }
    }
    let names: Vec<&str> = ReadKind::ALL.iter().map(|k| k.as_str()).collect();
    assert_eq!(names, ["read", "grep", "find", "ls", "bash"]);
    assert_eq!(savings.redirected, [1, 2, 3, 4, 5]);
    assert_eq!(savings.redirected_total(), 15);
    assert_eq!((savings.not_sized, savings.kept_out_bytes), (15, 0));
    for name in ["mcp__gortex__search", "edit", "write", ""] {
        assert_eq!(ReadKind::of_tool(name), None, "{name}");
    }
}

#[test]
fn save_1_reads_let_run_add_their_size_and_a_graph_costing_more_is_a_negative_net() {
    let mut savings = Savings::default();
    savings.record_allowed(Some(300));
    savings.record_allowed(Some(200));
    savings.record_allowed(None);
    assert_eq!((savings.allowed, savings.allowed_bytes), (3, 500));
    assert_eq!(savings.redirected_total(), 0);
    savings.record_blocked(ReadKind::Read, Some(40));
    savings.record_blocked(ReadKind::Read, Some(60));
    assert_eq!(
        (savings.kept_out_bytes, savings.kept_out_tokens()),
        (100, 25)
    );
    savings.record_graph_answer("abcd");
    savings.record_graph_answer(&"x".repeat(396));
    assert_eq!((savings.graph_answers, savings.graph_chars), (2, 400));
    assert_eq!(savings.graph_tokens(), 100);
    assert_eq!(savings.net_tokens(), -75);
}

#[test]
fn save_1_a_range_is_sized_as_pi_reads_it() {
    let text = b"one\ntwo\nthree\nfour\n";
    assert_eq!(range_bytes(text, None, None), text.len() as u64);
    assert_eq!(
        range_bytes(text, Some(2), Some(2)),
        "two\nthree".len() as u64
    );
    assert_eq!(range_bytes(text, Some(1), Some(1)), 3);
    assert_eq!(
        range_bytes(text, Some(0), Some(1)),
        3,
        "offset 0 reads from line 1"
    );
    assert_eq!(range_bytes(text, Some(4), None), "four\n".len() as u64);
    assert_eq!(
        range_bytes(text, Some(5), None),
        0,
        "the empty line after the last newline"
    );
    assert_eq!(range_bytes(text, Some(6), None), 0);
    assert_eq!(range_bytes(text, Some(99), None), 0);
    assert_eq!(range_bytes(b"", None, None), 0);
    let long = "x\n".repeat(5_000);
    assert_eq!(range_bytes(long.as_bytes(), None, None), 3_999);
    let wide = vec![b'y'; 200_000];
    assert_eq!(range_bytes(&wide, None, None), 0);
}

#[test]
fn save_1_pis_line_and_byte_caps_cut_at_their_exact_edges() {
    // Exactly 2,000 lines: all of them; one more: the first 2,000.
    let lines = |n: usize| "ab\n".repeat(n - 1) + "ab";
    let full = (PI_READ_MAX_LINES * 3 - 1) as u64;
    assert_eq!(
        range_bytes(lines(PI_READ_MAX_LINES).as_bytes(), None, None),
        full
    );
    assert_eq!(
        range_bytes(lines(PI_READ_MAX_LINES + 1).as_bytes(), None, None),
        full
    );
    // Exactly 50 KiB: all of it; one byte more: the whole lines within it.
    let edge = PI_READ_MAX_BYTES as usize;
    let mut text = vec![b'z'; edge];
    text[edge / 2] = b'\n';
    assert_eq!(range_bytes(&text, None, None), PI_READ_MAX_BYTES);
    text.push(b'z');
    assert_eq!(range_bytes(&text, None, None), (edge / 2) as u64);
    // A line that ends exactly at the cap is kept with its separator counted once.
    let mut exact = vec![b'q'; 100];
    exact.push(b'\n');
    exact.extend(vec![b'r'; edge - 101]);
    exact.extend(b"\nmore");
    assert_eq!(range_bytes(&exact, None, None), PI_READ_MAX_BYTES);
    // A limit past the end reads to the end.
    assert_eq!(range_bytes(b"a\nb", Some(2), Some(10)), 1);
}

#[test]
fn save_1_a_read_names_its_file_by_path_or_file_path_with_a_range() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.go"), "one\ntwo\nthree\n").unwrap();
    let sized = |input| read_bytes(&input, dir.path());
    assert_eq!(sized(json!({"path": "f.go"})), Some(14));
    assert_eq!(sized(json!({"file_path": "f.go"})), Some(14));
    assert_eq!(
        sized(json!({"path": "f.go", "offset": 2, "limit": 1})),
        Some(3)
    );
    assert_eq!(sized(json!({"path": "f.go", "offset": 3})), Some(6));
    assert_eq!(sized(json!({"path": "f.go", "limit": 1})), Some(3));
    assert_eq!(sized(json!({})), None);
}

#[test]
fn save_1_a_file_over_one_mib_is_sized_at_pis_cap_only_when_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("huge.go"), vec![b'h'; 2 * 1024 * 1024]).unwrap();
    let sized = |input| read_bytes(&input, dir.path());
    assert_eq!(sized(json!({"path": "huge.go"})), Some(PI_READ_MAX_BYTES));
    assert_eq!(sized(json!({"path": "huge.go", "offset": 2})), None);
    assert_eq!(sized(json!({"path": "huge.go", "limit": 2})), None);
}

#[cfg(unix)]
#[test]
fn save_1_an_untrusted_path_is_counted_but_not_sized() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret"), "x".repeat(100)).unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret"), dir.path().join("link")).unwrap();
    let fifo = dir.path().join("fifo");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    for name in ["link", "fifo", "missing", "../outside"] {
        assert_eq!(
            read_bytes(&json!({"path": name}), dir.path()),
            None,
            "{name}"
        );
    }
    assert_eq!(read_bytes(&json!({"path": 7}), dir.path()), None);
}
