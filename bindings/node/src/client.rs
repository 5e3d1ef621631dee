//! The own MCP client's session life (SES-7..9, SES-16) and tool execution
//! (TOOL-6, MCP-30) on top of the runtime's `OwnClientBridge`.
//!
//! The client slot belongs to the module generation (SES-1): `/new`, resume
//! and fork build a new instance against the cached module, and that instance
//! must see and stop the previous instance's child. Each slot entry records
//! the instance that claimed it, so shutdown stops only its own (SES-16).

use std::collections::HashMap;
use std::sync::Arc;

use napi::bindgen_prelude::PromiseRaw;
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{Env, Status};
use napi_derive::napi;
use pi_gortex_runtime::catalogue::CatalogueChanges;
use pi_gortex_runtime::config;
use pi_gortex_runtime::mcp::bridge::{BridgeConfig, OwnClientBridge, SentCall};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::boundary::{
    failed_execution, from_js, object, to_js, CatalogueUpdate, OwnStartResult,
    OwnStartResultStatus, ToolExecuteRequest, ToolExecuteResult, ToolRegistration,
};
use crate::generation;
use crate::guard;
use crate::state::{lock, GenerationState};

/// A weak thread-safe callback into JS: it never keeps Node alive (SES-17).
pub type WeakCallback = ThreadsafeFunction<Value, (), Value, Status, false, true>;

/// Converts runtime changes into the boundary shape and updates the TOOL-5
/// registry the hook consults (HOOK-5).
fn catalogue_update(state: &GenerationState, changes: CatalogueChanges) -> CatalogueUpdate {
    let register: Vec<(String, String)> = changes
        .register
        .iter()
        .map(|tool| (tool.name.clone(), tool.daemon_name.clone()))
        .collect();
    state.update_registry(&register, &changes.deactivate, &changes.activate);
    CatalogueUpdate {
        register: changes
            .register
            .into_iter()
            .map(|tool| ToolRegistration {
                name: tool.name,
                daemon_name: tool.daemon_name,
                description: tool.description,
                parameters: object(tool.parameters),
            })
            .collect(),
        deactivate: changes.deactivate,
        activate: changes.activate,
    }
}

fn start_result(status: OwnStartResultStatus) -> OwnStartResult {
    OwnStartResult {
        status,
        error: None,
        user_warning: None,
        catalogue: CatalogueUpdate {
            activate: Vec::new(),
            deactivate: Vec::new(),
            register: Vec::new(),
        },
    }
}

/// Test-only shortening of the handshake and tool-call timeouts, so the
/// end-to-end fault matrix can show a hung handshake and the wedged-child kill
/// (MCP-13, MCP-14) in the real Pi CLI without waiting 60 s or 600 s. Only the
/// user's own environment can set these (a repository cannot), and they can
/// only change how long a request waits, never what runs.
fn apply_test_timeouts(env: &HashMap<String, String>, config: &mut BridgeConfig) {
    let millis = |name: &str| {
        env.get(name)
            .and_then(|value| value.trim().parse::<u64>().ok())
            .filter(|ms| *ms > 0)
            .map(std::time::Duration::from_millis)
    };
    if let Some(initialize) = millis("PI_GORTEX_TEST_INIT_TIMEOUT_MS") {
        config.timeouts.initialize = initialize;
    }
    if let Some(call) = millis("PI_GORTEX_TEST_CALL_TIMEOUT_MS") {
        config.timeouts.call = call;
    }
}

/// SES-7 steps 3..11 for one own-client `session_start`. `on_catalogue`
/// receives every later debounced re-sync (`CatalogueUpdate`).
#[napi(
    ts_args_type = "generation: number, instance: number, onCatalogue: (update: host.CatalogueUpdate) => void",
    ts_return_type = "Promise<host.OwnStartResult>"
)]
pub async fn start_own_client(generation: u32, instance: u32, on_catalogue: WeakCallback) -> Value {
    guard::guard_async(
        || to_js(&start_result(OwnStartResultStatus::Failed)),
        async move {
            let state = generation::get(generation);
            let Some(config) = state.config(instance) else {
                return to_js(&start_result(OwnStartResultStatus::Failed));
            };
            state.clear_registry();
            state.status().record_connecting();
            let env: HashMap<String, String> = config::process_env();
            let mut bridge_config = BridgeConfig::new(config.bin.clone());
            // MCP-2: an explicit working directory, the session's, for
            // `daemon start` and `gortex mcp` alike.
            bridge_config.cwd = state.cwd(instance).filter(|cwd| cwd.is_absolute());
            bridge_config.extra_env = config::preset_env(&config.tools_preset, &env)
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect();
            apply_test_timeouts(&env, &mut bridge_config);
            let bridge = OwnClientBridge::new(bridge_config);
            // SES-7 steps 5-6: claim the slot and take out the previous
            // client in one locked step, before the first suspension point.
            let (claim, previous) = state.client().slot.claim(instance, bridge.clone());
            if let Some(previous) = previous {
                previous.bridge.stop().await;
            }
            let listener_state = Arc::downgrade(&state);
            bridge.set_catalogue_listener(Some(Arc::new(move |changes| {
                let Some(state) = listener_state.upgrade() else {
                    return;
                };
                let update = catalogue_update(&state, changes);
                if !(update.register.is_empty()
                    && update.deactivate.is_empty()
                    && update.activate.is_empty())
                {
                    on_catalogue.call(to_js(&update), ThreadsafeFunctionCallMode::NonBlocking);
                }
            })));
            let outcome = bridge.start().await;
            if !state.client().slot.holds(claim) {
                // SES-8: superseded; the error stays untouched.
                bridge.stop().await;
                return to_js(&start_result(OwnStartResultStatus::Superseded));
            }
            match outcome {
                Err(error) => {
                    bridge.stop().await;
                    if state.client().slot.release(claim).is_some() {
                        state.set_bridge_error(error.to_string());
                        state.status().record_down(error.to_string());
                    }
                    let mut result = start_result(OwnStartResultStatus::Failed);
                    result.error = Some(error.to_string());
                    to_js(&result)
                }
                Ok(report) => {
                    let mut result = start_result(OwnStartResultStatus::Started);
                    if let Some(skew) = report.skew {
                        state.set_version_warning(skew.model_text);
                        result.user_warning = Some(skew.user_text);
                    }
                    result.catalogue = catalogue_update(&state, report.catalogue_changes);
                    let first: Vec<String> = result
                        .catalogue
                        .register
                        .iter()
                        .map(|t| t.name.clone())
                        .collect();
                    state
                        .status()
                        .record_started(&report.server_version, &first);
                    to_js(&result)
                }
            }
        },
    )
    .await
}

/// SES-16: stops the client in the slot if this instance claimed it.
#[napi]
pub async fn stop_own_client(generation: u32, instance: u32) {
    guard::guard_async(|| (), async move {
        let state = generation::get(generation);
        let owned = state.client().slot.take_owned_by(instance);
        if let Some(entry) = owned {
            entry.bridge.stop().await;
        }
    })
    .await
}

/// What the synchronous half of `executeTool` left for the asynchronous one.
enum Execution {
    /// Answered already (bad request, not connected).
    Done(Value),
    /// The request is with the daemon; only its reply is awaited.
    Sent {
        state: Arc<GenerationState>,
        bridge: OwnClientBridge,
        call: SentCall,
        call_id: String,
        token: CancellationToken,
    },
    /// An edit's diff window, a respawn or an abort comes first.
    Full {
        state: Arc<GenerationState>,
        bridge: OwnClientBridge,
        request: ToolExecuteRequest,
        token: CancellationToken,
    },
}

/// TOOL-6: executes one own-client tool call. Never rejects: a failure is
/// `{ok:false, text}` for the glue to throw.
///
/// Issue 16: a call that needs no diff window is written to the daemon
/// here, on Pi's thread, before the promise exists; the daemon then works
/// on it while the runtime's thread wakes to await the reply, instead of
/// the request waiting for that wake-up first.
#[napi(
    ts_args_type = "generation: number, request: host.ToolExecuteRequest",
    ts_return_type = "Promise<host.ToolExecuteResult>"
)]
pub fn execute_tool<'env>(
    env: &'env Env,
    generation: u32,
    request: Value,
) -> napi::Result<PromiseRaw<'env, Value>> {
    let execution = guard::guard_sync(
        || Execution::Done(internal_error()),
        || begin_execution(generation, request),
    );
    env.spawn_future(async move {
        Ok(guard::guard_async(internal_error, finish_execution(execution)).await)
    })
}

fn internal_error() -> Value {
    to_js(&failed_execution("gortex: internal error".to_string()))
}

/// The synchronous half: checks, the abort token, and the eager send.
fn begin_execution(generation: u32, request: Value) -> Execution {
    let state = generation::get(generation);
    let Some(request) = from_js::<ToolExecuteRequest>(request) else {
        return Execution::Done(to_js(&failed_execution("gortex: bad request".to_string())));
    };
    let Some(bridge) = state.client().slot.bridge() else {
        let name = state
            .daemon_name(&request.name)
            .unwrap_or_else(|| request.name.clone());
        return Execution::Done(to_js(&failed_execution(format!(
            "gortex {name}: MCP bridge is not connected"
        ))));
    };
    // MCP-30: an abort that came first (while Pi's file locks were taken)
    // left a cancelled token here; the call is then never sent.
    let token = lock(&state.client().aborts)
        .entry(request.call_id.clone())
        .or_default()
        .clone();
    if !request.diff {
        let args = call_args(&request.args);
        if let Some(call) = bridge.send_call(&request.name, args, Some(&token)) {
            return Execution::Sent {
                state,
                bridge,
                call,
                call_id: request.call_id,
                token,
            };
        }
    }
    Execution::Full {
        state,
        bridge,
        request,
        token,
    }
}

/// Pi's arguments; `null` reads as `{}`.
fn call_args(args: &Value) -> Value {
    if args.is_null() {
        Value::Object(Default::default())
    } else {
        args.clone()
    }
}

/// The asynchronous half: the reply, the diff window around an edit.
async fn finish_execution(execution: Execution) -> Value {
    let (state, outcome, diff_window) = match execution {
        Execution::Done(value) => return value,
        Execution::Sent {
            state,
            bridge,
            call,
            call_id,
            token,
        } => {
            let outcome = bridge.finish_call(call, Some(&token)).await;
            lock(&state.client().aborts).remove(&call_id);
            (state, outcome, None)
        }
        Execution::Full {
            state,
            bridge,
            request,
            token,
        } => {
            let args = call_args(&request.args);
            let diff_window = if request.diff && !token.is_cancelled() {
                state
                    .open_own_window(&request.name, &args, &request.cwd)
                    .await
            } else {
                None
            };
            let outcome = bridge.call_tool(&request.name, args, Some(&token)).await;
            lock(&state.client().aborts).remove(&request.call_id);
            (state, outcome, diff_window)
        }
    };
    let result = match outcome {
        Err(error) => failed_execution(error.to_string()),
        Ok(outcome) => {
            let details = match diff_window {
                Some(window) if !outcome.is_error => {
                    object(to_js(&state.close_own_window(window).await))
                }
                _ => serde_json::Map::new(),
            };
            ToolExecuteResult {
                ok: !outcome.is_error,
                text: outcome.text,
                details,
                catalogue: outcome
                    .catalogue_changes
                    .map(|changes| catalogue_update(&state, changes)),
            }
        }
    };
    to_js(&result)
}

/// TOOL-10: Pi's active tools after a listing's withdrawals and returns,
/// order kept (`CatalogueChanges::apply_to_active`).
#[napi(ts_args_type = "active: Array<string>, update: host.CatalogueUpdate")]
pub fn active_tools(active: Vec<String>, update: Value) -> Vec<String> {
    guard::guard_sync(
        || active.clone(),
        || {
            let Some(update) = from_js::<CatalogueUpdate>(update) else {
                return active.clone();
            };
            let changes = CatalogueChanges {
                register: Vec::new(),
                activate: update.activate,
                deactivate: update.deactivate,
            };
            changes.apply_to_active(&active)
        },
    )
}

/// MCP-30: Pi aborted the call with this id. Before `executeTool` has
/// registered the call (it waits for Pi's file locks first), the abort is
/// kept as a cancelled token that the execution then finds.
#[napi]
pub fn abort_call(generation: u32, call_id: String) {
    guard::guard_sync(
        || (),
        || {
            let state = generation::get(generation);
            let mut aborts = lock(&state.client().aborts);
            match aborts.remove(&call_id) {
                Some(token) => token.cancel(),
                None => {
                    let token = CancellationToken::new();
                    token.cancel();
                    aborts.insert(call_id, token);
                }
            }
        },
    )
}
