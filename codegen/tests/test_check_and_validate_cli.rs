//! The `check` and `validate` commands as a user runs them: exit codes, diffs, pointers, every
//! input reported, standard input, and the JSON and GitHub output formats.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn codegen(args: &[&str]) -> (i32, String, String) {
    codegen_with_stdin(args, "")
}

/// The binary under test: the one cargo built, or `PI_GORTEX_CODEGEN_BIN` (e.g. the one
/// `cargo install --path codegen` put in place; `make install-check` runs this file against it).
fn binary() -> PathBuf {
    std::env::var_os("PI_GORTEX_CODEGEN_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_pi-gortex-codegen")))
}

fn codegen_with_stdin(args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut child = Command::new(binary())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    // A run that does not read its input may close the pipe first; that is not a failure here.
    let _ = child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes());
    let output = child.wait_with_output().expect("binary finishes");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The JSON report of a `--format json` run, checked against its own schema type.
fn json_report(stdout: &str) -> serde_json::Value {
    let report: serde_json::Value = serde_json::from_str(stdout)
        .unwrap_or_else(|e| panic!("not one JSON document ({e}): {stdout}"));
    if let Err(errors) = pi_gortex_schema::validate("ValidationReport", &report) {
        panic!("report is not a ValidationReport: {errors:?}\n{report}");
    }
    // And it decodes into the generated Rust type, whose line and column are the `NonZeroU32`
    // that Go's `uint32` and the TypeScript docs agree on.
    if let Err(e) = serde_json::from_value::<pi_gortex_schema::validation_report::ValidationReport>(
        report.clone(),
    ) {
        panic!("report does not decode as the generated ValidationReport: {e}\n{report}");
    }
    report
}

/// A scratch copy of the schema inputs (schema files and examples) under the system temp dir.
fn scratch_root(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pi-gortex-codegen-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    copy_tree(
        &repo_root().join("schema"),
        &dir.join("schema"),
        &|p: &Path| !p.starts_with(repo_root().join("schema/src")) && !p.ends_with("target"),
    );
    dir
}

fn copy_tree(from: &Path, to: &Path, keep: &dyn Fn(&Path) -> bool) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        if !keep(&path) {
            continue;
        }
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_tree(&path, &target, keep);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

#[test]
fn check_passes_after_generate_and_fails_with_a_diff_after_a_hand_edit() {
    let root = scratch_root("check");
    let root_arg = root.to_str().unwrap();
    let (code, _, stderr) = codegen(&["--root", root_arg, "generate"]);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, _) = codegen(&["--root", root_arg, "check"]);
    assert_eq!(code, 0);

    let edited = root.join("schema/src/generated/hook.rs");
    let text = std::fs::read_to_string(&edited).unwrap();
    std::fs::write(
        &edited,
        text.replace("pub struct HookDecision", "pub struct HookVerdict"),
    )
    .unwrap();
    let (code, stdout, _) = codegen(&["--root", root_arg, "check"]);
    assert_eq!(code, 1);
    assert!(stdout.contains("schema/src/generated/hook.rs"), "{stdout}");
    assert!(stdout.contains("-pub struct HookVerdict"), "{stdout}");
    assert!(stdout.contains("+pub struct HookDecision"), "{stdout}");
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn checked_in_output_is_current() {
    let (code, stdout, stderr) = codegen(&["--root", repo_root().to_str().unwrap(), "check"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
}

fn scratch_file(name: &str, text: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("pi-gortex-{}-{name}", std::process::id()));
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn validate_accepts_a_valid_decision_with_exit_0() {
    let file = scratch_file("ok.json", r#"{"block":true,"reason":"x"}"#);
    let (code, _, _) = codegen(&["validate", "HookDecision", file.to_str().unwrap()]);
    assert_eq!(code, 0);
}

#[test]
fn validate_rejects_a_string_block_with_exit_1_and_pointer() {
    let file = scratch_file("bad.json", r#"{"block":"yes"}"#);
    let (code, stdout, _) = codegen(&[
        "validate",
        "HookDecision",
        file.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(code, 1);
    let report = json_report(&stdout);
    let errors = &report["files"][0]["errors"];
    assert_eq!(errors[0]["instance_pointer"], "/block");
    assert_eq!(
        errors[0]["schema_pointer"],
        "/$defs/HookDecision/properties/block/type"
    );
    assert_eq!(errors[0]["file"], file.to_str().unwrap());
}

#[test]
fn validate_follows_refs_into_the_declaring_type() {
    let file = scratch_file(
        "tool.json",
        r#"{"tools":[{"name":"x","inputSchema":{},"annotations":{"readOnlyHint":"yes"}}]}"#,
    );
    let (code, stdout, _) = codegen(&[
        "validate",
        "ListToolsResult",
        file.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(code, 1);
    let report = json_report(&stdout);
    let errors = &report["files"][0]["errors"];
    assert_eq!(
        errors[0]["instance_pointer"],
        "/tools/0/annotations/readOnlyHint"
    );
    assert_eq!(
        errors[0]["schema_pointer"],
        "/$defs/ToolAnnotations/properties/readOnlyHint/type"
    );
}

#[test]
fn validate_reports_a_non_json_file_with_line_and_column_and_exit_2() {
    let file = scratch_file("broken.json", "{\n  \"block\": @\n}");
    let (code, _, stderr) = codegen(&["validate", "HookDecision", file.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains(":2:"), "{stderr}");
}

#[test]
fn validate_reports_a_missing_file_and_an_unknown_type_with_exit_2() {
    let (code, _, _) = codegen(&["validate", "HookDecision", "/nonexistent/x.json"]);
    assert_eq!(code, 2);
    let file = scratch_file("any.json", "{}");
    let (code, _, stderr) = codegen(&["validate", "NoSuchType", file.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("NoSuchType"));
}

#[test]
fn validate_without_files_is_a_usage_error() {
    let (code, _, _) = codegen(&["validate", "HookDecision"]);
    assert_eq!(code, 2);
}

#[test]
fn validate_reports_every_file_even_after_an_unreadable_one() {
    let broken = scratch_file("every-broken.json", "{\n  \"block\": @\n}");
    let bad = scratch_file("every-bad.json", r#"{"block":"yes"}"#);
    let good = scratch_file("every-good.json", r#"{"block":false}"#);
    let args = [
        "validate",
        "HookDecision",
        broken.to_str().unwrap(),
        "/nonexistent/x.json",
        bad.to_str().unwrap(),
        good.to_str().unwrap(),
        "--format",
        "json",
    ];
    let (code, stdout, _) = codegen(&args);
    assert_eq!(code, 2, "an unreadable input makes the run a usage failure");
    let report = json_report(&stdout);
    let statuses: Vec<&str> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["unreadable", "unreadable", "invalid", "valid"]);
    assert_eq!(report["files"][0]["line"], 2);
    assert_eq!(report["valid"], false);
}

#[test]
fn validate_reads_standard_input_for_a_dash() {
    let (code, stdout, _) = codegen_with_stdin(
        &["validate", "HookDecision", "-", "--json"],
        r#"{"block":true,"reason":"r"}"#,
    );
    assert_eq!(code, 0, "{stdout}");
    let report = json_report(&stdout);
    assert_eq!(report["files"][0]["file"], "-");
    assert_eq!(report["files"][0]["status"], "valid");
    let (code, _, _) = codegen_with_stdin(&["validate", "HookDecision", "-"], "{\"block\":1}");
    assert_eq!(code, 1);
}

#[test]
fn validate_prints_one_json_document_also_on_usage_errors() {
    let file = scratch_file("usage.json", "{}");
    let (code, stdout, _) = codegen(&[
        "validate",
        "NoSuchType",
        file.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(code, 2);
    let report = json_report(&stdout);
    assert!(report["error"].as_str().unwrap().contains("NoSuchType"));
    assert_eq!(report["type"], "NoSuchType");

    let (code, stdout, _) = codegen(&["validate", "HookDecision", "--format", "json"]);
    assert_eq!(code, 2, "no files is a usage error");
    let report = json_report(&stdout);
    assert!(report["error"].is_string(), "{report}");
    assert_eq!(report["files"], serde_json::json!([]));
}

#[test]
fn validate_github_format_annotates_file_line_and_column() {
    let file = scratch_file(
        "github.json",
        "{\n  \"tools\": [\n    {\"name\": \"x\", \"inputSchema\": 5}\n  ]\n}\n",
    );
    let path = file.to_str().unwrap();
    let (code, stdout, _) = codegen(&["validate", "ListToolsResult", path, "--format", "github"]);
    assert_eq!(code, 1);
    let expected = format!("::error file={path},line=3,col=34::");
    assert!(stdout.starts_with(&expected), "{stdout}");
    assert!(stdout.contains("/tools/0/inputSchema"), "{stdout}");
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
}

#[test]
fn both_clis_print_their_version() {
    let (code, stdout, _) = codegen(&["--version"]);
    assert_eq!(code, 0);
    assert_eq!(
        stdout.trim(),
        format!("pi-gortex-codegen {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn validate_rejects_an_integer_written_with_a_fraction_whatever_the_type_list() {
    // `jsonschema` alone accepts `0.0` for `type: "integer"` (ResourceLink.size) and rejects it for
    // `type: ["string","integer"]` (RequestId); decoding rejects both, so validate must too.
    for (type_name, json, pointer) in [
        (
            "ResourceLink",
            r#"{"type":"resource_link","uri":"u","name":"n","size":0.0}"#,
            "/size",
        ),
        ("RequestId", "0.0", ""),
        ("RequestId", "1e3", ""),
    ] {
        let (code, stdout, _) =
            codegen_with_stdin(&["validate", type_name, "-", "--format", "json"], json);
        assert_eq!(code, 1, "{type_name} {json}: {stdout}");
        let report = json_report(&stdout);
        let errors = report["files"][0]["errors"].as_array().unwrap();
        assert_eq!(
            errors.len(),
            1,
            "one failure, not a duplicate type failure: {errors:?}"
        );
        assert_eq!(errors[0]["instance_pointer"], pointer);
        assert!(
            errors[0]["schema_pointer"]
                .as_str()
                .unwrap()
                .ends_with("/type"),
            "{errors:?}"
        );
    }
    let (code, _, _) = codegen_with_stdin(&["validate", "RequestId", "-"], "7");
    assert_eq!(code, 0);
}

#[test]
fn validate_away_from_a_checkout_uses_the_schemas_compiled_in() {
    // An installed validator run in a user's project: no `schema/` there, no checkout needed.
    let dir = std::env::temp_dir().join(format!("pi-gortex-codegen-away-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("bad.json"), r#"{"block":"yes"}"#).unwrap();
    std::fs::write(dir.join("good.json"), r#"{"block":true,"reason":"r"}"#).unwrap();
    let output = Command::new(binary())
        .args([
            "validate",
            "HookDecision",
            "good.json",
            "bad.json",
            "--format",
            "json",
        ])
        .current_dir(&dir)
        .output()
        .expect("binary runs");
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(output.status.code(), Some(1));
    let report = json_report(&String::from_utf8_lossy(&output.stdout));
    assert_eq!(report["files"][0]["status"], "valid");
    assert_eq!(report["files"][1]["status"], "invalid");
    assert_eq!(
        report["files"][1]["errors"][0]["instance_pointer"],
        "/block"
    );
}
