//! The own MCP client's start (its orchestration is the runtime's,
//! `pi_gortex_runtime::extension`) and its tool execution on top of the
//! runtime's `OwnClientBridge`.

use std::sync::Arc;

use std::path::Path;

use napi::bindgen_prelude::{FromNapiValue, JsValue, Unknown};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{Env, Status};
use napi_derive::napi;
use pi_gortex_runtime::catalogue::CatalogueChanges;
use pi_gortex_runtime::diff;
use pi_gortex_runtime::mcp::bridge::{throttled, OwnClientBridge, SentCall, PROGRESS_GAP};
use pi_gortex_runtime::mcp::client::ProgressHandler;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::boundary::{
    failed_execution, from_js, object, to_js, CatalogueUpdate, ToolExecuteRequest,
    ToolExecuteResult,
};
use crate::generation;
use crate::guard;
use crate::settle::Promised;
use pi_gortex_runtime::extension::{self as core, catalogue_update, lock, ModuleState};

/// A weak thread-safe callback into JS: it never keeps Node alive.
pub type WeakCallback = ThreadsafeFunction<Value, (), Value, Status, false, true>;

/// One own-client `session_start`: `onCatalogue` receives every later
/// debounced re-sync that changes something (`CatalogueUpdate`).
#[napi(
    ts_args_type = "generation: number, instance: number, onCatalogue: (update: host.CatalogueUpdate) => void",
    ts_return_type = "Promise<host.OwnStartResult>"
)]
pub async fn start_own_client(generation: u32, instance: u32, on_catalogue: WeakCallback) -> Value {
    let core = core::Extension::new(generation::get(generation), instance);
    let on_catalogue = move |update: CatalogueUpdate| {
        on_catalogue.call(to_js(&update), ThreadsafeFunctionCallMode::NonBlocking);
    };
    let panicked = core.clone();
    let result = guard::guard_async(
        move || panicked.start_panicked(),
        core.start_own_client(on_catalogue),
    )
    .await;
    to_js(&result)
}

/// What the synchronous half of `executeTool` left for the asynchronous one.
enum Execution {
    /// Answered already (bad request, not connected).
    Done(Value),
    /// The request is with the daemon; only its reply is awaited.
    Sent {
        state: Arc<ModuleState>,
        bridge: OwnClientBridge,
        call: SentCall,
        call_id: String,
        token: CancellationToken,
    },
    /// An edit's diff window, a respawn or an abort comes first.
    Full {
        state: Arc<ModuleState>,
        bridge: OwnClientBridge,
        request: ToolExecuteRequest,
        token: CancellationToken,
        progress: Option<ProgressHandler>,
    },
}

/// Executes one own-client tool call. Never rejects: a failure is
/// `{ok:false, text}` for the glue to throw.
///
/// A call that needs no diff window is written to the daemon
/// here, on Pi's thread, before the promise exists; the daemon then works
/// on it while the runtime's thread wakes to await the reply, instead of
/// the request waiting for that wake-up first.
///
/// `onProgress` receives the text of each (throttled) progress
/// notification of the call, as Pi's own MCP shows it.
#[napi(
    ts_args_type = "generation: number, request: host.ToolExecuteRequest, onProgress?: (text: string) => void",
    ts_return_type = "Promise<host.ToolExecuteResult>"
)]
pub fn execute_tool(
    env: &Env,
    generation: u32,
    request: Value,
    on_progress: Option<WeakCallback>,
) -> Promised<'_> {
    let execution = guard::guard_sync(
        || Execution::Done(internal_error()),
        || begin_execution(generation, request, on_progress.map(progress_handler)),
    );
    crate::settle::spawn_promise(env, async move {
        guard::guard_async(internal_error, finish_execution(execution)).await
    })
}

fn internal_error() -> Value {
    to_js(&failed_execution("gortex: internal error".to_string()))
}

/// Pi's update text for a progress notification (its `message`, else
/// `Progress <progress>[/<total>]`), throttled for Pi's interface.
fn progress_handler(on_progress: WeakCallback) -> ProgressHandler {
    let forward: ProgressHandler = Arc::new(move |params| {
        let text = match &params.message {
            Some(message) => message.clone(),
            None => match params.total {
                Some(total) => format!("Progress {}/{total}", params.progress),
                None => format!("Progress {}", params.progress),
            },
        };
        on_progress.call(Value::String(text), ThreadsafeFunctionCallMode::NonBlocking);
    });
    throttled(forward, PROGRESS_GAP)
}

/// The synchronous half: checks, the abort token, and the eager send.
fn begin_execution(
    generation: u32,
    request: Value,
    progress: Option<ProgressHandler>,
) -> Execution {
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
    // An abort that came first (while Pi's file locks were taken)
    // left a cancelled token here; the call is then never sent.
    let token = lock(&state.client().aborts)
        .entry(request.call_id.clone())
        .or_default()
        .clone();
    if !request.diff {
        let args = call_args(&request.args);
        if let Some(call) =
            bridge.send_call_with_progress(&request.name, args, Some(&token), progress.clone())
        {
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
        progress,
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

/// The details key of a result's `structuredContent`, Pi's own MCP's word for it.
const STRUCTURED_CONTENT: &str = "structuredContent";

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
            progress,
        } => {
            let args = call_args(&request.args);
            let diff_window = if request.diff && !token.is_cancelled() {
                state
                    .open_own_window(&request.name, &args, &request.cwd)
                    .await
            } else {
                None
            };
            let outcome = bridge
                .call_tool_with_progress(&request.name, args, Some(&token), progress)
                .await;
            lock(&state.client().aborts).remove(&request.call_id);
            (state, outcome, diff_window)
        }
    };
    let result = match outcome {
        Err(error) => failed_execution(error.to_string()),
        Ok(outcome) => {
            let mut details = match diff_window {
                Some(window) if !outcome.is_error => {
                    object(to_js(&state.close_own_window(window).await))
                }
                _ => serde_json::Map::new(),
            };
            if let Some(structured) = outcome.structured_content {
                details.insert(STRUCTURED_CONTENT.to_string(), structured);
            }
            ToolExecuteResult {
                ok: !outcome.is_error,
                content: (!outcome.is_error).then_some(outcome.content),
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

/// The glue's locks: the candidate files of an own-client
/// call, `[]` when it is not an edit.
///
/// `args` stays a JavaScript value until the name says the tool can edit:
/// most calls are not edits, and converting their arguments would be the
/// larger part of this per-call check.
#[napi(ts_args_type = "generation: number, name: string, args: unknown, cwd: string")]
pub fn edit_candidates(
    env: &Env,
    generation: u32,
    name: String,
    args: Unknown<'_>,
    cwd: String,
) -> Vec<String> {
    guard::guard_sync(Vec::new, || {
        let state = generation::get(generation);
        let Some(daemon) = state.daemon_name(&name) else {
            return Vec::new();
        };
        if !diff::classify::may_edit(&daemon) {
            return Vec::new();
        }
        // SAFETY: `args` is a live value of this call's `env`.
        let Ok(args) = (unsafe { Value::from_napi_value(env.raw(), args.raw()) }) else {
            return Vec::new();
        };
        diff::edit_candidates(&daemon, &args, Path::new(&cwd))
            .unwrap_or_default()
            .into_iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect()
    })
}

/// Pi's active tools after a listing's withdrawals and returns,
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

/// Pi aborted the call with this id. Before `executeTool` has
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
