//! Protocol output on stdout: frames, junk lines, and the awkward chunkings of the `split` fault.
//!
//! Each batch of items is written with as few `write` calls as the split mode allows (one per
//! frame normally, one for the whole batch under `coalesce`), so the fast path costs one syscall
//! per frame.

use crate::log;
use crate::scenario::SplitMode;
use serde_json::{json, Value};
use std::fs::File;
use std::io::Write;
use std::mem::ManuallyDrop;
use std::time::Duration;

pub enum Item {
    /// A JSON-RPC message, serialized compactly and newline-terminated.
    Frame(Value),
    /// Bytes written as they are (junk lines, oversized frames).
    Raw(Vec<u8>, &'static str),
    /// Flush what is pending and sleep (spacing between notifications).
    Pause(u64),
}

pub struct Out {
    // Never closed: fd 1 belongs to the process.
    stdout: ManuallyDrop<File>,
    split: Option<(SplitMode, u64)>,
    /// `coalesce`: frames held back until the server is about to wait for input.
    pending: Vec<u8>,
    pending_frames: usize,
}

impl Out {
    pub fn new(split: Option<(SplitMode, u64)>) -> Out {
        let stdout = crate::stdio::raw_file(crate::stdio::Stream::Stdout);
        Out {
            stdout,
            split,
            pending: Vec::new(),
            pending_frames: 0,
        }
    }

    /// Writes the items in order; an error means the reader went away.
    pub fn send(&mut self, items: Vec<Item>) -> std::io::Result<()> {
        let mode = self.split.map(|(m, _)| m);
        let pause = self.split.map(|(_, p)| p).unwrap_or(0);
        for item in items {
            let (bytes, frame) = match item {
                Item::Pause(ms) => {
                    self.flush_pending()?;
                    std::thread::sleep(Duration::from_millis(ms));
                    continue;
                }
                Item::Frame(v) => {
                    let mut b = serde_json::to_vec(&v).unwrap_or_default();
                    let len = b.len();
                    if mode == Some(SplitMode::Crlf) {
                        b.push(b'\r');
                    }
                    b.push(b'\n');
                    (b, Some((v, len)))
                }
                Item::Raw(b, what) => {
                    log::record("send", json!({"raw": what, "bytes": b.len()}));
                    (b, None)
                }
            };
            let chunks: Vec<Vec<u8>> = match mode {
                Some(SplitMode::Coalesce) => {
                    self.pending.extend_from_slice(&bytes);
                    self.pending_frames += 1;
                    Vec::new()
                }
                Some(SplitMode::Bytewise) => bytes.iter().map(|b| vec![*b]).collect(),
                Some(SplitMode::Utf8Mid) => cut_inside_chars(&bytes),
                Some(SplitMode::BeforeNewline) => cut_before_newline(bytes),
                _ => vec![bytes],
            };
            if let Some((v, len)) = frame {
                log_send(&v, len, chunks.len(), mode == Some(SplitMode::Coalesce));
            }
            self.write_chunks(&chunks, pause)?;
        }
        Ok(())
    }

    /// Writes every held-back frame in a single `write` (no-op unless `coalesce` held some).
    pub fn flush_pending(&mut self) -> std::io::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let bytes = std::mem::take(&mut self.pending);
        let frames = std::mem::take(&mut self.pending_frames);
        log::record("coalesced", json!({"frames": frames, "bytes": bytes.len()}));
        self.stdout.write_all(&bytes)
    }

    /// One `write` per non-empty chunk, pausing between chunks.
    fn write_chunks(&mut self, chunks: &[Vec<u8>], pause: u64) -> std::io::Result<()> {
        let mut first = true;
        for chunk in chunks.iter().filter(|c| !c.is_empty()) {
            if !first && pause > 0 {
                std::thread::sleep(Duration::from_millis(pause));
            }
            first = false;
            self.stdout.write_all(chunk)?;
        }
        Ok(())
    }
}

fn describe(v: &Value) -> String {
    if let Some(m) = v.get("method").and_then(Value::as_str) {
        m.to_string()
    } else if v.get("error").is_some() {
        "error".to_string()
    } else {
        "result".to_string()
    }
}

/// `writes` is how many `write` calls carried this frame alone (0 when coalesced with others).
fn log_send(v: &Value, len: usize, writes: usize, coalesced: bool) {
    if !log::enabled() {
        return;
    }
    let mut rec = json!({"method": describe(v), "bytes": len, "writes": writes});
    if coalesced {
        rec["coalesced"] = json!(true);
    }
    if let Some(id) = v.get("id") {
        rec["id"] = id.clone();
    }
    log::record("send", rec);
}

/// Splits so that every multi-byte UTF-8 character is cut after its first byte.
fn cut_inside_chars(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, b) in bytes.iter().enumerate() {
        // A lead byte of a multi-byte sequence: cut right after it.
        if *b >= 0xC0 {
            out.push(bytes[start..=i].to_vec());
            start = i + 1;
        }
    }
    out.push(bytes[start..].to_vec());
    out.retain(|c| !c.is_empty());
    out
}

fn cut_before_newline(mut bytes: Vec<u8>) -> Vec<Vec<u8>> {
    match bytes.pop() {
        Some(b'\n') => vec![bytes, b"\n".to_vec()],
        Some(other) => {
            bytes.push(other);
            vec![bytes]
        }
        None => vec![],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_cuts_land_inside_characters() {
        let chunks = cut_inside_chars("aé✓\n".as_bytes());
        assert_eq!(chunks.len(), 3);
        assert!(std::str::from_utf8(&chunks[0]).is_err());
        let joined: Vec<u8> = chunks.concat();
        assert_eq!(joined, "aé✓\n".as_bytes());
    }
}
