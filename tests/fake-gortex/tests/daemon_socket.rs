//! `daemon serve` (FAKE-9): the daemon's socket side, spoken the way Gortex's client speaks it
//! (one handshake line and ack, then JSON lines), answering from the scenario and the repository
//! it serves. The upstream hook suites (tests/node, tests/e2e) drive it through Gortex's own code.
#![cfg(unix)]

mod common;

use common::Fake;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::process::Stdio;

struct Served {
    child: std::process::Child,
    socket: std::path::PathBuf,
}

impl Served {
    fn start(fake: &Fake) -> Served {
        std::fs::create_dir_all(fake.dir.join("repo/.git")).unwrap();
        std::fs::create_dir_all(fake.dir.join("repo/src")).unwrap();
        std::fs::write(
            fake.dir.join("repo/src/app.go"),
            "package app\nfunc renderWidget() {}\nfunc Serve() {}\n",
        )
        .unwrap();
        std::fs::write(fake.dir.join("repo/src/empty.go"), "package app\n").unwrap();
        let socket = fake.dir.join("d.sock");
        let mut child = fake
            .command(&["daemon", "serve"])
            .current_dir(fake.dir.join("repo"))
            .env("GORTEX_DAEMON_SOCKET", &socket)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut ready = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut ready)
            .unwrap();
        assert!(ready.contains("\"ready\":true"), "{ready}");
        Served { child, socket }
    }

    /// One connection: handshake, then each request line; returns the ack and the replies.
    fn exchange(&self, handshake: Value, requests: &[Value]) -> (Value, Vec<Value>) {
        let mut stream = UnixStream::connect(&self.socket).unwrap();
        let mut lines = BufReader::new(stream.try_clone().unwrap()).lines();
        writeln!(stream, "{handshake}").unwrap();
        let ack: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
        let mut replies = Vec::new();
        for r in requests {
            writeln!(stream, "{r}").unwrap();
            replies.push(serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap());
        }
        (ack, replies)
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}

fn tool_text(reply: &Value) -> Value {
    serde_json::from_str(reply["result"]["content"][0]["text"].as_str().unwrap())
        .unwrap_or(Value::Null)
}

#[test]
fn control_requests_answer_from_the_served_repository() {
    let fake = Fake::defaults();
    let served = Served::start(&fake);
    let (ack, replies) = served.exchange(
        json!({"version": 1, "mode": "control", "client": "t"}),
        &[
            json!({"kind": "status"}),
            json!({"kind": "probe"}),
            json!({"kind": "search_symbols", "params": {"query": "why does renderWidget flicker", "limit": 10}}),
        ],
    );
    assert_eq!(ack["ok"], json!(true));
    assert_eq!(ack.get("warming"), None);
    let status = &replies[0]["result"];
    assert_eq!(status["ready"], json!(true));
    assert_eq!(status["version"], json!("v0.64.4"));
    let repo = &status["tracked_repos"][0];
    assert!(repo["path"].as_str().unwrap().ends_with("/repo"));
    assert_eq!(
        (repo["files"].clone(), repo["nodes"].clone()),
        (json!(1), json!(2))
    );
    assert_eq!(replies[1]["result"]["enriched"], json!(true));
    assert_eq!(
        replies[2]["result"]["hits"],
        json!([{"name": "renderWidget", "kind": "function", "file_path": "src/app.go", "line": 2}])
    );
}

#[test]
fn file_summaries_count_declared_symbols_and_unindexed_files_are_tool_errors() {
    let fake = Fake::defaults();
    let served = Served::start(&fake);
    let call = |path: &str| {
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "get_file_summary", "arguments": {"path": path, "format": "json"}}})
    };
    let (_, replies) = served.exchange(
        json!({"version": 1, "mode": "mcp", "client": "gortex-hook"}),
        &[call("src/app.go"), call("src/empty.go")],
    );
    assert_eq!(tool_text(&replies[0])["total_nodes"], json!(2));
    assert_eq!(replies[1]["result"]["isError"], json!(true));
}

#[test]
fn warming_and_the_protocol_version_reach_the_ack() {
    let fake = Fake::new(json!({"orientation": "warming"}));
    let served = Served::start(&fake);
    let (ack, replies) = served.exchange(
        json!({"version": 1, "mode": "control"}),
        &[json!({"kind": "status"})],
    );
    assert_eq!(
        (
            ack["warming"].clone(),
            replies[0]["result"]["ready"].clone()
        ),
        (json!(true), json!(false))
    );
    let (mismatch, _) = served.exchange(json!({"version": 2, "mode": "control"}), &[]);
    assert_eq!(mismatch["error_code"], json!("protocol_mismatch"));
}

#[test]
fn a_daemon_that_is_down_binds_nothing() {
    let fake = Fake::new(json!({"daemon_up": false}));
    let socket = fake.dir.join("d.sock");
    let status = fake
        .command(&["daemon", "serve"])
        .env("GORTEX_DAEMON_SOCKET", &socket)
        .stdin(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    assert!(!socket.exists());
}
