//! Running the hook asynchronously (HOOK-1..HOOK-3).
//!
//! `<bin> hook --agent=pi [--mode=<m>]` gets one envelope on stdin and
//! answers one decision on stdout. The run never blocks the caller's thread,
//! is killed after 5 s or 16 MiB of stdout, discards stderr (it must never
//! reach Pi's terminal), and fails open: every failure is the empty decision
//! plus a recorded [`HookFailure`].

use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, Command};

use super::decision::{empty_decision, parse_decision};
use super::{HookDecision, HookEvent, HookFailure};

/// HOOK-2 wall-time limit.
pub const HOOK_TIMEOUT: Duration = Duration::from_millis(5000);
/// HOOK-2 stdout cap (16 MiB).
pub const HOOK_STDOUT_CAP: usize = 16 * 1024 * 1024;

/// The limits of one run; [`HookLimits::default`] is the HOOK-2 pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookLimits {
    /// Wall time before the child is killed.
    pub timeout: Duration,
    /// Stdout bytes beyond which the child is killed.
    pub stdout_cap: usize,
}

impl Default for HookLimits {
    fn default() -> Self {
        Self {
            timeout: HOOK_TIMEOUT,
            stdout_cap: HOOK_STDOUT_CAP,
        }
    }
}

/// The result of one hook run: always a decision, `{}` on failure.
#[derive(Debug, Clone, PartialEq)]
pub struct HookRun {
    /// The decision to apply (empty when `failure` is set).
    pub decision: HookDecision,
    /// Why the run failed open, if it did.
    pub failure: Option<HookFailure>,
    /// Wall time from spawn to decision.
    pub latency: Duration,
}

/// Runs the hook with the HOOK-2 limits.
pub async fn run(argv: &[String], event: &HookEvent) -> HookRun {
    run_with_limits(argv, event, HookLimits::default()).await
}

/// Runs the hook with explicit limits.
pub async fn run_with_limits(argv: &[String], event: &HookEvent, limits: HookLimits) -> HookRun {
    let started = Instant::now();
    let result = match serde_json::to_vec(event) {
        Ok(envelope) => exchange(argv, &envelope, limits).await,
        Err(error) => Err(HookFailure::Io {
            error: error.to_string(),
        }),
    };
    let latency = started.elapsed();
    match result.and_then(|stdout| parse_decision(&stdout)) {
        Ok(decision) => HookRun {
            decision,
            failure: None,
            latency,
        },
        Err(failure) => HookRun {
            decision: empty_decision(),
            failure: Some(failure),
            latency,
        },
    }
}

/// Spawns the child, feeds it the envelope and collects its stdout, within
/// the limits. A child that outlives this function is killed and reaped.
async fn exchange(
    argv: &[String],
    envelope: &[u8],
    limits: HookLimits,
) -> Result<Vec<u8>, HookFailure> {
    let (program, args) = argv.split_first().ok_or(HookFailure::EmptyArgv)?;
    crate::config::ensure_absolute(program.as_ref()).map_err(|error| HookFailure::Spawn {
        program: program.clone(),
        error: error.to_string(),
    })?;
    let mut command = Command::new(program);
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    // Its own process group, so a kill also reaches whatever a wrapper
    // script started (a `gortex` shim that does not `exec`).
    #[cfg(unix)]
    command.process_group(0);
    let mut child = command.spawn().map_err(|error| HookFailure::Spawn {
        program: program.clone(),
        error: error.to_string(),
    })?;
    let outcome = tokio::time::timeout(
        limits.timeout,
        talk(&mut child, envelope, limits.stdout_cap),
    )
    .await;
    match outcome {
        Ok(Ok((stdout, status))) if status.success() => Ok(stdout),
        Ok(Ok((_, status))) => Err(HookFailure::ExitStatus {
            status: status.to_string(),
        }),
        Ok(Err(failure)) => {
            kill_and_reap(&mut child).await;
            Err(failure)
        }
        Err(_elapsed) => {
            kill_and_reap(&mut child).await;
            Err(HookFailure::Timeout {
                limit_ms: u64::try_from(limits.timeout.as_millis()).unwrap_or(u64::MAX),
            })
        }
    }
}

/// Writes the envelope while reading stdout (a child may answer before it
/// has read everything), then waits for the exit status.
async fn talk(
    child: &mut Child,
    envelope: &[u8],
    cap: usize,
) -> Result<(Vec<u8>, ExitStatus), HookFailure> {
    let stdin = child.stdin.take();
    let stdout = child.stdout.take();
    let write = async move {
        if let Some(mut stdin) = stdin {
            // A child that exits without reading gives EPIPE; its stdout and
            // status still decide the run.
            let _ = stdin.write_all(envelope).await;
            let _ = stdin.shutdown().await;
        }
    };
    let read = async move {
        match stdout {
            Some(stdout) => read_capped(stdout, cap).await,
            None => Ok(Vec::new()),
        }
    };
    let ((), stdout) = tokio::join!(write, read);
    let stdout = stdout?;
    let status = child.wait().await.map_err(|error| HookFailure::Io {
        error: error.to_string(),
    })?;
    Ok((stdout, status))
}

/// Reads to EOF, failing as soon as more than `cap` bytes arrived (the
/// read stops there; the caller then kills the child).
async fn read_capped(reader: impl AsyncRead + Unpin, cap: usize) -> Result<Vec<u8>, HookFailure> {
    let limit = u64::try_from(cap).unwrap_or(u64::MAX).saturating_add(1);
    let mut buffer = Vec::with_capacity(4096);
    reader
        .take(limit)
        .read_to_end(&mut buffer)
        .await
        .map_err(|error| HookFailure::Io {
            error: error.to_string(),
        })?;
    if buffer.len() > cap {
        return Err(HookFailure::OutputTooLarge { limit_bytes: cap });
    }
    Ok(buffer)
}

/// Kills the child and waits for it, so no zombie or stray process is left.
async fn kill_and_reap(child: &mut Child) {
    #[cfg(unix)]
    if let Some(pid) = child.id().and_then(|pid| i32::try_from(pid).ok()) {
        // SAFETY: kill(2) with a negative pid signals the process group the
        // child leads (set at spawn); it touches no memory of ours.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    let _ = child.kill().await;
}
