//! Native-MCP decisions on Pi >= 0.99 (NAT-*): whether `bin` resolves to an
//! executable, the `registerMcpServer` config, the `mcp__gortex__` names and
//! the choice between Pi's MCP and the extension's own client.

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::config::child_env;

/// `MCP_SERVER_NAME` (NAT-4).
pub const MCP_SERVER_NAME: &str = "gortex";
/// `MCP_TOOL_PREFIX`: Pi names a server's tools `mcp__<server>__<tool>` (NAT-8).
pub const MCP_TOOL_PREFIX: &str = "mcp__gortex__";
/// NAT-4 server description, exact.
pub const SERVER_DESCRIPTION: &str = "Gortex code graph of the indexed repositories: symbol search, source reads, usages, call chains, change impact and graph-aware edits.";
/// NAT-4 timeout in seconds: the `tools/call` cap (Pi's default is 60).
pub const SERVER_TIMEOUT_SECONDS: u32 = 600;
/// NAT-4 exposure: declared like built-ins (Pi's default `codemode` hides them).
pub const SERVER_EXPOSURE: &str = "direct";
/// Windows `PATHEXT` when the variable is unset (NAT-3).
pub const DEFAULT_PATHEXT: &str = ".EXE;.CMD;.BAT";

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

/// NAT-9: whether any Gortex tool is among Pi's tools yet.
pub fn native_tools_present<'a>(names: impl IntoIterator<Item = &'a str>) -> bool {
    names.into_iter().any(is_native_gortex_tool)
}

/// The platform rules NAT-3 follows; explicit so both are testable anywhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Platform {
    /// `:`-separated `PATH`, execute bit required.
    Unix,
    /// `;`-separated `PATH`, `PATHEXT` extensions tried after the bare name.
    Windows,
}

impl Platform {
    /// The platform this binary was built for.
    pub fn current() -> Self {
        if cfg!(windows) {
            Platform::Windows
        } else {
            Platform::Unix
        }
    }

    fn path_delimiter(self) -> char {
        match self {
            Platform::Unix => ':',
            Platform::Windows => ';',
        }
    }
}

/// NAT-3 on the current platform: the path `bin` resolves to, if any.
pub fn resolve_binary(bin: &str, env: &HashMap<String, String>) -> Option<PathBuf> {
    resolve_binary_on(bin, env, Platform::current())
}

/// NAT-3 with explicit platform rules.
///
/// A `bin` with a path separator is checked as written; a bare name is joined
/// with each *absolute* `PATH` entry. Empty and relative entries are skipped:
/// they name the current directory, which is the project, and a cloned
/// repository must never choose the program that runs as `gortex` (the rule
/// Go 1.19 adopted as `exec.ErrDot`). A candidate passes only when it is a
/// regular file the current user may execute, so a directory named `gortex`
/// on `PATH` never resolves.
pub fn resolve_binary_on(
    bin: &str,
    env: &HashMap<String, String>,
    platform: Platform,
) -> Option<PathBuf> {
    if bin.is_empty() {
        return None;
    }
    let candidates: Vec<PathBuf> = if has_separator(bin) {
        vec![PathBuf::from(bin)]
    } else {
        path_entries(env, platform)
            .filter(|dir| Path::new(dir).is_absolute())
            .map(|dir| Path::new(dir).join(bin))
            .collect()
    };
    candidates
        .iter()
        .find_map(|candidate| executable_variant(candidate, env, platform))
}

/// CFG-18: the relative or empty `PATH` entries that hold an executable `bin`
/// when read from `cwd`, as `(entry, path)`. They were skipped by
/// [`resolve_binary_on`]; the user is told, since the OS would have run them.
pub fn skipped_relative_binaries(
    bin: &str,
    env: &HashMap<String, String>,
    cwd: &Path,
    platform: Platform,
) -> Vec<(String, PathBuf)> {
    if bin.is_empty() || has_separator(bin) {
        return Vec::new();
    }
    path_entries(env, platform)
        .filter(|dir| !Path::new(dir).is_absolute())
        .filter_map(|dir| {
            let found = executable_variant(&cwd.join(dir).join(bin), env, platform)?;
            Some((dir.to_string(), found))
        })
        .collect()
}

/// Whether `bin` names a path rather than a program to look up.
pub fn has_separator(bin: &str) -> bool {
    bin.contains(['/', '\\'])
}

fn path_entries(env: &HashMap<String, String>, platform: Platform) -> impl Iterator<Item = &str> {
    env.get("PATH")
        .map(String::as_str)
        .unwrap_or("")
        .split(platform.path_delimiter())
}

/// `candidate` or, on Windows, the first `PATHEXT` variant that is executable.
fn executable_variant(
    candidate: &Path,
    env: &HashMap<String, String>,
    platform: Platform,
) -> Option<PathBuf> {
    let extensions: Vec<&str> = match platform {
        Platform::Unix => vec![""],
        Platform::Windows => std::iter::once("")
            .chain(
                env.get("PATHEXT")
                    .map(String::as_str)
                    .unwrap_or(DEFAULT_PATHEXT)
                    .split(';')
                    .filter(|ext| !ext.is_empty()),
            )
            .collect(),
    };
    extensions.iter().find_map(|ext| {
        let mut path = candidate.as_os_str().to_os_string();
        path.push(ext);
        let path = PathBuf::from(path);
        is_executable_file(&path, platform).then_some(path)
    })
}

/// A regular file (after symlinks) that the current user may execute.
fn is_executable_file(path: &Path, platform: Platform) -> bool {
    let Ok(metadata) = std::fs::metadata(path) else {
        return false;
    };
    if !metadata.is_file() {
        return false;
    }
    match platform {
        // Windows has no execute bit; PATHEXT stands in for it.
        Platform::Windows => true,
        Platform::Unix => user_may_execute(path),
    }
}

#[cfg(unix)]
fn user_may_execute(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c_path) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // access(2) applies the real user's permissions, ACLs included, which is
    // what "executable by the current user" means.
    // SAFETY: c_path is a valid NUL-terminated string that outlives the call.
    unsafe { libc::access(c_path.as_ptr(), libc::X_OK) == 0 }
}

#[cfg(not(unix))]
#[cfg_attr(mutants, mutants::skip)] // not compiled on Linux, where mutants run
fn user_may_execute(_path: &Path) -> bool {
    true
}

/// The `registerMcpServer("gortex", …)` config (NAT-4, WIRE-22), generated
/// from `schema/pi.schema.json`.
pub use pi_gortex_schema::pi::NativeMcpServerConfig;

/// NAT-4: the server config for `bin`, a preset and `daemon_autostart`
/// (CFG-20), given the environment.
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

/// What the host offers and what the configuration allows (NAT-1, NAT-2, NAT-6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostCapabilities {
    /// `pi.registerMcpServer` is a function (NAT-1).
    pub has_register_mcp_server: bool,
    /// `pi.getCommands()` lists `mcp`, or threw (NAT-6). At factory time,
    /// before the check can run, pass `true`.
    pub has_mcp_command: bool,
    /// `native_mcp` (CFG-12).
    pub native_mcp: bool,
    /// `bin` resolves (NAT-3).
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

/// NAT-2 and NAT-6: native only when every condition holds. (A refusal by
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

/// NAT-5 user warning after `registerMcpServer` threw `reason`.
pub fn refusal_notice(reason: &str) -> String {
    format!("Pi refused the gortex MCP server ({reason}), so the extension runs its own client.")
}
