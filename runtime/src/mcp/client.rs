//! The own MCP stdio client: one `gortex mcp` child at a time.
//!
//! Ownership is the leak guard. Every child is spawned while the state lock
//! is held and only after checking that the client is not stopped, and it is
//! installed in the state in the same critical section; `stop()` marks the
//! client stopped and takes the child out in one critical section too. So a
//! child can never exist outside the state of a live client, and a stopped
//! client can never get one. The task that owns a child kills it when the client disappears, and
//! `kill_on_drop` covers a
//! runtime that shuts down under it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use pi_gortex_schema::mcp::{
    CancelledNotificationParams, ProgressNotificationParams, ProgressToken, RequestId,
};
use serde_json::value::RawValue;
use tokio::sync::{oneshot, watch, Notify};
use tokio_util::sync::CancellationToken;

use super::envelope;
use super::error::McpError;
use super::framing::MAX_FRAME_BYTES;
use super::handshake::{self, HandshakeInfo};
pub use super::routing::RawResponse;
use super::supervisor::{ChildOwner, ChildParts, Supervisor};
use super::transport::child_process::{self, ChildSpec};
use super::transport::outbound::{Outbound, MAX_BACKLOG_BYTES};
use crate::sync::lock;

pub use super::routing::LIST_CHANGED;

/// Per-kind timeouts and delays. Tests shorten them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// `initialize` (60 s).
    pub initialize: Duration,
    /// Every request but `initialize` and `tools/call` (30 s).
    pub rpc: Duration,
    /// `tools/call` (600 s).
    pub call: Duration,
    /// SIGTERM to SIGKILL (2 s).
    pub kill_grace: Duration,
    /// Wait before the one start retry (1 s).
    pub retry_backoff: Duration,
    /// After the child exits, how long its last stdout and stderr bytes are
    /// still awaited (a grandchild may hold the pipes open).
    pub exit_drain: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self {
            initialize: Duration::from_millis(60_000),
            rpc: Duration::from_millis(30_000),
            call: Duration::from_millis(600_000),
            kill_grace: Duration::from_millis(2_000),
            retry_backoff: Duration::from_millis(1_000),
            exit_drain: Duration::from_millis(200),
        }
    }
}

impl Timeouts {
    /// The timeout of one method.
    pub fn for_method(&self, method: &str) -> Duration {
        match method {
            "initialize" => self.initialize,
            "tools/call" => self.call,
            _ => self.rpc,
        }
    }
}

/// How to run the child.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientConfig {
    /// The executable (`gortex`, or an absolute path).
    pub bin: std::ffi::OsString,
    /// Arguments; `["mcp"]` for the daemon.
    pub args: Vec<std::ffi::OsString>,
    /// Variables added to the inherited environment.
    pub extra_env: Vec<(std::ffi::OsString, std::ffi::OsString)>,
    /// Working directory; `None` inherits the host's.
    pub cwd: Option<std::path::PathBuf>,
    /// Timeouts.
    pub timeouts: Timeouts,
    /// Frame cap in bytes.
    pub max_frame_bytes: usize,
    /// Bound of the unwritten stdin backlog in bytes.
    pub max_backlog_bytes: usize,
}

impl ClientConfig {
    /// `<bin> mcp` with the spec's defaults.
    pub fn new(bin: impl Into<std::ffi::OsString>) -> Self {
        Self {
            bin: bin.into(),
            args: vec!["mcp".into()],
            extra_env: Vec::new(),
            cwd: None,
            timeouts: Timeouts::default(),
            max_frame_bytes: MAX_FRAME_BYTES,
            max_backlog_bytes: MAX_BACKLOG_BYTES,
        }
    }
}

/// A task of the client that a test can make panic.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientTask {
    /// The task that owns the child and reads its stdout.
    Supervisor,
    /// The task that writes the stdin backlog.
    StdinWriter,
}

/// Called for every `notifications/tools/list_changed`.
pub type ListChangedHandler = Arc<dyn Fn() + Send + Sync>;

/// Called for every `notifications/progress` about one request.
pub type ProgressHandler = Arc<dyn Fn(&ProgressNotificationParams) + Send + Sync>;

/// Where the progress of one request goes: its timer and its handler.
struct ProgressSink {
    rearm: Arc<Notify>,
    handler: ProgressHandler,
}

pub(super) type Settlement = Result<RawResponse, McpError>;

/// The client. Cheap to clone; all clones drive the same child.
#[derive(Clone)]
pub struct McpClient {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for McpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpClient")
            .field("pid", &self.pid())
            .finish_non_exhaustive()
    }
}

pub(super) struct Shared {
    config: ClientConfig,
    next_id: AtomicU64,
    state: Mutex<State>,
    /// Serializes spawns so concurrent callers share one respawn.
    respawn_gate: tokio::sync::Mutex<Option<McpError>>,
    respawn_generation: AtomicU64,
    stopped: CancellationToken,
    list_changed: Mutex<Option<ListChangedHandler>>,
    pub(super) noise_lines: AtomicU64,
    /// Test-only: the supervisor panics on its next inbound chunk.
    pub(super) debug_supervisor_panic: AtomicBool,
}

enum Phase {
    NotStarted,
    Running {
        connection: Arc<Connection>,
        /// The handshake on this child has completed.
        ready: bool,
    },
    Exited(McpError),
    Stopped,
}

struct State {
    phase: Phase,
    pending: HashMap<u64, oneshot::Sender<Settlement>>,
    /// Requests sent with a progress token (their id), while they wait.
    progress: HashMap<u64, ProgressSink>,
    generation: u64,
}

/// One child and the channels into its tasks.
pub(super) struct Connection {
    generation: u64,
    pid: u32,
    outbound: Arc<Outbound>,
    frames_seen: Arc<AtomicU64>,
    kill: Mutex<Option<oneshot::Sender<()>>>,
    reaped: watch::Receiver<bool>,
}

impl Connection {
    fn request_kill(&self) {
        if let Some(kill) = lock(&self.kill).take() {
            let _ = kill.send(());
        }
    }

    async fn wait_reaped(&self) {
        let mut reaped = self.reaped.clone();
        let _ = reaped.wait_for(|reaped| *reaped).await;
    }
}

impl McpClient {
    /// A client that has not spawned anything yet.
    pub fn new(config: ClientConfig) -> Self {
        Self {
            shared: Arc::new(Shared {
                config,
                next_id: AtomicU64::new(1),
                state: Mutex::new(State {
                    phase: Phase::NotStarted,
                    pending: HashMap::new(),
                    progress: HashMap::new(),
                    generation: 0,
                }),
                respawn_gate: tokio::sync::Mutex::new(None),
                respawn_generation: AtomicU64::new(0),
                stopped: CancellationToken::new(),
                list_changed: Mutex::new(None),
                noise_lines: AtomicU64::new(0),
                debug_supervisor_panic: AtomicBool::new(false),
            }),
        }
    }

    /// Spawns and initializes, retrying once after the backoff.
    pub async fn start(&self) -> Result<HandshakeInfo, McpError> {
        let first = self.shared.start_attempt().await;
        if first.is_ok() || self.is_stopped() {
            return first;
        }
        tokio::select! {
            _ = tokio::time::sleep(self.shared.config.timeouts.retry_backoff) => {}
            _ = self.shared.stopped.cancelled() => return Err(McpError::Stopped),
        }
        self.shared.start_attempt().await
    }

    /// Sends one request and awaits its settlement, respawning first when
    /// the child has exited. `abort` cancels it; a token
    /// already cancelled means the request is never sent, and no child is
    /// spawned for it.
    pub async fn request(
        &self,
        method: &str,
        params: &RawValue,
        abort: Option<&CancellationToken>,
    ) -> Result<RawResponse, McpError> {
        self.request_with_progress(method, params, abort, None)
            .await
    }

    /// [`McpClient::request`] with a progress token: every
    /// `notifications/progress` for it goes to `progress` and re-arms its
    /// timeout. `params` must be an object.
    pub async fn request_with_progress(
        &self,
        method: &str,
        params: &RawValue,
        abort: Option<&CancellationToken>,
        progress: Option<ProgressHandler>,
    ) -> Result<RawResponse, McpError> {
        refuse_if_aborted(abort)?;
        let connection = self.shared.ensure_running().await?;
        let sent = self
            .shared
            .begin_request_with(&connection, method, params, abort, progress)?;
        sent.settled(abort).await
    }

    /// The request written now, on the caller's thread, when the child is
    /// up and its handshake done; `None` when nothing was sent (no ready
    /// child, stopped, or already aborted), and [`McpClient::request`] must
    /// take over, which respawns or reports why. The reply is then awaited
    /// with [`SentRequest::settled`]. This lets a caller outside the runtime
    /// start a call without first waking a runtime thread.
    pub fn try_send(
        &self,
        method: &str,
        params: &RawValue,
        abort: Option<&CancellationToken>,
        progress: Option<ProgressHandler>,
    ) -> Option<SentRequest> {
        refuse_if_aborted(abort).ok()?;
        let connection = self.shared.ready_connection().ok()??;
        self.shared
            .begin_request_with(&connection, method, params, abort, progress)
            .ok()
    }

    /// Sends a notification, best effort.
    pub fn notify(&self, method: &str, params: &RawValue) -> Result<(), McpError> {
        let connection = self.shared.current_connection()?;
        connection
            .outbound
            .send(envelope::notification_frame(method, params));
        Ok(())
    }

    /// Sets (or clears) the list-changed callback.
    pub fn set_list_changed_handler(&self, handler: Option<ListChangedHandler>) {
        *lock(&self.shared.list_changed) = handler;
    }

    /// Marks the client stopped, rejects everything pending, and kills and
    /// reaps the child before returning. Final.
    pub async fn stop(&self) {
        self.shared.stopped.cancel();
        let connection = {
            let mut state = lock(&self.shared.state);
            let previous = std::mem::replace(&mut state.phase, Phase::Stopped);
            reject_all(&mut state, &McpError::Stopped);
            match previous {
                Phase::Running { connection, .. } => Some(connection),
                _ => None,
            }
        };
        if let Some(connection) = connection {
            connection.request_kill();
            connection.wait_reaped().await;
        }
    }

    /// True once `stop()` was called.
    pub fn is_stopped(&self) -> bool {
        self.shared.stopped.is_cancelled()
    }

    /// The live child's pid, if any.
    pub fn pid(&self) -> Option<u32> {
        match &lock(&self.shared.state).phase {
            Phase::Running { connection, .. } => Some(connection.pid),
            _ => None,
        }
    }

    /// The reason the client is currently marked exited, if it is.
    #[cfg(any(test, feature = "test-support"))]
    pub fn exit_reason(&self) -> Option<McpError> {
        match &lock(&self.shared.state).phase {
            Phase::Exited(reason) => Some(reason.clone()),
            Phase::Stopped => Some(McpError::Stopped),
            _ => None,
        }
    }

    /// Inbound lines skipped as noise so far, for diagnosis.
    pub fn noise_lines(&self) -> u64 {
        self.shared.noise_lines.load(Ordering::Relaxed)
    }

    /// Requests awaiting a settlement.
    #[cfg(any(test, feature = "test-support"))]
    pub fn pending_count(&self) -> usize {
        lock(&self.shared.state).pending.len()
    }

    /// Test-only: makes one of the live child's tasks panic. The
    /// supervisor does so on its next inbound chunk, the stdin writer at
    /// once.
    #[doc(hidden)]
    pub fn debug_force_task_panic(&self, task: ClientTask) {
        match task {
            ClientTask::Supervisor => self
                .shared
                .debug_supervisor_panic
                .store(true, Ordering::SeqCst),
            ClientTask::StdinWriter => {
                if let Ok(connection) = self.shared.current_connection() {
                    connection.outbound.debug_force_flusher_panic();
                }
            }
        }
    }
}

/// A request whose token is already cancelled is refused unsent.
fn refuse_if_aborted(abort: Option<&CancellationToken>) -> Result<(), McpError> {
    match abort.is_some_and(CancellationToken::is_cancelled) {
        true => Err(McpError::Aborted),
        false => Ok(()),
    }
}

/// The timer of a request fired. While the entry was
/// still pending the request timed out (`None`). When the supervisor had
/// already taken the entry out, the reply arrived first and its settlement
/// is being sent right now (removal and send are one synchronous step on the
/// supervisor's side), so it is awaited and wins.
pub(super) async fn settlement_after_timer(
    was_pending: bool,
    settled: oneshot::Receiver<Settlement>,
) -> Option<Settlement> {
    if was_pending {
        return None;
    }
    settled.await.ok()
}

/// A spawn that fails marks the client exited with `gortex mcp spawn
/// failed` (the OS error kept as detail) and rejects everything pending.
fn mark_spawn_failed(state: &mut State, error: &dyn std::fmt::Display) -> McpError {
    let failure = McpError::SpawnFailed {
        detail: error.to_string(),
    };
    state.phase = Phase::Exited(failure.clone());
    reject_all(state, &failure);
    failure
}

fn reject_all(state: &mut State, reason: &McpError) {
    for (_, settle) in state.pending.drain() {
        let _ = settle.send(Err(reason.clone()));
    }
}

/// A request whose frame is already written to the child: [`SentRequest::settled`]
/// awaits its reply, its timeout or an abort. Dropping it
/// unsettled withdraws the pending entry, so a reply that comes later is
/// ignored.
pub struct SentRequest {
    shared: Arc<Shared>,
    connection: Arc<Connection>,
    method: String,
    id: u64,
    /// Frames seen from the child before this one was written.
    frames_before: u64,
    settled: Option<oneshot::Receiver<Settlement>>,
    /// The pending entry is known to be gone, so no lock is needed.
    done: bool,
    /// Re-armed by each progress notification, when sent with a token.
    rearm: Option<Arc<Notify>>,
}

impl std::fmt::Debug for SentRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SentRequest")
            .field("method", &self.method)
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl Drop for SentRequest {
    fn drop(&mut self) {
        if !self.done || self.rearm.is_some() {
            let mut state = lock(&self.shared.state);
            state.pending.remove(&self.id);
            state.progress.remove(&self.id);
        }
    }
}

impl SentRequest {
    /// Awaits the settlement: the reply, the method's timeout, or `abort`.
    pub async fn settled(
        mut self,
        abort: Option<&CancellationToken>,
    ) -> Result<RawResponse, McpError> {
        let Some(mut settled) = self.settled.take() else {
            return Err(McpError::NotRunning);
        };
        let shared = self.shared.clone();
        let connection = self.connection.clone();
        let id = self.id;
        let timeout = shared.config.timeouts.for_method(&self.method);
        let aborted = async {
            match abort {
                Some(token) => token.cancelled().await,
                None => std::future::pending().await,
            }
        };
        tokio::pin!(aborted);
        let timer = tokio::time::sleep(timeout);
        tokio::pin!(timer);
        let rearm = self.rearm.clone();
        loop {
            let rearmed = async {
                match &rearm {
                    Some(rearm) => rearm.notified().await,
                    None => std::future::pending().await,
                }
            };
            return tokio::select! {
                biased;
                outcome = &mut settled => {
                    // Whoever sent the settlement removed the entry.
                    self.done = true;
                    outcome.unwrap_or(Err(McpError::NotRunning))
                }
                _ = rearmed => {
                    // The server reported progress, so the timeout starts over.
                    timer.as_mut().reset(tokio::time::Instant::now() + timeout);
                    continue;
                }
                _ = &mut timer => {
                    let was_pending = lock(&shared.state).pending.remove(&id).is_some();
                    self.done = true;
                    if let Some(outcome) = settlement_after_timer(was_pending, settled).await {
                        return outcome;
                    }
                    if connection.frames_seen.load(Ordering::SeqCst) == self.frames_before {
                        let wedged = McpError::Wedged { method: self.method.clone() };
                        if let Some(connection) = shared.mark_exited(connection.generation, wedged) {
                            connection.request_kill();
                        }
                    }
                    Err(McpError::Timeout { method: self.method.clone(), ms: timeout.as_millis() })
                }
                _ = &mut aborted => {
                    lock(&shared.state).pending.remove(&id);
                    self.done = true;
                    let params = CancelledNotificationParams {
                        request_id: RequestId::Integer(i64::try_from(id).unwrap_or(i64::MAX)),
                        reason: Some("aborted by the user".to_string()),
                        extra: serde_json::Map::new(),
                    };
                    if let Ok(params) = serde_json::value::to_raw_value(&params) {
                        connection.outbound.send(envelope::notification_frame(
                            "notifications/cancelled",
                            &params,
                        ));
                    }
                    Err(McpError::Aborted)
                }
            };
        }
    }
}

impl ChildOwner for Shared {
    fn child_exited(&self, generation: u64, reason: McpError) {
        self.mark_exited(generation, reason);
    }

    fn respond(&self, id: u64, outcome: Result<RawResponse, (Option<i64>, String)>) {
        self.settle(id, move || {
            outcome.map_err(|(code, message)| McpError::Rpc { code, message })
        });
    }

    fn list_changed(&self) {
        self.notify_list_changed();
    }

    fn progress(&self, params: &ProgressNotificationParams) {
        self.notify_progress(params);
    }

    fn noise_line(&self) {
        self.noise_lines.fetch_add(1, Ordering::Relaxed);
    }

    fn panic_requested(&self) -> bool {
        self.debug_supervisor_panic.load(Ordering::SeqCst)
    }
}

impl Shared {
    /// The ready connection, `None` when one must be (re)spawned.
    fn ready_connection(&self) -> Result<Option<Arc<Connection>>, McpError> {
        match &lock(&self.state).phase {
            Phase::Running {
                connection,
                ready: true,
            } => Ok(Some(connection.clone())),
            Phase::Stopped => Err(McpError::Stopped),
            _ => Ok(None),
        }
    }

    /// Any live connection, ready or not.
    fn current_connection(&self) -> Result<Arc<Connection>, McpError> {
        match &lock(&self.state).phase {
            Phase::Running { connection, .. } => Ok(connection.clone()),
            Phase::Stopped => Err(McpError::Stopped),
            _ => Err(McpError::NotRunning),
        }
    }

    /// One `start()` attempt: reuse a live child or spawn one, then handshake.
    async fn start_attempt(self: &Arc<Self>) -> Result<HandshakeInfo, McpError> {
        let _gate = self.respawn_gate.lock().await;
        let connection = match self.current_connection() {
            Ok(connection) => connection,
            Err(McpError::Stopped) => return Err(McpError::Stopped),
            Err(_) => self.spawn_connection()?,
        };
        self.handshake(&connection).await
    }

    /// The ready connection, respawning once for every concurrent caller
    /// when there is none.
    async fn ensure_running(self: &Arc<Self>) -> Result<Arc<Connection>, McpError> {
        let respawn_seen = self.respawn_generation.load(Ordering::SeqCst);
        if let Some(connection) = self.ready_connection()? {
            return Ok(connection);
        }
        let mut last_failure = self.respawn_gate.lock().await;
        if let Some(connection) = self.ready_connection()? {
            return Ok(connection);
        }
        if self.respawn_generation.load(Ordering::SeqCst) != respawn_seen {
            if let Some(failure) = last_failure.clone() {
                return Err(failure);
            }
        }
        let outcome = self.respawn().await;
        *last_failure = outcome.as_ref().err().cloned();
        self.respawn_generation.fetch_add(1, Ordering::SeqCst);
        outcome
    }

    /// Spawn and handshake once, without the version check or a retry.
    async fn respawn(self: &Arc<Self>) -> Result<Arc<Connection>, McpError> {
        let connection = self.spawn_connection()?;
        match self.handshake(&connection).await {
            Ok(_) => Ok(connection),
            Err(failure) => {
                // A child that failed its handshake must not linger half-open.
                if let Some(connection) = self.mark_exited(connection.generation, failure.clone()) {
                    connection.request_kill();
                }
                Err(failure)
            }
        }
    }

    async fn handshake(
        self: &Arc<Self>,
        connection: &Arc<Connection>,
    ) -> Result<HandshakeInfo, McpError> {
        let params = handshake::initialize_params();
        let sent = self.begin_request_with(connection, "initialize", &params, None, None)?;
        let result = sent.settled(None).await?;
        let info = handshake::read_handshake(result.json());
        let empty = RawValue::from_string("{}".to_string()).expect("valid JSON");
        connection.outbound.send(envelope::notification_frame(
            "notifications/initialized",
            &empty,
        ));
        let mut state = lock(&self.state);
        if let Phase::Running {
            connection: current,
            ready,
        } = &mut state.phase
        {
            if current.generation == connection.generation {
                *ready = true;
                return Ok(info);
            }
        }
        Err(match &state.phase {
            Phase::Exited(reason) => reason.clone(),
            Phase::Stopped => McpError::Stopped,
            _ => McpError::NotRunning,
        })
    }

    /// Spawns a child and installs it, in one critical section with the
    /// stopped check (see the module comment).
    fn spawn_connection(self: &Arc<Self>) -> Result<Arc<Connection>, McpError> {
        let mut state = lock(&self.state);
        match &state.phase {
            Phase::Stopped => return Err(McpError::Stopped),
            Phase::Running { connection, .. } => {
                // A leftover from a failed handshake: replaced, never leaked.
                connection.request_kill();
            }
            _ => {}
        }
        let spec = ChildSpec {
            program: self.config.bin.clone(),
            args: self.config.args.clone(),
            extra_env: self.config.extra_env.clone(),
            cwd: self.config.cwd.clone(),
        };
        let spawned = match child_process::spawn_piped(&spec) {
            Ok(spawned) => spawned,
            Err(error) => return Err(mark_spawn_failed(&mut state, &error)),
        };
        let (outbound, flusher) = match Outbound::new(spawned.stdin, self.config.max_backlog_bytes)
        {
            Ok(pair) => pair,
            Err(error) => return Err(mark_spawn_failed(&mut state, &error)),
        };
        state.generation += 1;
        let generation = state.generation;
        let (kill, kill_rx) = oneshot::channel();
        let (reaped_tx, reaped) = watch::channel(false);
        let frames_seen = Arc::new(AtomicU64::new(0));
        let connection = Arc::new(Connection {
            generation,
            pid: spawned.pid,
            outbound: outbound.clone(),
            frames_seen: frames_seen.clone(),
            kill: Mutex::new(Some(kill)),
            reaped,
        });
        let writer = tokio::spawn(flusher);
        let supervisor = Supervisor {
            shared: Arc::downgrade(self) as Weak<dyn ChildOwner>,
            generation,
            outbound,
            frames_seen,
            max_frame_bytes: self.config.max_frame_bytes,
            kill_grace: self.config.timeouts.kill_grace,
            exit_drain: self.config.timeouts.exit_drain,
        };
        tokio::spawn(supervisor.run(ChildParts {
            child: spawned.child,
            stdout: spawned.stdout,
            stderr_tail: spawned.stderr_tail,
            stderr_drain: spawned.stderr_drain,
            writer,
            kill_rx,
            reaped_tx,
        }));
        reject_all(&mut state, &McpError::NotRunning);
        state.phase = Phase::Running {
            connection: connection.clone(),
            ready: false,
        };
        Ok(connection)
    }

    /// Marks the client exited if `generation` is still the live child, rejecting every pending
    /// request. Returns that child.
    pub(super) fn mark_exited(&self, generation: u64, reason: McpError) -> Option<Arc<Connection>> {
        let mut state = lock(&self.state);
        let current = match &state.phase {
            Phase::Running { connection, .. } if connection.generation == generation => {
                connection.clone()
            }
            _ => return None,
        };
        reject_all(&mut state, &reason);
        state.phase = Phase::Exited(reason);
        Some(current)
    }

    /// The synchronous half of a request: registers it as pending and
    /// writes its frame now, on the caller's thread. With `progress`, the
    /// params carry the request id as `_meta.progressToken`.
    fn begin_request_with(
        self: &Arc<Self>,
        connection: &Arc<Connection>,
        method: &str,
        params: &RawValue,
        abort: Option<&CancellationToken>,
        progress: Option<ProgressHandler>,
    ) -> Result<SentRequest, McpError> {
        // An abort that came first (while Pi's file locks were
        // being taken, say) means the request is never written.
        refuse_if_aborted(abort)?;
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (settle, settled) = oneshot::channel();
        let rearm = progress.as_ref().map(|_| Arc::new(Notify::new()));
        let with_token;
        let params = match &progress {
            Some(_) => {
                with_token = with_progress_token(params, id);
                &*with_token
            }
            None => params,
        };
        {
            let mut state = lock(&self.state);
            match &state.phase {
                Phase::Running {
                    connection: current,
                    ..
                } if current.generation == connection.generation => {}
                Phase::Exited(reason) => return Err(reason.clone()),
                Phase::Stopped => return Err(McpError::Stopped),
                _ => return Err(McpError::NotRunning),
            }
            state.pending.insert(id, settle);
            if let (Some(handler), Some(rearm)) = (progress.clone(), rearm.clone()) {
                state.progress.insert(id, ProgressSink { rearm, handler });
            }
        }
        // Built before the write, so a dropped request never leaves its
        // pending entry behind.
        let sent = SentRequest {
            shared: self.clone(),
            connection: connection.clone(),
            method: method.to_string(),
            id,
            frames_before: connection.frames_seen.load(Ordering::SeqCst),
            settled: Some(settled),
            done: false,
            rearm,
        };
        connection
            .outbound
            .send(envelope::request_frame(id, method, params));
        Ok(sent)
    }

    /// Settles a pending request; a reply nobody waits for is ignored.
    pub(super) fn settle(&self, id: u64, build: impl FnOnce() -> Settlement) {
        let Some(settle) = lock(&self.state).pending.remove(&id) else {
            return;
        };
        let _ = settle.send(build());
    }

    /// A progress notification re-arms its request's timer and goes
    /// to its handler; one about no waiting request is ignored.
    pub(super) fn notify_progress(&self, params: &ProgressNotificationParams) {
        let ProgressToken::Integer(token) = params.progress_token else {
            return;
        };
        let Ok(id) = u64::try_from(token) else {
            return;
        };
        let sink = lock(&self.state)
            .progress
            .get(&id)
            .map(|sink| (sink.rearm.clone(), sink.handler.clone()));
        if let Some((rearm, handler)) = sink {
            rearm.notify_one();
            // A panicking callback must not take the reader down.
            crate::guard::guard_sync(|| (), || handler(params));
        }
    }

    pub(super) fn notify_list_changed(&self) {
        let handler = lock(&self.list_changed).clone();
        if let Some(handler) = handler {
            // A panicking callback must not take the reader down.
            crate::guard::guard_sync(|| (), || handler());
        }
    }
}

/// `params` (an object) with `_meta.progressToken` set to `id`, other
/// `_meta` members kept; an object of its own when `params` is not one.
fn with_progress_token(params: &RawValue, id: u64) -> Box<RawValue> {
    let mut object: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(params.get()).unwrap_or_default();
    let meta = object
        .entry("_meta")
        .or_insert_with(|| serde_json::Value::Object(serde_json::Map::new()));
    if !meta.is_object() {
        *meta = serde_json::Value::Object(serde_json::Map::new());
    }
    if let Some(meta) = meta.as_object_mut() {
        meta.insert("progressToken".into(), id.into());
    }
    serde_json::value::to_raw_value(&object).unwrap_or_else(|_| params.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The supervisor took the entry out (the reply won)
    /// but has not sent the settlement yet when the timer's branch looks:
    /// the reply is still what the caller gets, not a timeout.
    #[tokio::test(flavor = "current_thread")]
    async fn a_reply_racing_its_timeout_is_reported_as_the_reply() {
        let (settle, settled) = oneshot::channel::<Settlement>();
        let reply = RawResponse::from_json(br#"{"content":[]}"#.to_vec());
        let sent = reply.clone();
        // Runs only once the timer side is waiting, as on another thread.
        tokio::spawn(async move {
            tokio::task::yield_now().await;
            let _ = settle.send(Ok(sent));
        });
        let outcome = settlement_after_timer(false, settled).await;
        assert_eq!(outcome, Some(Ok(reply)));
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_timer_that_finds_the_entry_pending_is_a_timeout() {
        let (_settle, settled) = oneshot::channel::<Settlement>();
        assert_eq!(settlement_after_timer(true, settled).await, None);
    }
}
