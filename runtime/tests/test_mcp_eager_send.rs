//! The own client's eager send: `OwnClient::send_call`
//! writes a tool call to the daemon on the caller's thread, before anything
//! awaits it, and `finish_call` then awaits the reply with the same timeout
//! (MCP-13), abort (MCP-30) and late-reply (MCP-8) rules as `call_tool`.

mod common;

use std::time::{Duration, Instant};

use common::{own_client, Fake};
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn tool_calls(fake: &Fake) -> usize {
    fake.received_methods()
        .iter()
        .filter(|m| *m == "tools/call")
        .count()
}

/// Polls `condition` with the thread blocked (no task of this runtime can run
/// meanwhile), until it holds or `limit` passes.
fn blocked_until(limit: Duration, condition: impl Fn() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if condition() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    condition()
}

/// On a single-threaded runtime whose thread stays blocked, no task can write
/// for the caller: the daemon sees the call only if `send_call` wrote it.
#[tokio::test(flavor = "current_thread")]
async fn a_sent_call_is_written_on_the_callers_thread() {
    let fake = Fake::new(json!({"calls": {"search": {"text": "found it"}}}));
    let own_client = own_client(&fake);
    own_client.start().await.unwrap();
    let call = own_client
        .send_call("search", json!({"query": "Hello"}), None)
        .expect("a started own client takes the call");
    // A generous limit: it bounds a wait, and under wine on a loaded machine
    // the fake takes seconds to read and log the call.
    assert!(
        blocked_until(Duration::from_secs(15), || tool_calls(&fake) == 1),
        "the daemon did not receive the call while the runtime was blocked"
    );
    let outcome = own_client.finish_call(call, None).await.unwrap();
    assert_eq!(outcome.text, "found it");
    assert!(!outcome.is_error);
    assert_eq!(own_client.client().pending_count(), 0);
    own_client.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn send_call_sends_nothing_when_the_own_client_cannot_take_the_call() {
    let fake = Fake::new(json!({}));
    let own_client = own_client(&fake);
    // Not started: `call_tool` must run instead, and it says why.
    assert!(own_client.send_call("search", json!({}), None).is_none());
    own_client.start().await.unwrap();
    // Already aborted (MCP-30): never written.
    let aborted = CancellationToken::new();
    aborted.cancel();
    assert!(own_client
        .send_call("search", json!({}), Some(&aborted))
        .is_none());
    // A later call's reply means the fake has read every earlier frame.
    let later = own_client.send_call("search", json!({}), None).unwrap();
    own_client.finish_call(later, None).await.unwrap();
    assert_eq!(tool_calls(&fake), 1, "only the later call was written");
    own_client.stop().await;
    assert!(own_client.send_call("search", json!({}), None).is_none());
    assert_eq!(tool_calls(&fake), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sent_call_dropped_unsettled_leaves_nothing_pending() {
    let fake = Fake::new(json!({"calls": {"read": {"text": "slow", "delay_ms": 300}}}));
    let own_client = own_client(&fake);
    own_client.start().await.unwrap();
    let call = own_client
        .send_call("gortex_read", json!({"operation": "file"}), None)
        .unwrap();
    assert_eq!(own_client.client().pending_count(), 1);
    drop(call);
    assert_eq!(own_client.client().pending_count(), 0);
    // The late reply is ignored (MCP-8); the next call gets its own reply.
    let next = own_client
        .send_call("search", json!({"query": "x"}), None)
        .unwrap();
    let outcome = own_client.finish_call(next, None).await.unwrap();
    assert!(!outcome.is_error);
    assert_ne!(outcome.text, "slow");
    own_client.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_aborted_sent_call_fails_at_once_and_tells_the_daemon() {
    let fake = Fake::new(json!({"calls": {"read": {"text": "slow", "delay_ms": 3000}}}));
    let own_client = own_client(&fake);
    own_client.start().await.unwrap();
    let abort = CancellationToken::new();
    let call = own_client
        .send_call("gortex_read", json!({"operation": "file"}), Some(&abort))
        .unwrap();
    let trigger = abort.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        trigger.cancel();
    });
    let error = tokio::time::timeout(
        Duration::from_secs(2),
        own_client.finish_call(call, Some(&abort)),
    )
    .await
    .expect("fails locally, before the daemon's reply")
    .unwrap_err();
    assert_eq!(error.to_string(), "gortex read failed: tool call aborted");
    assert!(
        common::eventually(Duration::from_secs(2), || fake
            .received_methods()
            .contains(&"notifications/cancelled".to_string()))
        .await
    );
    assert_eq!(own_client.client().pending_count(), 0);
    own_client.stop().await;
}
