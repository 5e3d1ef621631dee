//! From a validator's evaluation path to a pointer inside the schema file.
//!
//! Shared by `validate()` here and `pi-gortex-codegen validate`. The codegen
//! includes this file with `#[path]` instead of depending on this crate, because
//! a stale generated crate must never stop the codegen from regenerating it.

use serde_json::Value;

/// Turns the validator's evaluation path (which goes *through* `$ref`s, e.g.
/// `/$ref/properties/content/items/$ref/oneOf/0`) into a pointer inside the schema file
/// (e.g. `/$defs/TextContent/...`), which is what a reader can open.
pub fn file_pointer(document: &Value, type_name: &str, evaluation_path: &str) -> String {
    let mut current = format!("/$defs/{type_name}");
    let mut segments = evaluation_path.split('/').skip(1).peekable();
    // The first `$ref` is the synthetic entry reference to the type itself.
    if segments.peek() == Some(&"$ref") {
        segments.next();
    }
    for segment in segments {
        if segment == "$ref" {
            let target = document
                .pointer(&format!("{current}/$ref"))
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix('#'));
            if let Some(target) = target {
                current = target.to_string();
                continue;
            }
        }
        current.push('/');
        current.push_str(segment);
    }
    current
}
