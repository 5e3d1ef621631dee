//! Configuration at load (CFG-1): resolved once per factory call through the
//! runtime and kept with the instance, so later handlers need not resend it.

use std::sync::Arc;

use napi_derive::napi;
use pi_gortex_runtime::config::{self, ConfigInputs};
use serde_json::Value;

use crate::boundary::{to_js, HostConfig};
use crate::state::{lock, InstanceState};
use crate::{generation, guard};

/// Resolves the configuration for an instance and returns `HostConfig`.
/// `cwd` is the process working directory the factory sees (CFG-1).
#[napi]
pub async fn resolve_config(generation: u32, instance: u32, cwd: String) -> Value {
    guard::guard_async(
        || to_js(&HostConfig::default()),
        async move {
            let inputs = ConfigInputs::from_process().with_cwd(cwd);
            let resolved = Arc::new(config::resolve(&inputs));
            let host = HostConfig {
                bin: resolved.bin.clone(),
                hook_argv: resolved.hook_argv.clone(),
                enforce: resolved.enforce,
                tools_preset: resolved.tools_preset.clone(),
                native_mcp: resolved.native_mcp,
                prompt_context: resolved.prompt_context,
                warnings: resolved.warnings.iter().map(|w| w.to_string()).collect(),
            };
            let state = generation::get(generation);
            lock(&state.instances).insert(instance, InstanceState { config: resolved });
            to_js(&host)
        },
    )
    .await
}
