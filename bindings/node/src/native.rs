//! The native-versus-own-client choice and the small native-path
//! helpers the glue needs.

use std::collections::HashMap;

use napi_derive::napi;
use pi_gortex_runtime::instance::InstanceLatches;
use pi_gortex_runtime::native::{self, HostCapabilities, ToolPath};
use serde_json::Value;

use crate::boundary::{from_js, guarded_answer, object, to_js, PathChoice, PathRequest};
use crate::{generation, guard};
use pi_gortex_runtime::extension::lock;

fn own(reason: &str) -> PathChoice {
    PathChoice {
        native: false,
        reason: reason.to_string(),
        server_config: None,
        server_name: native::MCP_SERVER_NAME.to_string(),
        tool_prefix: native::MCP_TOOL_PREFIX.to_string(),
    }
}

/// At factory time: `PathChoice` for `PathRequest`. The connector
/// check runs later, in `session_start`, so it is assumed present.
#[napi(
    ts_args_type = "generation: number, instance: number, request: host.PathRequest",
    ts_return_type = "host.PathChoice"
)]
pub fn choose_path(generation: u32, instance: u32, request: Value) -> Value {
    guarded_answer(
        || own("internal_error"),
        || {
            let Some(request) = from_js::<PathRequest>(request) else {
                return own("internal_error");
            };
            let state = generation::get(generation);
            let Some(me) = state.instance(instance) else {
                return own("internal_error");
            };
            // The factory's resolution (the session start withdraws
            // this registration if the one in effect disagrees).
            let config = me.config_at_load();
            state.set_takes_tool_metadata(pi_gortex_runtime::catalogue::takes_tool_metadata(
                request.has_register_mcp_server,
            ));
            let env: HashMap<String, String> = pi_gortex_runtime::config::process_env();
            let caps = HostCapabilities {
                has_register_mcp_server: request.has_register_mcp_server,
                has_mcp_command: true,
                native_mcp: config.native_mcp,
                bin_resolves: config.native_mcp
                    && request.has_register_mcp_server
                    // Resolved once, to the absolute path handed to Pi.
                    && config.bin_path.is_some(),
            };
            let choice = match native::choose_path(&caps) {
                ToolPath::Native => PathChoice {
                    native: true,
                    reason: "native".to_string(),
                    server_name: native::MCP_SERVER_NAME.to_string(),
                    tool_prefix: native::MCP_TOOL_PREFIX.to_string(),
                    server_config: Some(object(to_js(&native::server_config(
                        &config.bin,
                        &config.tools_preset,
                        config.daemon_autostart,
                        &env,
                    )))),
                },
                ToolPath::OwnClient { reason } => {
                    let reason = serde_json::to_value(reason)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default();
                    own(&reason)
                }
            };
            *lock(&me.latches) = InstanceLatches::new(choice.native);
            choice
        },
    )
}

/// `registerMcpServer` threw `reason`; the instance takes the own
/// client and tells the user at each session start.
#[napi]
pub fn refuse_native(generation: u32, instance: u32, reason: String) {
    guard::guard_sync(
        || (),
        || {
            if let Some(me) = generation::get(generation).instance(instance) {
                lock(&me.latches).refuse_native(reason);
            }
        },
    )
}
