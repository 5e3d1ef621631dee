//! Rejects schema keywords outside the subset typify and our emitters handle, before typify can
//! panic on them, and enforces that every type and field is described (descriptions become the
//! doc comments of all three languages and docs/schema.md).

use crate::discover::SchemaFile;
use crate::error::CodegenError;
use crate::model::{admits_integer, admits_number, integer_bounds, number_bounds};
use serde_json::{Map, Value};

/// Keywords accepted at any schema position.
const SUPPORTED: &[&str] = &[
    "$ref",
    "title",
    "description",
    "type",
    "enum",
    "const",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "oneOf",
    "anyOf",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "examples",
    "default",
    "deprecated",
    "x-open-tag",
    "x-go-name",
    "x-go-aliases",
    "x-go-value-fields",
    "x-go-type",
];

/// The Go types `x-go-type` may name: the type a daemon struct gives a free-form member.
pub const GO_TYPE_OVERRIDES: &[&str] = &["map[string]any"];

/// Keywords accepted only on the root of a file.
const ROOT_ONLY: &[&str] = &["$schema", "$id", "$defs"];

/// The `$id` every file has, so editors and generic validators can name a file (and, with a
/// fragment, a type) without a network location: `urn:pi-gortex:schema:<stem>`.
pub fn expected_id(file: &SchemaFile) -> String {
    format!("urn:pi-gortex:schema:{}", file.stem())
}

/// The one dialect the files are written in.
const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// Lints every file; returns all findings, not just the first.
pub fn lint_all(files: &[SchemaFile]) -> Vec<CodegenError> {
    files.iter().flat_map(lint_file).collect()
}

/// Lints one file.
pub fn lint_file(file: &SchemaFile) -> Vec<CodegenError> {
    let mut findings = Vec::new();
    let report = |findings: &mut Vec<CodegenError>, pointer: &str, message: String| {
        findings.push(CodegenError::Lint {
            file: file.display_path(),
            pointer: pointer.to_string(),
            message,
        })
    };
    let Some(root) = file.document.as_object() else {
        report(&mut findings, "", "a schema file must be an object".into());
        return findings;
    };
    if root.get("$schema").and_then(Value::as_str) != Some(DIALECT) {
        report(&mut findings, "/$schema", format!("must be `{DIALECT}`"));
    }
    let id = expected_id(file);
    if root.get("$id").and_then(Value::as_str) != Some(id.as_str()) {
        report(&mut findings, "/$id", format!("must be `{id}`"));
    }
    for (key, _) in root {
        if !ROOT_ONLY.contains(&key.as_str()) && !["title", "description"].contains(&key.as_str()) {
            report(
                &mut findings,
                &format!("/{}", escape(key)),
                format!("unsupported keyword `{key}` on the root (types go in `$defs`)"),
            );
        }
    }
    match root.get("$defs").and_then(Value::as_object) {
        Some(defs) => {
            for (name, def) in defs {
                let pointer = format!("/$defs/{}", escape(name));
                if !is_type_name(name) {
                    report(
                        &mut findings,
                        &pointer,
                        "type names are UpperCamelCase ASCII".into(),
                    );
                }
                require_description(def, &pointer, &mut findings, file);
                let allows_not = def.get("x-open-tag").is_some();
                lint_schema(def, &pointer, allows_not, &mut findings, file);
                lint_go_types(def, &pointer, &mut findings, file);
            }
        }
        None => report(&mut findings, "/$defs", "`$defs` object is required".into()),
    }
    findings
}

/// `x-go-type` gives a member of a daemon-owned type (`x-go-value-fields`) the Go type the
/// daemon's own struct has, so the generated struct can stand in for it; anywhere else, or on a
/// member that is not a free-form object, Go would read a message differently from Rust.
fn lint_go_types(def: &Value, pointer: &str, findings: &mut Vec<CodegenError>, file: &SchemaFile) {
    let mut found = Vec::new();
    find_keyword(def, pointer, "x-go-type", &mut found);
    let value_fields = def.get("x-go-value-fields") == Some(&Value::Bool(true));
    for (at, schema) in found {
        let member = at
            .strip_prefix(&format!("{pointer}/properties/"))
            .filter(|rest| !rest.contains('/'));
        let free_form = schema.get("type").and_then(Value::as_str) == Some("object")
            && schema.get("properties").is_none()
            && schema.get("additionalProperties").is_none_or(|extra| {
                extra == &Value::Bool(true) || extra == &Value::Object(Map::new())
            });
        let known = schema
            .get("x-go-type")
            .and_then(Value::as_str)
            .is_some_and(|t| GO_TYPE_OVERRIDES.contains(&t));
        let message = if member.is_none() || !value_fields {
            "`x-go-type` belongs on a member of a type marked `x-go-value-fields`".to_string()
        } else if !free_form {
            "`x-go-type` needs a free-form object member (`type: object`, nothing declared)".into()
        } else if !known {
            format!("`x-go-type` must be one of {GO_TYPE_OVERRIDES:?}")
        } else {
            continue;
        };
        findings.push(CodegenError::Lint {
            file: file.display_path(),
            pointer: format!("{at}/x-go-type"),
            message,
        });
    }
}

/// Every subschema at or below `schema` that has `keyword`, with its pointer.
fn find_keyword<'a>(
    schema: &'a Value,
    pointer: &str,
    keyword: &str,
    out: &mut Vec<(String, &'a Value)>,
) {
    match schema {
        Value::Object(object) => {
            if object.contains_key(keyword) {
                out.push((pointer.to_string(), schema));
            }
            for (key, value) in object {
                find_keyword(value, &format!("{pointer}/{}", escape(key)), keyword, out);
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                find_keyword(item, &format!("{pointer}/{index}"), keyword, out);
            }
        }
        _ => {}
    }
}

fn is_type_name(name: &str) -> bool {
    name.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && name.chars().all(|c| c.is_ascii_alphanumeric())
}

fn require_description(
    schema: &Value,
    pointer: &str,
    findings: &mut Vec<CodegenError>,
    file: &SchemaFile,
) {
    let described = schema
        .get("description")
        .and_then(Value::as_str)
        .is_some_and(|d| !d.trim().is_empty());
    if !described {
        findings.push(CodegenError::Lint {
            file: file.display_path(),
            pointer: pointer.to_string(),
            message: "every type and field needs a non-empty `description`".into(),
        });
    }
}

/// Lints the schema at `pointer`. `allows_not` is true inside an open tagged union, the one
/// place where `not` (the fallback variant's "none of the known tags") is understood.
fn lint_schema(
    schema: &Value,
    pointer: &str,
    allows_not: bool,
    findings: &mut Vec<CodegenError>,
    file: &SchemaFile,
) {
    let mut report = |pointer: String, message: String| {
        findings.push(CodegenError::Lint {
            file: file.display_path(),
            pointer,
            message,
        })
    };
    let object: &Map<String, Value> = match schema {
        Value::Object(object) => object,
        Value::Bool(_) => return,
        _ => {
            report(pointer.to_string(), "a schema must be an object".into());
            return;
        }
    };
    let mut children: Vec<(String, &Value, bool)> = Vec::new();
    let mut described_children: Vec<(String, &Value)> = Vec::new();
    for (key, value) in object {
        let here = format!("{pointer}/{}", escape(key));
        match key.as_str() {
            "not" if allows_not => children.push((here, value, allows_not)),
            "$defs" | "definitions" => report(
                here,
                "nested `$defs` are not supported; keep `$defs` at the root".into(),
            ),
            "if"
            | "then"
            | "else"
            | "prefixItems"
            | "unevaluatedItems"
            | "unevaluatedProperties"
            | "dependentRequired"
            | "dependentSchemas"
            | "patternProperties"
            | "allOf"
            | "not"
            | "$dynamicRef"
            | "$anchor"
            | "$id" => report(here, format!("unsupported keyword `{key}`")),
            "properties" => match value.as_object() {
                Some(props) => {
                    for (name, prop) in props {
                        let prop_pointer = format!("{here}/{}", escape(name));
                        described_children.push((prop_pointer.clone(), prop));
                        children.push((prop_pointer, prop, allows_not));
                    }
                }
                None => report(here, "`properties` must be an object".into()),
            },
            "oneOf" | "anyOf" => match value.as_array() {
                Some(items) => {
                    for (index, item) in items.iter().enumerate() {
                        children.push((format!("{here}/{index}"), item, allows_not));
                    }
                }
                None => report(here, format!("`{key}` must be an array")),
            },
            "items" | "additionalProperties" => children.push((here, value, allows_not)),
            "$ref" => {
                if !value.as_str().is_some_and(|r| r.starts_with("#/$defs/")) {
                    report(here, "`$ref` must point into this file's `$defs`".into());
                }
            }
            other if SUPPORTED.contains(&other) => {}
            other => report(here, format!("unsupported keyword `{other}`")),
        }
    }
    if admits_integer(schema) && integer_bounds(schema).is_none_or(|(min, max)| min > max) {
        report(
            pointer.to_string(),
            "an integer needs integer `minimum` and `maximum` within the int64 range (within 0..=4294967295 it is a uint32), so every language decodes the same range".into(),
        );
    }
    // Without bounds a standard validator accepts a number no f64 holds (`1e400`, a 400-digit
    // integer), which Rust cannot even parse: the bounds make every validator refuse it.
    if admits_number(schema) && number_bounds(schema).is_none() {
        report(
            pointer.to_string(),
            "a number needs `minimum` and `maximum` within the f64 range (at widest -1.7976931348623157e308 and 1.7976931348623157e308), so every validator refuses what an f64 cannot hold".into(),
        );
    }
    if object.contains_key("x-open-tag") && !object.contains_key("oneOf") {
        report(
            format!("{pointer}/x-open-tag"),
            "`x-open-tag` needs a `oneOf` of `$ref` variants".into(),
        );
    }
    for (child_pointer, child) in described_children {
        require_description(child, &child_pointer, findings, file);
    }
    for (child_pointer, child, allows) in children {
        lint_schema(child, &child_pointer, allows, findings, file);
    }
}

/// Escapes a JSON pointer token (RFC 6901).
pub fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}
