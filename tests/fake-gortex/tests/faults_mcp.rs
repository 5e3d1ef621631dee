//! FAKE-8 faults of the `mcp` verb, each driven over pipes; counters span processes.

mod common;
use common::Fake;
use serde_json::{json, Value};
use std::io::Read;
#[cfg(unix)]
use std::os::unix::process::ExitStatusExt;
use std::time::Instant;

fn kinds(fake: &Fake, ev: &str) -> Vec<Value> {
    fake.events(ev)
}

#[test]
fn slow_handshake_delays_the_initialize_reply() {
    let fake = Fake::new(json!({"faults": [{"kind": "slow_handshake", "delay_ms": 150}]}));
    let mut m = fake.mcp();
    let t = Instant::now();
    m.initialize();
    // A lower bound only: sleeping guarantees at least the delay.
    assert!(t.elapsed().as_millis() >= 150);
}

#[test]
fn failing_handshake_fails_the_first_n_across_processes() {
    let fake = Fake::new(json!({"faults": [{"kind": "failing_handshake", "n": 1}]}));
    let mut first = fake.mcp();
    let r = first.call("initialize", json!({}));
    assert_eq!(
        r["error"],
        json!({"code": -32603, "message": "daemon warming up"})
    );
    first.finish();
    let mut second = fake.mcp();
    assert!(second.call("initialize", json!({}))["result"].is_object());

    let custom = Fake::new(
        json!({"faults": [{"kind": "failing_handshake", "n": 2, "error": {"code": -32000, "message": "nope"}}]}),
    );
    for _ in 0..2 {
        let mut m = custom.mcp();
        assert_eq!(m.call("initialize", json!({}))["error"]["message"], "nope");
    }
    let mut m = custom.mcp();
    assert!(m.call("initialize", json!({}))["result"].is_object());
}

#[test]
fn exit_on_start_exits_without_reading() {
    let fake = Fake::new(json!({"faults": [{"kind": "exit_on_start", "exit_code": 7, "n": 1}]}));
    let m = fake.mcp();
    let (rest, status) = m.finish();
    assert_eq!(status.code(), Some(7));
    assert!(rest.is_empty());
    assert_eq!(kinds(&fake, "exit")[0]["reason"], "exit_on_start");
    // The counter is spent: the respawned child serves.
    let mut again = fake.mcp();
    assert!(again.initialize()["result"].is_object());
}

#[test]
fn crash_on_call_exits_on_the_nth_call_across_processes() {
    let fake = Fake::new(json!({"faults": [{"kind": "crash_on_call", "n": 2, "exit_code": 3}]}));
    let mut m = fake.mcp();
    m.initialize();
    assert!(m.tool("search", json!({}))["result"].is_object());
    m.finish();
    let mut m = fake.mcp();
    m.initialize();
    m.request("tools/call", json!({"name": "search", "arguments": {}}));
    let (rest, status) = m.finish();
    assert!(rest.is_empty(), "no reply before the crash");
    assert_eq!(status.code(), Some(3));
    let exits = kinds(&fake, "exit");
    assert_eq!(exits.last().unwrap()["reason"], "crash");
    let mut m = fake.mcp();
    m.initialize();
    assert!(m.tool("search", json!({}))["result"].is_object());
}

#[test]
fn crash_on_call_can_target_the_handshake() {
    let fake =
        Fake::new(json!({"faults": [{"kind": "crash_on_call", "method": "initialize", "n": 1}]}));
    let mut m = fake.mcp();
    m.request("initialize", json!({}));
    let (rest, status) = m.finish();
    assert!(rest.is_empty());
    assert_eq!(status.code(), Some(1));
    let mut m = fake.mcp();
    assert!(m.initialize()["result"].is_object());
}

#[test]
fn start_keyed_faults_fire_before_the_initialize_response() {
    let fake = Fake::new(json!({"faults": [
        {"kind": "list_changed_burst", "count": 2, "after": "start"},
        {"kind": "server_ping", "after": "start"}
    ]}));
    let mut m = fake.mcp();
    assert_eq!(m.frame()["method"], "notifications/tools/list_changed");
    assert_eq!(m.frame()["method"], "notifications/tools/list_changed");
    assert_eq!(m.frame()["method"], "ping");
    assert!(m.initialize()["result"].is_object());
}

#[test]
fn hang_stops_answering_one_method_only() {
    let fake =
        Fake::new(json!({"faults": [{"kind": "hang", "method": "tools/call", "after_n": 2}]}));
    let mut m = fake.mcp();
    m.initialize();
    assert!(m.tool("search", json!({}))["result"].is_object());
    m.request("tools/call", json!({"name": "search", "arguments": {}}));
    m.request("tools/call", json!({"name": "read", "arguments": {}}));
    // Still alive and answering other methods; the hung calls never answer.
    let ping = m.request("ping", json!({}));
    assert_eq!(m.frame()["id"], json!(ping));
    let (rest, status) = m.finish();
    assert!(rest.is_empty());
    assert!(status.success());
    assert_eq!(kinds(&fake, "hang").len(), 2);
}

// SIGTERM exists on Unix only; on Windows a stop is a kill.
#[cfg(unix)]
#[test]
fn ignore_sigterm_survives_sigterm() {
    let fake = Fake::new(json!({"faults": [{"kind": "ignore_sigterm"}]}));
    let mut m = fake.mcp();
    m.initialize();
    // SAFETY: signalling our own child by pid.
    unsafe { libc::kill(m.child.id() as i32, libc::SIGTERM) };
    // Wait until the fake has seen (and logged) the signal, then prove it still answers.
    let mut seen = false;
    for _ in 0..500 {
        if !fake.events("signal").is_empty() {
            seen = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert!(seen, "signal record");
    assert_eq!(m.call("ping", json!({}))["result"], json!({}));
    // Closing stdin does not end it either (MCP-15 closes stdin before SIGTERM).
    drop(m.stdin.take());
    let mut ignored = false;
    for _ in 0..500 {
        if !fake.events("stdin_eof_ignored").is_empty() {
            ignored = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert!(ignored, "stdin_eof_ignored record");
    assert!(m.child.try_wait().unwrap().is_none(), "still running");
    m.child.kill().unwrap();
    let status = m.child.wait().unwrap();
    assert_eq!(status.signal(), Some(libc::SIGKILL));
}

#[test]
fn oversized_frame_has_the_exact_byte_count() {
    let fake = Fake::new(json!({"faults": [{"kind": "oversized_frame", "bytes": 5000}]}));
    let mut m = fake.mcp();
    m.initialize();
    m.request("tools/call", json!({"name": "search", "arguments": {}}));
    let line = m.raw_line();
    assert_eq!(line.len(), 5001);
    let v: Value = serde_json::from_slice(&line).unwrap();
    assert_eq!(v["id"], 2);

    let open = Fake::new(
        json!({"faults": [{"kind": "oversized_frame", "bytes": 300, "terminated": false, "on": "ping"}]}),
    );
    let mut m = open.mcp();
    m.request("ping", json!({}));
    let (rest, _) = m.finish();
    assert_eq!(rest.len(), 300);
    assert!(!rest.ends_with(b"\n"));
}

#[test]
fn oversized_frame_default_is_one_byte_over_64_mib() {
    let fake = Fake::new(json!({"faults": [{"kind": "oversized_frame"}]}));
    let mut m = fake.mcp();
    m.initialize();
    m.request("tools/call", json!({"name": "search", "arguments": {}}));
    let line = m.raw_line();
    assert_eq!(line.len(), 67_108_865 + 1);
}

fn junk_before_reply(raw: &[u8]) -> (Vec<Vec<u8>>, Value) {
    let mut lines: Vec<Vec<u8>> = raw
        .split_inclusive(|b| *b == b'\n')
        .map(<[u8]>::to_vec)
        .collect();
    let last = lines.pop().unwrap();
    (lines, serde_json::from_slice(&last).unwrap())
}

#[test]
fn garbage_precedes_replies_to_the_named_method() {
    let fake = Fake::new(json!({"faults": [{"kind": "garbage", "on": "tools/list"}]}));
    let mut m = fake.mcp();
    m.initialize();
    let id = m.request("tools/list", json!({}));
    let mut raw = Vec::new();
    loop {
        let line = m.raw_line();
        raw.extend_from_slice(&line);
        if line.starts_with(b"{\"jsonrpc\":\"2.0\",\"id\":") && line.len() > 1000 {
            break;
        }
    }
    let (junk, reply) = junk_before_reply(&raw);
    assert_eq!(reply["id"], json!(id));
    assert!(junk.contains(&b"\n".to_vec()));
    assert!(junk.contains(&b"not json\n".to_vec()));
    assert!(junk.contains(&b"[1,2]\n".to_vec()));
    assert!(junk.contains(&b"{\"jsonrpc\":\"2.0\"}\n".to_vec()));
    assert!(junk.iter().any(|l| std::str::from_utf8(l).is_err()));
    assert!(junk
        .iter()
        .any(|l| l.starts_with(b"{\"jsonrpc\":\"2.0\",\"id\":987654")));
}

#[test]
fn garbage_once_at_start_with_custom_lines() {
    let fake = Fake::new(json!({"faults": [{"kind": "garbage", "lines": ["hello", "{\"x\":1}"]}]}));
    let mut m = fake.mcp();
    assert_eq!(m.raw_line(), b"hello\n");
    assert_eq!(m.raw_line(), b"{\"x\":1}\n");
    assert!(m.initialize()["result"].is_object());
}

fn split_session(mode: &str) -> (Fake, Vec<u8>) {
    let fake = Fake::new(json!({"faults": [{"kind": "split", "mode": mode, "pause_ms": 0}]}));
    let mut m = fake.mcp();
    m.request("initialize", json!({}));
    m.request(
        "tools/call",
        json!({"name": "search", "arguments": {"operation": "text"}}),
    );
    let (rest, _) = m.finish();
    (fake, rest)
}

fn frames(raw: &[u8], sep: &[u8]) -> Vec<Value> {
    let text = std::str::from_utf8(raw).unwrap();
    let sep = std::str::from_utf8(sep).unwrap();
    assert!(text.ends_with(sep));
    text.split_terminator(sep)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn send_writes(fake: &Fake) -> Vec<(u64, u64)> {
    fake.events("send")
        .iter()
        .map(|s| (s["bytes"].as_u64().unwrap(), s["writes"].as_u64().unwrap()))
        .collect()
}

#[test]
fn split_bytewise_writes_one_byte_per_write() {
    let (fake, raw) = split_session("bytewise");
    let f = frames(&raw, b"\n");
    assert_eq!(f.len(), 2);
    assert_eq!(f[1]["id"], 2);
    for (bytes, writes) in send_writes(&fake) {
        assert_eq!(writes, bytes + 1);
    }
}

#[test]
fn split_utf8_mid_cuts_inside_multibyte_characters() {
    let (fake, raw) = split_session("utf8_mid");
    let f = frames(&raw, b"\n");
    let text = f[1]["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.ends_with(" é✓😀"), "{text}");
    let writes = send_writes(&fake);
    // The call reply holds three multi-byte characters: four writes.
    assert_eq!(writes[1].1, 4);
}

#[test]
fn split_before_newline_and_crlf_and_coalesce() {
    let (fake, raw) = split_session("before_newline");
    assert_eq!(frames(&raw, b"\n").len(), 2);
    assert!(send_writes(&fake).iter().all(|(_, w)| *w == 2));

    let (_, raw) = split_session("crlf");
    let f = frames(&raw, b"\r\n");
    assert_eq!(f.len(), 2);

    let fake = Fake::new(
        json!({"faults": [{"kind": "split", "mode": "coalesce"}, {"kind": "list_changed_burst", "count": 2, "after": "tools/list"}]}),
    );
    let mut m = fake.mcp();
    // Two pipelined requests in one write: all four output frames share one write.
    let both = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n";
    std::io::Write::write_all(m.stdin.as_mut().unwrap(), both.as_bytes()).unwrap();
    let (raw, _) = m.finish();
    let f = frames(&raw, b"\n");
    assert_eq!(f.len(), 4);
    assert_eq!(f[3]["id"], 2);
    let writes = fake.events("coalesced");
    assert_eq!(writes.len(), 1);
    assert_eq!(writes[0]["frames"], 4);
    assert_eq!(writes[0]["bytes"].as_u64().unwrap() as usize, raw.len());
}

#[test]
fn server_ping_is_sent_after_the_named_method_and_its_answer_logged() {
    let fake = Fake::new(json!({"faults": [{"kind": "server_ping", "after": "tools/list"}]}));
    let mut m = fake.mcp();
    m.initialize();
    m.call("tools/list", json!({}));
    let ping = m.frame();
    assert_eq!(
        ping,
        json!({"jsonrpc": "2.0", "id": "srv-1", "method": "ping"})
    );
    m.send(&json!({"jsonrpc": "2.0", "id": "srv-1", "result": {}}));
    m.call("ping", json!({}));
    m.finish();
    let answers = fake.events("answer");
    assert_eq!(answers.len(), 1);
    assert_eq!(answers[0]["id"], "srv-1");
    assert_eq!(answers[0]["request"], "ping");
    assert_eq!(answers[0]["result"], json!({}));
    assert!(fake.events("exit")[0].get("unanswered").is_none());
}

#[test]
fn unanswered_server_requests_are_listed_at_exit() {
    let fake = Fake::new(
        json!({"faults": [{"kind": "server_request", "method": "roots/list", "after": "ping"}]}),
    );
    let mut m = fake.mcp();
    m.call("ping", json!({}));
    assert_eq!(
        m.frame(),
        json!({"jsonrpc": "2.0", "id": 42, "method": "roots/list"})
    );
    m.finish();
    assert_eq!(fake.events("exit")[0]["unanswered"], json!([42]));
}

#[test]
fn list_changed_burst_after_the_named_method_once() {
    let fake = Fake::new(
        json!({"faults": [{"kind": "list_changed_burst", "count": 4, "spacing_ms": 2, "after": "notifications/initialized"}]}),
    );
    let mut m = fake.mcp();
    m.initialize();
    for _ in 0..4 {
        assert_eq!(m.frame()["method"], "notifications/tools/list_changed");
    }
    m.call("tools/list", json!({}));
    let (rest, _) = m.finish();
    assert!(rest.is_empty());
}

fn listed(m: &mut common::Mcp) -> Vec<String> {
    m.call("tools/list", json!({}))["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn withdraw_then_relist() {
    let fake = Fake::new(json!({"faults": [
        {"kind": "withdraw", "tools": ["search", "read"], "after_list": 1},
        {"kind": "relist", "tools": ["search"], "after_list": 2}
    ]}));
    let mut m = fake.mcp();
    m.initialize();
    assert_eq!(listed(&mut m).len(), 21);
    assert_eq!(m.frame()["method"], "notifications/tools/list_changed");
    let second = listed(&mut m);
    assert_eq!(second.len(), 19);
    assert!(!second.contains(&"search".to_string()));
    assert_eq!(m.frame()["method"], "notifications/tools/list_changed");
    let third = listed(&mut m);
    assert!(third.contains(&"search".to_string()) && !third.contains(&"read".to_string()));
    // No further announcement.
    assert_eq!(m.call("ping", json!({}))["result"], json!({}));
}

#[test]
fn stderr_flood_writes_that_much_before_serving() {
    let fake = Fake::new(json!({"faults": [{"kind": "stderr_flood", "bytes": 300000}]}));
    let mut child = fake
        .command(&["mcp"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = child.stderr.take().unwrap();
    let drain = std::thread::spawn(move || {
        let mut buf = Vec::new();
        err.read_to_end(&mut buf).unwrap();
        buf
    });
    drop(child.stdin.take());
    let status = child.wait().unwrap();
    let stderr = drain.join().unwrap();
    assert!(status.success());
    assert!(stderr.len() >= 300000);
    assert_eq!(fake.events("stderr_flood")[0]["bytes"], 300000);
}
