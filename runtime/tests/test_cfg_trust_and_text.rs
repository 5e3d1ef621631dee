//! CFG-19: an untrusted project's sidecar is not read and is flagged for the
//! one notice; a trusted one is layered as before. CFG-17: key names and
//! values from a project sidecar reach warnings escaped and cut.

mod common_config;

use common_config::{inputs, temp_dir, write_file};
use pi_gortex_runtime::config::{
    native_registration_holds, resolve_with_trust, untrusted_project_notice, HookMode, Layer,
};
use pi_gortex_runtime::terminal_text::MAX_SHOWN_CHARS;

#[test]
fn untrusted_project_sidecar_is_ignored_and_flagged() {
    let root = temp_dir();
    let cwd = root.path().join("repo");
    write_file(
        &cwd.join(".pi/gortex.json"),
        r#"{"hook_mode":"enrich","enforce":false,"bogus":1}"#,
    );
    let inputs = inputs(&[], &cwd, root.path());

    let trusted = resolve_with_trust(&inputs, true);
    assert_eq!(trusted.hook_mode, HookMode::Enrich);
    assert!(!trusted.enforce);
    assert!(!trusted.project_ignored);
    assert_eq!(trusted.warnings.len(), 1, "the unknown key");

    let untrusted = resolve_with_trust(&inputs, false);
    assert_eq!(untrusted.hook_mode, HookMode::Deny);
    assert!(untrusted.enforce);
    assert_eq!(untrusted.provenance.enforce, Layer::Default);
    assert!(untrusted.project_ignored);
    assert!(
        untrusted.warnings.is_empty(),
        "an ignored file is not read: {:?}",
        untrusted.warnings
    );
    let notice = untrusted_project_notice(&untrusted.sidecars.project);
    assert!(
        notice.contains("/trust") && notice.contains("--approve"),
        "{notice}"
    );
}

#[test]
fn a_native_registration_holds_only_while_path_and_preset_agree() {
    let root = temp_dir();
    let cwd = root.path().join("repo");
    let global = root.path().join(".pi/agent/extensions/gortex.json");
    write_file(&global, r#"{"tools_preset":"nav"}"#);

    // A hook posture is read at each call: the registration still serves.
    write_file(&cwd.join(".pi/gortex.json"), r#"{"hook_mode":"enrich"}"#);
    let inputs = inputs(&[], &cwd, root.path());
    let (at_load, untrusted) = (
        resolve_with_trust(&inputs, true),
        resolve_with_trust(&inputs, false),
    );
    assert!(native_registration_holds(&at_load, &untrusted));

    // The preset travels in the server's environment: a project's preset
    // must not outlive the trust answer.
    write_file(&cwd.join(".pi/gortex.json"), r#"{"tools_preset":"full"}"#);
    let (at_load, untrusted) = (
        resolve_with_trust(&inputs, true),
        resolve_with_trust(&inputs, false),
    );
    assert_eq!(
        (
            at_load.tools_preset.as_str(),
            untrusted.tools_preset.as_str()
        ),
        ("full", "nav")
    );
    assert!(!native_registration_holds(&at_load, &untrusted));

    write_file(&cwd.join(".pi/gortex.json"), r#"{"native_mcp":false}"#);
    let (at_load, untrusted) = (
        resolve_with_trust(&inputs, true),
        resolve_with_trust(&inputs, false),
    );
    assert!(!native_registration_holds(&at_load, &untrusted));
    assert!(native_registration_holds(&at_load, &at_load));
}

#[test]
fn untrusted_without_a_project_sidecar_needs_no_notice() {
    let root = temp_dir();
    let config = resolve_with_trust(&inputs(&[], &root.path().join("repo"), root.path()), false);
    assert!(!config.project_ignored);
}

#[test]
fn sidecar_key_names_are_escaped_and_cut_in_warnings() {
    let root = temp_dir();
    let cwd = root.path().join("repo");
    let hostile = format!("\u{1b}]0;pwned\u{7}\u{1b}[2J{}", "k".repeat(5000));
    let body = serde_json::json!({ hostile.clone(): true, "enforce": "\u{1b}[31mred" });
    write_file(&cwd.join(".pi/gortex.json"), &body.to_string());
    let config = resolve_with_trust(&inputs(&[], &cwd, root.path()), true);
    assert_eq!(config.warnings.len(), 2, "{:?}", config.warnings);
    for warning in &config.warnings {
        let text = warning.to_string();
        assert!(
            !text.chars().any(|c| c.is_control()),
            "raw control character in {text:?}"
        );
        assert!(
            text.chars().count() < 2 * MAX_SHOWN_CHARS + 300,
            "bounded: {}",
            text.len()
        );
    }
    let unknown = config
        .warnings
        .iter()
        .map(|w| w.to_string())
        .find(|t| t.contains("unknown key"));
    let unknown = unknown.expect("the unknown key warning");
    assert!(unknown.contains("\\u{1b}]0;pwned\\u{7}"), "{unknown}");
    assert!(unknown.contains('…'), "cut: {unknown}");
}
