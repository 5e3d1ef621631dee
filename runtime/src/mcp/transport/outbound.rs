//! The child's stdin as a frame sink.
//!
//! A frame is written straight from the sending task with a non-blocking
//! write, so a request costs no extra task hop; only when the pipe is full
//! does the rest wait in a backlog that a flusher task drains in order.
//! Write errors (a broken pipe after the child died) switch the sink off
//! silently: the child's exit is what reports the problem. `close()` drops
//! the pipe at once, which is how the kill procedure closes stdin.
//!
//! The backlog is bounded: a child that stops reading its stdin
//! while requests keep coming would otherwise grow it without end. At the
//! bound the sink switches off and fires [`Outbound::overflowed`]; the
//! supervisor then marks the client exited with the bound's text (every
//! pending request fails at once) and kills the child, and the next request
//! respawns, as for an oversized inbound frame.

use std::collections::VecDeque;
use std::future::Future;
use std::io::ErrorKind;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::process::ChildStdin;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::platform::pipe_writer::PipeWriter;

/// Unwritten bytes allowed to wait for a child that is not reading:
/// the inbound frame cap, so one request as large as any reply still fits.
pub const MAX_BACKLOG_BYTES: usize = 64 * 1024 * 1024;

/// Frames to one child's stdin.
#[derive(Debug)]
pub struct Outbound {
    state: Mutex<State>,
    backlog_ready: Arc<Notify>,
    closed: CancellationToken,
    overflowed: CancellationToken,
    max_backlog_bytes: usize,
    /// Test-only: the flusher panics when it next wakes.
    debug_panic: AtomicBool,
}

impl Drop for Outbound {
    fn drop(&mut self) {
        // Ends the flusher, which holds no strong reference while idle.
        self.closed.cancel();
    }
}

#[derive(Debug)]
struct State {
    /// `None` once closed or broken.
    pipe: Option<Arc<PipeWriter>>,
    /// Frames not yet fully written, oldest first.
    backlog: VecDeque<Vec<u8>>,
    /// Total length of the frames in `backlog`.
    backlog_bytes: usize,
    /// Bytes of the oldest backlog frame already written.
    written: usize,
}

impl State {
    /// Queues a frame unless the unwritten bytes would pass `limit`.
    fn enqueue(&mut self, frame: Vec<u8>, limit: usize) -> bool {
        let unwritten = self.backlog_bytes - self.written;
        if unwritten.saturating_add(frame.len()) > limit {
            return false;
        }
        self.backlog_bytes += frame.len();
        self.backlog.push_back(frame);
        true
    }
}

enum Attempt {
    Done,
    Partial(usize),
    Broken,
}

fn write_now(pipe: &PipeWriter, bytes: &[u8]) -> Attempt {
    let mut written = 0;
    while written < bytes.len() {
        match pipe.try_write(&bytes[written..]) {
            Ok(count) => written += count,
            Err(error) if error.kind() == ErrorKind::WouldBlock => {
                return Attempt::Partial(written)
            }
            Err(error) if error.kind() == ErrorKind::Interrupted => continue,
            Err(_) => return Attempt::Broken,
        }
    }
    Attempt::Done
}

impl Outbound {
    /// Wraps `stdin` with a backlog bound in bytes; the returned future is
    /// the flusher, to be spawned.
    pub fn new(
        stdin: ChildStdin,
        max_backlog_bytes: usize,
    ) -> std::io::Result<(Arc<Self>, impl Future<Output = ()>)> {
        let pipe = PipeWriter::new(stdin)?;
        let outbound = Arc::new(Self {
            state: Mutex::new(State {
                pipe: Some(Arc::new(pipe)),
                backlog: VecDeque::new(),
                backlog_bytes: 0,
                written: 0,
            }),
            backlog_ready: Arc::new(Notify::new()),
            closed: CancellationToken::new(),
            overflowed: CancellationToken::new(),
            max_backlog_bytes,
            debug_panic: AtomicBool::new(false),
        });
        let flusher = flush(
            Arc::downgrade(&outbound),
            outbound.backlog_ready.clone(),
            outbound.closed.clone(),
        );
        Ok((outbound, flusher))
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        crate::sync::lock(&self.state)
    }

    /// Writes one frame, in order after any backlog; never blocks.
    pub fn send(&self, frame: Vec<u8>) {
        let mut state = self.lock();
        let Some(pipe) = state.pipe.clone() else {
            return;
        };
        if !state.backlog.is_empty() {
            if !state.enqueue(frame, self.max_backlog_bytes) {
                self.overflow(&mut state);
            }
            return;
        }
        match write_now(&pipe, &frame) {
            Attempt::Done => {}
            Attempt::Partial(written) => {
                // Only the unwritten rest of the frame counts.
                if !state.enqueue(frame, self.max_backlog_bytes.saturating_add(written)) {
                    self.overflow(&mut state);
                    return;
                }
                state.written = written;
                drop(state);
                self.backlog_ready.notify_one();
            }
            Attempt::Broken => Self::switch_off(&mut state),
        }
    }

    /// The bound was reached. Later frames are dropped; the
    /// supervisor, told through [`Outbound::overflowed`], does the rest.
    fn overflow(&self, state: &mut State) {
        Self::switch_off(state);
        self.overflowed.cancel();
    }

    /// Fires once the backlog bound was reached.
    pub fn overflowed(&self) -> CancellationToken {
        self.overflowed.clone()
    }

    /// The backlog bound in bytes.
    pub fn max_backlog_bytes(&self) -> usize {
        self.max_backlog_bytes
    }

    /// Test-only: makes the flusher task panic as soon as it wakes,
    /// which this call makes it do.
    #[doc(hidden)]
    pub fn debug_force_flusher_panic(&self) {
        self.debug_panic.store(true, Ordering::SeqCst);
        self.backlog_ready.notify_one();
    }

    /// Closes stdin now; later frames are dropped.
    pub fn close(&self) {
        Self::switch_off(&mut self.lock());
        self.closed.cancel();
    }

    fn switch_off(state: &mut State) {
        state.pipe = None;
        state.backlog.clear();
        state.backlog_bytes = 0;
        state.written = 0;
    }
}

/// Drains the backlog whenever the pipe becomes writable again.
async fn flush(
    outbound: std::sync::Weak<Outbound>,
    backlog_ready: Arc<Notify>,
    closed: CancellationToken,
) {
    loop {
        let pipe = {
            let Some(strong) = outbound.upgrade() else {
                return;
            };
            if strong.debug_panic.load(Ordering::SeqCst) {
                panic!("stdin writer panic forced by debug_force_flusher_panic");
            }
            let state = strong.lock();
            if state.backlog.is_empty() {
                None
            } else {
                state.pipe.clone()
            }
        };
        let Some(pipe) = pipe else {
            tokio::select! {
                _ = backlog_ready.notified() => continue,
                _ = closed.cancelled() => return,
            }
        };
        tokio::select! {
            writable = pipe.writable() => if writable.is_err() { return },
            _ = closed.cancelled() => return,
        }
        let Some(strong) = outbound.upgrade() else {
            return;
        };
        let mut state = strong.lock();
        while let Some(front) = state.backlog.front() {
            let offset = state.written;
            match write_now(&pipe, &front[offset..]) {
                Attempt::Done => {
                    let done = state.backlog.pop_front().map_or(0, |frame| frame.len());
                    state.backlog_bytes -= done;
                    state.written = 0;
                }
                Attempt::Partial(more) => {
                    state.written += more;
                    break;
                }
                Attempt::Broken => {
                    Outbound::switch_off(&mut state);
                    break;
                }
            }
        }
    }
}

// The test's reader is a `/bin/sh` script; on Windows the backlog is
// exercised through the integration tests' simulator.
#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::mcp::transport::child_process::{spawn_piped, ChildSpec};

    #[tokio::test]
    async fn a_full_pipe_backlog_is_flushed_in_order() {
        let dir = std::env::temp_dir().join(format!("outbound-{}", std::process::id()));
        let spec = ChildSpec {
            program: "/bin/sh".into(),
            args: vec![
                "-c".into(),
                format!("sleep 0.3; cat > '{}'", dir.display()).into(),
            ],
            extra_env: Vec::new(),
            cwd: None,
        };
        let mut spawned = spawn_piped(&spec).unwrap();
        let (outbound, flusher) = Outbound::new(spawned.stdin, MAX_BACKLOG_BYTES).unwrap();
        tokio::spawn(flusher);
        let mut expected = Vec::new();
        for index in 0..64u8 {
            // 64 KiB frames: far more than a pipe holds while the reader sleeps.
            let frame = vec![b'a' + index % 26; 64 * 1024];
            expected.extend_from_slice(&frame);
            outbound.send(frame);
        }
        assert!(!outbound.lock().backlog.is_empty(), "the pipe filled up");
        tokio::time::timeout(std::time::Duration::from_secs(10), async {
            while !outbound.lock().backlog.is_empty() {
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            }
        })
        .await
        .expect("backlog drained");
        outbound.close();
        spawned.child.wait().await.unwrap();
        assert_eq!(std::fs::read(&dir).unwrap(), expected);
        let _ = std::fs::remove_file(&dir);
    }
}
