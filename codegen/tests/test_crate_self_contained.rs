//! `pi-gortex-codegen` builds from its own crate directory, so `cargo install --path codegen`
//! works and the crate could be published: no source file reaches outside the crate with
//! `#[path]`, `include!`, `include_str!` or `include_bytes!`.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The path literal right after each occurrence of `marker` in `text` (an occurrence inside a
/// string literal, followed by `\"`, is code the crate emits, not code it compiles).
fn quoted_after<'t>(text: &'t str, marker: &str) -> Vec<&'t str> {
    text.match_indices(marker)
        .filter_map(|(at, _)| {
            let rest = text[at + marker.len()..].strip_prefix('"')?;
            Some(&rest[..rest.find('"')?])
        })
        .collect()
}

#[test]
fn no_source_file_includes_a_file_outside_the_crate() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .canonicalize()
        .expect("crate dir");
    let mut files = Vec::new();
    rust_files(&crate_dir.join("src"), &mut files);
    assert!(!files.is_empty());
    let mut outside = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("utf8 source");
        for marker in ["#[path = ", "include!(", "include_str!(", "include_bytes!("] {
            for target in quoted_after(&text, marker) {
                let resolved = file.parent().unwrap().join(target);
                let inside = resolved
                    .canonicalize()
                    .is_ok_and(|p| p.starts_with(&crate_dir));
                if !inside {
                    outside.push(format!("{}: {marker}\"{target}\"", file.display()));
                }
            }
        }
    }
    assert!(outside.is_empty(), "files outside the crate: {outside:#?}");
}
