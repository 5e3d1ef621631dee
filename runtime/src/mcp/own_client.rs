//! One own-client session: start, skew report, catalogue, re-sync, tool
//! calls, stop.
//!
//! The own client is created before anything is spawned, so the session layer can
//! put it in its slot before the first suspension point and stop it from
//! another invocation while `start()` is still running. A stopped
//! own client stops its client, which is final: nothing can respawn afterwards.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use pi_gortex_schema::host::ModelContent;
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::call_result::{take_call_result, CallResultText};
use super::client::{ClientConfig, McpClient, ProgressHandler, SentRequest, Timeouts};
use super::content::joined_text;
use super::daemon::launch_daemon;
use super::error::McpError;
use super::framing::MAX_FRAME_BYTES;
use super::routing::RawResponse;
use super::tools;
use crate::catalogue::{CatalogueChanges, CatalogueState};
use crate::sync::lock;
use crate::version::{skew_warning, SkewWarning};

/// Quiet time that ends a burst of `list_changed` notifications.
pub const SYNC_DEBOUNCE: Duration = Duration::from_millis(200);

/// `list_changed` signals held for the debounce at most.
/// One is enough: a queued signal already guarantees the re-sync that every
/// later notification of the burst asks for, so at the bound a notification
/// is merged into the queued one instead of growing a queue without end.
pub const LIST_CHANGED_QUEUE: usize = 1;

/// The daemon tool whose call awaits its own re-sync.
pub const TOOLS_SEARCH: &str = "tools_search";

/// How to run one session's own client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnClientConfig {
    /// The resolved `bin`.
    pub bin: OsString,
    /// The preset environment of the configuration.
    pub extra_env: Vec<(OsString, OsString)>,
    /// Working directory of the children; `None` inherits the host's.
    pub cwd: Option<PathBuf>,
    /// Client timeouts.
    pub timeouts: Timeouts,
    /// List-changed debounce.
    pub sync_debounce: Duration,
    /// Run `<bin> daemon start --detach` first.
    pub launch_daemon: bool,
    /// Frame cap.
    pub max_frame_bytes: usize,
}

impl OwnClientConfig {
    /// The spec's defaults for `bin`.
    pub fn new(bin: impl Into<OsString>) -> Self {
        Self {
            bin: bin.into(),
            extra_env: Vec::new(),
            cwd: None,
            timeouts: Timeouts::default(),
            sync_debounce: SYNC_DEBOUNCE,
            launch_daemon: true,
            max_frame_bytes: MAX_FRAME_BYTES,
        }
    }
}

/// What a successful start found.
#[derive(Debug, Clone, PartialEq)]
pub struct StartReport {
    /// `serverInfo.version`, or `""`.
    pub server_version: String,
    /// The negotiated protocol, or `""`.
    pub protocol: String,
    /// The version skew report, when a condition holds.
    pub skew: Option<SkewWarning>,
    /// The first listing's registrations.
    pub catalogue_changes: CatalogueChanges,
}

/// A finished tool call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallOutcome {
    /// The text blocks of `content` joined (step 6); when `is_error`, the
    /// error text to throw (step 7: the text, or `gortex <name> failed` when
    /// it is empty).
    pub text: String,
    /// The blocks the model reads, within the output limit.
    pub content: Vec<ModelContent>,
    /// The daemon's `result` as it arrived; `.to_value()` decodes it.
    pub raw_result: RawResponse,
    /// `result.isError` was true: the glue throws `text`.
    pub is_error: bool,
    /// `result.structuredContent`, kept for the result's details.
    pub structured_content: Option<Value>,
    /// What the `tools_search` re-sync changed (step 5); `None` for other
    /// tools. These changes are not also sent to the listener.
    pub catalogue_changes: Option<CatalogueChanges>,
}

/// Why an own client operation failed. `Display` is the text the model sees.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OwnClientError {
    /// `start()` failed; the own client is stopped.
    #[error("{0}")]
    Start(McpError),
    /// No live client.
    #[error("gortex {name}: MCP bridge is not connected")]
    NotConnected {
        /// The bare daemon name.
        name: String,
    },
    /// A transport failure.
    #[error("gortex {name} failed: {source}")]
    CallFailed {
        /// The bare daemon name.
        name: String,
        /// The client's rejection.
        source: McpError,
    },
}

/// A tool call already written to the daemon ([`OwnClient::send_call`]).
#[derive(Debug)]
pub struct SentCall {
    /// The daemon's name of the tool.
    name: String,
    sent: SentRequest,
}

/// Receives the changes of every debounced re-sync.
pub type CatalogueListener = Arc<dyn Fn(CatalogueChanges) + Send + Sync>;

/// One session's own client. Cheap to clone.
#[derive(Clone)]
pub struct OwnClient {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for OwnClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OwnClient")
            .field("client", &self.inner.client)
            .finish_non_exhaustive()
    }
}

struct Inner {
    config: OwnClientConfig,
    client: McpClient,
    catalogue: Mutex<CatalogueState>,
    /// Serializes listings so their changes apply in order.
    sync_gate: tokio::sync::Mutex<()>,
    listener: Mutex<Option<CatalogueListener>>,
    debounce_task: Mutex<Option<JoinHandle<()>>>,
    started: std::sync::atomic::AtomicBool,
    stopped: CancellationToken,
    /// Test-only: the next debounced re-sync panics.
    debug_resync_panic: std::sync::atomic::AtomicBool,
}

impl OwnClient {
    /// An own client that has spawned nothing yet.
    pub fn new(config: OwnClientConfig) -> Self {
        let client = McpClient::new(ClientConfig {
            bin: config.bin.clone(),
            args: vec!["mcp".into()],
            extra_env: config.extra_env.clone(),
            cwd: config.cwd.clone(),
            timeouts: config.timeouts,
            max_frame_bytes: config.max_frame_bytes,
            max_backlog_bytes: super::transport::outbound::MAX_BACKLOG_BYTES,
        });
        Self {
            inner: Arc::new(Inner {
                config,
                client,
                catalogue: Mutex::new(CatalogueState::new()),
                sync_gate: tokio::sync::Mutex::new(()),
                listener: Mutex::new(None),
                debounce_task: Mutex::new(None),
                started: std::sync::atomic::AtomicBool::new(false),
                stopped: CancellationToken::new(),
                debug_resync_panic: std::sync::atomic::AtomicBool::new(false),
            }),
        }
    }

    /// Launches the daemon, starts the client (one retry), reports skew,
    /// wires the debounce, and runs the first listing. Any failure stops the
    /// own client. Call once.
    pub async fn start(&self) -> Result<StartReport, OwnClientError> {
        let outcome = self.start_steps().await;
        if outcome.is_err() {
            self.stop().await;
        }
        outcome
    }

    async fn start_steps(&self) -> Result<StartReport, OwnClientError> {
        let inner = &self.inner;
        if inner
            .started
            .swap(true, std::sync::atomic::Ordering::SeqCst)
        {
            return Err(OwnClientError::Start(McpError::NotRunning));
        }
        if inner.stopped.is_cancelled() {
            return Err(OwnClientError::Start(McpError::Stopped));
        }
        if inner.config.launch_daemon {
            launch_daemon(
                &inner.config.bin,
                &inner.config.extra_env,
                inner.config.cwd.as_ref(),
            );
        }
        let handshake = inner.client.start().await.map_err(OwnClientError::Start)?;
        let skew = skew_warning(&handshake.server_version, &handshake.protocol);
        self.wire_debounce();
        let catalogue_changes = inner.sync().await.map_err(OwnClientError::Start)?;
        Ok(StartReport {
            server_version: handshake.server_version,
            protocol: handshake.protocol,
            skew,
            catalogue_changes,
        })
    }

    /// Sets the receiver of debounced re-sync changes (replacing any other).
    pub fn set_catalogue_listener(&self, listener: Option<CatalogueListener>) {
        *lock(&self.inner.listener) = listener;
    }

    /// Calls a tool by its registered name.
    pub async fn call_tool(
        &self,
        registered_name: &str,
        arguments: Value,
        abort: Option<&CancellationToken>,
    ) -> Result<ToolCallOutcome, OwnClientError> {
        self.call_tool_with_progress(registered_name, arguments, abort, None)
            .await
    }

    /// [`Self::call_tool`] whose progress notifications go to `progress`; pass it through
    /// [`throttled`] for a user interface.
    pub async fn call_tool_with_progress(
        &self,
        registered_name: &str,
        arguments: Value,
        abort: Option<&CancellationToken>,
        progress: Option<ProgressHandler>,
    ) -> Result<ToolCallOutcome, OwnClientError> {
        let name = self.connected_name(registered_name)?;
        let params = tools::call_params(&name, arguments);
        let result = self
            .inner
            .client
            .request_with_progress(tools::CALL_METHOD, &params, abort, progress)
            .await;
        self.outcome(name, result).await
    }

    /// The call's request written now, on the caller's thread, when the
    /// daemon is connected and ready; `None` when [`Self::call_tool`] must
    /// run instead (not connected, a respawn needed, already aborted), and
    /// then nothing was sent. [`Self::finish_call`] awaits the reply. The
    /// addon starts a call this way so that the daemon works on it while the
    /// runtime's thread is still waking.
    pub fn send_call(
        &self,
        registered_name: &str,
        arguments: Value,
        abort: Option<&CancellationToken>,
    ) -> Option<SentCall> {
        self.send_call_with_progress(registered_name, arguments, abort, None)
    }

    /// [`Self::send_call`] whose progress notifications go to `progress`.
    pub fn send_call_with_progress(
        &self,
        registered_name: &str,
        arguments: Value,
        abort: Option<&CancellationToken>,
        progress: Option<ProgressHandler>,
    ) -> Option<SentCall> {
        let name = self.connected_name(registered_name).ok()?;
        let params = tools::call_params(&name, arguments);
        let sent = self
            .inner
            .client
            .try_send(tools::CALL_METHOD, &params, abort, progress)?;
        Some(SentCall { name, sent })
    }

    /// Awaits a call that [`Self::send_call`] wrote.
    pub async fn finish_call(
        &self,
        call: SentCall,
        abort: Option<&CancellationToken>,
    ) -> Result<ToolCallOutcome, OwnClientError> {
        let result = call.sent.settled(abort).await;
        self.outcome(call.name, result).await
    }

    /// The daemon name of a call, or why the own client cannot take it.
    fn connected_name(&self, registered_name: &str) -> Result<String, OwnClientError> {
        let inner = &self.inner;
        let name = self.daemon_name(registered_name);
        if inner.stopped.is_cancelled() || !inner.started.load(std::sync::atomic::Ordering::SeqCst)
        {
            return Err(OwnClientError::NotConnected { name });
        }
        Ok(name)
    }

    /// Steps 4..7 on the daemon's answer to a call of `name`.
    async fn outcome(
        &self,
        name: String,
        result: Result<RawResponse, McpError>,
    ) -> Result<ToolCallOutcome, OwnClientError> {
        let mut result = result.map_err(|source| OwnClientError::CallFailed {
            name: name.clone(),
            source,
        })?;
        let catalogue_changes = if name == TOOLS_SEARCH {
            // A sync swallows every error.
            Some(self.inner.sync().await.unwrap_or_default())
        } else {
            None
        };
        let mut read = take_call_result(&mut result);
        let is_error = read.is_error;
        let structured_content = read.structured.take();
        let content = model_content(read).await;
        let mut text = joined_text(&content);
        if is_error && text.is_empty() {
            text = format!("gortex {name} failed");
        }
        Ok(ToolCallOutcome {
            text,
            content,
            raw_result: result,
            is_error,
            structured_content,
            catalogue_changes,
        })
    }

    /// The bare daemon name of a registered name (hook envelopes use it).
    pub fn daemon_name(&self, registered_name: &str) -> String {
        lock(&self.inner.catalogue)
            .daemon_name(registered_name)
            .unwrap_or(registered_name)
            .to_string()
    }

    /// Runs one full re-sync now and returns its changes.
    pub async fn sync(&self) -> Result<CatalogueChanges, McpError> {
        self.inner.sync().await
    }

    /// Clears the debounce and stops the client; final. Returns
    /// after the child is reaped.
    pub async fn stop(&self) {
        let inner = &self.inner;
        inner.stopped.cancel();
        inner.client.set_list_changed_handler(None);
        if let Some(task) = lock(&inner.debounce_task).take() {
            task.abort();
        }
        inner.client.stop().await;
    }

    /// The client, for diagnosis and tests.
    pub fn client(&self) -> &McpClient {
        &self.inner.client
    }

    /// The 200 ms trailing debounce, wired only after the handshake so
    /// earlier notifications are ignored.
    fn wire_debounce(&self) {
        let (handler, notifications) = list_changed_channel();
        let task = tokio::spawn(debounce(
            Arc::downgrade(&self.inner),
            notifications,
            self.inner.config.sync_debounce,
        ));
        let mut slot = lock(&self.inner.debounce_task);
        if self.inner.stopped.is_cancelled() {
            task.abort();
            return;
        }
        *slot = Some(task);
        self.inner.client.set_list_changed_handler(Some(handler));
    }

    /// Test-only: the next re-sync of the debounce panics.
    #[doc(hidden)]
    pub fn debug_force_resync_panic(&self) {
        self.inner
            .debug_resync_panic
            .store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

/// The bounded signal from the client's reader to the debounce: a handler
/// that never blocks and never queues more than [`LIST_CHANGED_QUEUE`].
/// The least time between two progress updates [`throttled`] lets through.
pub const PROGRESS_GAP: Duration = Duration::from_millis(100);

/// `handler` called at most once per `gap`; the notifications in between are
/// dropped (each still re-armed its request's timer), so a chatty server
/// cannot flood Pi's interface.
pub fn throttled(handler: ProgressHandler, gap: Duration) -> ProgressHandler {
    let last: Mutex<Option<std::time::Instant>> = Mutex::new(None);
    Arc::new(move |params| {
        let now = std::time::Instant::now();
        {
            let mut last = lock(&last);
            if last.is_some_and(|at| now.duration_since(at) < gap) {
                return;
            }
            *last = Some(now);
        }
        handler(params);
    })
}

/// The blocks the model reads, within Pi's limit; off
/// the runtime's threads only when a file may be written.
async fn model_content(read: CallResultText) -> Vec<ModelContent> {
    if !read.may_write_files() {
        return read.into_model_content(true);
    }
    tokio::task::spawn_blocking(move || read.into_model_content(true))
        .await
        .unwrap_or_else(|_| {
            vec![ModelContent::Text {
                text: "gortex: internal error".to_string(),
            }]
        })
}

fn list_changed_channel() -> (super::client::ListChangedHandler, mpsc::Receiver<()>) {
    let (notify, notifications) = mpsc::channel::<()>(LIST_CHANGED_QUEUE);
    let handler = Arc::new(move || {
        // Full: a re-sync is already due. Closed: the own client is stopping.
        let _ = notify.try_send(());
    });
    (handler, notifications)
}

impl Inner {
    async fn sync(&self) -> Result<CatalogueChanges, McpError> {
        let _gate = self.sync_gate.lock().await;
        let listing = tools::list_tools(&self.client).await?;
        Ok(lock(&self.catalogue).apply(&listing))
    }
}

/// One re-sync per burst, once the burst has been quiet for `quiet`.
async fn debounce(own_client: Weak<Inner>, mut notifications: mpsc::Receiver<()>, quiet: Duration) {
    while notifications.recv().await.is_some() {
        loop {
            match tokio::time::timeout(quiet, notifications.recv()).await {
                Ok(Some(())) => continue,
                Ok(None) => return,
                Err(_) => break,
            }
        }
        let Some(inner) = own_client.upgrade() else {
            return;
        };
        // Each re-sync runs in its own task, so a panic inside one
        // costs that re-sync (its `tools/list` is dropped with it), never
        // the debounce and every later burst.
        let _ = tokio::spawn(resync_and_tell(inner)).await;
    }
}

/// One debounced re-sync; its changes go to the listener.
async fn resync_and_tell(inner: Arc<Inner>) {
    if inner
        .debug_resync_panic
        .swap(false, std::sync::atomic::Ordering::SeqCst)
    {
        panic!("re-sync panic forced by debug_force_resync_panic");
    }
    let Ok(changes) = inner.sync().await else {
        return;
    };
    if changes.is_empty() {
        return;
    }
    let listener = lock(&inner.listener).clone();
    if let Some(listener) = listener {
        crate::guard::guard_sync(|| (), || listener(changes));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pi_gortex_schema::mcp::{ProgressNotificationParams, ProgressToken};

    #[test]
    fn mcp_34_a_chatty_server_is_throttled_before_the_interface() {
        let count = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = count.clone();
        let sink: ProgressHandler = Arc::new(move |_| {
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        });
        let params = ProgressNotificationParams {
            progress_token: ProgressToken::Integer(1),
            progress: 1.0,
            total: None,
            message: None,
            extra: serde_json::Map::new(),
        };
        // A gap no burst can outlast: only the first update gets through.
        let hourly = throttled(sink.clone(), Duration::from_secs(3600));
        for _ in 0..10_000 {
            hourly(&params);
        }
        assert_eq!(count.load(std::sync::atomic::Ordering::SeqCst), 1);
        let unthrottled = throttled(sink, Duration::ZERO);
        for _ in 0..10 {
            unthrottled(&params);
        }
        assert_eq!(count.load(std::sync::atomic::Ordering::SeqCst), 11);
    }

    #[test]
    fn mcp_10_a_burst_of_list_changed_queues_one_signal() {
        let (handler, mut notifications) = list_changed_channel();
        for _ in 0..10_000 {
            handler();
        }
        assert_eq!(notifications.try_recv(), Ok(()));
        assert_eq!(
            notifications.try_recv(),
            Err(mpsc::error::TryRecvError::Empty),
            "one queued signal stands for the whole burst"
        );
        handler();
        assert_eq!(notifications.try_recv(), Ok(()), "a later burst is heard");
    }
}
