//! `daemon serve`: the daemon's Unix-socket side, so Gortex's own hook handler has a daemon to
//! ask. Wire format of the upstream `internal/daemon/proto.go` and `client.go`: per connection
//! one JSON-line handshake `{version, mode: control|mcp, cwd?, client?, …}` and one ack, then
//! JSON lines: control requests `{kind, params?}` answered `{ok, result?|error_code, error_msg}`,
//! or MCP JSON-RPC frames.
//!
//! Answered: control `status`, `probe`, `search_symbols`; MCP `tools/call` of `get_file_summary`
//! and `find_files`. Facts come from the scenario (`tracked`, `daemon_up`, `orientation`,
//! `version`, `indexed`) and the index of the serving process's repository (`index.rs`), the
//! same fixture the MCP side reads.
//!
//! The socket is `GORTEX_DAEMON_SOCKET` (required). One line `{"ready":true,"socket":…}` on
//! stdout once it listens; the process serves until stdin reaches EOF or a signal ends it, so a
//! test that dies cannot leave it behind. `daemon_up: false` binds nothing and exits 0.

use crate::index::{self, IndexedFile};
use crate::log;
use crate::scenario::{OrientationTier, Scenario, DEFAULT_VERSION};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The daemon protocol version this side speaks (`daemon.ProtocolVersion`).
const PROTOCOL_VERSION: u64 = 1;

struct Daemon {
    sc: Scenario,
    root: PathBuf,
    socket: String,
}

impl Daemon {
    fn version(&self) -> String {
        format!("v{}", self.sc.version.as_deref().unwrap_or(DEFAULT_VERSION))
    }

    fn ready(&self) -> bool {
        !matches!(
            self.sc.orientation,
            OrientationTier::Warming | OrientationTier::LeanWarming
        )
    }

    fn enriched(&self) -> bool {
        self.ready() && self.sc.orientation != OrientationTier::StandardPartial
    }

    fn index(&self) -> Vec<IndexedFile> {
        index::build(&self.sc, &self.root)
    }

    fn repo_name(&self) -> String {
        self.root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    fn tracked_repos(&self, counts: bool) -> Vec<Value> {
        if !self.sc.tracked {
            return Vec::new();
        }
        let name = self.repo_name();
        let mut repo = json!({
            "prefix": name, "path": self.root.to_string_lossy(), "name": name, "workspace": name,
        });
        if counts {
            let files = self.index();
            let nodes: usize = files.iter().map(|f| f.symbols.len()).sum();
            repo["files"] = json!(files.len());
            repo["nodes"] = json!(nodes);
            repo["edges"] = json!(nodes);
            repo["last_index_unix"] = json!(0);
            repo["memory"] = json!({});
        }
        vec![repo]
    }

    fn status(&self) -> Value {
        json!({
            "version": self.version(), "pid": std::process::id(), "uptime_seconds": 5,
            "socket_path": self.socket, "tracked_repos": self.tracked_repos(true), "sessions": 1,
            "memory_bytes": 0, "runtime": {}, "search_backend": {"name": "none", "doc_count": 0, "bytes": 0},
            "ready": self.ready(), "warmup_seconds": 3, "enrichment_complete": self.enriched(),
        })
    }

    fn probe(&self) -> Value {
        json!({
            "version": self.version(), "pid": std::process::id(), "uptime_seconds": 5,
            "ready": self.ready(), "enriched": self.enriched(),
            "tracked_repos": self.tracked_repos(false), "sessions": 1,
        })
    }

    /// Symbols whose name equals (ignoring case) a word of the query, as a name search finds them.
    fn search_symbols(&self, params: &Value) -> Value {
        let query = params.get("query").and_then(Value::as_str).unwrap_or("");
        let limit = params.get("limit").and_then(Value::as_u64).unwrap_or(10) as usize;
        let words: Vec<String> = query
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect();
        let hits: Vec<Value> = self
            .index()
            .iter()
            .flat_map(|f| f.symbols.iter().map(move |s| (f, s)))
            .filter(|(_, s)| words.contains(&s.name.to_lowercase()))
            .take(limit)
            .map(|(f, s)| json!({"name": s.name, "kind": s.kind, "file_path": f.rel, "line": s.line}))
            .collect();
        json!({"hits": hits})
    }

    fn control(&self, request: &Value) -> Value {
        let kind = request.get("kind").and_then(Value::as_str).unwrap_or("");
        let params = request.get("params").cloned().unwrap_or(Value::Null);
        let result = match kind {
            "status" => self.status(),
            "probe" => self.probe(),
            "search_symbols" => self.search_symbols(&params),
            _ => {
                return json!({"ok": false, "error_code": "internal",
                    "error_msg": format!("fake-gortex: unsupported control kind {kind:?}")})
            }
        };
        json!({"ok": true, "result": result})
    }

    /// A `tools/call` result whose text is `payload` as JSON, or a tool error.
    fn tool_result(payload: Result<Value, String>) -> Value {
        match payload {
            Ok(v) => json!({"content": [{"type": "text", "text": v.to_string()}]}),
            Err(e) => json!({"content": [{"type": "text", "text": e}], "isError": true}),
        }
    }

    fn file_summary(&self, args: &Value) -> Result<Value, String> {
        let path = args.get("path").and_then(Value::as_str).unwrap_or("");
        let rel = path.trim_start_matches("./").replace('\\', "/");
        let index = self.index();
        let file = index
            .iter()
            .find(|f| f.rel == rel)
            .ok_or_else(|| format!("file not found in graph: {path}"))?;
        let nodes: Vec<Value> = file
            .symbols
            .iter()
            .map(|s| json!({"name": s.name, "kind": s.kind, "start_line": s.line}))
            .collect();
        Ok(
            json!({"file": file.rel, "total_nodes": file.symbols.len(), "nodes": nodes, "dependents": []}),
        )
    }

    fn find_files(&self, args: &Value) -> Result<Value, String> {
        let under = args.get("path").and_then(Value::as_str).unwrap_or("");
        let under = under.trim_end_matches('/');
        let limit = args.get("limit").and_then(Value::as_u64).unwrap_or(50) as usize;
        let files: Vec<Value> = self
            .index()
            .iter()
            .filter(|f| under.is_empty() || f.rel.starts_with(&format!("{under}/")))
            .take(limit)
            .map(|f| json!({"path": f.rel}))
            .collect();
        Ok(json!({"count": files.len(), "files": files}))
    }

    fn mcp(&self, frame: &Value) -> Option<Value> {
        let id = frame.get("id").cloned()?;
        let method = frame.get("method").and_then(Value::as_str).unwrap_or("");
        if method != "tools/call" {
            return Some(json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": -32601, "message": format!("method not found: {method}")}}));
        }
        let params = frame.get("params").cloned().unwrap_or(Value::Null);
        let args = params.get("arguments").cloned().unwrap_or(Value::Null);
        let payload = if !self.sc.tracked {
            Err("repository not tracked".to_string())
        } else {
            match params.get("name").and_then(Value::as_str).unwrap_or("") {
                "get_file_summary" => self.file_summary(&args),
                "find_files" => self.find_files(&args),
                other => Err(format!("fake-gortex: unsupported tool {other:?}")),
            }
        };
        Some(json!({"jsonrpc": "2.0", "id": id, "result": Self::tool_result(payload)}))
    }

    fn ack(&self, handshake: &Value) -> Value {
        let version = handshake
            .get("version")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        if version != PROTOCOL_VERSION {
            return json!({"ok": false, "error_code": "protocol_mismatch",
                "error_msg": format!("protocol version {version}, daemon speaks {PROTOCOL_VERSION}")});
        }
        let mut ack = json!({"ok": true, "session_id": "fake-session", "default_repo": self.repo_name(),
            "daemon_version": self.version(), "daemon_instance": format!("fake-{}", std::process::id())});
        if !self.ready() {
            ack["warming"] = json!(true);
            ack["warmup_phase"] = json!("indexing");
        }
        ack
    }

    fn serve(&self, stream: UnixStream) {
        let Ok(mut writer) = stream.try_clone() else {
            return;
        };
        let mut lines = BufReader::new(stream).lines();
        let Some(Ok(first)) = lines.next() else {
            return;
        };
        let handshake: Value = serde_json::from_str(&first).unwrap_or(Value::Null);
        let ack = self.ack(&handshake);
        let accepted = ack["ok"] == json!(true);
        let mode = handshake.get("mode").and_then(Value::as_str).unwrap_or("");
        log::record(
            "daemon_conn",
            json!({"mode": mode, "client": handshake.get("client"), "ok": accepted}),
        );
        if !send(&mut writer, &ack) || !accepted {
            return;
        }
        for line in lines {
            let Ok(line) = line else {
                return;
            };
            let request: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
            let reply = if mode == "mcp" {
                self.mcp(&request)
            } else {
                Some(self.control(&request))
            };
            log::record("daemon_request", json!({"mode": mode, "request": request}));
            if let Some(reply) = reply {
                if !send(&mut writer, &reply) {
                    return;
                }
            }
        }
    }
}

fn send(w: &mut UnixStream, v: &Value) -> bool {
    let mut line = v.to_string();
    line.push('\n');
    w.write_all(line.as_bytes()).is_ok()
}

/// Runs `daemon serve`; returns the exit code.
pub fn run(sc: Scenario) -> i32 {
    let Some(socket) = std::env::var_os("GORTEX_DAEMON_SOCKET") else {
        eprintln!("fake-gortex: daemon serve needs GORTEX_DAEMON_SOCKET");
        return 2;
    };
    let socket_path = Path::new(&socket).to_path_buf();
    if !sc.daemon_up {
        log::record("daemon_serve", json!({"bound": false}));
        return 0;
    }
    // A socket file left by an earlier run would make the bind fail.
    let _ = std::fs::remove_file(&socket_path);
    let listener = match UnixListener::bind(&socket_path) {
        Ok(l) => l,
        Err(e) => {
            eprintln!(
                "fake-gortex: cannot listen on {}: {e}",
                socket_path.display()
            );
            return 1;
        }
    };
    let cwd = std::env::current_dir().unwrap_or_default();
    let daemon = Arc::new(Daemon {
        root: index::tracked_root(&cwd),
        sc,
        socket: socket_path.to_string_lossy().into_owned(),
    });
    log::record(
        "daemon_serve",
        json!({"bound": true, "socket": daemon.socket, "root": daemon.root}),
    );
    println!("{}", json!({"ready": true, "socket": daemon.socket}));
    let _ = std::io::stdout().flush();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let daemon = Arc::clone(&daemon);
            std::thread::spawn(move || daemon.serve(stream));
        }
    });
    // Serve until whoever started this closes our stdin (or dies).
    let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
    let _ = std::fs::remove_file(&socket_path);
    0
}
