//! pi-gortex-node: the napi-rs addon the Pi extension glue loads. The
//! `Module` and `Extension` classes (`extension.rs`) carry each Pi event
//! into `pi_gortex_runtime::extension` in one call; the other exports adapt
//! a shape of `schema/host.schema.json` to the runtime. Everything runs
//! inside the panic guard, so a Rust bug fails open instead of reaching Node.

// napi-derive registers exports only outside test builds, so unit-test
// builds see the adapters as unused.
#![cfg_attr(test, allow(dead_code))]

mod boundary;
mod extension;
mod settle;

use napi_derive::napi;
use pi_gortex_runtime::catalogue::CatalogueChanges;
use pi_gortex_runtime::extension::guard;
use serde_json::Value;

use boundary::{from_js, guarded_answer, to_js, CatalogueUpdate, CliOutput};

/// The call line of a tool's call in Pi's interface.
#[napi(
    ts_args_type = "daemonName: string, args: unknown, expanded: boolean",
    ts_return_type = "host.CallLine"
)]
pub fn call_line(daemon_name: String, args: Value, expanded: bool) -> Value {
    use pi_gortex_runtime::extension::call_line as line;
    guarded_answer(line::empty_line, || {
        line::call_line_of(&daemon_name, &args, expanded)
    })
}

/// Pi's active tools after a listing's withdrawals and returns, order kept.
#[napi(ts_args_type = "active: Array<string>, update: host.CatalogueUpdate")]
pub fn active_tools(active: Vec<String>, update: Value) -> Vec<String> {
    guard::guard_sync(
        || active.clone(),
        || {
            let Some(update) = from_js::<CatalogueUpdate>(update) else {
                return active.clone();
            };
            CatalogueChanges::activation(update.activate, update.deactivate)
                .apply_to_active(&active)
        },
    )
}

/// Runs one `pi-gortex` command line (`args[0]` is the program name) and
/// returns what to print and the exit code, exactly as the Rust binary would.
#[napi(ts_return_type = "Promise<host.CliOutput>")]
pub async fn run_cli(args: Vec<String>) -> Value {
    let failed = || {
        to_js(&CliOutput {
            stdout: String::new(),
            stderr: "pi-gortex: internal error\n".into(),
            exit_code: 2,
        })
    };
    guard::guard_async(failed, async move {
        to_js(&pi_gortex_runtime::cli::run(args).await)
    })
    .await
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
