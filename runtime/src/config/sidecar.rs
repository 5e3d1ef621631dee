//! Reading one sidecar `gortex.json` (CFG-4, CFG-5, WIRE-18).
//!
//! The file is checked against the `SidecarConfig` key table: a file that
//! does not parse or is not an object falls through as a whole; a key of the
//! wrong type or an unknown key falls through on its own. Each problem gives
//! exactly one warning.

use crate::json_type::json_type;
use std::path::Path;

use pi_gortex_schema::sidecar::SidecarConfig;
use serde_json::{Map, Value};

use super::{sidecar_file, ConfigWarning};

/// Which sidecar a file is: the project one may not set `bin`.
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
    /// `hook_prespawn`.
    pub hook_prespawn: Option<bool>,
    /// `daemon_autostart`.
    pub daemon_autostart: Option<bool>,
    /// `stats`.
    pub stats: Option<bool>,
    /// `stats_footer`.
    pub stats_footer: Option<bool>,
}

/// One read sidecar: its values and the warnings it produced.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SidecarLayer {
    /// What the layer contributes.
    pub values: SidecarValues,
    /// What was wrong with it.
    pub warnings: Vec<ConfigWarning>,
}

/// Reads a sidecar file through the checks of [`sidecar_file`]. A
/// missing file is simply an empty layer; an unusable one is one warning and
/// an empty layer. `project_root` is the project a project sidecar must stay
/// inside (`None` for the global one).
pub fn read_sidecar(path: &Path, scope: Scope, project_root: Option<&Path>) -> SidecarLayer {
    let problem = match sidecar_file::read_capped(path, project_root) {
        Ok(Some(text)) => return parse_sidecar(path, &text, scope),
        Ok(None) => return SidecarLayer::default(),
        Err(problem) => problem,
    };
    SidecarLayer {
        values: SidecarValues::default(),
        warnings: vec![ConfigWarning::Unreadable {
            file: path.to_path_buf(),
            error: problem.to_string(),
        }],
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

/// The JSON type each known key takes, for warning texts only: whether a
/// value is acceptable is the schema's verdict (`SidecarConfig`).
const KEY_TYPES: [(&str, &str); 10] = [
    ("bin", "string"),
    ("hook_mode", "string"),
    ("enforce", "boolean"),
    ("tools_preset", "string"),
    ("native_mcp", "boolean"),
    ("prompt_context", "boolean"),
    ("hook_prespawn", "boolean"),
    ("daemon_autostart", "boolean"),
    ("stats", "boolean"),
    ("stats_footer", "boolean"),
];

/// The member an editor reads to find the sidecar's schema.
const SCHEMA_KEY: &str = "$schema";

/// The schema type a sidecar is validated against.
const SCHEMA_TYPE: &str = "SidecarConfig";

/// Checks each key on its own against the schema, so one bad key gives one
/// warning and falls through alone, and keeps what passes.
fn read_object(path: &Path, object: &Map<String, Value>, scope: Scope) -> SidecarLayer {
    let mut layer = SidecarLayer::default();
    for (key, value) in object {
        // `$schema` only tells an editor where the schema is: never a setting, never a warning.
        if key == SCHEMA_KEY {
            continue;
        }
        let single = Value::Object(Map::from_iter([(key.clone(), value.clone())]));
        if pi_gortex_schema::validate(SCHEMA_TYPE, &single).is_err() {
            layer.warnings.push(key_warning(path, key, value));
            continue;
        }
        if key == "bin" && scope == Scope::Project {
            layer.warnings.push(ConfigWarning::ProjectBin {
                file: path.to_path_buf(),
            });
            continue;
        }
        // The schema accepted it, so the generated type reads it.
        let Ok(config) = serde_json::from_value::<SidecarConfig>(single) else {
            continue;
        };
        merge(&mut layer.values, config);
    }
    layer
}

/// The warning for a key the schema rejected.
fn key_warning(path: &Path, key: &str, value: &Value) -> ConfigWarning {
    match KEY_TYPES.iter().find(|(name, _)| *name == key) {
        Some((_, expected)) => ConfigWarning::WrongType {
            file: path.to_path_buf(),
            key: key.to_string(),
            expected: (*expected).to_string(),
            found: json_type(value).to_string(),
        },
        None => ConfigWarning::UnknownKey {
            file: path.to_path_buf(),
            key: key.to_string(),
        },
    }
}

/// A string value is trimmed, and a blank one is absent (not wrong).
fn usable(text: Option<String>) -> Option<String> {
    text.map(|text| text.trim().to_string())
        .filter(|text| !text.is_empty())
}

/// Copies the keys a single-key config sets.
fn merge(values: &mut SidecarValues, config: SidecarConfig) {
    let SidecarConfig {
        schema: _,
        bin,
        daemon_autostart,
        enforce,
        hook_mode,
        hook_prespawn,
        native_mcp,
        prompt_context,
        stats,
        stats_footer,
        tools_preset,
    } = config;
    values.bin = usable(bin).or(values.bin.take());
    values.hook_mode = usable(hook_mode).or(values.hook_mode.take());
    values.tools_preset = usable(tools_preset).or(values.tools_preset.take());
    values.enforce = enforce.or(values.enforce);
    values.native_mcp = native_mcp.or(values.native_mcp);
    values.prompt_context = prompt_context.or(values.prompt_context);
    values.hook_prespawn = hook_prespawn.or(values.hook_prespawn);
    values.daemon_autostart = daemon_autostart.or(values.daemon_autostart);
    values.stats = stats.or(values.stats);
    values.stats_footer = stats_footer.or(values.stats_footer);
}
