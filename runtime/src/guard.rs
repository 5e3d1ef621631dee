//! Panic containment: the one place a panic is caught.
//!
//! A Rust panic must never reach the host and must never print: Pi is a TUI
//! and its print/JSON output is machine-read. The panic hook therefore only
//! records the message, and every binding method, and every callback the
//! runtime runs for another room, runs inside [`guard_sync`] (or
//! [`guard_async`], which is [`guard_sync`] at each poll), which turns an
//! unwinding panic into the fail-open value. The recorded messages are drained into the end of a
//! session start or a first turn, which reports the first one once per
//! session.

use std::future::Future;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{Mutex, Once};
use std::task::Poll;

/// Messages of panics caught since the glue last drained them. Bounded so a
/// panic loop cannot grow memory without limit.
static RECORDED: Mutex<Vec<String>> = Mutex::new(Vec::new());
const MAX_RECORDED: usize = 16;
static HOOK: Once = Once::new();

/// Installs the silent panic hook once per process. Each cdylib carries its
/// own std, so in an addon this hook governs only the addon's panics.
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
    let mut work = Box::pin(work);
    let polled = std::future::poll_fn(|cx| {
        guard_sync(|| Poll::Ready(None), || work.as_mut().poll(cx).map(Some))
    });
    polled.await.unwrap_or_else(fallback)
}

/// Held by the tests that take the process-wide record, so one never takes
/// another's.
#[cfg(test)]
pub(crate) static RECORD_TAKERS: Mutex<()> = Mutex::new(());

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_the_fallback_and_is_recorded_once() {
        let _serial = crate::sync::lock(&RECORD_TAKERS);
        take_recorded();
        let value = guard_sync(|| 7, || panic!("boom"));
        assert_eq!(value, 7);
        let recorded = take_recorded();
        assert_eq!(recorded.len(), 1);
        assert!(recorded[0].starts_with("boom"));
        assert!(take_recorded().is_empty());
    }

    #[test]
    fn the_record_keeps_the_first_sixteen_messages_of_a_panic_loop() {
        let _serial = crate::sync::lock(&RECORD_TAKERS);
        take_recorded();
        for n in 0..MAX_RECORDED + 4 {
            record(format!("m{n}"));
        }
        let recorded = take_recorded();
        assert_eq!(recorded.len(), MAX_RECORDED);
        assert_eq!(recorded.first().map(String::as_str), Some("m0"));
        assert_eq!(recorded.last().map(String::as_str), Some("m15"));
    }

    #[tokio::test]
    #[allow(clippy::await_holding_lock)] // The lock only orders tests; one thread each.
    async fn a_panic_at_a_later_poll_becomes_the_fallback() {
        let _serial = crate::sync::lock(&RECORD_TAKERS);
        let value = guard_async(|| 7, async {
            tokio::task::yield_now().await;
            panic!("later");
        })
        .await;
        assert_eq!(value, 7);
        assert!(take_recorded()
            .iter()
            .any(|message| message.starts_with("later")));
    }
}
