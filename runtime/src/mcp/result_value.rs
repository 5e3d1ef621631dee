//! The `Value` rules of a tool call result: what a decoded result shows the
//! model. The one-pass reading in [`super::call_result`] falls back to them and
//! is tested against them.

use serde_json::Value;

use super::content;

/// The text of a result: every string `text` of a `text` content item,
/// joined with `\n`.
pub fn result_text(result: &Value) -> String {
    let Some(Value::Array(content)) = result.get("content") else {
        return String::new();
    };
    content
        .iter()
        .filter(|item| item.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|item| item.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The text the model sees: [`result_text`], else (when no other block is
/// shown) the compact JSON of `structuredContent`, else of the whole
/// result.
pub fn model_text(result: &Value) -> String {
    let text = result_text(result);
    if !text.is_empty() || shows_other_block(result) {
        return text;
    }
    let fallback = match result.get("structuredContent") {
        Some(structured) if !structured.is_null() => structured,
        _ if result.is_null() => &Value::Null,
        _ => result,
    };
    if fallback.is_null() {
        return "{}".to_string();
    }
    serde_json::to_string(fallback).unwrap_or_default()
}

/// Whether a block other than a text block reaches the model.
fn shows_other_block(result: &Value) -> bool {
    let Some(Value::Array(content)) = result.get("content") else {
        return false;
    };
    content
        .iter()
        .filter(|item| item.get("type").and_then(Value::as_str) != Some("text"))
        .filter_map(|item| content::BlockFields::from_value(item.clone()))
        .any(|fields| content::convert(fields).is_some())
}

/// `result.isError === true`.
pub fn is_error(result: &Value) -> bool {
    result.get("isError").and_then(Value::as_bool) == Some(true)
}
