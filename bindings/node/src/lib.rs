//! pi-gortex-node: the napi-rs addon the Pi extension glue loads.
//!
//! Every export is a thin adapter from a boundary shape (declared in
//! `schema/host.schema.json`) to the `pi-gortex-runtime` crate, wrapped in the
//! panic guard so a Rust bug fails open instead of reaching Node (FAIL-4).
//! Exports that may wait on a child process or the file system are async and
//! run on napi's shared tokio runtime; pure decisions are synchronous, because
//! a Promise round trip would cost more than the decision itself. The async
//! exports that run once per tool call return promises from `settle`, which
//! cost less to cross than napi-rs's `async fn` (docs/benchmarks.md).

// napi-derive registers exports only outside test builds, so unit-test
// builds see the adapters as unused.
#![cfg_attr(test, allow(dead_code))]

mod boundary;
mod client;
mod config;
mod extension;
mod generation;
mod guard;
mod native;
mod render;
mod session;
mod settle;
mod status;

use napi_derive::napi;

/// Creates the state of one module generation (SES-1). index.ts calls this
/// once per import; every factory call of that import shares the handle.
#[napi]
pub fn create_generation() -> u32 {
    guard::guard_sync(|| 0, generation::create)
}

/// Allocates an id for one factory call (SES-2).
#[napi]
pub fn create_instance() -> u32 {
    guard::guard_sync(|| 0, generation::next_instance_id)
}

/// Test-only: panics inside the guard of a runtime call, so a test can show
/// that the extension fails open and reports once. `asynchronous` picks the
/// async guard.
#[napi]
pub async fn debug_force_panic(asynchronous: bool) -> bool {
    if asynchronous {
        guard::guard_async(|| false, async { panic!("forced by debugForcePanic") }).await
    } else {
        guard::guard_sync(|| false, || panic!("forced by debugForcePanic"))
    }
}

/// napi's shared tokio runtime, built when the addon loads (napi-rs's
/// `module_init` way): one worker thread instead of one per core. The
/// exports' async work is almost all waiting on pipes and timers (the hook
/// and file reads run on the blocking pool), so a second worker adds little;
/// it does add wake-ups, since a task spawned from Pi's thread can wake both
/// workers (measured in docs/benchmarks.md). The cost: a diff, computed on the worker, holds
/// back other replies while it runs.
#[napi_derive::module_init]
fn init_runtime() {
    if let Ok(runtime) = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
    {
        napi::bindgen_prelude::create_custom_tokio_runtime(runtime);
    }
}
