//! Promises for the per-call async exports, settled through one long-lived
//! thread-safe function per JavaScript thread.
//!
//! napi-rs's `async fn` export makes, for every call, a new thread-safe
//! function (its own libuv handle and env cleanup hook), an `Error` with a
//! captured stack trace and a reference to it, and spawns two tasks. On the
//! hot path (an own-client tool call) that is a large share of the work on
//! Pi's thread. Here a call costs one `napi_create_promise`
//! and one spawned task (or one blocking-pool job, for work that blocks, such
//! as the hook's exchange); the answer comes back through a thread-safe function
//! created once, which keeps Node's loop alive only while a promise is pending
//! (a pending call must hold the host open like any other I/O; an idle addon
//! must not: SES-17).
//!
//! A *weak* promise ([`promise_of`]) does not hold the loop open until it
//! is told to ([`PromiseSettler::hold`]): a first turn waiting for readiness
//! is a capped wait, not I/O, and must keep the host alive no more than an
//! unref'd timer would; once the wait ended on the JavaScript thread, the
//! turn's hook is I/O like any other.
//!
//! Teardown: Node finalizes a thread-safe function in an env cleanup hook
//! registered when it was created; ours, registered after it, runs first and
//! closes the channel under its lock, so no runtime thread calls the function
//! once Node may have freed it. A promise whose work finishes later is never
//! settled; its environment is gone.

use std::cell::{Cell, RefCell};
use std::ffi::c_void;
use std::future::Future;
use std::ptr;
use std::sync::{Arc, Mutex};

use napi::bindgen_prelude::{PromiseRaw, ToNapiValue};
use napi::{sys, Env, Error, Status};
use pi_gortex_runtime::sync::lock;
use serde_json::Value;

/// What a promise-returning export answers: a promise of a boundary value
/// (the export's `ts_return_type` names the value's type).
pub type Promised<'env> = napi::Result<PromiseRaw<'env, Value>>;

/// The runtime threads' way back to the JavaScript thread.
struct Channel {
    tsfn: sys::napi_threadsafe_function,
    /// Set by the env cleanup hook; checked and used under the same lock.
    closed: Mutex<bool>,
}

// SAFETY: a thread-safe function may be called from any thread; `closed`
// (held across every call) keeps calls from outliving it.
unsafe impl Send for Channel {}
unsafe impl Sync for Channel {}

/// One promise's answer, on its way to the JavaScript thread.
struct Settlement {
    deferred: sys::napi_deferred,
    value: Value,
    /// A weak promise was never counted as pending.
    weak: bool,
}

/// The settling end of one promise. Dropped without an answer (the task was
/// cancelled, or panicked past its guard), it answers `null`, so the promise
/// still settles and the loop is not held open for it.
struct Settler {
    channel: Arc<Channel>,
    deferred: sys::napi_deferred,
    sent: bool,
    weak: bool,
}

// SAFETY: the deferred handle is only passed back to the JavaScript thread,
// which alone dereferences it (in `call_js`).
unsafe impl Send for Settler {}

impl Settler {
    fn settle(mut self, value: Value) {
        self.send(value);
    }

    /// Resolves at once; only on the JavaScript thread of `env`, the one the
    /// promise was made on.
    fn resolve_now(mut self, env: sys::napi_env, value: Value) {
        self.sent = true;
        resolve(env, self.deferred, value);
        if !self.weak {
            count_pending(env, -1);
        }
    }

    fn send(&mut self, value: Value) {
        if std::mem::replace(&mut self.sent, true) {
            return;
        }
        let closed = lock(&self.channel.closed);
        if *closed {
            return;
        }
        let data = Box::into_raw(Box::new(Settlement {
            deferred: self.deferred,
            value,
            weak: self.weak,
        }));
        // SAFETY: the function is alive while `closed` is false and locked.
        let status = unsafe {
            sys::napi_call_threadsafe_function(
                self.channel.tsfn,
                data.cast(),
                sys::ThreadsafeFunctionCallMode::nonblocking,
            )
        };
        if status != sys::Status::napi_ok {
            // SAFETY: not queued, so still ours.
            drop(unsafe { Box::from_raw(data) });
        }
    }
}

impl Drop for Settler {
    fn drop(&mut self) {
        self.send(Value::Null);
    }
}

/// The JavaScript thread's side: its channel and how many promises are
/// pending on it.
struct Local {
    env: sys::napi_env,
    channel: Arc<Channel>,
    pending: Cell<usize>,
}

thread_local! {
    static LOCAL: RefCell<Option<Local>> = const { RefCell::new(None) };
}

fn check(status: sys::napi_status, what: &str) -> napi::Result<()> {
    if status == sys::Status::napi_ok {
        Ok(())
    } else {
        Err(Error::new(
            Status::GenericFailure,
            format!("{what} failed ({status})"),
        ))
    }
}

/// This thread's channel for `env`, created on first use.
fn channel(env: sys::napi_env) -> napi::Result<Arc<Channel>> {
    if let Some(channel) = LOCAL.with(|local| {
        local
            .borrow()
            .as_ref()
            .filter(|local| local.env == env)
            .map(|local| local.channel.clone())
    }) {
        return Ok(channel);
    }
    let name = "pi-gortex settle";
    let mut resource_name = ptr::null_mut();
    let mut tsfn = ptr::null_mut();
    // SAFETY: plain napi calls on the JavaScript thread of `env`.
    unsafe {
        check(
            sys::napi_create_string_utf8(
                env,
                name.as_ptr().cast(),
                name.len() as isize,
                &mut resource_name,
            ),
            "napi_create_string_utf8",
        )?;
        check(
            sys::napi_create_threadsafe_function(
                env,
                ptr::null_mut(),
                ptr::null_mut(),
                resource_name,
                0,
                1,
                ptr::null_mut(),
                None,
                ptr::null_mut(),
                Some(call_js),
                &mut tsfn,
            ),
            "napi_create_threadsafe_function",
        )?;
        // Idle, it must not keep the host alive.
        check(
            sys::napi_unref_threadsafe_function(env, tsfn),
            "napi_unref_threadsafe_function",
        )?;
    }
    let channel = Arc::new(Channel {
        tsfn,
        closed: Mutex::new(false),
    });
    let hook_arg = Arc::into_raw(channel.clone()) as *mut c_void;
    // SAFETY: registered after the function, so it runs before Node's own
    // teardown of it (cleanup hooks run in reverse order).
    let status = unsafe { sys::napi_add_env_cleanup_hook(env, Some(on_env_cleanup), hook_arg) };
    if status != sys::Status::napi_ok {
        // SAFETY: the hook was not registered, so the reference is ours.
        drop(unsafe { Arc::from_raw(hook_arg as *const Channel) });
        return Err(Error::new(
            Status::GenericFailure,
            "napi_add_env_cleanup_hook failed",
        ));
    }
    LOCAL.with(|local| {
        *local.borrow_mut() = Some(Local {
            env,
            channel: channel.clone(),
            pending: Cell::new(0),
        })
    });
    Ok(channel)
}

unsafe extern "C" fn on_env_cleanup(arg: *mut c_void) {
    // SAFETY: the reference `channel` leaked for this hook.
    let channel = unsafe { Arc::from_raw(arg as *const Channel) };
    *lock(&channel.closed) = true;
    let _ = LOCAL.try_with(|local| {
        let mut local = local.borrow_mut();
        if local
            .as_ref()
            .is_some_and(|l| Arc::ptr_eq(&l.channel, &channel))
        {
            local.take();
        }
    });
}

/// One more (`+1`) or one fewer (`-1`) pending promise on this thread; the
/// channel holds the loop open exactly while one is pending.
fn count_pending(env: sys::napi_env, delta: isize) {
    LOCAL.with(|local| {
        let local = local.borrow();
        let Some(local) = local.as_ref().filter(|local| local.env == env) else {
            return;
        };
        let before = local.pending.get();
        let after = before.saturating_add_signed(delta);
        local.pending.set(after);
        // SAFETY: on the JavaScript thread of `env`, the channel still open.
        unsafe {
            if before == 0 && after > 0 {
                sys::napi_ref_threadsafe_function(env, local.channel.tsfn);
            } else if before > 0 && after == 0 {
                sys::napi_unref_threadsafe_function(env, local.channel.tsfn);
            }
        }
    });
}

/// Runs on the JavaScript thread for each settlement.
unsafe extern "C" fn call_js(
    env: sys::napi_env,
    _js_callback: sys::napi_value,
    _context: *mut c_void,
    data: *mut c_void,
) {
    // SAFETY: every queued pointer is a boxed `Settlement`.
    let settlement = unsafe { Box::from_raw(data.cast::<Settlement>()) };
    if env.is_null() {
        // The function is being torn down: nothing to settle into.
        return;
    }
    let Settlement {
        deferred,
        value,
        weak,
    } = *settlement;
    resolve(env, deferred, value);
    if !weak {
        count_pending(env, -1);
    }
}

/// Resolves `deferred` with `value`, on the JavaScript thread of `env`.
fn resolve(env: sys::napi_env, deferred: sys::napi_deferred, value: Value) {
    // A panic must not unwind into Node; `null` then settles it.
    let resolved = std::panic::catch_unwind(|| unsafe { Value::to_napi_value(env, value) })
        .ok()
        .and_then(Result::ok)
        .unwrap_or_else(|| {
            let mut null = ptr::null_mut();
            unsafe { sys::napi_get_null(env, &mut null) };
            null
        });
    // SAFETY: `deferred` came from `napi_create_promise` on this env and is
    // resolved exactly once (a Settler sends or resolves once).
    unsafe { sys::napi_resolve_deferred(env, deferred, resolved) };
}

/// Runs `start` inside napi's runtime (for work that spawns on it from Pi's
/// thread); a missing runtime is recorded, never a panic into Node. False
/// when `start` did not complete (its spawns may not have happened).
pub fn within_runtime(start: impl FnOnce()) -> bool {
    let started = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        napi::bindgen_prelude::within_runtime_if_available(start)
    }));
    if started.is_err() {
        crate::guard::record("pi-gortex: the async runtime is unavailable".to_string());
    }
    started.is_ok()
}

/// The settling end of a promise made by [`promise`]: settled once, from
/// any thread; dropped unsettled, it answers `null`.
#[derive(Debug)]
pub struct PromiseSettler(Settler);

impl PromiseSettler {
    /// Settles through the channel (any thread).
    pub fn settle(self, value: Value) {
        self.0.settle(value);
    }

    /// Resolves at once, on the JavaScript thread of `env` (the promise's).
    pub fn resolve_now(self, env: &Env, value: Value) {
        self.0.resolve_now(env.raw(), value);
    }

    /// A weak promise holds the loop open from now on, like any pending
    /// one; on the JavaScript thread of `env`.
    pub fn hold(&mut self, env: &Env) {
        if std::mem::replace(&mut self.0.weak, false) {
            count_pending(env.raw(), 1);
        }
    }

    /// Whether the promise does not hold the loop open.
    pub fn is_weak(&self) -> bool {
        self.0.weak
    }
}

/// A pending promise and its settling end; a `weak` one does not hold the
/// loop open until [`PromiseSettler::hold`].
pub fn promise_of(env: &Env, weak: bool) -> napi::Result<(PromiseSettler, PromiseRaw<'_, Value>)> {
    let (settler, promise) = new_promise(env, weak)?;
    Ok((PromiseSettler(settler), promise))
}

/// A pending promise and its settling end.
pub fn promise(env: &Env) -> napi::Result<(PromiseSettler, PromiseRaw<'_, Value>)> {
    promise_of(env, false)
}

/// A promise already resolved with `value`, on the JavaScript thread of
/// `env`: for an async export whose answer is known without any work.
pub fn resolved(env: &Env, value: Value) -> Promised<'_> {
    let (settler, promise) = new_promise(env, false)?;
    settler.resolve_now(env.raw(), value);
    Ok(promise)
}

/// A pending promise on this thread's channel and its settling end; a
/// `weak` one does not hold the loop open while it is pending.
fn new_promise(env: &Env, weak: bool) -> napi::Result<(Settler, PromiseRaw<'_, Value>)> {
    let raw = env.raw();
    let channel = channel(raw)?;
    let mut deferred = ptr::null_mut();
    let mut promise = ptr::null_mut();
    // SAFETY: on the JavaScript thread of `env`.
    check(
        unsafe { sys::napi_create_promise(raw, &mut deferred, &mut promise) },
        "napi_create_promise",
    )?;
    if !weak {
        count_pending(raw, 1);
    }
    let settler = Settler {
        channel,
        deferred,
        sent: false,
        weak,
    };
    Ok((settler, PromiseRaw::new(raw, promise)))
}

/// A promise of `work`'s value, which runs on napi's runtime. `work` must
/// not panic (wrap it in `guard::guard_async`); if it does, or the runtime
/// drops it, the promise resolves to `null`.
pub fn spawn_promise<F>(env: &Env, work: F) -> Promised<'_>
where
    F: Future<Output = Value> + Send + 'static,
{
    let (settler, promise) = new_promise(env, false)?;
    spawn(async move {
        let value = work.await;
        settler.settle(value);
    });
    Ok(promise)
}

/// Spawns `task` on napi's runtime. A spawn that panics (no runtime) drops
/// the task, and with it any settler inside, which then answers `null`; the
/// panic itself must not reach Node.
pub fn spawn(task: impl Future<Output = ()> + Send + 'static) {
    let spawned = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        napi::bindgen_prelude::spawn(task);
    }));
    if spawned.is_err() {
        crate::guard::record("pi-gortex: the async runtime is unavailable".to_string());
    }
}

impl std::fmt::Debug for Settler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settler").field("weak", &self.weak).finish()
    }
}
