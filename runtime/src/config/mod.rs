//! Layered configuration with provenance (CFG-1..CFG-15).
//!
//! Resolution is a pure function of [`ConfigInputs`] (an environment map, the
//! working directory and the home directory) plus the two sidecar files it
//! reads, so tests never touch the process environment. Every resolved value
//! remembers which layer supplied it, and every problem with a layer becomes a
//! [`ConfigWarning`] instead of a log line: the library never prints, and a bad
//! layer only ever falls through to the next one.

mod agent_dir;
mod binary;
mod preset;
mod sidecar;
mod sidecar_file;
mod values;
mod warning;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

pub use agent_dir::agent_dir;
pub use binary::{
    ensure_absolute, has_separator, resolve_bin, resolve_binary, resolve_binary_on,
    skipped_relative_binaries, BinCandidate, BinResolution, Platform, DEFAULT_PATHEXT,
};
pub use preset::{child_env, preset_env, AUTOSTART_ENV, FORWARDED_PRESETS};
pub use sidecar::{parse_sidecar, read_sidecar, Scope, SidecarLayer, SidecarValues};
pub use sidecar_file::{read_capped, SidecarFileError, SIDECAR_MAX_BYTES};
pub use values::{env_bool, hook_argv, normalize_hook_mode, HookMode};
pub use warning::ConfigWarning;

/// `DEFAULT_BIN`: looked up on `PATH` when spawned.
pub const DEFAULT_BIN: &str = "gortex";
/// `DEFAULT_TOOLS_PRESET`.
pub const DEFAULT_TOOLS_PRESET: &str = "core";

/// Everything resolution depends on besides the two sidecar files.
#[derive(Debug, Clone, Default)]
pub struct ConfigInputs {
    /// The environment, as Pi's process sees it.
    pub env: HashMap<String, String>,
    /// The process working directory (the project sidecar lives under it).
    pub cwd: PathBuf,
    /// The user's home directory as `os.homedir()` gives it (`~` expansion
    /// and the default agent dir).
    pub home: PathBuf,
}

impl ConfigInputs {
    /// Reads the inputs of the current process. Non-UTF-8 variables are
    /// skipped: none of the variables CFG reads can be meaningful that way.
    pub fn from_process() -> Self {
        let env = process_env();
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        // `""` where `os.homedir()` throws (a `USERPROFILE` under three bytes).
        let home = crate::platform::home::home_dir().unwrap_or_default();
        Self { env, cwd, home }
    }

    /// The same inputs, seen from another working directory (doctor `--cwd`).
    pub fn with_cwd(mut self, cwd: impl Into<PathBuf>) -> Self {
        self.cwd = cwd.into();
        self
    }
}

/// The process environment as CFG reads it. `vars_os`, never `vars`: one
/// variable that is not UTF-8 must not panic (it would take every graph tool
/// with it). Such variables are left out of this map only; children inherit
/// the whole environment untouched, since no spawn clears it.
pub fn process_env() -> HashMap<String, String> {
    std::env::vars_os()
        .filter_map(|(k, v)| Some((env_name(k.into_string().ok()?), v.into_string().ok()?)))
        .collect()
}

/// A variable's name as the map keys it: as it is on Unix.
#[cfg(not(windows))]
fn env_name(name: String) -> String {
    name
}

/// A variable's name as the map keys it: upper case on Windows, where names
/// are case-insensitive (`Path` is `PATH`).
#[cfg(windows)]
fn env_name(name: String) -> String {
    name.to_uppercase()
}

/// Which layer supplied a resolved value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Layer {
    /// An environment variable.
    Env,
    /// `<cwd>/.pi/gortex.json`.
    Project,
    /// `<agentDir>/extensions/gortex.json`.
    Global,
    /// The built-in default.
    Default,
}

/// The layer behind each resolved value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Provenance {
    /// Source of `bin` (never [`Layer::Project`]).
    pub bin: Layer,
    /// Source of `hook_mode`.
    pub hook_mode: Layer,
    /// Source of `enforce`.
    pub enforce: Layer,
    /// Source of `tools_preset`.
    pub tools_preset: Layer,
    /// Source of `native_mcp`.
    pub native_mcp: Layer,
    /// Source of `prompt_context`.
    pub prompt_context: Layer,
    /// Source of `hook_prespawn`.
    pub hook_prespawn: Layer,
    /// Source of `daemon_autostart` ([`Layer::Project`] only for `false`).
    pub daemon_autostart: Layer,
    /// Source of `stats`.
    pub stats: Layer,
    /// Source of `stats_footer`.
    pub stats_footer: Layer,
}

/// Where the two sidecars were looked for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SidecarPaths {
    /// `<cwd>/.pi/gortex.json`.
    pub project: PathBuf,
    /// `<agentDir>/extensions/gortex.json`.
    pub global: PathBuf,
}

impl SidecarPaths {
    /// The sidecar locations for a working directory and an agent dir.
    pub fn new(cwd: &Path, agent_dir: &Path) -> Self {
        Self {
            project: cwd.join(".pi").join("gortex.json"),
            global: agent_dir.join("extensions").join("gortex.json"),
        }
    }
}

/// The resolved configuration (the spec's fields plus `prompt_context`, provenance and warnings).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResolvedConfig {
    /// The executable used for `daemon start`, `mcp`, `hook`, the native
    /// `command` and doctor: the absolute path when it resolves,
    /// else the configured text, which no spawner runs unless it
    /// is absolute.
    pub bin: String,
    /// `bin` as configured (after `~/` expansion), for messages.
    pub bin_configured: String,
    /// The absolute executable, when `bin` resolves.
    pub bin_path: Option<PathBuf>,
    /// True when the project sidecar was left out because the host says
    /// the project is not trusted.
    pub project_ignored: bool,
    /// The normalized hook posture.
    pub hook_mode: HookMode,
    /// `[bin, "hook", "--agent=pi", ("--mode=<m>")]`.
    pub hook_argv: Vec<String>,
    /// Whether tool calls are judged by the hook.
    pub enforce: bool,
    /// The trimmed preset name; only the preset's variables interpret it.
    pub tools_preset: String,
    /// Whether the native path is attempted.
    pub native_mcp: bool,
    /// Whether user prompts are sent to the hook.
    pub prompt_context: bool,
    /// Whether a warm hook process waits for the next event (HOOK-18).
    pub hook_prespawn: bool,
    /// Whether the extension and the `gortex mcp` it spawns may start the
    /// daemon; false leaves the daemon to whoever runs it.
    pub daemon_autostart: bool,
    /// Whether the session counts what the graph saved and records it (SAVE).
    pub stats: bool,
    /// Whether the footer shows the session's net saving.
    pub stats_footer: bool,
    /// The layer behind each value.
    pub provenance: Provenance,
    /// The agent dir the user sidecar is read from.
    pub agent_dir: PathBuf,
    /// Where the sidecars were looked for.
    pub sidecars: SidecarPaths,
    /// Every problem met on the way, in layer order. Never fatal.
    pub warnings: Vec<ConfigWarning>,
}

/// Resolves the configuration: reads both sidecars and layers them.
pub fn resolve(inputs: &ConfigInputs) -> ResolvedConfig {
    resolve_with_trust(inputs, true)
}

/// [`resolve`], with the project sidecar honoured only when `trusted`.
/// An untrusted project's sidecar is not even read; when one is
/// there, `project_ignored` says so.
pub fn resolve_with_trust(inputs: &ConfigInputs, trusted: bool) -> ResolvedConfig {
    let agent_dir = agent_dir(&inputs.env, &inputs.home);
    let sidecars = SidecarPaths::new(&inputs.cwd, &agent_dir);
    let project = if trusted {
        read_sidecar(&sidecars.project, Scope::Project, Some(&inputs.cwd))
    } else {
        SidecarLayer::default()
    };
    let global = read_sidecar(&sidecars.global, Scope::Global, None);
    let project_ignored = !trusted && std::fs::symlink_metadata(&sidecars.project).is_ok();
    let mut config = resolve_layers(&inputs.env, &project, &global, agent_dir, sidecars);
    config.project_ignored = project_ignored;
    let candidates = [
        values::env_string(&inputs.env, "GORTEX_BIN").map(|value| BinCandidate {
            value,
            layer: Layer::Env,
            origin: "GORTEX_BIN".to_string(),
        }),
        global.values.bin.clone().map(|value| BinCandidate {
            value,
            layer: Layer::Global,
            origin: config.sidecars.global.display().to_string(),
        }),
    ];
    let binary = resolve_bin(
        candidates.into_iter().flatten().collect(),
        &inputs.env,
        &inputs.home,
        &inputs.cwd,
    );
    config.apply_binary(binary);
    config
}

impl ResolvedConfig {
    /// Puts the resolved executable in place of the configured text.
    fn apply_binary(&mut self, binary: BinResolution) {
        self.bin = binary.program();
        self.hook_argv = hook_argv(&self.bin, self.hook_mode);
        self.provenance.bin = binary.layer;
        self.bin_configured = binary.configured;
        self.bin_path = binary.path;
        self.warnings.extend(binary.warnings);
    }
}

/// A value with the layer that supplied it.
type Sourced<T> = (T, Layer);

/// The first present candidate, in layer order, or the default.
fn first<T>(env: Option<T>, project: Option<T>, global: Option<T>, default: T) -> Sourced<T> {
    env.map(|v| (v, Layer::Env))
        .or_else(|| project.map(|v| (v, Layer::Project)))
        .or_else(|| global.map(|v| (v, Layer::Global)))
        .unwrap_or((default, Layer::Default))
}

/// Layers already-read sidecars over the environment. Pure.
pub fn resolve_layers(
    env: &HashMap<String, String>,
    project: &SidecarLayer,
    global: &SidecarLayer,
    agent_dir: PathBuf,
    sidecars: SidecarPaths,
) -> ResolvedConfig {
    let mut warnings = Vec::new();
    warnings.extend(project.warnings.iter().cloned());
    warnings.extend(global.warnings.iter().cloned());

    let (p, g) = (&project.values, &global.values);
    // The project layer is deliberately absent from the candidates.
    let (bin, bin_layer) = first(
        values::env_string(env, "GORTEX_BIN"),
        None,
        g.bin.clone(),
        DEFAULT_BIN.to_string(),
    );
    let (raw_mode, mode_layer) = first(
        values::env_string(env, "GORTEX_HOOK_MODE"),
        p.hook_mode.clone(),
        g.hook_mode.clone(),
        String::new(),
    );
    let hook_mode = normalize_hook_mode(&raw_mode);
    let mut env_flag = |name: &str| {
        let (value, warning) = values::env_bool_checked(env, name);
        warnings.extend(warning);
        value
    };
    let enforce = first(env_flag("GORTEX_ENFORCE"), p.enforce, g.enforce, true);
    let native_mcp = first(
        env_flag("GORTEX_NATIVE_MCP"),
        p.native_mcp,
        g.native_mcp,
        true,
    );
    let prompt_context = first(
        env_flag("GORTEX_PROMPT_CONTEXT"),
        p.prompt_context,
        g.prompt_context,
        false,
    );
    let hook_prespawn = first(
        env_flag("GORTEX_HOOK_PRESPAWN"),
        p.hook_prespawn,
        g.hook_prespawn,
        true,
    );
    // A project sidecar may turn autostart off, never on, so a cloned
    // repository cannot start a daemon the user's own settings keep off.
    let daemon_autostart = first(
        env_flag("GORTEX_DAEMON_AUTOSTART"),
        p.daemon_autostart.filter(|on| !on),
        g.daemon_autostart,
        true,
    );
    let stats = first(env_flag("GORTEX_STATS"), p.stats, g.stats, true);
    let stats_footer = first(
        env_flag("GORTEX_STATS_FOOTER"),
        p.stats_footer,
        g.stats_footer,
        true,
    );
    let tools_preset = first(
        values::env_string(env, "GORTEX_TOOLS"),
        p.tools_preset.clone(),
        g.tools_preset.clone(),
        DEFAULT_TOOLS_PRESET.to_string(),
    );

    ResolvedConfig {
        hook_argv: hook_argv(&bin, hook_mode),
        bin_configured: bin.clone(),
        bin_path: None,
        project_ignored: false,
        bin,
        hook_mode,
        enforce: enforce.0,
        tools_preset: tools_preset.0,
        native_mcp: native_mcp.0,
        prompt_context: prompt_context.0,
        hook_prespawn: hook_prespawn.0,
        daemon_autostart: daemon_autostart.0,
        stats: stats.0,
        stats_footer: stats_footer.0,
        provenance: Provenance {
            bin: bin_layer,
            hook_mode: mode_layer,
            enforce: enforce.1,
            tools_preset: tools_preset.1,
            native_mcp: native_mcp.1,
            prompt_context: prompt_context.1,
            hook_prespawn: hook_prespawn.1,
            daemon_autostart: daemon_autostart.1,
            stats: stats.1,
            stats_footer: stats_footer.1,
        },
        agent_dir,
        sidecars,
        warnings,
    }
}

/// Whether a native registration made from `at_load` (the factory's
/// resolution, project sidecar honoured) still serves `in_effect`: the path
/// and what the server's environment carries (the tools preset and
/// `daemon_autostart`) agree.
pub fn native_registration_holds(at_load: &ResolvedConfig, in_effect: &ResolvedConfig) -> bool {
    at_load.native_mcp == in_effect.native_mcp
        && at_load.tools_preset == in_effect.tools_preset
        && at_load.daemon_autostart == in_effect.daemon_autostart
}

/// The one notice for a project sidecar ignored because the host
/// reported the folder untrusted. It says how to trust the folder, the way
/// Pi itself gates `.pi/mcp.json`.
pub fn untrusted_project_notice(sidecar: &Path) -> String {
    format!(
        "pi-gortex: {} is ignored because this folder is not trusted. To use it, trust the folder: run /trust in Pi, or start Pi with --approve.",
        crate::terminal_text::shown(&sidecar.display().to_string())
    )
}
