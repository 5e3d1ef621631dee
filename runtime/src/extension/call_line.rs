//! The data of a tool's call line in Pi's interface. The glue only styles
//! it: the label in bold, the rest plain, or hands `read` to Pi's read
//! renderer.

use pi_gortex_schema::host::{CallLine, CallLineRead as ReadCall};
use serde_json::{Map, Value};

use crate::diff::classify;

const OPERATION_KEYS: [&str; 2] = ["operation", "kind"];
const SUBJECT_KEYS: [&str; 5] = ["target", "query", "question", "task", "path"];
const HIDDEN_KEYS: [&str; 4] = ["output", "view", "context", "to"];
const FLATTENED: [&str; 2] = ["options", "arguments"];
const SCOPE_KEYS: [&str; 6] = ["repo", "project", "path", "scope", "kind", "lang"];
/// Collapsed values are cut to 60 characters (59 + `…`).
const MAX_VALUE_CHARS: usize = 60;
/// A "set" value: not null, not `""`, and an object has at least one key.
fn is_set(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::String(text) => !text.is_empty(),
        Value::Object(map) => !map.is_empty(),
        _ => true,
    }
}

/// An object subject is unwrapped to its first set value.
fn unwrap_subject(value: &Value) -> &Value {
    match value {
        Value::Object(map) => map.values().find(|v| is_set(v)).unwrap_or(value),
        _ => value,
    }
}

fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The text of a value, cut when collapsed.
fn show(value: &Value, expanded: bool) -> String {
    let raw = match value {
        Value::String(text) => text.clone(),
        Value::Array(items) if items.iter().all(|i| !i.is_object() && !i.is_array()) => items
            .iter()
            .map(|item| match item {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            })
            .collect::<Vec<_>>()
            .join(","),
        other => other.to_string(),
    };
    let text = collapse_whitespace(&raw);
    if expanded || text.chars().count() <= MAX_VALUE_CHARS {
        return text;
    }
    let mut cut: String = text.chars().take(MAX_VALUE_CHARS - 1).collect();
    cut.push('…');
    cut
}

fn first_set<'a>(
    args: &'a Map<String, Value>,
    keys: &[&'static str],
) -> Option<(&'static str, &'a Value)> {
    keys.iter()
        .find_map(|key| args.get(*key).filter(|v| is_set(v)).map(|v| (*key, v)))
}

/// The remaining pairs, scope keys first.
fn pairs(args: &Map<String, Value>, skip: &[&str], expanded: bool) -> Vec<String> {
    let mut flat: Vec<(&str, &Value)> = Vec::new();
    for (key, value) in args {
        if skip.contains(&key.as_str()) || HIDDEN_KEYS.contains(&key.as_str()) {
            continue;
        }
        if FLATTENED.contains(&key.as_str()) {
            if let Value::Object(inner) = value {
                flat.extend(
                    inner
                        .iter()
                        .filter(|(k, _)| k.as_str() != "new_user_task")
                        .map(|(k, v)| (k.as_str(), v)),
                );
                continue;
            }
        }
        flat.push((key.as_str(), value));
    }
    let rank = |key: &str| {
        SCOPE_KEYS
            .iter()
            .position(|s| *s == key)
            .unwrap_or(SCOPE_KEYS.len())
    };
    // A stable sort keeps argument order among equals.
    flat.sort_by_key(|(key, _)| rank(key));
    flat.into_iter()
        .filter(|(_, value)| is_set(value))
        .map(|(key, value)| format!("{key}={}", show(value, expanded)))
        .collect()
}

fn positive(value: Option<&Value>) -> Option<f64> {
    value
        .and_then(Value::as_f64)
        .filter(|n| n.is_finite() && *n > 0.0)
}

/// The daemon `read` of a file, drawn by Pi's read renderer.
fn read_delegation(daemon_name: &str, args: &Map<String, Value>) -> Option<ReadCall> {
    if daemon_name != "read" {
        return None;
    }
    let path = args.get("target")?.get("file")?.as_str()?;
    match args.get("operation") {
        None => {}
        Some(Value::String(op)) if op == "file" => {}
        Some(_) => return None,
    }
    let flat = classify::flatten(&Value::Object(args.clone()));
    Some(ReadCall {
        path: path.to_string(),
        offset: positive(flat.get("offset")),
        limit: positive(flat.get("limit")),
    })
}

pub fn empty_line() -> CallLine {
    CallLine {
        rest: String::new(),
        read: None,
    }
}

/// The call line of a tool whose daemon name is `daemon_name`.
pub fn call_line_of(daemon_name: &str, args: &Value, expanded: bool) -> CallLine {
    let empty = Map::new();
    let args = args.as_object().unwrap_or(&empty);
    if let Some(read) = read_delegation(daemon_name, args) {
        return CallLine {
            read: Some(read),
            ..empty_line()
        };
    }
    let operation = first_set(args, &OPERATION_KEYS);
    let subject = first_set(args, &SUBJECT_KEYS);
    let to = args.get("to").filter(|v| is_set(v));
    let skip: Vec<&str> = operation
        .iter()
        .chain(subject.iter())
        .map(|(k, _)| *k)
        .collect();
    // Operation, subject, `to <target>`, then the pairs, one space apart.
    let mut pieces: Vec<String> = Vec::new();
    pieces.extend(operation.map(|(_, v)| show(v, expanded)));
    pieces.extend(subject.map(|(_, v)| show(unwrap_subject(v), expanded)));
    pieces.extend(to.map(|v| format!("to {}", show(unwrap_subject(v), expanded))));
    pieces.extend(pairs(args, &skip, expanded));
    CallLine {
        rest: pieces.join(" "),
        read: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The line as the glue draws it: the label, a space, the rest.
    fn line(name: &str, label: &str, args: Value) -> String {
        format!("{label} {}", call_line_of(name, &args, false).rest)
    }

    #[test]
    fn ren_8_examples() {
        assert_eq!(
            line(
                "read",
                "gortex_read",
                json!({"operation":"source","target":{"symbol":"src/a.ts::f"},"options":{"new_user_task":true}})
            ),
            "gortex_read source src/a.ts::f"
        );
        assert_eq!(
            line(
                "search",
                "search",
                json!({"operation":"symbols","query":"callRenderer","output":{"format":"gcx"}})
            ),
            "search symbols callRenderer"
        );
        assert_eq!(
            line(
                "search",
                "search",
                json!({"operation":"text","query":"x","options":{"limit":5,"path":"src/"}})
            ),
            "search text x path=src/ limit=5"
        );
        assert_eq!(
            line(
                "trace",
                "trace",
                json!({"operation":"path","target":{"symbol":"a"},"to":{"symbol":"b"}})
            ),
            "trace path a to b"
        );
        assert_eq!(
            line("analyze", "analyze", json!({"kind":"dead_code"})),
            "analyze dead_code"
        );
        assert_eq!(
            line(
                "analyze",
                "analyze",
                json!({"operation":"run","kind":"dead_code"})
            ),
            "analyze run kind=dead_code"
        );
    }

    #[test]
    fn ren_4_read_delegation_passes_only_positive_numbers() {
        let read = call_line_of(
            "read",
            &json!({"target":{"file":"/abs/a.ts"},"options":{"offset":10,"limit":5}}),
            false,
        )
        .read
        .unwrap();
        assert_eq!(
            (read.path.as_str(), read.offset, read.limit),
            ("/abs/a.ts", Some(10.0), Some(5.0))
        );
        let read = call_line_of(
            "read",
            &json!({"target":{"file":"/abs/a.ts"},"options":{"offset":"10","limit":"5"}}),
            false,
        )
        .read
        .unwrap();
        assert_eq!((read.offset, read.limit), (None, None));
        assert!(call_line_of(
            "read",
            &json!({"operation":"source","target":{"file":"a"}}),
            false
        )
        .read
        .is_none());
    }

    #[test]
    fn ren_2_unset_values_are_left_out_and_the_rest_shown() {
        // Null, "" and {} are not set: the pair is dropped, the next subject key is taken.
        let rest = |args: Value| call_line_of("search", &args, false).rest;
        assert_eq!(
            rest(json!({"target": null, "query": "q", "a": null, "b": "", "c": {}})),
            "q"
        );
        assert_eq!(rest(json!({"target": "", "query": "q"})), "q");
        assert_eq!(rest(json!({"target": {}, "query": "q"})), "q");
        // Set values of every other kind are shown: false, 0, an empty array, a set object.
        assert_eq!(
            rest(json!({"query": "q", "f": false, "n": 0, "e": [], "o": {"k": 1}})),
            r#"q f=false n=0 e= o={"k":1}"#
        );
    }

    #[test]
    fn ren_2_an_array_of_primitives_is_joined_and_any_other_is_compact_json() {
        let rest = |args: Value| call_line_of("search", &args, false).rest;
        assert_eq!(rest(json!({"names": ["a", 1, true]})), "names=a,1,true");
        assert_eq!(
            rest(json!({"names": ["a", {"k": 1}]})),
            r#"names=["a",{"k":1}]"#
        );
        assert_eq!(rest(json!({"names": ["a", [1]]})), r#"names=["a",[1]]"#);
        assert_eq!(rest(json!({"query": "a  b\n c"})), "a b c");
    }

    #[test]
    fn ren_4_only_a_positive_number_is_passed_and_only_a_file_read_is_delegated() {
        let read = |args: Value| call_line_of("read", &args, false).read;
        let numbers =
            read(json!({"target":{"file":"a"},"options":{"offset":0,"limit":-1}})).unwrap();
        assert_eq!((numbers.offset, numbers.limit), (None, None));
        let small = read(json!({"target":{"file":"a"},"options":{"offset":0.5}})).unwrap();
        assert_eq!(small.offset, Some(0.5));
        let file = read(json!({"operation":"file","target":{"file":"a"}})).unwrap();
        assert_eq!(file.path, "a");
        assert!(read(json!({"operation":7,"target":{"file":"a"}})).is_none());
        assert!(
            call_line_of("search", &json!({"target":{"file":"a"}}), false)
                .read
                .is_none()
        );
    }

    #[test]
    fn ren_2_collapsed_values_are_cut_to_60_characters() {
        let long = "x".repeat(100);
        let parts = call_line_of("search", &json!({"query": long}), false);
        assert_eq!(parts.rest.chars().count(), 60);
        let parts = call_line_of("search", &json!({"query": long}), true);
        assert_eq!(parts.rest.chars().count(), 100);
    }
}
