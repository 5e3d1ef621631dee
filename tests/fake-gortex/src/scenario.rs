//! The scenario file (FAKE-2): a typed view of `FAKE_GORTEX_SCENARIO`.
//!
//! Unknown keys are rejected so that a typo in a test's scenario fails loudly (exit 2) instead of
//! silently running the defaults.

use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;

pub const DEFAULT_VERSION: &str = "0.64.4";

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Scenario {
    /// `serverInfo.version`; `null` omits `serverInfo` (pre-0.61.2 daemon).
    pub version: Option<String>,
    /// `null` = mcp-go negotiation; a string = always answer that.
    pub protocol: Option<String>,
    pub tracked: bool,
    pub daemon_up: bool,
    pub surface: SurfaceChoice,
    pub page_size: usize,
    pub calls: BTreeMap<String, CallOverride>,
    pub promote_notify: PromoteNotify,
    pub orientation: OrientationTier,
    pub decisions: Vec<DecisionRule>,
    pub faults: Vec<Fault>,
    /// Indexed files (repository-relative path → symbol names); absent = scan the repository.
    pub indexed: Option<BTreeMap<String, Vec<String>>>,
    /// `mcp` runs this fixed program of reads and writes instead of the server (`replay.rs`).
    pub replay: Option<Vec<crate::replay::Step>>,
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario {
            version: Some(DEFAULT_VERSION.to_string()),
            protocol: None,
            tracked: true,
            daemon_up: true,
            surface: SurfaceChoice::Auto,
            page_size: 0,
            calls: BTreeMap::new(),
            promote_notify: PromoteNotify::default(),
            orientation: OrientationTier::StandardReady,
            decisions: Vec::new(),
            faults: Vec::new(),
            indexed: None,
            replay: None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SurfaceChoice {
    Facade,
    Legacy,
    Auto,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CallOverride {
    pub text: Option<String>,
    /// The text as a JSON string literal written verbatim, for texts a Rust
    /// string cannot hold (a lone surrogate escape, `"\ud800"`). Wins over `text`.
    pub text_json: Option<String>,
    pub structured: Option<Value>,
    pub is_error: bool,
    pub delay_ms: u64,
    /// Hold the reply until this process has answered this many full `tools/list` requests
    /// (first pages), so a test waits for a re-list as an event instead of a time window.
    /// `delay_ms` still holds it at least that long; a listing that never comes releases the
    /// reply after `UNTIL_LISTS_DEADLINE_MS` and the test fails on its own counts.
    pub until_lists: u64,
}

/// How long `calls.<tool>.until_lists` waits for listings before replying anyway.
pub const UNTIL_LISTS_DEADLINE_MS: u64 = 30_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NotifyWhen {
    BeforeReply,
    AfterReply,
    Delayed,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PromoteNotify {
    pub count_per_tool: usize,
    pub when: NotifyWhen,
    pub spacing_ms: u64,
}

impl Default for PromoteNotify {
    fn default() -> Self {
        PromoteNotify {
            count_per_tool: 1,
            when: NotifyWhen::BeforeReply,
            spacing_ms: 0,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OrientationTier {
    StandardReady,
    StandardPartial,
    Warming,
    LeanReady,
    LeanWarming,
    Vv,
    UnknownVersion,
    Unreachable,
    None,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DecisionRule {
    #[serde(rename = "match", default)]
    pub matcher: DecisionMatch,
    pub decision: Value,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DecisionMatch {
    pub event: Option<String>,
    pub tool_name: Option<String>,
    pub is_gortex_tool: Option<bool>,
    pub file_path_glob: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SplitMode {
    Bytewise,
    Utf8Mid,
    BeforeNewline,
    Coalesce,
    Crlf,
}

/// Which verb a verb-neutral fault (`exit_on_start`, `stderr_flood`) applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum FaultVerb {
    #[default]
    Mcp,
    Hook,
    Daemon,
    Version,
}

/// One FAKE-8 fault. Counters (`n`, `after_n`, `after_list`) count across processes.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Fault {
    SlowHandshake {
        delay_ms: u64,
        /// Delay only the first `n` initializes (all when absent).
        #[serde(default)]
        n: Option<u64>,
    },
    FailingHandshake {
        #[serde(default = "one")]
        n: u64,
        #[serde(default)]
        error: Option<Value>,
    },
    ExitOnStart {
        #[serde(default = "one_i32")]
        exit_code: i32,
        /// Only the first `n` starts exit (all when absent).
        #[serde(default)]
        n: Option<u64>,
        #[serde(default)]
        verb: FaultVerb,
        /// Only while this file exists (a test breaks the "daemon" by creating it).
        #[serde(default)]
        while_exists: Option<std::path::PathBuf>,
        /// Written to stderr before exiting.
        #[serde(default)]
        stderr: Option<String>,
    },
    CrashOnCall {
        #[serde(default = "one")]
        n: u64,
        #[serde(default = "one_i32")]
        exit_code: i32,
        /// The request method whose nth occurrence crashes (`initialize` = exit mid-handshake).
        #[serde(default = "tools_call")]
        method: String,
    },
    Hang {
        #[serde(default = "tools_call")]
        method: String,
        #[serde(default = "one")]
        after_n: u64,
    },
    IgnoreSigterm {},
    /// After answering `after`, never read stdin again (the process stays alive), so the
    /// client's writes pile up in the pipe and then in its backlog.
    StopReading {
        #[serde(default = "initialize")]
        after: String,
    },
    OversizedFrame {
        #[serde(default = "oversized_default")]
        bytes: usize,
        #[serde(default = "yes")]
        terminated: bool,
        #[serde(default = "tools_call")]
        on: String,
    },
    Garbage {
        /// Raw junk lines; absent = the built-in junk set (which includes invalid UTF-8).
        #[serde(default)]
        lines: Option<Vec<String>>,
        /// Method whose every reply is preceded by junk; absent = once at start.
        #[serde(default)]
        on: Option<String>,
    },
    Split {
        mode: SplitMode,
        #[serde(default)]
        pause_ms: u64,
    },
    ServerPing {
        #[serde(default = "tools_list")]
        after: String,
        #[serde(default = "srv_ping_id")]
        id: Value,
    },
    ServerRequest {
        #[serde(default = "roots_list")]
        method: String,
        #[serde(default = "tools_list")]
        after: String,
        #[serde(default = "srv_request_id")]
        id: Value,
    },
    ListChangedBurst {
        #[serde(default = "three")]
        count: usize,
        #[serde(default)]
        spacing_ms: u64,
        #[serde(default = "tools_list")]
        after: String,
    },
    Withdraw {
        tools: Vec<String>,
        #[serde(default = "one")]
        after_list: u64,
    },
    Relist {
        tools: Vec<String>,
        #[serde(default = "two")]
        after_list: u64,
    },
    StderrFlood {
        bytes: usize,
        #[serde(default)]
        verb: FaultVerb,
    },
    HookTimeout {
        #[serde(default = "hook_timeout_default")]
        delay_ms: u64,
        #[serde(default)]
        event: Option<String>,
    },
    HookGarbage {
        stdout: String,
        #[serde(default)]
        event: Option<String>,
    },
    HookExit {
        #[serde(default = "one_i32")]
        exit_code: i32,
        #[serde(default)]
        stdout: Option<String>,
        #[serde(default)]
        event: Option<String>,
    },
    HookHuge {
        #[serde(default = "hook_huge_default")]
        bytes: usize,
        #[serde(default)]
        event: Option<String>,
    },
    HookStderr {
        text: String,
        #[serde(default)]
        event: Option<String>,
    },
    /// A hook whose stdin brings neither bytes nor its end within `after_ms` exits with
    /// `exit_code` before reading it: a process started ahead of its call that dies waiting.
    HookIdleExit {
        #[serde(default = "hook_idle_default")]
        after_ms: u64,
        #[serde(default = "one_i32")]
        exit_code: i32,
    },
    DaemonStartFail {
        #[serde(default = "one_i32")]
        exit_code: i32,
        #[serde(default)]
        stderr: Option<String>,
    },
}

fn one() -> u64 {
    1
}
fn two() -> u64 {
    2
}
fn three() -> usize {
    3
}
fn one_i32() -> i32 {
    1
}
fn yes() -> bool {
    true
}
fn initialize() -> String {
    "initialize".to_string()
}

fn tools_call() -> String {
    "tools/call".to_string()
}
fn tools_list() -> String {
    "tools/list".to_string()
}
fn roots_list() -> String {
    "roots/list".to_string()
}
fn srv_ping_id() -> Value {
    Value::from("srv-1")
}
fn srv_request_id() -> Value {
    Value::from(42)
}
fn oversized_default() -> usize {
    67_108_865
}
fn hook_timeout_default() -> u64 {
    6000
}
fn hook_idle_default() -> u64 {
    200
}
fn hook_huge_default() -> usize {
    16_777_217
}

/// Reads the scenario named by `FAKE_GORTEX_SCENARIO`; absent variable = defaults.
pub fn load() -> Result<Scenario, String> {
    let Some(path) = std::env::var_os("FAKE_GORTEX_SCENARIO") else {
        return Ok(Scenario::default());
    };
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read scenario {}: {e}", path.to_string_lossy()))?;
    parse(&text).map_err(|e| format!("bad scenario {}: {e}", path.to_string_lossy()))
}

pub fn parse(text: &str) -> Result<Scenario, serde_json::Error> {
    serde_json::from_str(text)
}
