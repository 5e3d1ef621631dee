//! Finds every `schema/*.schema.json` so that new schema files are picked up without code changes.

use crate::error::CodegenError;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// One schema file, parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaFile {
    /// File name inside `schema/`, e.g. `edit-details.schema.json`.
    pub file_name: String,
    /// The parsed document.
    pub document: Value,
}

impl SchemaFile {
    /// File stem without `.schema.json`, e.g. `edit-details`.
    pub fn stem(&self) -> &str {
        self.file_name
            .strip_suffix(".schema.json")
            .unwrap_or(&self.file_name)
    }

    /// Rust module name: the stem with `-` turned into `_`.
    pub fn module_name(&self) -> String {
        self.stem().replace('-', "_")
    }

    /// Path as shown in headers and messages, e.g. `schema/hook.schema.json`.
    pub fn display_path(&self) -> String {
        format!("schema/{}", self.file_name)
    }

    /// The `$defs` of the file, in file order.
    pub fn defs(&self) -> Vec<(&str, &Value)> {
        self.document
            .get("$defs")
            .and_then(Value::as_object)
            .map(|defs| defs.iter().map(|(k, v)| (k.as_str(), v)).collect())
            .unwrap_or_default()
    }
}

/// Lists the schema files of `schema_dir`, sorted by name for deterministic output.
pub fn schema_paths(schema_dir: &Path) -> Result<Vec<PathBuf>, CodegenError> {
    let entries = std::fs::read_dir(schema_dir).map_err(|source| CodegenError::Io {
        path: schema_dir.to_path_buf(),
        source,
    })?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| {
            path.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(".schema.json"))
        })
        .collect();
    paths.sort();
    Ok(paths)
}

/// Reads and parses one JSON file, reporting line and column on a syntax error.
pub fn read_json(path: &Path) -> Result<Value, CodegenError> {
    let text = std::fs::read_to_string(path).map_err(|source| CodegenError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|e| CodegenError::NotJson {
        path: path.to_path_buf(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })
}

/// Loads every schema file of `schema_dir`.
pub fn load_schemas(schema_dir: &Path) -> Result<Vec<SchemaFile>, CodegenError> {
    schema_paths(schema_dir)?
        .into_iter()
        .map(|path| {
            let document = read_json(&path)?;
            let file_name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default()
                .to_string();
            Ok(SchemaFile {
                file_name,
                document,
            })
        })
        .collect()
}

/// The schema files compiled into this binary (`codegen/schemas/`, written by `generate`), for a
/// `validate` run away from a checkout: an installed `pi-gortex-codegen` validates without the
/// repository.
pub fn embedded_schemas() -> Result<Vec<SchemaFile>, CodegenError> {
    crate::embedded_schemas::SCHEMAS
        .iter()
        .map(|(file_name, text)| {
            let document = serde_json::from_str(text).map_err(|e| CodegenError::NotJson {
                path: PathBuf::from("codegen/schemas").join(file_name),
                line: e.line(),
                column: e.column(),
                message: e.to_string(),
            })?;
            Ok(SchemaFile {
                file_name: (*file_name).to_string(),
                document,
            })
        })
        .collect()
}
