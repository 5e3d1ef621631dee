//! MCP-13, MCP-14 (improvement (d)): per-kind timeouts with the spec's text;
//! a child silent for a whole timeout window is killed and respawned, while a
//! slow call on a talking child only fails itself.

mod common;

use std::time::Duration;

use common::{client_with, fast_timeouts, is_alive, Fake};
use pi_gortex_runtime::mcp::{tools, Timeouts};
use serde_json::json;

#[test]
fn mcp_13_default_timeouts_are_the_specs() {
    let timeouts = Timeouts::default();
    assert_eq!(
        timeouts.for_method("initialize"),
        Duration::from_millis(60_000)
    );
    assert_eq!(
        timeouts.for_method("tools/call"),
        Duration::from_millis(600_000)
    );
    assert_eq!(
        timeouts.for_method("tools/list"),
        Duration::from_millis(30_000)
    );
    assert_eq!(timeouts.for_method("ping"), Duration::from_millis(30_000));
    assert_eq!(timeouts.kill_grace, Duration::from_millis(2_000));
    assert_eq!(timeouts.retry_backoff, Duration::from_millis(1_000));
}

fn short_call() -> Timeouts {
    Timeouts {
        call: Duration::from_millis(400),
        ..fast_timeouts()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_14_a_silent_child_is_killed_every_pending_request_fails_and_the_next_respawns() {
    let fake =
        Fake::new(json!({"faults": [{"kind": "hang", "method": "tools/call", "after_n": 1}]}));
    let client = client_with(&fake, short_call());
    client.start().await.unwrap();
    let first_pid = client.pid().unwrap();
    let (hung, also_hung) = tokio::join!(tools::call_tool(&client, "search", json!({})), async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        tools::call_tool(&client, "explore", json!({})).await
    });
    assert_eq!(
        hung.unwrap_err().to_string(),
        "tools/call timed out after 400ms"
    );
    assert_eq!(
        also_hung.unwrap_err().to_string(),
        "gortex mcp killed after tools/call timed out"
    );
    assert_eq!(client.pending_count(), 0);
    assert!(
        common::eventually(Duration::from_secs(3), || !is_alive(first_pid)).await,
        "wedged child killed"
    );
    let listed = tools::list_tools(&client)
        .await
        .expect("the next request respawns");
    assert_eq!(listed.len(), 21);
    assert_ne!(client.pid(), Some(first_pid));
    client.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_14_a_slow_call_on_a_talking_child_only_fails_itself() {
    let fake =
        Fake::new(json!({"faults": [{"kind": "hang", "method": "tools/call", "after_n": 1}]}));
    let client = client_with(&fake, short_call());
    client.start().await.unwrap();
    let pid = client.pid().unwrap();
    let chatter = async {
        for _ in 0..8 {
            tools::list_tools(&client)
                .await
                .expect("other frames keep arriving");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    let (hung, ()) = tokio::join!(tools::call_tool(&client, "search", json!({})), chatter);
    assert_eq!(
        hung.unwrap_err().to_string(),
        "tools/call timed out after 400ms"
    );
    assert_eq!(client.pid(), Some(pid), "not killed");
    assert!(is_alive(pid));
    assert!(client.exit_reason().is_none());
    client.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_13_a_late_reply_after_a_timeout_is_ignored() {
    let fake = Fake::new(json!({"calls": {"search": {"text": "late", "delay_ms": 600}}}));
    let client = client_with(&fake, short_call());
    client.start().await.unwrap();
    let chatter = async {
        for _ in 0..6 {
            let _ = tools::list_tools(&client).await;
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    let (late, ()) = tokio::join!(tools::call_tool(&client, "search", json!({})), chatter);
    assert!(late.is_err());
    tokio::time::sleep(Duration::from_millis(400)).await;
    let next = tools::call_tool(&client, "explore", json!({"operation": "x"}))
        .await
        .unwrap();
    assert!(
        tools::result_text(&next).starts_with("[fake-gortex] explore"),
        "{next}"
    );
    client.stop().await;
}
