//! The daemon launcher of the own-client path.
//!
//! `<bin> daemon start --detach` is fire and forget: it runs detached from
//! the host (its own process group) with all stdio ignored, its errors are
//! swallowed, it is reaped in the background so no zombie remains, and it is
//! never killed, because the daemon is shared and outlives the session.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Stdio;

use tokio::process::Command;

/// Starts `<bin> daemon start --detach` without waiting for it. Must be
/// called inside a tokio runtime; a spawn failure is ignored.
pub fn launch_daemon(bin: &OsString, extra_env: &[(OsString, OsString)], cwd: Option<&PathBuf>) {
    if crate::config::ensure_absolute(bin).is_err() {
        return;
    }
    let mut command = Command::new(bin);
    command
        .args(["daemon", "start", "--detach"])
        .envs(extra_env.iter().map(|(key, value)| (key, value)))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        // Detached on purpose: dropping the handle must not kill it.
        .kill_on_drop(false);
    crate::platform::process_tree::detach(&mut command);
    if let Some(cwd) = cwd {
        command.current_dir(cwd);
    }
    if let Ok(mut child) = command.spawn() {
        tokio::spawn(async move {
            let _ = child.wait().await;
        });
    }
}
