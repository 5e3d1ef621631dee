//! Soak: continuous tool calls with periodic `list_changed` for 5 minutes
//! (docs/reliability.md). Not a timed test: it prints figures.
//!
//! Workers call a tool back to back through one own client. Every
//! few seconds the fake sends a burst of 50 `list_changed` notifications,
//! so the debounced re-sync runs all along. Two ways to cause a burst:
//! - `tick` (default): the soak sends a request `soak/tick-<k>`; the fake
//!   answers `-32601` and fires the `k`th `list_changed_burst` fault keyed
//!   on that method. The tool list stays the same, so any memory growth is
//!   the client's, not the catalogue's.
//! - `promote`: a `tools_search` promotes one more deferred tool (legacy
//!   surface, `promote_notify.count_per_tool`), so the catalogue really
//!   grows by one tool per period.
//!
//! RSS and the open fd count of this process are sampled from
//! `/proc/self`; growth is measured from the end of the warm-up to the end.
//!
//! Run: `cargo run --release -p pi-gortex-runtime --example soak_calls [seconds] [warmup_seconds] [tick|promote]`

#[path = "support/mod.rs"]
mod support;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use support::{fd_count, rss_kib, Scratch};

/// Calls in flight at any time.
const WORKERS: usize = 4;

/// Names the fake defers when the eager list is only `search_text`
/// (FAKE-5); one is promoted per period, so the announcements last the run.
const DEFERRED: [&str; 38] = [
    "explore",
    "smart_context",
    "get_editing_context",
    "read_file",
    "get_symbol_source",
    "get_file_summary",
    "get_symbol",
    "search_symbols",
    "find_files",
    "find_usages",
    "find_implementations",
    "find_overrides",
    "get_callers",
    "get_call_chain",
    "get_dependencies",
    "get_dependents",
    "get_repo_outline",
    "graph_stats",
    "edit_file",
    "edit_symbol",
    "write_file",
    "batch_edit",
    "rename_symbol",
    "verify_change",
    "get_test_targets",
    "check_guards",
    "get_diagnostics",
    "analyze",
    "review",
    "get_architecture",
    "find_clones",
    "get_communities",
    "why",
    "get_churn_rate",
    "find_declaration",
    "get_class_hierarchy",
    "trace_path",
    "tool_profile",
];

fn main() {
    let mut args = std::env::args().skip(1);
    let seconds: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(300);
    let warmup: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(30);
    let promote = args.next().as_deref() == Some("promote");
    let runtime = tokio::runtime::Runtime::new().expect("tokio runtime");
    runtime.block_on(run(
        Duration::from_secs(seconds),
        Duration::from_secs(warmup),
        promote,
    ));
}

/// The `tick` method of burst `k`.
fn tick(k: usize) -> String {
    format!("soak/tick-{k}")
}

async fn run(total: Duration, warmup: Duration, promote: bool) {
    let bursts: Vec<_> = (0..DEFERRED.len())
        .map(|k| json!({"kind": "list_changed_burst", "count": 50, "after": tick(k)}))
        .collect();
    let scenario = json!({
        "promote_notify": {"count_per_tool": 50, "when": "after_reply"},
        "faults": if promote { json!([]) } else { json!(bursts) },
    });
    let scratch = Scratch::new(&scenario);
    let own_client = scratch.own_client(&[
        ("GORTEX_TOOLS", "search_text"),
        ("GORTEX_TOOLS_MODE", "defer"),
    ]);
    own_client
        .start()
        .await
        .expect("the own client starts on the fake");

    let stop = Arc::new(AtomicBool::new(false));
    let ok = Arc::new(AtomicU64::new(0));
    let failed = Arc::new(AtomicU64::new(0));
    let mut workers = tokio::task::JoinSet::new();
    for worker in 0..WORKERS {
        let (own_client, stop, ok, failed) =
            (own_client.clone(), stop.clone(), ok.clone(), failed.clone());
        workers.spawn(async move {
            let mut n = 0u64;
            while !stop.load(Ordering::Relaxed) {
                n += 1;
                let args = json!({"query": format!("w{worker}-{n}")});
                match own_client.call_tool("search_text", args, None).await {
                    Ok(_) => ok.fetch_add(1, Ordering::Relaxed),
                    Err(_) => failed.fetch_add(1, Ordering::Relaxed),
                };
            }
        });
    }

    let period = total / (DEFERRED.len() as u32 + 1);
    let started = Instant::now();
    let mut baseline: Option<(u64, usize)> = None;
    let mut promoted = 0;
    let mut samples = Vec::new();
    while started.elapsed() < total {
        tokio::time::sleep(period.min(Duration::from_secs(5))).await;
        let elapsed = started.elapsed();
        if promoted < DEFERRED.len() && elapsed >= period * (promoted as u32 + 1) {
            if promote {
                let query = format!("select:{}", DEFERRED[promoted]);
                let _ = own_client
                    .call_tool("tools_search", json!({"query": query}), None)
                    .await;
            } else {
                let params = serde_json::value::to_raw_value(&json!({})).expect("params");
                let _ = own_client
                    .client()
                    .request(&tick(promoted), &params, None)
                    .await;
            }
            promoted += 1;
        }
        let (rss, fds) = (rss_kib(), fd_count());
        if baseline.is_none() && elapsed >= warmup {
            baseline = Some((rss, fds));
        }
        samples.push((elapsed.as_secs(), rss, fds));
        println!(
            "t={:>4}s rss={rss} KiB fds={fds} calls ok={} failed={}",
            elapsed.as_secs(),
            ok.load(Ordering::Relaxed),
            failed.load(Ordering::Relaxed)
        );
    }
    stop.store(true, Ordering::Relaxed);
    while workers.join_next().await.is_some() {}

    let (base_rss, base_fds) = baseline.unwrap_or((rss_kib(), fd_count()));
    let (end_rss, end_fds) = (rss_kib(), fd_count());
    let max_fds = samples.iter().map(|s| s.2).max().unwrap_or(end_fds);
    let min_fds = samples
        .iter()
        .filter(|s| s.0 >= warmup.as_secs())
        .map(|s| s.2)
        .min();
    let growth = (end_rss as f64 - base_rss as f64) / base_rss as f64 * 100.0;
    let relists = scratch.received("tools/list");
    let notifications = scratch.list_changed_sent();
    println!(
        "soak {}s (mode {}): calls ok {} failed {}; bursts caused {promoted}; \
         list_changed sent {notifications}; tools/list received {relists}; \
         RSS after warm-up {base_rss} KiB -> end {end_rss} KiB ({growth:+.2}%); \
         fds after warm-up {base_fds}, end {end_fds}, range {:?}..{max_fds}; children spawned {}",
        total.as_secs(),
        if promote { "promote" } else { "tick" },
        ok.load(Ordering::Relaxed),
        failed.load(Ordering::Relaxed),
        min_fds,
        scratch.received("initialize"),
    );
    own_client.stop().await;
}
