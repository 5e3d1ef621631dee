//! The connection's state in the user's words: the compact footer
//! status Pi shows under the editor, the block `/gortex` prints, and which
//! of the two `/gortex` commands runs and how its reply reads.
//!
//! Pure: the extension's report ([`super::report`]) gathers a
//! [`StatusSnapshot`] from what it recorded (the client's start, the first
//! turn, every hook call) and what only the glue knows (Pi's tool names);
//! this module only words it.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use pi_gortex_schema::host::{CliOutput, CommandReply, CommandReplyLevel, StatusView};

use crate::config::{Layer, ResolvedConfig};
use crate::native::OwnClientReason;
use crate::savings::{ReadKind, Savings};
use crate::stats::thousands;
use crate::version::Readiness;

/// Whether the connection to Gortex can serve the session now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnectionState {
    /// The daemon is being started or its tools are awaited.
    Connecting,
    /// Graph tools are available.
    Connected,
    /// The connection failed; see [`StatusSnapshot::last_error`].
    Down,
}

impl ConnectionState {
    /// The word used in the footer and the block.
    pub fn as_str(self) -> &'static str {
        match self {
            ConnectionState::Connecting => "connecting",
            ConnectionState::Connected => "connected",
            ConnectionState::Down => "down",
        }
    }
}

/// The footer's first word: `indexing` while connected to a daemon
/// whose last briefing reported warming up or enrichment still running.
fn state_word(state: ConnectionState, readiness: Option<Readiness>) -> &'static str {
    match (state, readiness) {
        (ConnectionState::Connected, Some(readiness)) if readiness.is_indexing() => "indexing",
        _ => state.as_str(),
    }
}

/// The `/gortex` index line.
fn readiness_text(readiness: Option<Readiness>) -> &'static str {
    match readiness {
        Some(Readiness::Ready) => "ready",
        Some(Readiness::EnrichmentRunning) => {
            "indexing: references queryable, semantic enrichment still running"
        }
        Some(Readiness::Warming) => {
            "indexing: the daemon is warming up, graph answers and enforcement are partial"
        }
        Some(Readiness::Unreachable) => "unknown: the hook could not reach the daemon",
        None => "not reported yet (the session briefing has not run)",
    }
}

/// Who starts the daemon, for the `/gortex` block.
fn daemon_owner_text(daemon_autostart: bool) -> &'static str {
    if daemon_autostart {
        "pi-gortex starts the daemon when none runs (daemon_autostart)"
    } else {
        "someone else: daemon_autostart is off, so pi-gortex and gortex mcp start none"
    }
}

/// The hook calls of one session: how many, how many blocked or steered,
/// and how long each took.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookStats {
    /// Hook round trips for tool calls.
    pub calls: u64,
    /// Calls the hook blocked.
    pub blocks: u64,
    /// Calls the hook attached guidance to.
    pub steers: u64,
    latencies: Vec<std::time::Duration>,
}

/// What one hook call decided, as far as the tally cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookTally {
    /// Blocked with a reason.
    Block,
    /// Guidance attached.
    Steer,
    /// Nothing (including every failure, HOOK-3).
    None,
}

impl HookStats {
    /// Counts one call.
    pub fn record(&mut self, tally: HookTally, elapsed: std::time::Duration) {
        self.calls += 1;
        match tally {
            HookTally::Block => self.blocks += 1,
            HookTally::Steer => self.steers += 1,
            HookTally::None => {}
        }
        self.latencies.push(elapsed);
    }

    /// The median latency (the mean of the middle two for an even count).
    pub fn median(&self) -> Option<std::time::Duration> {
        let mut sorted = self.latencies.clone();
        sorted.sort_unstable();
        let n = sorted.len();
        match n {
            0 => None,
            _ if n % 2 == 1 => Some(sorted[n / 2]),
            _ => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2),
        }
    }
}

/// Which tool channel is in use, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathWhy {
    /// Pi's built-in MCP owns the connection.
    Native,
    /// The extension's own client, chosen at factory time.
    Own(OwnClientReason),
    /// Pi threw from `registerMcpServer`.
    Refused(String),
    /// The native server came from a project sidecar that an untrusted
    /// folder does not honour, so it was withdrawn.
    ProjectUntrusted,
}

impl PathWhy {
    fn short(&self) -> &'static str {
        match self {
            PathWhy::Native => "native",
            _ => "own",
        }
    }

    fn explain(&self) -> String {
        match self {
            PathWhy::Native => "native: Pi's built-in MCP owns the connection".to_string(),
            PathWhy::Own(reason) => format!(
                "own client: {}",
                match reason {
                    OwnClientReason::NativeDisabled => "native_mcp is off",
                    OwnClientReason::HostLacksNativeMcp => "this Pi has no built-in MCP (Pi < 0.99)",
                    OwnClientReason::BinaryDoesNotResolve =>
                        "the gortex binary does not resolve, so its failure is reported by the own client",
                    OwnClientReason::NoMcpConnector =>
                        "no /mcp connector is loaded (--no-mcp or an extension filter)",
                }
            ),
            PathWhy::Refused(error) => format!("own client: Pi refused the MCP server ({error})"),
            PathWhy::ProjectUntrusted => "own client: the native server came from this project's \
                 .pi/gortex.json, which an untrusted folder does not honour"
                .to_string(),
        }
    }
}

/// One Pi tool backed by a daemon tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolEntry {
    /// The name Pi knows.
    pub pi_name: String,
    /// The daemon's name for it.
    pub daemon_name: String,
    /// Registered after the first listing (reached through `tools_search`).
    pub promoted: bool,
}

/// One configuration value and the layer it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigEntry {
    /// The sidecar key.
    pub key: &'static str,
    /// The value as resolved.
    pub value: String,
    /// Where it came from.
    pub layer: Layer,
}

/// The configuration entries of a resolved configuration, in sidecar order.
pub fn config_entries(config: &ResolvedConfig) -> Vec<ConfigEntry> {
    let p = &config.provenance;
    let entry = |key, value: String, layer| ConfigEntry { key, value, layer };
    vec![
        entry("bin", config.bin.clone(), p.bin),
        entry("hook_mode", config.hook_mode.to_string(), p.hook_mode),
        entry("enforce", config.enforce.to_string(), p.enforce),
        entry("tools_preset", config.tools_preset.clone(), p.tools_preset),
        entry("native_mcp", config.native_mcp.to_string(), p.native_mcp),
        entry(
            "prompt_context",
            config.prompt_context.to_string(),
            p.prompt_context,
        ),
        entry(
            "daemon_autostart",
            config.daemon_autostart.to_string(),
            p.daemon_autostart,
        ),
        entry("stats", config.stats.to_string(), p.stats),
        entry(
            "stats_footer",
            config.stats_footer.to_string(),
            p.stats_footer,
        ),
    ]
}

/// Everything the footer and `/gortex` say.
#[derive(Debug, Clone, PartialEq)]
pub struct StatusSnapshot {
    /// Connected, connecting or down.
    pub state: ConnectionState,
    /// The path in use and why.
    pub path: PathWhy,
    /// `bin` as configured.
    pub configured_bin: String,
    /// Where `bin` resolves, absolute; `None` when it does not.
    pub resolved_bin: Option<PathBuf>,
    /// The daemon's version (handshake, or the briefing on the native path).
    pub daemon_version: Option<String>,
    /// What the last session briefing said about the index.
    pub readiness: Option<Readiness>,
    /// Whether pi-gortex starts the daemon.
    pub daemon_autostart: bool,
    /// The graph tools Pi has now.
    pub tools: Vec<ToolEntry>,
    /// The hook posture.
    pub hook_mode: String,
    /// Whether tool calls go through the hook.
    pub enforce: bool,
    /// This session's hook calls.
    pub hook: HookStats,
    /// The configuration with its layers.
    pub config: Vec<ConfigEntry>,
    /// The last connection failure seen this session.
    pub last_error: Option<String>,
    /// What the graph saved this session; `None` when `stats` is off.
    pub savings: Option<Savings>,
    /// Whether the footer shows the net saving (`stats_footer`).
    pub savings_footer: bool,
    /// Why the stats file could not be written this session.
    pub stats_error: Option<String>,
}

/// `v0.61.2` for `0.61.2`; a version already starting with `v` is kept.
fn with_v(version: &str) -> String {
    if version.starts_with('v') {
        version.to_string()
    } else {
        format!("v{version}")
    }
}

/// The footer status, e.g. `gortex: connected · native · v0.61.2`.
pub fn footer(snapshot: &StatusSnapshot) -> String {
    let mut text = format!(
        "gortex: {} · {}",
        state_word(snapshot.state, snapshot.readiness),
        snapshot.path.short()
    );
    if let Some(version) = snapshot.daemon_version.as_deref().filter(|v| !v.is_empty()) {
        let _ = write!(text, " · {}", with_v(version));
    }
    if let Some(savings) = snapshot
        .savings
        .as_ref()
        .filter(|_| snapshot.savings_footer)
    {
        if !savings.is_empty() {
            let _ = write!(text, " · {}", footer_net(savings.net_tokens()));
        }
    }
    text
}

/// The net in a few characters: `−38k tok` when the context was spared
/// 38,000 tokens, `+2.1k tok` when the graph's answers cost more.
pub fn footer_net(net: i64) -> String {
    let sign = if net > 0 {
        "−"
    } else if net < 0 {
        "+"
    } else {
        ""
    };
    let n = net.unsigned_abs();
    let amount = match n {
        0..=999 => n.to_string(),
        1_000..=9_949 => format!("{:.1}k", n as f64 / 1000.0),
        _ => format!("{}k", (n + 500) / 1000),
    };
    format!("{sign}{amount} tok")
}

/// The `/gortex` lines on what the graph saved (SAVE-2).
fn savings_lines(out: &mut String, savings: Option<&Savings>, stats_error: Option<&str>) {
    let Some(s) = savings else {
        let _ = writeln!(out, "  saved       not counted (stats=false)");
        return;
    };
    let _ = writeln!(
        out,
        "  saved       this session, tokens as Pi estimates them (characters ÷ 4)"
    );
    let kinds: Vec<String> = ReadKind::ALL
        .into_iter()
        .zip(s.redirected)
        .filter(|(_, n)| *n > 0)
        .map(|(kind, n)| format!("{} {n}", kind.as_str()))
        .collect();
    let by_kind = match kinds.is_empty() {
        true => String::new(),
        false => format!(" ({})", kinds.join(", ")),
    };
    let _ = writeln!(
        out,
        "    reads redirected  {}{by_kind}",
        thousands(s.redirected_total())
    );
    let not_sized = match s.not_sized {
        0 => String::new(),
        n => format!(" ({} not sized)", thousands(n)),
    };
    let _ = writeln!(
        out,
        "    kept out          {} bytes, {} tokens{not_sized}",
        thousands(s.kept_out_bytes),
        thousands(s.kept_out_tokens())
    );
    let _ = writeln!(
        out,
        "    graph answers     {}, {} characters, {} tokens",
        thousands(s.graph_answers),
        thousands(s.graph_chars),
        thousands(s.graph_tokens())
    );
    let _ = writeln!(
        out,
        "    read anyway       {} with guidance, {} bytes entered the context",
        thousands(s.allowed),
        thousands(s.allowed_bytes)
    );
    let net = s.net_tokens();
    let sign = if net < 0 { "−" } else { "" };
    let _ = writeln!(
        out,
        "    net               {sign}{} tokens (kept out minus graph answers)",
        thousands(net.unsigned_abs())
    );
    if let Some(error) = stats_error {
        let error = crate::terminal_text::shown(error);
        let _ = writeln!(out, "    not recorded      {error}");
    }
}

fn layer_name(layer: Layer) -> &'static str {
    match layer {
        Layer::Env => "environment",
        Layer::Project => "project sidecar",
        Layer::Global => "global sidecar",
        Layer::Default => "default",
    }
}

fn millis(duration: Duration) -> String {
    let ms = duration.as_secs_f64() * 1000.0;
    if ms < 10.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{ms:.0} ms")
    }
}

fn tools_line(tools: &[ToolEntry]) -> String {
    let mut line = tools.len().to_string();
    let renamed: Vec<String> = tools
        .iter()
        .filter(|tool| tool.pi_name != tool.daemon_name)
        .map(|tool| format!("{} → {}", tool.daemon_name, tool.pi_name))
        .collect();
    let promoted: Vec<&str> = tools
        .iter()
        .filter(|tool| tool.promoted)
        .map(|tool| tool.pi_name.as_str())
        .collect();
    let mut notes = Vec::new();
    if !renamed.is_empty() {
        notes.push(format!("renamed: {}", renamed.join(", ")));
    }
    if !promoted.is_empty() {
        notes.push(format!("promoted: {}", promoted.join(", ")));
    }
    if !notes.is_empty() {
        let _ = write!(line, " ({})", notes.join("; "));
    }
    line
}

/// The `/gortex` block.
pub fn render(snapshot: &StatusSnapshot) -> String {
    let mut out = format!("Gortex bridge: {}\n", snapshot.state.as_str());
    let daemon = match &snapshot.resolved_bin {
        Some(path) => {
            let version = snapshot
                .daemon_version
                .as_deref()
                .filter(|v| !v.is_empty())
                .map(with_v)
                .unwrap_or_else(|| "version not known yet".to_string());
            format!("{} ({version})", path.display())
        }
        None => format!(
            "`{}` does not resolve to an executable file",
            snapshot.configured_bin
        ),
    };
    let _ = writeln!(out, "  daemon      {daemon}");
    let _ = writeln!(
        out,
        "  started by  {}",
        daemon_owner_text(snapshot.daemon_autostart)
    );
    let _ = writeln!(out, "  index       {}", readiness_text(snapshot.readiness));
    let _ = writeln!(out, "  path        {}", snapshot.path.explain());
    let _ = writeln!(out, "  tools       {}", tools_line(&snapshot.tools));
    let enforcement = if snapshot.enforce {
        "enforced on every tool call"
    } else {
        "not enforced (enforce=false): briefing only"
    };
    let _ = writeln!(out, "  hook        {}, {enforcement}", snapshot.hook_mode);
    let hook = &snapshot.hook;
    let median = hook
        .median()
        .map(|m| format!(", median {}", millis(m)))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "  this session {} hook calls, {} blocked, {} steered{median}",
        hook.calls, hook.blocks, hook.steers
    );
    let _ = writeln!(out, "  config");
    let width = snapshot
        .config
        .iter()
        .map(|entry| entry.value.len())
        .max()
        .unwrap_or(0);
    // One blank at least after the longest key, the column 15 wide at least.
    let key_width = snapshot
        .config
        .iter()
        .map(|entry| entry.key.len() + 1)
        .max()
        .unwrap_or(0)
        .max(15);
    for entry in &snapshot.config {
        let _ = writeln!(
            out,
            "    {:<key_width$}{:<width$}  ({})",
            entry.key,
            entry.value,
            layer_name(entry.layer)
        );
    }
    savings_lines(
        &mut out,
        snapshot.savings.as_ref(),
        snapshot.stats_error.as_deref(),
    );
    let _ = writeln!(
        out,
        "  last error  {}",
        snapshot.last_error.as_deref().unwrap_or("none")
    );
    out
}

/// What `/gortex <args>` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// `/gortex`: the status block and a fresh footer.
    Status,
    /// `/gortex doctor`: the doctor, run in process.
    Doctor,
    /// `/gortex stats [--days N]`: `pi-gortex stats`, run in process (SAVE-5).
    Stats,
}

/// `doctor` (surrounding blanks ignored) runs the doctor; any
/// other arguments show the status block.
pub fn command(args: &str) -> Command {
    if args.trim() == "doctor" {
        Command::Doctor
    } else if args.split_whitespace().next() == Some("stats") {
        Command::Stats
    } else {
        Command::Status
    }
}

/// The doctor's command line for the session's working directory.
pub fn doctor_argv(cwd: &str) -> Vec<String> {
    ["pi-gortex", "doctor", "--cwd", cwd]
        .map(str::to_string)
        .into()
}

/// What `/gortex doctor` shows: its report (standard output, then
/// standard error, trailing blanks cut), at warning level when it failed.
pub fn doctor_reply(output: &CliOutput) -> CommandReply {
    let text = format!("{}{}", output.stdout, output.stderr);
    CommandReply {
        text: text.trim_end().to_string(),
        level: if output.exit_code == 0 {
            CommandReplyLevel::Info
        } else {
            CommandReplyLevel::Warning
        },
        footer: None,
    }
}

/// What `/gortex` shows: the block (trailing blanks cut), with
/// the footer it refreshes.
pub fn status_reply(view: StatusView) -> CommandReply {
    CommandReply {
        text: view.text.trim_end().to_string(),
        level: CommandReplyLevel::Info,
        footer: Some(view.footer),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn snapshot() -> StatusSnapshot {
        StatusSnapshot {
            state: ConnectionState::Connected,
            path: PathWhy::Native,
            configured_bin: "gortex".into(),
            resolved_bin: Some(PathBuf::from("/usr/local/bin/gortex")),
            daemon_version: Some("0.61.2".into()),
            readiness: Some(Readiness::Ready),
            daemon_autostart: true,
            tools: vec![
                ToolEntry {
                    pi_name: "gortex_read".into(),
                    daemon_name: "read".into(),
                    promoted: false,
                },
                ToolEntry {
                    pi_name: "search".into(),
                    daemon_name: "search".into(),
                    promoted: false,
                },
                ToolEntry {
                    pi_name: "callers".into(),
                    daemon_name: "callers".into(),
                    promoted: true,
                },
            ],
            hook_mode: "deny".into(),
            enforce: true,
            hook: HookStats::default(),
            config: vec![
                ConfigEntry {
                    key: "bin",
                    value: "gortex".into(),
                    layer: Layer::Default,
                },
                ConfigEntry {
                    key: "hook_mode",
                    value: "enrich".into(),
                    layer: Layer::Env,
                },
            ],
            last_error: None,
            savings: Some(Savings::default()),
            savings_footer: true,
            stats_error: None,
        }
    }

    #[test]
    fn footer_names_state_path_and_version() {
        assert_eq!(footer(&snapshot()), "gortex: connected · native · v0.61.2");
        let mut down = snapshot();
        down.state = ConnectionState::Down;
        down.path = PathWhy::Own(OwnClientReason::NativeDisabled);
        down.daemon_version = None;
        assert_eq!(footer(&down), "gortex: down · own");
    }

    #[test]
    fn block_lists_every_section() {
        let mut s = snapshot();
        s.hook.record(HookTally::Block, ms(12));
        let text = render(&s);
        assert_eq!(
            text,
            "Gortex bridge: connected\n\
             \x20 daemon      /usr/local/bin/gortex (v0.61.2)\n\
             \x20 started by  pi-gortex starts the daemon when none runs (daemon_autostart)\n\
             \x20 index       ready\n\
             \x20 path        native: Pi's built-in MCP owns the connection\n\
             \x20 tools       3 (renamed: read → gortex_read; promoted: callers)\n\
             \x20 hook        deny, enforced on every tool call\n\
             \x20 this session 1 hook calls, 1 blocked, 0 steered, median 12 ms\n\
             \x20 config\n\
             \x20   bin            gortex  (default)\n\
             \x20   hook_mode      enrich  (environment)\n\
             \x20 saved       this session, tokens as Pi estimates them (characters ÷ 4)\n\
             \x20   reads redirected  0\n\
             \x20   kept out          0 bytes, 0 tokens\n\
             \x20   graph answers     0, 0 characters, 0 tokens\n\
             \x20   read anyway       0 with guidance, 0 bytes entered the context\n\
             \x20   net               0 tokens (kept out minus graph answers)\n\
             \x20 last error  none\n"
        );
    }

    #[test]
    fn block_says_why_the_own_client_and_what_failed() {
        let mut s = snapshot();
        s.state = ConnectionState::Down;
        s.path = PathWhy::Refused("duplicate server".into());
        s.resolved_bin = None;
        s.configured_bin = "/opt/missing/gortex".into();
        s.last_error = Some("gortex binary not found".into());
        s.enforce = false;
        let text = render(&s);
        assert!(text.starts_with("Gortex bridge: down\n"));
        assert!(text.contains(
            "  daemon      `/opt/missing/gortex` does not resolve to an executable file\n"
        ));
        assert!(text.contains("own client: Pi refused the MCP server (duplicate server)"));
        assert!(text.contains("not enforced (enforce=false)"));
        assert!(text.contains("  last error  gortex binary not found\n"));
    }

    #[test]
    fn cfg_19_the_path_line_names_an_untrusted_project_sidecar() {
        let mut s = snapshot();
        s.path = PathWhy::ProjectUntrusted;
        let text = render(&s);
        assert!(text.contains(
            "own client: the native server came from this project's .pi/gortex.json, \
             which an untrusted folder does not honour"
        ));
    }

    #[test]
    fn stat_3_only_doctor_runs_the_doctor() {
        assert_eq!(command(" doctor\n"), Command::Doctor);
        for other in ["", "status", "doctor --json", "Doctor"] {
            assert_eq!(command(other), Command::Status, "{other:?}");
        }
        assert_eq!(doctor_argv("/w"), ["pi-gortex", "doctor", "--cwd", "/w"]);
    }

    #[test]
    fn stat_3_the_doctor_reply_is_its_report_at_warning_level_when_the_connection_is_down() {
        let output = |exit_code| CliOutput {
            stdout: "report\n".into(),
            stderr: "note\n\n".into(),
            exit_code,
        };
        let healthy = doctor_reply(&output(0));
        assert_eq!(
            (healthy.text.as_str(), healthy.level),
            ("report\nnote", CommandReplyLevel::Info)
        );
        assert_eq!(healthy.footer, None, "the doctor leaves the footer alone");
        assert_eq!(doctor_reply(&output(1)).level, CommandReplyLevel::Warning);
        assert_eq!(doctor_reply(&output(2)).level, CommandReplyLevel::Warning);
    }

    #[test]
    fn stat_2_the_status_reply_is_the_block_with_its_footer() {
        let view = StatusView {
            footer: "gortex: down".into(),
            text: "Gortex bridge: down\n  last error  x\n".into(),
        };
        let reply = status_reply(view);
        assert_eq!(reply.text, "Gortex bridge: down\n  last error  x");
        assert_eq!(reply.level, CommandReplyLevel::Info);
        assert_eq!(reply.footer.as_deref(), Some("gortex: down"));
    }

    #[test]
    fn stat_4_the_footer_says_indexing_while_the_daemon_reports_it() {
        let mut s = snapshot();
        for (readiness, expected) in [
            (
                Some(Readiness::Warming),
                "gortex: indexing · native · v0.61.2",
            ),
            (
                Some(Readiness::EnrichmentRunning),
                "gortex: indexing · native · v0.61.2",
            ),
            (
                Some(Readiness::Ready),
                "gortex: connected · native · v0.61.2",
            ),
            (
                Some(Readiness::Unreachable),
                "gortex: connected · native · v0.61.2",
            ),
            (None, "gortex: connected · native · v0.61.2"),
        ] {
            s.readiness = readiness;
            assert_eq!(footer(&s), expected, "{readiness:?}");
        }
        s.readiness = Some(Readiness::Warming);
        s.state = ConnectionState::Down;
        assert_eq!(footer(&s), "gortex: down · native · v0.61.2", "down wins");
        s.state = ConnectionState::Connecting;
        assert_eq!(footer(&s), "gortex: connecting · native · v0.61.2");
    }

    #[test]
    fn stat_4_the_block_shows_readiness_and_enrichment() {
        let mut s = snapshot();
        s.readiness = Some(Readiness::Warming);
        assert!(render(&s).contains(
            "  index       indexing: the daemon is warming up, graph answers and enforcement are partial\n"
        ));
        s.readiness = Some(Readiness::EnrichmentRunning);
        assert!(render(&s).contains(
            "  index       indexing: references queryable, semantic enrichment still running\n"
        ));
        s.readiness = None;
        assert!(render(&s)
            .contains("  index       not reported yet (the session briefing has not run)\n"));
    }

    #[test]
    fn cfg_20_the_block_says_who_starts_the_daemon() {
        let mut s = snapshot();
        s.daemon_autostart = false;
        assert!(render(&s).contains(
            "  started by  someone else: daemon_autostart is off, so pi-gortex and gortex mcp start none\n"
        ));
    }

    #[test]
    fn save_2_the_block_shows_the_sessions_savings_and_the_footer_its_net() {
        let mut s = snapshot();
        assert_eq!(footer(&s), "gortex: connected · native · v0.61.2");
        let mut savings = Savings::default();
        savings.record_blocked(ReadKind::Read, Some(40_000));
        savings.record_graph_answer(&"x".repeat(1_234));
        s.savings = Some(savings);
        let block = render(&s);
        assert!(
            block.contains("    reads redirected  1 (read 1)\n"),
            "{block}"
        );
        assert!(
            block.contains("    kept out          40,000 bytes, 10,000 tokens\n"),
            "{block}"
        );
        assert!(
            block.contains("    graph answers     1, 1,234 characters, 309 tokens\n"),
            "{block}"
        );
        assert!(
            block.contains("    net               9,691 tokens (kept out minus graph answers)\n"),
            "{block}"
        );
        assert_eq!(
            footer(&s),
            "gortex: connected · native · v0.61.2 · −9.7k tok"
        );
        s.savings_footer = false;
        assert_eq!(footer(&s), "gortex: connected · native · v0.61.2");
        s.savings = None;
        assert!(render(&s).contains("  saved       not counted (stats=false)\n"));
    }

    #[test]
    fn save_2_the_footer_net_reads_in_a_few_characters() {
        assert_eq!(footer_net(38_000), "−38k tok");
        assert_eq!(footer_net(38_499), "−38k tok");
        assert_eq!(footer_net(950), "−950 tok");
        assert_eq!(footer_net(-2_100), "+2.1k tok");
        assert_eq!(footer_net(0), "0 tok");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
