//! The bridge's state for the footer and `/gortex`, and the
//! `pi-gortex` command line for the npm package's Node entry.
//!
//! The other exports record what they see into the generation's
//! [`pi_gortex_runtime::extension::StatusRecord`] (the client's start, the native first turn, every hook
//! call); [`gortex_status`] joins it with what only the glue knows
//! (`StatusRequest`) into the runtime's `StatusSnapshot`, which the runtime
//! words; [`gortex_command`] answers `/gortex` and `/gortex doctor` as the
//! runtime decides. [`run_cli`] runs `pi_gortex_runtime::cli`, the same function the
//! Rust binary runs, so both print the same bytes and exit codes.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use napi::Env;
use napi_derive::napi;
use pi_gortex_runtime::config::ResolvedConfig;
use pi_gortex_runtime::hook;
use pi_gortex_runtime::native::{self, OwnClientReason};
use pi_gortex_runtime::status::{self, BridgeState, Command, PathWhy, StatusSnapshot, ToolEntry};
use serde_json::Value;

use crate::boundary::{from_js, to_js, CliOutput, GortexCommand, StatusRequest, StatusView};
use crate::settle::{self, Promised};
use crate::{generation, guard};
use pi_gortex_runtime::extension::{lock, InstanceState, ModuleState};

fn path_why(
    config: &ResolvedConfig,
    taken: Option<PathWhy>,
    env: &HashMap<String, String>,
) -> PathWhy {
    taken.unwrap_or_else(|| {
        PathWhy::Own(if !config.native_mcp {
            OwnClientReason::NativeDisabled
        } else if native::resolve_binary(&config.bin, env).is_none() {
            OwnClientReason::BinaryDoesNotResolve
        } else {
            OwnClientReason::HostLacksNativeMcp
        })
    })
}

fn snapshot(state: &ModuleState, me: &InstanceState, request: &StatusRequest) -> StatusSnapshot {
    let config = &me.config();
    // `process_env`, not `std::env::vars`: one non-UTF-8 variable must not panic `/gortex` away.
    let env: HashMap<String, String> = pi_gortex_runtime::config::process_env();
    let (native, taken) = {
        let latches = lock(&me.latches);
        (latches.is_native(), latches.path_taken())
    };
    let record = state.status();
    let tools: Vec<ToolEntry> = if native {
        request
            .pi_tools
            .iter()
            .filter_map(|name| {
                native::bare_tool_name(name).map(|bare| ToolEntry {
                    pi_name: name.clone(),
                    daemon_name: bare.to_string(),
                    promoted: false,
                })
            })
            .collect()
    } else {
        // Sorted, so the block reads the same on every call.
        let registry: BTreeMap<String, String> = state.registry_entries().into_iter().collect();
        registry
            .into_iter()
            .map(|(pi_name, daemon_name)| ToolEntry {
                promoted: !record.initial_tools.contains(&pi_name),
                pi_name,
                daemon_name,
            })
            .collect()
    };
    let state_now = match (native, record.state) {
        (_, Some(BridgeState::Down)) => BridgeState::Down,
        (true, _) if !tools.is_empty() => BridgeState::Connected,
        (true, _) => BridgeState::Connecting,
        (false, Some(recorded)) => recorded,
        (false, None) => BridgeState::Connecting,
    };
    StatusSnapshot {
        state: state_now,
        path: path_why(config, taken, &env),
        configured_bin: config.bin.clone(),
        resolved_bin: native::resolve_binary(&config.bin, &env),
        daemon_version: record.daemon_version.clone(),
        readiness: record.readiness,
        daemon_autostart: config.daemon_autostart,
        tools,
        hook_mode: config.hook_mode.to_string(),
        enforce: config.enforce,
        hook: record.hook.clone(),
        config: status::config_entries(config),
        last_error: record.last_error.clone(),
    }
}

/// Asks the session hook for a fresh briefing when one is due
/// (the last one reported indexing); true when the readiness changed.
async fn refresh(state: &ModuleState, me: &InstanceState, cwd: &str) -> bool {
    if !state.status().begin_refresh() {
        return false;
    }
    let argv = me.config().hook_argv.clone();
    let run = hook::run(&argv, &hook::envelope_for_session_start(cwd)).await;
    state.status().end_refresh(hook::orientation(&run.decision))
}

/// The footer's `indexing` clears without a cost on every turn:
/// only while the last briefing reported indexing does a turn ask the
/// session hook again, off the turn (the glue does not await it), and at
/// most one such call runs. Resolves true when the readiness changed. The
/// promise is weak, so it never keeps the host alive.
pub fn refresh_readiness<'env>(
    env: &'env Env,
    state: Arc<ModuleState>,
    instance: u32,
    cwd: String,
) -> Promised<'env> {
    let (done, promise) = settle::weak_promise(env)?;
    guard::guard_sync(
        || (),
        || {
            let me = state.instance(instance);
            let due = me.is_some() && state.status().readiness.is_some_and(|r| r.is_indexing());
            let (Some(me), true) = (me, due) else {
                return done.resolve_now(env, false);
            };
            settle::spawn(async move {
                let failed = || {
                    state.status().refreshing = false;
                    false
                };
                let changed = guard::guard_async(failed, refresh(&state, &me, &cwd)).await;
                done.settle(changed);
            });
        },
    );
    Ok(promise)
}

/// What the glue shows when the status itself failed.
fn unavailable() -> StatusView {
    StatusView {
        footer: "gortex: down".into(),
        text: "Gortex bridge: status unavailable (internal error)\n".into(),
    }
}

/// The status of an instance, with Pi's tools as the glue read them.
fn status_view(state: &ModuleState, instance: u32, request: Option<StatusRequest>) -> StatusView {
    let (Some(request), Some(me)) = (request, state.instance(instance)) else {
        return unavailable();
    };
    let snapshot = snapshot(state, &me, &request);
    StatusView {
        footer: status::footer(&snapshot),
        text: status::render(&snapshot),
    }
}

/// The footer status and the `/gortex` block.
#[napi(
    ts_args_type = "generation: number, instance: number, request: host.StatusRequest",
    ts_return_type = "host.StatusView"
)]
pub fn gortex_status(generation: u32, instance: u32, request: Value) -> Value {
    guard::guard_sync(
        || to_js(&unavailable()),
        || {
            let request = from_js(request);
            to_js(&status_view(
                &generation::get(generation),
                instance,
                request,
            ))
        },
    )
}

/// One `/gortex` command: the status block with a fresh footer,
/// or the doctor run in process (`CommandReply`).
pub async fn gortex_command(state: Arc<ModuleState>, instance: u32, command: Value) -> Value {
    let failed = || to_js(&status::status_reply(unavailable()));
    guard::guard_async(failed, async move {
        let Some(command) = from_js::<GortexCommand>(command) else {
            return failed();
        };
        let reply = match status::command(&command.args) {
            Command::Doctor => {
                let output = pi_gortex_runtime::cli::run(status::doctor_argv(&command.cwd)).await;
                status::doctor_reply(&output)
            }
            Command::Status => {
                if let Some(me) = state.instance(instance) {
                    refresh(&state, &me, &command.cwd).await;
                }
                let request = StatusRequest {
                    pi_tools: command.pi_tools,
                };
                status::status_reply(status_view(&state, instance, Some(request)))
            }
        };
        to_js(&reply)
    })
    .await
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
