//! The facade tool surface (FAKE-5): the 21 tools a named client sees by default, with schemas in
//! the WIRE-6 shape (`operation` enum, `target` selector, `options`, `output`).

use serde_json::{json, Value};

/// Every facade tool name, sorted.
pub const FACADE_TOOLS: [&str; 21] = [
    "analyze",
    "ask",
    "capabilities",
    "change",
    "edit",
    "explore",
    "overlay",
    "pr",
    "publish_review",
    "read",
    "recall",
    "refactor",
    "relations",
    "remember",
    "response",
    "review",
    "search",
    "session",
    "trace",
    "workspace",
    "workspace_admin",
];

/// Facades that take a generic `{operation, arguments}` pair instead of a typed schema.
const COLD: [&str; 8] = [
    "publish_review",
    "pr",
    "recall",
    "remember",
    "workspace",
    "workspace_admin",
    "overlay",
    "response",
];

const READ_ONLY: [&str; 11] = [
    "analyze",
    "ask",
    "capabilities",
    "change",
    "explore",
    "read",
    "recall",
    "relations",
    "review",
    "search",
    "trace",
];

pub fn is_facade(name: &str) -> bool {
    FACADE_TOOLS.contains(&name)
}

fn operations(name: &str) -> &'static [&'static str] {
    match name {
        "search" => &[
            "artifacts",
            "ast",
            "completion",
            "files",
            "symbols",
            "text",
            "winnow",
        ],
        "read" => &[
            "artifact",
            "editing_context",
            "file",
            "history",
            "source",
            "summary",
            "symbols",
        ],
        "edit" => &[
            "batch",
            "docs",
            "export_graph",
            "file",
            "scaffold",
            "skill",
            "symbol",
            "write",
            "wiki",
            "apply_overlay",
        ],
        "explore" => &[
            "context",
            "neighbourhood",
            "outline",
            "overview",
            "smart_context",
        ],
        "relations" => &[
            "callers",
            "callees",
            "dependencies",
            "dependents",
            "hierarchy",
            "implementations",
            "overrides",
            "usages",
        ],
        "trace" => &["call_chain", "data_flow", "path"],
        "change" => &["diagnostics", "guards", "impact", "test_targets", "verify"],
        "refactor" => &["extract", "inline", "move", "rename", "signature"],
        "review" => &["diff", "file", "symbol"],
        "session" => &["end", "notes", "start", "status"],
        "capabilities" => &["list", "describe"],
        "publish_review" => &["draft", "submit"],
        "pr" => &["create", "describe", "list", "status"],
        "recall" => &["get", "list", "search"],
        "remember" => &["fact", "decision", "note"],
        "workspace" => &["list", "status", "switch"],
        "workspace_admin" => &["track", "untrack", "reindex"],
        "overlay" => &["create", "discard", "list", "show"],
        "response" => &["expand", "page"],
        _ => &[],
    }
}

fn description(name: &str) -> &'static str {
    match name {
        "analyze" => "Graph analyses of the indexed code: architecture, clones, communities, churn, dead code and hotspots. Pick one with `kind`.",
        "ask" => "Ask a natural-language question about the indexed code; answers cite symbols and files from the graph.",
        "capabilities" => "List the operations every facade supports on this daemon, with their canonical tools.",
        "change" => "Change intelligence: impact of an edit, verification, test targets, guards and diagnostics.",
        "edit" => "Graph-aware edits: replace text in a file, rewrite a symbol, write a file, or apply a batch of changes atomically.",
        "explore" => "Start here: a compact overview of the code relevant to a task, with the symbols to read next.",
        "overlay" => "Speculative edit overlays: stage changes in the graph without touching files.",
        "pr" => "Pull-request helpers backed by the graph: describe, list and check status.",
        "publish_review" => "Publish a review drafted with `review` to the code host.",
        "read" => "Read indexed source: a file, a symbol's source, a file summary, the editing context or history.",
        "recall" => "Recall facts and decisions remembered in earlier sessions.",
        "refactor" => "Graph-aware refactors: rename, move, extract, inline and change signatures across the repo.",
        "relations" => "Relations of a symbol: callers, callees, usages, implementations, overrides and dependencies.",
        "remember" => "Remember a fact, decision or note for later sessions.",
        "response" => "Page through or expand a truncated earlier response.",
        "review" => "Review a diff, file or symbol against the graph: risky changes, missing tests, broken callers.",
        "search" => "Search the indexed graph: symbols, text, files, ast patterns, completions and artifacts.",
        "session" => "Session bookkeeping: status, notes, start and end.",
        "trace" => "Trace call chains, data flow and paths between two symbols.",
        "workspace" => "Workspaces and tracked repositories: list, status and switch.",
        "workspace_admin" => "Administer tracked repositories: track, untrack and reindex.",
        _ => "Gortex tool.",
    }
}

fn target_schema() -> Value {
    json!({
        "type": "object",
        "description": "Selector: exactly one of file, symbol, symbols, query, artifact, repo.",
        "properties": {
            "file": {"type": "string"},
            "symbol": {"type": "string", "description": "Symbol id `path::name`."},
            "symbols": {"type": "array", "items": {"type": "string"}},
            "query": {"type": "string"},
            "artifact": {"type": "string"},
            "repo": {"type": "string"}
        },
        "additionalProperties": false
    })
}

fn output_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "format": {"type": "string", "enum": ["json", "gcx", "text"]},
            "max_bytes": {"type": "integer", "minimum": 0}
        }
    })
}

fn input_schema(name: &str) -> Value {
    let ops = operations(name);
    if COLD.contains(&name) {
        return json!({
            "type": "object",
            "properties": {
                "operation": {"type": "string", "enum": ops},
                "arguments": {"type": "object", "description": "Arguments of the operation."}
            },
            "required": ["operation"]
        });
    }
    let mut props = serde_json::Map::new();
    match name {
        "analyze" => {
            props.insert(
                "kind".into(),
                json!({"type": "string", "enum": ["architecture", "churn", "clones", "communities", "cycles", "dead_code", "hotspots"]}),
            );
        }
        "ask" => {
            props.insert("question".into(), json!({"type": "string"}));
        }
        _ if !ops.is_empty() => {
            props.insert("operation".into(), json!({"type": "string", "enum": ops}));
        }
        _ => {}
    }
    if !matches!(name, "ask" | "capabilities") {
        props.insert("target".into(), target_schema());
    }
    match name {
        "search" => {
            props.insert("query".into(), json!({"type": "string"}));
        }
        "edit" => {
            props.insert(
                "match".into(),
                json!({"type": "string", "description": "Exact text to replace."}),
            );
            props.insert("replacement".into(), json!({"type": "string"}));
            props.insert("replace_all".into(), json!({"type": "boolean"}));
            props.insert(
                "content".into(),
                json!({"type": "string", "description": "Full file content for `write`."}),
            );
            props.insert(
                "changes".into(),
                json!({"description": "Batch items (array, or a JSON string holding one).", "anyOf": [{"type": "array", "items": {"type": "object"}}, {"type": "string"}]}),
            );
        }
        "refactor" => {
            props.insert("new_name".into(), json!({"type": "string"}));
            props.insert("destination".into(), json!({"type": "string"}));
        }
        "trace" => {
            props.insert("to".into(), json!({"type": "string"}));
        }
        _ => {}
    }
    props.insert(
        "options".into(),
        json!({"type": "object", "properties": {"dry_run": {"type": "boolean"}, "limit": {"type": "integer"}, "offset": {"type": "integer"}}}),
    );
    props.insert("output".into(), output_schema());
    let mut schema = json!({"type": "object", "properties": Value::Object(props)});
    let required: &[&str] = match name {
        "ask" => &["question"],
        "analyze" => &["kind"],
        // `edit` and `read` infer their operation when it is absent (DIFF-2, REN-4),
        // as the daemon does, so the schema must not demand it.
        "search" | "relations" | "trace" | "refactor" | "explore" | "change" | "review"
        | "session" => &["operation"],
        _ => &[],
    };
    if !required.is_empty() {
        schema["required"] = json!(required);
    }
    schema
}

fn annotations(name: &str) -> Value {
    if READ_ONLY.contains(&name) {
        json!({"readOnlyHint": true, "openWorldHint": false})
    } else if matches!(name, "edit" | "refactor") {
        json!({"readOnlyHint": false, "destructiveHint": true, "openWorldHint": false})
    } else {
        json!({"readOnlyHint": false, "openWorldHint": false})
    }
}

/// The WIRE-6 tool object of one facade tool.
pub fn tool(name: &str) -> Value {
    json!({
        "name": name,
        "description": description(name),
        "inputSchema": input_schema(name),
        "annotations": annotations(name),
    })
}

/// The legacy tool a facade operation stands for (`_meta.gortex_facade.canonical_tool`).
pub fn canonical_tool(facade: &str, op: &str) -> String {
    let mapped = match (facade, op) {
        ("search", "symbols") => "search_symbols",
        ("search", "text") => "search_text",
        ("search", "files") => "find_files",
        ("read", "file") => "read_file",
        ("read", "source") => "get_symbol_source",
        ("read", "summary") => "get_file_summary",
        ("read", "editing_context") => "get_editing_context",
        ("edit", "file") => "edit_file",
        ("edit", "write") => "write_file",
        ("edit", "symbol") => "edit_symbol",
        ("edit", "batch") => "batch_edit",
        ("relations", "usages") => "find_usages",
        ("relations", "callers") => "get_callers",
        ("relations", "implementations") => "find_implementations",
        ("trace", "call_chain") => "get_call_chain",
        ("explore", _) => "explore",
        _ => "",
    };
    if mapped.is_empty() {
        format!("{facade}_{op}")
    } else {
        mapped.to_string()
    }
}
