//! Promises whose answer comes from napi's runtime threads, made with
//! napi-rs's safe types only. A promise is JavaScript's own
//! (`Promise.withResolvers()`); answers made on a runtime thread come back
//! through one long-lived thread-safe function per JavaScript thread, which
//! runs each settlement there (napi-rs's `async fn` makes one per call;
//! docs/decisions/012-napi-rs-promises.md). That function is unref'd while
//! idle, so an idle addon never keeps the host alive, and ref'd while a
//! pending promise holds the loop open. A *weak* promise ([`promise_of`])
//! holds it only once told to ([`PromiseSettler::hold`]): a first turn
//! waiting for readiness is a capped wait, like an unref'd timer, not I/O.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::sync::{Arc, Mutex};

use napi::bindgen_prelude::{Function, FunctionRef, JsObjectValue, Object};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{Env, Status};
use pi_gortex_runtime::sync::lock;
use serde_json::Value;

/// What a promise-returning method answers: a promise of a boundary value
/// (the method's `ts_return_type` names the value's type).
pub type Promised<'env> = napi::Result<Object<'env>>;

/// One settlement, run on the JavaScript thread.
type Job = Box<dyn FnOnce(&Env) + Send>;

/// The runtime threads' way back to one JavaScript thread.
type Runner = ThreadsafeFunction<Job, (), (), Status, false, true>;

/// A promise's `resolve`.
type Resolve = FunctionRef<Value, ()>;

/// The JavaScript thread's side: its runner and how many promises that
/// hold the loop open are pending on it.
struct Local {
    env: usize,
    runner: Arc<Mutex<Runner>>,
    pending: Cell<usize>,
}

thread_local! {
    static LOCAL: RefCell<Option<Local>> = const { RefCell::new(None) };
}

/// The settling end of one promise: settled once, from any thread; dropped
/// unsettled (its task was cancelled or panicked past its guard), it
/// answers `null`, so the promise still settles.
pub struct PromiseSettler {
    resolve: Option<Resolve>,
    runner: Arc<Mutex<Runner>>,
    weak: bool,
}

impl std::fmt::Debug for PromiseSettler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PromiseSettler")
            .field("weak", &self.weak)
            .finish()
    }
}

impl PromiseSettler {
    /// Settles through the runner (any thread).
    pub fn settle(mut self, value: Value) {
        self.send(value);
    }

    /// Resolves at once, on the JavaScript thread of `env` (the promise's).
    pub fn resolve_now(mut self, env: &Env, value: Value) {
        if let Some(resolve) = self.resolve.take() {
            resolve_on(env, resolve, value, self.weak);
        }
    }

    /// A weak promise holds the loop open from now on, like any pending
    /// one; on the JavaScript thread of `env`.
    pub fn hold(&mut self, env: &Env) {
        if std::mem::replace(&mut self.weak, false) {
            count_pending(env, 1);
        }
    }

    fn send(&mut self, value: Value) {
        let Some(resolve) = self.resolve.take() else {
            return;
        };
        let weak = self.weak;
        let job: Job = Box::new(move |env| resolve_on(env, resolve, value, weak));
        // A closed runner (the environment is going away) drops the job.
        lock(&self.runner).call(job, ThreadsafeFunctionCallMode::NonBlocking);
    }
}

impl Drop for PromiseSettler {
    fn drop(&mut self) {
        self.send(Value::Null);
    }
}

/// A promise settled from whichever thread gets to it first.
pub type SharedSettler = Arc<Mutex<Option<PromiseSettler>>>;

/// Makes a weak promise hold the loop open, from any thread: the hold runs
/// on its JavaScript thread, and this returns once it ran; `false` when that
/// thread is going away. A promise already holding, or settled, is left as is.
pub fn hold_on_its_thread(shared: SharedSettler) -> impl Future<Output = bool> + Send {
    let weak = lock(&shared)
        .as_ref()
        .filter(|settler| settler.weak)
        .map(|settler| settler.runner.clone());
    let holding = weak.map(|runner| {
        let (held, holding) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move |env| {
            if let Some(settler) = lock(&shared).as_mut() {
                settler.hold(env);
            }
            let _ = held.send(());
        });
        lock(&runner).call(job, ThreadsafeFunctionCallMode::NonBlocking);
        holding
    });
    async move {
        match holding {
            Some(holding) => holding.await.is_ok(),
            None => true,
        }
    }
}

/// Resolves a promise on its JavaScript thread; it no longer holds the loop.
fn resolve_on(env: &Env, resolve: Resolve, value: Value, weak: bool) {
    if let Ok(resolve) = resolve.borrow_back(env) {
        let _ = resolve.call(value);
    }
    if !weak {
        count_pending(env, -1);
    }
}

/// One more (`+1`) or one fewer (`-1`) pending promise on this thread; the
/// runner holds the loop open exactly while one is pending.
#[allow(deprecated)] // napi-rs's alternative, counting clones, makes a thread-safe function each time.
fn count_pending(env: &Env, delta: isize) {
    LOCAL.with(|local| {
        let local = local.borrow();
        let Some(local) = local
            .as_ref()
            .filter(|local| local.env == env.raw() as usize)
        else {
            return;
        };
        let before = local.pending.get();
        let after = before.saturating_add_signed(delta);
        local.pending.set(after);
        if before == 0 && after > 0 {
            let _ = lock(&local.runner).refer(env);
        } else if before > 0 && after == 0 {
            let _ = lock(&local.runner).unref(env);
        }
    });
}

/// This thread's runner for `env`, made on first use.
fn runner(env: &Env) -> napi::Result<Arc<Mutex<Runner>>> {
    let key = env.raw() as usize;
    let known = LOCAL.with(|local| {
        local
            .borrow()
            .as_ref()
            .filter(|local| local.env == key)
            .map(|local| local.runner.clone())
    });
    if let Some(runner) = known {
        return Ok(runner);
    }
    let noop = env.create_function_from_closure::<(), (), _>("settle", |_| Ok(()))?;
    let runner: Runner = noop
        .build_threadsafe_function::<Job>()
        .weak::<true>()
        .build_callback(|context| {
            (context.value)(&context.env);
            Ok(())
        })?;
    let runner = Arc::new(Mutex::new(runner));
    LOCAL.with(|local| {
        *local.borrow_mut() = Some(Local {
            env: key,
            runner: runner.clone(),
            pending: Cell::new(0),
        })
    });
    Ok(runner)
}

/// A pending promise and its settling end; a `weak` one does not hold the
/// loop open until [`PromiseSettler::hold`].
pub fn promise_of(env: &Env, weak: bool) -> napi::Result<(PromiseSettler, Object<'_>)> {
    let runner = runner(env)?;
    // `Promise` is a function: read as the object it also is.
    let promise_class: Object = env.get_global()?.get_named_property_unchecked("Promise")?;
    let with_resolvers: Function<(), Object> = promise_class.get_named_property("withResolvers")?;
    let resolvers = with_resolvers.apply(promise_class, ())?;
    let promise: Object = resolvers.get_named_property_unchecked("promise")?;
    let resolve: Function<Value, ()> = resolvers.get_named_property("resolve")?;
    let settler = PromiseSettler {
        resolve: Some(resolve.create_ref()?),
        runner,
        weak,
    };
    if !weak {
        count_pending(env, 1);
    }
    Ok((settler, promise))
}

/// A promise of `work`'s value, which runs on napi's runtime. `work` must
/// not panic (wrap it in `guard::guard_async`); if it does, or the runtime
/// drops it, the promise resolves to `null`.
pub fn spawn_promise<F>(env: &Env, work: F) -> Promised<'_>
where
    F: Future<Output = Value> + Send + 'static,
{
    let (settler, promise) = promise_of(env, false)?;
    spawn(async move { settler.settle(work.await) });
    Ok(promise)
}

/// Spawns `task` on napi's runtime. A spawn that panics (no runtime) drops
/// the task, and with it any settler inside, which then answers `null`; the
/// panic itself must not reach Node.
pub fn spawn(task: impl Future<Output = ()> + Send + 'static) {
    within_runtime(|| {
        napi::bindgen_prelude::spawn(task);
    });
}

/// Runs `start` inside napi's runtime (for work that spawns on it from Pi's
/// thread); a missing runtime is recorded, never a panic into Node.
pub fn within_runtime(start: impl FnOnce()) {
    let started = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        napi::bindgen_prelude::within_runtime_if_available(start)
    }));
    if started.is_err() {
        pi_gortex_runtime::extension::guard::record(
            "pi-gortex: the async runtime is unavailable".to_string(),
        );
    }
}
