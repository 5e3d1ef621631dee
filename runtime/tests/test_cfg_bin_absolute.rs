//! CFG-18: `bin` is resolved once, at configuration time,
//! to an absolute path found only through absolute PATH entries; a relative
//! GORTEX_BIN or global `bin` with a separator is refused (or expanded from
//! `~/`), never read against the project; a `gortex` that an empty or `.`
//! entry would have run is skipped and named once; and no spawner ever runs a
//! program that is not absolute.

mod common_config;
mod script_file;

use std::path::Path;

use common_config::{inputs, temp_dir, write_file};
use pi_gortex_runtime::config::{ensure_absolute, resolve, ConfigWarning, Layer};
use pi_gortex_runtime::hook::{self, HookFailure};

fn make_exe(path: &Path) {
    script_file::write_executable(path, "#!/bin/sh\nexit 0\n");
}

#[cfg_attr(
    windows,
    ignore = "its gortex is a /bin/sh script made executable with chmod; the Windows lookup (PATHEXT, relative entries) is test_windows_trust_boundary's"
)]
#[test]
fn bare_name_resolves_to_the_absolute_path_used_everywhere() {
    let root = temp_dir();
    let bin_dir = root.path().join("bin");
    make_exe(&bin_dir.join("gortex"));
    let cwd = root.path().join("repo");
    let path = bin_dir.display().to_string();
    let config = resolve(&inputs(&[("PATH", &path)], &cwd, root.path()));
    let absolute = bin_dir.join("gortex").display().to_string();
    assert_eq!(config.bin, absolute);
    assert_eq!(config.bin_configured, "gortex");
    assert_eq!(
        config.bin_path.as_deref(),
        Some(bin_dir.join("gortex").as_path())
    );
    assert_eq!(config.hook_argv[0], absolute, "the hook runs the same file");
    assert!(config.warnings.is_empty(), "{:?}", config.warnings);
}

#[cfg_attr(
    windows,
    ignore = "its gortex is a /bin/sh script made executable with chmod; the Windows lookup (PATHEXT, relative entries) is test_windows_trust_boundary's"
)]
#[test]
fn empty_and_dot_path_entries_are_skipped_and_named_once() {
    let root = temp_dir();
    let cwd = root.path().join("repo");
    // The repository ships its own `gortex`.
    make_exe(&cwd.join("gortex"));
    let real = root.path().join("bin");
    make_exe(&real.join("gortex"));
    let path = format!(":.:{}", real.display());
    let config = resolve(&inputs(&[("PATH", &path)], &cwd, root.path()));
    assert_eq!(config.bin, real.join("gortex").display().to_string());
    let skipped: Vec<_> = config
        .warnings
        .iter()
        .filter(|w| matches!(w, ConfigWarning::SkippedRelativePath { .. }))
        .collect();
    assert_eq!(skipped.len(), 1, "one warning: {:?}", config.warnings);
    let text = skipped[0].to_string();
    assert!(
        text.contains("(empty) ->") && text.contains(". ->"),
        "{text}"
    );
    assert!(
        text.contains(&cwd.join("gortex").display().to_string()),
        "{text}"
    );

    // Without an absolute hit the repository's program is still never chosen.
    let config = resolve(&inputs(&[("PATH", ":.")], &cwd, root.path()));
    assert_eq!(config.bin_path, None);
    assert_eq!(
        config.bin, "gortex",
        "not resolved: the bare text, which no spawner runs"
    );
}

#[cfg_attr(
    windows,
    ignore = "its gortex is a /bin/sh script made executable with chmod; the Windows lookup (PATHEXT, relative entries) is test_windows_trust_boundary's"
)]
#[test]
fn relative_gortex_bin_with_a_separator_is_refused_and_falls_through() {
    let root = temp_dir();
    let cwd = root.path().join("repo");
    let home = root.path().join("home");
    make_exe(&cwd.join("tools/gortex"));
    let global_bin = root.path().join("opt/gortex");
    make_exe(&global_bin);
    write_file(
        &home.join(".pi/agent/extensions/gortex.json"),
        &format!(r#"{{"bin":"{}"}}"#, global_bin.display()),
    );
    let config = resolve(&inputs(&[("GORTEX_BIN", "tools/gortex")], &cwd, &home));
    assert_eq!(
        config.bin,
        global_bin.display().to_string(),
        "the global layer"
    );
    assert_eq!(config.provenance.bin, Layer::Global);
    assert!(
        config.warnings.iter().any(|w| matches!(w,
            ConfigWarning::RelativeBin { origin, value } if origin == "GORTEX_BIN" && value == "tools/gortex")),
        "{:?}",
        config.warnings
    );
}

#[cfg_attr(
    windows,
    ignore = "its gortex is a /bin/sh script made executable with chmod; the Windows lookup (PATHEXT, relative entries) is test_windows_trust_boundary's"
)]
#[test]
fn relative_global_bin_is_refused_and_tilde_is_read_from_home() {
    let root = temp_dir();
    let cwd = root.path().join("repo");
    let home = root.path().join("home");
    make_exe(&cwd.join("bin/gortex"));
    write_file(
        &home.join(".pi/agent/extensions/gortex.json"),
        r#"{"bin":"./bin/gortex"}"#,
    );
    let config = resolve(&inputs(&[("PATH", "/nonexistent")], &cwd, &home));
    assert_eq!(config.bin_path, None, "never the project's ./bin/gortex");
    assert_eq!(config.provenance.bin, Layer::Default);
    assert!(config
        .warnings
        .iter()
        .any(|w| matches!(w, ConfigWarning::RelativeBin { value, .. } if value == "./bin/gortex")));

    make_exe(&home.join("bin/gortex"));
    let config = resolve(&inputs(&[("GORTEX_BIN", "~/bin/gortex")], &cwd, &home));
    assert_eq!(config.bin, home.join("bin/gortex").display().to_string());
    assert_eq!(config.provenance.bin, Layer::Env);
}

#[test]
fn a_program_that_is_not_absolute_is_never_spawned() {
    assert!(ensure_absolute("gortex".as_ref()).is_err());
    assert!(ensure_absolute("./gortex".as_ref()).is_err());
    let absolute = if cfg!(windows) {
        "C:/Program Files/Gortex/gortex.exe"
    } else {
        "/usr/bin/gortex"
    };
    assert!(ensure_absolute(absolute.as_ref()).is_ok());
}

#[tokio::test]
async fn the_hook_refuses_a_bare_program() {
    let envelope = hook::envelope_for_tool_call(
        "read",
        &serde_json::json!({"path": "README.md"}),
        &hook::EnvelopeContext {
            cwd: "/tmp".to_string(),
            session_id: String::new(),
        },
        |_| None,
    );
    let argv = vec!["gortex".to_string(), "hook".to_string()];
    let run = hook::run(&argv, &envelope).await;
    match run.failure {
        Some(HookFailure::Spawn { program, error }) => {
            assert_eq!(program, "gortex");
            assert!(error.contains("a relative program is never run"), "{error}");
        }
        other => panic!("expected a refused spawn, got {other:?}"),
    }
}
