//! NAT-3 binary resolution, including the security case: a directory named
//! `gortex` on `PATH` never resolves.

mod common_config;

use std::path::Path;

use common_config::{env_map, temp_dir};
use pi_gortex_runtime::native::{has_separator, resolve_binary, resolve_binary_on, Platform};

fn make_file(path: &Path, mode: u32) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, "#!/bin/sh\n").expect("write");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
    }
    // Windows has no execute bit; PATHEXT decides.
    #[cfg(not(unix))]
    let _ = mode;
}

// Unix rules (`:`-joined PATH, execute bits); Windows' are in test_windows_trust_boundary.
#[cfg(unix)]
#[test]
fn directory_named_gortex_on_path_does_not_resolve() {
    let root = temp_dir();
    let trap = root.path().join("trap");
    std::fs::create_dir_all(trap.join("gortex")).expect("mkdir");
    let real = root.path().join("bin");
    make_file(&real.join("gortex"), 0o755);
    let path = format!("{}:{}", trap.display(), real.display());
    assert_eq!(
        resolve_binary("gortex", &env_map(&[("PATH", &path)])),
        Some(real.join("gortex")),
        "the directory is skipped, the later real binary found"
    );
    let only_trap = trap.display().to_string();
    assert_eq!(
        resolve_binary("gortex", &env_map(&[("PATH", &only_trap)])),
        None
    );
}

// Unix rules (`:`-joined PATH, execute bits); Windows' are in test_windows_trust_boundary.
#[cfg(unix)]
#[test]
fn regular_file_without_exec_bit_does_not_resolve() {
    let root = temp_dir();
    make_file(&root.path().join("gortex"), 0o644);
    let path = root.path().display().to_string();
    assert_eq!(resolve_binary("gortex", &env_map(&[("PATH", &path)])), None);
}

// Unix rules (`:`-joined PATH, execute bits); Windows' are in test_windows_trust_boundary.
#[cfg(unix)]
#[test]
fn path_search_skips_empty_entries_and_takes_the_first_hit() {
    let root = temp_dir();
    let first = root.path().join("a");
    let second = root.path().join("b");
    make_file(&first.join("gortex"), 0o755);
    make_file(&second.join("gortex"), 0o755);
    let path = format!("::{}:{}", first.display(), second.display());
    assert_eq!(
        resolve_binary("gortex", &env_map(&[("PATH", &path)])),
        Some(first.join("gortex"))
    );
    assert_eq!(resolve_binary("gortex", &env_map(&[("PATH", "")])), None);
    assert_eq!(resolve_binary("gortex", &env_map(&[])), None);
}

#[test]
fn a_path_with_a_separator_is_checked_as_written() {
    let root = temp_dir();
    let bin = root.path().join("opt/gortex");
    make_file(&bin, 0o755);
    let env = env_map(&[("PATH", "/nowhere")]);
    assert_eq!(
        resolve_binary(bin.to_str().expect("utf8"), &env),
        Some(bin.clone())
    );
    assert_eq!(resolve_binary("/nonexistent/gortex", &env), None);
    assert_eq!(
        resolve_binary(root.path().join("opt").to_str().expect("utf8"), &env),
        None,
        "a directory"
    );
}

#[test]
fn windows_rules_use_semicolons_and_pathext_after_the_bare_name() {
    let root = temp_dir();
    let dir = root.path().join("win");
    make_file(&dir.join("gortex.CMD"), 0o644);
    let path = format!("{};", dir.display());
    assert_eq!(
        resolve_binary_on("gortex", &env_map(&[("PATH", &path)]), Platform::Windows),
        Some(dir.join("gortex.CMD")),
        "default PATHEXT includes .CMD"
    );
    assert_eq!(
        resolve_binary_on(
            "gortex",
            &env_map(&[("PATH", &path), ("PATHEXT", ".EXE;.BAT")]),
            Platform::Windows
        ),
        None,
        "PATHEXT without .CMD"
    );
    make_file(&dir.join("gortex"), 0o644);
    assert_eq!(
        resolve_binary_on("gortex", &env_map(&[("PATH", &path)]), Platform::Windows),
        Some(dir.join("gortex")),
        "the bare name comes first"
    );
}

// Unix rules (`:`-joined PATH, execute bits); Windows' are in test_windows_trust_boundary.
#[cfg(unix)]
#[test]
fn relative_path_entries_holding_the_program_are_reported_as_skipped() {
    // CFG-18: PATH `:.:rel:<abs>` read from the project; `.`, the empty entry
    // and `rel` would run the project's `gortex`, the absolute entry is the
    // real lookup and is not "skipped".
    let root = temp_dir();
    let project = root.path().join("project");
    make_file(&project.join("gortex"), 0o755);
    make_file(&project.join("rel/gortex"), 0o755);
    let real = root.path().join("bin");
    make_file(&real.join("gortex"), 0o755);
    let path = format!(":.:rel:{}", real.display());
    let env = env_map(&[("PATH", &path)]);
    let skipped = pi_gortex_runtime::native::skipped_relative_binaries(
        "gortex",
        &env,
        &project,
        Platform::Unix,
    );
    let entries: Vec<&str> = skipped.iter().map(|(entry, _)| entry.as_str()).collect();
    assert_eq!(entries, ["", ".", "rel"]);
    assert_eq!(skipped[2].1, project.join("rel").join("gortex"));
    // A name with a separator, or no name, is not looked up on PATH at all.
    assert!(pi_gortex_runtime::native::skipped_relative_binaries(
        "./gortex",
        &env,
        &project,
        Platform::Unix
    )
    .is_empty());
    assert!(pi_gortex_runtime::native::skipped_relative_binaries(
        "",
        &env,
        &project,
        Platform::Unix
    )
    .is_empty());
}

#[test]
fn a_separator_of_either_kind_makes_a_path() {
    assert!(has_separator("bin/gortex"));
    assert!(has_separator("bin\\gortex"));
    assert!(!has_separator("gortex"));
}
