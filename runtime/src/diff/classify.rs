//! Which tool calls are file edits, and which names they carry (DIFF-2..6).
//!
//! Gortex tools take their arguments in containers (`arguments`, `options`,
//! `target`...), so the arguments are first flattened into one object.
//! The edit decision and the path names are read from that.
//!
//! # Operation inference (improvement over 0.4.0)
//!
//! The facade tool `edit` names its operation in `operation`. When that key
//! is absent (or JSON `null`), the operation is inferred the way the daemon
//! infers it, first match wins:
//!
//! 1. `changes` present (flattened, not `null`) -> `batch`;
//! 2. `target.symbol` is a string -> `symbol`;
//! 3. `target.file` is a string, `content` is present and `match` is not
//!    (flattened) -> `write`;
//! 4. `target.file` is a string -> `file`;
//! 5. otherwise -> `file`.
//!
//! So an `edit` call without `operation` is always an edit unless it is a
//! dry run. An `operation` that is present but not a string names no edit
//! operation, so such a call is not an edit.

use serde_json::{Map, Value};

/// Containers whose members are merged into the flattened arguments, in
/// merge order.
pub const CONTAINERS: [&str; 6] = [
    "arguments",
    "options",
    "source",
    "context",
    "guard",
    "output",
];

/// Legacy Gortex tools that always write (unless dry run).
pub const LEGACY_EDIT_TOOLS: [&str; 4] = ["edit_file", "write_file", "edit_symbol", "batch_edit"];

/// Keys whose string value is a path.
const PATH_KEYS: [&str; 5] = ["path", "file", "file_path", "source", "destination"];

/// Keys whose string value is a symbol id `file::name`.
const SYMBOL_KEYS: [&str; 3] = ["id", "symbol", "symbol_id"];

/// The `edit` facade's operations that write files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EditOperation {
    File,
    Symbol,
    Write,
    Batch,
}

impl EditOperation {
    fn from_name(name: &str) -> Option<Self> {
        match name {
            "file" => Some(EditOperation::File),
            "symbol" => Some(EditOperation::Symbol),
            "write" => Some(EditOperation::Write),
            "batch" => Some(EditOperation::Batch),
            _ => None,
        }
    }
}

/// What kind of edit a call is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EditKind {
    /// One of [`LEGACY_EDIT_TOOLS`].
    Legacy,
    /// The `edit` facade with an explicit operation.
    Facade(EditOperation),
    /// The `edit` facade without `operation`; the operation was inferred.
    Inferred(EditOperation),
}

/// Merges the containers, copies the top-level keys over them and
/// lifts `target.file` / `target.symbol` out. Anything but an object
/// flattens to an empty map.
pub fn flatten(args: &Value) -> Map<String, Value> {
    let mut flat = Map::new();
    let Some(top) = args.as_object() else {
        return flat;
    };
    for container in CONTAINERS {
        if let Some(Value::Object(members)) = top.get(container) {
            for (key, value) in members {
                flat.insert(key.clone(), value.clone());
            }
        }
    }
    for (key, value) in top {
        let is_container_object = CONTAINERS.contains(&key.as_str()) && value.is_object();
        if key != "target" && !is_container_object {
            flat.insert(key.clone(), value.clone());
        }
    }
    if let Some(file) = target_string(args, "file") {
        flat.insert("path".into(), Value::String(file.to_owned()));
    }
    if let Some(symbol) = target_string(args, "symbol") {
        flat.insert("id".into(), Value::String(symbol.to_owned()));
    }
    flat
}

/// `target.<key>` when it is a string.
fn target_string<'a>(args: &'a Value, key: &str) -> Option<&'a str> {
    args.get("target")?.get(key)?.as_str()
}

/// The flattened `dry_run` is JSON `true`.
pub fn is_dry_run(flat: &Map<String, Value>) -> bool {
    flat.get("dry_run") == Some(&Value::Bool(true))
}

/// The operation of an `edit` call without `operation` (see the module doc).
pub fn infer_operation(args: &Value, flat: &Map<String, Value>) -> EditOperation {
    let present = |key: &str| flat.get(key).is_some_and(|v| !v.is_null());
    if present("changes") {
        EditOperation::Batch
    } else if target_string(args, "symbol").is_some() {
        EditOperation::Symbol
    } else if target_string(args, "file").is_some() && present("content") && !present("match") {
        EditOperation::Write
    } else {
        EditOperation::File
    }
}

/// Whether a call of `bare_tool_name` (no `mcp__gortex__` prefix)
/// with these arguments writes files, and how it was recognised.
pub fn edit_kind(bare_tool_name: &str, args: &Value) -> Option<EditKind> {
    let flat = flatten(args);
    if is_dry_run(&flat) {
        return None;
    }
    if LEGACY_EDIT_TOOLS.contains(&bare_tool_name) {
        return Some(EditKind::Legacy);
    }
    if bare_tool_name != "edit" {
        return None;
    }
    match flat.get("operation") {
        None | Some(Value::Null) => Some(EditKind::Inferred(infer_operation(args, &flat))),
        Some(Value::String(op)) => EditOperation::from_name(op).map(EditKind::Facade),
        Some(_) => None,
    }
}

/// DIFF-2 from the name alone: whether a call of `bare_tool_name` can write
/// files with any arguments. False means [`edit_kind`] is `None` whatever the
/// arguments, so the per-call fast path need not send them across napi.
pub fn may_edit(bare_tool_name: &str) -> bool {
    bare_tool_name == "edit" || LEGACY_EDIT_TOOLS.contains(&bare_tool_name)
}

/// DIFF-2 as a yes/no.
#[cfg(any(test, feature = "test-support"))]
pub fn is_edit(bare_tool_name: &str, args: &Value) -> bool {
    edit_kind(bare_tool_name, args).is_some()
}

/// The path names one object carries.
pub fn named_paths(object: &Map<String, Value>) -> Vec<String> {
    let mut names = Vec::new();
    for key in PATH_KEYS {
        if let Some(Value::String(path)) = object.get(key) {
            names.push(path.clone());
        }
    }
    for key in SYMBOL_KEYS {
        if let Some(Value::String(symbol)) = object.get(key) {
            if let Some((file, _)) = symbol.split_once("::") {
                names.push(file.to_owned());
            }
        }
    }
    names
}

/// The batch items, from `changes` else `edits`, each an array or a
/// string holding a JSON array.
pub fn batch_items(flat: &Map<String, Value>) -> Vec<Value> {
    let source = match flat.get("changes") {
        Some(v) if !v.is_null() => Some(v),
        _ => flat.get("edits"),
    };
    match source {
        Some(Value::Array(items)) => items.clone(),
        Some(Value::String(text)) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Array(items)) => items,
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// Every raw name a call carries: DIFF-5 on the flattened arguments, plus
/// DIFF-5 on each batch item that is an object. Empty names are dropped.
pub fn raw_names(args: &Value) -> Vec<String> {
    let flat = flatten(args);
    let mut names = named_paths(&flat);
    for item in batch_items(&flat) {
        if let Value::Object(object) = item {
            names.extend(named_paths(&object));
        }
    }
    names.retain(|n| !n.is_empty());
    names
}
