//! The hook wire types (WIRE-13, WIRE-15), until the generated ones land.
//! Field names and JSON tags mirror Go's `BridgeEvent` / `BridgeDecision`:
//! every optional field is omitted when `None`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Go `hooks.BridgeEvent`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HookEvent {
    /// Event name.
    pub event: String,
    /// Tool name of a `tool_call`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// Tool arguments of a `tool_call`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_input: Option<Map<String, Value>>,
    /// The session's working directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Pi's session id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The user's prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// True for a graph call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_gortex_tool: Option<bool>,
}

/// Go `hooks.BridgeDecision`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookDecision {
    /// Deny the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block: Option<bool>,
    /// Deny text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Soft guidance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_context: Option<String>,
    /// Session briefing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orientation: Option<String>,
}
