//! The boundary shapes of `schema/host.schema.json`, as generated into
//! `pi_gortex_schema::host`, plus the two conversions every export uses.
//! Nothing here declares a shape: the schema is the declaration.

use serde_json::{Map, Value};

pub use pi_gortex_schema::host::{
    CallLine, CallLineRead, CatalogueUpdate, CliOutput, FirstTurnRequest, FirstTurnResult,
    HiddenMessage, HiddenMessageDetails, HostConfig, LaterTurnRequest, LaterTurnResult,
    OwnStartResult, OwnStartResultStatus, PathChoice, PathRequest, StatusRequest, StatusView,
    ToolCallAction, ToolCallEvent, ToolExecuteRequest, ToolExecuteResult, ToolRegistration,
    WatchResultAction, WatchToolResult,
};

/// The runtime's hidden message in the boundary shape (WIRE-23).
pub fn hidden_message(message: pi_gortex_runtime::session::HiddenMessage) -> HiddenMessage {
    HiddenMessage {
        content: message.content,
        custom_type: message.custom_type,
        details: HiddenMessageDetails {
            briefing: message.details.briefing,
        },
        display: message.display,
    }
}

/// A JSON object, or an empty one for anything else.
pub fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// An own-client execution that failed: the glue throws `text`.
pub fn failed_execution(text: String) -> ToolExecuteResult {
    ToolExecuteResult {
        catalogue: None,
        details: Map::new(),
        ok: false,
        text,
    }
}

/// Serializes a boundary answer; a failure (impossible for these types)
/// fails open to `null`.
pub fn to_js<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// Deserializes a boundary request, `None` when the glue sent a bad shape.
pub fn from_js<T: serde::de::DeserializeOwned>(value: Value) -> Option<T> {
    serde_json::from_value(value).ok()
}
