//! MCP-15, MCP-28, MCP-29, SES-8 (improvement (e)): stop is final, kills and
//! reaps the child (escalating to SIGKILL), leaves nothing pending, and no
//! child outlives overlapping starts and stops, even when a superseded
//! start's handshake retry would have succeeded.

mod common;

use std::time::Duration;

use common::{client, client_with, fast_timeouts, is_alive, own_client, Fake};
use pi_gortex_runtime::mcp::{tools, McpError, Timeouts};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_28_stop_rejects_pending_kills_the_child_and_is_final() {
    let fake = Fake::new(json!({"calls": {"search": {"text": "slow", "delay_ms": 2000}}}));
    let client = client(&fake);
    client.start().await.unwrap();
    let pid = client.pid().unwrap();
    let pending = {
        let client = client.clone();
        tokio::spawn(async move { tools::call_tool(&client, "search", json!({})).await })
    };
    assert!(common::eventually(Duration::from_secs(2), || client.pending_count() == 1).await);
    client.stop().await;
    assert_eq!(
        pending.await.unwrap().unwrap_err().to_string(),
        "gortex mcp bridge stopped"
    );
    assert_eq!(client.pending_count(), 0, "MCP-29: nothing stays pending");
    assert!(!is_alive(pid), "killed and reaped before stop() returned");
    let later = tools::list_tools(&client).await.unwrap_err();
    assert_eq!(later, McpError::Stopped);
    assert_eq!(client.start().await.unwrap_err(), McpError::Stopped);
    assert_eq!(fake.mcp_pids(), [pid], "a stopped client never respawns");
}

// A `/bin/sh` child that traps SIGTERM: Unix only (Windows has no SIGTERM).
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_15_a_child_ignoring_sigterm_and_eof_is_sigkilled_after_the_grace() {
    // Handshakes, then ignores SIGTERM and never reads stdin again.
    let script = format!(
        "trap '' TERM; read -r line; printf '%s\\n' '{}'; exec sleep 30",
        common::SCRIPT_INIT_REPLY
    );
    let grace = Duration::from_millis(500);
    let (client, _dir) = common::script_client(
        &script,
        Timeouts {
            kill_grace: grace,
            ..fast_timeouts()
        },
    );
    client.start().await.unwrap();
    let pid = client.pid().unwrap();
    let started = std::time::Instant::now();
    client.stop().await;
    assert!(started.elapsed() >= grace, "waited for the grace first");
    assert!(!is_alive(pid), "SIGKILLed and reaped");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_15_stop_closes_stdin_so_a_cooperative_child_exits_on_its_own() {
    let fake = Fake::new(json!({}));
    let client = client(&fake);
    client.start().await.unwrap();
    let pid = client.pid().unwrap();
    client.stop().await;
    assert!(!is_alive(pid));
    let exits = fake.events("mcp", "exit");
    assert_eq!(exits.len(), 1);
    let reason = exits[0]["reason"].as_str().unwrap_or_default().to_string();
    assert!(reason == "stdin_eof" || reason == "sigterm", "{reason}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ses_8_a_superseded_start_whose_retry_would_succeed_leaves_no_child() {
    // The first initialize fails, so start() sleeps before its retry; the
    // session is superseded (stopped) during that sleep. 0.4.0's retry then
    // spawned a child nobody owned.
    let fake = Fake::new(json!({"faults": [{"kind": "failing_handshake", "n": 1}]}));
    let client = client_with(
        &fake,
        Timeouts {
            retry_backoff: Duration::from_millis(400),
            ..fast_timeouts()
        },
    );
    let starting = {
        let client = client.clone();
        tokio::spawn(async move { client.start().await })
    };
    assert!(
        common::eventually(Duration::from_secs(3), || fake
            .events("mcp", "recv")
            .iter()
            .any(|r| r["method"] == "initialize"))
        .await
    );
    tokio::time::sleep(Duration::from_millis(100)).await;
    client.stop().await;
    assert_eq!(starting.await.unwrap().unwrap_err(), McpError::Stopped);
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(fake.mcp_pids().len(), 1, "no retry after stop");
    assert!(fake.live_mcp_pids().is_empty());
}

#[cfg_attr(
    windows,
    ignore = "wine starts processes slowly: the children are stopped before they log their start"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_28_overlapping_session_starts_and_stops_leave_zero_live_children() {
    let fake = Fake::new(json!({
        "faults": [{"kind": "slow_handshake", "delay_ms": 150}, {"kind": "failing_handshake", "n": 3}]
    }));
    let mut previous: Option<pi_gortex_runtime::mcp::own_client::OwnClient> = None;
    let mut starts = Vec::new();
    for round in 0..8u64 {
        // Each new session stops the previous own client (SES-7 step 5), at
        // varying points of its start.
        let current = own_client(&fake);
        if let Some(old) = previous.take() {
            tokio::time::sleep(Duration::from_millis(40 * (round % 4))).await;
            old.stop().await;
        }
        let task = {
            let current = current.clone();
            tokio::spawn(async move { current.start().await })
        };
        starts.push(task);
        previous = Some(current);
    }
    let last = previous.unwrap();
    for start in starts {
        let _ = start.await.unwrap();
    }
    last.stop().await;
    assert!(fake.mcp_pids().len() >= 2, "children were really started");
    assert!(
        common::eventually(Duration::from_secs(2), || fake.live_mcp_pids().is_empty()).await,
        "leaked: {:?}",
        fake.live_mcp_pids()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_15_dropping_every_handle_kills_the_child() {
    let fake = Fake::new(json!({}));
    let pid = {
        let client = client(&fake);
        client.start().await.unwrap();
        client.pid().unwrap()
    };
    assert!(common::eventually(Duration::from_secs(3), || !is_alive(pid)).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_29_a_storm_of_calls_aborts_and_a_stop_settles_every_request_once() {
    let fake = Fake::new(json!({"calls": {"search": {"text": "slow", "delay_ms": 80}}}));
    let client = client(&fake);
    client.start().await.unwrap();
    let tasks: Vec<_> = (0..40u64)
        .map(|i| {
            let client = client.clone();
            tokio::spawn(async move {
                let abort = tokio_util::sync::CancellationToken::new();
                if i % 3 == 0 {
                    let trigger = abort.clone();
                    tokio::spawn(async move {
                        tokio::time::sleep(Duration::from_millis(i * 3)).await;
                        trigger.cancel();
                    });
                }
                tokio::time::sleep(Duration::from_millis(i * 2)).await;
                let tool = if i % 2 == 0 { "search" } else { "explore" };
                tools::call_tool_raw(&client, tool, json!({}), Some(&abort)).await
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(60)).await;
    client.stop().await;
    let mut outcomes = std::collections::BTreeMap::new();
    for task in tasks {
        let outcome = match task.await.unwrap() {
            Ok(_) => "ok".to_string(),
            Err(error) => error.to_string(),
        };
        *outcomes.entry(outcome).or_insert(0) += 1;
    }
    let allowed = ["ok", "tool call aborted", "gortex mcp bridge stopped"];
    assert!(
        outcomes.keys().all(|k| allowed.contains(&k.as_str())),
        "{outcomes:?}"
    );
    assert!(
        outcomes.contains_key("gortex mcp bridge stopped"),
        "{outcomes:?}"
    );
    assert_eq!(client.pending_count(), 0);
    assert!(fake.live_mcp_pids().is_empty());
}
