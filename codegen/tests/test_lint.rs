//! `lint` rejects keywords outside the supported subset and undescribed types or fields, naming
//! the file and the JSON pointer of each finding.

use pi_gortex_codegen::discover::SchemaFile;
use pi_gortex_codegen::error::CodegenError;
use pi_gortex_codegen::lint::lint_file;
use serde_json::json;

fn findings(document: serde_json::Value) -> Vec<(String, String)> {
    let file = SchemaFile {
        file_name: "t.schema.json".into(),
        document,
    };
    lint_file(&file)
        .into_iter()
        .map(|e| match e {
            CodegenError::Lint { file, pointer, .. } => (file, pointer),
            other => panic!("unexpected {other}"),
        })
        .collect()
}

fn with_def(def: serde_json::Value) -> serde_json::Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "urn:pi-gortex:schema:t",
        "description": "t",
        "$defs": {"T": def}
    })
}

#[test]
fn every_file_needs_its_own_id() {
    let mut missing = with_def(json!({"description": "d", "type": "string"}));
    missing.as_object_mut().unwrap().remove("$id");
    assert_eq!(
        findings(missing),
        [("schema/t.schema.json".into(), "/$id".into())]
    );
    let mut wrong = with_def(json!({"description": "d", "type": "string"}));
    wrong["$id"] = json!("urn:pi-gortex:schema:other");
    assert_eq!(
        findings(wrong),
        [("schema/t.schema.json".into(), "/$id".into())]
    );
}

#[test]
fn a_clean_schema_has_no_findings() {
    let clean = with_def(json!({"description": "d", "type": "object", "properties": {
        "a": {"description": "a", "type": "string"}}}));
    assert!(findings(clean).is_empty());
}

#[test]
fn unsupported_keywords_are_reported_with_file_and_pointer() {
    for keyword in [
        "if",
        "then",
        "else",
        "prefixItems",
        "unevaluatedProperties",
        "unevaluatedItems",
        "dependentRequired",
        "dependentSchemas",
        "allOf",
    ] {
        let mut def = json!({"description": "d", "type": "object"});
        def[keyword] = json!({});
        let found = findings(with_def(def));
        assert_eq!(
            found,
            vec![(
                "schema/t.schema.json".to_string(),
                format!("/$defs/T/{keyword}")
            )],
            "{keyword}"
        );
    }
}

#[test]
fn a_keyword_deep_inside_a_property_is_pointed_at() {
    let def = json!({"description": "d", "type": "object", "properties": {
        "a/b": {"description": "a", "type": "array", "prefixItems": []}}});
    assert_eq!(
        findings(with_def(def)),
        vec![(
            "schema/t.schema.json".to_string(),
            "/$defs/T/properties/a~1b/prefixItems".to_string()
        )]
    );
}

#[test]
fn nested_defs_are_rejected() {
    let def = json!({"description": "d", "type": "object", "$defs": {}});
    assert_eq!(findings(with_def(def))[0].1, "/$defs/T/$defs");
}

#[test]
fn undescribed_types_and_fields_are_rejected() {
    let def = json!({"type": "object", "properties": {"a": {"type": "string"}}});
    let pointers: Vec<String> = findings(with_def(def)).into_iter().map(|f| f.1).collect();
    assert_eq!(pointers, vec!["/$defs/T", "/$defs/T/properties/a"]);
}

#[test]
fn not_is_only_accepted_inside_an_open_union() {
    let def = json!({"description": "d", "type": "string", "not": {"enum": ["x"]}});
    assert_eq!(findings(with_def(def))[0].1, "/$defs/T/not");
}

#[test]
fn a_number_needs_finite_bounds_so_no_validator_accepts_what_an_f64_cannot_hold() {
    let number = |bounds: serde_json::Value| {
        let mut member = json!({"description": "n", "type": "number"});
        member
            .as_object_mut()
            .unwrap()
            .extend(bounds.as_object().unwrap().clone());
        findings(with_def(member))
    };
    let at_t = [("schema/t.schema.json".to_string(), "/$defs/T".to_string())];
    assert_eq!(number(json!({})), at_t);
    assert_eq!(number(json!({"minimum": 0})), at_t);
    assert_eq!(number(json!({"minimum": 2, "maximum": 1})), at_t);
    assert!(number(json!({"minimum": 0, "maximum": 1.7976931348623157e308})).is_empty());
    assert!(number(json!({"minimum": -1.5, "maximum": 1})).is_empty());
}

#[test]
fn x_go_type_is_only_for_free_form_members_of_value_field_types() {
    let member = |def: serde_json::Value| findings(with_def(def));
    let ok = json!({"description": "d", "type": "object", "x-go-value-fields": true, "properties": {
        "m": {"description": "m", "type": "object", "x-go-type": "map[string]any"}}});
    assert!(member(ok).is_empty());
    let pointer = |p: &str| vec![("schema/t.schema.json".to_string(), p.to_string())];
    let not_value_fields = json!({"description": "d", "type": "object", "properties": {
        "m": {"description": "m", "type": "object", "x-go-type": "map[string]any"}}});
    assert_eq!(
        member(not_value_fields),
        pointer("/$defs/T/properties/m/x-go-type")
    );
    let not_free_form = json!({"description": "d", "type": "object", "x-go-value-fields": true, "properties": {
        "m": {"description": "m", "type": "string", "x-go-type": "map[string]any"}}});
    assert_eq!(
        member(not_free_form),
        pointer("/$defs/T/properties/m/x-go-type")
    );
    let declared = json!({"description": "d", "type": "object", "x-go-value-fields": true, "properties": {
        "m": {"description": "m", "type": "object", "x-go-type": "map[string]any",
              "properties": {"a": {"description": "a", "type": "string"}}}}});
    assert_eq!(member(declared), pointer("/$defs/T/properties/m/x-go-type"));
    let unknown_type = json!({"description": "d", "type": "object", "x-go-value-fields": true, "properties": {
        "m": {"description": "m", "type": "object", "x-go-type": "map[string]float64"}}});
    assert_eq!(
        member(unknown_type),
        pointer("/$defs/T/properties/m/x-go-type")
    );
    let on_the_type = json!({"description": "d", "type": "object", "x-go-type": "map[string]any"});
    assert_eq!(member(on_the_type), pointer("/$defs/T/x-go-type"));
}
