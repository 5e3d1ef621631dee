//! Load: one burst of 10,000 `notifications/tools/list_changed` (fake fault
//! `list_changed_burst`) must cause at most 3 re-lists (TOOL-9).
//! Not a timed test: it prints figures.
//!
//! The burst follows the first `tools/call`. Re-lists are counted on the
//! fake's side (`recv` of `tools/list` in its log, minus the first listing),
//! after waiting well past the 200 ms debounce. Calls keep flowing during
//! the burst, to show the client is not starved by it.
//!
//! Run: `cargo run --release -p pi-gortex-runtime --example load_list_changed_burst [count]`

#[path = "support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use serde_json::json;
use support::{ms, Scratch};

fn main() {
    let count: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10_000);
    let runtime = tokio::runtime::Runtime::new().expect("tokio runtime");
    runtime.block_on(run(count));
}

async fn run(count: usize) {
    let scenario = json!({"faults": [
        {"kind": "list_changed_burst", "count": count, "spacing_ms": 0, "after": "tools/call"}
    ]});
    let scratch = Scratch::new(&scenario);
    let own_client = scratch.own_client(&[]);
    own_client
        .start()
        .await
        .expect("the own client starts on the fake");
    let lists_at_start = scratch.received("tools/list");

    let started = Instant::now();
    let first = own_client
        .call_tool(
            "search",
            json!({"operation": "text", "query": "burst"}),
            None,
        )
        .await;
    let mut calls_ok = usize::from(first.is_ok());
    // Keep calling through the burst and the quiet period after it.
    while started.elapsed() < Duration::from_secs(3) {
        let call = own_client
            .call_tool(
                "search",
                json!({"operation": "text", "query": "during"}),
                None,
            )
            .await;
        calls_ok += usize::from(call.is_ok());
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let relists = scratch.received("tools/list") - lists_at_start;
    let bursts = scratch.count("burst", "");
    let sent = scratch.list_changed_sent();
    println!(
        "burst of {count} list_changed (bursts fired: {bursts}, notifications logged sent: \
         {sent}): {relists} re-list(s) (limit 3); {calls_ok} calls ok during {}",
        ms(started.elapsed())
    );
    own_client.stop().await;
    assert!(relists <= 3, "{relists} re-lists for one burst");
}
