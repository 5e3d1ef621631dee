//! CFG-2, CFG-5, CFG-10..13, CFG-15: layer order, string values, defaults and
//! the provenance recorded for each resolved value; CFG-1: the inputs come
//! from this process (its environment, working directory and home).

mod common_config;

use common_config::{abs, inputs, temp_dir, write_file};
use std::path::PathBuf;

use pi_gortex_runtime::config::{process_env, resolve, ConfigInputs, HookMode, Layer};

#[test]
fn defaults_apply_when_no_layer_speaks() {
    let root = temp_dir();
    let config = resolve(&inputs(
        &[],
        &root.path().join("repo"),
        &root.path().join("home"),
    ));
    assert_eq!(config.bin, "gortex");
    assert_eq!(config.hook_mode, HookMode::Deny);
    assert_eq!(config.hook_argv, ["gortex", "hook", "--agent=pi"]);
    assert!(config.enforce);
    assert_eq!(config.tools_preset, "core");
    assert!(config.native_mcp);
    assert!(!config.prompt_context);
    let p = &config.provenance;
    for layer in [
        p.bin,
        p.hook_mode,
        p.enforce,
        p.tools_preset,
        p.native_mcp,
        p.prompt_context,
    ] {
        assert_eq!(layer, Layer::Default);
    }
    assert!(config.warnings.is_empty(), "{:?}", config.warnings);
}

#[test]
fn env_beats_project_beats_global_per_key() {
    let root = temp_dir();
    let cwd = root.path().join("repo");
    let home = root.path().join("home");
    write_file(
        &cwd.join(".pi/gortex.json"),
        r#"{"hook_mode":"enrich","enforce":false,"tools_preset":"nav"}"#,
    );
    write_file(
        &home.join(".pi/agent/extensions/gortex.json"),
        &format!(
            r#"{{"bin":"{}","hook_mode":"nudge","enforce":true,"tools_preset":"edit","native_mcp":false,"prompt_context":true}}"#,
            abs("/opt/g")
        ),
    );
    let config = resolve(&inputs(&[("GORTEX_TOOLS", " readonly ")], &cwd, &home));
    assert_eq!(
        (config.bin.as_str(), config.provenance.bin),
        (abs("/opt/g").as_str(), Layer::Global)
    );
    assert_eq!(
        (config.hook_mode, config.provenance.hook_mode),
        (HookMode::Enrich, Layer::Project)
    );
    assert_eq!(
        (config.enforce, config.provenance.enforce),
        (false, Layer::Project)
    );
    assert_eq!(
        (config.tools_preset.as_str(), config.provenance.tools_preset),
        ("readonly", Layer::Env)
    );
    assert_eq!(
        (config.native_mcp, config.provenance.native_mcp),
        (false, Layer::Global)
    );
    assert_eq!(
        (config.prompt_context, config.provenance.prompt_context),
        (true, Layer::Global)
    );
    assert_eq!(
        config.hook_argv,
        [
            abs("/opt/g").as_str(),
            "hook",
            "--agent=pi",
            "--mode=enrich"
        ]
    );
}

#[test]
fn blank_and_wrong_typed_strings_fall_through() {
    // CFG-5: a blank string is absent; a number is skipped as if absent.
    let root = temp_dir();
    let cwd = root.path().join("repo");
    let home = root.path().join("home");
    write_file(
        &cwd.join(".pi/gortex.json"),
        r#"{"hook_mode":"   ","tools_preset":7}"#,
    );
    write_file(
        &home.join(".pi/agent/extensions/gortex.json"),
        r#"{"hook_mode":" Consult-Unlock ","tools_preset":" nav "}"#,
    );
    let config = resolve(&inputs(&[("GORTEX_HOOK_MODE", "  ")], &cwd, &home));
    assert_eq!(config.hook_mode, HookMode::ConsultUnlock);
    assert_eq!(config.provenance.hook_mode, Layer::Global);
    assert_eq!(config.tools_preset, "nav", "trimmed value is used");
    assert_eq!(config.provenance.tools_preset, Layer::Global);
}

#[test]
fn gortex_bin_env_wins_over_global_sidecar() {
    let root = temp_dir();
    let home = root.path().join("home");
    write_file(
        &home.join(".pi/agent/extensions/gortex.json"),
        r#"{"bin":"/opt/g"}"#,
    );
    let bin = abs("/usr/local/bin/gortex");
    let config = resolve(&inputs(
        &[("GORTEX_BIN", &format!(" {bin} "))],
        root.path(),
        &home,
    ));
    assert_eq!(config.bin, bin);
    assert_eq!(config.provenance.bin, Layer::Env);
    assert_eq!(config.hook_argv[0], bin);
}

#[test]
fn prompt_context_follows_env_then_project() {
    // CFG-15: env spelling per CFG-9, project layer as for enforce.
    let root = temp_dir();
    let cwd = root.path().join("repo");
    write_file(&cwd.join(".pi/gortex.json"), r#"{"prompt_context":true}"#);
    let on = resolve(&inputs(&[], &cwd, root.path()));
    assert!(on.prompt_context);
    assert_eq!(on.provenance.prompt_context, Layer::Project);
    let off = resolve(&inputs(
        &[("GORTEX_PROMPT_CONTEXT", "off")],
        &cwd,
        root.path(),
    ));
    assert!(!off.prompt_context);
    assert_eq!(off.provenance.prompt_context, Layer::Env);
}

#[test]
fn resolved_shape_serializes_with_provenance() {
    // CFG-13 plus provenance: what doctor prints.
    let root = temp_dir();
    let config = resolve(&inputs(
        &[("GORTEX_ENFORCE", "no")],
        root.path(),
        root.path(),
    ));
    let json = serde_json::to_value(&config).expect("serialize");
    assert_eq!(json["enforce"], false);
    assert_eq!(json["provenance"]["enforce"], "env");
    assert_eq!(json["provenance"]["bin"], "default");
    assert_eq!(json["hook_mode"], "deny");
    assert_eq!(
        json["hook_argv"],
        serde_json::json!(["gortex", "hook", "--agent=pi"])
    );
}

#[test]
fn inputs_are_read_from_this_process() {
    // This test binary's own environment: PATH and HOME are set by cargo's
    // caller; the values must be the process's, not defaults.
    let path = std::env::var("PATH").expect("PATH is set");
    let home_variable = if cfg!(windows) { "USERPROFILE" } else { "HOME" };
    let home = std::env::var(home_variable).expect("the home variable is set");
    assert_eq!(process_env().get("PATH"), Some(&path));
    assert!(!process_env().contains_key(""), "no invented variable");
    let inputs = ConfigInputs::from_process();
    assert_eq!(inputs.env.get("PATH"), Some(&path));
    assert_eq!(inputs.cwd, std::env::current_dir().unwrap());
    assert_eq!(inputs.home, PathBuf::from(&home));
    // doctor --cwd: only the working directory changes.
    let moved = inputs.clone().with_cwd("/elsewhere");
    assert_eq!(moved.cwd, std::path::Path::new("/elsewhere"));
    assert_eq!(moved.env, inputs.env);
    assert_eq!(moved.home, inputs.home);
}
