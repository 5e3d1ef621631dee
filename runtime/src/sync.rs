//! The one poison-ignoring `lock` of the crate and of the napi addon.
//!
//! A panic while holding one of these locks leaves consistent data (every
//! critical section is a few assignments), and the panic itself is already
//! contained (the addon's guard, the client's task supervision), so a
//! poisoned lock is taken as it is rather than disabling the extension.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks `mutex`, recovering the data of a poisoned one.
pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
