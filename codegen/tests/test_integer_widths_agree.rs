//! Every integer of the schemas has one width and range in all three languages: the Rust type
//! (read back through the schema schemars derives from it), the Go field type and the range the
//! TypeScript docs state. The expected width comes from the schema's bounds (`uint32` within
//! 0..=4294967295, else `int64`); each language must decode every declared value and state the
//! same width, so a value that decodes in one decodes in the others.

use pi_gortex_codegen::discover::{load_schemas, SchemaFile};
use pi_gortex_codegen::go_emitter::go_type_name;
use pi_gortex_codegen::model::{
    admits_integer, integer_bounds, integer_width, module_of, IntegerWidth,
};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// One integer of the schemas: its type, the member path inside that type (empty for a type
/// that is itself an integer or admits one) and its schema.
#[derive(Debug)]
struct IntegerSite {
    file: SchemaFile,
    def: String,
    member: Option<String>,
    schema: Value,
}

impl IntegerSite {
    fn label(&self) -> String {
        format!(
            "{}#/$defs/{}{}",
            self.file.display_path(),
            self.def,
            self.member
                .as_ref()
                .map(|m| format!("/properties/{m}"))
                .unwrap_or_default()
        )
    }
}

/// Every integer: a `$defs` entry that admits one, or a member of a `$defs` object (the only
/// places the schemas declare integers; a nested one fails the test so it gets covered).
fn integer_sites(files: &[SchemaFile]) -> Vec<IntegerSite> {
    let mut sites = Vec::new();
    for file in files {
        for (name, def) in file.defs() {
            if admits_integer(def) {
                sites.push(IntegerSite {
                    file: file.clone(),
                    def: name.to_string(),
                    member: None,
                    schema: def.clone(),
                });
            }
            let properties = def.get("properties").and_then(Value::as_object);
            for (member, schema) in properties.into_iter().flatten() {
                if admits_integer(schema) {
                    sites.push(IntegerSite {
                        file: file.clone(),
                        def: name.to_string(),
                        member: Some(member.clone()),
                        schema: schema.clone(),
                    });
                } else {
                    assert_no_nested_integer(schema, &format!("{name}/{member}"));
                }
            }
        }
    }
    sites
}

fn assert_no_nested_integer(schema: &Value, at: &str) {
    match schema {
        Value::Object(map) => {
            assert!(
                !admits_integer(schema),
                "{at}: a nested integer this test does not map; extend it"
            );
            for (key, value) in map {
                assert_no_nested_integer(value, &format!("{at}/{key}"));
            }
        }
        Value::Array(items) => items
            .iter()
            .for_each(|item| assert_no_nested_integer(item, at)),
        _ => {}
    }
}

/// Rust: the integer subschemas of the derived schema of the type (or of its member), with
/// `$ref`s into the derived definitions followed.
fn rust_integers(site: &IntegerSite) -> Vec<Value> {
    let root = serde_json::to_value(
        pi_gortex_schema::derived_schema(&site.def)
            .unwrap_or_else(|| panic!("no generated Rust type {}", site.def)),
    )
    .unwrap();
    let start = match &site.member {
        None => root.clone(),
        Some(member) => root
            .pointer(&format!("/properties/{member}"))
            .unwrap_or_else(|| panic!("{}: no member in the derived schema", site.label()))
            .clone(),
    };
    let mut found = Vec::new();
    collect_integers(&root, &start, &mut found, 0);
    found
}

fn collect_integers(root: &Value, node: &Value, found: &mut Vec<Value>, depth: usize) {
    assert!(depth < 16, "derived schema too deep");
    if let Some(target) = node.get("$ref").and_then(Value::as_str) {
        let pointer = target.trim_start_matches('#');
        let resolved = root.pointer(pointer).expect("derived $ref resolves");
        return collect_integers(root, resolved, found, depth + 1);
    }
    if admits_integer(node) {
        found.push(node.clone());
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        for item in node
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            collect_integers(root, item, found, depth + 1);
        }
    }
}

/// The (lowest, highest) value a schemars integer `format` decodes; `Err` names a width that is
/// neither of the two the schemas use (`uint64`, `int32`, ...).
fn rust_decode_range(derived: &Value) -> Result<(i128, i128, IntegerWidth), String> {
    let minimum = derived.get("minimum").and_then(Value::as_f64);
    match derived.get("format").and_then(Value::as_str) {
        // `u32` is `minimum: 0`, `NonZeroU32` `minimum: 1`.
        Some("uint32") => Ok((
            minimum.map_or(0, |m| m as i128),
            i128::from(u32::MAX),
            IntegerWidth::U32,
        )),
        Some("int64") => Ok((
            i128::from(i64::MIN),
            i128::from(i64::MAX),
            IntegerWidth::I64,
        )),
        other => Err(format!("Rust integer format {other:?}")),
    }
}

/// Go: the declared type of the member (pointer and slice stripped), or of the type itself.
fn go_type(root: &Path, site: &IntegerSite) -> String {
    let module = module_of(&site.file);
    let def = module.types.iter().find(|t| t.name == site.def).unwrap();
    let go_name = go_type_name(def);
    let source = std::fs::read_to_string(
        root.join("bindings/go")
            .join(format!("{}.go", site.file.module_name())),
    )
    .unwrap();
    let Some(member) = &site.member else {
        // A type of its own: a union is kept as raw JSON (exact, any width; `Validate` checks the
        // bounds); a plain integer type has a Go integer underneath.
        let struct_head = format!("type {go_name} struct {{\n\t// Raw is the JSON of the value");
        if source.contains(&struct_head) {
            return "raw".into();
        }
        let line = source
            .lines()
            .find(|l| l.starts_with(&format!("type {go_name} ")))
            .unwrap_or_else(|| panic!("{}: no Go type {go_name}", site.label()));
        return line.split_whitespace().nth(2).unwrap().to_string();
    };
    let body = source
        .split(&format!("type {go_name} struct {{\n"))
        .nth(1)
        .unwrap_or_else(|| panic!("{}: no Go struct {go_name}", site.label()));
    let body = &body[..body.find("\n}\n").unwrap()];
    let tag = format!("`json:\"{member}");
    let line = body
        .lines()
        .find(|l| l.contains(&format!("{tag},")) || l.contains(&format!("{tag}\"")))
        .unwrap_or_else(|| panic!("{}: no Go field tagged {member}", site.label()));
    line.split_whitespace()
        .nth(1)
        .unwrap()
        .trim_start_matches('*')
        .trim_start_matches("[]")
        .to_string()
}

/// TypeScript: the range and width stated in the doc comment of the member or type.
fn ts_doc_range(root: &Path, site: &IntegerSite) -> String {
    let source = std::fs::read_to_string(
        root.join("bindings/node/types")
            .join(format!("{}.d.ts", site.file.stem())),
    )
    .unwrap();
    let (scope, declaration) = match &site.member {
        None => (source.as_str(), format!("export type {} =", site.def)),
        Some(member) => {
            let head = format!("export interface {} {{\n", site.def);
            let body = source
                .split(&head)
                .nth(1)
                .unwrap_or_else(|| panic!("{}: no TS interface", site.label()));
            let body = &body[..body.find("\n}\n").unwrap()];
            (body, format!("  {member}"))
        }
    };
    let at = scope
        .lines()
        .position(|l| {
            l.starts_with(&declaration) && l[declaration.len()..].starts_with(['?', ':', ' '])
        })
        .unwrap_or_else(|| panic!("{}: no TS declaration", site.label()));
    let lines: Vec<&str> = scope.lines().collect();
    // The doc comment ends on the line before the declaration.
    let doc_start = lines[..at]
        .iter()
        .rposition(|l| l.trim_start().starts_with("/**"))
        .unwrap();
    let doc = lines[doc_start..at].join("\n");
    let sentence = doc
        .split("An integer from ")
        .nth(1)
        .unwrap_or_else(|| panic!("{}: TS doc states no integer range:\n{doc}", site.label()));
    sentence[..sentence.find(").").unwrap() + 1].to_string()
}

#[test]
fn every_integer_has_one_width_and_range_in_rust_go_and_typescript() {
    let root = repo_root();
    let files = load_schemas(&root.join("schema")).expect("schemas load");
    let sites = integer_sites(&files);
    // Seventeen today; a schema that loses its integers must not make this test vacuous.
    assert!(sites.len() >= 17, "found only {} integers", sites.len());
    let mut disagreements = Vec::new();
    for site in &sites {
        let (min, max) = integer_bounds(&site.schema).expect("lint requires bounds");
        let width = integer_width(&site.schema);
        let (go_expected, ts_width) = match width {
            IntegerWidth::U32 => ("uint32", "uint32"),
            IntegerWidth::I64 => ("int64", "int64; a JS number is exact only within ±2^53"),
        };

        let rust = rust_integers(site);
        if rust.len() != 1 {
            disagreements.push(format!(
                "{}: Rust has {} integer schemas: {rust:?}",
                site.label(),
                rust.len()
            ));
        }
        for derived in &rust {
            let (low, high, rust_width) = match rust_decode_range(derived) {
                Ok(range) => range,
                Err(what) => {
                    disagreements.push(format!(
                        "{}: {what}, the schema declares {min}..={max} ({width:?})",
                        site.label()
                    ));
                    continue;
                }
            };
            if rust_width != width || low > i128::from(min) || high < i128::from(max) {
                disagreements.push(format!(
                    "{}: Rust decodes {low}..={high} ({rust_width:?}), the schema declares {min}..={max} ({width:?})",
                    site.label()
                ));
            }
        }

        let go = go_type(&root, site);
        let go_ok = go == go_expected || (site.member.is_none() && go == "raw");
        if !go_ok {
            disagreements.push(format!(
                "{}: Go type {go}, expected {go_expected}",
                site.label()
            ));
        }

        let ts = ts_doc_range(&root, site);
        let ts_expected = format!("{min} to {max} ({ts_width})");
        if ts != ts_expected {
            disagreements.push(format!(
                "{}: TypeScript docs say `{ts}`, expected `{ts_expected}`",
                site.label()
            ));
        }
    }
    assert!(disagreements.is_empty(), "{disagreements:#?}");
}
