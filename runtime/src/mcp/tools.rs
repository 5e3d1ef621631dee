//! The two tool methods of the own client: paged `tools/list` and
//! `tools/call`, plus the text rules of a result.

use std::collections::HashSet;

use pi_gortex_schema::mcp::{CallToolRequestParams, ListToolsRequestParams};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::client::McpClient;
use super::error::McpError;
pub use super::result_value::{is_error, model_text, result_text};
use super::routing::RawResponse;

/// Pages fetched at most by one listing.
pub const MAX_LIST_PAGES: usize = 100;

/// One `tools/list` page, read leniently: a missing or non-array `tools`
/// counts as empty, and only a non-empty string `nextCursor` continues.
#[derive(Debug, Default, Deserialize)]
struct ListPage {
    #[serde(default)]
    tools: Value,
    #[serde(default, rename = "nextCursor")]
    next_cursor: Value,
}

fn to_params<T: Serialize>(value: &T) -> Box<serde_json::value::RawValue> {
    serde_json::value::to_raw_value(value).expect("generated params always serialize")
}

/// Lists every tool, following `nextCursor` until done, for at most
/// [`MAX_LIST_PAGES`] pages or until a cursor repeats.
pub async fn list_tools(client: &McpClient) -> Result<Vec<Value>, McpError> {
    let mut tools = Vec::new();
    let mut seen_cursors = HashSet::new();
    let mut params = ListToolsRequestParams {
        cursor: None,
        extra: Map::new(),
    };
    for _ in 0..MAX_LIST_PAGES {
        let page: ListPage = client
            .request("tools/list", &to_params(&params), None)
            .await?
            .decode()
            .unwrap_or_default();
        if let Value::Array(listed) = page.tools {
            tools.extend(listed);
        }
        match page.next_cursor {
            Value::String(cursor) if !cursor.is_empty() && seen_cursors.insert(cursor.clone()) => {
                params.cursor = Some(cursor);
            }
            _ => break,
        }
    }
    Ok(tools)
}

/// Calls one tool by its bare daemon name and decodes its `result` into a
/// `Value`. Tests only: the product reads results undecoded.
#[cfg(any(test, feature = "test-support"))]
pub async fn call_tool(
    client: &McpClient,
    name: &str,
    arguments: Value,
) -> Result<Value, McpError> {
    let response = call_tool_raw(client, name, arguments, None).await?;
    let detail = |error: serde_json::Error| error.to_string();
    response.decode().map_err(|error| McpError::InvalidResult {
        method: "tools/call".to_string(),
        detail: detail(error),
    })
}

/// Calls one tool and returns the `result` undecoded, as it arrived.
pub async fn call_tool_raw(
    client: &McpClient,
    daemon_name: &str,
    arguments: Value,
    abort: Option<&CancellationToken>,
) -> Result<RawResponse, McpError> {
    let params = call_params(daemon_name, arguments);
    client.request(CALL_METHOD, &params, abort).await
}

/// The method of a tool call.
pub const CALL_METHOD: &str = "tools/call";

/// The `params` of one `tools/call`.
pub fn call_params(daemon_name: &str, arguments: Value) -> Box<serde_json::value::RawValue> {
    // Pi's arguments are always an object; anything else reads as `{}`.
    let arguments = match arguments {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    to_params(&CallToolRequestParams {
        name: daemon_name.to_string(),
        arguments: Some(arguments),
        meta: None,
        extra: Map::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn joins_only_string_text_items() {
        let result = json!({"content":[
            {"type":"text","text":"a"},
            {"type":"image","data":"x"},
            {"type":"text","text":5},
            {"type":"text","text":"b"}]});
        assert_eq!(result_text(&result), "a\nb");
        assert_eq!(result_text(&json!({"content":"no"})), "");
    }

    #[test]
    fn falls_back_to_structured_content_then_result() {
        assert_eq!(
            model_text(&json!({"content":[],"structuredContent":{"k":1}})),
            r#"{"k":1}"#
        );
        assert_eq!(
            model_text(&json!({"content":[],"isError":false})),
            r#"{"content":[],"isError":false}"#
        );
        assert_eq!(model_text(&Value::Null), "{}");
    }
}
