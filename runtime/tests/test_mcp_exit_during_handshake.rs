//! MCP-4, MCP-19 (fault matrix row "exit during the handshake"): a child
//! that exits after reading `initialize`, without answering, fails that
//! attempt; the one retry respawns and succeeds, and only the new child
//! lives. (A second failure being returned is
//! `test_mcp_start_retry::mcp_19_a_second_failure_is_returned_and_the_own_client_is_stopped`.)

mod common;

use std::time::Duration;

use common::{client_with, fast_timeouts, Fake};
use pi_gortex_runtime::mcp::Timeouts;
use serde_json::json;

fn timeouts() -> Timeouts {
    Timeouts {
        retry_backoff: Duration::from_millis(100),
        ..fast_timeouts()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_19_an_exit_mid_handshake_is_retried_on_a_respawned_child() {
    let fake =
        Fake::new(json!({"faults": [{"kind": "crash_on_call", "method": "initialize", "n": 1}]}));
    let client = client_with(&fake, timeouts());
    client.start().await.expect("the retry succeeds");
    assert_eq!(fake.mcp_pids().len(), 2, "the exited child was replaced");
    assert_eq!(fake.live_mcp_pids().len(), 1, "only the new child lives");
    client.stop().await;
    assert!(common::eventually(Duration::from_secs(3), || fake.live_mcp_pids().is_empty()).await);
}
