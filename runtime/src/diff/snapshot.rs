//! File snapshots before and after a call (DIFF-9).
//!
//! A snapshot is taken for every candidate, so it must be cheap and must
//! never fail: anything unusual becomes a *skipped* snapshot with a reason
//! that the outcome turns into a note (or into silence).
//!
//! The files are untrusted: between listing a candidate and reading it, the
//! project (or a tool call) can swap in a symlink, a FIFO or a device. So the
//! boundary is checked again when the file is opened: a final
//! symlink is never followed by the open itself (`O_NOFOLLOW`), only to a
//! target the boundary contains; the open never blocks (`O_NONBLOCK`, so a
//! FIFO returns at once); and the type and size are read from the opened
//! descriptor (`fstat`), not from the path. A snapshot that still takes too
//! long (a hung network mount) is given up at [`SNAPSHOT_TIME_LIMIT`].

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{ErrorKind, Read};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use super::paths::{normalize, Boundary};
use crate::platform::local_dir::LocalDir;
use crate::platform::no_follow::open_no_follow;
use crate::sync::lock;

/// Files larger than this are not diffed.
pub const MAX_FILE_BYTES: u64 = 1_048_576;

/// How long one side of a diff may take to read. The call waits
/// for the before side under Pi's file locks, so this is also the longest a
/// diff can delay an edit.
pub const SNAPSHOT_TIME_LIMIT: Duration = Duration::from_millis(2_000);

/// Symlinks followed at most when opening one file.
const MAX_OPEN_HOPS: usize = 8;

/// Why a file was not read as text. The texts are exact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkipReason {
    /// Not a regular file, or an unexpected error: no note.
    Silent,
    OverOneMib,
    Binary,
    NotUtf8,
    /// The snapshot did not finish within the time limit.
    TimedOut,
}

impl SkipReason {
    /// The reason text of the `not diffed: <reason>` note; empty when silent.
    pub fn text(self) -> &'static str {
        match self {
            SkipReason::Silent => "",
            SkipReason::OverOneMib => "over 1 MiB",
            SkipReason::Binary => "binary file",
            SkipReason::NotUtf8 => "not UTF-8 text",
            SkipReason::TimedOut => "reading the file took too long",
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

/// DIFF-9 for one path the user named (`pi-gortex diff`): no boundary,
/// but the same non-blocking, descriptor-checked read.
pub fn snapshot(path: &Path) -> Snapshot {
    snapshot_in(path, &Boundary::unrestricted())
}

/// DIFF-9 for one candidate, re-checking `boundary` at open.
pub fn snapshot_in(path: &Path, boundary: &Boundary) -> Snapshot {
    let file = match open_checked(path, boundary) {
        Ok(file) => file,
        Err(e) if e.kind() == ErrorKind::NotFound => return Snapshot::Missing,
        Err(_) => return silent(None, None),
    };
    let metadata = match file.metadata() {
        Ok(m) => m,
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
    let raw = match read_capped(file, metadata.len(), MAX_FILE_BYTES) {
        Ok(raw) => raw,
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

/// Reads at most one byte more than `cap`, so a file that grows after the
/// size check cannot make us read without bound. Room for the `expected`
/// size up front makes it one read and the end-of-file read, where an empty
/// buffer reads in a series of small probes.
fn read_capped(file: File, expected: u64, cap: u64) -> std::io::Result<Vec<u8>> {
    let mut raw = Vec::with_capacity(expected.min(cap) as usize + 1);
    file.take(cap + 1).read_to_end(&mut raw)?;
    Ok(raw)
}

/// Opens `path` for reading without following a final symlink that leaves
/// `boundary` and without blocking (see the module doc). A final symlink is
/// judged by its target, which is then opened the same way.
fn open_checked(path: &Path, boundary: &Boundary) -> std::io::Result<File> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_OPEN_HOPS {
        match open_no_follow(&current) {
            Err(error) if is_symlink_refusal(&error, &current) => {
                let target = std::fs::read_link(&current)?;
                let base = current.parent().unwrap_or(Path::new("/"));
                let target = normalize(&base.join(target));
                if !boundary.contains(&target) {
                    return Err(std::io::Error::new(
                        ErrorKind::PermissionDenied,
                        "symlink leads outside the session",
                    ));
                }
                current = target;
            }
            opened => return opened,
        }
    }
    Err(std::io::Error::other("too many symlinks"))
}

/// A final link refused by [`open_no_follow`], confirmed with `lstat` so a
/// real loop error is not mistaken for it.
fn is_symlink_refusal(error: &std::io::Error, path: &Path) -> bool {
    crate::platform::no_follow::is_link_refusal(error)
        && std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// The largest file read on the host's thread; a larger one goes to the blocking pool, so a
/// read and its diff there stay short.
pub const INLINE_MAX_BYTES: u64 = 65_536;

/// DIFF-9 without leaving the host's thread, for what can be read so: a file beneath `local`
/// that is missing, or regular and at most [`INLINE_MAX_BYTES`]. `None` for anything else (a
/// symlink, another mount, a FIFO or device, a larger file, any error), which the caller reads
/// on the blocking pool with the full checks.
pub fn snapshot_local(path: &Path, local: &LocalDir) -> Option<Snapshot> {
    let relative = path.strip_prefix(local.path()).ok()?;
    let file = match local.open_beneath(relative) {
        Ok(file) => file,
        Err(e) if e.kind() == ErrorKind::NotFound => return Some(Snapshot::Missing),
        Err(_) => return None,
    };
    let metadata = file.metadata().ok()?;
    if !metadata.is_file() || metadata.len() > INLINE_MAX_BYTES {
        return None;
    }
    let raw = read_capped(file, metadata.len(), INLINE_MAX_BYTES).ok()?;
    if raw.len() as u64 > INLINE_MAX_BYTES {
        return None;
    }
    Some(classify_bytes(
        raw,
        Some(metadata.len()),
        metadata.modified().ok(),
    ))
}

/// Every path's [`snapshot_local`], or `None` when any of them must be read on the pool.
pub fn snapshot_all_local(paths: &[PathBuf], local: &LocalDir) -> Option<Snapshots> {
    paths
        .iter()
        .map(|p| Some((p.clone(), snapshot_local(p, local)?)))
        .collect()
}

/// Snapshots every path the user named (no boundary).
#[cfg(any(test, feature = "test-support"))]
pub fn snapshot_all(paths: &[PathBuf]) -> Snapshots {
    snapshot_all_in(paths, &Boundary::unrestricted())
}

/// Snapshots every candidate within `boundary`.
pub fn snapshot_all_in(paths: &[PathBuf], boundary: &Boundary) -> Snapshots {
    paths
        .iter()
        .map(|p| (p.clone(), snapshot_in(p, boundary)))
        .collect()
}

/// The candidates' snapshots, read on tokio's blocking pool, or,
/// when that takes longer than `limit`, every path skipped with the
/// time-limit reason (the read is abandoned, never awaited further).
pub async fn snapshot_all_timed(
    paths: Vec<PathBuf>,
    boundary: Boundary,
    limit: Duration,
) -> Snapshots {
    let keys = paths.clone();
    within_time_limit(keys, limit, move || snapshot_all_in(&paths, &boundary)).await
}

/// Runs `read` on the blocking pool for at most `limit`. A read
/// that panicked gives silent skips.
pub async fn within_time_limit<F>(paths: Vec<PathBuf>, limit: Duration, read: F) -> Snapshots
where
    F: FnOnce() -> Snapshots + Send + 'static,
{
    let reason = match tokio::time::timeout(limit, tokio::task::spawn_blocking(read)).await {
        Ok(Ok(snapshots)) => return snapshots,
        Ok(Err(_)) => SkipReason::Silent,
        Err(_) => SkipReason::TimedOut,
    };
    skipped_all(paths, reason)
}

/// DIFF-23 with no task between the read and its answer: `work` runs on
/// tokio's blocking pool and, when it returns within `limit`, `done(Some(_))`
/// runs right there, on that blocking thread; otherwise a timer task calls
/// `done(None)` at the limit and the late answer is dropped. `done` runs
/// exactly once. The timer is armed beside the job, so the answer's path is
/// the caller's thread, one blocking thread and back (for the addon's
/// native edit reads, where a task awaiting the job would add two thread
/// wake-ups). Must be called within a tokio runtime.
pub fn race_time_limit<R, W, D>(limit: Duration, work: W, done: D)
where
    R: Send + 'static,
    W: FnOnce() -> R + Send + 'static,
    D: FnOnce(Option<R>) + Send + 'static,
{
    let slot = Arc::new(Mutex::new(Some(done)));
    let by_work = slot.clone();
    tokio::task::spawn_blocking(move || {
        let answer = work();
        let first = lock(&by_work).take();
        if let Some(done) = first {
            done(Some(answer));
        }
    });
    tokio::spawn(async move {
        tokio::time::sleep(limit).await;
        let first = lock(&slot).take();
        if let Some(done) = first {
            done(None);
        }
    });
}

/// Every path skipped for `reason`, with nothing known about the file: what
/// a read that did not finish or panicked leaves.
pub fn skipped_all(paths: impl IntoIterator<Item = PathBuf>, reason: SkipReason) -> Snapshots {
    paths
        .into_iter()
        .map(|path| {
            let skipped = Snapshot::Skipped {
                reason,
                size: None,
                mtime: None,
            };
            (path, skipped)
        })
        .collect()
}
