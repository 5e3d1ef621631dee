//! The boundary shapes of `schema/host.schema.json`, as generated into
//! `pi_gortex_schema::host`, and the conversions the exports use. Nothing
//! here declares a shape: the schema is the declaration.

use napi::bindgen_prelude::{Function, JsObjectValue, Unknown};
use napi::{Env, JSON};
use serde_json::Value;

pub use pi_gortex_schema::host::{
    CatalogueUpdate, CliOutput, ContextEntry, ToolCallAction, ToolResultAction,
};

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

/// The global `JSON`: a nested value crosses in one call each way, not one per property.
pub fn json(env: &Env) -> napi::Result<JSON<'_>> {
    env.get_global()?.get_named_property_unchecked("JSON")
}

/// A boundary value made by one `JSON.parse` of its text.
pub fn parsed<'env>(env: &'env Env, value: &impl serde::Serialize) -> napi::Result<Unknown<'env>> {
    let json = json(env)?;
    let parse: Function<String, Unknown> = json.get_named_property_unchecked("parse")?;
    parse.apply(json, serde_json::to_string(value)?)
}
