//! Renders every target from the schema files, entirely in memory, so that `generate` writes
//! and `check` compares the very same bytes.

use crate::discover::{load_schemas, read_json, SchemaFile};
use crate::docs_emitter::emit_docs;
use crate::error::CodegenError;
use crate::go_emitter::emit_go_package;
use crate::lint::lint_all;
use crate::model::{module_of, Module};
use crate::readme_emitter::emit_readme;
use crate::rust_emitter::{emit_mod_rs, emit_rust, emit_validation_rs};
use crate::ts_emitter::{emit_ts, emit_ts_index, emit_ts_vectors_test, ts_file_name};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// One output file: path relative to the repository root, and its full contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedFile {
    pub path: PathBuf,
    pub contents: String,
}

/// Loads and lints the schemas of `<root>/schema`; lint findings abort generation.
pub fn load_linted(root: &Path) -> Result<Vec<SchemaFile>, Vec<CodegenError>> {
    let files = load_schemas(&root.join("schema")).map_err(|e| vec![e])?;
    let findings = lint_all(&files);
    if findings.is_empty() {
        Ok(files)
    } else {
        Err(findings)
    }
}

/// Renders every target for `files`.
pub fn render_all(root: &Path, files: &[SchemaFile]) -> Result<Vec<GeneratedFile>, CodegenError> {
    let mut out = Vec::new();
    for file in files {
        out.push(GeneratedFile {
            path: PathBuf::from(format!("schema/src/generated/{}.rs", file.module_name())),
            contents: emit_rust(file)?,
        });
    }
    out.push(GeneratedFile {
        path: PathBuf::from("schema/src/generated/mod.rs"),
        contents: emit_mod_rs(files),
    });
    out.push(GeneratedFile {
        path: PathBuf::from("schema/src/generated/validation.rs"),
        contents: emit_validation_rs(),
    });
    // The npm package ships the schema files (for editors and generic validators), verbatim.
    for file in files {
        let source = root.join("schema").join(&file.file_name);
        out.push(GeneratedFile {
            path: PathBuf::from("bindings/node/schema").join(&file.file_name),
            contents: std::fs::read_to_string(&source).map_err(|source_error| {
                CodegenError::Io {
                    path: source,
                    source: source_error,
                }
            })?,
        });
    }
    let modules: Vec<Module> = files.iter().map(module_of).collect();
    for module in &modules {
        out.push(GeneratedFile {
            path: PathBuf::from("bindings/node/types").join(ts_file_name(module)),
            contents: emit_ts(module),
        });
    }
    out.push(GeneratedFile {
        path: PathBuf::from("bindings/node/types/index.d.ts"),
        contents: emit_ts_index(&modules),
    });
    out.push(GeneratedFile {
        path: PathBuf::from("tests/types/vectors.ts"),
        contents: emit_ts_vectors_test(&modules, &valid_vectors(root)?),
    });
    out.extend(emit_go_package(root, files, &modules)?);
    out.push(GeneratedFile {
        path: PathBuf::from("docs/schema.md"),
        contents: emit_docs(&modules),
    });
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap_or_default();
    if let Some(contents) = emit_readme(&readme, &modules) {
        out.push(GeneratedFile {
            path: PathBuf::from("README.md"),
            contents,
        });
    }
    Ok(out)
}

/// (type name, vector file stem, value) of every `schema/examples/<Type>/valid/*.json`, sorted.
pub fn valid_vectors(root: &Path) -> Result<Vec<(String, String, Value)>, CodegenError> {
    let examples = root.join("schema/examples");
    let mut out = Vec::new();
    let Ok(type_dirs) = std::fs::read_dir(&examples) else {
        return Ok(out);
    };
    let mut type_dirs: Vec<PathBuf> = type_dirs.filter_map(|e| e.ok().map(|e| e.path())).collect();
    type_dirs.sort();
    for type_dir in type_dirs {
        let type_name = text_of(type_dir.file_name());
        let Ok(entries) = std::fs::read_dir(type_dir.join("valid")) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        paths.sort();
        for path in paths {
            let stem = text_of(path.file_stem());
            out.push((type_name.clone(), stem, read_json(&path)?));
        }
    }
    Ok(out)
}

/// Writes `files` under `root`, creating directories; unchanged files are not rewritten so that
/// cargo does not rebuild for nothing.
pub fn write_all(root: &Path, files: &[GeneratedFile]) -> Result<(), CodegenError> {
    for file in files {
        let path = root.join(&file.path);
        if std::fs::read_to_string(&path).ok().as_deref() == Some(file.contents.as_str()) {
            continue;
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|source| CodegenError::Io {
                path: parent.to_path_buf(),
                source,
            })?;
        }
        std::fs::write(&path, &file.contents)
            .map_err(|source| CodegenError::Io { path, source })?;
    }
    Ok(())
}

/// A file-name part as text; a name that is not UTF-8 reads as empty.
fn text_of(part: Option<&std::ffi::OsStr>) -> String {
    part.and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_string()
}
