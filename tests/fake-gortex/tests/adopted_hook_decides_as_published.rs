//! Gortex's hook built with its wire types aliased to the generated Go package
//! (`make gortex-hook-adopted`, tests/gortex-upstream/adopt.sh) writes the same decision bytes
//! and exits with the same code as the published build (`make gortex-hook`) for every envelope
//! of a seeded corpus: event aliases in every spelling, every tool name, members named up to
//! case, repeated and unknown members, a value of every JSON type for every member, nested
//! `tool_input` values, numbers beyond float64 and int64, documents that are not JSON objects,
//! each posture flag, with a daemon (`fake-gortex daemon serve`) and without one. Envelopes run
//! in sequences sharing a session, each build with its own fresh and identical `HOME`, so the
//! postures that keep state (nudge streaks, consult-unlock markers) are compared too.

// The daemon socket the hook asks is a Unix socket.
#![cfg(unix)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

const SEED: u64 = 0x5eed_2026_1207;
/// The corpus is at least this large; the test fails on fewer envelopes compared.
const MIN_ENVELOPES: usize = 10_000;

fn hook_binary(variable: &str, file: &str, make_target: &str) -> PathBuf {
    let path = std::env::var_os(variable)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../target/gortex-upstream/bin")
                .join(file)
        });
    assert!(
        path.is_file(),
        "{} is missing: run `make {make_target}`",
        path.display()
    );
    path
}

/// SplitMix64: small, seeded, the same sequence on every platform.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

fn quote(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

const EVENTS: &[&str] = &[
    "tool_call",
    "tool_execute_before",
    "permission_ask",
    "tool.execute.before",
    "permission-ask",
    " TOOL_CALL ",
    "Tool Call",
    "session",
    "session_start",
    "session_open",
    "before_agent_start",
    "before_compact",
    "Session.Start",
    "prompt",
    "user_prompt",
    "chat_message",
    "chat.message",
    "PROMPT",
    "turn_end",
    "",
    "tool_result",
];
const TOOLS: &[&str] = &[
    "Read",
    "Grep",
    "Glob",
    "Bash",
    "Edit",
    "Write",
    "Task",
    "read",
    "READ",
    "search_symbols",
    "mcp__gortex__search",
    "WebFetch",
    "",
];
const INPUT_KEYS: &[&str] = &[
    "file_path",
    "path",
    "pattern",
    "command",
    "glob",
    "offset",
    "limit",
    "content",
    "old_string",
    "new_string",
    "include",
    "output_mode",
    "description",
    "prompt",
    "File_Path",
    "PATTERN",
];
const PATHS: &[&str] = &[
    "src/app.go",
    "./src/app.go",
    "{repo}/src/app.go",
    "src/empty.go",
    "{repo}/src/empty.go",
    "README.md",
    "src/missing.go",
    "../outside.go",
    "/etc/hosts",
    "src",
    "src/*.go",
    "**/*.go",
    "",
];
const COMMANDS: &[&str] = &[
    "cat src/app.go",
    "grep -n Serve src/app.go",
    "rg renderWidget",
    "sed -n 1,5p src/app.go",
    "head src/empty.go",
    "ls src",
    "echo hi > src/new.go",
    "git status",
    "find . -name '*.go'",
];
const WORDS: &[&str] = &[
    "renderWidget",
    "Serve",
    "func .*",
    "where is Serve defined?",
    "explain src/app.go",
    "hello",
    "<tag> & \u{2028} ünï",
    "",
];
const NUMBERS: &[&str] = &[
    "0",
    "1",
    "42",
    "-7",
    "3.5",
    "-0.0",
    "1e21",
    "9007199254740993",
    "18446744073709551615",
    "-9223372036854775809",
    "123456789012345678901234567890",
    "1.7976931348623157e308",
    "5e-324",
    "1e400",
];
const CWDS: &[&str] = &["{repo}", "{repo}/src", "{repo}/", "/", "/nonexistent", ""];
const UNKNOWN: &[&str] = &[
    "extra",
    "version",
    "tool",
    "toolInput",
    "eventName",
    "session",
    "x-extension",
    "_meta",
];
const MODES: &[Option<&str>] = &[
    None,
    Some("deny"),
    Some("enrich"),
    Some("nudge"),
    Some("consult-unlock"),
    Some("adaptive-nudge"),
];
const NOT_OBJECTS: &[&str] = &[
    "",
    "not json",
    "{",
    "[]",
    "null",
    "\"tool_call\"",
    "{} {}",
    "{\"event\":\"tool_call\"} trailing",
    "{\"event\":\"tool_call\",}",
];

struct Corpus<'a> {
    rng: Rng,
    repo: &'a str,
}

impl Corpus<'_> {
    fn text(&mut self, items: &[&str]) -> String {
        let item = self.rng.pick(items).replace("{repo}", self.repo);
        quote(&item)
    }

    /// A value of any JSON type, nested at most `depth` levels.
    fn any(&mut self, depth: usize) -> String {
        let kinds = if depth == 0 { 5 } else { 7 };
        match self.rng.below(kinds) {
            0 => "null".into(),
            1 => ["true", "false"][self.rng.below(2)].into(),
            2 => self.rng.pick(NUMBERS).into(),
            3 => self.text(PATHS),
            4 => self.text(WORDS),
            5 => {
                let items: Vec<String> = (0..self.rng.below(4))
                    .map(|_| self.any(depth - 1))
                    .collect();
                format!("[{}]", items.join(","))
            }
            _ => {
                let members: Vec<String> = (0..self.rng.below(4))
                    .map(|_| format!("{}:{}", self.text(INPUT_KEYS), self.any(depth - 1)))
                    .collect();
                format!("{{{}}}", members.join(","))
            }
        }
    }

    /// A member name as written: mostly exact, sometimes in another case.
    fn spelled(&mut self, name: &str) -> String {
        let spelled = match self.rng.below(12) {
            0 => name.to_uppercase(),
            1 => {
                let mut chars = name.chars();
                chars
                    .next()
                    .map(|c| c.to_uppercase().collect::<String>())
                    .unwrap_or_default()
                    + chars.as_str()
            }
            2 => name
                .chars()
                .map(|c| {
                    if self.rng.chance(50) {
                        c.to_ascii_uppercase()
                    } else {
                        c
                    }
                })
                .collect(),
            _ => name.to_string(),
        };
        quote(&spelled)
    }

    fn tool_input(&mut self) -> String {
        if self.rng.chance(8) {
            return self.any(2);
        }
        let mut members = Vec::new();
        for _ in 0..self.rng.below(5) {
            let key = self.rng.pick(INPUT_KEYS);
            let value = match (key, self.rng.below(10)) {
                (_, 0) => self.any(3),
                (_, 1) => self.rng.pick(NUMBERS).into(),
                ("command", _) => self.text(COMMANDS),
                ("pattern" | "prompt" | "description" | "content", _) => self.text(WORDS),
                ("offset" | "limit", _) => self.rng.pick(NUMBERS).into(),
                _ => self.text(PATHS),
            };
            members.push(format!("{}:{value}", quote(key)));
        }
        format!("{{{}}}", members.join(","))
    }

    /// A tool call as the extension writes it, with nothing odd about it.
    fn plain_tool_call(&mut self, session: &str) -> String {
        let (tool, input) = match self.rng.below(5) {
            0 | 1 => (
                "Read",
                format!("{{\"file_path\":{}}}", self.text(&PATHS[..7])),
            ),
            2 => (
                "Grep",
                format!(
                    "{{\"pattern\":{},\"path\":{}}}",
                    self.text(&WORDS[..3]),
                    self.text(&PATHS[..7])
                ),
            ),
            3 => (
                "Glob",
                format!("{{\"pattern\":{}}}", self.text(&PATHS[9..12])),
            ),
            _ => ("Bash", format!("{{\"command\":{}}}", self.text(COMMANDS))),
        };
        let gortex = if self.rng.chance(10) {
            ",\"is_gortex_tool\":true"
        } else {
            ""
        };
        format!(
            "{{\"event\":\"tool_call\",\"tool_name\":\"{tool}\",\"tool_input\":{input},\"cwd\":{},\"session_id\":{}{gortex}}}",
            quote(self.repo),
            quote(session)
        )
    }

    /// One envelope of a sequence whose session id is `session`.
    fn envelope(&mut self, session: &str) -> String {
        if self.rng.chance(2) {
            return self.rng.pick(NOT_OBJECTS).into();
        }
        if self.rng.chance(35) {
            return self.plain_tool_call(session);
        }
        let mut members: Vec<(String, String)> = Vec::new();
        let event = match self.rng.below(10) {
            0..=5 => self.text(&EVENTS[..7]),
            6 => self.text(&EVENTS[7..13]),
            7 => self.text(&EVENTS[13..18]),
            8 => self.text(EVENTS),
            _ => self.any(2),
        };
        let odd = |c: &mut Self, value: String| if c.rng.chance(6) { c.any(2) } else { value };
        if !self.rng.chance(3) {
            members.push(("event".into(), event));
        }
        let tool = self.text(TOOLS);
        let tool = odd(self, tool);
        members.push(("tool_name".into(), tool));
        if self.rng.chance(85) {
            let input = self.tool_input();
            members.push(("tool_input".into(), input));
        }
        if self.rng.chance(90) {
            let cwd = self.text(CWDS);
            let cwd = odd(self, cwd);
            members.push(("cwd".into(), cwd));
        }
        if self.rng.chance(85) {
            let id = if self.rng.chance(90) {
                quote(session)
            } else {
                self.text(&["", "other"])
            };
            let id = odd(self, id);
            members.push(("session_id".into(), id));
        }
        if self.rng.chance(40) {
            let prompt = self.text(WORDS);
            let prompt = odd(self, prompt);
            members.push(("prompt".into(), prompt));
        }
        if self.rng.chance(30) {
            let flag = ["true", "false"][self.rng.below(2)].to_string();
            let flag = odd(self, flag);
            members.push(("is_gortex_tool".into(), flag));
        }
        let mut written: Vec<String> = Vec::new();
        for (name, value) in members {
            written.push(format!("{}:{value}", self.spelled(&name)));
            if self.rng.chance(5) {
                // The same member again, up to case, with another value.
                let other = self.any(2);
                written.push(format!("{}:{other}", quote(&name.to_uppercase())));
            }
        }
        for _ in 0..self.rng.below(3) {
            let name = self.text(UNKNOWN);
            let value = self.any(2);
            written.push(format!("{name}:{value}"));
        }
        for i in (1..written.len()).rev() {
            let j = self.rng.below(i + 1);
            written.swap(i, j);
        }
        let space = [",", ", ", ",\n  "][self.rng.below(3)];
        format!("{{{}}}", written.join(space))
    }
}

struct Sequence {
    mode: Option<&'static str>,
    daemon: bool,
    envelopes: Vec<String>,
}

fn corpus(repo: &str) -> Vec<Sequence> {
    let mut corpus = Corpus {
        rng: Rng(SEED),
        repo,
    };
    let mut sequences = Vec::new();
    let mut total = 0;
    while total < MIN_ENVELOPES + 500 {
        let index = sequences.len();
        let session = format!("s-{index}");
        let length = 1 + corpus.rng.below(8);
        let envelopes: Vec<String> = (0..length).map(|_| corpus.envelope(&session)).collect();
        total += envelopes.len();
        sequences.push(Sequence {
            mode: MODES[index % MODES.len()],
            // One sequence in four runs without a daemon.
            daemon: !(index / MODES.len()).is_multiple_of(4),
            envelopes,
        });
    }
    sequences
}

/// A git repository with one Go file declaring two symbols, and the daemon's socket side tracking it.
struct Workspace {
    dir: PathBuf,
    repo: PathBuf,
    daemon: Child,
}

impl Workspace {
    fn new() -> Workspace {
        let dir = std::env::temp_dir().join(format!("adopted-hook-{}", std::process::id()));
        let repo = dir.join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("src")).unwrap();
        std::fs::write(
            repo.join("src/app.go"),
            "package app\n\nfunc renderWidget() {}\n\nfunc Serve() {}\n",
        )
        .unwrap();
        std::fs::write(repo.join("src/empty.go"), "package app\n").unwrap();
        std::fs::write(repo.join("README.md"), "# app\n").unwrap();
        let mut daemon = Command::new(env!("CARGO_BIN_EXE_fake-gortex"))
            .args(["daemon", "serve"])
            .current_dir(&repo)
            .env("GORTEX_DAEMON_SOCKET", dir.join("d.sock"))
            .env("FAKE_GORTEX_LOG", dir.join("daemon.log"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("daemon serve");
        let mut ready = String::new();
        BufReader::new(daemon.stdout.take().unwrap())
            .read_line(&mut ready)
            .unwrap();
        assert!(ready.contains("\"ready\":true"), "daemon serve: {ready:?}");
        Workspace { dir, repo, daemon }
    }
}

impl Drop for Workspace {
    fn drop(&mut self) {
        // Closing its stdin ends `daemon serve`.
        drop(self.daemon.stdin.take());
        let _ = self.daemon.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// One hook run: its stdout and exit code.
fn decide(
    bin: &Path,
    ws: &Workspace,
    home: &Path,
    seq: &Sequence,
    envelope: &str,
) -> (Vec<u8>, Option<i32>) {
    let socket = if seq.daemon {
        ws.dir.join("d.sock")
    } else {
        ws.dir.join("no-daemon.sock")
    };
    let mut command = Command::new(bin);
    command.args(["hook", "--agent=pi"]);
    if let Some(mode) = seq.mode {
        command.arg(format!("--mode={mode}"));
    }
    let mut child = command
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("GORTEX_DAEMON_SOCKET", socket)
        // One OS thread per Go runtime: the same for both builds, and half the spawn cost.
        .env("GOMAXPROCS", "1")
        .current_dir(&ws.repo)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the hook");
    let mut stdin = child.stdin.take().unwrap();
    let _ = stdin.write_all(envelope.as_bytes());
    drop(stdin);
    let output = child.wait_with_output().expect("hook output");
    (output.stdout, output.status.code())
}

#[derive(Default)]
struct Tally {
    compared: usize,
    blocks: usize,
    context: usize,
    orientations: usize,
    empty: usize,
    differences: Vec<String>,
}

#[test]
fn adopted_build_decides_every_envelope_as_the_published_build() {
    let published = hook_binary("GORTEX_UPSTREAM_HOOK", "gortex-hook", "gortex-hook");
    let adopted = hook_binary(
        "GORTEX_HOOK_ADOPTED",
        "gortex-hook-adopted",
        "gortex-hook-adopted",
    );
    let ws = Workspace::new();
    let sequences = corpus(ws.repo.to_str().expect("utf8 temp dir"));
    let started = Instant::now();
    let next = AtomicUsize::new(0);
    let tally = Mutex::new(Tally::default());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get()) * 3;
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(seq) = sequences.get(index) else { break };
                let homes = ws.dir.join("homes").join(index.to_string());
                let (home_a, home_b) = (homes.join("published"), homes.join("adopted"));
                std::fs::create_dir_all(&home_a).unwrap();
                std::fs::create_dir_all(&home_b).unwrap();
                let mut local = Tally::default();
                for envelope in &seq.envelopes {
                    let a = decide(&published, &ws, &home_a, seq, envelope);
                    let b = decide(&adopted, &ws, &home_b, seq, envelope);
                    local.compared += 1;
                    let text = String::from_utf8_lossy(&a.0);
                    match () {
                        _ if text.contains("\"block\":true") => local.blocks += 1,
                        _ if text.contains("\"additional_context\"") => local.context += 1,
                        _ if text.contains("\"orientation\"") => local.orientations += 1,
                        _ => local.empty += 1,
                    }
                    if a != b {
                        local.differences.push(format!(
                            "sequence {index} (mode {:?}, daemon {}), envelope {envelope:?}:\n  published {:?} exit {:?}\n  adopted   {:?} exit {:?}",
                            seq.mode, seq.daemon, text, a.1, String::from_utf8_lossy(&b.0), b.1
                        ));
                    }
                }
                let _ = std::fs::remove_dir_all(&homes);
                let mut tally = tally.lock().unwrap();
                tally.compared += local.compared;
                tally.blocks += local.blocks;
                tally.context += local.context;
                tally.orientations += local.orientations;
                tally.empty += local.empty;
                tally.differences.extend(local.differences);
            });
        }
    });
    let tally = tally.into_inner().unwrap();
    // Written past the test harness's capture, so `make test` shows the count.
    let _ = writeln!(
        std::io::stderr(),
        "adopted hook vs published: {} envelopes in {} sequences compared in {:.1} s ({} workers): \
         {} blocks, {} additional contexts, {} orientations, {} empty; {} differ",
        tally.compared,
        sequences.len(),
        started.elapsed().as_secs_f64(),
        workers,
        tally.blocks,
        tally.context,
        tally.orientations,
        tally.empty,
        tally.differences.len()
    );
    assert!(
        tally.differences.is_empty(),
        "{} envelopes decided differently, the first:\n{}",
        tally.differences.len(),
        tally
            .differences
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(
        tally.compared >= MIN_ENVELOPES,
        "only {} envelopes compared",
        tally.compared
    );
    // The corpus reaches every kind of decision, so agreement is not agreement on `{}` alone.
    for (kind, count) in [
        ("blocks", tally.blocks),
        ("additional contexts", tally.context),
        ("orientations", tally.orientations),
        ("empty decisions", tally.empty),
    ] {
        assert!(count >= 50, "only {count} {kind} in the corpus");
    }
}
