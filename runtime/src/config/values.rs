//! Reading single values: environment strings (CFG-5), booleans (CFG-9), the
//! hook posture and the hook argv built from it.

use std::collections::HashMap;
use std::fmt;

use serde::Serialize;

use super::ConfigWarning;

/// The hook posture passed to `gortex hook`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum HookMode {
    /// The hook's own default; never passed on the argv.
    Deny,
    /// Denies become guidance.
    Enrich,
    /// Deny until the session has queried the graph once.
    ConsultUnlock,
    /// Block every third raw search in a row.
    Nudge,
}

impl HookMode {
    /// The name the daemon's `--mode` flag takes.
    pub fn as_str(self) -> &'static str {
        match self {
            HookMode::Deny => "deny",
            HookMode::Enrich => "enrich",
            HookMode::ConsultUnlock => "consult-unlock",
            HookMode::Nudge => "nudge",
        }
    }
}

impl fmt::Display for HookMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Trimmed, lower-cased and mapped; anything unknown is `deny`.
pub fn normalize_hook_mode(raw: &str) -> HookMode {
    match raw.trim().to_lowercase().as_str() {
        "enrich" => HookMode::Enrich,
        "consult-unlock" => HookMode::ConsultUnlock,
        "nudge" | "adaptive-nudge" => HookMode::Nudge,
        _ => HookMode::Deny,
    }
}

/// `[bin, "hook", "--agent=pi"]`, plus `--mode=<m>` unless `deny`
/// (the daemon ignores `GORTEX_HOOK_MODE`, so the flag is the only channel).
pub fn hook_argv(bin: &str, mode: HookMode) -> Vec<String> {
    let mut argv = vec![
        bin.to_string(),
        "hook".to_string(),
        "--agent=pi".to_string(),
    ];
    if mode != HookMode::Deny {
        argv.push(format!("--mode={mode}"));
    }
    argv
}

/// CFG-5 for the environment: the trimmed value, or `None` when unset or blank.
pub(crate) fn env_string(env: &HashMap<String, String>, name: &str) -> Option<String> {
    env.get(name)
        .map(|value| value.trim())
        .filter(|value| !value.is_empty())
        .map(str::to_string)
}

/// CFG-9 spelling of an environment boolean; `None` for any other spelling.
pub fn env_bool(raw: &str) -> Option<bool> {
    match raw.trim().to_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Some(true),
        "0" | "false" | "no" | "off" => Some(false),
        _ => None,
    }
}

/// An environment boolean, with a warning when it is set to something that
/// is not a CFG-9 spelling (it then falls through, which would be surprising
/// without one). A blank value counts as unset, silently.
pub(crate) fn env_bool_checked(
    env: &HashMap<String, String>,
    name: &str,
) -> (Option<bool>, Option<ConfigWarning>) {
    let Some(raw) = env.get(name).filter(|raw| !raw.trim().is_empty()) else {
        return (None, None);
    };
    match env_bool(raw) {
        Some(value) => (Some(value), None),
        None => (
            None,
            Some(ConfigWarning::EnvNotBoolean {
                var: name.to_string(),
                value: raw.clone(),
            }),
        ),
    }
}
