//! MCP-30 (improvement (c)): an aborted tool call sends
//! `notifications/cancelled`, fails at once with `tool call aborted`, keeps
//! the child, and ignores the late reply.

mod common;

use std::time::{Duration, Instant};

use common::{captured, fast_timeouts, own_client, replay_client, Fake, SCRIPT_INIT_REPLY};
use pi_gortex_runtime::mcp::own_client::OwnClientError;
use pi_gortex_runtime::mcp::{tools, McpError};
use serde_json::json;
use tokio_util::sync::CancellationToken;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_30_abort_sends_cancelled_with_the_request_id_and_fails_at_once() {
    // Answers initialize, swallows the call (id 2), then answers it late
    // after the cancellation arrives, then answers a ping-like list (id 3).
    let steps = json!([
        {"read": 1},
        {"send": SCRIPT_INIT_REPLY},
        {"serve": [
            {"on": "notifications/cancelled", "replies": [r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"late"}]}}"#]},
            {"on": r#""id":3"#, "replies": [r#"{"jsonrpc":"2.0","id":3,"result":{"tools":[]}}"#]}
        ]}
    ]);
    let (client, fake) = replay_client(steps, fast_timeouts());
    let dir = &fake.dir;
    client.start().await.unwrap();
    let pid = client.pid().unwrap();
    let abort = CancellationToken::new();
    let trigger = abort.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(150)).await;
        trigger.cancel();
    });
    let started = Instant::now();
    let error = tools::call_tool_raw(&client, "search", json!({"q": 1}), Some(&abort))
        .await
        .unwrap_err();
    assert_eq!(error, McpError::Aborted);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "fails locally, at once"
    );
    assert_eq!(client.pending_count(), 0);
    // The late reply to id 2 is ignored; the next request gets its own reply.
    assert_eq!(
        tools::list_tools(&client).await.unwrap(),
        Vec::<serde_json::Value>::new()
    );
    assert_eq!(client.pid(), Some(pid), "the child is not killed");
    let frames = captured(dir);
    let cancelled = frames
        .iter()
        .find(|f| f["method"] == "notifications/cancelled")
        .expect("cancellation sent");
    assert_eq!(
        cancelled,
        &json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"aborted by the user"}})
    );
    client.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_30_an_aborted_own_client_call_reads_gortex_name_failed_tool_call_aborted() {
    let fake = Fake::new(json!({"calls": {"read": {"text": "slow", "delay_ms": 3000}}}));
    let own_client = own_client(&fake);
    own_client.start().await.unwrap();
    let abort = CancellationToken::new();
    let trigger = abort.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(150)).await;
        trigger.cancel();
    });
    let error = own_client
        .call_tool("gortex_read", json!({"operation": "file"}), Some(&abort))
        .await
        .unwrap_err();
    assert!(matches!(error, OwnClientError::CallFailed { .. }));
    assert_eq!(error.to_string(), "gortex read failed: tool call aborted");
    assert!(
        common::eventually(Duration::from_secs(2), || fake
            .received_methods()
            .contains(&"notifications/cancelled".to_string()))
        .await
    );
    own_client.stop().await;
}

/// An abort that arrives before the call is sent (Pi's
/// per-file locks were still being taken, or the signal was aborted from the
/// start) cancels the call: no `tools/call` frame and no cancellation are
/// ever written, and the call fails with the abort text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_30_an_abort_before_the_call_is_sent_means_it_is_never_sent() {
    let fake = Fake::new(json!({}));
    let own_client = own_client(&fake);
    own_client.start().await.unwrap();
    let abort = CancellationToken::new();
    abort.cancel();
    let error = own_client
        .call_tool("gortex_read", json!({"operation": "file"}), Some(&abort))
        .await
        .unwrap_err();
    assert_eq!(error.to_string(), "gortex read failed: tool call aborted");
    // A later call's reply means the fake has read every earlier frame.
    let later = own_client
        .call_tool("gortex_read", json!({"operation": "symbols"}), None)
        .await
        .expect("a later call works");
    assert!(later.text.contains("read symbols"), "{}", later.text);
    let methods = fake.received_methods();
    let calls = methods.iter().filter(|m| *m == "tools/call").count();
    assert_eq!(calls, 1, "only the later call was sent: {methods:?}");
    assert!(
        !methods.contains(&"notifications/cancelled".to_string()),
        "nothing to cancel: {methods:?}"
    );
    own_client.stop().await;
}
