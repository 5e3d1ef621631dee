//! Test harness: runs the built `fake-gortex` over pipes in a private temp directory and reads
//! its JSONL log back.
#![allow(dead_code)]

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Output, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};

pub const BIN: &str = env!("CARGO_BIN_EXE_fake-gortex");

static SEQ: AtomicU64 = AtomicU64::new(0);

/// A private directory holding the scenario, the log and the state of one test.
pub struct Fake {
    pub dir: PathBuf,
    pub env: Vec<(String, String)>,
}

impl Fake {
    pub fn new(scenario: Value) -> Fake {
        let n = SEQ.fetch_add(1, Ordering::SeqCst);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .subsec_nanos();
        let dir = std::env::temp_dir().join(format!(
            "fake-gortex-test-{}-{n}-{nanos}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("scenario.json"), scenario.to_string()).unwrap();
        Fake {
            dir,
            env: Vec::new(),
        }
    }

    pub fn defaults() -> Fake {
        Fake::new(json!({}))
    }

    pub fn with_env(mut self, k: &str, v: &str) -> Fake {
        self.env.push((k.to_string(), v.to_string()));
        self
    }

    pub fn log_path(&self) -> PathBuf {
        self.dir.join("log.jsonl")
    }

    pub fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(BIN);
        c.args(args)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("FAKE_GORTEX_SCENARIO", self.dir.join("scenario.json"))
            .env("FAKE_GORTEX_LOG", self.log_path())
            .current_dir(&self.dir);
        for (k, v) in &self.env {
            c.env(k, v);
        }
        c
    }

    /// Runs a one-shot verb with `stdin` and waits for it.
    pub fn run(&self, args: &[&str], stdin: &[u8]) -> Output {
        self.run_in(args, stdin, &self.dir)
    }

    pub fn run_in(&self, args: &[&str], stdin: &[u8], cwd: &Path) -> Output {
        let mut child = self
            .command(args)
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut input = child.stdin.take().unwrap();
        let data = stdin.to_vec();
        let writer = std::thread::spawn(move || {
            let _ = input.write_all(&data);
        });
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap();
        out
    }

    /// Runs `hook --agent=pi [extra flags]` on an envelope; returns (stdout, exit code).
    pub fn hook(&self, flags: &[&str], envelope: &Value) -> (String, i32) {
        let mut args = vec!["hook", "--agent=pi"];
        args.extend_from_slice(flags);
        let out = self.run(&args, envelope.to_string().as_bytes());
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            out.status.code().unwrap_or(-1),
        )
    }

    /// The hook decision parsed as JSON.
    pub fn decide(&self, flags: &[&str], envelope: &Value) -> Value {
        let (out, code) = self.hook(flags, envelope);
        assert_eq!(code, 0, "hook exit code for {envelope}");
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("bad decision {out:?}: {e}"))
    }

    pub fn mcp(&self) -> Mcp {
        self.mcp_in(&self.dir.clone())
    }

    pub fn mcp_in(&self, cwd: &Path) -> Mcp {
        let mut child = self
            .command(&["mcp"])
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Mcp {
            child,
            stdin,
            stdout,
            next_id: 1,
        }
    }

    pub fn records(&self) -> Vec<Value> {
        let text = std::fs::read_to_string(self.log_path()).unwrap_or_default();
        text.lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad log line {l:?}: {e}")))
            .collect()
    }

    pub fn events(&self, ev: &str) -> Vec<Value> {
        self.records()
            .into_iter()
            .filter(|r| r["ev"] == ev)
            .collect()
    }
}

impl Drop for Fake {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A running `mcp` child with line-level access to its stdout.
pub struct Mcp {
    pub child: Child,
    pub stdin: Option<ChildStdin>,
    pub stdout: BufReader<ChildStdout>,
    pub next_id: u64,
}

impl Mcp {
    pub fn send(&mut self, msg: &Value) {
        let mut line = msg.to_string();
        line.push('\n');
        self.stdin
            .as_mut()
            .unwrap()
            .write_all(line.as_bytes())
            .unwrap();
    }

    /// Sends a request and returns its id.
    pub fn request(&mut self, method: &str, params: Value) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// The next raw line (including its terminator); empty at EOF.
    pub fn raw_line(&mut self) -> Vec<u8> {
        let mut buf = Vec::new();
        self.stdout.read_until(b'\n', &mut buf).unwrap();
        buf
    }

    /// The next frame parsed as JSON.
    pub fn frame(&mut self) -> Value {
        let line = self.raw_line();
        assert!(!line.is_empty(), "unexpected EOF from fake mcp");
        serde_json::from_slice(&line)
            .unwrap_or_else(|e| panic!("bad frame {:?}: {e}", String::from_utf8_lossy(&line)))
    }

    /// Sends a request and returns the next frame, asserting it answers that request.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.request(method, params);
        let f = self.frame();
        assert_eq!(
            f["id"],
            json!(id),
            "expected the reply to {method}, got {f}"
        );
        f
    }

    pub fn initialize(&mut self) -> Value {
        let r = self.call(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {"experimental": {"gortex/wire": ["gcx"]}}, "clientInfo": {"name": "pi", "version": "1.0.0"}}),
        );
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized", "params": {}}));
        r
    }

    pub fn tool(&mut self, name: &str, args: Value) -> Value {
        self.call("tools/call", json!({"name": name, "arguments": args}))
    }

    /// The text of a tools/call result.
    pub fn tool_text(&mut self, name: &str, args: Value) -> String {
        let r = self.tool(name, args);
        r["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("no text in {r}"))
            .to_string()
    }

    /// Closes stdin, reads the rest of stdout, and waits.
    pub fn finish(mut self) -> (Vec<u8>, std::process::ExitStatus) {
        drop(self.stdin.take());
        let mut rest = Vec::new();
        self.stdout.read_to_end(&mut rest).unwrap();
        let status = self.child.wait().unwrap();
        (rest, status)
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A git-like repo (a directory with `.git`) inside the test directory.
pub fn repo(fake: &Fake, name: &str) -> PathBuf {
    let root = fake.dir.join(name);
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::create_dir_all(root.join("src")).unwrap();
    root
}
