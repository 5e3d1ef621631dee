//! MCP-5..MCP-7, MCP-10 end to end: awkwardly chunked replies, noise lines,
//! notifications and an oversized frame from a real child.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::{client, client_with, fast_timeouts, is_alive, Fake};
use pi_gortex_runtime::mcp::{tools, ClientConfig, McpClient, McpError, Timeouts};
use serde_json::json;

async fn echo_text(fake: &Fake) -> String {
    let client = client(fake);
    client.start().await.unwrap();
    let result = tools::call_tool(&client, "search", json!({"query": "café ✓ 😀"}))
        .await
        .unwrap();
    client.stop().await;
    tools::result_text(&result)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_6_replies_written_in_awkward_chunks_decode_the_same() {
    let plain = echo_text(&Fake::new(json!({}))).await;
    assert!(plain.contains("café ✓ 😀"), "{plain}");
    for mode in ["bytewise", "utf8_mid", "before_newline", "coalesce", "crlf"] {
        let fake = Fake::new(json!({"faults": [{"kind": "split", "mode": mode, "pause_ms": 2}]}));
        let text = echo_text(&fake).await;
        // utf8_mid appends multi-byte characters so that a cut lands inside one.
        let expected = if mode == "utf8_mid" {
            format!("{plain} é✓😀")
        } else {
            plain.clone()
        };
        assert_eq!(text, expected, "split mode {mode}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_6_noise_lines_are_skipped_and_counted() {
    let fake = Fake::new(json!({"faults": [{"kind": "garbage", "on": "tools/list"}]}));
    let client = client(&fake);
    client.start().await.unwrap();
    assert_eq!(tools::list_tools(&client).await.unwrap().len(), 21);
    assert!(
        client.noise_lines() >= 3,
        "not json, [1,2], invalid UTF-8: {}",
        client.noise_lines()
    );
    assert!(client.exit_reason().is_none());
    client.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_5_outbound_frames_are_compact_json_lines() {
    let (client, fake) = common::replay_client(
        json!([{"read": 1}, {"send": common::SCRIPT_INIT_REPLY}]),
        fast_timeouts(),
    );
    client.start().await.unwrap();
    let capture = fake.dir.path().join("stdin.jsonl");
    assert!(
        common::eventually(Duration::from_secs(2), || std::fs::read_to_string(&capture)
            .unwrap_or_default()
            .lines()
            .count()
            == 2)
        .await
    );
    client.stop().await;
    let raw = std::fs::read_to_string(&capture).unwrap();
    let lines: Vec<&str> = raw.lines().collect();
    assert!(!lines[0].contains(' '), "compact: {}", lines[0]);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(lines[0]).unwrap(),
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"experimental":{"gortex/wire":["gcx"]}},"clientInfo":{"name":"pi","version":"1.0.0"}}})
    );
    assert_eq!(
        lines[1],
        r#"{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}"#
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_5_writing_without_a_child_fails_with_not_running() {
    let client = McpClient::new(ClientConfig::new("unused"));
    let empty = common::raw(json!({}));
    assert_eq!(
        client.notify("x", &empty).unwrap_err().to_string(),
        "gortex mcp is not running"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_10_list_changed_invokes_the_callback_and_a_panicking_one_is_contained() {
    let fake = Fake::new(
        json!({"faults": [{"kind": "list_changed_burst", "count": 3, "after": "tools/list"}]}),
    );
    let client = client(&fake);
    client.start().await.unwrap();
    let calls = Arc::new(AtomicUsize::new(0));
    let seen = calls.clone();
    client.set_list_changed_handler(Some(Arc::new(move || {
        seen.fetch_add(1, Ordering::SeqCst);
        panic!("a throwing callback");
    })));
    tools::list_tools(&client).await.unwrap();
    assert!(common::eventually(Duration::from_secs(2), || calls.load(Ordering::SeqCst) == 3).await);
    assert_eq!(
        tools::list_tools(&client).await.unwrap().len(),
        21,
        "the reader survived"
    );
    client.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_7_an_oversized_frame_fails_pending_kills_the_child_and_the_next_request_respawns() {
    for terminated in [true, false] {
        let fake = Fake::new(json!({"faults": [
            {"kind": "oversized_frame", "bytes": 67_108_865, "terminated": terminated, "on": "tools/call"}
        ]}));
        // 64 MiB has to arrive before the cap trips: a call timeout that a
        // loaded machine cannot miss, so the test judges the cap, not speed.
        let client = client_with(
            &fake,
            Timeouts {
                call: Duration::from_secs(60),
                rpc: Duration::from_secs(60),
                ..fast_timeouts()
            },
        );
        client.start().await.unwrap();
        let pid = client.pid().unwrap();
        let error = tools::call_tool(&client, "search", json!({}))
            .await
            .unwrap_err();
        assert_eq!(error, McpError::FrameTooLarge { limit: 67_108_864 });
        assert_eq!(
            error.to_string(),
            "gortex mcp frame exceeded 67108864 bytes"
        );
        assert!(common::eventually(Duration::from_secs(20), || !is_alive(pid)).await);
        assert_eq!(
            tools::list_tools(&client).await.unwrap().len(),
            21,
            "respawned"
        );
        assert_eq!(fake.mcp_pids().len(), 2);
        client.stop().await;
    }
}
