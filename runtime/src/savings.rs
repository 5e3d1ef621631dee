//! What the graph saved in one session (SAVE): the raw reads the hook
//! redirected, with the bytes a `read` would have put into the context, the
//! graph answers the model received instead, and the raw reads the posture
//! let through on indexed source. Tokens are Pi's own estimate
//! (`estimateTokens`: characters ÷ 4, rounded up), never a multiplier.
//!
//! Sizing a read opens the file the way the diff does (DIFF-9: no final
//! link, non-blocking, inside the session's boundary, at most 1 MiB read),
//! so an untrusted path costs the figure, never the call.

use std::path::Path;

use serde_json::Value;

use crate::diff::paths::{resolve_pi_path, Boundary};
use crate::diff::snapshot::{snapshot_in, SkipReason, Snapshot};

/// Pi's read tool keeps at most this many lines of a file (`DEFAULT_MAX_LINES`).
pub const PI_READ_MAX_LINES: usize = 2000;
/// Pi's read tool keeps at most this many bytes of a file (`DEFAULT_MAX_BYTES`).
pub const PI_READ_MAX_BYTES: u64 = 50 * 1024;

/// Pi's `estimateTokens` for text of `chars` UTF-16 units: ÷ 4, rounded up.
pub fn tokens(chars: u64) -> u64 {
    chars.div_ceil(4)
}

/// The kinds of raw read the hook judges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadKind {
    Read,
    Grep,
    Find,
    Ls,
    Bash,
}

impl ReadKind {
    /// Every kind, in the order the block lists them.
    pub const ALL: [ReadKind; 5] = [
        ReadKind::Read,
        ReadKind::Grep,
        ReadKind::Find,
        ReadKind::Ls,
        ReadKind::Bash,
    ];

    /// Pi's tool name for the kind.
    pub fn as_str(self) -> &'static str {
        match self {
            ReadKind::Read => "read",
            ReadKind::Grep => "grep",
            ReadKind::Find => "find",
            ReadKind::Ls => "ls",
            ReadKind::Bash => "bash",
        }
    }

    /// The kind of one of Pi's own tools; a graph tool or any other is none.
    pub fn of_tool(name: &str) -> Option<ReadKind> {
        ReadKind::ALL.into_iter().find(|kind| kind.as_str() == name)
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// One session's tally.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Savings {
    /// Raw reads the hook blocked, by [`ReadKind`].
    pub redirected: [u64; 5],
    /// Bytes the blocked reads that could be sized would have added.
    pub kept_out_bytes: u64,
    /// Blocked reads that could not be sized (not a `read`, or an unreadable file).
    pub not_sized: u64,
    /// Graph tool results the model received.
    pub graph_answers: u64,
    /// Their text, in UTF-16 units (JavaScript's `length`, as Pi counts).
    pub graph_chars: u64,
    /// Raw reads on indexed source the posture let through with guidance.
    pub allowed: u64,
    /// The bytes the sized ones among them put into the context.
    pub allowed_bytes: u64,
}

impl Savings {
    /// Reads redirected, all kinds.
    pub fn redirected_total(&self) -> u64 {
        self.redirected.iter().sum()
    }

    /// A raw read the hook blocked, with the bytes it would have added.
    pub fn record_blocked(&mut self, kind: ReadKind, bytes: Option<u64>) {
        self.redirected[kind.index()] += 1;
        match bytes {
            Some(bytes) => self.kept_out_bytes += bytes,
            None => self.not_sized += 1,
        }
    }

    /// A raw read the hook guided but let run, with the bytes it added.
    pub fn record_allowed(&mut self, bytes: Option<u64>) {
        self.allowed += 1;
        self.allowed_bytes += bytes.unwrap_or(0);
    }

    /// A graph answer of `text`.
    pub fn record_graph_answer(&mut self, text: &str) {
        self.graph_answers += 1;
        self.graph_chars += text.encode_utf16().count() as u64;
    }

    /// Tokens kept out of the context by the blocks.
    pub fn kept_out_tokens(&self) -> u64 {
        tokens(self.kept_out_bytes)
    }

    /// Tokens of the graph answers.
    pub fn graph_tokens(&self) -> u64 {
        tokens(self.graph_chars)
    }

    /// Kept out minus graph answers, in tokens; negative when the graph cost more.
    pub fn net_tokens(&self) -> i64 {
        self.kept_out_tokens() as i64 - self.graph_tokens() as i64
    }

    /// Whether anything was counted.
    pub fn is_empty(&self) -> bool {
        *self == Savings::default()
    }
}

/// The bytes Pi's `read` of `input` would put into the context: the
/// requested lines (`offset` from 1, `limit`) of the file, cut as Pi cuts
/// them (2,000 lines, 50 KiB). `None` when the file cannot be read the
/// bounded way (missing, a link, outside the session, over 1 MiB with a range).
pub fn read_bytes(input: &Value, cwd: &Path) -> Option<u64> {
    let raw = input
        .get("path")
        .or_else(|| input.get("file_path"))?
        .as_str()?;
    let path = resolve_pi_path(raw, cwd);
    let line_arg = |key: &str| input.get(key).and_then(Value::as_u64);
    let (offset, limit) = (line_arg("offset"), line_arg("limit"));
    match snapshot_in(&path, &Boundary::for_cwd(cwd)) {
        Snapshot::Text { raw, .. } => Some(range_bytes(&raw, offset, limit)),
        Snapshot::Skipped {
            reason: SkipReason::OverOneMib,
            size: Some(size),
            ..
        } if offset.is_none() && limit.is_none() => Some(size.min(PI_READ_MAX_BYTES)),
        _ => None,
    }
}

/// The bytes of lines `offset..offset+limit` of `raw` (1-based, Pi's read),
/// joined by `\n`, within Pi's line and byte caps.
pub fn range_bytes(raw: &[u8], offset: Option<u64>, limit: Option<u64>) -> u64 {
    let mut lines: Vec<&[u8]> = raw.split(|&b| b == b'\n').collect();
    let start = offset.unwrap_or(1).max(1) as usize - 1;
    if start >= lines.len() {
        return 0;
    }
    lines.drain(..start);
    if let Some(limit) = limit {
        lines.truncate(limit as usize);
    }
    let whole: u64 = lines.iter().map(|line| line.len() as u64 + 1).sum::<u64>() - 1;
    if lines.len() <= PI_READ_MAX_LINES && whole <= PI_READ_MAX_BYTES {
        return whole;
    }
    let mut kept = 0u64;
    for (i, line) in lines.iter().take(PI_READ_MAX_LINES).enumerate() {
        let add = line.len() as u64 + u64::from(i > 0);
        if kept + add > PI_READ_MAX_BYTES {
            break;
        }
        kept += add;
    }
    kept
}
