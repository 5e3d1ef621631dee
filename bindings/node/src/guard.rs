//! Panic containment for every export.
//!
//! A Rust panic must never reach Node and must never print: Pi is a TUI and
//! its print/JSON output is machine-read. The panic hook therefore only
//! records the message, and every export runs inside [`guard_sync`] or
//! [`guard_async`], which turn an unwinding panic into the export's fail-open
//! value. The recorded messages are drained by the glue, which reports the
//! first one once per session.

use std::future::Future;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{Mutex, Once};

use futures_util::FutureExt;

/// Messages of panics caught since the glue last drained them. Bounded so a
/// panic loop cannot grow memory without limit.
static RECORDED: Mutex<Vec<String>> = Mutex::new(Vec::new());
const MAX_RECORDED: usize = 16;
static HOOK: Once = Once::new();

/// Installs the silent panic hook once per process. Each cdylib carries its
/// own std, so this hook governs only this addon's panics.
pub fn install_panic_hook() {
    HOOK.call_once(|| {
        panic::set_hook(Box::new(|info| {
            let message = panic_text(info.payload());
            let place = info
                .location()
                .map(|l| format!(" at {}:{}", l.file(), l.line()))
                .unwrap_or_default();
            record(format!("{message}{place}"));
        }));
    });
}

/// Records one message for the glue to report (a panic, or a boundary
/// value that failed to convert).
pub fn record(message: String) {
    if let Ok(mut recorded) = RECORDED.lock() {
        if recorded.len() < MAX_RECORDED {
            recorded.push(message);
        }
    }
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_string()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "unknown panic".to_string()
    }
}

/// Drains the recorded panic messages (oldest first).
pub fn take_recorded() -> Vec<String> {
    RECORDED
        .lock()
        .map(|mut recorded| std::mem::take(&mut *recorded))
        .unwrap_or_default()
}

/// Runs `work`, answering `fallback` when it panics.
pub fn guard_sync<T>(fallback: impl FnOnce() -> T, work: impl FnOnce() -> T) -> T {
    install_panic_hook();
    panic::catch_unwind(AssertUnwindSafe(work)).unwrap_or_else(|_| fallback())
}

/// Awaits `work`, answering `fallback` when it panics at any poll.
pub async fn guard_async<T>(fallback: impl FnOnce() -> T, work: impl Future<Output = T>) -> T {
    install_panic_hook();
    AssertUnwindSafe(work)
        .catch_unwind()
        .await
        .unwrap_or_else(|_| fallback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_the_fallback_and_is_recorded_once() {
        take_recorded();
        let value = guard_sync(|| 7, || panic!("boom"));
        assert_eq!(value, 7);
        let recorded = take_recorded();
        assert_eq!(recorded.len(), 1);
        assert!(recorded[0].starts_with("boom"));
        assert!(take_recorded().is_empty());
    }
}
