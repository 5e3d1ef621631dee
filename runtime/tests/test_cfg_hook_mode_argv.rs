//! CFG-7 hook-mode normalization and CFG-8 hook argv.

mod common_config;

use common_config::{inputs, temp_dir, write_file};
use pi_gortex_runtime::config::{hook_argv, normalize_hook_mode, resolve, HookMode};

#[test]
fn modes_map_per_table() {
    let cases = [
        ("enrich", HookMode::Enrich),
        (" ENRICH ", HookMode::Enrich),
        ("consult-unlock", HookMode::ConsultUnlock),
        ("nudge", HookMode::Nudge),
        ("adaptive-nudge", HookMode::Nudge),
        ("Adaptive-Nudge", HookMode::Nudge),
        ("deny", HookMode::Deny),
        ("", HookMode::Deny),
        ("ENRICH-ish", HookMode::Deny),
        ("consult_unlock", HookMode::Deny),
    ];
    for (raw, mode) in cases {
        assert_eq!(normalize_hook_mode(raw), mode, "{raw:?}");
    }
}

#[test]
fn argv_carries_mode_except_deny() {
    assert_eq!(
        hook_argv("gortex", HookMode::Deny),
        ["gortex", "hook", "--agent=pi"]
    );
    assert_eq!(
        hook_argv("/b/g", HookMode::Enrich),
        ["/b/g", "hook", "--agent=pi", "--mode=enrich"]
    );
    assert_eq!(
        hook_argv("g", HookMode::ConsultUnlock),
        ["g", "hook", "--agent=pi", "--mode=consult-unlock"]
    );
    assert_eq!(
        hook_argv("g", HookMode::Nudge),
        ["g", "hook", "--agent=pi", "--mode=nudge"],
        "the alias is sent as its canonical name"
    );
}

#[test]
fn unknown_env_mode_does_not_fall_through() {
    // The first non-blank candidate wins, then maps; `bogus` means deny even
    // when a sidecar says enrich.
    let root = temp_dir();
    let cwd = root.path().join("repo");
    write_file(&cwd.join(".pi/gortex.json"), r#"{"hook_mode":"enrich"}"#);
    let config = resolve(&inputs(&[("GORTEX_HOOK_MODE", "bogus")], &cwd, root.path()));
    assert_eq!(config.hook_mode, HookMode::Deny);
    assert_eq!(config.hook_argv, ["gortex", "hook", "--agent=pi"]);
}
