//! `pi-gortex doctor`: one report of what the extension would see from a
//! directory, so a broken setup is diagnosed by one command instead of five
//! questions.
//!
//! The report is the schema type `DoctorReport`. [`diagnose`] gathers it by
//! running the real pieces (config resolution, binary resolution, the own
//! MCP client's start, one hook round trip, the native-path choice), and
//! [`render_text`] turns it into the human form. Nothing here prints: the
//! `pi-gortex` binary does.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use pi_gortex_schema::doctor::{
    CheckStatus, ConfigLayer, DoctorAlias, DoctorBinary, DoctorConfig, DoctorHandshake, DoctorHook,
    DoctorNative, DoctorProvenance, DoctorReport, DoctorTools, HookVerdict, ToolChannel,
};

use crate::config::{child_env, resolve, ConfigInputs, Layer, ResolvedConfig};
use crate::hook::{self, EnvelopeContext, HookOutcome};
use crate::mcp::own_client::{OwnClient, OwnClientConfig, StartReport};
use crate::native::{self, HostCapabilities, ToolPath};
use crate::terminal_text::shown;
use crate::version::{is_accepted_protocol, is_below_floor, MIN_GORTEX_VERSION, PROTOCOL_VERSION};

/// The sample call of the hook round trip: a plain Pi `read` of a file that
/// exists in most repositories. No session id, so no posture state is kept.
const SAMPLE_TOOL: &str = "read";
const SAMPLE_PATH: &str = "README.md";

/// Runs every check and assembles the report.
pub async fn diagnose(inputs: &ConfigInputs) -> DoctorReport {
    let config = resolve(inputs);
    // The one absolute path configuration resolved, as every spawn uses.
    let resolved = config.bin_path.clone();
    let (handshake, tools) = match &resolved {
        Some(_) => check_mcp(&config, inputs).await,
        None => (skipped_handshake(), skipped_tools()),
    };
    let hook = check_hook(&config, inputs).await;
    let native = check_native(&config, inputs, resolved.is_some());
    let reason = down_reason(&config, resolved.is_some(), &handshake);
    DoctorReport {
        ok: reason.is_none(),
        reason,
        config: config_section(&config),
        binary: DoctorBinary {
            configured: config.bin_configured.clone(),
            resolved: resolved.map(|path| path.display().to_string()),
        },
        handshake,
        tools,
        hook,
        native,
    }
}

/// The process exit code for a report: 0 when the own client would work.
pub fn exit_code(report: &DoctorReport) -> u8 {
    if report.ok {
        0
    } else {
        1
    }
}

/// Why the own client would be down, or `None` when it would work.
fn down_reason(
    config: &ResolvedConfig,
    resolves: bool,
    handshake: &DoctorHandshake,
) -> Option<String> {
    if !resolves {
        let how = if native::has_separator(&config.bin_configured) {
            "is not an executable regular file"
        } else {
            "was not found as an executable regular file on PATH"
        };
        return Some(format!("gortex binary `{}` {how}", config.bin_configured));
    }
    match handshake.status {
        CheckStatus::Ok => None,
        _ => Some(format!(
            "the MCP handshake with `{} mcp` failed: {}",
            config.bin,
            handshake.error.as_deref().unwrap_or("unknown error")
        )),
    }
}

fn layer(layer: Layer) -> ConfigLayer {
    match layer {
        Layer::Env => ConfigLayer::Env,
        Layer::Project => ConfigLayer::Project,
        Layer::Global => ConfigLayer::Global,
        Layer::Default => ConfigLayer::Default,
    }
}

fn config_section(config: &ResolvedConfig) -> DoctorConfig {
    let p = &config.provenance;
    DoctorConfig {
        bin: config.bin.clone(),
        hook_mode: config.hook_mode.as_str().to_string(),
        hook_argv: config.hook_argv.clone(),
        enforce: config.enforce,
        tools_preset: config.tools_preset.clone(),
        native_mcp: config.native_mcp,
        prompt_context: config.prompt_context,
        daemon_autostart: config.daemon_autostart,
        provenance: DoctorProvenance {
            bin: layer(p.bin),
            hook_mode: layer(p.hook_mode),
            enforce: layer(p.enforce),
            tools_preset: layer(p.tools_preset),
            native_mcp: layer(p.native_mcp),
            prompt_context: layer(p.prompt_context),
            daemon_autostart: layer(p.daemon_autostart),
        },
        agent_dir: config.agent_dir.display().to_string(),
        project_sidecar: config.sidecars.project.display().to_string(),
        global_sidecar: config.sidecars.global.display().to_string(),
        warnings: config.warnings.iter().map(ToString::to_string).collect(),
    }
}

fn millis(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

fn skipped_handshake() -> DoctorHandshake {
    DoctorHandshake {
        status: CheckStatus::Skipped,
        expected_protocol: PROTOCOL_VERSION.to_string(),
        floor: MIN_GORTEX_VERSION.to_string(),
        below_floor: None,
        error: None,
        latency_ms: None,
        protocol: None,
        server_version: None,
        skew_warning: None,
    }
}

fn skipped_tools() -> DoctorTools {
    DoctorTools {
        status: CheckStatus::Skipped,
        count: 0,
        names: Vec::new(),
        aliased: Vec::new(),
    }
}

/// Starts the own client exactly as a session would (SES-7 steps 3, 7, 9,
/// 11), reads the handshake and the first listing, then stops it.
async fn check_mcp(
    config: &ResolvedConfig,
    inputs: &ConfigInputs,
) -> (DoctorHandshake, DoctorTools) {
    let mut client_config = OwnClientConfig::new(&config.bin);
    client_config.launch_daemon = config.daemon_autostart;
    client_config.extra_env = child_env(&config.tools_preset, config.daemon_autostart, &inputs.env)
        .into_iter()
        .map(|(k, v)| (OsString::from(k), OsString::from(v)))
        .collect();
    client_config.cwd = Some(inputs.cwd.clone());
    let own_client = OwnClient::new(client_config);
    let started = Instant::now();
    let result = own_client.start().await;
    let latency = millis(started.elapsed());
    own_client.stop().await;
    match result {
        Ok(report) => (handshake_section(&report, latency), tools_section(&report)),
        Err(error) => (
            DoctorHandshake {
                status: CheckStatus::Failed,
                error: Some(error.to_string()),
                latency_ms: Some(latency),
                ..skipped_handshake()
            },
            skipped_tools(),
        ),
    }
}

fn handshake_section(report: &StartReport, latency_ms: f64) -> DoctorHandshake {
    DoctorHandshake {
        status: CheckStatus::Ok,
        server_version: Some(report.server_version.clone()),
        protocol: Some(report.protocol.clone()),
        below_floor: Some(is_below_floor(&report.server_version)),
        skew_warning: report.skew.as_ref().map(|skew| skew.user_text.clone()),
        latency_ms: Some(latency_ms),
        ..skipped_handshake()
    }
}

fn tools_section(report: &StartReport) -> DoctorTools {
    let register = &report.catalogue_changes.register;
    DoctorTools {
        status: CheckStatus::Ok,
        count: u32::try_from(register.len()).unwrap_or(u32::MAX),
        names: register.iter().map(|tool| tool.name.clone()).collect(),
        aliased: register
            .iter()
            .filter(|tool| tool.name != tool.daemon_name)
            .map(|tool| DoctorAlias {
                name: tool.name.clone(),
                daemon_name: tool.daemon_name.clone(),
            })
            .collect(),
    }
}

/// One round trip of a sample `tool_call` envelope through the real hook.
async fn check_hook(config: &ResolvedConfig, inputs: &ConfigInputs) -> DoctorHook {
    let context = EnvelopeContext {
        cwd: inputs.cwd.display().to_string(),
        session_id: String::new(),
    };
    let envelope = hook::envelope_for_tool_call(
        SAMPLE_TOOL,
        &json!({ "path": SAMPLE_PATH }),
        &context,
        |_| None,
    );
    let run = hook::run(&config.hook_argv, &envelope).await;
    let outcome = match hook::outcome(&run.decision) {
        HookOutcome::Block { .. } => HookVerdict::Block,
        HookOutcome::Steer { .. } => HookVerdict::Steer,
        HookOutcome::None => HookVerdict::None,
    };
    DoctorHook {
        argv: config.hook_argv.clone(),
        envelope: as_object(serde_json::to_value(&envelope)),
        decision: as_object(serde_json::to_value(&run.decision)),
        outcome,
        failure: run.failure.map(|failure| failure.to_string()),
        latency_ms: millis(run.latency),
    }
}

fn as_object(value: Result<Value, serde_json::Error>) -> Map<String, Value> {
    match value {
        Ok(Value::Object(object)) => object,
        _ => Map::new(),
    }
}

/// NAT-2 on a Pi >= 0.99 host with a connector loaded.
fn check_native(
    config: &ResolvedConfig,
    inputs: &ConfigInputs,
    bin_resolves: bool,
) -> DoctorNative {
    let caps = HostCapabilities {
        has_register_mcp_server: true,
        has_mcp_command: true,
        native_mcp: config.native_mcp,
        bin_resolves,
    };
    match native::choose_path(&caps) {
        ToolPath::Native => DoctorNative {
            path: ToolChannel::Native,
            reason: None,
            server_config: Some(as_object(serde_json::to_value(native::server_config(
                &config.bin,
                &config.tools_preset,
                config.daemon_autostart,
                &inputs.env,
            )))),
        },
        ToolPath::OwnClient { reason } => DoctorNative {
            path: ToolChannel::OwnClient,
            reason: serde_json::to_value(reason)
                .ok()
                .and_then(|value| value.as_str().map(str::to_string)),
            server_config: None,
        },
    }
}

fn layer_name(layer: &ConfigLayer) -> &'static str {
    match layer {
        ConfigLayer::Env => "env",
        ConfigLayer::Project => "project sidecar",
        ConfigLayer::Global => "global sidecar",
        ConfigLayer::Default => "default",
    }
}

fn status_name(status: &CheckStatus) -> &'static str {
    match status {
        CheckStatus::Ok => "ok",
        CheckStatus::Failed => "FAILED",
        CheckStatus::Skipped => "skipped",
    }
}

/// The human-readable report.
pub fn render_text(report: &DoctorReport) -> String {
    let mut out = String::new();
    // Writing into a String cannot fail.
    let _ = render_into(&mut out, report);
    // Values from a project sidecar, paths and daemon texts may hold
    // terminal control sequences; none reaches the terminal raw.
    crate::terminal_text::escape_lines(&out)
}

fn render_into(out: &mut String, report: &DoctorReport) -> std::fmt::Result {
    let c = &report.config;
    let p = &c.provenance;
    writeln!(out, "Configuration")?;
    let rows: [(&str, String, &ConfigLayer); 7] = [
        ("bin", c.bin.clone(), &p.bin),
        ("hook_mode", c.hook_mode.clone(), &p.hook_mode),
        ("enforce", c.enforce.to_string(), &p.enforce),
        ("tools_preset", shown(&c.tools_preset), &p.tools_preset),
        ("native_mcp", c.native_mcp.to_string(), &p.native_mcp),
        (
            "prompt_context",
            c.prompt_context.to_string(),
            &p.prompt_context,
        ),
        (
            "daemon_autostart",
            c.daemon_autostart.to_string(),
            &p.daemon_autostart,
        ),
    ];
    for (key, value, source) in rows {
        writeln!(out, "  {key:<15} {value}  ({})", layer_name(source))?;
    }
    writeln!(out, "  {:<15} {}", "hook argv", c.hook_argv.join(" "))?;
    writeln!(out, "  {:<15} {}", "agent dir", c.agent_dir)?;
    writeln!(out, "  {:<15} {}", "project sidecar", c.project_sidecar)?;
    writeln!(out, "  {:<15} {}", "global sidecar", c.global_sidecar)?;
    for warning in &c.warnings {
        writeln!(out, "  warning: {warning}")?;
    }

    // Who starts the daemon, since a managed one must never be started twice.
    writeln!(out, "\nDaemon")?;
    if c.daemon_autostart {
        writeln!(
            out,
            "  started by pi-gortex when none runs (`gortex daemon start --detach`; `gortex mcp` may start one too)"
        )?;
    } else {
        writeln!(
            out,
            "  started by someone else: daemon_autostart is off, so pi-gortex and gortex mcp start none"
        )?;
    }

    writeln!(out, "\nBinary")?;
    match &report.binary.resolved {
        Some(path) => writeln!(out, "  {} -> {path}", report.binary.configured)?,
        None => writeln!(out, "  {} does not resolve", report.binary.configured)?,
    }

    let h = &report.handshake;
    writeln!(out, "\nMCP handshake: {}", status_name(&h.status))?;
    if let Some(version) = &h.server_version {
        let shown = if version.is_empty() {
            "(not reported)"
        } else {
            version
        };
        let verdict = if h.below_floor == Some(true) {
            "below"
        } else {
            "at or above"
        };
        writeln!(
            out,
            "  server version  {shown} ({verdict} the floor {})",
            h.floor
        )?;
    }
    if let Some(protocol) = &h.protocol {
        if protocol == &h.expected_protocol {
            writeln!(out, "  protocol        {protocol} (as expected)")?;
        } else if is_accepted_protocol(protocol) {
            writeln!(
                out,
                "  protocol        {protocol} (accepted; offered {})",
                h.expected_protocol
            )?;
        } else {
            writeln!(
                out,
                "  protocol        {protocol} (expected {})",
                h.expected_protocol
            )?;
        }
    }
    if let Some(latency) = h.latency_ms {
        writeln!(out, "  start time      {latency:.0} ms")?;
    }
    if let Some(warning) = &h.skew_warning {
        writeln!(out, "  warning: {warning}")?;
    }
    if let Some(error) = &h.error {
        writeln!(out, "  error: {error}")?;
    }

    let t = &report.tools;
    writeln!(out, "\nTools: {}", status_name(&t.status))?;
    if t.status == CheckStatus::Ok {
        writeln!(out, "  {} registered: {}", t.count, t.names.join(", "))?;
        for alias in &t.aliased {
            writeln!(out, "  aliased: {} -> {}", alias.name, alias.daemon_name)?;
        }
    }

    let k = &report.hook;
    let verdict = match k.outcome {
        HookVerdict::Block => "block",
        HookVerdict::Steer => "steer",
        HookVerdict::None => "none",
    };
    writeln!(out, "\nHook round trip ({SAMPLE_TOOL} {SAMPLE_PATH})")?;
    writeln!(out, "  argv            {}", k.argv.join(" "))?;
    writeln!(
        out,
        "  decision        {} -> {verdict}",
        Value::Object(k.decision.clone())
    )?;
    writeln!(out, "  latency         {:.0} ms", k.latency_ms)?;
    if let Some(failure) = &k.failure {
        writeln!(out, "  failed open: {failure}")?;
    }

    let n = &report.native;
    writeln!(out, "\nOn Pi >= 0.99")?;
    match n.path {
        ToolChannel::Native => writeln!(out, "  native MCP (Pi owns the gortex server)")?,
        ToolChannel::OwnClient => writeln!(
            out,
            "  own MCP client ({})",
            n.reason.as_deref().unwrap_or("unknown reason")
        )?,
    }

    match &report.reason {
        None => writeln!(out, "\nBridge: OK")?,
        Some(reason) => writeln!(out, "\nBridge: DOWN: {reason}")?,
    }
    Ok(())
}
