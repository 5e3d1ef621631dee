//! A child's stdin written without blocking the writer (MCP-5, MCP-31).
//!
//! [`PipeWriter::try_write`] takes what the pipe accepts now and answers
//! `WouldBlock` when it is full; [`PipeWriter::writable`] waits until it
//! accepts more. Unix: the pipe itself in non-blocking mode, driven by
//! tokio's reactor. Windows: anonymous pipes have no non-blocking mode, so
//! tokio hands each write to a blocking thread; a write accepted while none
//! is in flight returns at once, and one made while a write is in flight is
//! `WouldBlock` until that write finishes. Handing a write to that thread
//! needs the runtime, and a write may come from the host's own thread (the
//! eager send of a call), so the writer keeps the runtime it was made in.

pub use imp::PipeWriter;

#[cfg(unix)]
mod imp {
    use tokio::net::unix::pipe;
    use tokio::process::ChildStdin;

    /// A non-blocking pipe end registered with tokio's reactor.
    #[derive(Debug)]
    pub struct PipeWriter(pipe::Sender);

    impl PipeWriter {
        /// Takes over `stdin`. Must be called inside a tokio runtime.
        pub fn new(stdin: ChildStdin) -> std::io::Result<Self> {
            Ok(Self(pipe::Sender::from_owned_fd(stdin.into_owned_fd()?)?))
        }

        /// Writes what fits now; `WouldBlock` when nothing does.
        pub fn try_write(&self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.try_write(bytes)
        }

        /// Waits until the pipe accepts more.
        pub async fn writable(&self) -> std::io::Result<()> {
            self.0.writable().await
        }
    }
}

#[cfg(windows)]
#[cfg_attr(mutants, mutants::skip)] // not compiled on Linux, where mutants run
mod imp {
    use std::future::poll_fn;
    use std::pin::Pin;
    use std::sync::Mutex;
    use std::task::{Context, Poll, Waker};

    use tokio::io::AsyncWrite;
    use tokio::process::ChildStdin;
    use tokio::runtime::Handle;

    /// Tokio's stdin, whose writes run on a blocking thread one at a time,
    /// and the runtime that thread belongs to.
    #[derive(Debug)]
    pub struct PipeWriter {
        stdin: Mutex<ChildStdin>,
        runtime: Option<Handle>,
    }

    impl PipeWriter {
        /// Takes over `stdin`. Made inside a tokio runtime, it can be written
        /// from any thread.
        pub fn new(stdin: ChildStdin) -> std::io::Result<Self> {
            Ok(Self {
                stdin: Mutex::new(stdin),
                runtime: Handle::try_current().ok(),
            })
        }

        /// Hands `bytes` to the writing thread when it is idle; `WouldBlock`
        /// while a write is in flight, or when called outside any runtime
        /// from a writer made outside one. A failed earlier write surfaces here.
        pub fn try_write(&self, bytes: &[u8]) -> std::io::Result<usize> {
            let _runtime = match (&self.runtime, Handle::try_current()) {
                (_, Ok(_)) => None,
                (Some(runtime), Err(_)) => Some(runtime.enter()),
                (None, Err(_)) => return Err(std::io::ErrorKind::WouldBlock.into()),
            };
            let mut stdin = crate::sync::lock(&self.stdin);
            let mut context = Context::from_waker(Waker::noop());
            match Pin::new(&mut *stdin).poll_write(&mut context, bytes) {
                Poll::Ready(result) => result,
                Poll::Pending => Err(std::io::ErrorKind::WouldBlock.into()),
            }
        }

        /// Waits until the write in flight, if any, has finished.
        pub async fn writable(&self) -> std::io::Result<()> {
            poll_fn(|context| {
                let mut stdin = crate::sync::lock(&self.stdin);
                Pin::new(&mut *stdin).poll_flush(context)
            })
            .await
        }
    }
}
