//! The trust boundary on Windows (CFG-16, CFG-18, DIFF-8/9): a project file
//! that is a device name neither blocks nor is read, and a `gortex.exe` or
//! `gortex.cmd` in the project never becomes the program that runs, whatever
//! `PATH` holds (Go's `exec.ErrDot` rule; Windows itself would search the
//! current directory first).

#![cfg(windows)]

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use pi_gortex_runtime::config::{resolve_bin, BinCandidate, ConfigWarning, Layer};
use pi_gortex_runtime::diff::paths::Boundary;
use pi_gortex_runtime::diff::snapshot::{snapshot_in, SkipReason, Snapshot};
use pi_gortex_runtime::native::resolve_binary;

fn project_with_programs() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("project");
    let project = std::fs::canonicalize(dir.path()).expect("canonical");
    for name in ["gortex.exe", "gortex.cmd", "gortex.bat", "rel\\gortex.exe"] {
        let path = project.join(name);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, "@echo hijacked\r\n").expect("write");
    }
    (dir, project)
}

fn env(path: &str) -> HashMap<String, String> {
    HashMap::from([("PATH".to_string(), path.to_string())])
}

#[test]
fn cfg_18_programs_in_the_project_are_never_resolved_from_relative_entries() {
    let (_dir, project) = project_with_programs();
    let resolution = resolve_bin(
        vec![BinCandidate {
            value: "gortex".into(),
            layer: Layer::Env,
            origin: "GORTEX_BIN".into(),
        }],
        &env(".;;rel"),
        Path::new("C:\\users\\nobody"),
        &project,
    );
    assert_eq!(resolution.path, None, "{resolution:?}");
    assert!(
        resolution
            .warnings
            .iter()
            .any(|w| matches!(w, ConfigWarning::SkippedRelativePath { .. })),
        "the user is told what was skipped: {:?}",
        resolution.warnings
    );
}

#[test]
fn cfg_18_the_current_directory_is_not_searched_without_a_path_entry() {
    let (_dir, project) = project_with_programs();
    let previous = std::env::current_dir().expect("cwd");
    std::env::set_current_dir(&project).expect("chdir");
    let found = resolve_binary("gortex", &env(""));
    std::env::set_current_dir(previous).expect("chdir back");
    assert_eq!(found, None);
}

#[test]
fn cfg_18_an_absolute_entry_finds_a_cmd_by_pathext() {
    let (_dir, project) = project_with_programs();
    let bin = project.join("rel");
    let found = resolve_binary("gortex", &env(&bin.display().to_string()));
    // The name as PATHEXT spells it: the same file on a case-insensitive disk.
    let found = found.map(|path| path.display().to_string().to_lowercase());
    assert_eq!(
        found,
        Some(bin.join("gortex.exe").display().to_string().to_lowercase())
    );
}

#[test]
fn diff_9_a_device_name_in_the_project_neither_blocks_nor_is_read() {
    let dir = tempfile::tempdir().expect("project");
    let cwd = std::fs::canonicalize(dir.path()).expect("canonical");
    for name in ["NUL", "CON", "COM1", "nul.txt", "\\\\.\\NUL"] {
        let path = cwd.join(name);
        let (done, finished) = std::sync::mpsc::channel();
        let boundary = Boundary::for_cwd(&cwd);
        std::thread::spawn(move || {
            let _ = done.send(snapshot_in(&path, &boundary));
        });
        let snap = finished
            .recv_timeout(Duration::from_secs(5))
            .unwrap_or_else(|_| panic!("{name}: a device must not block the snapshot"));
        assert!(
            matches!(
                snap,
                Snapshot::Skipped {
                    reason: SkipReason::Silent,
                    ..
                } | Snapshot::Missing
            ),
            "{name}: {snap:?}"
        );
    }
}
