//! Load: 1,000 concurrent tool calls through one own client against
//! fake-gortex. Not a timed test: it prints figures.
//!
//! Every call carries a unique query, and the fake echoes its arguments in
//! the reply, so a reply settled on the wrong request (a mismatched id) is
//! seen, not assumed away. Reports lost calls (errors), mismatched replies,
//! and latency quantiles from issue to settlement, per round.
//!
//! Run: `cargo run --release -p pi-gortex-runtime --example load_concurrent_calls [calls] [rounds]`

#[path = "support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use serde_json::json;
use support::{ms, quantile, Scratch};

fn main() {
    let mut args = std::env::args().skip(1);
    let calls: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let rounds: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(5);
    let runtime = tokio::runtime::Runtime::new().expect("tokio runtime");
    runtime.block_on(run(calls, rounds));
}

async fn run(calls: usize, rounds: usize) {
    let scratch = Scratch::new(&json!({}));
    let own_client = scratch.own_client(&[]);
    own_client
        .start()
        .await
        .expect("the own client starts on the fake");
    let mut all = Vec::new();
    let (mut lost, mut mismatched) = (0usize, 0usize);
    for round in 0..rounds {
        let started = Instant::now();
        let mut tasks = tokio::task::JoinSet::new();
        for i in 0..calls {
            let own_client = own_client.clone();
            tasks.spawn(async move {
                let query = format!("q-{round}-{i}");
                let issued = Instant::now();
                let outcome = own_client
                    .call_tool("search", json!({"operation": "text", "query": query}), None)
                    .await;
                let latency = issued.elapsed();
                let expected = format!("\"query\":\"{query}\"}}");
                match outcome {
                    Ok(outcome) if outcome.text.contains(&expected) => (latency, 0, 0),
                    Ok(_) => (latency, 0, 1),
                    Err(_) => (latency, 1, 0),
                }
            });
        }
        let mut latencies: Vec<Duration> = Vec::with_capacity(calls);
        while let Some(joined) = tasks.join_next().await {
            let (latency, l, m) = joined.expect("task ran");
            latencies.push(latency);
            lost += l;
            mismatched += m;
        }
        let wall = started.elapsed();
        latencies.sort();
        println!(
            "round {round}: {calls} calls in {}, p50 {}, p99 {}, max {}",
            ms(wall),
            ms(quantile(&latencies, 0.50)),
            ms(quantile(&latencies, 0.99)),
            ms(*latencies.last().unwrap_or(&Duration::ZERO)),
        );
        all.extend(latencies);
    }
    all.sort();
    println!(
        "total: {} calls, lost {lost}, mismatched {mismatched}, p50 {}, p99 {}, max {}, pending after {}",
        all.len(),
        ms(quantile(&all, 0.50)),
        ms(quantile(&all, 0.99)),
        ms(*all.last().unwrap_or(&Duration::ZERO)),
        own_client.client().pending_count(),
    );
    let children = scratch.received("initialize");
    own_client.stop().await;
    println!("children spawned: {children}");
}
