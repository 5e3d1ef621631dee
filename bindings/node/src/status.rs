//! The bridge's state for the footer and `/gortex` (STAT-1, STAT-2), and the
//! `pi-gortex` command line for the npm package's Node entry.
//!
//! The other exports record what they see into the generation's
//! [`StatusRecord`] (the client's start, the native first turn, every hook
//! call); [`gortex_status`] joins it with what only the glue knows
//! (`StatusRequest`) into the runtime's `StatusSnapshot`, which the runtime
//! words. [`run_cli`] runs `pi_gortex_runtime::cli`, the same function the
//! Rust binary runs, so both print the same bytes and exit codes.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::Duration;

use napi_derive::napi;
use pi_gortex_runtime::config::ResolvedConfig;
use pi_gortex_runtime::native::{self, OwnClientReason};
use pi_gortex_runtime::status::{
    self, BridgeState, HookStats, HookTally, PathWhy, StatusSnapshot, ToolEntry,
};
use serde_json::Value;

use crate::boundary::{from_js, to_js, CliOutput, StatusRequest, StatusView};
use crate::state::{lock, GenerationState};
use crate::{generation, guard};

/// What the exports saw, per generation.
#[derive(Debug, Default)]
pub struct StatusRecord {
    /// `None` until a start or a first turn said otherwise.
    pub state: Option<BridgeState>,
    /// The daemon's version, from the handshake or the briefing.
    pub daemon_version: Option<String>,
    /// The last bridge failure; unlike the SES-9 error it is not cleared
    /// when reported, only when a new session starts.
    pub last_error: Option<String>,
    /// Pi names registered by the first listing; later ones are promoted.
    pub initial_tools: HashSet<String>,
    /// This session's hook calls.
    pub hook: HookStats,
}

/// SES-6: a new session starts a fresh tally and forgets the last error.
pub fn begin_session(state: &GenerationState) {
    let mut record = lock(&state.status);
    record.hook = HookStats::default();
    record.last_error = None;
}

/// The own client is starting.
pub fn record_connecting(state: &GenerationState) {
    lock(&state.status).state = Some(BridgeState::Connecting);
}

/// The own client started: its version and first registrations.
pub fn record_started(state: &GenerationState, version: &str, tools: &[String]) {
    let mut record = lock(&state.status);
    record.state = Some(BridgeState::Connected);
    record.daemon_version = Some(version.to_string()).filter(|v| !v.is_empty());
    record.initial_tools = tools.iter().cloned().collect();
}

/// The bridge failed with `error`.
pub fn record_down(state: &GenerationState, error: String) {
    let mut record = lock(&state.status);
    record.state = Some(BridgeState::Down);
    record.last_error = Some(error);
}

/// The native first turn: the version from the briefing (NAT-10), and
/// whether Pi's tools appeared (NAT-9).
pub fn record_native_first_turn(state: &GenerationState, version: Option<String>, ready: bool) {
    let mut record = lock(&state.status);
    if let Some(version) = version.filter(|v| !v.is_empty()) {
        record.daemon_version = Some(version);
    }
    if !ready {
        record.state = Some(BridgeState::Down);
        record.last_error =
            Some("Pi's MCP did not list any gortex tool within 5 s of the first turn".into());
    }
}

/// One hook call for a tool call, with its outcome and duration.
pub fn record_hook(state: &GenerationState, tally: HookTally, elapsed: Duration) {
    lock(&state.status).hook.record(tally, elapsed);
}

/// The path and why. The NAT-5 refusal is the one the core latched when the glue reported it
/// (`refuse_native`), so `/gortex` says what the session-start notice says; a refusal in the
/// request is only a fallback for a glue that hands it over itself.
fn path_why(
    config: &ResolvedConfig,
    request: &StatusRequest,
    refusal: Option<String>,
    env: &HashMap<String, String>,
) -> PathWhy {
    if request.native {
        return PathWhy::Native;
    }
    if let Some(refusal) = refusal.or_else(|| request.refusal.clone()) {
        return PathWhy::Refused(refusal);
    }
    if request.fallback.as_deref() == Some("no_mcp_connector") {
        return PathWhy::Own(OwnClientReason::NoMcpConnector);
    }
    let reason = if !config.native_mcp {
        OwnClientReason::NativeDisabled
    } else if native::resolve_binary(&config.bin, env).is_none() {
        OwnClientReason::BinaryDoesNotResolve
    } else {
        OwnClientReason::HostLacksNativeMcp
    };
    PathWhy::Own(reason)
}

fn snapshot(
    state: &GenerationState,
    config: &ResolvedConfig,
    request: &StatusRequest,
    refusal: Option<String>,
) -> StatusSnapshot {
    // `process_env`, not `std::env::vars`: one non-UTF-8 variable must not panic `/gortex` away.
    let env: HashMap<String, String> = pi_gortex_runtime::config::process_env();
    let record = lock(&state.status);
    let tools: Vec<ToolEntry> = if request.native {
        request
            .native_tools
            .iter()
            .filter_map(|name| {
                native::bare_tool_name(name).map(|bare| ToolEntry {
                    pi_name: name.clone(),
                    daemon_name: bare.to_string(),
                    promoted: false,
                })
            })
            .collect()
    } else {
        // Sorted, so the block reads the same on every call.
        let registry: BTreeMap<String, String> = state.registry_entries().into_iter().collect();
        registry
            .into_iter()
            .map(|(pi_name, daemon_name)| ToolEntry {
                promoted: !record.initial_tools.contains(&pi_name),
                pi_name,
                daemon_name,
            })
            .collect()
    };
    let state_now = match (request.native, record.state) {
        (_, Some(BridgeState::Down)) => BridgeState::Down,
        (true, _) if !tools.is_empty() => BridgeState::Connected,
        (true, _) => BridgeState::Connecting,
        (false, Some(recorded)) => recorded,
        (false, None) => BridgeState::Connecting,
    };
    StatusSnapshot {
        state: state_now,
        path: path_why(config, request, refusal, &env),
        configured_bin: config.bin.clone(),
        resolved_bin: native::resolve_binary(&config.bin, &env),
        daemon_version: record.daemon_version.clone(),
        tools,
        hook_mode: config.hook_mode.to_string(),
        enforce: config.enforce,
        hook: record.hook.clone(),
        config: status::config_entries(config),
        last_error: record.last_error.clone(),
    }
}

/// What the glue shows when the status itself failed (FAIL-4).
fn unavailable() -> Value {
    to_js(&StatusView {
        footer: "gortex: down".into(),
        text: "Gortex bridge: status unavailable (internal error)\n".into(),
    })
}

/// STAT-1/STAT-2: the footer status and the `/gortex` block.
#[napi(
    ts_args_type = "generation: number, instance: number, request: host.StatusRequest",
    ts_return_type = "host.StatusView"
)]
pub fn gortex_status(generation: u32, instance: u32, request: Value) -> Value {
    guard::guard_sync(unavailable, || {
        let state = generation::get(generation);
        let (Some(request), Some(me)) =
            (from_js::<StatusRequest>(request), state.instance(instance))
        else {
            return unavailable();
        };
        let refusal = lock(&me.latches).refusal().map(str::to_string);
        let snapshot = snapshot(&state, &me.config(), &request, refusal);
        to_js(&StatusView {
            footer: status::footer(&snapshot),
            text: status::render(&snapshot),
        })
    })
}

/// Runs one `pi-gortex` command line (`args[0]` is the program name) and
/// returns what to print and the exit code, exactly as the Rust binary would.
#[napi(ts_return_type = "Promise<host.CliOutput>")]
pub async fn run_cli(args: Vec<String>) -> Value {
    let failed = || {
        to_js(&CliOutput {
            stdout: String::new(),
            stderr: "pi-gortex: internal error\n".into(),
            exit_code: 2,
        })
    };
    guard::guard_async(failed, async move {
        to_js(&pi_gortex_runtime::cli::run(args).await)
    })
    .await
}
