//! A declared member of an open MCP object must land in its typed field, never
//! in the catch-all `extra` map. A round trip cannot show the difference (both
//! paths re-serialize the member), so this reads the typed fields directly.
//! It caught `outputSchema` losing its wire name when it became an `Option`.

use pi_gortex_schema::host::{PathChoice, ToolWait, TurnPlan, TurnPlanTurn};
use pi_gortex_schema::mcp::Tool;
use serde_json::json;

#[test]
fn optional_object_member_keeps_its_camel_case_wire_name() {
    let tool: Tool = serde_json::from_value(json!({
        "name": "capabilities",
        "inputSchema": {"type": "object"},
        "outputSchema": {"type": "object"}
    }))
    .expect("a valid Tool");
    assert!(tool.output_schema.is_some(), "outputSchema went to extra");
    assert!(!tool.extra.contains_key("outputSchema"));
}

#[test]
fn host_answers_serialize_optional_collections_in_camel_case() {
    let choice = PathChoice {
        native: true,
        reason: "native".into(),
        server_config: Some(serde_json::Map::new()),
        server_name: "gortex".into(),
        tool_prefix: "mcp__gortex__".into(),
    };
    let value = serde_json::to_value(&choice).expect("serializes");
    assert!(value.get("serverConfig").is_some(), "{value}");
    let plan = TurnPlan {
        compacted: false,
        native_wait: Some(ToolWait {
            budget_ms: 2_000,
            names: Some(vec!["mcp__gortex__find_usages".into()]),
            poll_ms: 20,
        }),
        prompt: None,
        read_context: false,
        ready_wait_ms: None,
        turn: TurnPlanTurn::First,
    };
    let value = serde_json::to_value(&plan).expect("serializes");
    assert!(value.get("nativeWait").is_some(), "{value}");
}
