//! Boundary shapes of `schema/host.schema.json`, as serde types.
//!
//! These mirror the schema field for field (camelCase, as JavaScript sees
//! them) until the generated `pi_gortex_schema::host` types land; the schema
//! is the declaration, this file only binds it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `HostConfig`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HostConfig {
    pub bin: String,
    pub hook_argv: Vec<String>,
    pub enforce: bool,
    pub tools_preset: String,
    pub native_mcp: bool,
    pub prompt_context: bool,
    pub warnings: Vec<String>,
}

/// `PathRequest`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PathRequest {
    pub has_register_mcp_server: bool,
}

/// `PathChoice`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PathChoice {
    pub native: bool,
    pub reason: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_config: Option<Value>,
}

/// `ToolCallEvent`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallEvent {
    pub tool_call_id: String,
    pub tool_name: String,
    #[serde(default)]
    pub input: Value,
    #[serde(default)]
    pub parent_tool_call_id: Option<String>,
    pub cwd: String,
    #[serde(default)]
    pub session_id: String,
    #[serde(default)]
    pub native: bool,
}

/// `ToolCallAction`.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "action", rename_all = "camelCase")]
pub enum ToolCallAction {
    None,
    Block { reason: String },
    Steer { text: String },
}

/// `HiddenMessage` (the runtime's type serializes to the same shape).
pub type HiddenMessage = pi_gortex_runtime::session::HiddenMessage;

/// `FirstTurnRequest`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FirstTurnRequest {
    pub cwd: String,
    #[serde(default)]
    pub session_id: String,
    pub ready: bool,
    pub native: bool,
    pub briefing_in_context: bool,
    #[serde(default)]
    pub prompt: Option<String>,
}

/// `FirstTurnResult`.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FirstTurnResult {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<HiddenMessage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub briefing: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_warning: Option<String>,
}

/// `LaterTurnRequest`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LaterTurnRequest {
    pub cwd: String,
    #[serde(default)]
    pub session_id: String,
    pub compacted: bool,
    #[serde(default)]
    pub briefing: Option<String>,
    pub briefing_in_context: bool,
    #[serde(default)]
    pub prompt: Option<String>,
}

/// `LaterTurnResult`.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LaterTurnResult {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<HiddenMessage>,
}

/// `CatalogueUpdate`.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CatalogueUpdate {
    pub register: Vec<ToolRegistration>,
    pub deactivate: Vec<String>,
    pub activate: Vec<String>,
}

impl CatalogueUpdate {
    pub fn is_empty(&self) -> bool {
        self.register.is_empty() && self.deactivate.is_empty() && self.activate.is_empty()
    }
}

/// `ToolRegistration`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolRegistration {
    pub name: String,
    pub daemon_name: String,
    pub description: String,
    pub parameters: Value,
}

/// `OwnStartResult`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnStartResult {
    pub status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_warning: Option<String>,
    pub catalogue: CatalogueUpdate,
}

/// `ToolExecuteRequest`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolExecuteRequest {
    pub call_id: String,
    pub name: String,
    #[serde(default)]
    pub args: Value,
    pub cwd: String,
    #[serde(default)]
    pub diff: bool,
}

/// `ToolExecuteResult`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolExecuteResult {
    pub ok: bool,
    pub text: String,
    pub details: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub catalogue: Option<CatalogueUpdate>,
}

impl ToolExecuteResult {
    pub fn failed(text: String) -> Self {
        Self {
            ok: false,
            text,
            details: Value::Object(Default::default()),
            catalogue: None,
        }
    }
}

/// `WatchToolResult`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WatchToolResult {
    pub tool_call_id: String,
    pub tool_name: String,
    pub is_error: bool,
    pub cwd: String,
    #[serde(default)]
    pub details: Value,
    #[serde(default)]
    pub text: Option<String>,
}

/// `WatchResultAction`.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WatchResultAction {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub await_tools: Vec<String>,
}

/// `CallLine`.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CallLine {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub operation: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    pub pairs: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read: Option<ReadCall>,
}

/// `CallLine.read`.
#[derive(Debug, Clone, Serialize)]
pub struct ReadCall {
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<f64>,
}

/// Serializes a boundary answer; a failure (impossible for these types)
/// fails open to `null`.
pub fn to_js<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// Deserializes a boundary request, `None` when the glue sent a bad shape.
pub fn from_js<T: serde::de::DeserializeOwned>(value: Value) -> Option<T> {
    serde_json::from_value(value).ok()
}
