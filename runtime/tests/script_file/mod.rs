//! Executable scripts for tests that spawn them.
//!
//! A test binary runs its tests on several threads. If this process held a
//! script open for writing while another test forked a child, that child would
//! inherit the descriptor until its exec, and running the script in that window
//! fails with ETXTBSY ("Text file busy"). A spawn that fails so is silently
//! ignored by fire-and-forget paths such as the daemon launcher, which made
//! `test_mcp_daemon_launcher` fail about one run in twenty on a loaded machine.
//! So the script is written by a child process (`cat`), never by this one.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// Writes `text` to `path` (creating its folder) and makes it executable
/// (0755), through a child.
pub fn write_executable(path: &Path, text: &str) {
    if let Some(folder) = path.parent() {
        std::fs::create_dir_all(folder).expect("create the script's folder");
    }
    let mut child = Command::new("/bin/sh")
        .args(["-c", "cat > \"$1\" && chmod 755 \"$1\"", "sh"])
        .arg(path)
        .stdin(Stdio::piped())
        .spawn()
        .expect("spawn /bin/sh to write a script");
    let mut stdin = child.stdin.take().expect("piped stdin");
    stdin.write_all(text.as_bytes()).expect("write the script");
    drop(stdin);
    let status = child.wait().expect("wait for the script writer");
    assert!(
        status.success(),
        "writing {} failed: {status}",
        path.display()
    );
}
