//! `pi-gortex diff <before> <after> [--path NAME]` prints one schema-valid
//! `EditDetails` (issue acceptance), through the snapshot rules.

use std::fs;
use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};

fn run(before: &Path, after: &Path, name: Option<&str>) -> Value {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pi-gortex"));
    cmd.arg("diff").arg(before).arg(after);
    if let Some(name) = name {
        cmd.args(["--path", name]);
    }
    let out = cmd.output().expect("pi-gortex runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let value: Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    pi_gortex_schema::validate("EditDetails", &value).unwrap_or_else(|e| panic!("{value}: {e:?}"));
    value
}

#[test]
fn prints_schema_valid_edit_details_for_one_change() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a.txt"), tmp.path().join("b.txt"));
    fs::write(&a, "one\ntwo\nthree\n").unwrap();
    fs::write(&b, "one\nTWO\nthree\n").unwrap();
    let patch = "--- src/a.ts\n+++ src/a.ts\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n";
    assert_eq!(
        run(&a, &b, Some("src/a.ts")),
        json!({
            "diffs": [{"path": "src/a.ts", "diff": " 1 one\n-2 two\n+2 TWO\n 3 three", "patch": patch, "firstChangedLine": 2}],
            "patch": patch,
            "diff": " 1 one\n-2 two\n+2 TWO\n 3 three",
            "firstChangedLine": 2
        })
    );
}

#[test]
fn names_the_after_file_by_default_and_handles_notes_and_no_change() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b, bin) = (
        tmp.path().join("a.txt"),
        tmp.path().join("b.txt"),
        tmp.path().join("x.bin"),
    );
    fs::write(&a, "same\n").unwrap();
    fs::write(&b, "same\n").unwrap();
    fs::write(&bin, b"\0\x01").unwrap();
    assert_eq!(run(&a, &b, None), json!({}));
    let noted = run(&a, &bin, None);
    assert_eq!(noted["diffs"][0]["note"], json!("not diffed: binary file"));
    assert_eq!(noted["diffs"][0]["path"], json!(bin.to_string_lossy()));
    let created = run(&tmp.path().join("missing"), &a, Some("new.txt"));
    assert_eq!(created["diff"], json!("+1 same"));
    fs::write(&b, "same\r\n").unwrap();
    assert_eq!(
        run(&a, &b, Some("f"))["diffs"][0]["note"],
        json!("line endings LF -> CRLF")
    );
}

/// Runs `pi-gortex diff` expecting a failure; returns its stderr.
fn run_failing(before: &Path, after: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_pi-gortex"))
        .arg("diff")
        .arg(before)
        .arg(after)
        .output()
        .expect("pi-gortex runs");
    assert_eq!(out.status.code(), Some(2), "a usage error exits 2");
    assert!(out.stdout.is_empty(), "nothing on stdout");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn two_missing_files_are_an_error_naming_both_not_an_empty_result() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (before, after) = (tmp.path().join("typo-a"), tmp.path().join("typo-b"));
    let stderr = run_failing(&before, &after);
    assert!(
        stderr.contains("typo-a") && stderr.contains("typo-b"),
        "{stderr}"
    );
    assert!(stderr.contains("neither"), "{stderr}");
}

#[test]
fn a_directory_is_an_error_naming_it() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let file = tmp.path().join("a.txt");
    fs::write(&file, "a\n").expect("write");
    let stderr = run_failing(tmp.path(), &file);
    assert!(stderr.contains("is not a regular file"), "{stderr}");
    assert!(
        stderr.contains(&tmp.path().display().to_string()),
        "{stderr}"
    );
}
