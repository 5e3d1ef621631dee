//! The `mcp` verb (FAKE-4): NDJSON JSON-RPC on stdio, with the FAKE-8 faults that concern it.

use crate::calls;
use crate::log;
use crate::out::{Item, Out};
use crate::scenario::{Fault, FaultVerb, Scenario, SplitMode, UNTIL_LISTS_DEADLINE_MS};
use crate::state;
use crate::surface::Surface;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashSet};
use std::io::{BufRead, BufReader};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

const INSTRUCTIONS: &str = "MUST use Gortex MCP. Gortex indexes this repository as a code graph: \
start with `explore`, read source with `read`, search with `search`, and edit with `edit`. Do not \
read or grep indexed source files directly.";

/// Junk emitted by the `garbage` fault when it names no lines: every kind MCP-6 must skip.
fn default_junk() -> Vec<Vec<u8>> {
    vec![
        b"\n".to_vec(),
        b"   \n".to_vec(),
        b"not json\n".to_vec(),
        b"[1,2]\n".to_vec(),
        b"{\"jsonrpc\":\"2.0\"}\n".to_vec(),
        b"{\"jsonrpc\":\"2.0\",\"id\":987654,\"result\":{}}\n".to_vec(),
        b"\xff\xfe{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n".to_vec(),
    ]
}

pub type SharedOut = Arc<Mutex<Out>>;

/// Full `tools/list` requests answered by this process, with a condvar for the
/// replies held by `calls.<tool>.until_lists`.
#[derive(Default)]
pub struct Listings {
    answered: Mutex<u64>,
    changed: Condvar,
}

impl Listings {
    fn bump(&self) {
        if let Ok(mut n) = self.answered.lock() {
            *n += 1;
            self.changed.notify_all();
        }
    }

    /// Waits until `n` listings were answered or `deadline` passed.
    fn wait_for(&self, n: u64, deadline: Instant) {
        let Ok(mut answered) = self.answered.lock() else {
            return;
        };
        while *answered < n {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            match self.changed.wait_timeout(answered, left) {
                Ok((guard, _)) => answered = guard,
                Err(_) => return,
            }
        }
    }
}

pub struct Server {
    sc: Arc<Scenario>,
    out: SharedOut,
    surface: Surface,
    /// Server requests sent and not yet answered, by compact id.
    pending_server: Arc<Mutex<BTreeMap<String, (Value, String)>>>,
    /// Post-reply fault actions that fire once per process.
    fired: HashSet<String>,
    /// Tools hidden by `withdraw` as of the latest first page of `tools/list`.
    withdrawn: Vec<String>,
    /// The last tool listing, keyed by its names (promotions change the names).
    tools_cache: Option<(Vec<String>, Vec<Value>)>,
    /// Full listings answered so far (`calls.<tool>.until_lists`).
    listings: Arc<Listings>,
}

/// Runs the verb; returns the exit code.
pub fn run(sc: Scenario) -> i32 {
    let split = sc.faults.iter().find_map(|f| match f {
        Fault::Split { mode, pause_ms } => Some((*mode, *pause_ms)),
        _ => None,
    });
    let ignore_sigterm = sc
        .faults
        .iter()
        .any(|f| matches!(f, Fault::IgnoreSigterm {}));
    let sc = Arc::new(sc);
    let out: SharedOut = Arc::new(Mutex::new(Out::new(split)));
    let mut server = Server {
        surface: Surface::from_env(&sc),
        sc: sc.clone(),
        out,
        pending_server: Arc::new(Mutex::new(BTreeMap::new())),
        fired: HashSet::new(),
        withdrawn: Vec::new(),
        tools_cache: None,
        listings: Arc::new(Listings::default()),
    };
    eprintln!("[gortex mcp] serving stdio (fake-gortex)");
    for f in &sc.faults {
        if let Fault::Garbage { lines, on: None } = f {
            let items = junk_items(lines);
            if server.send(items).is_err() {
                return finish(&server, 0, "stdout_closed");
            }
        }
    }
    // Post-method faults keyed on the pseudo-method `start` fire before anything is read (e.g.
    // list_changed before the initialize response).
    if let Err(code) = server.after("start") {
        return code;
    }
    // Raw fd 0 (not `Stdin`, which buffers on its own) so that `reader.buffer()` is everything
    // read so far and the coalesce flush point below is exact.
    let stdin = crate::stdio::raw_file(crate::stdio::Stream::Stdin);
    let mut reader = BufReader::with_capacity(1 << 16, &*stdin);
    let mut line = Vec::with_capacity(4096);
    loop {
        line.clear();
        // Coalesced frames go out only when the next read would block, so replies to pipelined
        // requests share one write.
        if !reader.buffer().contains(&b'\n') && server.flush().is_err() {
            return finish(&server, 0, "stdout_closed");
        }
        match reader.read_until(b'\n', &mut line) {
            Ok(0) if ignore_sigterm => {
                // A truly wedged child: closing stdin does not end it either, so MCP-15 has to
                // escalate to SIGKILL.
                let _ = server.flush();
                log::record("stdin_eof_ignored", json!({}));
                loop {
                    std::thread::sleep(Duration::from_secs(3600));
                }
            }
            Ok(0) => return finish(&server, 0, "stdin_eof"),
            Ok(_) => {}
            Err(_) => return finish(&server, 0, "stdin_error"),
        }
        if let Err(code) = server.handle_line(&line) {
            return code;
        }
    }
}

fn finish(server: &Server, code: i32, reason: &str) -> i32 {
    let _ = server.flush();
    let unanswered: Vec<Value> = server
        .pending_server
        .lock()
        .map(|p| p.values().map(|(id, _)| id.clone()).collect())
        .unwrap_or_default();
    let mut rec = json!({"code": code, "reason": reason});
    if !unanswered.is_empty() {
        rec["unanswered"] = json!(unanswered);
    }
    log::record("exit", rec);
    code
}

fn junk_items(lines: &Option<Vec<String>>) -> Vec<Item> {
    let raw = match lines {
        Some(ls) => ls
            .iter()
            .map(|l| {
                let mut b = l.as_bytes().to_vec();
                if !b.ends_with(b"\n") {
                    b.push(b'\n');
                }
                b
            })
            .collect(),
        None => default_junk(),
    };
    raw.into_iter().map(|b| Item::Raw(b, "junk")).collect()
}

fn reply(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

pub fn error_frame(id: &Value, code: i64, message: &str, data: Option<Value>) -> Value {
    let mut err = json!({"code": code, "message": message});
    if let Some(d) = data {
        err["data"] = d;
    }
    json!({"jsonrpc": "2.0", "id": id, "error": err})
}

fn list_changed() -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {}})
}

/// mcp-go's negotiation: echo a known version, empty means 2025-03-26, anything else the latest.
fn negotiate(requested: &str) -> &str {
    match requested {
        "2025-11-25" | "2025-06-18" | "2025-03-26" | "2024-11-05" => requested,
        "" => "2025-03-26",
        _ => "2025-11-25",
    }
}

/// What handling one request produced.
pub enum Outcome {
    /// Reply now (items before and after the reply frame go in the same batch).
    Reply {
        before: Vec<Item>,
        frame: Value,
        after: Vec<Item>,
    },
    /// Reply later from another thread (`calls.<tool>.delay_ms`, `until_lists`).
    Delayed {
        delay_ms: u64,
        until_lists: u64,
        frame: Value,
    },
    /// Reply now, then announce `count` list changes `spacing_ms` apart from a thread.
    ReplyThenNotify {
        frame: Value,
        count: usize,
        spacing_ms: u64,
    },
    /// Reply with these bytes, newline included (`calls.<tool>.text_json`).
    RawReply(Vec<u8>),
    /// Say nothing (`hang`).
    #[allow(dead_code)]
    Silent,
}

impl Outcome {
    pub fn now(frame: Value) -> Outcome {
        Outcome::Reply {
            before: Vec::new(),
            frame,
            after: Vec::new(),
        }
    }
}

impl Server {
    fn send(&self, items: Vec<Item>) -> std::io::Result<()> {
        match self.out.lock() {
            Ok(mut o) => o.send(items),
            Err(_) => Ok(()),
        }
    }

    /// Releases frames held back by `coalesce`; called before waiting for input.
    fn flush(&self) -> std::io::Result<()> {
        match self.out.lock() {
            Ok(mut o) => o.flush_pending(),
            Err(_) => Ok(()),
        }
    }

    fn has_fault(&self, pred: impl Fn(&Fault) -> bool) -> bool {
        self.sc.faults.iter().any(pred)
    }

    /// Handles one inbound line; `Err(code)` ends the process with that code.
    fn handle_line(&mut self, line: &[u8]) -> Result<(), i32> {
        let trimmed = line.trim_ascii();
        if trimmed.is_empty() {
            return Ok(());
        }
        let msg: Value = match serde_json::from_slice(trimmed) {
            Ok(v @ Value::Object(_)) => v,
            _ => {
                log::record("recv", json!({"invalid": true, "bytes": trimmed.len()}));
                let frame = error_frame(&Value::Null, -32700, "Parse error", None);
                return self.send(vec![Item::Frame(frame)]).map_err(|_| self.gone());
            }
        };
        let method = msg.get("method").and_then(Value::as_str).map(str::to_owned);
        let id = msg.get("id").cloned();
        match (method, id) {
            (Some(method), Some(id)) => {
                let mut rec = json!({"method": method, "id": id});
                if method == "initialize" {
                    rec["params"] = msg.get("params").cloned().unwrap_or(Value::Null);
                }
                log::record("recv", rec);
                self.handle_request(&method, id, msg.get("params").cloned())
            }
            (Some(method), None) => {
                let mut rec = json!({"method": method});
                if let Some(p) = msg
                    .get("params")
                    .filter(|p| !p.as_object().is_some_and(|o| o.is_empty()))
                {
                    rec["params"] = p.clone();
                }
                log::record("recv", rec);
                self.after(&method)
            }
            (None, Some(id)) => {
                self.record_answer(&id, &msg);
                Ok(())
            }
            (None, None) => {
                log::record("recv", json!({"invalid": true, "bytes": trimmed.len()}));
                Ok(())
            }
        }
    }

    fn gone(&self) -> i32 {
        finish(self, 0, "stdout_closed")
    }

    fn record_answer(&self, id: &Value, msg: &Value) {
        let key = id.to_string();
        let method = self
            .pending_server
            .lock()
            .ok()
            .and_then(|mut p| p.remove(&key))
            .map(|(_, m)| m);
        let mut rec = json!({"id": id, "request": method});
        if let Some(r) = msg.get("result") {
            rec["result"] = r.clone();
        }
        if let Some(e) = msg.get("error") {
            rec["error"] = e.clone();
        }
        log::record("answer", rec);
    }

    fn handle_request(
        &mut self,
        method: &str,
        id: Value,
        params: Option<Value>,
    ) -> Result<(), i32> {
        let params = params.unwrap_or(Value::Null);
        if self.hangs(method) {
            log::record("hang", json!({"method": method, "id": id}));
            return self.after(method);
        }
        self.maybe_crash(method)?;
        let outcome = match method {
            "initialize" => self.initialize(&id, &params),
            "ping" => Outcome::now(reply(&id, json!({}))),
            "tools/list" => self.tools_list(&id, &params),
            "tools/call" => calls::call(&self.sc, &mut self.surface, &id, &params),
            "resources/list" => Outcome::now(reply(&id, json!({"resources": []}))),
            "resources/templates/list" => {
                Outcome::now(reply(&id, json!({"resourceTemplates": []})))
            }
            "prompts/list" => Outcome::now(reply(&id, json!({"prompts": []}))),
            _ => Outcome::now(error_frame(
                &id,
                -32601,
                &format!("Method not found: {method}"),
                None,
            )),
        };
        let full_listing = method == "tools/list"
            && params
                .get("cursor")
                .and_then(Value::as_str)
                .unwrap_or("")
                .is_empty();
        self.emit(method, &id, outcome)?;
        if full_listing {
            self.listings.bump();
        }
        self.after(method)
    }

    fn emit(&mut self, method: &str, id: &Value, outcome: Outcome) -> Result<(), i32> {
        let (before, frame, after) = match outcome {
            Outcome::Silent => return Ok(()),
            Outcome::RawReply(bytes) => {
                return self
                    .send(vec![Item::Raw(bytes, "text_json")])
                    .map_err(|_| self.gone());
            }
            Outcome::Delayed {
                delay_ms,
                until_lists,
                frame,
            } => {
                let out = self.out.clone();
                let listings = self.listings.clone();
                let start = Instant::now();
                std::thread::spawn(move || {
                    let deadline = start + Duration::from_millis(UNTIL_LISTS_DEADLINE_MS);
                    listings.wait_for(until_lists, deadline);
                    let hold = Duration::from_millis(delay_ms);
                    std::thread::sleep(hold.saturating_sub(start.elapsed()));
                    if let Ok(mut o) = out.lock() {
                        let _ = o.send(vec![Item::Frame(frame)]);
                        let _ = o.flush_pending();
                    }
                });
                return Ok(());
            }
            Outcome::Reply {
                before,
                frame,
                after,
            } => (before, frame, after),
            Outcome::ReplyThenNotify {
                frame,
                count,
                spacing_ms,
            } => {
                self.emit(method, id, Outcome::now(frame))?;
                return self.notify_spaced(count, spacing_ms, true);
            }
        };
        let mut items: Vec<Item> = Vec::new();
        for f in &self.sc.faults {
            if let Fault::Garbage {
                lines,
                on: Some(on),
            } = f
            {
                if on == method {
                    items.extend(junk_items(lines));
                }
            }
        }
        items.extend(before);
        match self.oversized(method, id) {
            Some(raw) => items.push(raw),
            None => items.push(Item::Frame(frame)),
        }
        items.extend(after);
        self.send(items).map_err(|_| self.gone())
    }

    fn oversized(&self, method: &str, id: &Value) -> Option<Item> {
        self.sc.faults.iter().find_map(|f| match f {
            Fault::OversizedFrame {
                bytes,
                terminated,
                on,
            } if on == method => Some(Item::Raw(
                oversized_frame(id, *bytes, *terminated),
                "oversized",
            )),
            _ => None,
        })
    }

    fn hangs(&self, method: &str) -> bool {
        let Some(after_n) = self.sc.faults.iter().find_map(|f| match f {
            Fault::Hang { method: m, after_n } if m == method => Some(*after_n),
            _ => None,
        }) else {
            return false;
        };
        state::bump(&format!("hang-{method}")) >= after_n
    }

    fn maybe_crash(&self, method: &str) -> Result<(), i32> {
        let Some((n, code)) = self.sc.faults.iter().find_map(|f| match f {
            Fault::CrashOnCall {
                n,
                exit_code,
                method: m,
            } if m == method => Some((*n, *exit_code)),
            _ => None,
        }) else {
            return Ok(());
        };
        if state::bump(&format!("crash-{method}")) == n {
            return Err(finish(self, code, "crash"));
        }
        Ok(())
    }

    fn initialize(&mut self, id: &Value, params: &Value) -> Outcome {
        for f in &self.sc.faults {
            if let Fault::SlowHandshake { delay_ms, n } = f {
                let due = match n {
                    Some(n) => state::bump("slow_handshake") <= *n,
                    None => true,
                };
                if due {
                    std::thread::sleep(Duration::from_millis(*delay_ms));
                }
            }
        }
        for f in &self.sc.faults {
            if let Fault::FailingHandshake { n, error } = f {
                if state::bump("failing_handshake") <= *n {
                    let err = error
                        .clone()
                        .unwrap_or_else(|| json!({"code": -32603, "message": "daemon warming up"}));
                    return Outcome::now(json!({"jsonrpc": "2.0", "id": id, "error": err}));
                }
            }
        }
        let requested = params
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or("");
        let protocol = match &self.sc.protocol {
            Some(p) => p.clone(),
            None => negotiate(requested).to_string(),
        };
        let mut result = json!({
            "protocolVersion": protocol,
            "capabilities": {"tools": {"listChanged": true}, "resources": {"subscribe": true}},
            "instructions": INSTRUCTIONS,
        });
        if let Some(v) = &self.sc.version {
            result["serverInfo"] = json!({"name": "gortex", "version": v});
        }
        Outcome::now(reply(id, result))
    }

    fn tools_list(&mut self, id: &Value, params: &Value) -> Outcome {
        let cursor = params.get("cursor").and_then(Value::as_str).unwrap_or("");
        let mut after = Vec::new();
        if cursor.is_empty() {
            self.update_withdrawn(&mut after);
        }
        let names = self.surface.listed_names();
        if self.tools_cache.as_ref().is_none_or(|(n, _)| *n != names) {
            self.tools_cache = Some((names, self.surface.listed_tools()));
        }
        let all = self
            .tools_cache
            .as_ref()
            .map(|(_, t)| t.as_slice())
            .unwrap_or(&[]);
        let tools: Vec<Value> = all
            .iter()
            .filter(|t| {
                let name = t.get("name").and_then(Value::as_str).unwrap_or("");
                !self.withdrawn.iter().any(|w| w == name)
            })
            .cloned()
            .collect();
        let size = self.sc.page_size;
        if size == 0 {
            return Outcome::Reply {
                before: Vec::new(),
                frame: reply(id, json!({"tools": tools})),
                after,
            };
        }
        let page: usize = if cursor.is_empty() {
            1
        } else {
            match cursor.strip_prefix("page-").and_then(|n| n.parse().ok()) {
                Some(n) if n >= 1 => n,
                _ => return Outcome::now(error_frame(id, -32602, "invalid cursor", None)),
            }
        };
        let start = (page - 1) * size;
        let chunk: Vec<Value> = tools.iter().skip(start).take(size).cloned().collect();
        let mut result = json!({"tools": chunk});
        if start + size < tools.len() {
            result["nextCursor"] = json!(format!("page-{}", page + 1));
        }
        Outcome::Reply {
            before: Vec::new(),
            frame: reply(id, result),
            after,
        }
    }

    /// `withdraw`/`relist`: the change happens right after the `after_list`th full listing is
    /// answered (it still shows the old set), announced with one list_changed.
    fn update_withdrawn(&mut self, after: &mut Vec<Item>) {
        if !self.has_fault(|f| matches!(f, Fault::Withdraw { .. } | Fault::Relist { .. })) {
            return;
        }
        let k = state::bump("tools_list");
        let mut hidden: Vec<String> = Vec::new();
        let mut events: Vec<(u64, bool, &Vec<String>)> = self
            .sc
            .faults
            .iter()
            .filter_map(|f| match f {
                Fault::Withdraw { tools, after_list } => Some((*after_list, true, tools)),
                Fault::Relist { tools, after_list } => Some((*after_list, false, tools)),
                _ => None,
            })
            .collect();
        events.sort_by_key(|(at, _, _)| *at);
        for (at, withdraw, tools) in events {
            if at < k {
                for t in tools {
                    hidden.retain(|h| h != t);
                    if withdraw {
                        hidden.push(t.clone());
                    }
                }
            }
            if at == k {
                after.push(Item::Frame(list_changed()));
                log::record(
                    if withdraw { "withdraw" } else { "relist" },
                    json!({"tools": tools, "listing": k}),
                );
            }
        }
        self.withdrawn = hidden;
    }

    /// Post-reply fault actions keyed on the method just handled (requests and notifications).
    fn after(&mut self, method: &str) -> Result<(), i32> {
        let faults = self.sc.faults.clone();
        for (i, f) in faults.iter().enumerate() {
            let key = format!("{i}");
            match f {
                Fault::ServerPing { after, id } if after == method && self.fire_once(&key) => {
                    self.server_request(id.clone(), "ping")?;
                }
                Fault::ServerRequest {
                    method: m,
                    after,
                    id,
                } if after == method && self.fire_once(&key) => {
                    self.server_request(id.clone(), m)?;
                }
                Fault::ListChangedBurst {
                    count,
                    spacing_ms,
                    after,
                } if after == method && self.fire_once(&key) => {
                    log::record("burst", json!({"count": count, "spacing_ms": spacing_ms}));
                    self.notify_spaced(*count, *spacing_ms, false)?;
                }
                Fault::StopReading { after } if after == method => {
                    log::record("stop_reading", json!({"after": method}));
                    // Replies held for coalescing go out first: only reading stops.
                    let _ = self.flush();
                    loop {
                        std::thread::sleep(std::time::Duration::from_secs(600));
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn fire_once(&mut self, key: &str) -> bool {
        self.fired.insert(key.to_string())
    }

    fn server_request(&mut self, id: Value, method: &str) -> Result<(), i32> {
        if let Ok(mut p) = self.pending_server.lock() {
            p.insert(id.to_string(), (id.clone(), method.to_string()));
        }
        let frame = json!({"jsonrpc": "2.0", "id": id, "method": method});
        self.send(vec![Item::Frame(frame)]).map_err(|_| self.gone())
    }

    /// Sends `count` list_changed notifications `spacing_ms` apart; with spacing, from a thread
    /// so that requests keep being answered meanwhile.
    pub fn notify_spaced(
        &self,
        count: usize,
        spacing_ms: u64,
        delay_first: bool,
    ) -> Result<(), i32> {
        if spacing_ms == 0 && !delay_first {
            let items = (0..count).map(|_| Item::Frame(list_changed())).collect();
            return self.send(items).map_err(|_| self.gone());
        }
        let out = self.out.clone();
        std::thread::spawn(move || {
            for i in 0..count {
                if i > 0 || delay_first {
                    std::thread::sleep(Duration::from_millis(spacing_ms));
                }
                let Ok(mut o) = out.lock() else { return };
                if o.send(vec![Item::Frame(list_changed())]).is_err() || o.flush_pending().is_err()
                {
                    return;
                }
            }
        });
        Ok(())
    }
}

/// A syntactically valid reply of exactly `bytes` bytes (excluding the newline) when it fits.
fn oversized_frame(id: &Value, bytes: usize, terminated: bool) -> Vec<u8> {
    let head = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"",
        id
    );
    let tail = "\"}],\"isError\":false}}";
    let mut frame = Vec::with_capacity(bytes + 1);
    if bytes >= head.len() + tail.len() {
        frame.extend_from_slice(head.as_bytes());
        frame.resize(bytes - tail.len(), b'x');
        frame.extend_from_slice(tail.as_bytes());
    } else {
        frame.resize(bytes, b'x');
    }
    if terminated {
        frame.push(b'\n');
    }
    frame
}

/// Start-of-process faults for any verb: stderr noise first, then an immediate exit.
pub fn start_faults(sc: &Scenario, verb: FaultVerb) -> Option<i32> {
    if verb == FaultVerb::Hook {
        if let Some(code) = hook_start(sc) {
            return Some(code);
        }
    }
    for f in &sc.faults {
        if let Fault::StderrFlood { bytes, verb: v } = f {
            if *v == verb {
                flood_stderr(*bytes);
            }
        }
    }
    for f in &sc.faults {
        if let Fault::ExitOnStart {
            exit_code,
            n,
            verb: v,
            while_exists,
            stderr,
        } = f
        {
            if *v != verb || while_exists.as_ref().is_some_and(|path| !path.exists()) {
                continue;
            }
            let due = match n {
                Some(n) => state::bump("exit_on_start") <= *n,
                None => true,
            };
            if due {
                if let Some(text) = stderr {
                    eprint!("{text}");
                }
                return Some(*exit_code);
            }
        }
    }
    None
}

/// The hook's start-up before it reads stdin: `FAKE_GORTEX_HOOK_STARTUP_MS` of delay (a binary
/// that is slow to start), then `hook_idle_exit` (a process kept waiting on stdin that dies).
fn hook_start(sc: &Scenario) -> Option<i32> {
    let startup = std::env::var("FAKE_GORTEX_HOOK_STARTUP_MS")
        .ok()
        .and_then(|ms| ms.trim().parse::<u64>().ok())
        .unwrap_or(0);
    if startup > 0 {
        std::thread::sleep(std::time::Duration::from_millis(startup));
    }
    sc.faults.iter().find_map(|f| match f {
        Fault::HookIdleExit {
            after_ms,
            exit_code,
        } => (!stdin_arrives_within(*after_ms)).then_some(*exit_code),
        _ => None,
    })
}

/// Whether stdin brings bytes or its end within `ms`, without consuming anything: the wait
/// fills std's shared stdin buffer, which the verb's own read then starts from.
fn stdin_arrives_within(ms: u64) -> bool {
    use std::io::BufRead;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let filled = std::io::stdin().lock().fill_buf().map(|b| b.len()).is_ok();
        let _ = tx.send(filled);
    });
    rx.recv_timeout(std::time::Duration::from_millis(ms))
        .is_ok()
}

fn flood_stderr(bytes: usize) {
    use std::io::Write;
    let line =
        b"[gortex mcp] stderr flood: indexing progress 0123456789abcdefghijklmnopqrstuvwxyz\n";
    let mut buf = Vec::with_capacity(bytes);
    while buf.len() < bytes {
        let take = line.len().min(bytes - buf.len());
        buf.extend_from_slice(&line[..take]);
    }
    let _ = std::io::stderr().write_all(&buf);
    log::record("stderr_flood", json!({"bytes": bytes}));
}

/// Whether a split fault in utf8_mid mode is active (replies then carry multi-byte characters).
pub fn utf8_mid(sc: &Scenario) -> bool {
    sc.faults.iter().any(|f| {
        matches!(
            f,
            Fault::Split {
                mode: SplitMode::Utf8Mid,
                ..
            }
        )
    })
}
