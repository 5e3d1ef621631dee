//! The preset environment of CFG-14, and CFG-20's autostart switch: the
//! variables a `gortex mcp` child needs on top of the inherited environment,
//! on both the own and the native path.

use std::collections::{BTreeMap, HashMap};

/// `FORWARDED_PRESETS`: the only presets the daemon is told about. An unknown
/// preset would read as a one-tool allow-list there, so it is never forwarded.
pub const FORWARDED_PRESETS: [&str; 3] = ["edit", "nav", "readonly"];

/// The extra variables for `preset` given the user's environment. Pure.
///
/// A user-exported (non-empty) `GORTEX_TOOLS` or `GORTEX_TOOLS_MODE` is never
/// overridden: it is inherited anyway.
pub fn preset_env(preset: &str, env: &HashMap<String, String>) -> BTreeMap<String, String> {
    let exported = |name: &str| env.get(name).filter(|value| !value.is_empty());
    let preset = preset.trim().to_lowercase();
    let tools = match exported("GORTEX_TOOLS") {
        Some(user) => user.clone(),
        None if FORWARDED_PRESETS.contains(&preset.as_str()) => preset,
        None => String::new(),
    };
    let mut out = BTreeMap::new();
    if tools.is_empty() {
        return out;
    }
    if exported("GORTEX_TOOLS").is_none() {
        out.insert("GORTEX_TOOLS".to_string(), tools);
    }
    // A narrowed surface must not hide tools that `tools_search` promotes later.
    if exported("GORTEX_TOOLS_MODE").is_none() {
        out.insert("GORTEX_TOOLS_MODE".to_string(), "defer".to_string());
    }
    out
}

/// Gortex's own switch for the daemon auto-start `gortex mcp` performs when
/// it finds no daemon.
pub const AUTOSTART_ENV: &str = "GORTEX_AUTOSTART";

/// Every variable a `gortex mcp` child gets on top of the
/// inherited environment. With `daemon_autostart` off it carries
/// `GORTEX_AUTOSTART=0`, whatever the user exported, so the child starts no
/// daemon either. Pure.
pub fn child_env(
    preset: &str,
    daemon_autostart: bool,
    env: &HashMap<String, String>,
) -> BTreeMap<String, String> {
    let mut out = preset_env(preset, env);
    if !daemon_autostart {
        out.insert(AUTOSTART_ENV.to_string(), "0".to_string());
    }
    out
}
