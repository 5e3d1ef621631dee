//! MCP-12, MCP-16: ids start at 1 and never reset; a burst of callers that
//! finds the child dead shares one respawn, and shares its failure.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{client, Fake};
use pi_gortex_runtime::mcp::tools;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_12_ids_start_at_1_and_continue_across_a_respawn() {
    let fake = Fake::new(json!({"faults": [{"kind": "crash_on_call", "n": 1}]}));
    let client = client(&fake);
    client.start().await.unwrap();
    tools::list_tools(&client).await.unwrap();
    assert!(tools::call_tool(&client, "search", json!({}))
        .await
        .is_err());
    tools::list_tools(&client).await.unwrap();
    let ids: Vec<u64> = fake
        .events("mcp", "recv")
        .iter()
        .filter_map(|r| r["id"].as_u64())
        .collect();
    // initialize 1, tools/list 2, tools/call 3 (crash), respawn initialize 4, tools/list 5
    assert_eq!(ids, [1, 2, 3, 4, 5]);
    client.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_16_concurrent_callers_share_one_respawn() {
    // Every handshake takes 300 ms, so the respawn is still in flight while
    // all six callers, released together by the barrier, find the child dead.
    let fake = Fake::new(json!({"faults": [
        {"kind": "crash_on_call", "n": 1},
        {"kind": "slow_handshake", "delay_ms": 300}
    ]}));
    let client = client(&fake);
    client.start().await.unwrap();
    assert!(tools::call_tool(&client, "search", json!({}))
        .await
        .is_err());
    assert!(common::eventually(Duration::from_secs(2), || client.exit_reason().is_some()).await);
    let barrier = Arc::new(tokio::sync::Barrier::new(6));
    // Collected, so all six tasks exist before the first is awaited.
    let calls: Vec<_> = (0..6)
        .map(|i| {
            let client = client.clone();
            let barrier = barrier.clone();
            tokio::spawn(async move {
                barrier.wait().await;
                tools::call_tool(&client, "explore", json!({"operation": format!("o{i}")})).await
            })
        })
        .collect();
    for call in calls {
        call.await.unwrap().expect("served by the respawned child");
    }
    assert_eq!(
        fake.mcp_pids().len(),
        2,
        "exactly one respawn for six concurrent callers"
    );
    let initializes = fake
        .received_methods()
        .iter()
        .filter(|m| *m == "initialize")
        .count();
    assert_eq!(initializes, 2);
    client.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_16_a_failed_respawn_rejects_every_waiting_caller_with_its_error() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("broken");
    // Serves until the marker exists; from then on every start exits 7.
    let fake = Fake::new(json!({"faults": [
        {"kind": "crash_on_call", "n": 1},
        {"kind": "exit_on_start", "exit_code": 7, "while_exists": marker, "stderr": "daemon gone\n"}
    ]}));
    let client = client(&fake);
    client.start().await.unwrap();
    std::fs::write(&marker, b"").unwrap();
    assert!(tools::call_tool(&client, "search", json!({}))
        .await
        .is_err());
    let calls: Vec<_> = (0..5)
        .map(|_| {
            let client = client.clone();
            tokio::spawn(async move { tools::list_tools(&client).await })
        })
        .collect();
    let mut errors = Vec::new();
    for call in calls {
        errors.push(call.await.unwrap().expect_err("respawn fails").to_string());
    }
    assert!(
        errors
            .iter()
            .all(|e| e == "gortex mcp exited with status 7: daemon gone"),
        "{errors:?}"
    );
    assert_eq!(
        fake.events("mcp", "start").len(),
        2,
        "one shared respawn attempt"
    );
    client.stop().await;
}
