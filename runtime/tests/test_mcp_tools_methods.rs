//! MCP-25 (improvement (a)), MCP-26, MCP-27, MCP-9: paged listing, tool
//! calls, result text, and error responses.

mod common;

use common::{client, fast_timeouts, replay_client, Fake, SCRIPT_INIT_REPLY};
use pi_gortex_runtime::mcp::{tools, McpError};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_25_tools_list_follows_next_cursor_until_done() {
    let fake = Fake::new(json!({"page_size": 2}));
    let client = client(&fake);
    client.start().await.unwrap();
    let listed = tools::list_tools(&client).await.unwrap();
    assert_eq!(listed.len(), 21, "all 11 pages concatenated");
    let pages = fake
        .received_methods()
        .iter()
        .filter(|m| *m == "tools/list")
        .count();
    assert_eq!(pages, 11);
    let names: Vec<&str> = listed.iter().filter_map(|t| t["name"].as_str()).collect();
    assert!(names.contains(&"workspace_admin") && names.contains(&"analyze"));
    client.stop().await;
}

/// Replies to the nth tools/list with `pages[n-1]` (the last one again after them).
fn lister(pages: &[&str]) -> serde_json::Value {
    json!([
        {"read": 1},
        {"send": SCRIPT_INIT_REPLY},
        {"serve": [{"on": "tools/list", "replies": pages}]}
    ])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_25_first_page_sends_empty_params_then_the_cursor_and_stops_on_a_repeat() {
    let pages = [
        r#"{"jsonrpc":"2.0","id":{id},"result":{"tools":[{"name":"a"}],"nextCursor":"c1"}}"#,
        r#"{"jsonrpc":"2.0","id":{id},"result":{"tools":"oops","nextCursor":"c2"}}"#,
        r#"{"jsonrpc":"2.0","id":{id},"result":{"tools":[{"name":"b"}],"nextCursor":"c1"}}"#,
    ];
    let (client, fake) = replay_client(lister(&pages), fast_timeouts());
    client.start().await.unwrap();
    let listed = tools::list_tools(&client).await.unwrap();
    assert_eq!(
        listed,
        [json!({"name":"a"}), json!({"name":"b"})],
        "non-array tools counts as empty"
    );
    let params: Vec<_> = common::captured(&fake.dir)
        .into_iter()
        .filter(|f| f["method"] == "tools/list")
        .map(|f| f["params"].clone())
        .collect();
    assert_eq!(
        params,
        [json!({}), json!({"cursor":"c1"}), json!({"cursor":"c2"})]
    );
    client.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_25_listing_stops_after_100_pages() {
    let pages =
        [r#"{"jsonrpc":"2.0","id":{id},"result":{"tools":[{"name":"t{n}"}],"nextCursor":"c{n}"}}"#];
    let (client, _fake) = replay_client(lister(&pages), fast_timeouts());
    client.start().await.unwrap();
    let listed = tools::list_tools(&client).await.unwrap();
    assert_eq!(listed.len(), 100);
    assert_eq!(tools::MAX_LIST_PAGES, 100);
    client.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_26_27_tools_call_sends_name_and_arguments_and_joins_text_items() {
    let fake = Fake::new(json!({"calls": {"explore": {"text": "line one"}}}));
    let client = client(&fake);
    client.start().await.unwrap();
    let result = tools::call_tool(&client, "search", serde_json::Value::Null)
        .await
        .unwrap();
    assert_eq!(
        tools::result_text(&result),
        "[fake-gortex] search - {}",
        "null arguments become {{}}"
    );
    let result = tools::call_tool(&client, "explore", json!({"operation":"symbol"}))
        .await
        .unwrap();
    assert_eq!(tools::result_text(&result), "line one");
    assert_eq!(result["isError"], false);
    client.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_9_error_responses_reject_with_the_message_or_the_code() {
    let fake = Fake::new(json!({"tracked": false}));
    let client = client(&fake);
    client.start().await.unwrap();
    let error = tools::call_tool(&client, "search", json!({}))
        .await
        .unwrap_err();
    let McpError::Rpc { code, message } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(*code, Some(-32000));
    assert!(message.starts_with("repository not tracked: "), "{message}");
    client.stop().await;

    let steps = json!([
        {"read": 1},
        {"send": SCRIPT_INIT_REPLY},
        {"read": 2},
        {"send": r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32099}}"#}
    ]);
    let (client, _fake) = replay_client(steps, fast_timeouts());
    client.start().await.unwrap();
    let error = tools::list_tools(&client).await.unwrap_err();
    assert_eq!(error.to_string(), "JSON-RPC error -32099");
    client.stop().await;
}
