//! The own MCP client's session life (SES-7..9, SES-16) and tool execution
//! (TOOL-6, MCP-30) on top of the runtime's `OwnClientBridge`.
//!
//! The client slot belongs to the module generation (SES-1): `/new`, resume
//! and fork build a new instance against the cached module, and that instance
//! must see and stop the previous instance's child. Each slot entry records
//! the instance that claimed it, so shutdown stops only its own (SES-16).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::Status;
use napi_derive::napi;
use pi_gortex_runtime::catalogue::CatalogueChanges;
use pi_gortex_runtime::config;
use pi_gortex_runtime::mcp::bridge::{BridgeConfig, OwnClientBridge};
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

/// The generation's client slot: who claimed it and the bridge.
#[derive(Clone)]
pub struct SlotEntry {
    pub owner: u32,
    pub bridge: OwnClientBridge,
    /// Distinguishes claims, so a superseded start can tell (SES-8).
    pub claim: u64,
}

/// Client-related generation state.
#[derive(Default)]
pub struct ClientState {
    pub slot: Mutex<Option<SlotEntry>>,
    pub next_claim: std::sync::atomic::AtomicU64,
    /// In-flight executions by Pi tool call id, for aborts (MCP-30).
    pub aborts: Mutex<HashMap<String, CancellationToken>>,
    /// Daemon names of every tool registered this generation, so a relisted
    /// (re-activated) tool re-enters the TOOL-5 registry.
    pub known: Mutex<HashMap<String, String>>,
}

/// Converts runtime changes into the boundary shape and updates the TOOL-5
/// registry the hook consults (HOOK-5).
fn catalogue_update(state: &GenerationState, changes: CatalogueChanges) -> CatalogueUpdate {
    let mut registry = lock(&state.registry);
    let mut known = lock(&state.client.known);
    for tool in &changes.register {
        registry.insert(tool.name.clone(), tool.daemon_name.clone());
        known.insert(tool.name.clone(), tool.daemon_name.clone());
    }
    for name in &changes.deactivate {
        registry.remove(name);
    }
    for name in &changes.activate {
        if let Some(daemon) = known.get(name) {
            registry.insert(name.clone(), daemon.clone());
        }
    }
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

/// Empties the slot and stops what was in it (SES-7 step 5).
async fn stop_slot(state: &GenerationState, only_owner: Option<u32>) {
    let taken = {
        let mut slot = lock(&state.client.slot);
        match (&*slot, only_owner) {
            (Some(entry), Some(owner)) if entry.owner != owner => None,
            _ => slot.take(),
        }
    };
    if let Some(entry) = taken {
        entry.bridge.stop().await;
    }
}

fn still_claimed(state: &GenerationState, claim: u64) -> bool {
    lock(&state.client.slot)
        .as_ref()
        .is_some_and(|entry| entry.claim == claim)
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
#[napi]
pub async fn start_own_client(generation: u32, instance: u32, on_catalogue: WeakCallback) -> Value {
    // FAIL-5: a start that fails for any reason (a caught panic, no
    // configuration) still leaves the bridge error the model and doctor see.
    let failed = move |why: &str| {
        *lock(&generation::get(generation).bridge_error) = Some(why.to_string());
        let mut result = start_result(OwnStartResultStatus::Failed);
        result.error = Some(why.to_string());
        to_js(&result)
    };
    guard::guard_async(
        move || failed("internal error while starting the gortex bridge"),
        async move {
            let state = generation::get(generation);
            let Some(config) = state.config(instance) else {
                return failed("the configuration could not be read");
            };
            lock(&state.registry).clear();
            stop_slot(&state, None).await;
            let env: HashMap<String, String> = config::process_env();
            let mut bridge_config = BridgeConfig::new(config.bin.clone());
            bridge_config.extra_env = config::preset_env(&config.tools_preset, &env)
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect();
            apply_test_timeouts(&env, &mut bridge_config);
            let bridge = OwnClientBridge::new(bridge_config);
            // Claim the slot before the first suspension point (SES-7 step 6).
            let claim = state
                .client
                .next_claim
                .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            *lock(&state.client.slot) = Some(SlotEntry {
                owner: instance,
                bridge: bridge.clone(),
                claim,
            });
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
            if !still_claimed(&state, claim) {
                // SES-8: superseded; the error stays untouched.
                bridge.stop().await;
                return to_js(&start_result(OwnStartResultStatus::Superseded));
            }
            match outcome {
                Err(error) => {
                    bridge.stop().await;
                    if still_claimed(&state, claim) {
                        lock(&state.client.slot).take();
                        *lock(&state.bridge_error) = Some(error.to_string());
                    }
                    let mut result = start_result(OwnStartResultStatus::Failed);
                    result.error = Some(error.to_string());
                    to_js(&result)
                }
                Ok(report) => {
                    let mut result = start_result(OwnStartResultStatus::Started);
                    if let Some(skew) = report.skew {
                        *lock(&state.version_warning) = Some(skew.model_text);
                        result.user_warning = Some(skew.user_text);
                    }
                    result.catalogue = catalogue_update(&state, report.catalogue_changes);
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
        stop_slot(&state, Some(instance)).await;
    })
    .await
}

/// TOOL-6: executes one own-client tool call. Never rejects: a failure is
/// `{ok:false, text}` for the glue to throw.
#[napi]
pub async fn execute_tool(generation: u32, request: Value) -> Value {
    guard::guard_async(
        || to_js(&failed_execution("gortex: internal error".to_string())),
        async move {
            let state = generation::get(generation);
            let Some(request) = from_js::<ToolExecuteRequest>(request) else {
                return to_js(&failed_execution("gortex: bad request".to_string()));
            };
            let bridge = lock(&state.client.slot).as_ref().map(|e| e.bridge.clone());
            let Some(bridge) = bridge else {
                let name = lock(&state.registry)
                    .get(&request.name)
                    .cloned()
                    .unwrap_or_else(|| request.name.clone());
                return to_js(&failed_execution(format!(
                    "gortex {name}: MCP bridge is not connected"
                )));
            };
            let token = CancellationToken::new();
            lock(&state.client.aborts).insert(request.call_id.clone(), token.clone());
            let args = if request.args.is_null() {
                Value::Object(Default::default())
            } else {
                request.args.clone()
            };
            let diff_window = if request.diff {
                crate::watcher::open_own_window(&state, &request.name, &args, &request.cwd).await
            } else {
                None
            };
            let outcome = bridge.call_tool(&request.name, args, Some(&token)).await;
            lock(&state.client.aborts).remove(&request.call_id);
            let result = match outcome {
                Err(error) => failed_execution(error.to_string()),
                Ok(outcome) => {
                    let details = match diff_window {
                        Some(window) if !outcome.is_error => {
                            crate::watcher::close_own_window(&state, window).await
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
        },
    )
    .await
}

/// MCP-30: Pi aborted the call with this id.
#[napi]
pub fn abort_call(generation: u32, call_id: String) {
    guard::guard_sync(
        || (),
        || {
            let state = generation::get(generation);
            let token = lock(&state.client.aborts).remove(&call_id);
            if let Some(token) = token {
                token.cancel();
            }
        },
    )
}
