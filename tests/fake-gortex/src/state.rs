//! Cross-process state (FAKE-8 counters, FAKE-6 hook sessions) kept in the state directory.
//!
//! Every read-modify-write holds an exclusive `flock` on the file it changes, so fake processes
//! that run at the same time (a respawned `mcp` child, parallel hooks) never lose an update.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

/// `FAKE_GORTEX_STATE`, else the log's directory, else a per-user temp directory.
pub fn state_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("FAKE_GORTEX_STATE").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    if let Some(log) = std::env::var_os("FAKE_GORTEX_LOG").filter(|d| !d.is_empty()) {
        if let Some(parent) = PathBuf::from(log).parent() {
            if !parent.as_os_str().is_empty() {
                return parent.to_path_buf();
            }
        }
    }
    let uid = user_id();
    std::env::temp_dir().join(format!("fake-gortex-state-{uid}"))
}

/// Where hook session files live: `GORTEX_HOOK_SESSION_DIR` wins over the state dir.
pub fn session_dir() -> PathBuf {
    match std::env::var_os("GORTEX_HOOK_SESSION_DIR").filter(|d| !d.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => state_dir(),
    }
}

/// An exclusively locked file; the lock is released when it is dropped (file closed).
pub struct Locked {
    file: File,
}

impl Locked {
    pub fn open(path: &PathBuf) -> std::io::Result<Locked> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        lock_exclusive(&file)?;
        Ok(Locked { file })
    }

    pub fn read_all(&mut self) -> String {
        let mut text = String::new();
        let _ = self.file.seek(SeekFrom::Start(0));
        let _ = self.file.read_to_string(&mut text);
        text
    }

    pub fn replace(&mut self, content: &str) -> std::io::Result<()> {
        self.file.set_len(0)?;
        self.file.seek(SeekFrom::Start(0))?;
        self.file.write_all(content.as_bytes())
    }
}

fn counter_path(name: &str) -> PathBuf {
    let safe: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    state_dir().join(format!("fake-gortex-counter-{safe}"))
}

/// Increments the named counter and returns its new value (the first call returns 1). When the
/// state dir is unusable, counting degrades to "always the first occurrence".
pub fn bump(name: &str) -> u64 {
    let Ok(mut locked) = Locked::open(&counter_path(name)) else {
        return 1;
    };
    let next = locked.read_all().trim().parse::<u64>().unwrap_or(0) + 1;
    let _ = locked.replace(&next.to_string());
    next
}

/// A session id reduced to `[A-Za-z0-9._-]`, used as the session file name.
pub fn sanitize_session_id(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The user, so two users' state dirs never mix (the uid on Unix).
#[cfg(unix)]
fn user_id() -> String {
    // SAFETY: getuid has no preconditions and cannot fail.
    unsafe { libc::getuid() }.to_string()
}

/// The user, so two users' state dirs never mix (the user name on Windows).
#[cfg(not(unix))]
fn user_id() -> String {
    std::env::var("USERNAME").unwrap_or_default()
}

#[cfg(unix)]
fn lock_exclusive(file: &File) -> std::io::Result<()> {
    use std::os::unix::io::AsRawFd;
    // SAFETY: the fd is owned by `file` and stays open for the lock's lifetime.
    let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

// std's lock (1.89) is newer than the workspace's rust-version; only the Windows test double uses it.
#[cfg(not(unix))]
#[allow(clippy::incompatible_msrv)]
fn lock_exclusive(file: &File) -> std::io::Result<()> {
    file.lock()
}
