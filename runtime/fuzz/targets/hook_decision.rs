//! Hook decision parsing (HOOK-3, HOOK-10..12) and envelope normalization
//! (HOOK-5..8) on arbitrary bytes.
//!
//! Input: the hook's stdout. Properties checked against an independent
//! reading of the same bytes: only a JSON object is a decision; only a
//! literal `"block": true` blocks, and then the reason is the decision's
//! non-empty string `reason` or the fallback; a non-blocking decision steers
//! exactly when `additional_context` is a non-empty string. When the bytes
//! are a JSON object they are also used as a Pi tool input for every Pi
//! tool name: normalization keeps every original key and only ever adds
//! non-empty string canonical keys.

use pi_gortex_runtime::hook::decision::{outcome, parse_decision, HookOutcome};
use pi_gortex_runtime::hook::normalize::{envelope_for_tool_call, EnvelopeContext};
use serde_json::{Map, Value};

/// The names a Pi tool call can carry: built-ins (any case), graph tools of
/// both paths, and a stranger.
const PI_NAMES: [&str; 11] = [
    "read",
    "GREP",
    "find",
    "ls",
    "bash",
    "edit",
    "write",
    "gortex_read",
    "mcp__gortex__search",
    "mcp__docs__read",
    "powershell",
];

const FALLBACK_REASON: &str = "[Gortex] blocked: prefer graph tools.";

fn check_decision(data: &[u8]) {
    let parsed = parse_decision(data);
    // HOOK-3 parses the trimmed stdout (JS `trim()` also drops a form feed).
    let independent: Option<Map<String, Value>> = match serde_json::from_slice(data.trim_ascii()) {
        Ok(Value::Object(object)) => Some(object),
        _ => None,
    };
    let Some(object) = independent else {
        assert!(parsed.is_err(), "only a JSON object is a decision");
        return;
    };
    let decision = parsed.expect("a JSON object is a decision");
    let blocks = object.get("block") == Some(&Value::Bool(true));
    let non_empty = |key: &str| {
        object
            .get(key)
            .and_then(Value::as_str)
            .filter(|text| !text.is_empty())
    };
    match outcome(&decision) {
        HookOutcome::Block { reason } => {
            assert!(blocks, "only JSON true blocks");
            assert_eq!(reason, non_empty("reason").unwrap_or(FALLBACK_REASON));
        }
        HookOutcome::Steer { text } => {
            assert!(!blocks);
            assert_eq!(Some(text.as_str()), non_empty("additional_context"));
        }
        HookOutcome::None => {
            assert!(!blocks);
            assert_eq!(non_empty("additional_context"), None);
        }
    }
}

fn check_normalization(input: &Value) {
    let Some(original) = input.as_object() else {
        return;
    };
    let context = EnvelopeContext {
        cwd: "/repo".to_string(),
        session_id: "s".to_string(),
    };
    for name in PI_NAMES {
        let registry = |pi: &str| (pi == "gortex_read").then_some("read");
        let event = envelope_for_tool_call(name, input, &context, registry);
        let sent = event.tool_input.expect("tool_call carries tool_input");
        let graph = event.is_gortex_tool == Some(true);
        if graph {
            assert_eq!(&sent, original, "graph input goes raw");
            continue;
        }
        for (key, value) in original {
            let canonical = matches!(key.as_str(), "file_path" | "pattern" | "command");
            if !canonical {
                assert_eq!(sent.get(key), Some(value), "original key {key} kept");
            }
        }
        for key in ["file_path", "pattern", "command"] {
            if sent.get(key) != original.get(key) {
                let added = sent.get(key).and_then(Value::as_str);
                assert!(added.is_some_and(|text| !text.is_empty()), "{key}");
            }
        }
    }
}

/// Parses `data` as hook stdout and, when it is an object, as tool input.
pub fn run(data: &[u8]) {
    check_decision(data);
    if let Ok(value) = serde_json::from_slice::<Value>(data) {
        check_normalization(&value);
    }
}
