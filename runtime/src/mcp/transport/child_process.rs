//! Spawning and killing one piped child process.
//!
//! The child is always created killed-on-drop, so a child whose owner
//! disappears (a dropped task, a runtime shutting down) is killed rather
//! than orphaned. The orderly path is [`terminate_and_reap`]: a stop request
//! first (SIGTERM on Unix), a kill after the grace period, and always a
//! `wait` so no zombie remains. The child is spawned as a [`ChildTree`] (its
//! own process group on Unix, a kill-on-close job object on Windows), so a
//! `gortex` that is a wrapper script takes what it started with it.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use tokio::process::{ChildStdin, ChildStdout, Command};
use tokio::task::JoinHandle;

use super::stderr_tail::StderrTail;
pub use crate::platform::process_tree::ChildTree;

/// What to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChildSpec {
    /// The executable; a bare name is looked up on `PATH`.
    pub program: OsString,
    /// Arguments after the program.
    pub args: Vec<OsString>,
    /// Variables added to the inherited environment.
    pub extra_env: Vec<(OsString, OsString)>,
    /// Working directory; `None` inherits the host's.
    pub cwd: Option<PathBuf>,
}

/// A freshly spawned child with its pipes taken apart.
#[derive(Debug)]
pub struct SpawnedChild {
    /// The OS process id.
    pub pid: u32,
    /// The process handle (the tree is killed on drop).
    pub child: ChildTree,
    /// The child's stdin.
    pub stdin: ChildStdin,
    /// The child's stdout.
    pub stdout: ChildStdout,
    /// The last bytes the child wrote to stderr.
    pub stderr_tail: StderrTail,
    /// The task draining stderr; it ends at stderr EOF.
    pub stderr_drain: JoinHandle<()>,
}

/// Spawns `spec` with three piped streams and starts draining stderr.
/// Must be called inside a tokio runtime.
pub fn spawn_piped(spec: &ChildSpec) -> std::io::Result<SpawnedChild> {
    crate::config::ensure_absolute(spec.program.as_ref())?;
    let mut command = Command::new(&spec.program);
    command
        .args(&spec.args)
        .envs(spec.extra_env.iter().map(|(key, value)| (key, value)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(cwd) = &spec.cwd {
        command.current_dir(cwd);
    }
    let mut child = ChildTree::spawn(command)?;
    let missing = || std::io::Error::other("child pipe missing");
    let stdin = child.take_stdin().ok_or_else(missing)?;
    let stdout = child.take_stdout().ok_or_else(missing)?;
    let stderr = child.take_stderr().ok_or_else(missing)?;
    let pid = child.id().ok_or_else(missing)?;
    let stderr_tail = StderrTail::default();
    let stderr_drain = tokio::spawn(stderr_tail.clone().drain(stderr));
    Ok(SpawnedChild {
        pid,
        child,
        stdin,
        stdout,
        stderr_tail,
        stderr_drain,
    })
}

/// Asks the child's tree to stop, kills it after `grace`, and reaps the
/// child. The caller closes stdin first. Returns the exit status
/// when one was read.
pub async fn terminate_and_reap(child: &mut ChildTree, grace: Duration) -> Option<ExitStatus> {
    if let Ok(Some(status)) = child.try_wait() {
        return Some(status);
    }
    child.terminate();
    if let Ok(status) = tokio::time::timeout(grace, child.wait()).await {
        // Whatever the child started and left behind goes with it.
        child.kill();
        return status.ok();
    }
    child.kill();
    child.wait().await.ok()
}

/// How a child ended, in the words of the exit marking.
pub fn describe_status(status: Option<ExitStatus>) -> String {
    match status {
        Some(status) => match (status.code(), exit_signal(status)) {
            (Some(code), _) => format!("with status {code}"),
            (None, Some(signal)) => format!("by signal {signal}"),
            (None, None) => String::new(),
        },
        None => String::new(),
    }
}

/// The signal that ended the process (Unix); Windows has none.
#[cfg(unix)]
fn exit_signal(status: ExitStatus) -> Option<i32> {
    std::os::unix::process::ExitStatusExt::signal(&status)
}

/// The signal that ended the process (Unix); Windows has none.
#[cfg(not(unix))]
fn exit_signal(_status: ExitStatus) -> Option<i32> {
    None
}

// The tests drive `/bin/sh` scripts and Unix signals; Windows' side of the
// tree is covered by the integration tests that spawn the simulator.
#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn sh(script: &str) -> ChildSpec {
        ChildSpec {
            program: "/bin/sh".into(),
            args: vec!["-c".into(), script.into()],
            extra_env: vec![("PI_GORTEX_T".into(), "42".into())],
            cwd: None,
        }
    }

    #[tokio::test]
    async fn escalates_to_sigkill_when_sigterm_is_ignored() {
        let mut spawned =
            spawn_piped(&sh("trap '' TERM; echo ready; while :; do sleep 1; done")).unwrap();
        let mut line = [0u8; 6];
        tokio::io::AsyncReadExt::read_exact(&mut spawned.stdout, &mut line)
            .await
            .unwrap();
        let started = std::time::Instant::now();
        let status = terminate_and_reap(&mut spawned.child, Duration::from_millis(200)).await;
        assert!(started.elapsed() >= Duration::from_millis(200));
        assert_eq!(describe_status(status), "by signal 9");
    }

    #[tokio::test]
    async fn mcp_15_a_grandchild_is_killed_with_its_group() {
        let mut spawned = spawn_piped(&sh("sleep 600 & echo $!; wait")).unwrap();
        let mut line = String::new();
        let mut stdout = tokio::io::BufReader::new(&mut spawned.stdout);
        tokio::io::AsyncBufReadExt::read_line(&mut stdout, &mut line)
            .await
            .unwrap();
        let grandchild: libc::pid_t = line.trim().parse().unwrap();
        terminate_and_reap(&mut spawned.child, Duration::from_millis(200)).await;
        // SAFETY: signal 0 only asks whether the pid exists.
        let alive = || unsafe { libc::kill(grandchild, 0) } == 0 && !is_zombie(grandchild);
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while alive() && std::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(!alive(), "the grandchild {grandchild} outlived the kill");
    }

    /// A killed grandchild waits for its reaper (init) as a zombie for a
    /// moment; that is not alive. Linux reads `/proc`; elsewhere (macOS has
    /// no `/proc`) nothing counts as a zombie and launchd reaps at once.
    fn is_zombie(pid: libc::pid_t) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|stat| {
                stat.rsplit(')')
                    .next()
                    .unwrap_or("")
                    .trim_start()
                    .starts_with('Z')
            })
            .unwrap_or(false)
    }

    #[tokio::test]
    async fn stderr_tail_and_env_reach_the_child() {
        let mut spawned = spawn_piped(&sh("echo \"boom $PI_GORTEX_T\" >&2; exit 3")).unwrap();
        let status = spawned.child.wait().await.ok();
        spawned.stderr_drain.await.unwrap();
        assert_eq!(describe_status(status), "with status 3");
        assert_eq!(spawned.stderr_tail.text(), "boom 42");
    }
}
