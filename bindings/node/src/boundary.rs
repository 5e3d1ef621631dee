//! The boundary shapes of `schema/host.schema.json`, as generated into
//! `pi_gortex_schema::host`, plus the two conversions every export uses.
//! Nothing here declares a shape: the schema is the declaration.

use serde_json::Value;

pub use pi_gortex_schema::host::{
    CatalogueUpdate, CliOutput, SessionAction, ToolCallAction, ToolCallEvent, ToolResultAction,
    ToolResultEvent, TurnPlanTurn,
};

/// A synchronous export whose answer is a boundary value: `work` runs under
/// the panic guard, `fallback` answers for a panic or an unreadable
/// request, and whichever answers is serialised once, here.
pub fn guarded_answer<T: serde::Serialize>(
    fallback: impl Fn() -> T,
    work: impl FnOnce() -> T,
) -> Value {
    to_js(&pi_gortex_runtime::extension::guard::guard_sync(
        &fallback, work,
    ))
}

/// Serializes a boundary answer; a failure (impossible for these types)
/// fails open to `null`.
pub fn to_js<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// Deserializes a boundary request. A shape the glue should never send is a
/// bug on our side of the boundary: it is recorded like a panic (the user is
/// told once per session) and the method answers its fail-open value,
/// never a silently defaulted request.
pub fn from_js<T: serde::de::DeserializeOwned>(value: Value) -> Option<T> {
    match serde_json::from_value(value) {
        Ok(parsed) => Some(parsed),
        Err(error) => {
            let name = std::any::type_name::<T>();
            let short = name.rsplit("::").next().unwrap_or(name);
            let fault = format!("the addon could not read a {short} from the glue: {error}");
            pi_gortex_runtime::extension::guard::record(fault);
            None
        }
    }
}
