//! The one way an answer crosses back to JavaScript: [`answer`] settles a runtime [`Answer`].
//! A value known before the method returns is returned as is (no promise, no hop); else it is
//! a promise (`Promise.withResolvers()`) settled through one long-lived thread-safe function per
//! JavaScript thread (napi-rs's `async fn` makes one per call; docs/decisions/012). That
//! function holds the loop open exactly while a promise is pending: a parked answer's only once
//! the runtime holds it.

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use napi::bindgen_prelude::{within_runtime_if_available, Function, FunctionRef, Unknown};
use napi::bindgen_prelude::{JsObjectValue, JsValue, Object};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{Env, Status};
use pi_gortex_runtime::extension::{guard, Answer, Settler};
use pi_gortex_runtime::sync::lock;
use serde::Serialize;
use serde_json::Value;

use crate::boundary::{parsed, to_js};

/// A method's answer: `null`, the value itself, or a promise of it.
pub type Answered<'env> = napi::Result<Option<Unknown<'env>>>;

/// One settlement, run on the JavaScript thread.
type Job = Box<dyn FnOnce(&Env) + Send>;

/// The runtime threads' way back to one JavaScript thread.
type Runner = Arc<Mutex<ThreadsafeFunction<Job, (), (), Status, false, true>>>;

/// The JavaScript thread's side: its runner and how many promises that
/// hold the loop open are pending on it.
struct Local {
    env: Env,
    runner: Runner,
    pending: Cell<usize>,
}

thread_local! {
    static LOCAL: RefCell<Option<Local>> = const { RefCell::new(None) };
}

/// Settles the answer of `work`, which runs under the panic guard
/// (`fallback` answers a panic). `nothing` says which values answer `null`;
/// without it the method always answers a promise.
pub fn answer<'env, T: Serialize + Send + 'static>(
    env: &'env Env,
    fallback: impl FnOnce() -> T,
    work: impl FnOnce() -> Answer<T>,
    nothing: Option<fn(&T) -> bool>,
) -> Answered<'env> {
    let answer = guard::guard_sync(|| Answer::Now(fallback()), work);
    let mut promise = None;
    let mut settler = |weak| {
        let (settler, made) = PromiseSettler::new(env, weak).ok()?;
        promise = Some(made.to_unknown());
        Some(settler.into_settler())
    };
    // Inside napi's runtime, for work that spawns there from Pi's thread.
    let within = |start: Box<dyn FnOnce() + '_>| {
        let failed = || guard::record("pi-gortex: the async runtime is unavailable".into());
        guard::guard_sync(failed, || within_runtime_if_available(start))
    };
    match (answer.start(within, &mut settler), nothing) {
        (Some(value), Some(nothing)) if nothing(&value) => Ok(None),
        (Some(value), Some(_)) => parsed(env, &value).map(Some),
        (Some(value), None) => Ok(settler(false).map(|(reply, _)| reply(value)).and(promise)),
        (None, _) => Ok(promise),
    }
}

/// The settling end of one promise: settled once, from any thread; dropped
/// unsettled (its task was cancelled or panicked past its guard), it
/// answers `null`, so the promise still settles.
struct PromiseSettler {
    resolve: Option<FunctionRef<Value, ()>>,
    runner: Runner,
    /// Not counted as pending (yet).
    weak: Arc<AtomicBool>,
}

impl PromiseSettler {
    /// A pending promise and its settling end; a `weak` one does not hold
    /// the loop open until its hold.
    fn new(env: &Env, weak: bool) -> napi::Result<(Self, Object<'_>)> {
        let runner = runner(env)?;
        // `Promise` is a function: read as the object it also is.
        let class: Object = env.get_global()?.get_named_property_unchecked("Promise")?;
        let with_resolvers: Function<(), Object> = class.get_named_property("withResolvers")?;
        let resolvers = with_resolvers.apply(class, ())?;
        let resolve: Function<Value, ()> = resolvers.get_named_property("resolve")?;
        let settler = PromiseSettler {
            resolve: Some(resolve.create_ref()?),
            runner,
            weak: Arc::new(AtomicBool::new(weak)),
        };
        if !weak {
            count_pending(1);
        }
        Ok((settler, resolvers.get_named_property_unchecked("promise")?))
    }

    /// The runtime's way to settle it: the reply and the hold.
    fn into_settler<T: Serialize + Send + 'static>(mut self) -> Settler<T> {
        let (runner, weak) = (self.runner.clone(), self.weak.clone());
        let holding = Box::new(move || hold(&runner, &weak));
        (Box::new(move |value| self.send(to_js(&value))), holding)
    }

    fn send(&mut self, value: Value) {
        let Some(resolve) = self.resolve.take() else {
            return;
        };
        let weak = self.weak.clone();
        let job: Job = Box::new(move |env| resolve_on(env, resolve, value, &weak));
        run(&self.runner, job);
    }
}

impl Drop for PromiseSettler {
    fn drop(&mut self) {
        self.send(Value::Null);
    }
}

/// A weak promise holds the loop open from now on, like any pending one: at
/// once on its JavaScript thread, else by the next job there (ahead of its
/// settlement). A promise already holding is left as is.
fn hold(runner: &Runner, weak: &AtomicBool) {
    if !weak.swap(false, Ordering::SeqCst) {
        return;
    }
    let here = LOCAL.with(|local| {
        let local = local.borrow();
        local
            .as_ref()
            .filter(|l| Arc::ptr_eq(&l.runner, runner))
            .map(|_| ())
    });
    match here {
        Some(_) => count_pending(1),
        None => run(runner, Box::new(|_| count_pending(1))),
    }
}

/// Runs `job` on the JavaScript thread; a closed runner (the environment is
/// going away) drops it.
fn run(runner: &Runner, job: Job) {
    lock(runner).call(job, ThreadsafeFunctionCallMode::NonBlocking);
}

/// Resolves a promise on its JavaScript thread; it no longer holds the loop.
fn resolve_on(env: &Env, resolve: FunctionRef<Value, ()>, value: Value, weak: &AtomicBool) {
    if let Ok(resolve) = resolve.borrow_back(env) {
        let _ = resolve.call(value);
    }
    if !weak.load(Ordering::SeqCst) {
        count_pending(-1);
    }
}

/// One more (`+1`) or one fewer (`-1`) pending promise on this JavaScript
/// thread; its runner holds the loop open exactly while one is pending.
#[allow(deprecated)] // napi-rs's alternative, counting clones, makes a thread-safe function each time.
fn count_pending(delta: isize) {
    LOCAL.with(|local| {
        let Some(local) = &*local.borrow() else {
            return;
        };
        let before = local.pending.get();
        local.pending.set(before.saturating_add_signed(delta));
        match (before, local.pending.get()) {
            (0, 1..) => drop(lock(&local.runner).refer(&local.env)),
            (1.., 0) => drop(lock(&local.runner).unref(&local.env)),
            _ => {}
        }
    });
}

/// This thread's runner for `env`, made on first use.
fn runner(env: &Env) -> napi::Result<Runner> {
    let known = LOCAL.with(|local| {
        let local = local.borrow();
        let local = local.as_ref().filter(|l| l.env.raw() == env.raw());
        local.map(|local| local.runner.clone())
    });
    if let Some(runner) = known {
        return Ok(runner);
    }
    let noop = env.create_function_from_closure::<(), (), _>("settle", |_| Ok(()))?;
    let runner = noop
        .build_threadsafe_function::<Job>()
        .weak::<true>()
        .build_callback(|context| {
            (context.value)(&context.env);
            Ok(())
        })?;
    let runner = Arc::new(Mutex::new(runner));
    let local = Local {
        env: *env,
        runner: runner.clone(),
        pending: Cell::new(0),
    };
    LOCAL.with(|slot| *slot.borrow_mut() = Some(local));
    Ok(runner)
}
