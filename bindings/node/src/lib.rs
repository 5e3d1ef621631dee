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

use napi::Env;
use napi_derive::napi;
use pi_gortex_runtime::catalogue::CatalogueChanges;
use pi_gortex_runtime::extension::{guard, Answer};
use serde_json::Value;

use boundary::{from_js, to_js, CatalogueUpdate, CliOutput};
use settle::Answered;

/// The call line of a tool's call in Pi's interface.
#[napi(
    ts_args_type = "daemonName: string, args: unknown, expanded: boolean",
    ts_return_type = "host.CallLine"
)]
pub fn call_line(env: &Env, daemon_name: String, args: Value, expanded: bool) -> Answered<'_> {
    use pi_gortex_runtime::extension::call_line as line;
    let call_line = || Answer::Now(line::call_line_of(&daemon_name, &args, expanded));
    settle::answer(env, line::empty_line, call_line, Some(|_| false))
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

/// Runs one `pi-gortex` command line (`args[0]` is the program name), as the Rust binary does.
#[napi(ts_return_type = "Promise<host.CliOutput>")]
pub async fn run_cli(args: Vec<String>) -> Value {
    let failed = CliOutput {
        stdout: String::new(),
        stderr: "pi-gortex: internal error\n".into(),
        exit_code: 2,
    };
    let running = async move { to_js(&pi_gortex_runtime::cli::run(args).await) };
    guard::guard_async(|| to_js(&failed), running).await
}

/// Test-only: panics inside the guard of a runtime call, so a test can show
/// that the extension fails open and reports once. `asynchronous` panics in
/// work spawned on the runtime.
#[napi(ts_return_type = "Promise<boolean>")]
pub fn debug_force_panic(env: &Env, asynchronous: bool) -> Answered<'_> {
    let answer = || match asynchronous {
        true => Answer::spawn(|| false, async { panic!("forced by debugForcePanic") }),
        false => panic!("forced by debugForcePanic"),
    };
    settle::answer(env, || false, answer, None)
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
