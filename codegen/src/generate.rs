//! Renders every target from the schema files, entirely in memory, so that `generate` writes
//! and `check` compares the very same bytes.

use crate::discover::{load_schemas, SchemaFile};
use crate::error::CodegenError;
use crate::lint::lint_all;
use crate::rust_emitter::{emit_mod_rs, emit_rust};
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
pub fn render_all(files: &[SchemaFile]) -> Result<Vec<GeneratedFile>, CodegenError> {
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
