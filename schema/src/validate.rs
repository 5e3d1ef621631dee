//! Validation of JSON values against a named schema type, with the schema files embedded and
//! each type's compiled validator built once and cached.

use crate::generated::SCHEMA_SOURCES;
use pi_gortex_validation::CompiledType;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// One validation failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    /// JSON pointer into the validated value, e.g. `/block` (`""` is the value itself).
    pub instance_pointer: String,
    /// JSON pointer into the schema file of the failing keyword, e.g. `/$defs/HookDecision/properties/block/type`.
    pub schema_pointer: String,
    /// Plain-language description of the failure.
    pub message: String,
}

impl std::fmt::Display for SchemaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "at {:?} (schema {}): {}",
            self.instance_pointer, self.schema_pointer, self.message
        )
    }
}

/// Where a type is declared: the parsed schema file it lives in.
struct Catalogue {
    owner: HashMap<String, Arc<Value>>,
}

fn catalogue() -> &'static Catalogue {
    static CATALOGUE: OnceLock<Catalogue> = OnceLock::new();
    CATALOGUE.get_or_init(|| {
        let mut owner = HashMap::new();
        for (_, text) in SCHEMA_SOURCES {
            // The sources are checked-in schema files that codegen has linted; a broken one
            // simply contributes no types rather than panicking.
            let Ok(document) = serde_json::from_str::<Value>(text) else {
                continue;
            };
            let document = Arc::new(document);
            if let Some(defs) = document.get("$defs").and_then(Value::as_object) {
                for name in defs.keys() {
                    owner.insert(name.clone(), Arc::clone(&document));
                }
            }
        }
        Catalogue { owner }
    })
}

fn compiled(type_name: &str) -> Result<Arc<CompiledType>, SchemaError> {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<CompiledType>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let mut guard = cache.lock().unwrap_or_else(|poison| poison.into_inner());
    if let Some(found) = guard.get(type_name) {
        return Ok(Arc::clone(found));
    }
    let usage = |message: String| SchemaError {
        instance_pointer: String::new(),
        schema_pointer: String::new(),
        message,
    };
    let document = catalogue()
        .owner
        .get(type_name)
        .ok_or_else(|| usage(format!("unknown type `{type_name}`")))?;
    let compiled = Arc::new(CompiledType::new(document, type_name).map_err(usage)?);
    guard.insert(type_name.to_string(), Arc::clone(&compiled));
    Ok(compiled)
}

/// Validates `value` against the schema type `type_name` (a `$defs` name of any schema file,
/// e.g. `HookDecision`). Returns every failure; an unknown type name is one failure. A number
/// with a fraction or exponent (`1.0`) is not an integer here, because the generated types
/// cannot decode it as one.
pub fn validate(type_name: &str, value: &Value) -> Result<(), Vec<SchemaError>> {
    let compiled = compiled(type_name).map_err(|e| vec![e])?;
    let errors: Vec<SchemaError> = compiled
        .failures(value)
        .into_iter()
        .map(|f| SchemaError {
            instance_pointer: f.instance_pointer,
            schema_pointer: f.schema_pointer,
            message: f.message,
        })
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Every type name `validate` knows, sorted.
pub fn type_names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = catalogue().owner.keys().map(String::as_str).collect();
    names.sort_unstable();
    names
}
