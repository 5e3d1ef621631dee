//! The `check` and `validate` commands as a user runs them: exit codes, diffs and pointers.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn codegen(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_pi-gortex-codegen"))
        .args(args)
        .output()
        .expect("binary runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
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
    let errors: serde_json::Value = serde_json::from_str(&stdout).unwrap();
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
    let errors: serde_json::Value = serde_json::from_str(&stdout).unwrap();
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
