//! The fixture's index: which repository is tracked, which files are indexed and which symbols
//! each holds. The daemon's socket side answers from it; the scenario's `indexed` key overrides
//! the default scan.
//!
//! Default: every source file (Gortex's extension list) under the tracked root is indexed, and
//! its symbols are the names declared in it (`fn`, `func`, `function`, `def`, `class`, `struct`,
//! `interface`, `type`, `enum`, `trait`, `const`, `let`, `var`), so a test states a file's symbols by
//! writing them. A source file that declares nothing has no symbols and reads as not indexed,
//! as the real daemon's `get_file_summary` answers for it.

use crate::hook::is_source;
use crate::scenario::Scenario;
use std::path::{Path, PathBuf};

/// One indexed symbol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    pub kind: &'static str,
    pub line: usize,
}

/// One indexed file, by its repository-relative path with `/` separators.
#[derive(Debug, Clone)]
pub struct IndexedFile {
    pub rel: String,
    pub symbols: Vec<Symbol>,
}

/// Directories a scan never enters.
const SKIPPED_DIRS: &[&str] = &[".git", "node_modules", "target", ".pi"];
/// A scan stops after this many files, so a stray large tree cannot stall a hook.
const MAX_FILES: usize = 2000;

const DECLARATION_KEYWORDS: &[(&str, &str)] = &[
    ("fn", "function"),
    ("func", "function"),
    ("function", "function"),
    ("def", "function"),
    ("class", "type"),
    ("struct", "type"),
    ("interface", "type"),
    ("type", "type"),
    ("enum", "type"),
    ("trait", "type"),
    ("const", "variable"),
    ("let", "variable"),
    ("var", "variable"),
];

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

/// The names a source text declares, with their 1-based lines.
pub fn declarations(text: &str) -> Vec<Symbol> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let words: Vec<&str> = line
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .collect();
        for pair in words.windows(2) {
            let Some((_, kind)) = DECLARATION_KEYWORDS.iter().find(|(k, _)| *k == pair[0]) else {
                continue;
            };
            if pair[1].starts_with(is_ident_start) {
                out.push(Symbol {
                    name: pair[1].to_string(),
                    kind,
                    line: i + 1,
                });
                break;
            }
        }
    }
    out
}

/// The tracked repository root: the nearest `.git` above `cwd`, or `cwd`.
pub fn tracked_root(cwd: &Path) -> PathBuf {
    crate::paths::repo_root(cwd)
}

/// The index of `root` under the scenario: empty when nothing is tracked.
pub fn build(sc: &Scenario, root: &Path) -> Vec<IndexedFile> {
    if !sc.tracked {
        return Vec::new();
    }
    if let Some(listed) = &sc.indexed {
        return listed
            .iter()
            .map(|(rel, names)| IndexedFile {
                rel: rel.clone(),
                symbols: names
                    .iter()
                    .enumerate()
                    .map(|(i, n)| Symbol {
                        name: n.clone(),
                        kind: "function",
                        line: i + 1,
                    })
                    .collect(),
            })
            .collect();
    }
    let mut files = Vec::new();
    scan(root, root, &mut files);
    files
}

fn scan(root: &Path, dir: &Path, out: &mut Vec<IndexedFile>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        if out.len() >= MAX_FILES {
            return;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_dir() {
            if !SKIPPED_DIRS.contains(&name.as_str()) {
                scan(root, &path, out);
            }
        } else if kind.is_file() && is_source(&name) {
            let symbols = std::fs::read_to_string(&path)
                .map(|t| declarations(&t))
                .unwrap_or_default();
            if symbols.is_empty() {
                continue;
            }
            let rel = path
                .strip_prefix(root)
                .map(|p| p.to_string_lossy().replace('\\', "/"))
                .unwrap_or_default();
            out.push(IndexedFile { rel, symbols });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_are_found_per_language() {
        let text =
            "package a\nfunc Serve() {}\nexport function renderWidget(x) {}\nclass Box:\n  x = 1\n";
        let names: Vec<_> = declarations(text).into_iter().map(|s| s.name).collect();
        assert_eq!(names, ["Serve", "renderWidget", "Box"]);
    }
}
