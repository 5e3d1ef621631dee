//! CFG-16: a sidecar is opened without blocking, checked on
//! the opened descriptor to be a regular file of at most 64 KiB, and read
//! through a cap; a project sidecar must not lead outside the project through
//! a symlink, while the global one may. Anything else is one warning naming
//! the file and what was wrong, and that layer falls through.

mod common_config;
mod links;

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use common_config::{inputs, temp_dir, write_file};
use pi_gortex_runtime::config::{resolve, ConfigWarning, Layer, ResolvedConfig};

/// Resolves on another thread and waits for the answer: a read that blocks
/// fails the test at the deadline instead of hanging the suite.
fn resolve_within_deadline(cwd: &Path, home: &Path) -> ResolvedConfig {
    let (tx, rx) = mpsc::channel();
    let inputs = inputs(&[], cwd, home);
    std::thread::spawn(move || {
        let _ = tx.send(resolve(&inputs));
    });
    rx.recv_timeout(Duration::from_secs(20))
        .expect("resolution finished instead of blocking on the sidecar")
}

/// A project `{enforce:false}` would turn enforcement off; the global
/// sidecar says `hook_mode: enrich` so the test can see which layers held.
fn setup(root: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let cwd = root.join("repo");
    let home = root.join("home");
    std::fs::create_dir_all(cwd.join(".pi")).unwrap();
    write_file(
        &home.join(".pi/agent/extensions/gortex.json"),
        r#"{"hook_mode":"enrich"}"#,
    );
    (cwd, home)
}

fn only_warning(config: &ResolvedConfig, file: &Path) -> String {
    assert_eq!(config.warnings.len(), 1, "{:?}", config.warnings);
    match &config.warnings[0] {
        ConfigWarning::Unreadable { file: named, .. } => assert_eq!(named, file),
        other => panic!("unexpected {other:?}"),
    }
    config.warnings[0].to_string()
}

fn assert_project_fell_through(config: &ResolvedConfig) {
    assert!(config.enforce, "the project layer gave nothing");
    assert_eq!(config.provenance.enforce, Layer::Default);
    assert_eq!(
        config.provenance.hook_mode,
        Layer::Global,
        "the global layer still holds"
    );
}

#[cfg_attr(
    windows,
    ignore = "wine 8 shows no reparse points: its symlinks are not seen as links"
)]
#[test]
fn project_sidecar_symlinked_to_dev_zero_is_refused_without_reading() {
    let root = temp_dir();
    let (cwd, home) = setup(root.path());
    let sidecar = cwd.join(".pi/gortex.json");
    links::symlink("/dev/zero", &sidecar).unwrap();
    let config = resolve_within_deadline(&cwd, &home);
    let text = only_warning(&config, &sidecar);
    assert!(text.contains("leads outside the project"), "{text}");
    assert_project_fell_through(&config);
}

#[cfg_attr(
    windows,
    ignore = "wine 8 shows no reparse points: its symlinks are not seen as links"
)]
#[test]
fn global_sidecar_symlinked_to_dev_zero_is_refused_as_a_device() {
    let root = temp_dir();
    let (cwd, home) = setup(root.path());
    let global = home.join(".pi/agent/extensions/gortex.json");
    std::fs::remove_file(&global).unwrap();
    links::symlink("/dev/zero", &global).unwrap();
    let config = resolve_within_deadline(&cwd, &home);
    let text = only_warning(&config, &global);
    assert!(
        text.contains("it is a character device, not a regular file"),
        "{text}"
    );
    assert_eq!(config.provenance.hook_mode, Layer::Default);
}

// FIFOs exist on Unix only; Windows devices and pipes are the Windows case.
#[cfg(unix)]
#[test]
fn fifo_sidecar_neither_blocks_nor_is_read() {
    let root = temp_dir();
    let (cwd, home) = setup(root.path());
    let sidecar = cwd.join(".pi/gortex.json");
    let c_path = std::ffi::CString::new(sidecar.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o644) }, 0, "mkfifo");
    let config = resolve_within_deadline(&cwd, &home);
    let text = only_warning(&config, &sidecar);
    assert!(text.contains("it is a FIFO, not a regular file"), "{text}");
    assert_project_fell_through(&config);
}

#[test]
fn directory_sidecar_is_one_warning() {
    let root = temp_dir();
    let (cwd, home) = setup(root.path());
    let sidecar = cwd.join(".pi/gortex.json");
    std::fs::create_dir_all(&sidecar).unwrap();
    let config = resolve_within_deadline(&cwd, &home);
    let text = only_warning(&config, &sidecar);
    assert!(
        text.contains("it is a directory, not a regular file"),
        "{text}"
    );
    assert_project_fell_through(&config);
}

#[test]
fn sidecar_over_64_kib_is_refused_and_one_byte_under_is_read() {
    let root = temp_dir();
    let (cwd, home) = setup(root.path());
    let sidecar = cwd.join(".pi/gortex.json");
    // 20 MB of valid JSON: only the cap keeps it out.
    let padding = " ".repeat(20 * 1024 * 1024);
    std::fs::write(&sidecar, format!("{{\"enforce\":false}}{padding}")).unwrap();
    let config = resolve_within_deadline(&cwd, &home);
    let text = only_warning(&config, &sidecar);
    assert!(text.contains("it is larger than 64 KiB"), "{text}");
    assert_project_fell_through(&config);

    // The padding goes first, so a read cut even one byte short of the cap
    // loses the closing brace and the file no longer parses.
    let body = r#"{"enforce":false}"#;
    let at_cap = format!("{}{body}", " ".repeat(64 * 1024 - body.len()));
    std::fs::write(&sidecar, at_cap).unwrap();
    let config = resolve_within_deadline(&cwd, &home);
    assert!(config.warnings.is_empty(), "{:?}", config.warnings);
    assert!(!config.enforce, "exactly 64 KiB is still read");
}

#[cfg_attr(
    windows,
    ignore = "wine 8 shows no reparse points: its symlinks are not seen as links"
)]
#[test]
fn project_symlink_out_of_the_project_is_refused_inside_it_is_read() {
    let root = temp_dir();
    let (cwd, home) = setup(root.path());
    let sidecar = cwd.join(".pi/gortex.json");
    let outside = root.path().join("elsewhere.json");
    std::fs::write(&outside, r#"{"enforce":false}"#).unwrap();
    links::symlink(&outside, &sidecar).unwrap();
    let config = resolve_within_deadline(&cwd, &home);
    let text = only_warning(&config, &sidecar);
    assert!(
        text.contains("leads outside the project through a symlink"),
        "{text}"
    );
    assert_project_fell_through(&config);

    std::fs::remove_file(&sidecar).unwrap();
    let inside = cwd.join("config/gortex.json");
    write_file(&inside, r#"{"enforce":false}"#);
    links::symlink(&inside, &sidecar).unwrap();
    let config = resolve_within_deadline(&cwd, &home);
    assert!(config.warnings.is_empty(), "{:?}", config.warnings);
    assert!(
        !config.enforce,
        "a link that stays in the project is honoured"
    );
}

#[cfg_attr(
    windows,
    ignore = "wine 8 shows no reparse points: its symlinks are not seen as links"
)]
#[test]
fn project_dot_pi_directory_symlinked_out_is_refused() {
    let root = temp_dir();
    let (cwd, home) = setup(root.path());
    std::fs::remove_dir(cwd.join(".pi")).unwrap();
    let outside = root.path().join("shared-pi");
    write_file(&outside.join("gortex.json"), r#"{"enforce":false}"#);
    links::symlink(&outside, cwd.join(".pi")).unwrap();
    let config = resolve_within_deadline(&cwd, &home);
    let text = only_warning(&config, &cwd.join(".pi/gortex.json"));
    assert!(text.contains("leads outside the project"), "{text}");
    assert_project_fell_through(&config);
}

#[cfg_attr(
    windows,
    ignore = "wine 8 shows no reparse points: its symlinks are not seen as links"
)]
#[test]
fn global_sidecar_may_be_a_symlink_to_a_regular_file() {
    let root = temp_dir();
    let (cwd, home) = setup(root.path());
    let global = home.join(".pi/agent/extensions/gortex.json");
    let dotfiles = root.path().join("dotfiles/gortex.json");
    write_file(&dotfiles, r#"{"enforce":false}"#);
    std::fs::remove_file(&global).unwrap();
    links::symlink(&dotfiles, &global).unwrap();
    let config = resolve_within_deadline(&cwd, &home);
    assert!(config.warnings.is_empty(), "{:?}", config.warnings);
    assert!(!config.enforce);
    assert_eq!(config.provenance.enforce, Layer::Global);
}

#[cfg_attr(
    windows,
    ignore = "wine 8 shows no reparse points: its symlinks are not seen as links"
)]
#[test]
fn dangling_symlink_is_an_absent_layer_and_non_utf8_is_one_warning() {
    let root = temp_dir();
    let (cwd, home) = setup(root.path());
    let sidecar = cwd.join(".pi/gortex.json");
    links::symlink(cwd.join("nowhere.json"), &sidecar).unwrap();
    let config = resolve_within_deadline(&cwd, &home);
    assert!(config.warnings.is_empty(), "{:?}", config.warnings);

    std::fs::remove_file(&sidecar).unwrap();
    std::fs::write(&sidecar, b"{\"hook_mode\":\"\xff\"}").unwrap();
    let config = resolve_within_deadline(&cwd, &home);
    let text = only_warning(&config, &sidecar);
    assert!(text.contains("it is not UTF-8 text"), "{text}");
}

#[cfg_attr(
    windows,
    ignore = "wine 8 shows no reparse points: its symlinks are not seen as links"
)]
#[test]
fn a_sidecar_symlink_loop_is_a_warning_not_an_absent_file() {
    // Only "nothing at the path" makes a layer silently absent; a path that
    // cannot be resolved for another reason (here ELOOP) is reported.
    let root = temp_dir();
    let (cwd, home) = setup(root.path());
    let sidecar = cwd.join(".pi/gortex.json");
    links::symlink(&sidecar, &sidecar).unwrap();
    let config = resolve_within_deadline(&cwd, &home);
    let text = only_warning(&config, &sidecar);
    assert!(text.contains("could not be read"), "{text}");
    assert_project_fell_through(&config);
}

// A UNIX socket in the file system is Unix only.
#[cfg(unix)]
#[test]
fn a_sidecar_that_cannot_be_opened_is_unreadable_not_outside_the_project() {
    // A UNIX socket resolves inside the project but open(2) refuses it
    // (ENXIO): that is an I/O error, not the symlink swap that ELOOP means.
    let root = temp_dir();
    let (cwd, home) = setup(root.path());
    let sidecar = cwd.join(".pi/gortex.json");
    let _listener = std::os::unix::net::UnixListener::bind(&sidecar).unwrap();
    let config = resolve_within_deadline(&cwd, &home);
    let text = only_warning(&config, &sidecar);
    assert!(text.contains("could not be read"), "{text}");
    assert_project_fell_through(&config);
}
