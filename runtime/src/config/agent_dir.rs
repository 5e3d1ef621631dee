//! The agent directory of CFG-3, by Pi's own rules (the two must agree, or
//! the global sidecar would be looked for where Pi never looks).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// `PI_CODING_AGENT_DIR` trimmed, with `~` and a `~/` prefix expanded against
/// `home`; `<home>/.pi/agent` when the variable is unset or blank.
pub fn agent_dir(env: &HashMap<String, String>, home: &Path) -> PathBuf {
    let configured = env
        .get("PI_CODING_AGENT_DIR")
        .map(|value| value.trim())
        .unwrap_or("");
    if configured.is_empty() {
        return home.join(".pi").join("agent");
    }
    if configured == "~" {
        return home.to_path_buf();
    }
    match configured.strip_prefix("~/") {
        Some(rest) => home.join(rest),
        None => PathBuf::from(configured),
    }
}
