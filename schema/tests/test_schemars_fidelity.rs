//! Fidelity of the generated Rust types: the schema schemars derives back from each generated
//! type must accept every valid vector and reject every invalid one. This catches constraints
//! typify dropped silently (for example a `const` tag turned into a plain string).

use serde_json::Value;
use std::path::{Path, PathBuf};

fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples")
}

fn vectors(kind: &str) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for type_dir in std::fs::read_dir(examples_dir()).expect("examples dir") {
        let type_dir = type_dir.expect("entry").path();
        let type_name = type_dir.file_name().unwrap().to_string_lossy().to_string();
        let Ok(entries) = std::fs::read_dir(type_dir.join(kind)) else {
            continue;
        };
        for entry in entries {
            let path = entry.expect("entry").path();
            if path.extension().is_some_and(|e| e == "json") {
                out.push((type_name.clone(), path));
            }
        }
    }
    out.sort();
    out
}

fn load(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn derived_validator(type_name: &str) -> jsonschema::Validator {
    let schema = pi_gortex_schema::derived_schema(type_name)
        .unwrap_or_else(|| panic!("no generated type {type_name}"));
    let schema = serde_json::to_value(schema).expect("schema serializes");
    jsonschema::validator_for(&schema)
        .unwrap_or_else(|e| panic!("derived schema of {type_name} does not compile: {e}"))
}

#[test]
fn derived_schemas_accept_every_valid_vector() {
    for (type_name, path) in vectors("valid") {
        let validator = derived_validator(&type_name);
        let errors: Vec<String> = validator
            .iter_errors(&load(&path))
            .map(|e| format!("{} at {}", e, e.instance_path))
            .collect();
        assert!(
            errors.is_empty(),
            "derived schema of {type_name} rejects {}: {errors:?}",
            path.display()
        );
    }
}

#[test]
fn derived_schemas_reject_every_invalid_vector() {
    for (type_name, path) in vectors("invalid") {
        let validator = derived_validator(&type_name);
        assert!(
            !validator.is_valid(&load(&path)),
            "derived schema of {type_name} accepts {}: a constraint of the schema was lost in the Rust type",
            path.display()
        );
    }
}
