//! MCP-19, SES-9: start() retries once after the backoff; a second failure
//! is returned (and an own client that failed to start is stopped).

mod common;

use std::time::{Duration, Instant};

use common::{client_with, fast_timeouts, own_client, Fake};
use pi_gortex_runtime::mcp::own_client::OwnClientError;
use pi_gortex_runtime::mcp::Timeouts;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_19_one_failed_handshake_is_retried_after_the_backoff() {
    let fake = Fake::new(json!({"faults": [{"kind": "failing_handshake", "n": 1}]}));
    let backoff = Duration::from_millis(300);
    let client = client_with(
        &fake,
        Timeouts {
            retry_backoff: backoff,
            ..fast_timeouts()
        },
    );
    let started = Instant::now();
    client.start().await.expect("the retry succeeds");
    assert!(started.elapsed() >= backoff);
    let initializes = fake
        .received_methods()
        .iter()
        .filter(|m| *m == "initialize")
        .count();
    assert_eq!(initializes, 2);
    assert_eq!(
        fake.mcp_pids().len(),
        1,
        "the live child is re-initialized, not respawned"
    );
    client.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_19_a_second_failure_is_returned_and_the_own_client_is_stopped() {
    let fake = Fake::new(json!({"faults": [{"kind": "failing_handshake", "n": 2}]}));
    let own_client = own_client(&fake);
    let error = own_client.start().await.expect_err("two failures");
    assert_eq!(error.to_string(), "daemon warming up");
    assert!(
        own_client.client().is_stopped(),
        "SES-9: a failed start stops the client"
    );
    assert!(common::eventually(Duration::from_secs(2), || fake.live_mcp_pids().is_empty()).await);
    let call = own_client
        .call_tool("search", json!({}), None)
        .await
        .unwrap_err();
    assert_eq!(
        call,
        OwnClientError::NotConnected {
            name: "search".into()
        }
    );
    assert_eq!(
        call.to_string(),
        "gortex search: MCP bridge is not connected"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_19_an_initialize_timeout_kills_the_silent_child_and_the_retry_respawns() {
    // The first child never answers in time; the timeout is still generous
    // enough that a respawned debug fake on a loaded machine answers within it.
    let fake =
        Fake::new(json!({"faults": [{"kind": "slow_handshake", "delay_ms": 60000, "n": 1}]}));
    let client = client_with(
        &fake,
        Timeouts {
            initialize: Duration::from_millis(2_000),
            ..fast_timeouts()
        },
    );
    client.start().await.expect("the respawned child answers");
    assert_eq!(fake.mcp_pids().len(), 2);
    // Windows has no polite stop, so the silent child lives out its kill grace, which here is
    // longer than the retry's backoff: it is gone soon after, not necessarily before.
    let silent = fake.mcp_pids()[0];
    assert!(
        common::eventually(Duration::from_secs(5), || !common::is_alive(silent)).await,
        "the silent child is killed"
    );
    assert_eq!(fake.live_mcp_pids().len(), 1);
    client.stop().await;
}
