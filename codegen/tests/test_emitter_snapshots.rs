//! Snapshots of the Rust, TypeScript, Go and docs emitters on a small fixture schema, so that
//! any change to an emitter shows up as a reviewable diff (`cargo insta review`).

use pi_gortex_codegen::discover::load_schemas;
use pi_gortex_codegen::docs_emitter::emit_docs;
use pi_gortex_codegen::go_emitter::emit_go;
use pi_gortex_codegen::lint::lint_all;
use pi_gortex_codegen::model::module_of;
use pi_gortex_codegen::rust_emitter::emit_rust;
use pi_gortex_codegen::ts_emitter::emit_ts;
use std::path::Path;

fn fixture() -> pi_gortex_codegen::discover::SchemaFile {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/schema");
    let files = load_schemas(&dir).expect("fixture loads");
    let findings = lint_all(&files);
    assert!(findings.is_empty(), "fixture must lint clean: {findings:?}");
    files.into_iter().next().expect("one fixture file")
}

#[test]
fn rust_emitter_output() {
    insta::assert_snapshot!(emit_rust(&fixture()).expect("rust renders"));
}

#[test]
fn typescript_emitter_output() {
    insta::assert_snapshot!(emit_ts(&module_of(&fixture())));
}

#[test]
fn go_emitter_output() {
    insta::assert_snapshot!(emit_go(&module_of(&fixture())));
}

#[test]
fn docs_emitter_output() {
    insta::assert_snapshot!(emit_docs(&[module_of(&fixture())]));
}
