//! Promises whose answer comes from napi's runtime threads, made with
//! napi-rs's safe types only. A promise is JavaScript's own
//! (`Promise.withResolvers()`); answers made on a runtime thread come back
//! through one long-lived thread-safe function per JavaScript thread, which
//! runs each settlement there (napi-rs's `async fn` makes one per call;
//! docs/decisions/012-napi-rs-promises.md). That function is unref'd while
//! idle, so an idle addon never keeps the host alive, and ref'd while a
//! pending promise holds the loop open. A *weak* promise ([`promise_of`])
//! holds it only once told to ([`Holder::hold`]): a first turn waiting for
//! readiness is a capped wait, like an unref'd timer, not I/O.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
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
    env: Env,
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
    holder: Holder,
}

/// Makes a weak promise hold the loop open, from any thread.
#[derive(Clone)]
pub struct Holder {
    runner: Arc<Mutex<Runner>>,
    weak: Arc<AtomicBool>,
}

impl std::fmt::Debug for PromiseSettler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PromiseSettler")
            .field("weak", &self.holder.weak)
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
            resolve_on(env, resolve, value, &self.holder.weak);
        }
    }

    /// The way to make this promise hold the loop open.
    pub fn holder(&self) -> Holder {
        self.holder.clone()
    }

    fn send(&mut self, value: Value) {
        let Some(resolve) = self.resolve.take() else {
            return;
        };
        let weak = self.holder.weak.clone();
        let job: Job = Box::new(move |env| resolve_on(env, resolve, value, &weak));
        self.holder.run(job);
    }
}

impl Holder {
    /// A weak promise holds the loop open from now on, like any pending one:
    /// at once on its JavaScript thread, else by the next job there (ahead
    /// of its settlement). A promise already holding is left as is.
    pub fn hold(self) {
        if !self.weak.swap(false, Ordering::SeqCst) {
            return;
        }
        let here = LOCAL.with(|local| {
            let local = local.borrow();
            let local = local.as_ref()?;
            Arc::ptr_eq(&local.runner, &self.runner).then_some(local.env)
        });
        match here {
            Some(env) => count_pending(&env, 1),
            None => self.run(Box::new(|env| count_pending(env, 1))),
        }
    }

    /// Runs `job` on the JavaScript thread; a closed runner (the environment
    /// is going away) drops it.
    fn run(&self, job: Job) {
        lock(&self.runner).call(job, ThreadsafeFunctionCallMode::NonBlocking);
    }
}

impl Drop for PromiseSettler {
    fn drop(&mut self) {
        self.send(Value::Null);
    }
}

/// Resolves a promise on its JavaScript thread; it no longer holds the loop.
fn resolve_on(env: &Env, resolve: Resolve, value: Value, weak: &AtomicBool) {
    if let Ok(resolve) = resolve.borrow_back(env) {
        let _ = resolve.call(value);
    }
    if !weak.load(Ordering::SeqCst) {
        count_pending(env, -1);
    }
}

/// One more (`+1`) or one fewer (`-1`) pending promise on this thread; the
/// runner holds the loop open exactly while one is pending.
#[allow(deprecated)] // napi-rs's alternative, counting clones, makes a thread-safe function each time.
fn count_pending(env: &Env, delta: isize) {
    LOCAL.with(|local| {
        let local = local.borrow();
        let Some(local) = local.as_ref().filter(|local| local.env.raw() == env.raw()) else {
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
    let known = LOCAL.with(|local| {
        local
            .borrow()
            .as_ref()
            .filter(|local| local.env.raw() == env.raw())
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
            env: *env,
            runner: runner.clone(),
            pending: Cell::new(0),
        })
    });
    Ok(runner)
}

/// A pending promise and its settling end; a `weak` one does not hold the
/// loop open until [`Holder::hold`].
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
        holder: Holder {
            runner,
            weak: Arc::new(AtomicBool::new(weak)),
        },
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
