//! CFG-14: the preset environment is a pure function of the preset and the
//! user's environment.

mod common_config;

use std::collections::BTreeMap;

use common_config::env_map;
use pi_gortex_runtime::config::preset_env;

fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn forwarded_presets_set_tools_and_defer() {
    for preset in ["nav", "edit", "readonly", " NAV "] {
        let expected = preset.trim().to_lowercase();
        assert_eq!(
            preset_env(preset, &env_map(&[])),
            map(&[("GORTEX_TOOLS", &expected), ("GORTEX_TOOLS_MODE", "defer")]),
            "{preset:?}"
        );
    }
}

#[test]
fn core_full_and_unknown_emit_nothing() {
    for preset in ["core", "full", "mystery", ""] {
        assert!(preset_env(preset, &env_map(&[])).is_empty(), "{preset:?}");
    }
}

#[test]
fn user_exported_tools_are_not_overridden() {
    // Spec example: GORTEX_TOOLS=edit exported gives only the mode.
    assert_eq!(
        preset_env("nav", &env_map(&[("GORTEX_TOOLS", "edit")])),
        map(&[("GORTEX_TOOLS_MODE", "defer")])
    );
    // Even under `core`, a user list narrows the surface, so defer is added.
    assert_eq!(
        preset_env("core", &env_map(&[("GORTEX_TOOLS", "read,explore")])),
        map(&[("GORTEX_TOOLS_MODE", "defer")])
    );
}

#[test]
fn user_exported_mode_is_respected() {
    assert_eq!(
        preset_env("nav", &env_map(&[("GORTEX_TOOLS_MODE", "hide")])),
        map(&[("GORTEX_TOOLS", "nav")])
    );
    assert!(preset_env(
        "nav",
        &env_map(&[("GORTEX_TOOLS", "nav"), ("GORTEX_TOOLS_MODE", "hide")])
    )
    .is_empty());
}

#[test]
fn empty_exports_count_as_unset() {
    assert_eq!(
        preset_env(
            "edit",
            &env_map(&[("GORTEX_TOOLS", ""), ("GORTEX_TOOLS_MODE", "")])
        ),
        map(&[("GORTEX_TOOLS", "edit"), ("GORTEX_TOOLS_MODE", "defer")])
    );
}
