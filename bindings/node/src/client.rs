//! The own MCP client's session life and tool execution
//! on top of the runtime's `OwnClientBridge`.
//!
//! The client slot belongs to the module generation: `/new`, resume
//! and fork build a new instance against the cached module, and that instance
//! must see and stop the previous instance's child. Each slot entry records
//! the instance that claimed it, so shutdown stops only its own.

use std::collections::HashMap;
use std::sync::Arc;

use std::path::Path;

use napi::bindgen_prelude::{FromNapiValue, JsValue, Unknown};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{Env, Status};
use napi_derive::napi;
use pi_gortex_runtime::catalogue::CatalogueChanges;
use pi_gortex_runtime::config;
use pi_gortex_runtime::diff;
use pi_gortex_runtime::mcp::bridge::{
    throttled, BridgeConfig, OwnClientBridge, SentCall, PROGRESS_GAP,
};
use pi_gortex_runtime::mcp::client::ProgressHandler;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::boundary::{
    failed_execution, from_js, object, to_js, CatalogueUpdate, OwnStartResult,
    OwnStartResultStatus, ToolExecuteRequest, ToolExecuteResult, ToolRegistration,
};
use crate::generation;
use crate::guard;
use crate::settle::Promised;
use pi_gortex_runtime::extension::{lock, ModuleState};

/// A weak thread-safe callback into JS: it never keeps Node alive.
pub type WeakCallback = ThreadsafeFunction<Value, (), Value, Status, false, true>;

/// Converts runtime changes into the boundary shape and updates the TOOL-5
/// registry the hook consults.
fn catalogue_update(state: &ModuleState, changes: CatalogueChanges) -> CatalogueUpdate {
    let register: Vec<(String, String)> = changes
        .register
        .iter()
        .map(|tool| (tool.name.clone(), tool.daemon_name.clone()))
        .collect();
    state.update_registry(&register, &changes.deactivate, &changes.activate);
    let metadata = state.takes_tool_metadata();
    CatalogueUpdate {
        register: changes
            .register
            .into_iter()
            .map(|tool| tool.for_host(metadata))
            .map(|tool| ToolRegistration {
                name: tool.name,
                daemon_name: tool.daemon_name,
                description: tool.description,
                parameters: object(tool.parameters),
                annotations: tool.annotations,
                output_schema: tool.output_schema.map(object),
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

/// The bridge error of a start that panicked (the panic itself is reported
/// once per session through FAIL-4).
const START_PANICKED: &str = "pi-gortex internal error while starting the gortex bridge";
/// The bridge error of a start for an instance whose configuration was
/// never resolved (the factory's resolution failed or timed out).
const NO_CONFIG: &str = "pi-gortex has no configuration for this session";

/// Every way a start can fail: records the bridge error the first
/// turn tells the model and the last error `/gortex` shows, and answers
/// `Failed` with it.
fn start_failed(state: &ModuleState, error: String) -> Value {
    state.set_bridge_error(error.clone());
    state.status().record_down(error.clone());
    let mut result = start_result(OwnStartResultStatus::Failed);
    result.error = Some(error);
    to_js(&result)
}

/// Test-only shortening of the handshake and tool-call timeouts, so the
/// end-to-end fault matrix can show a hung handshake and the wedged-child kill
/// in the real Pi CLI without waiting 60 s or 600 s. Only the
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

/// Steps 3..11 for one own-client `session_start`. `on_catalogue`
/// receives every later debounced re-sync (`CatalogueUpdate`).
#[napi(
    ts_args_type = "generation: number, instance: number, onCatalogue: (update: host.CatalogueUpdate) => void",
    ts_return_type = "Promise<host.OwnStartResult>"
)]
pub async fn start_own_client(generation: u32, instance: u32, on_catalogue: WeakCallback) -> Value {
    let on_catalogue = move |update: Value| {
        on_catalogue.call(update, ThreadsafeFunctionCallMode::NonBlocking);
    };
    guarded_start(generation, start(generation, instance, on_catalogue)).await
}

/// A panic anywhere in a start (contained here) is a
/// failed start like any other: the model and `/gortex` see why.
async fn guarded_start(generation: u32, work: impl std::future::Future<Output = Value>) -> Value {
    guard::guard_async(
        move || start_failed(&generation::get(generation), START_PANICKED.to_string()),
        work,
    )
    .await
}

/// The body of [`start_own_client`]; `on_catalogue` receives each later
/// re-sync in the boundary shape.
async fn start(
    generation: u32,
    instance: u32,
    on_catalogue: impl Fn(Value) + Send + Sync + 'static,
) -> Value {
    let state = generation::get(generation);
    let Some(config) = state.config(instance) else {
        return start_failed(&state, NO_CONFIG.to_string());
    };
    state.clear_registry();
    state.status().record_connecting();
    let env: HashMap<String, String> = config::process_env();
    let mut bridge_config = BridgeConfig::new(config.bin.clone());
    // An explicit working directory, the session's, for
    // `daemon start` and `gortex mcp` alike.
    bridge_config.cwd = state.cwd(instance).filter(|cwd| cwd.is_absolute());
    // With autostart off, neither `daemon start` nor `gortex mcp` starts a daemon.
    bridge_config.launch_daemon = config.daemon_autostart;
    bridge_config.extra_env =
        config::child_env(&config.tools_preset, config.daemon_autostart, &env)
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect();
    apply_test_timeouts(&env, &mut bridge_config);
    let bridge = OwnClientBridge::new(bridge_config);
    // Claim the slot and take out the previous
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
            on_catalogue(to_js(&update));
        }
    })));
    let outcome = bridge.start().await;
    if !state.client().slot.holds(claim) {
        // Superseded; the error stays untouched.
        bridge.stop().await;
        return to_js(&start_result(OwnStartResultStatus::Superseded));
    }
    match outcome {
        Err(error) => {
            bridge.stop().await;
            if state.client().slot.release(claim).is_some() {
                return start_failed(&state, error.to_string());
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

#[cfg(test)]
mod start_failures {
    //! Every way a start fails leaves the bridge error the
    //! first turn gives the model and the last error `/gortex`
    //! shows.
    use super::*;
    use pi_gortex_runtime::config::ConfigInputs;
    use pi_gortex_runtime::status::BridgeState;

    /// What the model and `/gortex` would see after a start answered `result`.
    fn seen(generation: u32, result: &Value) -> (Option<String>, Option<String>, Option<String>) {
        let state = generation::get(generation);
        let record = state.status();
        assert_eq!(record.state, Some(BridgeState::Down), "/gortex says down");
        let answered = result["error"].as_str().map(str::to_string);
        assert_eq!(result["status"], "failed");
        let last = record.last_error.clone();
        drop(record);
        (answered, state.take_bridge_error(), last)
    }

    /// A generation whose instance 1 resolved `env` from an empty folder.
    fn generation_with(env: &[(&str, &str)]) -> u32 {
        let generation = generation::create();
        let dir = std::env::temp_dir();
        let inputs = ConfigInputs {
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            cwd: dir.clone(),
            home: dir.join("pi-gortex-no-home"),
        };
        let config = Arc::new(config::resolve(&inputs));
        generation::get(generation).add_instance(1, config.clone(), config, dir);
        generation
    }

    fn assert_all_agree(seen: (Option<String>, Option<String>, Option<String>)) -> String {
        let (answered, bridge_error, last_error) = seen;
        let error = answered.expect("the start answered an error");
        assert!(!error.is_empty());
        assert_eq!(
            bridge_error.as_deref(),
            Some(error.as_str()),
            "the model's bridge error"
        );
        assert_eq!(
            last_error.as_deref(),
            Some(error.as_str()),
            "/gortex's last error"
        );
        error
    }

    #[tokio::test]
    async fn a_start_that_panics_sets_the_bridge_error() {
        let generation = generation::create();
        let result = guarded_start(generation, async { panic!("forced in a test") }).await;
        let error = assert_all_agree(seen(generation, &result));
        assert_eq!(error, START_PANICKED);
        guard::take_recorded();
    }

    #[tokio::test]
    async fn a_start_without_configuration_sets_the_bridge_error() {
        let generation = generation::create();
        let result = start(generation, 7, |_| {}).await;
        assert_eq!(assert_all_agree(seen(generation, &result)), NO_CONFIG);
    }

    /// The error a start with `env` failed with, once all three agree on it.
    async fn failed_start_with(env: &[(&str, &str)]) -> String {
        let generation = generation_with(env);
        let result = start(generation, 1, |_| {}).await;
        assert_all_agree(seen(generation, &result))
    }

    #[tokio::test]
    async fn a_start_whose_binary_is_absent_sets_the_bridge_error() {
        let error = failed_start_with(&[("GORTEX_BIN", "/nonexistent/pi-gortex/gortex")]).await;
        assert!(error.contains("spawn"), "{error}");
    }

    #[tokio::test]
    async fn a_start_whose_binary_is_refused_as_relative_sets_the_bridge_error() {
        // An empty PATH resolves nothing; the bare name is never run.
        let error = failed_start_with(&[("PATH", "")]).await;
        assert!(error.contains("gortex"), "{error}");
    }
}
