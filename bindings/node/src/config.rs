//! Configuration at load (CFG-1): resolved once per factory call through the
//! runtime and kept with the instance, so later handlers need not resend it.

use std::sync::Arc;

use napi_derive::napi;
use std::time::Duration;

use pi_gortex_runtime::config::{self, ConfigInputs, ResolvedConfig};
use serde_json::Value;

use crate::boundary::{to_js, HostConfig};
use crate::state::{lock, InstanceState};
use crate::{generation, guard};

/// What the glue sees when resolution itself failed: the built-in defaults
/// with enforcement off, so a core fault never blocks a call (FAIL-1).
fn fallback_config() -> HostConfig {
    HostConfig {
        bin: config::DEFAULT_BIN.to_string(),
        enforce: false,
        hook_argv: Vec::new(),
        native_mcp: false,
        prompt_context: false,
        tools_preset: config::DEFAULT_TOOLS_PRESET.to_string(),
        warnings: Vec::new(),
        trust_notice: None,
    }
}

/// How long the sidecar reads may take before the factory goes on without
/// them. They run on tokio's blocking pool, never on the JS thread or a
/// tokio worker (CFG-16); `O_NONBLOCK` already keeps a FIFO from blocking,
/// and this bound covers what it cannot (a hung network mount).
const READ_TIMEOUT: Duration = Duration::from_secs(5);

fn host_config(resolved: &ResolvedConfig) -> HostConfig {
    HostConfig {
        bin: resolved.bin.clone(),
        hook_argv: resolved.hook_argv.clone(),
        enforce: resolved.enforce,
        tools_preset: resolved.tools_preset.clone(),
        native_mcp: resolved.native_mcp,
        prompt_context: resolved.prompt_context,
        warnings: resolved.warnings.iter().map(|w| w.to_string()).collect(),
        trust_notice: resolved
            .project_ignored
            .then(|| config::untrusted_project_notice(&resolved.sidecars.project)),
    }
}

/// Resolves the configuration for an instance and returns `HostConfig`.
/// `cwd` is the process working directory the factory sees (CFG-1). The
/// project sidecar is honoured here; `trust_project` narrows it away when the
/// host says the folder is untrusted (CFG-19).
#[napi(ts_return_type = "Promise<host.HostConfig>")]
pub async fn resolve_config(generation: u32, instance: u32, cwd: String) -> Value {
    guard::guard_async(|| to_js(&fallback_config()), async move {
        let read = tokio::task::spawn_blocking(move || {
            let inputs = ConfigInputs::from_process().with_cwd(cwd);
            (
                config::resolve_with_trust(&inputs, true),
                config::resolve_with_trust(&inputs, false),
            )
        });
        let Ok(Ok((trusted, untrusted))) = tokio::time::timeout(READ_TIMEOUT, read).await else {
            let mut host = fallback_config();
            host.warnings.push(format!(
                "the configuration could not be read within {} s; pi-gortex runs without it",
                READ_TIMEOUT.as_secs()
            ));
            return to_js(&host);
        };
        let trusted = Arc::new(trusted);
        let host = host_config(&trusted);
        let state = generation::get(generation);
        lock(&state.instances).insert(
            instance,
            InstanceState {
                config: trusted.clone(),
                trusted,
                untrusted: Arc::new(untrusted),
            },
        );
        to_js(&host)
    })
    .await
}

/// CFG-19: the host's answer to `ctx.isProjectTrusted()` for this session.
/// Puts the matching resolution in effect and returns it as `HostConfig`;
/// `trustNotice` is set when an untrusted project's sidecar was ignored.
#[napi(ts_return_type = "host.HostConfig")]
pub fn trust_project(generation: u32, instance: u32, trusted: bool) -> Value {
    guard::guard_sync(
        || to_js(&fallback_config()),
        || {
            let state = generation::get(generation);
            let mut instances = lock(&state.instances);
            let Some(entry) = instances.get_mut(&instance) else {
                return to_js(&fallback_config());
            };
            entry.config = if trusted {
                entry.trusted.clone()
            } else {
                entry.untrusted.clone()
            };
            to_js(&host_config(&entry.config))
        },
    )
}
