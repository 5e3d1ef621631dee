//! The `hook` verb (FAKE-6): one envelope in, one decision out, with postures, session state,
//! scripted decisions and the hook faults of FAKE-8.

use crate::glob::glob_match;
use crate::log;
use crate::paths;
use crate::scenario::{Fault, OrientationTier, Scenario};
use crate::state;
use crate::texts;
use serde_json::{json, Map, Value};
use std::io::{Read, Write};
use std::time::Duration;

const SOURCE_EXTENSIONS: &[&str] = &[
    "go", "ts", "tsx", "js", "jsx", "py", "rs", "java", "kt", "scala", "swift", "php", "rb", "ex",
    "exs", "c", "h", "cpp", "cc", "cxx", "hpp", "cs", "sql", "proto", "sh", "bash",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Posture {
    Deny,
    Enrich,
    ConsultUnlock,
    Nudge,
}

impl Posture {
    /// WIRE-16 `ParseMode`: unknown values mean deny.
    pub fn parse(s: &str) -> Posture {
        match s.trim().to_ascii_lowercase().as_str() {
            "enrich" => Posture::Enrich,
            "consult-unlock" => Posture::ConsultUnlock,
            "nudge" | "adaptive-nudge" => Posture::Nudge,
            _ => Posture::Deny,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Posture::Deny => "deny",
            Posture::Enrich => "enrich",
            Posture::ConsultUnlock => "consult-unlock",
            Posture::Nudge => "nudge",
        }
    }
}

pub struct HookArgs {
    pub agent: Option<String>,
    pub mode: Posture,
}

/// Parses `hook` flags; `Err` carries a cobra-style error for an unknown flag.
pub fn parse_args(args: &[String]) -> Result<HookArgs, String> {
    let mut agent = None;
    let mut mode = Posture::Deny;
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) => (f.to_string(), Some(v.to_string())),
            None => (a.clone(), None),
        };
        let mut value = || -> Result<String, String> {
            if let Some(v) = inline.clone() {
                return Ok(v);
            }
            i += 1;
            args.get(i)
                .cloned()
                .ok_or_else(|| format!("flag needs an argument: {flag}"))
        };
        match flag.as_str() {
            "--agent" => agent = Some(value()?),
            "--mode" => mode = Posture::parse(&value()?),
            "--port" => {
                value()?;
            }
            _ => return Err(format!("unknown flag: {a}")),
        }
        i += 1;
    }
    Ok(HookArgs { agent, mode })
}

/// WIRE-14: trim, lower-case, and map `.`, `-` and space to `_`.
pub fn normalize_event(e: &str) -> String {
    e.trim()
        .to_lowercase()
        .chars()
        .map(|c| if matches!(c, '.' | '-' | ' ') { '_' } else { c })
        .collect()
}

fn truthy(var: &str) -> bool {
    match std::env::var(var) {
        Ok(v) => !matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "" | "0" | "false" | "no" | "off"
        ),
        Err(_) => false,
    }
}

pub fn is_source(path: &str) -> bool {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => {
            SOURCE_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str())
        }
        _ => false,
    }
}

struct Envelope {
    event: String,
    tool_name: String,
    tool_input: Map<String, Value>,
    cwd: String,
    session_id: String,
    prompt: String,
    is_gortex_tool: bool,
}

impl Envelope {
    fn parse(v: &Value) -> Envelope {
        let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        Envelope {
            event: normalize_event(&s("event")),
            tool_name: s("tool_name"),
            tool_input: v
                .get("tool_input")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default(),
            cwd: s("cwd"),
            session_id: s("session_id"),
            prompt: s("prompt"),
            is_gortex_tool: v
                .get("is_gortex_tool")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        }
    }

    fn input(&self, key: &str) -> Option<&str> {
        self.tool_input.get(key).and_then(Value::as_str)
    }

    fn file_path(&self) -> Option<&str> {
        self.input("file_path").or_else(|| self.input("path"))
    }

    fn cwd_or_process(&self) -> String {
        if self.cwd.is_empty() {
            std::env::current_dir()
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default()
        } else {
            self.cwd.clone()
        }
    }
}

enum Slot {
    ToolCall,
    Orientation,
    Prompt,
    Other,
}

fn slot(event: &str) -> Slot {
    match event {
        "tool_call" | "tool_execute_before" | "permission_ask" => Slot::ToolCall,
        "session" | "session_start" | "session_open" | "before_agent_start" | "before_compact" => {
            Slot::Orientation
        }
        "prompt" | "user_prompt" | "chat_message" => Slot::Prompt,
        _ => Slot::Other,
    }
}

/// Runs the verb with the flags after `hook`; returns the exit code.
pub fn run(sc: &Scenario, argv: &[String], flags: &[String]) -> i32 {
    let args = match parse_args(flags) {
        Ok(a) => a,
        Err(e) => {
            eprintln!(
                "Error: {e}\nUsage:\n  gortex hook --agent=<agent> [--mode=<mode>] [--port=<n>]"
            );
            log::record("hook", json!({"argv": argv, "error": e, "code": 1}));
            return 1;
        }
    };
    let mut input = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut input);
    // A run is a process that was fed an envelope: a spare started ahead and ended unused logs
    // its start but no input, and a run killed while it decides has logged its input already.
    log::record("input", json!({"bytes": input.len()}));
    let parsed: Option<Value> = serde_json::from_slice::<Value>(&input)
        .ok()
        .filter(Value::is_object);
    let envelope = parsed.as_ref().map(Envelope::parse);
    let event = envelope
        .as_ref()
        .map(|e| e.event.clone())
        .unwrap_or_default();

    let (decision, code) = if args.agent.as_deref() != Some("pi") {
        ("{}".to_string(), 0)
    } else if let Some(faulted) = apply_faults(sc, &event) {
        faulted
    } else {
        let d = match &envelope {
            Some(env) => decide(sc, env, args.mode),
            None => json!({}),
        };
        (serde_json::to_string(&d).unwrap_or_else(|_| "{}".into()), 0)
    };

    let mut rec = json!({
        "argv": argv,
        "mode": args.mode.name(),
        "envelope": parsed.clone().unwrap_or(Value::from("invalid")),
        "code": code,
    });
    rec["decision"] = if decision.len() <= 4096 {
        Value::from(decision.clone())
    } else {
        json!({"bytes": decision.len()})
    };
    log::record("hook", rec);
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(decision.as_bytes());
    let _ = out.flush();
    code
}

fn fault_applies(filter: &Option<String>, event: &str) -> bool {
    filter
        .as_deref()
        .is_none_or(|f| normalize_event(f) == event)
}

/// Hook faults: stderr noise and delays first, then outputs that replace the decision.
fn apply_faults(sc: &Scenario, event: &str) -> Option<(String, i32)> {
    for f in &sc.faults {
        match f {
            Fault::HookStderr { text, event: e } if fault_applies(e, event) => {
                let _ = std::io::stderr().write_all(text.as_bytes());
            }
            Fault::HookTimeout { delay_ms, event: e } if fault_applies(e, event) => {
                std::thread::sleep(Duration::from_millis(*delay_ms));
            }
            _ => {}
        }
    }
    for f in &sc.faults {
        match f {
            Fault::HookGarbage { stdout, event: e } if fault_applies(e, event) => {
                return Some((stdout.clone(), 0));
            }
            Fault::HookExit {
                exit_code,
                stdout,
                event: e,
            } if fault_applies(e, event) => {
                let deny = stdout.clone().unwrap_or_else(|| {
                    json!({"block": true, "reason": "[Gortex] BLOCKED: hook_exit fault"})
                        .to_string()
                });
                return Some((deny, *exit_code));
            }
            Fault::HookHuge { bytes, event: e } if fault_applies(e, event) => {
                return Some((huge(*bytes), 0));
            }
            _ => {}
        }
    }
    None
}

/// A decision-shaped payload of exactly `bytes` bytes.
fn huge(bytes: usize) -> String {
    let head = "{\"additional_context\":\"";
    let tail = "\"}";
    if bytes < head.len() + tail.len() {
        return "x".repeat(bytes);
    }
    let mut s = String::with_capacity(bytes);
    s.push_str(head);
    s.extend(std::iter::repeat_n('x', bytes - head.len() - tail.len()));
    s.push_str(tail);
    s
}

fn decide(sc: &Scenario, env: &Envelope, mode: Posture) -> Value {
    if let Some(d) = scripted(sc, env) {
        return d;
    }
    match slot(&env.event) {
        Slot::Orientation => orientation(sc, env),
        Slot::Prompt => prompt(sc, env),
        Slot::ToolCall => tool_call(sc, env, mode),
        Slot::Other => json!({}),
    }
}

/// The first matching scenario `decisions` rule, written verbatim.
fn scripted(sc: &Scenario, env: &Envelope) -> Option<Value> {
    sc.decisions.iter().find_map(|rule| {
        let m = &rule.matcher;
        let ok = m
            .event
            .as_deref()
            .is_none_or(|e| normalize_event(e) == env.event)
            && m.tool_name.as_deref().is_none_or(|t| t == env.tool_name)
            && m.is_gortex_tool.is_none_or(|g| g == env.is_gortex_tool)
            && m.file_path_glob
                .as_deref()
                .is_none_or(|g| env.file_path().is_some_and(|p| glob_match(g, p)));
        ok.then(|| rule.decision.clone())
    })
}

fn orientation(sc: &Scenario, env: &Envelope) -> Value {
    let tier = if sc.daemon_up {
        sc.orientation
    } else {
        OrientationTier::Unreachable
    };
    let Some(readiness) = texts::readiness_line(tier, sc.version.as_deref()) else {
        return json!({});
    };
    let cwd = env.cwd_or_process();
    let root = paths::repo_root(std::path::Path::new(&cwd));
    let repo = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| cwd.clone());
    json!({"orientation": texts::orientation(&readiness, &cwd, &repo, sc.tracked)})
}

fn prompt(sc: &Scenario, env: &Envelope) -> Value {
    if !sc.daemon_up || env.prompt.starts_with('/') {
        return json!({});
    }
    let tokens: Vec<String> = env
        .prompt
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|t| t.chars().count() >= 3)
        .take(3)
        .map(str::to_string)
        .collect();
    if tokens.is_empty() {
        return json!({});
    }
    json!({"additional_context": texts::prompt_context(&tokens)})
}

/// What the built-in classifier thinks of a tool call before the posture is applied.
enum Verdict {
    Allow,
    WouldDeny(String),
    Advise(String),
}

fn tool_call(sc: &Scenario, env: &Envelope, mode: Posture) -> Value {
    if env.is_gortex_tool {
        if !env.session_id.is_empty() {
            update_session(&env.session_id, |s| {
                s.consulted = true;
                s.streak = 0;
            });
        }
        return json!({});
    }
    if !sc.daemon_up {
        return json!({});
    }
    match classify(sc, env) {
        Verdict::Allow => json!({}),
        Verdict::Advise(text) => json!({"additional_context": text}),
        Verdict::WouldDeny(reason) => posture(env, mode, reason),
    }
}

fn posture(env: &Envelope, mode: Posture, reason: String) -> Value {
    let block = |r: String| json!({"block": true, "reason": r});
    match mode {
        Posture::Deny => block(reason),
        Posture::Enrich => json!({"additional_context": reason}),
        Posture::ConsultUnlock => {
            let consulted = !env.session_id.is_empty() && load_session(&env.session_id).consulted;
            if consulted {
                json!({"additional_context": reason})
            } else {
                block(format!("{reason}{}", texts::CONSULT_UNLOCK_SUFFIX))
            }
        }
        Posture::Nudge => {
            if env.session_id.is_empty() {
                return json!({});
            }
            let mut fire = false;
            update_session(&env.session_id, |s| {
                s.streak += 1;
                if s.streak >= 3 {
                    fire = true;
                    s.streak = 0;
                }
            });
            if fire {
                block(texts::nudge(&reason))
            } else {
                json!({})
            }
        }
    }
}

fn indexed(sc: &Scenario, path: &str) -> bool {
    sc.tracked && is_source(path)
}

fn classify(sc: &Scenario, env: &Envelope) -> Verdict {
    match env.tool_name.to_ascii_lowercase().as_str() {
        "read" => match env.file_path() {
            Some(p) if indexed(sc, p) => Verdict::WouldDeny(texts::read_denied(p)),
            _ => Verdict::Allow,
        },
        "grep" => {
            let pattern = env.input("pattern").unwrap_or("");
            if !sc.tracked || limited_to_non_source(env.input("type"), env.input("glob")) {
                Verdict::Allow
            } else {
                Verdict::WouldDeny(texts::grep_denied(pattern))
            }
        }
        "glob" => {
            let pattern = env.input("pattern").unwrap_or("");
            if sc.tracked && glob_targets_source(pattern) {
                Verdict::WouldDeny(texts::glob_denied(pattern))
            } else {
                Verdict::Allow
            }
        }
        "bash" => bash(sc, env.input("command").unwrap_or("")),
        "edit" | "write" => {
            let verb = if env.tool_name.eq_ignore_ascii_case("edit") {
                "Edit"
            } else {
                "Write"
            };
            match env.file_path() {
                Some(p) if indexed(sc, p) => {
                    if truthy("GORTEX_HOOK_BLOCK_EDIT") {
                        Verdict::WouldDeny(texts::edit_advice(verb, p, true))
                    } else {
                        Verdict::Advise(texts::edit_advice(verb, p, false))
                    }
                }
                _ => Verdict::Allow,
            }
        }
        _ => Verdict::Allow,
    }
}

/// Whether a glob pattern's extension (or any of `{a,b}` alternatives) is a source extension.
fn glob_targets_source(pattern: &str) -> bool {
    let Some((_, ext)) = pattern.rsplit_once('.') else {
        return false;
    };
    ext.trim_matches(['{', '}'])
        .split(',')
        .any(|e| SOURCE_EXTENSIONS.contains(&e.trim().to_ascii_lowercase().as_str()))
}

/// A Grep `type` or `glob` that names only non-source files lets the search through.
fn limited_to_non_source(kind: Option<&str>, glob: Option<&str>) -> bool {
    if let Some(t) = kind.filter(|t| !t.is_empty()) {
        return !SOURCE_EXTENSIONS.contains(&t.to_ascii_lowercase().as_str())
            && !matches!(
                t,
                "golang" | "typescript" | "javascript" | "python" | "rust"
            );
    }
    if let Some(g) = glob.filter(|g| !g.is_empty()) {
        return g.contains('.') && !glob_targets_source(g);
    }
    false
}

fn bash(sc: &Scenario, command: &str) -> Verdict {
    for segment in command.split(['|', ';', '&']) {
        let words: Vec<&str> = segment.split_whitespace().collect();
        let Some(cmd) = words.first().copied() else {
            continue;
        };
        let args: Vec<&str> = words[1..]
            .iter()
            .copied()
            .filter(|w| !w.starts_with('-'))
            .collect();
        match cmd {
            "cat" | "head" | "tail" => {
                if let Some(p) = args.iter().find(|p| indexed(sc, p)) {
                    return Verdict::WouldDeny(texts::bash_read_denied(cmd, p));
                }
            }
            "grep" | "rg" | "egrep" => {
                if !sc.tracked {
                    continue;
                }
                let limit = flag_value(&words, &["--include", "-g", "--glob"]);
                let kind = flag_value(&words, &["-t", "--type"]);
                if limited_to_non_source(kind, limit) {
                    continue;
                }
                let pattern = args.first().copied().unwrap_or("");
                return Verdict::WouldDeny(texts::grep_denied(pattern.trim_matches(['\'', '"'])));
            }
            "find" => {
                if let Some(name) = flag_value(&words, &["-name", "-iname"]) {
                    let name = name.trim_matches(['\'', '"']);
                    if sc.tracked && glob_targets_source(name) {
                        return Verdict::WouldDeny(texts::grep_denied(name));
                    }
                }
            }
            _ => {}
        }
    }
    Verdict::Allow
}

/// The value of the first of `names` in `words`, as `--flag=value` or `--flag value`.
fn flag_value<'a>(words: &[&'a str], names: &[&str]) -> Option<&'a str> {
    for (i, w) in words.iter().enumerate() {
        for n in names {
            if let Some(v) = w.strip_prefix(n).and_then(|r| r.strip_prefix('=')) {
                return Some(v.trim_matches(['\'', '"']));
            }
            if w == n {
                return words.get(i + 1).map(|v| v.trim_matches(['\'', '"']));
            }
        }
    }
    None
}

#[derive(Default)]
struct Session {
    consulted: bool,
    streak: u64,
}

fn session_path(id: &str) -> std::path::PathBuf {
    state::session_dir().join(format!("{}.json", state::sanitize_session_id(id)))
}

fn load_session(id: &str) -> Session {
    let v: Value = std::fs::read(session_path(id))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or(Value::Null);
    Session {
        consulted: v.get("consulted").and_then(Value::as_bool).unwrap_or(false),
        streak: v.get("streak").and_then(Value::as_u64).unwrap_or(0),
    }
}

/// Read-modify-write of a session file under its lock.
fn update_session(id: &str, change: impl FnOnce(&mut Session)) {
    let path = session_path(id);
    let Ok(mut locked) = state::Locked::open(&path) else {
        return;
    };
    let v: Value = serde_json::from_str(&locked.read_all()).unwrap_or(Value::Null);
    let mut s = Session {
        consulted: v.get("consulted").and_then(Value::as_bool).unwrap_or(false),
        streak: v.get("streak").and_then(Value::as_u64).unwrap_or(0),
    };
    change(&mut s);
    let _ = locked.replace(&json!({"consulted": s.consulted, "streak": s.streak}).to_string());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_names_normalize_like_the_go_side() {
        assert_eq!(normalize_event(" Session-Start "), "session_start");
        assert_eq!(normalize_event("tool.call"), "tool_call");
        assert_eq!(normalize_event("Before Agent Start"), "before_agent_start");
    }

    #[test]
    fn modes_parse_with_deny_as_the_fallback() {
        assert_eq!(Posture::parse(" ENRICH "), Posture::Enrich);
        assert_eq!(Posture::parse("consult-unlock"), Posture::ConsultUnlock);
        assert_eq!(Posture::parse("adaptive-nudge"), Posture::Nudge);
        assert_eq!(Posture::parse("strict"), Posture::Deny);
    }

    #[test]
    fn source_extensions() {
        assert!(is_source("src/a.go") && is_source("x/Y.TSX") && is_source("run.bash"));
        assert!(!is_source("README.md") && !is_source(".go") && !is_source("Makefile"));
    }
}
