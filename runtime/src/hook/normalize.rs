//! Turning a Pi tool call into a hook envelope (HOOK-5..HOOK-9, HOOK-15).
//!
//! The extension only translates vocabulary: Pi's lower-case tool
//! names become the canonical names the Go classifier knows, and a canonical
//! key is added beside Pi's own keys. Graph calls are sent by the daemon's
//! bare tool name, whichever name Pi knows them by.

use std::path::Path;

use serde_json::{Map, Value};

use super::HookEvent;
use crate::diff::paths::expand_pi_path;
use crate::native::MCP_TOOL_PREFIX;
use crate::platform::home;

/// The canonical name of a non-graph tool, or `None` when the name is
/// outside the map (it then passes through in its original case).
pub fn canonical_tool_name(pi_name: &str) -> Option<&'static str> {
    // Pi's built-in names are short ASCII; compare without allocating.
    const MAP: [(&str, &str); 7] = [
        ("read", "Read"),
        ("grep", "Grep"),
        ("find", "Glob"),
        ("ls", "Glob"),
        ("bash", "Bash"),
        ("edit", "Edit"),
        ("write", "Write"),
    ];
    MAP.iter()
        .find(|(pi, _)| pi.eq_ignore_ascii_case(pi_name))
        .map(|(_, canonical)| *canonical)
}

/// Candidate keys per canonical key, in priority order.
const FILE_PATH_SOURCES: [&str; 5] = ["file_path", "path", "file", "filepath", "absolute_path"];
const PATTERN_SOURCES: [&str; 5] = ["pattern", "glob", "query", "regex", "name"];
const COMMAND_SOURCES: [&str; 3] = ["command", "cmd", "script"];

/// The first candidate that is a non-empty string.
fn first_string<'a>(input: &'a Map<String, Value>, sources: &[&str]) -> Option<&'a str> {
    sources
        .iter()
        .filter_map(|key| input.get(*key).and_then(Value::as_str))
        .find(|value| !value.is_empty())
}

/// A path as Pi's tool will read it ([`expand_pi_path`]), kept relative when written so.
fn as_pi_reads(path: &str, home: Option<&Path>) -> String {
    expand_pi_path(path, home).to_string_lossy().into_owned()
}

/// A shallow copy of Pi's input with the canonical keys added where a
/// source exists. `file_path`, and the `path` scope of `Grep` and `Glob`, are
/// read as Pi's tools read them, `~` expanded to `home` ([`expand_pi_path`]).
/// `canonical` is the canonical name (the `Glob` fallback uses it).
pub fn normalize_tool_input(
    canonical: &str,
    input: &Map<String, Value>,
    home: Option<&Path>,
) -> Map<String, Value> {
    // The hook looks paths up as written, so it must see the path Pi's tool will open.
    let file_path = first_string(input, &FILE_PATH_SOURCES).map(|path| as_pi_reads(path, home));
    let scope = matches!(canonical, "Grep" | "Glob")
        .then(|| input.get("path").and_then(Value::as_str))
        .flatten()
        .map(|path| as_pi_reads(path, home));
    let pattern = first_string(input, &PATTERN_SOURCES)
        .map(str::to_string)
        .or_else(|| (canonical == "Glob").then(|| file_path.clone()).flatten());
    let command = first_string(input, &COMMAND_SOURCES).map(str::to_string);
    let mut normalized = input.clone();
    for (key, value) in [
        ("file_path", file_path),
        ("pattern", pattern),
        ("command", command),
        ("path", scope),
    ] {
        if let Some(value) = value {
            normalized.insert(key.to_string(), Value::String(value));
        }
    }
    normalized
}

/// The bare daemon name of a native-path graph tool.
pub fn strip_native_prefix(pi_name: &str) -> Option<&str> {
    pi_name
        .strip_prefix(MCP_TOOL_PREFIX)
        .filter(|bare| !bare.is_empty())
}

/// How a Pi tool name relates to Gortex.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolKind<'a> {
    /// A graph call, with the daemon's bare tool name.
    Graph(&'a str),
    /// Any other tool, with its canonical name.
    Other(&'a str),
}

/// How a Pi tool name relates to Gortex. `registry` maps a Pi tool name registered by the own client
/// to its daemon name, so `gortex_read` becomes `read`.
pub fn classify_tool<'a>(
    pi_name: &'a str,
    registry: impl FnOnce(&str) -> Option<&'a str>,
) -> ToolKind<'a> {
    if let Some(daemon_name) = registry(pi_name) {
        return ToolKind::Graph(daemon_name);
    }
    if let Some(bare) = strip_native_prefix(pi_name) {
        return ToolKind::Graph(bare);
    }
    ToolKind::Other(canonical_tool_name(pi_name).unwrap_or(pi_name))
}

/// The context fields of an envelope.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvelopeContext {
    /// `ctx.cwd`, else `pi.cwd`, else the process working directory.
    pub cwd: String,
    /// Pi's session id, or `""`.
    pub session_id: String,
}

/// The `tool_call` envelope of one Pi tool call. Always carries
/// `event`, `tool_name`, `tool_input`, `cwd`, `session_id` and
/// `is_gortex_tool`, even when empty or false.
///
/// `registry` is the own client's lookup (Pi name to daemon name);
/// pass `|_| None` on the native path. A non-object `input` is sent as `{}`.
pub fn envelope_for_tool_call<'a>(
    pi_name: &'a str,
    input: &Value,
    context: &EnvelopeContext,
    registry: impl FnOnce(&str) -> Option<&'a str>,
) -> HookEvent {
    let empty = Map::new();
    let input_object = input.as_object().unwrap_or(&empty);
    let (tool_name, tool_input, is_graph) = match classify_tool(pi_name, registry) {
        // Graph input goes raw.
        ToolKind::Graph(bare) => (bare, input_object.clone(), true),
        ToolKind::Other(name) => (
            name,
            normalize_tool_input(name, input_object, home::home_dir().as_deref()),
            false,
        ),
    };
    HookEvent {
        event: "tool_call".to_string(),
        tool_name: Some(tool_name.to_string()),
        tool_input: Some(tool_input),
        cwd: Some(context.cwd.clone()),
        session_id: Some(context.session_id.clone()),
        prompt: None,
        is_gortex_tool: Some(is_graph),
    }
}

/// The `session_start` envelope of the first turn.
pub fn envelope_for_session_start(cwd: &str) -> HookEvent {
    HookEvent {
        event: "session_start".to_string(),
        tool_name: None,
        tool_input: None,
        cwd: Some(cwd.to_string()),
        session_id: None,
        prompt: None,
        is_gortex_tool: None,
    }
}

/// The `prompt` envelope, or `None` when the prompt is empty or a
/// slash command (those are never sent).
pub fn envelope_for_prompt(prompt: &str, context: &EnvelopeContext) -> Option<HookEvent> {
    if prompt.trim().is_empty() || prompt.starts_with('/') {
        return None;
    }
    Some(HookEvent {
        event: "prompt".to_string(),
        tool_name: None,
        tool_input: None,
        cwd: Some(context.cwd.clone()),
        session_id: Some(context.session_id.clone()),
        prompt: Some(prompt.to_string()),
        is_gortex_tool: None,
    })
}
