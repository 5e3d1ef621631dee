//! The boundary shapes of `schema/host.schema.json`, as generated into
//! `pi_gortex_schema::host`, plus the two conversions every export uses.
//! Nothing here declares a shape: the schema is the declaration.

use serde_json::{Map, Value};

pub use pi_gortex_schema::host::{
    CallLine, CallLineRead, CatalogueUpdate, CliOutput, GortexCommand, HiddenMessage,
    HiddenMessageDetails, HostConfig, PathChoice, PathRequest, SessionBegin, SessionPlan,
    StatusRequest, StatusView, ToolCallAction, ToolCallEvent, ToolExecuteRequest,
    ToolExecuteResult, ToolWait, TurnEvent, TurnPlan, TurnPlanTurn, TurnRequest, TurnResult,
    WatchResultAction, WatchToolResult,
};

/// The runtime's hidden message in the boundary shape.
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
        content: None,
        details: Map::new(),
        ok: false,
        text,
    }
}

/// A synchronous export whose answer is a boundary value: `work` runs under
/// the panic guard, `fallback` answers for a panic or an unreadable
/// request, and whichever answers is serialised once, here.
pub fn guarded_answer<T: serde::Serialize>(
    fallback: impl Fn() -> T,
    work: impl FnOnce() -> T,
) -> Value {
    to_js(&crate::guard::guard_sync(&fallback, work))
}

/// Serializes a boundary answer; a failure (impossible for these types)
/// fails open to `null`.
pub fn to_js<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// Deserializes a boundary request. A shape the glue should never send is a
/// bug on our side of the boundary: it is recorded like a panic (FAIL-4,
/// reported once per session) and the export answers its fail-open value,
/// never a silently defaulted request.
pub fn from_js<T: serde::de::DeserializeOwned>(value: Value) -> Option<T> {
    match serde_json::from_value(value) {
        Ok(parsed) => Some(parsed),
        Err(error) => {
            crate::guard::record(boundary_fault::<T>(&error));
            None
        }
    }
}

/// The recorded text of a request that failed to convert.
fn boundary_fault<T>(error: &serde_json::Error) -> String {
    let name = std::any::type_name::<T>();
    let short = name.rsplit("::").next().unwrap_or(name);
    format!("the addon could not read a {short} from the glue: {error}")
}
