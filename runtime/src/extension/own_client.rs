//! The own client's start at `session_start`: one `gortex mcp` child per
//! module import, in the slot of the instance that started it. `/new`, resume
//! and fork make a new instance of the cached module, which must see and stop
//! the previous instance's child; the slot records its instance, so a
//! shutdown stops only its own.

use std::collections::HashMap;
use std::sync::Arc;

use pi_gortex_schema::host::{
    CatalogueUpdate, OwnStartResult, OwnStartResultStatus, ToolRegistration,
};

use super::{Extension, ModuleState};
use crate::catalogue::CatalogueChanges;
use crate::config;
use crate::mcp::own_client::{OwnClient, OwnClientConfig};

/// Converts runtime changes into the boundary shape and updates the tool
/// registry the hook consults.
pub fn catalogue_update(state: &ModuleState, changes: CatalogueChanges) -> CatalogueUpdate {
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
                parameters: super::tool_events::object(tool.parameters),
                annotations: tool.annotations,
                output_schema: tool.output_schema.map(super::tool_events::object),
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

/// The start error of a start that panicked (the panic itself is reported
/// once per session with the panic warning).
const START_PANICKED: &str = "pi-gortex internal error while starting the gortex bridge";
/// The start error of a start for an instance whose configuration was
/// never resolved (the factory's resolution failed or timed out).
const NO_CONFIG: &str = "pi-gortex has no configuration for this session";

/// Every way a start can fail: records the start error the first
/// turn tells the model and the last error `/gortex` shows, and answers
/// `Failed` with it.
fn start_failed(state: &ModuleState, error: String) -> OwnStartResult {
    state.set_start_error(error.clone());
    state.lock().status.record_down(error.clone());
    let mut result = start_result(OwnStartResultStatus::Failed);
    result.error = Some(error);
    result
}

/// Test-only shortening of the handshake and tool-call timeouts, so the
/// end-to-end fault matrix can show a hung handshake and the wedged-child kill
/// in the real Pi CLI without waiting 60 s or 600 s. Only the
/// user's own environment can set these (a repository cannot), and they can
/// only change how long a request waits, never what runs.
fn apply_test_timeouts(env: &HashMap<String, String>, config: &mut OwnClientConfig) {
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

impl Extension {
    /// Starts this instance's own client; `on_catalogue` receives each later
    /// re-sync that changes something, in the boundary shape.
    pub async fn start_own_client(
        &self,
        on_catalogue: impl Fn(CatalogueUpdate) + Send + Sync + 'static,
    ) -> OwnStartResult {
        let (state, instance_id) = (self.module.clone(), self.id);
        let Some(me) = self.instance() else {
            return start_failed(&state, NO_CONFIG.to_string());
        };
        let config = me.config();
        state.clear_registry();
        state.lock().status.record_connecting();
        let env: HashMap<String, String> = config::process_env();
        let mut client_config = OwnClientConfig::new(config.bin.clone());
        // An explicit working directory, the session's, for
        // `daemon start` and `gortex mcp` alike.
        client_config.cwd = Some(me.cwd.clone()).filter(|cwd| cwd.is_absolute());
        // With autostart off, neither `daemon start` nor `gortex mcp` starts a daemon.
        client_config.launch_daemon = config.daemon_autostart;
        client_config.extra_env =
            config::child_env(&config.tools_preset, config.daemon_autostart, &env)
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect();
        apply_test_timeouts(&env, &mut client_config);
        let own_client = OwnClient::new(client_config);
        // Occupy the slot and take out the previous
        // client in one locked step, before the first suspension point.
        let (generation, previous) = state.lock().client.occupy(instance_id, own_client.clone());
        if let Some(previous) = previous {
            previous.own_client.stop().await;
        }
        let listener_state = Arc::downgrade(&state);
        own_client.set_catalogue_listener(Some(Arc::new(move |changes| {
            let Some(state) = listener_state.upgrade() else {
                return;
            };
            let update = catalogue_update(&state, changes);
            if !(update.register.is_empty()
                && update.deactivate.is_empty()
                && update.activate.is_empty())
            {
                on_catalogue(update);
            }
        })));
        let outcome = own_client.start().await;
        if !state.lock().client.holds(generation) {
            // Superseded; the error stays untouched.
            own_client.stop().await;
            return start_result(OwnStartResultStatus::Superseded);
        }
        match outcome {
            Err(error) => {
                own_client.stop().await;
                if state.lock().client.release(generation).is_some() {
                    return start_failed(&state, error.to_string());
                }
                let mut result = start_result(OwnStartResultStatus::Failed);
                result.error = Some(error.to_string());
                result
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
                    .lock()
                    .status
                    .record_started(&report.server_version, &first);
                result
            }
        }
    }

    /// A start that panicked is a failed start like any other: the model and
    /// `/gortex` see why.
    pub fn start_panicked(&self) -> OwnStartResult {
        start_failed(&self.module, START_PANICKED.to_string())
    }
}

#[cfg(test)]
mod tests;
