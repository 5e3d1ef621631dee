//! Which daemon tools become which Pi tools (TOOL-1..TOOL-5, TOOL-10).
//!
//! Pure logic, no processes: a listing and the previous state go in; the
//! tools to register, activate and deactivate come out. Pi cannot unregister
//! a tool, so a tool the daemon withdraws is deactivated instead, and
//! reactivated when it is listed again.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde::Serialize;
use serde_json::{json, Value};

/// Pi's built-in tool names, which a Gortex tool must never replace (TOOL-1).
pub const RESERVED_PI_NAMES: [&str; 7] = ["read", "grep", "find", "ls", "bash", "edit", "write"];

/// Prefix of an aliased tool (TOOL-2).
pub const PI_ALIAS_PREFIX: &str = "gortex_";

/// One Pi tool to register (TOOL-4). `renderCall`/`renderResult` are the glue's.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolDefinition {
    /// The registered name (`gortex_read`, `search`).
    pub name: String,
    /// Same as `name`.
    pub label: String,
    /// TOOL-3 description.
    pub description: String,
    /// The MCP `inputSchema` when it is an object, else an empty object schema.
    pub parameters: Value,
    /// The bare daemon name (`read`), used for `tools/call` and hook envelopes.
    pub daemon_name: String,
}

/// What the glue must do after a listing (TOOL-10).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CatalogueChanges {
    /// Tools to hand to `registerTool`, in listing order.
    pub register: Vec<ToolDefinition>,
    /// Registered names to add back to the active tools.
    pub activate: Vec<String>,
    /// Registered names to remove from the active tools.
    pub deactivate: Vec<String>,
}

impl CatalogueChanges {
    /// True when the listing changed nothing.
    pub fn is_empty(&self) -> bool {
        self.register.is_empty() && self.activate.is_empty() && self.deactivate.is_empty()
    }

    /// Applies the changes to Pi's current active tool names, keeping order.
    pub fn apply_to_active(&self, active: &[String]) -> Vec<String> {
        let dropped: HashSet<&str> = self.deactivate.iter().map(String::as_str).collect();
        let mut next: Vec<String> = active
            .iter()
            .filter(|name| !dropped.contains(name.as_str()))
            .cloned()
            .collect();
        for name in &self.activate {
            if !next.contains(name) {
                next.push(name.clone());
            }
        }
        next
    }
}

/// The registry and the withdrawn set of one session (TOOL-5, TOOL-10).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CatalogueState {
    /// Registered name to bare daemon name, for tools currently listed.
    registry: BTreeMap<String, String>,
    /// Registered names that were listed before and are missing now.
    withdrawn: BTreeSet<String>,
    /// Every mapping ever seen, so a withdrawn tool still maps back.
    known: HashMap<String, String>,
}

/// The Pi name of a daemon tool: reserved names get the prefix (TOOL-2).
pub fn registered_name(daemon_name: &str) -> String {
    if RESERVED_PI_NAMES.contains(&daemon_name) {
        format!("{PI_ALIAS_PREFIX}{daemon_name}")
    } else {
        daemon_name.to_string()
    }
}

/// The note front-loaded into an aliased tool's description (TOOL-3).
pub fn alias_note(bare: &str, aliased: &str) -> String {
    format!(
        "Gortex's `{bare}` tool, registered as `{aliased}` because Pi has a built-in `{bare}`. Gortex guidance and denial messages that name `{bare}` mean this tool."
    )
}

/// The Pi definition of one listed tool, or `None` when it has no name (TOOL-4).
pub fn definition(tool: &Value) -> Option<ToolDefinition> {
    let daemon_name = tool.get("name").and_then(Value::as_str)?;
    if daemon_name.is_empty() {
        return None;
    }
    let name = registered_name(daemon_name);
    let original = tool
        .get("description")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|text| !text.is_empty())
        .unwrap_or_else(|| daemon_name.trim())
        .to_string();
    let description = if name == daemon_name {
        original
    } else {
        format!("{}\n\n{original}", alias_note(daemon_name, &name))
    };
    let parameters = match tool.get("inputSchema") {
        Some(schema @ Value::Object(_)) => schema.clone(),
        _ => json!({"type": "object", "properties": {}}),
    };
    Some(ToolDefinition {
        label: name.clone(),
        name,
        description,
        parameters,
        daemon_name: daemon_name.to_string(),
    })
}

impl CatalogueState {
    /// A fresh state, as at each own-client `session_start` (TOOL-5, TOOL-10).
    pub fn new() -> Self {
        Self::default()
    }

    /// Folds one full listing into the state and says what changed.
    pub fn apply(&mut self, listing: &[Value]) -> CatalogueChanges {
        let (changes, next) = plan(listing, self);
        *self = next;
        changes
    }

    /// The bare daemon name of a registered name, withdrawn ones included.
    pub fn daemon_name(&self, registered: &str) -> Option<&str> {
        self.known.get(registered).map(String::as_str)
    }

    /// Registered names of the tools currently listed.
    #[cfg(any(test, feature = "test-support"))]
    pub fn registered(&self) -> impl Iterator<Item = &str> {
        self.registry.keys().map(String::as_str)
    }

    /// True when the name was withdrawn and not listed since.
    #[cfg(any(test, feature = "test-support"))]
    pub fn is_withdrawn(&self, registered: &str) -> bool {
        self.withdrawn.contains(registered)
    }
}

/// The pure core: a listing and the previous state give the changes and the
/// next state (TOOL-4, TOOL-5, TOOL-10).
pub fn plan(listing: &[Value], previous: &CatalogueState) -> (CatalogueChanges, CatalogueState) {
    let mut next = previous.clone();
    let mut changes = CatalogueChanges::default();
    let mut listed = HashSet::new();
    for definition in listing.iter().filter_map(definition) {
        if !listed.insert(definition.name.clone()) {
            continue;
        }
        next.known
            .insert(definition.name.clone(), definition.daemon_name.clone());
        if next.registry.contains_key(&definition.name) {
            continue;
        }
        if next.withdrawn.remove(&definition.name) {
            changes.activate.push(definition.name.clone());
        }
        next.registry
            .insert(definition.name.clone(), definition.daemon_name.clone());
        changes.register.push(definition);
    }
    let dropped: Vec<String> = previous
        .registry
        .keys()
        .filter(|name| !listed.contains(*name))
        .cloned()
        .collect();
    for name in dropped {
        next.registry.remove(&name);
        next.withdrawn.insert(name.clone());
        changes.deactivate.push(name);
    }
    (changes, next)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_reserved_names_are_aliased() {
        assert_eq!(registered_name("read"), "gortex_read");
        assert_eq!(registered_name("search"), "search");
        assert_eq!(registered_name("powershell"), "powershell");
    }
}
