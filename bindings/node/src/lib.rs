//! pi-gortex-node: the napi-rs addon the Pi extension glue loads.
//!
//! The `Extension` class (`extension.rs`) carries the Pi events it handles
//! into `pi_gortex_runtime::extension`, one call per event. The other exports
//! adapt a boundary shape (declared in `schema/host.schema.json`) to the
//! runtime. Everything runs inside the panic guard, so a Rust bug fails open
//! instead of reaching Node. Work that waits on a child process or the file
//! system runs on napi's tokio runtime; decisions are synchronous, because a
//! promise round trip would cost more than the decision itself. The per-call
//! promises come from `settle`, whose crossing costs less than napi-rs's
//! `async fn`.

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

/// Creates the state of one module generation. index.ts calls this
/// once per import; every factory call of that import shares the handle.
#[napi]
pub fn create_generation() -> u32 {
    guard::guard_sync(|| 0, generation::create)
}

/// Allocates an id for one factory call.
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
/// `module_init` way) with one worker thread instead of one per core. Its
/// work is almost all waiting on pipes and timers (the hook and file reads
/// run on the blocking pool), and a second worker only adds wake-ups; the
/// price is that a diff computed on the worker holds back other replies.
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
