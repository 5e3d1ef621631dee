//! MCP-8, MCP-11 (improvement (b)): server requests are told apart from
//! responses by `method`; `ping` is answered `{}` and anything else `-32601`.

mod common;

use common::{captured, client, fast_timeouts, replay_client, Fake, SCRIPT_INIT_REPLY};
use serde_json::json;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_11_server_ping_is_answered_with_an_empty_result_and_the_same_id() {
    let fake = Fake::new(json!({"faults": [{"kind": "server_ping", "after": "tools/list"}]}));
    let client = client(&fake);
    client.start().await.unwrap();
    pi_gortex_runtime::mcp::tools::list_tools(&client)
        .await
        .unwrap();
    assert!(
        common::eventually(Duration::from_secs(3), || !fake
            .events("mcp", "answer")
            .is_empty())
        .await
    );
    let answer = &fake.events("mcp", "answer")[0];
    assert_eq!(answer["id"], "srv-1");
    assert_eq!(answer["request"], "ping");
    assert_eq!(answer["result"], json!({}));
    client.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_11_other_server_requests_get_method_not_found_echoing_the_id() {
    let fake = Fake::new(json!({"faults": [
        {"kind": "server_request", "method": "roots/list", "after": "tools/list", "id": 42},
        {"kind": "server_request", "method": "sampling/createMessage", "after": "notifications/initialized", "id": "s-7"}
    ]}));
    let client = client(&fake);
    client.start().await.unwrap();
    pi_gortex_runtime::mcp::tools::list_tools(&client)
        .await
        .unwrap();
    assert!(
        common::eventually(Duration::from_secs(3), || fake
            .events("mcp", "answer")
            .len()
            == 2)
        .await
    );
    let answers = fake.events("mcp", "answer");
    let by_id = |id: serde_json::Value| {
        answers
            .iter()
            .find(|a| a["id"] == id)
            .cloned()
            .expect("answered")
    };
    for id in [json!(42), json!("s-7")] {
        let answer = by_id(id);
        assert_eq!(
            answer["error"],
            json!({"code": -32601, "message": "Method not found"})
        );
        assert!(answer.get("result").is_none());
    }
    client.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_8_a_server_request_sharing_a_pending_id_does_not_settle_it() {
    // The server asks `roots/list` with id 1 while our `initialize` (id 1) is
    // pending, then answers initialize. 0.4.0 settled initialize with the request.
    let steps = json!([
        {"read": 1},
        {"send": r#"{"jsonrpc":"2.0","id":1,"method":"roots/list"}"#},
        {"read": 1},
        {"send": SCRIPT_INIT_REPLY}
    ]);
    let (client, fake) = replay_client(steps, fast_timeouts());
    let dir = &fake.dir;
    let info = client
        .start()
        .await
        .expect("initialize settled by its response");
    assert_eq!(info.server_version, "0.64.4");
    let frames = captured(dir);
    assert_eq!(
        frames[1],
        json!({"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}})
    );
    client.stop().await;
}
