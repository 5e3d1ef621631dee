//! Configuration at load: resolved once per factory call through the
//! runtime and kept with the instance, so later handlers need not resend it.

use std::sync::Arc;
use std::time::Duration;

use napi_derive::napi;
use pi_gortex_runtime::config::{self, ConfigInputs};
use serde_json::Value;

use crate::boundary::{to_js, HostConfig};
use crate::{generation, guard};

/// What the glue sees when resolution itself failed: the built-in defaults
/// with enforcement off, so a core fault never blocks a call.
fn fallback_config() -> HostConfig {
    HostConfig {
        bin: config::DEFAULT_BIN.to_string(),
        enforce: false,
        hook_argv: Vec::new(),
        native_mcp: false,
        prompt_context: false,
        tools_preset: config::DEFAULT_TOOLS_PRESET.to_string(),
        warnings: Vec::new(),
    }
}

/// How long the sidecar reads may take before the factory goes on without them.
const READ_TIMEOUT: Duration = Duration::from_secs(5);

/// Resolves the configuration for an instance and returns `HostConfig`.
/// `cwd` is the process working directory the factory sees.
#[napi(ts_return_type = "Promise<host.HostConfig>")]
pub async fn resolve_config(generation: u32, instance: u32, cwd: String) -> Value {
    guard::guard_async(|| to_js(&fallback_config()), async move {
        // The sidecar reads run on tokio's blocking pool, never on the
        // JS thread or a tokio worker, bounded in time; O_NONBLOCK already
        // keeps a FIFO from blocking, this covers a hung mount.
        let inputs = ConfigInputs::from_process().with_cwd(cwd);
        let session_cwd = inputs.cwd.clone();
        let read = tokio::task::spawn_blocking(move || {
            // Trust is known only at session_start; both now, off
            // the JS thread, and the session start picks one.
            (
                config::resolve_with_trust(&inputs, true),
                config::resolve_with_trust(&inputs, false),
            )
        });
        let Ok(Ok((resolved, untrusted))) = tokio::time::timeout(READ_TIMEOUT, read).await else {
            let mut host = fallback_config();
            host.warnings.push(format!(
                "the configuration could not be read within {} s; pi-gortex runs without it",
                READ_TIMEOUT.as_secs()
            ));
            return to_js(&host);
        };
        let resolved = Arc::new(resolved);
        let host = HostConfig {
            bin: resolved.bin.clone(),
            hook_argv: resolved.hook_argv.clone(),
            // The tool_call handler is registered now, before trust is
            // known: when either resolution enforces. The core judges each
            // call by the one in effect (enforce_tool_call).
            enforce: resolved.enforce || untrusted.enforce,
            tools_preset: resolved.tools_preset.clone(),
            native_mcp: resolved.native_mcp,
            prompt_context: resolved.prompt_context,
            warnings: resolved.warnings.iter().map(|w| w.to_string()).collect(),
        };
        generation::get(generation).add_instance(
            instance,
            resolved,
            Arc::new(untrusted),
            session_cwd,
        );
        to_js(&host)
    })
    .await
}
