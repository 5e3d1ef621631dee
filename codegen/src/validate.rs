//! `validate <Type> <file>...`: checks JSON instances against a schema type with the `jsonschema`
//! crate, reading the schema files from disk so that it works even while generated code is stale.

use crate::discover::{read_json, SchemaFile};
use crate::error::CodegenError;
use serde::Serialize;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// One failure of one instance file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InstanceError {
    pub file: String,
    pub instance_pointer: String,
    pub schema_pointer: String,
    pub message: String,
}

/// Why validation could not run at all (usage or I/O, exit 2).
#[derive(Debug, thiserror::Error)]
pub enum ValidateUsageError {
    #[error("unknown type `{type_name}`; known types: {known}")]
    UnknownType { type_name: String, known: String },
    #[error("schema of `{type_name}` does not compile: {message}")]
    SchemaCompile { type_name: String, message: String },
    #[error(transparent)]
    Input(#[from] CodegenError),
}

/// A validator for one type, built from the file that declares it.
pub struct TypeValidator {
    validator: jsonschema::Validator,
    document: Value,
    type_name: String,
}

impl TypeValidator {
    /// Compiles the validator of `type_name` from the loaded schema files.
    pub fn new(files: &[SchemaFile], type_name: &str) -> Result<Self, ValidateUsageError> {
        let Some(file) = files
            .iter()
            .find(|f| f.defs().iter().any(|(name, _)| *name == type_name))
        else {
            let mut known: Vec<&str> = files
                .iter()
                .flat_map(|f| f.defs().into_iter().map(|(n, _)| n))
                .collect();
            known.sort_unstable();
            return Err(ValidateUsageError::UnknownType {
                type_name: type_name.to_string(),
                known: known.join(", "),
            });
        };
        let mut entry = file.document.clone();
        if let Some(object) = entry.as_object_mut() {
            object.insert("$ref".into(), Value::String(format!("#/$defs/{type_name}")));
        }
        let validator = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .build(&entry)
            .map_err(|e| ValidateUsageError::SchemaCompile {
                type_name: type_name.to_string(),
                message: e.to_string(),
            })?;
        Ok(Self {
            validator,
            document: file.document.clone(),
            type_name: type_name.to_string(),
        })
    }

    /// Every failure of `value`, attributed to `file`.
    pub fn errors(&self, file: &str, value: &Value) -> Vec<InstanceError> {
        self.validator
            .iter_errors(value)
            .map(|error| InstanceError {
                file: file.to_string(),
                instance_pointer: error.instance_path.to_string(),
                schema_pointer: file_pointer(
                    &self.document,
                    &self.type_name,
                    &error.schema_path.to_string(),
                ),
                message: error.to_string(),
            })
            .collect()
    }
}

/// Validates every instance file; an unreadable or non-JSON file stops with a usage error.
pub fn validate_files(
    validator: &TypeValidator,
    paths: &[PathBuf],
) -> Result<Vec<InstanceError>, ValidateUsageError> {
    let mut all = Vec::new();
    for path in paths {
        let value = read_json(path)?;
        all.extend(validator.errors(&display(path), &value));
    }
    Ok(all)
}

// The same evaluation-path walk as `pi_gortex_schema::validate` (see that file's doc for why it
// is included rather than imported).
#[path = "../../schema/src/pointer.rs"]
mod pointer;
pub use pointer::file_pointer;

fn display(path: &Path) -> String {
    path.display().to_string()
}

/// Human-readable report, one line per failure.
pub fn render_text(errors: &[InstanceError]) -> String {
    errors
        .iter()
        .map(|e| {
            format!(
                "{}: at {:?}: {} (schema {})\n",
                e.file, e.instance_pointer, e.message, e.schema_pointer
            )
        })
        .collect()
}
