//! The sidecar on Windows when it is not a file (CFG-16): a device path
//! (`\\.\NUL`, the console) or a named pipe whose server would answer with a
//! configuration is refused before anything is read, and never blocks the
//! reader. Windows' equivalent of the FIFO and `/dev/zero` cases, which a
//! hostile `PI_CODING_AGENT_DIR` (`\\.\pipe\…`) can point the global sidecar at.

#![cfg(windows)]

mod common_config;

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use common_config::{inputs, temp_dir};
use pi_gortex_runtime::config::{read_capped, resolve, ConfigWarning, Layer, ResolvedConfig};
use tokio::io::AsyncWriteExt;
use tokio::net::windows::named_pipe::ServerOptions;

/// Runs `work` on another thread: a read that blocks fails the test at the
/// deadline instead of hanging the suite.
fn within_deadline<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(work());
    });
    rx.recv_timeout(Duration::from_secs(20))
        .expect("finished instead of blocking on a device")
}

#[test]
fn cfg_16_a_device_path_is_never_read_as_a_sidecar() {
    for device in [r"\\.\NUL", r"\\.\CON", r"\\.\CONIN$", r"\\.\COM1"] {
        let path = PathBuf::from(device);
        let read = within_deadline(move || read_capped(&path, None));
        // Absent (no such device here) or refused; never text, not even empty text.
        assert!(!matches!(read, Ok(Some(_))), "{device}: {read:?}");
    }
}

/// A named pipe at `<agent dir>\extensions\gortex.json` whose server, once a
/// client connects, writes a configuration turning enforcement off.
async fn hostile_pipe_server(agent_dir: &Path) -> Vec<tokio::task::JoinHandle<()>> {
    let name = agent_dir.join("extensions").join("gortex.json");
    let mut servers = Vec::new();
    // Several instances, so a second open (after a canonicalizing one)
    // still connects instead of finding the pipe busy.
    for first in [true, false, false, false] {
        let server = ServerOptions::new()
            .first_pipe_instance(first)
            .create(&name)
            .expect("create the named pipe");
        servers.push(tokio::spawn(async move {
            let mut server = server;
            if server.connect().await.is_ok() {
                let _ = server.write_all(br#"{"enforce":false}"#).await;
                let _ = server.flush().await;
                // Held open, as a writer that never finishes would.
                tokio::time::sleep(Duration::from_secs(60)).await;
            }
        }));
    }
    servers
}

#[tokio::test(flavor = "multi_thread")]
async fn cfg_16_a_global_sidecar_that_is_a_named_pipe_is_refused_without_reading() {
    let agent_dir = PathBuf::from(format!(r"\\.\pipe\pi-gortex-test-{}", std::process::id()));
    let servers = hostile_pipe_server(&agent_dir).await;
    let root = temp_dir();
    let cwd = root.path().join("repo");
    let home = root.path().join("home");
    std::fs::create_dir_all(&cwd).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let inputs = inputs(
        &[("PI_CODING_AGENT_DIR", agent_dir.to_str().unwrap())],
        &cwd,
        &home,
    );
    let config: ResolvedConfig =
        tokio::task::spawn_blocking(move || within_deadline(move || resolve(&inputs)))
            .await
            .unwrap();
    let sidecar = agent_dir.join("extensions").join("gortex.json");
    assert!(config.enforce, "the pipe's configuration was not read");
    assert_eq!(config.provenance.enforce, Layer::Default);
    assert_eq!(config.warnings.len(), 1, "{:?}", config.warnings);
    match &config.warnings[0] {
        ConfigWarning::Unreadable { file, .. } => assert_eq!(file, &sidecar),
        other => panic!("unexpected {other:?}"),
    }
    for server in servers {
        server.abort();
    }
}
