//! `tools/call` (FAKE-5): scenario overrides, the default reply, `tools_search` promotion, edits
//! and the untracked-repo error.

use crate::edits;
use crate::facade;
use crate::log;
use crate::mcp::{error_frame, utf8_mid, Outcome};
use crate::out::Item;
use crate::scenario::{NotifyWhen, Scenario};
use crate::surface::{Resolved, Surface};
use serde_json::{json, Value};

fn list_changed() -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {}})
}

/// A `tools/call` result frame.
fn result_frame(
    id: &Value,
    text: &str,
    structured: Option<Value>,
    is_error: bool,
    meta: Option<Value>,
) -> Value {
    let mut result = json!({"content": [{"type": "text", "text": text}], "isError": is_error});
    if let Some(s) = structured {
        result["structuredContent"] = s;
    }
    if let Some(m) = meta {
        result["_meta"] = m;
    }
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// A result frame whose `text` is the JSON string literal `literal`,
/// spliced in verbatim after serializing the rest.
fn raw_text_frame(id: &Value, literal: &str, is_error: bool, meta: Option<Value>) -> Vec<u8> {
    const PLACEHOLDER: &str = "\u{1}fake-gortex-text-json\u{1}";
    let frame = result_frame(id, PLACEHOLDER, None, is_error, meta);
    let compact = serde_json::to_string(&frame).unwrap_or_default();
    let quoted = serde_json::to_string(PLACEHOLDER).unwrap_or_default();
    let mut bytes = compact.replacen(&quoted, literal, 1).into_bytes();
    bytes.push(b'\n');
    bytes
}

/// The operation word of the default reply: `operation`, else `kind`, else `-`.
fn operation_word(args: &Value) -> String {
    ["operation", "kind"]
        .iter()
        .find_map(|k| args.get(*k).and_then(Value::as_str))
        .unwrap_or("-")
        .to_string()
}

fn cwd_string() -> String {
    std::env::current_dir()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default()
}

pub fn call(sc: &Scenario, surface: &mut Surface, id: &Value, params: &Value) -> Outcome {
    let name = params.get("name").and_then(Value::as_str).unwrap_or("");
    let args = match params.get("arguments") {
        Some(a @ Value::Object(_)) => a.clone(),
        _ => json!({}),
    };
    if !sc.tracked && name != "capabilities" {
        let cwd = cwd_string();
        let data = json!({
            "error_code": "repo_not_tracked",
            "path": cwd,
            "suggestion": format!("Run `gortex track {cwd}` to include this repo in the shared graph."),
        });
        return Outcome::now(error_frame(
            id,
            -32000,
            &format!("repository not tracked: {cwd}"),
            Some(data),
        ));
    }
    match surface.resolve(name) {
        Resolved::Callable => {}
        Resolved::ToolsSearch => return tools_search(sc, surface, id, &args),
        Resolved::NotAvailable => {
            let msg = format!(
                "tool \"{name}\" is not available in this client's tool set (gortex mcp --tools)"
            );
            return Outcome::now(error_frame(id, -32601, &msg, None));
        }
        Resolved::NotFound => {
            return Outcome::now(error_frame(
                id,
                -32602,
                &format!("tool \"{name}\" not found"),
                None,
            ));
        }
    }
    let op = operation_word(&args);
    let meta = surface.is_facade().then(|| {
        json!({"gortex_facade": {
            "surface_version": "facade-v1",
            "facade": name,
            "operation": op,
            "canonical_tool": facade::canonical_tool(name, &op),
        }})
    });
    if let Some(o) = sc.calls.get(name) {
        if let Some(literal) = &o.text_json {
            return Outcome::RawReply(raw_text_frame(id, literal, o.is_error, meta));
        }
        let text = o
            .text
            .clone()
            .unwrap_or_else(|| default_text(sc, name, &op, &args));
        let frame = result_frame(id, &text, o.structured.clone(), o.is_error, meta);
        if o.delay_ms > 0 || o.until_lists > 0 {
            return Outcome::Delayed {
                delay_ms: o.delay_ms,
                until_lists: o.until_lists,
                frame,
            };
        }
        return Outcome::now(frame);
    }
    if let Some(edit) = edits::apply_call(name, &args) {
        log::record(
            "edit",
            json!({"tool": name, "reply": edit.text, "is_error": edit.is_error}),
        );
        return Outcome::now(result_frame(
            id,
            &edit.text,
            edit.structured,
            edit.is_error,
            meta,
        ));
    }
    Outcome::now(result_frame(
        id,
        &default_text(sc, name, &op, &args),
        None,
        false,
        meta,
    ))
}

fn default_text(sc: &Scenario, name: &str, op: &str, args: &Value) -> String {
    let compact = serde_json::to_string(args).unwrap_or_else(|_| "{}".to_string());
    let mut text = format!("[fake-gortex] {name} {op} {compact}");
    if utf8_mid(sc) {
        // Multi-byte characters for the utf8_mid split to cut through.
        text.push_str(" é✓😀");
    }
    text
}

/// WIRE-11 `tools_search` with promotion and WIRE-9 announcements.
fn tools_search(sc: &Scenario, surface: &mut Surface, id: &Value, args: &Value) -> Outcome {
    let Surface::Legacy(legacy) = surface else {
        return Outcome::now(error_frame(
            id,
            -32602,
            "tool \"tools_search\" not found",
            None,
        ));
    };
    let query = args
        .get("query")
        .and_then(Value::as_str)
        .unwrap_or("")
        .trim()
        .to_string();
    let max = args
        .get("max_results")
        .and_then(Value::as_u64)
        .filter(|m| *m > 0)
        .unwrap_or(10) as usize;
    let promote = args.get("promote").and_then(Value::as_bool).unwrap_or(true);
    let deferred = legacy.deferred();
    let mut browse: Vec<&str> = Vec::new();
    let matches: Vec<&str> = if query.is_empty() {
        browse = deferred.clone();
        Vec::new()
    } else if let Some(list) = query.strip_prefix("select:") {
        let wanted: Vec<&str> = list
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        crate::legacy::catalogue()
            .into_iter()
            .filter(|n| wanted.contains(n))
            .collect()
    } else {
        let mut required: Vec<String> = Vec::new();
        let mut keywords: Vec<String> = Vec::new();
        for word in query.split_whitespace() {
            match word.strip_prefix('+') {
                Some(req) if !req.is_empty() => required.push(req.to_lowercase()),
                _ => keywords.push(word.to_lowercase()),
            }
        }
        deferred
            .iter()
            .copied()
            .filter(|n| required.iter().all(|r| n.contains(r.as_str())))
            .filter(|n| keywords.is_empty() || keywords.iter().any(|k| n.contains(k.as_str())))
            .collect()
    };
    let omitted = matches.len().saturating_sub(max);
    let shown: Vec<&str> = matches.into_iter().take(max).collect();
    let mut promoted: Vec<String> = Vec::new();
    if promote {
        for n in &shown {
            if !legacy.eager.iter().any(|e| e == n) {
                legacy.eager.push(n.to_string());
                promoted.push(n.to_string());
            }
        }
    }
    let remaining = legacy.deferred().len();
    let tools: Vec<Value> = shown
        .iter()
        .map(|n| {
            let t = crate::legacy::tool(n);
            json!({"name": n, "description": t["description"], "input_schema": t["inputSchema"]})
        })
        .collect();
    let payload = json!({
        "query": query,
        "deferred_remaining": remaining,
        "omitted_count": omitted,
        "promoted": promoted,
        "browse_names": browse,
        "tools": tools,
    });
    log::record("promote", json!({"tools": promoted}));
    let frame = result_frame(id, &payload.to_string(), None, false, None);
    let pn = &sc.promote_notify;
    let count = promoted.len() * pn.count_per_tool;
    let spaced = |n: usize| -> Vec<Item> {
        let mut items = Vec::new();
        for i in 0..n {
            if i > 0 && pn.spacing_ms > 0 {
                items.push(Item::Pause(pn.spacing_ms));
            }
            items.push(Item::Frame(list_changed()));
        }
        items
    };
    match pn.when {
        NotifyWhen::BeforeReply => Outcome::Reply {
            before: spaced(count),
            frame,
            after: Vec::new(),
        },
        NotifyWhen::AfterReply => Outcome::Reply {
            before: Vec::new(),
            frame,
            after: spaced(count),
        },
        NotifyWhen::Delayed => Outcome::ReplyThenNotify {
            frame,
            count,
            spacing_ms: pn.spacing_ms,
        },
    }
}
