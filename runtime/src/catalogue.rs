//! Which daemon tools become which Pi tools (TOOL-1..TOOL-5, TOOL-10).
//!
//! Pure logic, no processes: a listing and the previous state go in; the
//! tools to register, activate and deactivate come out. Pi cannot unregister
//! a tool, so a tool the daemon withdraws is deactivated instead, and
//! reactivated when it is listed again.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde::Serialize;
use serde_json::{json, Value};

pub use pi_gortex_schema::host::ToolHints;

/// Pi's built-in tool names, which a Gortex tool must never replace.
pub const RESERVED_PI_NAMES: [&str; 7] = ["read", "grep", "find", "ls", "bash", "edit", "write"];

/// Prefix of an aliased tool.
pub const PI_ALIAS_PREFIX: &str = "gortex_";

/// One Pi tool to register. `renderCall`/`renderResult` are the glue's.
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
    /// The boolean MCP hints, or `None` when the daemon gives none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolHints>,
    /// The MCP `outputSchema` verbatim when it is an object.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
}

/// The boolean hints of a listed tool, as Pi's own MCP keeps them: other keys
/// and non-boolean values are dropped, and no hint at all gives `None`.
pub fn annotations(tool: &Value) -> Option<ToolHints> {
    let given = tool.get("annotations")?;
    let hint = |key: &str| given.get(key).and_then(Value::as_bool);
    let hints = ToolHints {
        read_only_hint: hint("readOnlyHint"),
        destructive_hint: hint("destructiveHint"),
        idempotent_hint: hint("idempotentHint"),
        open_world_hint: hint("openWorldHint"),
    };
    (hints != ToolHints::default()).then_some(hints)
}

/// Whether a host's tool API takes `annotations` and `outputSchema`: both came
/// with the release that added `registerMcpServer` (Pi 0.99).
pub fn takes_tool_metadata(has_register_mcp_server: bool) -> bool {
    has_register_mcp_server
}

impl ToolDefinition {
    /// The definition as a host takes it: without the metadata an older tool API lacks.
    pub fn for_host(self, takes_metadata: bool) -> Self {
        if takes_metadata {
            return self;
        }
        Self {
            annotations: None,
            output_schema: None,
            ..self
        }
    }
}

/// The tool's `title`, else `annotations.title`, when a non-empty string.
pub fn title(tool: &Value) -> Option<&str> {
    [tool.get("title"), tool.pointer("/annotations/title")]
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::trim)
        .find(|text| !text.is_empty())
}

/// What the glue must do after a listing.
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
    /// Only tools to add back to and remove from the active tools, none to register.
    pub fn activation(activate: Vec<String>, deactivate: Vec<String>) -> Self {
        CatalogueChanges {
            register: Vec::new(),
            activate,
            deactivate,
        }
    }

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

/// The registry and the withdrawn set of one session.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CatalogueState {
    /// Registered name to bare daemon name, for tools currently listed.
    registry: BTreeMap<String, String>,
    /// Registered names that were listed before and are missing now.
    withdrawn: BTreeSet<String>,
    /// Every mapping ever seen, so a withdrawn tool still maps back.
    known: HashMap<String, String>,
}

/// The Pi name of a daemon tool: reserved names get the prefix.
pub fn registered_name(daemon_name: &str) -> String {
    if RESERVED_PI_NAMES.contains(&daemon_name) {
        format!("{PI_ALIAS_PREFIX}{daemon_name}")
    } else {
        daemon_name.to_string()
    }
}

/// The note front-loaded into an aliased tool's description.
pub fn alias_note(bare: &str, aliased: &str) -> String {
    format!(
        "Gortex's `{bare}` tool, registered as `{aliased}` because Pi has a built-in `{bare}`. Gortex guidance and denial messages that name `{bare}` mean this tool."
    )
}

/// The Pi definition of one listed tool, or `None` when it has no name.
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
        .or_else(|| title(tool))
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
        annotations: annotations(tool),
        output_schema: tool
            .get("outputSchema")
            .filter(|schema| schema.is_object())
            .cloned(),
    })
}

impl CatalogueState {
    /// A fresh state, as at each own-client `session_start`.
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
/// next state.
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
