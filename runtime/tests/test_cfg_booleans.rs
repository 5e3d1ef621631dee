//! CFG-9 booleans (and CFG-10/CFG-12 defaults they override).

mod common_config;

use common_config::{inputs, temp_dir, write_file};
use pi_gortex_runtime::config::{env_bool, resolve, Layer};

#[test]
fn env_spellings() {
    for raw in ["1", "true", "YES", " on ", "True"] {
        assert_eq!(env_bool(raw), Some(true), "{raw:?}");
    }
    for raw in ["0", "false", "No", "OFF "] {
        assert_eq!(env_bool(raw), Some(false), "{raw:?}");
    }
    for raw in ["", "2", "y", "enable", "truthy"] {
        assert_eq!(env_bool(raw), None, "{raw:?}");
    }
}

#[test]
fn unrecognized_env_boolean_falls_through_to_the_sidecar() {
    let root = temp_dir();
    let cwd = root.path().join("repo");
    write_file(&cwd.join(".pi/gortex.json"), r#"{"enforce":false}"#);
    let config = resolve(&inputs(
        &[("GORTEX_ENFORCE", "sometimes")],
        &cwd,
        root.path(),
    ));
    assert!(!config.enforce);
    assert_eq!(config.provenance.enforce, Layer::Project);
}

#[test]
fn env_false_overrides_sidecar_true() {
    let root = temp_dir();
    let cwd = root.path().join("repo");
    write_file(
        &cwd.join(".pi/gortex.json"),
        r#"{"enforce":true,"native_mcp":true}"#,
    );
    let config = resolve(&inputs(
        &[("GORTEX_ENFORCE", "off"), ("GORTEX_NATIVE_MCP", "0")],
        &cwd,
        root.path(),
    ));
    assert!(!config.enforce && !config.native_mcp);
    assert_eq!(config.provenance.enforce, Layer::Env);
    assert!(config.warnings.is_empty());
}

#[test]
fn sidecar_string_boolean_is_skipped() {
    let root = temp_dir();
    let cwd = root.path().join("repo");
    write_file(&cwd.join(".pi/gortex.json"), r#"{"native_mcp":"false"}"#);
    let config = resolve(&inputs(&[], &cwd, root.path()));
    assert!(config.native_mcp, "default true kept");
    assert_eq!(config.provenance.native_mcp, Layer::Default);
}

#[test]
fn hook_18_env_prespawn_off_overrides_the_sidecar_and_the_default_is_on() {
    let root = temp_dir();
    let cwd = root.path().join("repo");
    let default = resolve(&inputs(&[], &cwd, root.path()));
    assert!(default.hook_prespawn, "the spare is on by default");
    write_file(&cwd.join(".pi/gortex.json"), r#"{"hook_prespawn":true}"#);
    let config = resolve(&inputs(&[("GORTEX_HOOK_PRESPAWN", "0")], &cwd, root.path()));
    assert!(!config.hook_prespawn);
    assert_eq!(config.provenance.hook_prespawn, Layer::Env);
}
