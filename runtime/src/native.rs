//! Native-MCP decisions on Pi >= 0.99 (NAT-*): whether `bin` resolves to an
//! executable, the `registerMcpServer` config, the `mcp__gortex__` names and
//! the choice between Pi's MCP and the extension's own client.

use std::collections::HashMap;
use std::num::NonZeroU32;

use serde::{Deserialize, Serialize};

use crate::config::child_env;
pub use crate::config::{
    has_separator, resolve_binary, resolve_binary_on, skipped_relative_binaries, Platform,
    DEFAULT_PATHEXT,
};

/// `MCP_SERVER_NAME`.
pub const MCP_SERVER_NAME: &str = "gortex";
/// `MCP_TOOL_PREFIX`: Pi names a server's tools `mcp__<server>__<tool>`.
pub const MCP_TOOL_PREFIX: &str = "mcp__gortex__";
/// Server description, exact.
pub const SERVER_DESCRIPTION: &str = "Gortex code graph of the indexed repositories: symbol search, source reads, usages, call chains, change impact and graph-aware edits.";
/// Timeout in seconds: the `tools/call` cap (Pi's default is 60).
pub const SERVER_TIMEOUT_SECONDS: u32 = 600;
/// Exposure: declared like built-ins (Pi's default `codemode` hides them).
pub const SERVER_EXPOSURE: &str = "direct";
/// `mcp__gortex__<bare>`: the name Pi gives a daemon tool.
pub fn native_tool_name(bare: &str) -> String {
    format!("{MCP_TOOL_PREFIX}{bare}")
}

/// The daemon's bare name of a native Gortex tool; `None` for any other name
/// (including other servers' `mcp__docs__read`).
pub fn bare_tool_name(pi_name: &str) -> Option<&str> {
    pi_name
        .strip_prefix(MCP_TOOL_PREFIX)
        .filter(|bare| !bare.is_empty())
}

/// True for a tool Pi's MCP registered from the gortex server.
pub fn is_native_gortex_tool(pi_name: &str) -> bool {
    bare_tool_name(pi_name).is_some()
}

/// Whether any Gortex tool is among Pi's tools yet.
pub fn native_tools_present<'a>(names: impl IntoIterator<Item = &'a str>) -> bool {
    names.into_iter().any(is_native_gortex_tool)
}

/// The `registerMcpServer("gortex", …)` config, generated
/// from `schema/pi.schema.json`.
pub use pi_gortex_schema::pi::NativeMcpServerConfig;

/// The server config for `bin`, a preset and `daemon_autostart`,
/// given the environment.
pub fn server_config(
    bin: &str,
    tools_preset: &str,
    daemon_autostart: bool,
    env: &HashMap<String, String>,
) -> NativeMcpServerConfig {
    NativeMcpServerConfig {
        command: bin.to_string(),
        args: Some(vec!["mcp".to_string()]),
        env: Some(child_env(tools_preset, daemon_autostart, env)),
        exposure: Some(SERVER_EXPOSURE.to_string()),
        timeout: NonZeroU32::new(SERVER_TIMEOUT_SECONDS),
        description: Some(SERVER_DESCRIPTION.to_string()),
        cwd: None,
        enabled: None,
        tool_exposure: None,
        type_: None,
    }
}

/// What the host offers and what the configuration allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostCapabilities {
    /// `pi.registerMcpServer` is a function.
    pub has_register_mcp_server: bool,
    /// `pi.getCommands()` lists `mcp`, or threw. At factory time,
    /// before the check can run, pass `true`.
    pub has_mcp_command: bool,
    /// `native_mcp`.
    pub native_mcp: bool,
    /// `bin` resolves.
    pub bin_resolves: bool,
}

/// Why the own client is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OwnClientReason {
    /// `native_mcp` is off.
    NativeDisabled,
    /// Pi has no `registerMcpServer` (Pi < 0.99).
    HostLacksNativeMcp,
    /// `bin` does not resolve, so its spawn failure must reach the model.
    BinaryDoesNotResolve,
    /// No `/mcp` connector is loaded (`--no-mcp`, …).
    NoMcpConnector,
}

/// Which tool channel is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "path", rename_all = "snake_case")]
pub enum ToolPath {
    /// Pi's built-in MCP owns the connection.
    Native,
    /// The extension's own MCP client.
    OwnClient {
        /// Why native was not used.
        reason: OwnClientReason,
    },
}

/// Native only when every condition holds. (A refusal by
/// `registerMcpServer` is a runtime event the glue handles; see
/// [`refusal_notice`].)
pub fn choose_path(caps: &HostCapabilities) -> ToolPath {
    let reason = if !caps.native_mcp {
        OwnClientReason::NativeDisabled
    } else if !caps.has_register_mcp_server {
        OwnClientReason::HostLacksNativeMcp
    } else if !caps.bin_resolves {
        OwnClientReason::BinaryDoesNotResolve
    } else if !caps.has_mcp_command {
        OwnClientReason::NoMcpConnector
    } else {
        return ToolPath::Native;
    };
    ToolPath::OwnClient { reason }
}

/// User warning after `registerMcpServer` threw `reason`.
pub fn refusal_notice(reason: &str) -> String {
    format!("Pi refused the gortex MCP server ({reason}), so the extension runs its own client.")
}
