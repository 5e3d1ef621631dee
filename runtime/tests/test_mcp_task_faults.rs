//! Faults of the client's own machinery: a panic in
//! one of its spawned tasks (MCP-32) and a child that stops reading its
//! stdin (MCP-31) settle every pending request at once with a clear error,
//! instead of leaving it to its 600 s timeout or growing memory without end.

mod common;

use std::time::Duration;

use common::{eventually, fast_timeouts, is_alive, raw, Fake};
use pi_gortex_runtime::mcp::{ClientConfig, ClientTask, McpClient, McpError, Timeouts};
use serde_json::json;

/// Calls wait 600 s, as in production: only a prompt settlement passes.
fn long_call_timeouts() -> Timeouts {
    Timeouts {
        call: Duration::from_secs(600),
        ..fast_timeouts()
    }
}

/// A fake-gortex server that answers `initialize`, never answers `tools/call`, and whose
/// extra faults shape what it does with later frames.
fn fake_client(faults: serde_json::Value, max_backlog_bytes: Option<usize>) -> (Fake, McpClient) {
    let mut all = vec![json!({"kind": "hang", "method": "tools/call", "after_n": 1})];
    all.extend(faults.as_array().cloned().unwrap_or_default());
    let fake = Fake::new(json!({ "faults": all }));
    let mut config = ClientConfig::new(&fake.bin);
    config.extra_env = fake.env();
    config.timeouts = long_call_timeouts();
    if let Some(bound) = max_backlog_bytes {
        config.max_backlog_bytes = bound;
    }
    (fake, McpClient::new(config))
}

/// Starts a `tools/call` that will not be answered and waits until it is
/// pending.
async fn pending_call(
    client: &McpClient,
) -> tokio::task::JoinHandle<Result<pi_gortex_runtime::mcp::RawResponse, McpError>> {
    let caller = client.clone();
    let call = tokio::spawn(async move {
        caller
            .request("tools/call", &raw(json!({"name": "search"})), None)
            .await
    });
    assert!(eventually(Duration::from_secs(5), || client.pending_count() == 1).await);
    call
}

async fn settled_within(
    call: tokio::task::JoinHandle<Result<pi_gortex_runtime::mcp::RawResponse, McpError>>,
) -> McpError {
    tokio::time::timeout(Duration::from_secs(10), call)
        .await
        .expect("settled at once, not after the 600 s call timeout")
        .expect("the caller did not panic")
        .expect_err("the call fails")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_32_a_supervisor_panic_rejects_the_pending_call_at_once() {
    // The child answers the poke with a notification: the supervisor wakes for it and panics.
    let (_fake, client) = fake_client(
        json!([{"kind": "list_changed_burst", "count": 1, "after": "notifications/poke"}]),
        None,
    );
    client.start().await.unwrap();
    let pid = client.pid().unwrap();
    let call = pending_call(&client).await;
    client.debug_force_task_panic(ClientTask::Supervisor);
    client
        .notify("notifications/poke", &raw(json!({})))
        .unwrap();
    let error = settled_within(call).await;
    assert_eq!(error, McpError::TaskPanicked { task: "supervisor" });
    assert_eq!(
        error.to_string(),
        "gortex mcp client supervisor task failed"
    );
    assert_eq!(client.pending_count(), 0);
    assert!(
        eventually(Duration::from_secs(5), || !is_alive(pid)).await,
        "the child died with its handle"
    );
    client.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_32_a_stdin_writer_panic_rejects_the_pending_call_at_once() {
    let (_fake, client) = fake_client(json!([]), None);
    client.start().await.unwrap();
    let pid = client.pid().unwrap();
    let call = pending_call(&client).await;
    client.debug_force_task_panic(ClientTask::StdinWriter);
    let error = settled_within(call).await;
    assert_eq!(
        error.to_string(),
        "gortex mcp client stdin writer task failed"
    );
    assert!(eventually(Duration::from_secs(5), || !is_alive(pid)).await);
    // Marked exited, not stopped: the next request respawns (MCP-16).
    assert_eq!(
        client.exit_reason(),
        Some(McpError::TaskPanicked {
            task: "stdin writer"
        })
    );
    client.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_31_a_child_that_stops_reading_stdin_hits_the_backlog_bound() {
    // Answers initialize, then never reads its stdin again.
    let (_fake, client) = fake_client(
        json!([{"kind": "stop_reading", "after": "notifications/initialized"}]),
        Some(256 * 1024),
    );
    client.start().await.unwrap();
    let pid = client.pid().unwrap();
    let call = pending_call(&client).await;
    // 64 KiB frames: the pipe fills, then the backlog passes 256 KiB.
    let filler = "x".repeat(64 * 1024);
    for _ in 0..16 {
        if client.exit_reason().is_some() {
            break;
        }
        let _ = client.notify("notifications/filler", &raw(json!({ "pad": filler })));
    }
    let error = settled_within(call).await;
    assert_eq!(error, McpError::BacklogFull { limit: 256 * 1024 });
    assert_eq!(
        error.to_string(),
        "gortex mcp stdin backlog exceeded 262144 bytes"
    );
    assert!(
        eventually(Duration::from_secs(5), || !is_alive(pid)).await,
        "the child that stopped reading is killed"
    );
    client.stop().await;
}
