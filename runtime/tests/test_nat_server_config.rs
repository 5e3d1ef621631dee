//! NAT-4 (the `registerMcpServer` config, checked against the schema) and
//! NAT-8 (the `mcp__gortex__` names).

mod common_config;

use common_config::env_map;
use pi_gortex_runtime::native::{
    bare_tool_name, is_native_gortex_tool, native_tool_name, native_tools_present, server_config,
    MCP_TOOL_PREFIX,
};
use serde_json::json;

#[test]
fn config_matches_wire_22_exactly() {
    let config = server_config("gortex", "nav", true, &env_map(&[]));
    let value = serde_json::to_value(&config).expect("json");
    assert_eq!(
        value,
        json!({"command":"gortex","args":["mcp"],"env":{"GORTEX_TOOLS":"nav","GORTEX_TOOLS_MODE":"defer"},
               "exposure":"direct","timeout":600,
               "description":"Gortex code graph of the indexed repositories: symbol search, source reads, usages, call chains, change impact and graph-aware edits."})
    );
    pi_gortex_schema::validate("NativeMcpServerConfig", &value).expect("valid per schema");
}

#[test]
fn core_preset_sends_an_empty_env() {
    let config = server_config("/opt/gortex", "core", true, &env_map(&[]));
    let value = serde_json::to_value(&config).expect("json");
    assert_eq!(value["env"], json!({}));
    assert_eq!(value["command"], "/opt/gortex");
}

#[test]
fn prefix_helpers() {
    assert_eq!(MCP_TOOL_PREFIX, "mcp__gortex__");
    assert_eq!(native_tool_name("read"), "mcp__gortex__read");
    assert_eq!(
        bare_tool_name("mcp__gortex__get_callers"),
        Some("get_callers")
    );
    assert_eq!(bare_tool_name("mcp__docs__read"), None);
    assert_eq!(bare_tool_name("mcp__gortex__"), None);
    assert!(is_native_gortex_tool("mcp__gortex__explore"));
    assert!(!is_native_gortex_tool("gortex_read"));
    assert!(native_tools_present(["read", "mcp__gortex__search"]));
    assert!(!native_tools_present(["read", "mcp__docs__search"]));
}

#[test]
fn cfg_20_with_autostart_off_gortex_mcp_is_told_to_start_no_daemon() {
    let config = server_config(
        "/opt/gortex",
        "nav",
        false,
        &env_map(&[("GORTEX_AUTOSTART", "1")]),
    );
    let value = serde_json::to_value(&config).expect("json");
    assert_eq!(
        value["env"],
        json!({"GORTEX_AUTOSTART":"0","GORTEX_TOOLS":"nav","GORTEX_TOOLS_MODE":"defer"}),
        "the setting wins over an exported GORTEX_AUTOSTART"
    );
    pi_gortex_schema::validate("NativeMcpServerConfig", &value).expect("valid per schema");
}
