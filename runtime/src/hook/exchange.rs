//! One run of the hook (HOOK-1..HOOK-3, HOOK-18).
//!
//! `<bin> hook --agent=pi [--mode=<m>]` gets one envelope on stdin and
//! answers one decision on stdout. A run is killed after 5 s or 16 MiB of
//! stdout, discards stderr (it must never reach Pi's terminal), and fails
//! open: every failure is the empty decision plus a recorded [`HookFailure`].
//!
//! A run is one exchange in two steps. [`begin`] never blocks: on Unix it
//! writes the envelope to a warm spare's stdin with one non-blocking write,
//! so the spare decides while the thread that waits for its answer wakes.
//! [`Begun::finish`] blocks the thread it runs on until the answer, the
//! exit or the deadline, and spawns a fresh child when there was no spare,
//! or it died or refused the envelope. [`run`], [`run_with_limits`] and
//! [`run_blocking`] are that pair without a spare.
//!
//! The hook runs on every Pi tool call, so its cost is the spawn-and-wait
//! of the binary and as little else as possible (`hook_spawn_floor`
//! measures it against a bare spawn-and-wait of the same binary). On Unix
//! `std::process::Command` spawns with `posix_spawn` (vfork semantics on
//! Linux and macOS: the host's address space is never copied), no shell,
//! the argv as configured and the environment passed as it is, in its own
//! process group; then one `poll(2)` loop feeds stdin, drains stdout and (on
//! Linux) watches a pidfd for the exit, with the deadline as poll's timeout:
//! one thread, no hand-off per readiness event. Windows drives the pipes
//! with tokio's process on one runtime shared by every exchange in the
//! process (no call builds one), the child in a kill-on-close job object so
//! nothing it starts outlives the exchange (docs/decisions/015 says why two
//! drivers).

use std::time::{Duration, Instant};

use super::decision::{empty_decision, parse_decision};
use super::{HookDecision, HookEvent, HookFailure};

/// The wall-time limit of one run.
pub const HOOK_TIMEOUT: Duration = Duration::from_millis(5000);
/// The stdout cap of one run (16 MiB).
pub const HOOK_STDOUT_CAP: usize = 16 * 1024 * 1024;

/// The limits of one run; [`HookLimits::default`] is that pair.
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

/// Runs the hook with the default limits.
pub async fn run(argv: &[String], event: &HookEvent) -> HookRun {
    run_with_limits(argv, event, HookLimits::default()).await
}

/// Runs the hook with explicit limits, on a thread of tokio's blocking
/// pool (the exchange blocks the thread it finishes on).
pub async fn run_with_limits(argv: &[String], event: &HookEvent, limits: HookLimits) -> HookRun {
    let begun = begin(None, argv, event, limits);
    let started = begun.started;
    tokio::task::spawn_blocking(move || begun.finish())
        .await
        .unwrap_or_else(|error| {
            hook_run(
                started,
                Err(HookFailure::Io {
                    error: error.to_string(),
                }),
            )
        })
}

/// [`run`] on the calling thread, which it blocks for the exchange (at most
/// the default limits): for a caller already on a blocking thread.
pub fn run_blocking(argv: &[String], event: &HookEvent) -> HookRun {
    begin(None, argv, event, HookLimits::default()).finish()
}

/// A hook process started ahead of its call and waiting on stdin (HOOK-18):
/// the same spawn as a call's, minus the envelope. Dropped unused, it is
/// killed with whatever it started, and reaped.
#[derive(Debug)]
pub struct Warm(Option<WarmChild>);

#[cfg(unix)]
type WarmChild = std::process::Child;
#[cfg(not(unix))]
type WarmChild = crate::platform::process_tree::ChildTree;

/// The exchange's driver: the same `spawn` and `exchange_with` on both sides.
#[cfg(unix)]
use blocking as driver;
#[cfg(not(unix))]
use portable as driver;

impl Warm {
    /// Starts `argv` as a call's exchange would, without writing to it.
    pub fn spawn(argv: &[String]) -> Result<Self, HookFailure> {
        #[cfg(feature = "test-support")]
        if failing_spawns::take() {
            return Err(HookFailure::Spawn {
                program: argv.first().cloned().unwrap_or_default(),
                error: "failed on purpose by a test".into(),
            });
        }
        driver::spawn(argv).map(|child| Self(Some(child)))
    }

    /// The process id, while it is held.
    pub fn id(&self) -> Option<u32> {
        #[cfg(unix)]
        return self.0.as_ref().map(std::process::Child::id);
        #[cfg(not(unix))]
        return self.0.as_ref().and_then(|child| child.id());
    }

    fn take(mut self) -> Option<WarmChild> {
        self.0.take()
    }
}

impl Drop for Warm {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Some(child) = self.0.as_mut() {
            blocking::kill_and_reap(child);
        }
        // Dropping the tree closes its job, which kills every process in it.
        #[cfg(not(unix))]
        if let Some(child) = self.0.as_mut() {
            child.kill();
        }
    }
}

/// One exchange begun by [`begin`] and ended by [`Begun::finish`]: the
/// envelope is handed to a warm spare on the caller's thread, so the hook
/// decides while the thread that finishes the exchange wakes up.
#[derive(Debug)]
pub struct Begun {
    started: Instant,
    argv: Vec<String>,
    limits: HookLimits,
    envelope: Result<Vec<u8>, HookFailure>,
    handed: Option<Handed>,
}

/// A spare given the envelope: on Unix as much of it as its pipe took
/// without blocking, and whether its stdin was closed before it took a
/// byte; on Windows the write is left to [`Begun::finish`].
#[derive(Debug)]
struct Handed {
    warm: Warm,
    #[cfg(unix)]
    written: usize,
    #[cfg(unix)]
    refused: bool,
}

/// Begins the exchange for `event` on `warm` when there is one (else a
/// fresh child is spawned by [`Begun::finish`]). Never blocks: on Unix the
/// envelope goes to the spare's stdin with one non-blocking write, and the
/// pipe is closed when it took everything.
pub fn begin(warm: Option<Warm>, argv: &[String], event: &HookEvent, limits: HookLimits) -> Begun {
    let started = Instant::now();
    let envelope = serde_json::to_vec(event).map_err(|error| HookFailure::Io {
        error: error.to_string(),
    });
    let handed = match &envelope {
        Ok(envelope) => warm.and_then(|warm| hand(warm, envelope)),
        Err(_) => None,
    };
    Begun {
        started,
        argv: argv.to_vec(),
        limits,
        envelope,
        handed,
    }
}

/// The spare with the envelope handed over; `None` when it has exited (it
/// is reaped as the `Warm` drops), so a fresh child answers instead.
#[cfg(unix)]
fn hand(mut warm: Warm, envelope: &[u8]) -> Option<Handed> {
    let child = warm.0.as_mut()?;
    let (written, refused) = blocking::hand(child, envelope)?;
    Some(Handed {
        warm,
        written,
        refused,
    })
}

#[cfg(not(unix))]
fn hand(warm: Warm, _envelope: &[u8]) -> Option<Handed> {
    Some(Handed { warm })
}

impl Handed {
    /// The spare as the Unix driver takes it: the child, the envelope's
    /// bytes it took, and whether it refused them.
    #[cfg(unix)]
    fn into_spare(self) -> Option<(WarmChild, usize, bool)> {
        let Handed {
            warm,
            written,
            refused,
        } = self;
        warm.take().map(|child| (child, written, refused))
    }

    /// The spare as the portable driver takes it: the child alone.
    #[cfg(not(unix))]
    fn into_spare(self) -> Option<WarmChild> {
        self.warm.take()
    }
}

impl Begun {
    /// Ends the exchange on the calling thread, which it blocks (at most
    /// the limits from [`begin`], counted from then): the spare's answer,
    /// or a fresh child's when the spare died or refused the envelope.
    pub fn finish(self) -> HookRun {
        let Begun {
            started,
            argv,
            limits,
            envelope,
            handed,
        } = self;
        let deadline = started + limits.timeout;
        let result =
            envelope.and_then(|envelope| finish_on(handed, &argv, &envelope, limits, deadline));
        hook_run(started, result)
    }
}

fn finish_on(
    handed: Option<Handed>,
    argv: &[String],
    envelope: &[u8],
    limits: HookLimits,
    deadline: Instant,
) -> Result<Vec<u8>, HookFailure> {
    let spare = handed.and_then(Handed::into_spare);
    driver::exchange_with(spare, argv, envelope, limits, deadline)
}

/// The run from an exchange's outcome (any failure is no decision).
fn hook_run(started: Instant, result: Result<Vec<u8>, HookFailure>) -> HookRun {
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

fn limit_ms(limits: HookLimits) -> u64 {
    u64::try_from(limits.timeout.as_millis()).unwrap_or(u64::MAX)
}

/// Makes the calling thread's next `count` [`Warm::spawn`]s fail, as a start
/// that fails for a reason that passes would (test-support only).
#[cfg(feature = "test-support")]
pub fn fail_next_warm_spawns_for_tests(count: usize) {
    failing_spawns::FAILING.with(|left| left.set(count));
}

#[cfg(feature = "test-support")]
mod failing_spawns {
    use std::cell::Cell;

    thread_local! {
        pub(super) static FAILING: Cell<usize> = const { Cell::new(0) };
    }

    /// Whether this spawn is one to fail, counting it.
    pub(super) fn take() -> bool {
        FAILING.with(|left| {
            let fail = left.get() > 0;
            left.set(left.get().saturating_sub(1));
            fail
        })
    }
}

/// The exchange's poll(2) wait, for the tests of its timeout and error paths,
/// which no hook can be made to cause (test-support only).
#[cfg(all(unix, feature = "test-support"))]
pub fn poll_until_for_tests(
    fds: &mut [libc::pollfd],
    deadline: Instant,
) -> Result<bool, HookFailure> {
    blocking::poll_until(fds, deadline)
}

/// The Unix exchange: one thread, one poll loop (see the module comment).
#[cfg(unix)]
mod blocking {
    use std::io::{ErrorKind, Read, Write};
    use std::os::fd::{AsRawFd, RawFd};
    use std::os::unix::process::CommandExt;
    use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
    use std::time::{Duration, Instant};

    use super::{limit_ms, HookFailure, HookLimits};

    /// Hands `envelope` to a waiting spare with one non-blocking write and
    /// closes its stdin once it took everything: how many bytes it took,
    /// and whether its stdin was closed before it took one. `None` when it
    /// has exited.
    pub(super) fn hand(child: &mut Child, envelope: &[u8]) -> Option<(usize, bool)> {
        if !matches!(child.try_wait(), Ok(None)) {
            return None;
        }
        let Some(pipe) = child.stdin.as_mut() else {
            return Some((0, false));
        };
        if set_nonblocking(pipe.as_raw_fd()).is_err() {
            return Some((0, false));
        }
        let (written, refused) = match pipe.write(envelope) {
            Ok(n) => (n, false),
            // A full pipe (EAGAIN): the finishing thread's loop writes on.
            Err(error) if error.kind() == ErrorKind::WouldBlock => (0, false),
            // A spare that closed its stdin (EPIPE) never read the envelope.
            Err(_) => (0, true),
        };
        if refused || written >= envelope.len() {
            // Dropping the pipe closes it: the child sees EOF.
            child.stdin = None;
        }
        Some((written, refused))
    }

    /// The exchange on `spare` (a child handed `written` bytes of the
    /// envelope, `refused` when it closed its stdin first) when there is
    /// one; a spare that refused the envelope and gave no answer never read
    /// it, so a fresh child gets it within the same deadline.
    pub(super) fn exchange_with(
        spare: Option<(Child, usize, bool)>,
        argv: &[String],
        envelope: &[u8],
        limits: HookLimits,
        deadline: Instant,
    ) -> Result<Vec<u8>, HookFailure> {
        if let Some((mut child, written, mut refused)) = spare {
            let result = converse(
                &mut child,
                envelope,
                written,
                limits,
                deadline,
                &mut refused,
            );
            let answered = matches!(&result, Ok(stdout) if !stdout.is_empty());
            if !refused || answered {
                return result;
            }
            kill_and_reap(&mut child);
        }
        let mut child = spawn(argv)?;
        converse(&mut child, envelope, 0, limits, deadline, &mut false)
    }

    /// Starts `argv` with piped stdin and stdout, stderr discarded.
    pub(super) fn spawn(argv: &[String]) -> Result<Child, HookFailure> {
        let (program, args) = super::split_program(argv)?;
        Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            // Its own process group, so a kill also reaches whatever a wrapper
            // script started (a `gortex` shim that does not `exec`).
            .process_group(0)
            .spawn()
            .map_err(|error| HookFailure::Spawn {
                program: program.clone(),
                error: error.to_string(),
            })
    }

    /// Feeds `child` the envelope from byte `written` on and collects its
    /// answer; `refused` is set when its stdin was closed before it took a
    /// byte.
    fn converse(
        child: &mut Child,
        envelope: &[u8],
        written: usize,
        limits: HookLimits,
        deadline: Instant,
        refused: &mut bool,
    ) -> Result<Vec<u8>, HookFailure> {
        let finished =
            talk(child, envelope, written, limits, deadline, refused).and_then(|stdout| {
                match wait_until(child, deadline)? {
                    Some(status) => Ok((stdout, status)),
                    None => Err(timed_out(limits)),
                }
            });
        match finished {
            Ok((stdout, status)) if status.success() => Ok(stdout),
            Ok((_, status)) => Err(HookFailure::ExitStatus {
                status: status.to_string(),
            }),
            Err(failure) => {
                kill_and_reap(child);
                Err(failure)
            }
        }
    }

    fn timed_out(limits: HookLimits) -> HookFailure {
        HookFailure::Timeout {
            limit_ms: limit_ms(limits),
        }
    }

    fn io_failure(error: std::io::Error) -> HookFailure {
        HookFailure::Io {
            error: error.to_string(),
        }
    }

    /// O_NONBLOCK alone, without reading the old flags first: std creates
    /// the child's pipes with no file status flags (close-on-exec is a
    /// descriptor flag, untouched by F_SETFL), so nothing is lost. F_SETFL
    /// answers 0 on success and -1 on failure.
    fn set_nonblocking(fd: RawFd) -> Result<(), HookFailure> {
        // SAFETY: fcntl on a descriptor we own; no memory is passed.
        if unsafe { libc::fcntl(fd, libc::F_SETFL, libc::O_NONBLOCK) } != 0 {
            return Err(io_failure(std::io::Error::last_os_error()));
        }
        Ok(())
    }

    /// Milliseconds left for poll(2), rounded up so a wait never ends early;
    /// `None` once the deadline has passed.
    fn remaining_ms(deadline: Instant) -> Option<libc::c_int> {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return None;
        }
        let ms = left.as_micros().div_ceil(1000);
        Some(libc::c_int::try_from(ms).unwrap_or(libc::c_int::MAX))
    }

    /// Waits for any of `fds`; `Ok(false)` when the deadline passed first.
    pub(super) fn poll_until(
        fds: &mut [libc::pollfd],
        deadline: Instant,
    ) -> Result<bool, HookFailure> {
        loop {
            let Some(timeout) = remaining_ms(deadline) else {
                return Ok(false);
            };
            let count = libc::nfds_t::try_from(fds.len()).unwrap_or(0);
            // SAFETY: `fds` is a live, exclusively borrowed slice of pollfd
            // and `count` is its length.
            let ready = unsafe { libc::poll(fds.as_mut_ptr(), count, timeout) };
            if ready > 0 {
                return Ok(true);
            }
            if ready < 0 {
                let error = std::io::Error::last_os_error();
                if error.kind() != ErrorKind::Interrupted {
                    return Err(io_failure(error));
                }
            }
        }
    }

    fn pollfd(fd: RawFd, events: libc::c_short) -> libc::pollfd {
        libc::pollfd {
            fd,
            events,
            revents: 0,
        }
    }

    /// Writes the envelope while reading stdout to EOF (a child may answer
    /// before it has read everything, or never read at all).
    fn talk(
        child: &mut Child,
        envelope: &[u8],
        mut written: usize,
        limits: HookLimits,
        deadline: Instant,
        refused: &mut bool,
    ) -> Result<Vec<u8>, HookFailure> {
        let cap = limits.stdout_cap;
        let mut stdout: ChildStdout = child.stdout.take().ok_or(HookFailure::Io {
            error: "hook stdout was not piped".into(),
        })?;
        let mut stdin: Option<ChildStdin> = child.stdin.take().filter(|_| !envelope.is_empty());
        set_nonblocking(stdout.as_raw_fd())?;
        if let Some(pipe) = &stdin {
            set_nonblocking(pipe.as_raw_fd())?;
        }
        let mut out = Vec::with_capacity(4096);
        let mut chunk = [0u8; 16_384];
        loop {
            // poll(2) skips a negative descriptor: stdin once it is closed.
            let stdin_fd = stdin.as_ref().map_or(-1, |pipe| pipe.as_raw_fd());
            let mut fds = [
                pollfd(stdout.as_raw_fd(), libc::POLLIN),
                pollfd(stdin_fd, libc::POLLOUT),
            ];
            if !poll_until(&mut fds, deadline)? {
                return Err(timed_out(limits));
            }
            if fds[1].revents != 0 {
                if let Some(pipe) = stdin.as_mut() {
                    match pipe.write(&envelope[written..]) {
                        Ok(n) => written += n,
                        // A non-blocking write never sleeps, so it is never
                        // interrupted (EINTR); EAGAIN only means "poll again".
                        Err(error) if error.kind() == ErrorKind::WouldBlock => {}
                        // A child that exits without reading gives EPIPE; its
                        // stdout and status still decide the run.
                        Err(_) => {
                            *refused = written == 0;
                            written = envelope.len();
                        }
                    }
                }
                if written >= envelope.len() {
                    // Dropping the pipe closes it: the child sees EOF.
                    stdin = None;
                }
            }
            if fds[0].revents != 0 {
                loop {
                    match stdout.read(&mut chunk) {
                        Ok(0) => return Ok(out),
                        Ok(n) => {
                            out.extend_from_slice(&chunk[..n]);
                            if out.len() > cap {
                                return Err(HookFailure::OutputTooLarge { limit_bytes: cap });
                            }
                        }
                        // Drained for now (EAGAIN); as with the write, a
                        // non-blocking read is never interrupted.
                        Err(error) if error.kind() == ErrorKind::WouldBlock => break,
                        Err(error) => return Err(io_failure(error)),
                    }
                }
            }
        }
    }

    /// The exit status, waiting at most until `deadline` (`None` then). A
    /// child usually exits right after closing stdout, but one that closes it
    /// and lingers must not hold the caller past the limit.
    fn wait_until(child: &mut Child, deadline: Instant) -> Result<Option<ExitStatus>, HookFailure> {
        let exit = ExitPidfd::new(child.id());
        let mut backoff = Duration::from_micros(50);
        loop {
            if let Some(status) = child.try_wait().map_err(io_failure)? {
                return Ok(Some(status));
            }
            if remaining_ms(deadline).is_none() {
                return Ok(None);
            }
            if !exit.wait(deadline)? {
                // No pidfd: a short, growing sleep (bounded by the deadline).
                let left = deadline.saturating_duration_since(Instant::now());
                std::thread::sleep(backoff.min(left));
                backoff = (backoff * 2).min(Duration::from_millis(5));
            }
        }
    }

    /// A descriptor that becomes readable when the child exits: a pidfd on
    /// Linux (kernel 5.3+). Elsewhere, or when pidfd_open fails, there is
    /// none and [`wait_until`] falls back to sleeping (macOS has no pidfd;
    /// kqueue's EVFILT_PROC would be its equivalent).
    struct ExitPidfd(Option<std::os::fd::OwnedFd>);

    impl ExitPidfd {
        #[cfg(target_os = "linux")]
        fn new(pid: u32) -> Self {
            use std::os::fd::FromRawFd;
            let Ok(pid) = libc::pid_t::try_from(pid) else {
                return Self(None);
            };
            // SAFETY: pidfd_open takes a pid and flags and returns a new
            // descriptor (or -1); no memory is passed.
            let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
            match RawFd::try_from(fd) {
                // SAFETY: the kernel just returned this descriptor to us alone.
                Ok(fd) if fd >= 0 => Self(Some(unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) })),
                _ => Self(None),
            }
        }

        #[cfg(not(target_os = "linux"))]
        fn new(_pid: u32) -> Self {
            Self(None)
        }

        /// Waits for the exit or the deadline; `Ok(false)` when there is no
        /// descriptor to wait on.
        fn wait(&self, deadline: Instant) -> Result<bool, HookFailure> {
            let Some(fd) = &self.0 else {
                return Ok(false);
            };
            let mut fds = [pollfd(fd.as_raw_fd(), libc::POLLIN)];
            poll_until(&mut fds, deadline)?;
            Ok(true)
        }
    }

    /// Kills the child's process group and the child, then reaps it, so no
    /// zombie or stray process is left.
    pub(super) fn kill_and_reap(child: &mut Child) {
        if let Ok(pid) = libc::pid_t::try_from(child.id()) {
            // SAFETY: kill(2) with a negative pid signals the process group
            // the child leads (set at spawn); it touches no memory of ours.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// The tokio implementation, for platforms without the Unix poll loop. The
/// child runs as a [`ChildTree`](crate::platform::process_tree::ChildTree):
/// whatever it started is killed with it on failure, and when the tree is
/// dropped at the end of the exchange.
/// cargo-mutants reads source text, not #[cfg]: this module is not compiled
/// on Linux, so its mutants could change nothing there.
#[cfg(not(unix))]
#[cfg_attr(mutants, mutants::skip)]
mod portable {
    use std::process::{ExitStatus, Stdio};
    use std::sync::OnceLock;
    use std::time::Instant;

    use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
    use tokio::process::Command;
    use tokio::runtime::Runtime;

    use super::{limit_ms, HookFailure, HookLimits};
    use crate::platform::process_tree::ChildTree;

    /// The runtime every exchange of the process runs on, built by the first
    /// and never dropped: a call builds none, and the pipes' reads and
    /// writes reuse its blocking pool's threads. Its own worker drives the
    /// timers, so a deadline never depends on a caller's runtime being
    /// driven; one is enough, as the worker only wakes the waiting threads.
    fn runtime() -> Result<&'static Runtime, HookFailure> {
        static RUNTIME: OnceLock<Result<Runtime, String>> = OnceLock::new();
        RUNTIME
            .get_or_init(|| {
                tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(1)
                    .thread_name("pi-gortex-hook")
                    .enable_all()
                    .build()
                    .map_err(|error| error.to_string())
            })
            .as_ref()
            .map_err(|error| HookFailure::Io {
                error: error.clone(),
            })
    }

    /// As the Unix one, on the shared runtime, blocking the calling thread.
    pub(super) fn exchange_with(
        warm: Option<ChildTree>,
        argv: &[String],
        envelope: &[u8],
        limits: HookLimits,
        deadline: Instant,
    ) -> Result<Vec<u8>, HookFailure> {
        let deadline = tokio::time::Instant::from_std(deadline);
        runtime()?.block_on(exchange(warm, argv, envelope, limits, deadline))
    }

    /// As the Unix one: a spare that has exited or refused its stdin hands
    /// the envelope to a fresh child, within the same deadline.
    async fn exchange(
        warm: Option<ChildTree>,
        argv: &[String],
        envelope: &[u8],
        limits: HookLimits,
        deadline: tokio::time::Instant,
    ) -> Result<Vec<u8>, HookFailure> {
        if let Some(mut child) = warm {
            if matches!(child.try_wait(), Ok(None)) {
                let mut refused = false;
                let result = converse(&mut child, envelope, limits, deadline, &mut refused).await;
                let answered = matches!(&result, Ok(stdout) if !stdout.is_empty());
                if !refused || answered {
                    return result;
                }
            }
            child.kill();
        }
        let mut child = spawn(argv)?;
        converse(&mut child, envelope, limits, deadline, &mut false).await
    }

    /// Starts `argv` in a kill-on-close job, stdin and stdout piped, with
    /// the shared runtime entered, which tokio's process may ask of a spawn.
    pub(super) fn spawn(argv: &[String]) -> Result<ChildTree, HookFailure> {
        let (program, args) = super::split_program(argv)?;
        let mut command = Command::new(program);
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let _entered = runtime()?.enter();
        ChildTree::spawn(command).map_err(|error| HookFailure::Spawn {
            program: program.clone(),
            error: error.to_string(),
        })
    }

    async fn converse(
        child: &mut ChildTree,
        envelope: &[u8],
        limits: HookLimits,
        deadline: tokio::time::Instant,
        refused: &mut bool,
    ) -> Result<Vec<u8>, HookFailure> {
        let outcome =
            tokio::time::timeout_at(deadline, talk(child, envelope, limits.stdout_cap, refused))
                .await;
        let result = match outcome {
            Ok(Ok((stdout, status))) if status.success() => Ok(stdout),
            Ok(Ok((_, status))) => Err(HookFailure::ExitStatus {
                status: status.to_string(),
            }),
            Ok(Err(failure)) => Err(failure),
            Err(_elapsed) => Err(HookFailure::Timeout {
                limit_ms: limit_ms(limits),
            }),
        };
        if result.is_err() {
            child.kill();
            let _ = child.wait().await;
        }
        result
    }

    /// Writes the envelope while reading stdout to EOF, then waits for the
    /// child's exit (a child that answers and lingers meets the deadline).
    async fn talk(
        child: &mut ChildTree,
        envelope: &[u8],
        cap: usize,
        refused: &mut bool,
    ) -> Result<(Vec<u8>, ExitStatus), HookFailure> {
        let stdin = child.take_stdin();
        let stdout = child.take_stdout();
        let write = async move {
            if let Some(mut stdin) = stdin {
                *refused = stdin.write_all(envelope).await.is_err();
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

    async fn read_capped(
        reader: impl AsyncRead + Unpin,
        cap: usize,
    ) -> Result<Vec<u8>, HookFailure> {
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
}

/// The program and its arguments, both spawn mechanisms' first step. CFG-18:
/// only an absolute program runs; a bare name would be looked up by the OS in
/// the project.
fn split_program(argv: &[String]) -> Result<(&String, &[String]), HookFailure> {
    let (program, args) = argv.split_first().ok_or(HookFailure::EmptyArgv)?;
    crate::config::ensure_absolute(program.as_ref()).map_err(|error| HookFailure::Spawn {
        program: program.clone(),
        error: error.to_string(),
    })?;
    Ok((program, args))
}
