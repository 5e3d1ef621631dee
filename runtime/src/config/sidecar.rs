//! Reading one sidecar `gortex.json` (CFG-4, CFG-5, WIRE-18).
//!
//! The file is checked against the `SidecarConfig` key table: a file that
//! does not parse or is not an object falls through as a whole; a key of the
//! wrong type or an unknown key falls through on its own. Each problem gives
//! exactly one warning.

use std::io::ErrorKind;
use std::path::Path;

use serde_json::{Map, Value};

use super::ConfigWarning;

/// Which sidecar a file is: the project one may not set `bin` (CFG-6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// `<cwd>/.pi/gortex.json`.
    Project,
    /// `<agentDir>/extensions/gortex.json`.
    Global,
}

/// The usable values of one sidecar; `None` where a key is absent or unusable.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SidecarValues {
    /// `bin` (global sidecar only).
    pub bin: Option<String>,
    /// `hook_mode`, trimmed, not yet normalized.
    pub hook_mode: Option<String>,
    /// `enforce`.
    pub enforce: Option<bool>,
    /// `tools_preset`, trimmed.
    pub tools_preset: Option<String>,
    /// `native_mcp`.
    pub native_mcp: Option<bool>,
    /// `prompt_context`.
    pub prompt_context: Option<bool>,
}

/// One read sidecar: its values and the warnings it produced.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SidecarLayer {
    /// What the layer contributes.
    pub values: SidecarValues,
    /// What was wrong with it.
    pub warnings: Vec<ConfigWarning>,
}

/// The JSON type of a value, as warnings name it.
fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Reads a sidecar file. A missing file is simply an empty layer.
pub fn read_sidecar(path: &Path, scope: Scope) -> SidecarLayer {
    match std::fs::read_to_string(path) {
        Ok(text) => parse_sidecar(path, &text, scope),
        Err(error) if error.kind() == ErrorKind::NotFound => SidecarLayer::default(),
        Err(error) => SidecarLayer {
            values: SidecarValues::default(),
            warnings: vec![ConfigWarning::Unreadable {
                file: path.to_path_buf(),
                error: error.to_string(),
            }],
        },
    }
}

/// Parses sidecar text; `path` only names the file in warnings. Pure.
pub fn parse_sidecar(path: &Path, text: &str, scope: Scope) -> SidecarLayer {
    let file = path.to_path_buf();
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(error) => {
            return SidecarLayer {
                values: SidecarValues::default(),
                warnings: vec![ConfigWarning::Unparseable {
                    file,
                    line: error.line(),
                    column: error.column(),
                    message: error.to_string(),
                }],
            }
        }
    };
    let Value::Object(object) = value else {
        return SidecarLayer {
            values: SidecarValues::default(),
            warnings: vec![ConfigWarning::NotAnObject {
                file,
                found: json_type(&value).to_string(),
            }],
        };
    };
    read_object(path, &object, scope)
}

/// The JSON type each known key takes (`SidecarConfig`).
#[derive(Clone, Copy)]
enum KeyType {
    String,
    Boolean,
}

const KEYS: [(&str, KeyType); 6] = [
    ("bin", KeyType::String),
    ("hook_mode", KeyType::String),
    ("enforce", KeyType::Boolean),
    ("tools_preset", KeyType::String),
    ("native_mcp", KeyType::Boolean),
    ("prompt_context", KeyType::Boolean),
];

/// A key's usable value, if any, and the warning about it, if any.
enum KeyValue {
    Text(String),
    Flag(bool),
}

fn read_object(path: &Path, object: &Map<String, Value>, scope: Scope) -> SidecarLayer {
    let mut layer = SidecarLayer::default();
    for (key, value) in object {
        let Some((_, key_type)) = KEYS.iter().find(|(name, _)| name == key) else {
            layer.warnings.push(ConfigWarning::UnknownKey {
                file: path.to_path_buf(),
                key: key.clone(),
            });
            continue;
        };
        if key == "bin" && scope == Scope::Project {
            layer.warnings.push(ConfigWarning::ProjectBin {
                file: path.to_path_buf(),
            });
            continue;
        }
        let read = match (key_type, value) {
            (KeyType::String, Value::String(text)) => {
                // CFG-5: a blank string is absent, not wrong.
                let trimmed = text.trim();
                (!trimmed.is_empty()).then(|| KeyValue::Text(trimmed.to_string()))
            }
            (KeyType::Boolean, Value::Bool(flag)) => Some(KeyValue::Flag(*flag)),
            (expected, found) => {
                layer.warnings.push(ConfigWarning::WrongType {
                    file: path.to_path_buf(),
                    key: key.clone(),
                    expected: match expected {
                        KeyType::String => "string",
                        KeyType::Boolean => "boolean",
                    }
                    .to_string(),
                    found: json_type(found).to_string(),
                });
                None
            }
        };
        let values = &mut layer.values;
        match (key.as_str(), read) {
            ("bin", Some(KeyValue::Text(text))) => values.bin = Some(text),
            ("hook_mode", Some(KeyValue::Text(text))) => values.hook_mode = Some(text),
            ("tools_preset", Some(KeyValue::Text(text))) => values.tools_preset = Some(text),
            ("enforce", Some(KeyValue::Flag(flag))) => values.enforce = Some(flag),
            ("native_mcp", Some(KeyValue::Flag(flag))) => values.native_mcp = Some(flag),
            ("prompt_context", Some(KeyValue::Flag(flag))) => values.prompt_context = Some(flag),
            _ => {}
        }
    }
    layer
}
