//! A bounded tail of the child's stderr.
//!
//! stderr must be drained continuously so a chatty child never blocks on a
//! full pipe, but only its last few KiB are worth keeping: they explain why a
//! child died.

use std::sync::{Arc, Mutex};

use tokio::io::{AsyncRead, AsyncReadExt};

/// Bytes of stderr kept.
pub const STDERR_TAIL_BYTES: usize = 8 * 1024;

/// The last [`STDERR_TAIL_BYTES`] of a stream, shared with the reader task.
#[derive(Debug, Clone, Default)]
pub struct StderrTail {
    bytes: Arc<Mutex<Vec<u8>>>,
}

impl StderrTail {
    /// Appends a chunk, keeping only the last [`STDERR_TAIL_BYTES`].
    pub fn append(&self, chunk: &[u8]) {
        let Ok(mut tail) = self.bytes.lock() else {
            return;
        };
        if chunk.len() >= STDERR_TAIL_BYTES {
            tail.clear();
            tail.extend_from_slice(&chunk[chunk.len() - STDERR_TAIL_BYTES..]);
            return;
        }
        let overflow = (tail.len() + chunk.len()).saturating_sub(STDERR_TAIL_BYTES);
        tail.drain(..overflow);
        tail.extend_from_slice(chunk);
    }

    /// The tail as trimmed text (lossy UTF-8: the cut may split a character).
    pub fn text(&self) -> String {
        let tail = self
            .bytes
            .lock()
            .map(|tail| tail.clone())
            .unwrap_or_default();
        String::from_utf8_lossy(&tail).trim().to_string()
    }

    /// Reads `stream` to its end into the tail; read errors end the drain.
    pub async fn drain<R: AsyncRead + Unpin>(self, mut stream: R) {
        let mut buffer = vec![0u8; 8 * 1024];
        loop {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => return,
                Ok(read) => self.append(&buffer[..read]),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_only_the_last_bytes() {
        let tail = StderrTail::default();
        tail.append(&vec![b'a'; STDERR_TAIL_BYTES - 1]);
        tail.append(b"bc");
        let text = tail.text();
        assert_eq!(text.len(), STDERR_TAIL_BYTES);
        assert!(text.ends_with("abc"));
        tail.append(&vec![b'z'; STDERR_TAIL_BYTES * 2]);
        assert_eq!(tail.text(), "z".repeat(STDERR_TAIL_BYTES));
    }
}
