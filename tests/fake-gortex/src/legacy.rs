//! The legacy deferred tool surface (FAKE-5): presets, the deferred catalogue and tool schemas.

use serde_json::{json, Value};

pub const NAV: &[&str] = &[
    "explore",
    "smart_context",
    "get_editing_context",
    "read_file",
    "get_symbol_source",
    "get_file_summary",
    "get_symbol",
    "search_symbols",
    "search_text",
    "find_files",
    "find_usages",
    "find_implementations",
    "find_overrides",
    "get_callers",
    "get_call_chain",
    "get_dependencies",
    "get_dependents",
    "get_repo_outline",
    "graph_stats",
];

pub const EDIT: &[&str] = &[
    "smart_context",
    "get_editing_context",
    "read_file",
    "get_symbol_source",
    "get_file_summary",
    "get_symbol",
    "search_symbols",
    "search_text",
    "find_files",
    "find_usages",
    "get_callers",
    "edit_file",
    "edit_symbol",
    "write_file",
    "batch_edit",
    "rename_symbol",
    "verify_change",
    "get_test_targets",
    "check_guards",
    "get_diagnostics",
    "graph_stats",
];

const READONLY_EXTRA: &[&str] = &["analyze", "review", "get_architecture"];

const DEFERRED_ONLY: &[&str] = &[
    "get_architecture",
    "find_clones",
    "get_communities",
    "why",
    "get_churn_rate",
    "find_declaration",
    "get_class_hierarchy",
    "trace_path",
];

/// Every legacy tool name the fake knows (preset members and the deferred-only ones), deduplicated
/// in first-seen order.
pub fn catalogue() -> Vec<&'static str> {
    let mut all: Vec<&'static str> = Vec::new();
    for name in NAV
        .iter()
        .chain(EDIT)
        .chain(READONLY_EXTRA)
        .chain(DEFERRED_ONLY)
    {
        if !all.contains(name) {
            all.push(name);
        }
    }
    all
}

/// The eager tool names for a `GORTEX_TOOLS` value (without `tool_profile`/`tools_search`).
/// `core` behaves as `nav`, `full` makes the whole catalogue eager; a comma list whose first token
/// is not a preset names the tools exactly.
pub fn preset(value: &str) -> Vec<String> {
    let tokens: Vec<&str> = value
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .collect();
    let first = tokens.first().copied().unwrap_or("nav");
    let names: Vec<&str> = match first {
        "nav" | "core" => NAV.to_vec(),
        "edit" => EDIT.to_vec(),
        "readonly" => NAV.iter().chain(READONLY_EXTRA).copied().collect(),
        "full" => catalogue(),
        _ => tokens,
    };
    names.into_iter().map(str::to_string).collect()
}

fn description(name: &str) -> String {
    let text = match name {
        "explore" => "Compact overview of the code relevant to a task.",
        "smart_context" => "Assemble the minimal context needed to work on a task.",
        "get_editing_context" => "Everything needed to edit a symbol safely: source, callers, tests.",
        "read_file" => "Read an indexed file (graph-backed, with symbol markers).",
        "get_symbol_source" => "Source of one symbol by id.",
        "get_file_summary" => "Symbols and structure of a file without its body.",
        "get_symbol" => "Metadata of a symbol by id.",
        "search_symbols" => "Search symbols by name or keyword.",
        "search_text" => "Full-text search over indexed source.",
        "find_files" => "Find indexed files by name pattern.",
        "find_usages" => "All usages of a symbol.",
        "find_implementations" => "Implementations of an interface or abstract method.",
        "find_overrides" => "Overrides of a method.",
        "get_callers" => "Callers of a function.",
        "get_call_chain" => "Call chain from one symbol to another.",
        "get_dependencies" => "What a symbol or file depends on.",
        "get_dependents" => "What depends on a symbol or file.",
        "get_repo_outline" => "Outline of the repository: packages, files and top symbols.",
        "graph_stats" => "Node and edge counts of the graph.",
        "edit_file" => "Replace an exact string in a file.",
        "edit_symbol" => "Replace the source of a symbol.",
        "write_file" => "Write a whole file.",
        "batch_edit" => "Apply several edits atomically.",
        "rename_symbol" => "Rename a symbol across the repository.",
        "verify_change" => "Check that a change keeps callers and contracts intact.",
        "get_test_targets" => "Tests affected by a change.",
        "check_guards" => "Evaluate repository guard rules against a change.",
        "get_diagnostics" => "Compiler and linter diagnostics of a file.",
        "analyze" => "Graph analyses: architecture, clones, churn, hotspots.",
        "review" => "Review a diff against the graph.",
        "get_architecture" => "Architecture overview: layers and their dependencies.",
        "find_clones" => "Find duplicated code.",
        "get_communities" => "Clusters of closely related symbols.",
        "why" => "Explain why a symbol exists, from history and usages.",
        "get_churn_rate" => "Change frequency of files and symbols.",
        "find_declaration" => "Declaration of a symbol referenced at a location.",
        "get_class_hierarchy" => "Class and interface hierarchy of a type.",
        "trace_path" => "Paths between two symbols in the graph.",
        "tool_profile" => "Show the active tool profile and how to load more tools.",
        "tools_search" => "Search the deferred tool catalogue; matching tools are promoted into this session's tool list.",
        _ => "Gortex tool.",
    };
    text.to_string()
}

fn properties(name: &str) -> (Value, Vec<&'static str>) {
    let s = |d: &str| json!({"type": "string", "description": d});
    match name {
        "read_file" | "get_file_summary" | "get_diagnostics" => {
            (json!({"path": s("Repo-relative path.")}), vec!["path"])
        }
        "edit_file" => (
            json!({"path": s("Repo-relative path."), "old_string": s("Exact text to replace."), "new_string": s("Replacement."), "replace_all": {"type": "boolean"}, "dry_run": {"type": "boolean"}}),
            vec!["path", "old_string", "new_string"],
        ),
        "write_file" => (
            json!({"path": s("Repo-relative path."), "content": s("Full content."), "dry_run": {"type": "boolean"}}),
            vec!["path", "content"],
        ),
        "edit_symbol" => (
            json!({"id": s("Symbol id `path::name`."), "old_source": s("Text to replace."), "new_source": s("Replacement."), "dry_run": {"type": "boolean"}}),
            vec!["id", "old_source", "new_source"],
        ),
        "batch_edit" => (
            json!({"edits": {"description": "Edit items (array, or a JSON string holding one).", "anyOf": [{"type": "array", "items": {"type": "object"}}, {"type": "string"}]}, "dry_run": {"type": "boolean"}}),
            vec!["edits"],
        ),
        "search_symbols" | "search_text" | "find_files" | "smart_context" | "explore" => (
            json!({"query": s("Search text."), "limit": {"type": "integer", "minimum": 1}}),
            vec!["query"],
        ),
        "rename_symbol" => (
            json!({"id": s("Symbol id."), "new_name": s("New name.")}),
            vec!["id", "new_name"],
        ),
        "tools_search" => (
            json!({"query": s("`select:a,b`, `+term rest`, keywords, or empty to browse."), "max_results": {"type": "integer", "minimum": 1}, "promote": {"type": "boolean"}}),
            vec!["query"],
        ),
        "tool_profile" | "graph_stats" | "get_repo_outline" | "get_architecture" => {
            (json!({}), vec![])
        }
        _ => (
            json!({"id": s("Symbol id `path::name` or a path."), "limit": {"type": "integer"}}),
            vec![],
        ),
    }
}

fn is_mutating(name: &str) -> bool {
    matches!(
        name,
        "edit_file" | "edit_symbol" | "write_file" | "batch_edit" | "rename_symbol"
    )
}

/// The WIRE-6 tool object of a legacy tool.
pub fn tool(name: &str) -> Value {
    let (props, required) = properties(name);
    let mut schema = json!({"type": "object", "properties": props});
    if !required.is_empty() {
        schema["required"] = json!(required);
    }
    let annotations = if is_mutating(name) {
        json!({"readOnlyHint": false, "destructiveHint": true})
    } else {
        json!({"readOnlyHint": true})
    };
    json!({"name": name, "description": description(name), "inputSchema": schema, "annotations": annotations})
}
