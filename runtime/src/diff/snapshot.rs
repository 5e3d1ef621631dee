//! File snapshots before and after a call (DIFF-9).
//!
//! A snapshot is taken for every candidate, so it must be cheap and must
//! never fail: anything unusual becomes a *skipped* snapshot with a reason
//! that the outcome turns into a note (or into silence).

use std::collections::BTreeMap;
use std::io::{ErrorKind, Read};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Files larger than this are not diffed (DIFF-9).
pub const MAX_FILE_BYTES: u64 = 1_048_576;

/// Why a file was not read as text. The texts are exact (WIRE-20).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkipReason {
    /// Not a regular file, or an unexpected error: no note.
    Silent,
    OverOneMib,
    Binary,
    NotUtf8,
}

impl SkipReason {
    /// The reason text of the `not diffed: <reason>` note; empty when silent.
    pub fn text(self) -> &'static str {
        match self {
            SkipReason::Silent => "",
            SkipReason::OverOneMib => "over 1 MiB",
            SkipReason::Binary => "binary file",
            SkipReason::NotUtf8 => "not UTF-8 text",
        }
    }
}

/// One file at one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Snapshot {
    /// The file does not exist: diffs as empty text.
    Missing,
    /// Not diffed; size and mtime tell whether it changed meanwhile.
    Skipped {
        reason: SkipReason,
        size: Option<u64>,
        mtime: Option<SystemTime>,
    },
    /// Text: the raw bytes, and the text with one leading BOM removed and
    /// every CRLF turned into LF.
    Text { raw: Vec<u8>, text: String },
}

impl Snapshot {
    /// The normalized text this side diffs as, when it has one.
    pub fn normalized(&self) -> Option<&str> {
        match self {
            Snapshot::Missing => Some(""),
            Snapshot::Text { text, .. } => Some(text),
            Snapshot::Skipped { .. } => None,
        }
    }
}

/// Snapshots of several files, by path.
pub type Snapshots = BTreeMap<PathBuf, Snapshot>;

/// DIFF-9 for one path.
pub fn snapshot(path: &Path) -> Snapshot {
    let metadata = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == ErrorKind::NotFound => return Snapshot::Missing,
        Err(_) => return silent(None, None),
    };
    let size = Some(metadata.len());
    let mtime = metadata.modified().ok();
    let skipped = |reason| Snapshot::Skipped {
        reason,
        size,
        mtime,
    };
    if !metadata.is_file() {
        return skipped(SkipReason::Silent);
    }
    if metadata.len() > MAX_FILE_BYTES {
        return skipped(SkipReason::OverOneMib);
    }
    let raw = match read_capped(path) {
        Ok(raw) => raw,
        Err(e) if e.kind() == ErrorKind::NotFound => return Snapshot::Missing,
        Err(_) => return silent(None, None),
    };
    // The file may have grown between stat and read.
    if raw.len() as u64 > MAX_FILE_BYTES {
        return skipped(SkipReason::OverOneMib);
    }
    classify_bytes(raw, size, mtime)
}

/// DIFF-9 for bytes already read: binary, not UTF-8, or text.
pub fn classify_bytes(raw: Vec<u8>, size: Option<u64>, mtime: Option<SystemTime>) -> Snapshot {
    if memchr::memchr(0, &raw).is_some() {
        return Snapshot::Skipped {
            reason: SkipReason::Binary,
            size,
            mtime,
        };
    }
    match std::str::from_utf8(&raw) {
        Ok(text) => {
            let text = normalize_text(text);
            Snapshot::Text { raw, text }
        }
        Err(_) => Snapshot::Skipped {
            reason: SkipReason::NotUtf8,
            size,
            mtime,
        },
    }
}

/// One leading U+FEFF removed, every CRLF turned into LF.
pub fn normalize_text(text: &str) -> String {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if memchr::memmem::find(text.as_bytes(), b"\r\n").is_none() {
        return text.to_owned();
    }
    text.replace("\r\n", "\n")
}

fn silent(size: Option<u64>, mtime: Option<SystemTime>) -> Snapshot {
    Snapshot::Skipped {
        reason: SkipReason::Silent,
        size,
        mtime,
    }
}

/// Reads at most one byte more than the cap, so a file that grows after
/// the size check cannot make us read without bound.
fn read_capped(path: &Path) -> std::io::Result<Vec<u8>> {
    let file = std::fs::File::open(path)?;
    let mut raw = Vec::new();
    file.take(MAX_FILE_BYTES + 1).read_to_end(&mut raw)?;
    Ok(raw)
}

/// Snapshots every path.
pub fn snapshot_all(paths: &[PathBuf]) -> Snapshots {
    paths.iter().map(|p| (p.clone(), snapshot(p))).collect()
}
