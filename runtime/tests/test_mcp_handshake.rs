//! MCP-17, MCP-18 (WIRE-2..WIRE-4): the handshake request, what is read from
//! its result, and the `notifications/initialized` that follows.

mod common;

use common::{client, Fake};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_17_initialize_sends_pi_1_0_0_protocol_2025_06_18_and_the_wire_capability() {
    let fake = Fake::new(json!({}));
    let client = client(&fake);
    client.start().await.expect("handshake");
    let recv = fake.events("mcp", "recv");
    assert_eq!(recv[0]["method"], "initialize");
    assert_eq!(recv[0]["id"], 1);
    assert_eq!(
        recv[0]["params"],
        json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"experimental": {"gortex/wire": ["gcx"]}},
            "clientInfo": {"name": "pi", "version": "1.0.0"}
        })
    );
    client.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_18_reads_server_version_and_protocol_then_sends_initialized() {
    let fake = Fake::new(json!({"version": "0.64.4"}));
    let client = client(&fake);
    let info = client.start().await.expect("handshake");
    assert_eq!(info.server_version, "0.64.4");
    assert_eq!(info.protocol, "2025-11-25");
    assert!(
        common::eventually(std::time::Duration::from_secs(2), || fake
            .received_methods()
            .contains(&"notifications/initialized".to_string()))
        .await
    );
    assert_eq!(
        fake.received_methods()[..2],
        ["initialize", "notifications/initialized"]
    );
    client.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_18_missing_server_info_reads_as_empty_version() {
    let fake = Fake::new(json!({"version": null, "protocol": "2024-11-05"}));
    let client = client(&fake);
    let info = client.start().await.expect("handshake");
    assert_eq!(info.server_version, "");
    assert_eq!(info.protocol, "2024-11-05");
    client.stop().await;
}
