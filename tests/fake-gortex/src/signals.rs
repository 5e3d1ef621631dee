//! SIGTERM handling: a dedicated thread waits for the signal (so logging is not done inside a
//! signal handler), logs the exit, then dies by the signal; or, with `ignore_sigterm`, logs and
//! carries on (MCP-15 must then escalate to SIGKILL).

/// Windows has no SIGTERM: a stop is a kill (of the job the child runs in), which no handler sees.
#[cfg(not(unix))]
pub fn install(_ignore: bool) {}

#[cfg(unix)]
pub fn install(ignore: bool) {
    use crate::log;
    use serde_json::json;

    // SAFETY: plain libc signal-mask calls on a locally owned sigset; done before any other thread
    // starts, so every later thread inherits the blocked mask and only the waiter sees SIGTERM.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGTERM);
        if libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) != 0 {
            return;
        }
        std::thread::spawn(move || loop {
            let mut sig: libc::c_int = 0;
            if libc::sigwait(&set, &mut sig) != 0 {
                return;
            }
            if ignore {
                log::record("signal", json!({"signal": "SIGTERM", "ignored": true}));
                continue;
            }
            log::record("exit", json!({"code": 143, "reason": "sigterm"}));
            libc::signal(libc::SIGTERM, libc::SIG_DFL);
            libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
            libc::raise(libc::SIGTERM);
            libc::_exit(143);
        });
    }
}
