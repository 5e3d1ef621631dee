//! The JSON type name of a value, as warnings and failure reasons name it
//! ("expected a boolean, found string"). Shared so every message reads alike.

use serde_json::Value;

/// `null`, `boolean`, `number`, `string`, `array` or `object`.
pub fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}
