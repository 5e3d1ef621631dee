//! TOOL-6..TOOL-10 and MCP-1, MCP-2, MCP-21..MCP-24 through the own-client
//! own client against fake-gortex: daemon launch, environment, skew report,
//! tool execution, promotion, debounced re-sync and withdrawals.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{fast_timeouts, own_client, Fake};
use pi_gortex_runtime::catalogue::CatalogueChanges;
use pi_gortex_runtime::mcp::own_client::{OwnClient, OwnClientConfig};
use pi_gortex_runtime::version::SkewKind;
use serde_json::json;

fn own_client_with_env(fake: &Fake, extra: &[(&str, &str)]) -> OwnClient {
    let mut config = OwnClientConfig::new(&fake.bin);
    config.extra_env = fake.env();
    for (key, value) in extra {
        config.extra_env.push((key.into(), value.into()));
    }
    config.timeouts = fast_timeouts();
    OwnClient::new(config)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_1_start_launches_the_daemon_detached_and_ignores_its_failure() {
    let fake = Fake::new(
        json!({"faults": [{"kind": "daemon_start_fail", "exit_code": 4, "stderr": "boom"}]}),
    );
    let own_client = own_client(&fake);
    own_client
        .start()
        .await
        .expect("a failing daemon start is ignored");
    assert!(
        common::eventually(Duration::from_secs(3), || !fake
            .events("daemon", "start")
            .is_empty())
        .await
    );
    let start = &fake.events("daemon", "start")[0];
    assert_eq!(
        start["argv"].as_array().unwrap()[1..],
        [json!("daemon"), json!("start"), json!("--detach")]
    );
    own_client.stop().await;

    let quiet = Fake::new(json!({}));
    let mut config = OwnClientConfig::new(&quiet.bin);
    config.extra_env = quiet.env();
    config.launch_daemon = false;
    let own_client = OwnClient::new(config);
    own_client.start().await.unwrap();
    own_client.stop().await;
    assert!(quiet.events("daemon", "start").is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_2_the_child_gets_the_preset_environment_and_the_working_directory() {
    let fake = Fake::new(json!({}));
    let cwd = tempfile::tempdir().unwrap();
    let mut config = OwnClientConfig::new(&fake.bin);
    config.extra_env = fake.env();
    config.extra_env.push(("GORTEX_TOOLS".into(), "nav".into()));
    config
        .extra_env
        .push(("GORTEX_TOOLS_MODE".into(), "defer".into()));
    config.cwd = Some(cwd.path().to_path_buf());
    config.launch_daemon = false;
    let own_client = OwnClient::new(config);
    own_client.start().await.unwrap();
    let start = &fake.events("mcp", "start")[0];
    assert_eq!(start["env"]["GORTEX_TOOLS"], "nav");
    assert_eq!(start["env"]["GORTEX_TOOLS_MODE"], "defer");
    assert_eq!(
        std::fs::canonicalize(start["cwd"].as_str().unwrap()).unwrap(),
        std::fs::canonicalize(cwd.path()).unwrap()
    );
    assert_eq!(fake.live_mcp_pids().len(), 1, "exactly one live child");
    own_client.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_21_24_a_stale_daemon_gets_one_warning_and_keeps_every_tool() {
    let fake = Fake::new(json!({"version": "0.60.0"}));
    let own_client = own_client(&fake);
    let report = own_client.start().await.unwrap();
    let skew = report.skew.expect("stale");
    assert_eq!(skew.kind, SkewKind::Stale);
    assert_eq!(
        skew.user_text,
        "gortex 0.60.0 is older than 0.61.2, which this extension needs. Graph tools and read discipline may be missing or wrong. Run `gortex upgrade`."
    );
    assert!(skew
        .model_text
        .starts_with("[Gortex] the daemon is gortex 0.60.0"));
    assert_eq!(report.catalogue_changes.register.len(), 21, "advisory only");
    own_client.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_21_protocol_skew_and_no_skew() {
    let fake = Fake::new(json!({"version": null, "protocol": "2023-01-01"}));
    let own_client = own_client(&fake);
    let report = own_client.start().await.unwrap();
    assert_eq!(report.protocol, "2023-01-01");
    let skew = report.skew.expect("protocol skew");
    assert_eq!(
        skew.kind,
        SkewKind::Protocol {
            negotiated: "2023-01-01".into()
        }
    );
    assert_eq!(
        skew.model_text,
        "[Gortex] the daemon negotiated MCP protocol 2023-01-01 instead of 2025-11-25. A graph tool call may fail. If one does, tell the user to run `gortex upgrade`."
    );
    assert!(skew
        .user_text
        .starts_with("an unreported version answered the handshake"));
    own_client.stop().await;
    for scenario in [json!({"version": "0.64.4"}), json!({"version": null})] {
        let fake = Fake::new(scenario);
        let own_client = common::own_client(&fake);
        assert_eq!(own_client.start().await.unwrap().skew, None);
        own_client.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_6_an_aliased_tool_calls_its_bare_daemon_name() {
    let fake = Fake::new(json!({}));
    let own_client = own_client(&fake);
    let report = own_client.start().await.unwrap();
    let names: Vec<&str> = report
        .catalogue_changes
        .register
        .iter()
        .map(|d| d.name.as_str())
        .collect();
    assert!(
        names.contains(&"gortex_read")
            && names.contains(&"gortex_edit")
            && names.contains(&"search")
    );
    assert!(!names.contains(&"read"));
    assert_eq!(own_client.daemon_name("gortex_read"), "read");
    let outcome = own_client
        .call_tool(
            "gortex_read",
            json!({"operation": "summary", "target": {"file": "a.go"}}),
            None,
        )
        .await
        .unwrap();
    assert!(
        outcome.text.starts_with("[fake-gortex] read summary "),
        "{}",
        outcome.text
    );
    assert!(!outcome.is_error);
    assert_eq!(outcome.catalogue_changes, None);
    own_client.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_6_is_error_results_and_fallback_texts() {
    let fake = Fake::new(json!({"calls": {
        "search": {"text": "edit failed: match not found in a.go", "is_error": true},
        "trace": {"text": "", "is_error": true},
        "explore": {"text": "", "structured": {"k": 1}}
    }}));
    let own_client = own_client(&fake);
    own_client.start().await.unwrap();
    let failed = own_client
        .call_tool("search", json!({}), None)
        .await
        .unwrap();
    assert!(failed.is_error);
    assert_eq!(failed.text, "edit failed: match not found in a.go");
    let empty = own_client
        .call_tool("trace", json!({}), None)
        .await
        .unwrap();
    assert!(empty.is_error);
    assert_eq!(empty.text, "gortex trace failed");
    let structured = own_client
        .call_tool("explore", json!({}), None)
        .await
        .unwrap();
    assert_eq!(structured.text, r#"{"k":1}"#);
    assert_eq!(
        structured.raw_result.to_value()["structuredContent"],
        json!({"k": 1})
    );
    own_client.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_6_a_transport_failure_reads_gortex_name_failed_message() {
    let fake = Fake::new(json!({"faults": [{"kind": "crash_on_call", "n": 1, "exit_code": 2}]}));
    let own_client = own_client(&fake);
    own_client.start().await.unwrap();
    let error = own_client
        .call_tool("search", json!({}), None)
        .await
        .unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("gortex search failed: gortex mcp exited with status 2"),
        "{error}"
    );
    let again = own_client
        .call_tool("search", json!({}), None)
        .await
        .expect("respawned");
    assert!(!again.is_error);
    own_client.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_8_a_tools_search_call_returns_after_its_promoted_tools_are_registered() {
    let fake = Fake::new(
        json!({"promote_notify": {"count_per_tool": 1, "when": "after_reply", "spacing_ms": 0}}),
    );
    let own_client = own_client_with_env(
        &fake,
        &[("GORTEX_TOOLS", "nav"), ("GORTEX_TOOLS_MODE", "defer")],
    );
    let report = own_client.start().await.unwrap();
    let first: Vec<String> = report
        .catalogue_changes
        .register
        .iter()
        .map(|d| d.name.clone())
        .collect();
    assert!(first.contains(&"tools_search".to_string()));
    assert!(!first.contains(&"find_clones".to_string()));
    let outcome = own_client
        .call_tool("tools_search", json!({"query": "select:find_clones"}), None)
        .await
        .unwrap();
    assert!(outcome.text.contains("find_clones"), "{}", outcome.text);
    let changes = outcome
        .catalogue_changes
        .expect("re-synced before returning");
    let promoted: Vec<&str> = changes.register.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(promoted, ["find_clones"]);
    assert_eq!(own_client.daemon_name("find_clones"), "find_clones");
    own_client.stop().await;
}

fn collecting_listener(own_client: &OwnClient) -> Arc<Mutex<Vec<CatalogueChanges>>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    own_client.set_catalogue_listener(Some(Arc::new(move |changes| {
        sink.lock().unwrap().push(changes)
    })));
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_9_a_burst_of_list_changed_yields_one_relist_after_200_ms_of_quiet() {
    let fake = Fake::new(
        json!({"faults": [{"kind": "list_changed_burst", "count": 8, "spacing_ms": 30, "after": "tools/list"}]}),
    );
    let mut config = OwnClientConfig::new(&fake.bin);
    config.extra_env = fake.env();
    config.timeouts = fast_timeouts();
    assert_eq!(config.sync_debounce, Duration::from_millis(200));
    let own_client = OwnClient::new(config);
    own_client.start().await.unwrap();
    let count = || {
        fake.received_methods()
            .iter()
            .filter(|m| *m == "tools/list")
            .count()
    };
    // Events, not wall-clock windows: wait for the re-list, then judge it by
    // the fake's own timestamps. A re-list may only start after 200 ms of
    // quiet since the notification before it, and a burst of eight must not
    // turn into one re-list each.
    assert!(common::eventually(Duration::from_secs(20), || count() >= 2).await);
    let log = fake.records();
    let relist_at = log
        .iter()
        .filter(|r| r["ev"] == "recv" && r["method"] == "tools/list")
        .nth(1)
        .and_then(|r| r["t"].as_u64())
        .expect("the re-list was logged");
    let quiet_since = log
        .iter()
        .filter(|r| r["ev"] == "send" && r["method"] == "notifications/tools/list_changed")
        .filter_map(|r| r["t"].as_u64())
        .filter(|t| *t <= relist_at)
        .max()
        .expect("the burst was logged");
    assert!(
        relist_at - quiet_since >= 200,
        "re-listed {} ms after the last notification",
        relist_at - quiet_since
    );
    assert!(count() <= 3, "{} re-lists for a burst of 8", count() - 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_9_stopping_the_own_client_clears_a_pending_debounce_timer() {
    // A burst arrives, and the own client stops while its (long) debounce is
    // still pending. Stop must clear the timer: every task the own client spawned
    // is gone well before the debounce would have fired, and no re-list ran.
    let runtime = tokio::runtime::Handle::current();
    let baseline = runtime.metrics().num_alive_tasks();
    let fake = Fake::new(
        json!({"faults": [{"kind": "list_changed_burst", "count": 5, "spacing_ms": 0, "after": "tools/list"}]}),
    );
    let mut config = OwnClientConfig::new(&fake.bin);
    config.extra_env = fake.env();
    config.timeouts = fast_timeouts();
    config.launch_daemon = false;
    config.sync_debounce = Duration::from_secs(30);
    let own_client = OwnClient::new(config);
    let seen = collecting_listener(&own_client);
    own_client.start().await.unwrap();
    let burst_sent = || {
        fake.records()
            .iter()
            .filter(|r| r["ev"] == "send" && r["method"] == "notifications/tools/list_changed")
            .count()
            == 5
    };
    assert!(common::eventually(Duration::from_secs(20), burst_sent).await);
    // A reply read after the burst: the reader has handed every notification
    // of the burst to the debounce by now, so its timer is pending.
    own_client
        .call_tool("search", json!({}), None)
        .await
        .expect("a call after the burst");
    own_client.stop().await;
    assert!(
        common::eventually(Duration::from_secs(10), || runtime
            .metrics()
            .num_alive_tasks()
            <= baseline)
        .await,
        "{} tasks still alive after stop (baseline {baseline}): the debounce timer outlived the own client",
        runtime.metrics().num_alive_tasks()
    );
    let lists = fake
        .received_methods()
        .iter()
        .filter(|m| *m == "tools/list")
        .count();
    assert_eq!(lists, 1, "no re-list after stop");
    assert!(seen.lock().unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_9_notifications_before_the_handshake_completes_are_ignored() {
    let changed = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}"#;
    let fake = Fake::new(json!({"replay": [
        {"read": 1},
        {"send": changed},
        {"send": changed},
        {"send": changed},
        {"send": common::SCRIPT_INIT_REPLY},
        {"serve": [{"on": "tools/list", "replies": [r#"{"jsonrpc":"2.0","id":{id},"result":{"tools":[{"name":"search"}]}}"#]}]}
    ]}));
    let capture = fake.dir.path().join("stdin.jsonl");
    let mut config = OwnClientConfig::new(&fake.bin);
    config.launch_daemon = false;
    config.timeouts = fast_timeouts();
    config.extra_env = fake.env();
    config
        .extra_env
        .push(("CAPTURE".into(), capture.clone().into()));
    let own_client = OwnClient::new(config);
    own_client.start().await.unwrap();
    // Proving an absence needs a window: five debounce periods.
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    let lists = std::fs::read_to_string(&capture)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains("tools/list"))
        .count();
    assert_eq!(lists, 1, "only the first listing");
    own_client.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_10_withdrawn_tools_are_deactivated_and_relisted_ones_come_back() {
    // The fake announces each change with list_changed after listing N and
    // applies it from listing N+1: listing 2 drops `trace`, listing 3 has it.
    let fake = Fake::new(json!({"faults": [
        {"kind": "withdraw", "tools": ["trace"], "after_list": 1},
        {"kind": "relist", "tools": ["trace"], "after_list": 2}
    ]}));
    let own_client = own_client(&fake);
    let seen = collecting_listener(&own_client);
    let report = own_client.start().await.unwrap();
    assert!(report
        .catalogue_changes
        .register
        .iter()
        .any(|d| d.name == "trace"));
    assert!(common::eventually(Duration::from_secs(3), || seen.lock().unwrap().len() == 2).await);
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen[0].deactivate, ["trace"]);
    assert!(seen[0].register.is_empty() && seen[0].activate.is_empty());
    assert_eq!(seen[1].activate, ["trace"]);
    assert_eq!(
        seen[1]
            .register
            .iter()
            .map(|d| d.name.as_str())
            .collect::<Vec<_>>(),
        ["trace"]
    );
    assert!(seen[1].deactivate.is_empty());
    assert_eq!(own_client.daemon_name("trace"), "trace");
    own_client.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_32_a_panic_in_a_debounced_resync_costs_that_resync_only() {
    // The debounce runs each re-sync in its own task. A
    // panic there loses that re-sync and leaves nothing pending; the client
    // keeps serving calls and the next burst still re-syncs.
    // The runtime's panic guard records the re-sync's panic (and prints nothing).
    pi_gortex_runtime::guard::install_panic_hook();
    let mut recorded = Vec::new();
    let fake = Fake::new(json!({"faults": [
        // list_changed after the first listing, which hides `trace` from the second.
        {"kind": "withdraw", "tools": ["trace"], "after_list": 1},
        // A second burst, once the first tool call is answered.
        {"kind": "list_changed_burst", "count": 1, "spacing_ms": 0, "after": "tools/call"}
    ]}));
    let own_client = own_client(&fake);
    let seen = collecting_listener(&own_client);
    own_client.debug_force_resync_panic();
    own_client.start().await.unwrap();
    let forced = || {
        recorded.extend(pi_gortex_runtime::guard::take_recorded());
        recorded
            .iter()
            .any(|m: &String| m.contains("debug_force_resync_panic"))
    };
    assert!(
        common::eventually(Duration::from_secs(10), forced).await,
        "the first burst's re-sync ran and panicked"
    );
    assert_eq!(
        own_client.client().pending_count(),
        0,
        "nothing left pending"
    );
    assert!(seen.lock().unwrap().is_empty(), "that re-sync is lost");

    let outcome = own_client
        .call_tool(
            "search",
            json!({"operation": "symbols", "query": "x"}),
            None,
        )
        .await
        .unwrap();
    assert!(!outcome.is_error, "{}", outcome.text);
    assert!(
        common::eventually(Duration::from_secs(10), || !seen.lock().unwrap().is_empty()).await,
        "the next burst re-synced"
    );
    assert_eq!(seen.lock().unwrap()[0].deactivate, ["trace"]);
    own_client.stop().await;
}
