//! Edits that really write files (FAKE-5), so diff tests observe real changes.
//!
//! A call is planned against an in-memory overlay first and written only when every change in it
//! succeeds, so a failed batch leaves the tree untouched.

use crate::paths;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub struct EditReply {
    pub text: String,
    pub structured: Option<Value>,
    pub is_error: bool,
}

/// One primitive change, with the path as the caller named it.
enum Change {
    Replace {
        path: String,
        find: String,
        with: String,
        all: bool,
    },
    Write {
        path: String,
        content: String,
    },
}

/// A key looked up at the top level, then in `options`, then in `arguments` (DIFF-4 in small).
fn get<'a>(args: &'a Value, key: &str) -> Option<&'a Value> {
    args.get(key)
        .or_else(|| args.get("options").and_then(|o| o.get(key)))
        .or_else(|| args.get("arguments").and_then(|o| o.get(key)))
}

fn get_str<'a>(args: &'a Value, key: &str) -> Option<&'a str> {
    get(args, key).and_then(Value::as_str)
}

fn is_dry_run(args: &Value) -> bool {
    get(args, "dry_run").and_then(Value::as_bool) == Some(true)
}

fn target_str<'a>(args: &'a Value, key: &str) -> Option<&'a str> {
    args.get("target")
        .and_then(|t| t.get(key))
        .and_then(Value::as_str)
}

/// The facade `edit` operation, inferred per DIFF-2 when absent.
fn facade_op(args: &Value) -> String {
    if let Some(op) = get_str(args, "operation") {
        return op.to_string();
    }
    if get(args, "changes").is_some() {
        "batch".into()
    } else if target_str(args, "symbol").is_some() {
        "symbol".into()
    } else if target_str(args, "file").is_some()
        && get(args, "content").is_some()
        && get(args, "match").is_none()
    {
        "write".into()
    } else {
        "file".into()
    }
}

/// Batch items: an array, or a string holding a JSON array.
fn items(v: Option<&Value>) -> Result<Vec<Value>, String> {
    match v {
        Some(Value::Array(a)) => Ok(a.clone()),
        Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
            Ok(Value::Array(a)) => Ok(a),
            _ => Err("batch items are not a JSON array".into()),
        },
        _ => Err("batch has no items".into()),
    }
}

fn symbol_path(id: &str) -> String {
    id.split_once("::")
        .map(|(p, _)| p)
        .unwrap_or(id)
        .to_string()
}

fn missing(what: &str) -> String {
    format!("missing {what}")
}

/// Facade item shapes (`target.file` + `match`/`replacement` or `content`, `target.symbol`),
/// with the legacy shapes accepted too so mixed batches work.
fn facade_change(item: &Value) -> Result<Change, String> {
    let op = facade_op(item);
    match op.as_str() {
        "write" => Ok(Change::Write {
            path: target_str(item, "file")
                .or_else(|| get_str(item, "path"))
                .ok_or_else(|| missing("target.file"))?
                .to_string(),
            content: get_str(item, "content").unwrap_or("").to_string(),
        }),
        "symbol" => Ok(Change::Replace {
            path: symbol_path(target_str(item, "symbol").ok_or_else(|| missing("target.symbol"))?),
            find: get_str(item, "match")
                .ok_or_else(|| missing("match"))?
                .to_string(),
            with: get_str(item, "replacement").unwrap_or("").to_string(),
            all: get(item, "replace_all").and_then(Value::as_bool) == Some(true),
        }),
        _ => {
            if item.get("target").is_none() {
                if let Ok(c) = legacy_item(item) {
                    return Ok(c);
                }
            }
            Ok(Change::Replace {
                path: target_str(item, "file")
                    .or_else(|| get_str(item, "path"))
                    .ok_or_else(|| missing("target.file"))?
                    .to_string(),
                find: get_str(item, "match")
                    .ok_or_else(|| missing("match"))?
                    .to_string(),
                with: get_str(item, "replacement").unwrap_or("").to_string(),
                all: get(item, "replace_all").and_then(Value::as_bool) == Some(true),
            })
        }
    }
}

/// Legacy item shapes: `edit_file`, `write_file` and `edit_symbol` arguments.
fn legacy_item(item: &Value) -> Result<Change, String> {
    let s = |k: &str| item.get(k).and_then(Value::as_str);
    if let (Some(id), Some(old)) = (s("id"), s("old_source")) {
        return Ok(Change::Replace {
            path: symbol_path(id),
            find: old.to_string(),
            with: s("new_source").unwrap_or("").to_string(),
            all: false,
        });
    }
    let path = s("path")
        .or_else(|| s("file"))
        .or_else(|| s("file_path"))
        .ok_or_else(|| missing("path"))?;
    if let Some(old) = s("old_string") {
        return Ok(Change::Replace {
            path: path.to_string(),
            find: old.to_string(),
            with: s("new_string").unwrap_or("").to_string(),
            all: item.get("replace_all").and_then(Value::as_bool) == Some(true),
        });
    }
    if let Some(content) = s("content") {
        return Ok(Change::Write {
            path: path.to_string(),
            content: content.to_string(),
        });
    }
    Err(missing("old_string or content"))
}

/// The changes of a call, `None` when the call is not an edit at all.
fn changes_of(name: &str, args: &Value) -> Option<(Result<Vec<Change>, String>, bool)> {
    let batch = |key: &str| -> Result<Vec<Change>, String> {
        let list = items(get(args, key))?;
        let mut out = Vec::new();
        for item in &list {
            out.push(if name == "edit" {
                facade_change(item)?
            } else {
                legacy_item(item)?
            });
        }
        Ok(out)
    };
    let changes = match name {
        "edit" => match facade_op(args).as_str() {
            "batch" => batch("changes"),
            "file" | "write" | "symbol" => facade_change(args).map(|c| vec![c]),
            _ => return None,
        },
        "edit_file" | "write_file" | "edit_symbol" => legacy_item(args).map(|c| vec![c]),
        "batch_edit" => batch("edits"),
        _ => return None,
    };
    Some((
        changes,
        name == "edit" && facade_op(args) == "batch" || name == "batch_edit",
    ))
}

/// Applies an edit call; `None` when the call is not an edit.
pub fn apply_call(name: &str, args: &Value) -> Option<EditReply> {
    let (changes, is_batch) = changes_of(name, args)?;
    let dry_run = is_dry_run(args);
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let root = paths::repo_root(&cwd);
    let result = changes.and_then(|cs| apply(&root, &cs, dry_run));
    Some(match result {
        Ok(mut reports) => {
            let value = if is_batch {
                let status = if dry_run { "would_apply" } else { "applied" };
                let mut v = json!({"status": status, "results": reports});
                if dry_run {
                    v["dry_run"] = json!(true);
                }
                v
            } else {
                reports.pop().unwrap_or(Value::Null)
            };
            EditReply {
                text: value.to_string(),
                structured: Some(value),
                is_error: false,
            }
        }
        Err(e) => EditReply {
            text: format!("edit failed: {e}"),
            structured: None,
            is_error: true,
        },
    })
}

/// Plans every change against an overlay, then writes the touched files (unless a dry run).
fn apply(root: &Path, changes: &[Change], dry_run: bool) -> Result<Vec<Value>, String> {
    let mut overlay: BTreeMap<PathBuf, Option<String>> = BTreeMap::new();
    let mut reports = Vec::new();
    let current = |overlay: &BTreeMap<PathBuf, Option<String>>, p: &PathBuf| -> Option<String> {
        match overlay.get(p) {
            Some(c) => c.clone(),
            None => std::fs::read_to_string(p).ok(),
        }
    };
    for change in changes {
        let mut report = Map::new();
        match change {
            Change::Replace {
                path,
                find,
                with,
                all,
            } => {
                let abs = paths::resolve(root, path);
                let text = current(&overlay, &abs).ok_or_else(|| format!("cannot read {path}"))?;
                if find.is_empty() || !text.contains(find.as_str()) {
                    return Err(format!("match not found in {path}"));
                }
                let (new, count) = if *all {
                    (
                        text.replace(find.as_str(), with),
                        text.matches(find.as_str()).count(),
                    )
                } else {
                    (text.replacen(find.as_str(), with, 1), 1)
                };
                overlay.insert(abs, Some(new));
                report.insert("path".into(), json!(path));
                report.insert(
                    "status".into(),
                    json!(if dry_run { "would_apply" } else { "applied" }),
                );
                report.insert("replacements".into(), json!(count));
            }
            Change::Write { path, content } => {
                let abs = paths::resolve(root, path);
                let existed = current(&overlay, &abs).is_some() || abs.exists();
                overlay.insert(abs, Some(content.clone()));
                let status = match (dry_run, existed) {
                    (true, _) => "would_apply",
                    (false, true) => "overwritten",
                    (false, false) => "created",
                };
                report.insert("path".into(), json!(path));
                report.insert("status".into(), json!(status));
                report.insert("bytes".into(), json!(content.len()));
            }
        }
        if dry_run {
            report.insert("dry_run".into(), json!(true));
        }
        reports.push(Value::Object(report));
    }
    if !dry_run {
        for (path, content) in overlay {
            let Some(content) = content else { continue };
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
            }
            std::fs::write(&path, content)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
    }
    Ok(reports)
}
