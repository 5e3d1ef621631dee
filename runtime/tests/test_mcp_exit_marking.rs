//! MCP-4, MCP-3: spawn failure and child exit mark the client exited with the
//! spec's texts (plus status and stderr tail), rejecting what is pending; a
//! chatty stderr never blocks the child.

mod common;

use common::{client, fast_timeouts, Fake};
use pi_gortex_runtime::mcp::{tools, ClientConfig, McpClient, McpError};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_4_spawn_failure_reads_gortex_mcp_spawn_failed() {
    let mut config = ClientConfig::new("/nonexistent/gortex-binary");
    config.timeouts = fast_timeouts();
    let client = McpClient::new(config);
    let error = client.start().await.expect_err("no such binary");
    assert_eq!(error.to_string(), "gortex mcp spawn failed");
    assert!(matches!(error, McpError::SpawnFailed { .. }));
    assert_eq!(
        client.exit_reason().map(|e| e.to_string()).as_deref(),
        Some("gortex mcp spawn failed")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_4_a_child_exit_rejects_the_pending_call_with_status_and_stderr_tail() {
    let fake = Fake::new(json!({"faults": [{"kind": "crash_on_call", "n": 1, "exit_code": 3}]}));
    let client = client(&fake);
    client.start().await.unwrap();
    let error = tools::call_tool(&client, "search", json!({"operation":"text","query":"x"}))
        .await
        .expect_err("the child crashed");
    let text = error.to_string();
    assert!(
        text.starts_with("gortex mcp exited with status 3"),
        "{text}"
    );
    assert_eq!(client.pending_count(), 0);
    client.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_4_exit_on_start_fails_the_handshake_with_the_exit_text() {
    let fake = Fake::new(json!({"faults": [{"kind": "exit_on_start", "exit_code": 1}]}));
    let client = client(&fake);
    let error = client.start().await.expect_err("child exits twice");
    assert!(
        error
            .to_string()
            .starts_with("gortex mcp exited with status 1"),
        "{error}"
    );
    assert_eq!(fake.mcp_pids().len(), 2, "the retry respawned once");
    assert!(fake.live_mcp_pids().is_empty());
}

// Its child is a `/bin/sh` script: Unix only.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_4_the_stderr_tail_explains_the_exit() {
    let (client, _dir) = common::script_client(
        "echo 'fatal: cannot open graph' >&2; exit 1",
        fast_timeouts(),
    );
    let error = client.start().await.expect_err("exits");
    assert_eq!(
        error.to_string(),
        "gortex mcp exited with status 1: fatal: cannot open graph"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_3_a_flooded_stderr_never_blocks_the_child() {
    let fake = Fake::new(json!({"faults": [{"kind": "stderr_flood", "bytes": 4_194_304}]}));
    let client = client(&fake);
    client
        .start()
        .await
        .expect("handshake despite 4 MiB of stderr");
    let listed = tools::list_tools(&client).await.unwrap();
    assert_eq!(listed.len(), 21);
    client.stop().await;
}
