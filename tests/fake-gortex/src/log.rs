//! The JSONL event log (FAKE-3): one record per line, one `write` per record, `O_APPEND`, so that
//! records from concurrent fake processes never interleave.

use serde_json::{Map, Value};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::sync::{Mutex, OnceLock};
use std::time::{SystemTime, UNIX_EPOCH};

pub struct Log {
    file: Option<File>,
    pid: u32,
    ppid: u32,
    verb: String,
}

static LOG: OnceLock<Log> = OnceLock::new();

/// A process exits once, so it logs one `exit`. Without this, a stop that
/// closes stdin and sends SIGTERM at once (MCP-15) could make the EOF path and
/// the SIGTERM thread both log one while the process was on its way out.
/// A lock, not a flag: the thread that loses must wait until the winner's
/// record is written, or it could end the process (returning from `main`)
/// between the winner's claim and its write, and no exit would be logged.
static EXIT_LOGGED: Mutex<bool> = Mutex::new(false);

/// Opens the log once per process; later calls are no-ops.
pub fn init(verb: &str) {
    let file = std::env::var_os("FAKE_GORTEX_LOG")
        .and_then(|p| OpenOptions::new().create(true).append(true).open(p).ok());
    let _ = LOG.set(Log {
        file,
        pid: std::process::id(),
        ppid: parent_pid(),
        verb: verb.to_string(),
    });
}

pub fn enabled() -> bool {
    LOG.get().is_some_and(|l| l.file.is_some())
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// Appends `{"t","pid","ppid","verb","ev", ...fields}` as one line.
pub fn record(ev: &str, fields: Value) {
    let Some(log) = LOG.get() else { return };
    let Some(file) = &log.file else { return };
    let mut exit_logged =
        (ev == "exit").then(|| EXIT_LOGGED.lock().unwrap_or_else(|e| e.into_inner()));
    if let Some(logged) = exit_logged.as_deref_mut() {
        if *logged {
            return;
        }
        *logged = true;
    }
    let mut obj = Map::new();
    obj.insert("t".into(), now_ms().into());
    obj.insert("pid".into(), log.pid.into());
    obj.insert("ppid".into(), log.ppid.into());
    obj.insert("verb".into(), log.verb.clone().into());
    obj.insert("ev".into(), ev.into());
    if let Value::Object(extra) = fields {
        obj.extend(extra);
    }
    let mut line = serde_json::to_vec(&Value::Object(obj)).unwrap_or_default();
    line.push(b'\n');
    // One write call: with O_APPEND the kernel places the whole record atomically at the end.
    let mut f: &File = file;
    let _ = f.write(&line);
}

#[cfg(unix)]
fn parent_pid() -> u32 {
    // SAFETY: getppid has no preconditions and cannot fail.
    unsafe { libc::getppid() as u32 }
}

/// Windows has no cheap parent lookup; the log records 0 there.
#[cfg(not(unix))]
fn parent_pid() -> u32 {
    0
}
