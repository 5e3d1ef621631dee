//! The task that owns one `gortex mcp` child.
//!
//! It reads and routes the child's stdout, notices the child's exit and marks
//! the client exited with the spec's text, and runs the kill procedure on
//! request. It holds only a weak reference to the client, so a client that
//! disappears makes it kill its child rather than keep it alive.
//!
//! tokio contains a panic inside a spawned task, so nothing else
//! would ever settle what this child owed: its pending requests would wait
//! out their timeouts (600 s for a call). A panic here, or in the stdin
//! writer it watches, marks the client exited at once instead, which
//! rejects every pending request; the child dies with its handle
//! (`kill_on_drop`) and the next request respawns.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use pi_gortex_schema::mcp::ProgressNotificationParams;
use tokio::io::AsyncReadExt;
use tokio::process::ChildStdout;
use tokio::sync::{oneshot, watch};

use super::error::McpError;
use super::framing::{Frame, FrameDecoder, FramingError};
use super::routing::{route, RawResponse, Routed};
use super::transport::child_process;
use super::transport::outbound::Outbound;
use super::transport::stderr_tail::StderrTail;

pub(super) struct ChildParts {
    pub(super) child: child_process::ChildTree,
    pub(super) stdout: ChildStdout,
    pub(super) stderr_tail: StderrTail,
    pub(super) stderr_drain: tokio::task::JoinHandle<()>,
    pub(super) writer: tokio::task::JoinHandle<()>,
    pub(super) kill_rx: oneshot::Receiver<()>,
    pub(super) reaped_tx: watch::Sender<bool>,
}

/// The client that owns a child, as its supervisor reports to it. The
/// supervisor holds it weakly: a client that is gone ends the child.
pub(super) trait ChildOwner: Send + Sync {
    /// The child `generation` has ended; its pending requests fail with `reason`.
    fn child_exited(&self, generation: u64, reason: McpError);
    /// The response to the request `id`: its result, or the error's code and message.
    fn respond(&self, id: u64, outcome: Result<RawResponse, (Option<i64>, String)>);
    /// The daemon's tool list changed.
    fn list_changed(&self);
    /// A progress notification for a request that asked for them.
    fn progress(&self, params: &ProgressNotificationParams);
    /// A stdout line that was not a JSON-RPC message.
    fn noise_line(&self);
    /// Test-only: the supervisor is to panic on its next inbound chunk.
    fn panic_requested(&self) -> bool;
}

/// The task that owns one child: reads and routes its stdout, notices its
/// exit, and kills it on request or when the client is gone.
pub(super) struct Supervisor {
    pub(super) shared: Weak<dyn ChildOwner>,
    pub(super) generation: u64,
    pub(super) outbound: Arc<Outbound>,
    pub(super) frames_seen: Arc<AtomicU64>,
    pub(super) max_frame_bytes: usize,
    /// How long a terminated child has to exit before it is killed.
    pub(super) kill_grace: Duration,
    /// How long an exited child's last output is still awaited.
    pub(super) exit_drain: Duration,
}

enum Ending {
    Kill,
    Exited(Option<std::process::ExitStatus>),
}

/// Marks the client exited when the supervisor unwinds from a panic.
struct SettleOnPanic {
    shared: Weak<dyn ChildOwner>,
    generation: u64,
}

impl Drop for SettleOnPanic {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            return;
        }
        if let Some(shared) = self.shared.upgrade() {
            let reason = McpError::TaskPanicked { task: "supervisor" };
            shared.child_exited(self.generation, reason);
        }
    }
}

impl Supervisor {
    pub(super) async fn run(self, mut parts: ChildParts) {
        let _settle_on_panic = SettleOnPanic {
            shared: self.shared.clone(),
            generation: self.generation,
        };
        let mut decoder = FrameDecoder::new(self.max_frame_bytes);
        let mut buffer = vec![0u8; 64 * 1024];
        let mut stdout_open = true;
        let mut writer_running = true;
        let overflowed = self.outbound.overflowed();
        let ending = loop {
            tokio::select! {
                biased;
                _ = &mut parts.kill_rx => break Ending::Kill,
                _ = overflowed.cancelled() => {
                    let limit = self.outbound.max_backlog_bytes();
                    self.mark_exited(McpError::BacklogFull { limit });
                    break Ending::Kill;
                }
                joined = &mut parts.writer, if writer_running => {
                    writer_running = false;
                    // The writer ends on its own only once stdin is closed;
                    // a panic means frames were lost.
                    if joined.is_err_and(|error| error.is_panic()) {
                        self.mark_exited(McpError::TaskPanicked { task: "stdin writer" });
                        break Ending::Kill;
                    }
                }
                read = parts.stdout.read(&mut buffer), if stdout_open => match read {
                    Ok(0) | Err(_) => stdout_open = false,
                    Ok(count) => {
                        if !self.consume(&mut decoder, &buffer[..count]) {
                            break Ending::Kill;
                        }
                    }
                },
                status = parts.child.wait() => {
                    let status = status.ok();
                    self.drain_after_exit(&mut decoder, &mut buffer, &mut parts.stdout, stdout_open).await;
                    break Ending::Exited(status);
                }
            }
        };
        // Closing stdin is the first step of the kill procedure.
        self.outbound.close();
        parts.writer.abort();
        match ending {
            Ending::Kill => {
                drop(parts.stdout);
                child_process::terminate_and_reap(&mut parts.child, self.kill_grace).await;
            }
            Ending::Exited(status) => {
                let _ = tokio::time::timeout(self.exit_drain, &mut parts.stderr_drain).await;
                let reason = McpError::Exited {
                    how: child_process::describe_status(status),
                    stderr_tail: parts.stderr_tail.text(),
                };
                if let Some(shared) = self.shared.upgrade() {
                    shared.child_exited(self.generation, reason);
                }
            }
        }
        parts.stderr_drain.abort();
        let _ = parts.reaped_tx.send(true);
    }

    fn mark_exited(&self, reason: McpError) {
        if let Some(shared) = self.shared.upgrade() {
            shared.child_exited(self.generation, reason);
        }
    }

    /// Reads what the child wrote before it exited, within the drain window.
    async fn drain_after_exit(
        &self,
        decoder: &mut FrameDecoder,
        buffer: &mut [u8],
        stdout: &mut ChildStdout,
        stdout_open: bool,
    ) {
        if !stdout_open {
            return;
        }
        let drain = async {
            loop {
                match stdout.read(buffer).await {
                    Ok(0) | Err(_) => return,
                    Ok(count) => {
                        if !self.consume(decoder, &buffer[..count]) {
                            return;
                        }
                    }
                }
            }
        };
        let _ = tokio::time::timeout(self.exit_drain, drain).await;
    }

    /// Feeds one chunk. `false` means the connection must be killed: the
    /// frame cap was exceeded or the client is gone.
    fn consume(&self, decoder: &mut FrameDecoder, chunk: &[u8]) -> bool {
        let Some(shared) = self.shared.upgrade() else {
            return false;
        };
        if shared.panic_requested() {
            panic!("supervisor panic forced by debug_force_task_panic");
        }
        let pushed = decoder.push(chunk, |frame| self.dispatch(&*shared, frame));
        match pushed {
            Ok(()) => true,
            Err(FramingError::FrameTooLarge { limit }) => {
                shared.child_exited(self.generation, McpError::FrameTooLarge { limit });
                false
            }
        }
    }

    /// Routes one frame and applies the outcome.
    fn dispatch(&self, shared: &dyn ChildOwner, frame: Frame<'_>) {
        match route(frame) {
            Routed::Noise => {
                shared.noise_line();
            }
            Routed::Response { id, outcome } => {
                self.frames_seen.fetch_add(1, Ordering::SeqCst);
                shared.respond(id, outcome);
            }
            Routed::Reply(reply) => {
                self.frames_seen.fetch_add(1, Ordering::SeqCst);
                self.outbound.send(reply);
            }
            Routed::ListChanged => {
                self.frames_seen.fetch_add(1, Ordering::SeqCst);
                shared.list_changed();
            }
            Routed::Progress(params) => {
                self.frames_seen.fetch_add(1, Ordering::SeqCst);
                shared.progress(&params);
            }
            Routed::Ignored => {
                self.frames_seen.fetch_add(1, Ordering::SeqCst);
            }
        }
    }
}
