//! HOOK-1, CFG-8 and HOOK-15 end to end against Gortex's own hook handler (built by
//! `make gortex-hook` from the upstream sources): the posture flag reaches the hook, the session
//! hook answers with the orientation (SES-12), and a prompt gets the relevant-symbols guidance.
//! fake-gortex relays each run to the upstream handler and logs what it was sent, so every test
//! checks the product's side (the envelope) as well as the upstream decision. The handler asks
//! fake-gortex's daemon socket side (`daemon serve`) for its facts about a small repository.

// The daemon socket the upstream handler asks is a Unix socket in fake-gortex.
#![cfg(unix)]

mod common_config;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use common_config::{fake_gortex, temp_dir, write_file};
use pi_gortex_runtime::config::{hook_argv, HookMode};
use pi_gortex_runtime::hook::{
    envelope_for_prompt, envelope_for_session_start, envelope_for_tool_call, orientation, outcome,
    prompt_guidance, run, EnvelopeContext, HookOutcome,
};
use serde_json::json;

/// Gortex's own hook handler: `GORTEX_UPSTREAM_HOOK` (set by the Makefile), else where
/// `make gortex-hook` puts it.
fn upstream_hook() -> PathBuf {
    let path = std::env::var_os("GORTEX_UPSTREAM_HOOK")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/gortex-upstream/bin/gortex-hook")
        });
    assert!(
        path.is_file(),
        "{} is missing: run `make gortex-hook`",
        path.display()
    );
    path
}

/// A git repository with one Go file declaring two symbols, a running daemon socket that
/// tracks it, and the handler's own HOME; the daemon ends with the workspace.
struct Workspace {
    dir: tempfile::TempDir,
    repo: PathBuf,
    daemon: Child,
}

impl Workspace {
    fn new() -> Self {
        let dir = temp_dir();
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).expect("repo");
        write_file(
            &repo.join("src/app.go"),
            "package app\n\nfunc renderWidget() {}\n\nfunc Serve() {}\n",
        );
        std::fs::create_dir_all(dir.path().join("home")).expect("home");
        let mut daemon = Command::new(fake_gortex())
            .args(["daemon", "serve"])
            .current_dir(&repo)
            .env("GORTEX_DAEMON_SOCKET", dir.path().join("d.sock"))
            .env("FAKE_GORTEX_LOG", dir.path().join("daemon.log"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("daemon serve");
        // Its first line says it listens.
        let mut ready = String::new();
        BufReader::new(daemon.stdout.take().expect("stdout"))
            .read_line(&mut ready)
            .expect("daemon ready line");
        assert!(ready.contains("\"ready\":true"), "daemon serve: {ready:?}");
        Workspace { dir, repo, daemon }
    }

    /// The CFG-8 argv, run through fake-gortex's relay to the upstream handler.
    fn argv(&self, mode: HookMode) -> Vec<String> {
        let dir = self.dir.path();
        let mut argv = vec![
            "/usr/bin/env".to_string(),
            format!("FAKE_GORTEX_LOG={}", dir.join("fake.log").display()),
            format!("FAKE_GORTEX_UPSTREAM_HOOK={}", upstream_hook().display()),
            format!("FAKE_GORTEX_HOOK_HOME={}", dir.join("home").display()),
            format!("GORTEX_DAEMON_SOCKET={}", dir.join("d.sock").display()),
        ];
        argv.extend(hook_argv(fake_gortex().to_str().expect("utf8"), mode));
        argv
    }

    /// The `hook` records of the relay's log (what each run was sent), after checking that
    /// there were `count` of them and that Gortex's own handler answered each: the relay
    /// writes `upstream_answered` before a run's record only once the handler has exited with
    /// its answer.
    fn answered_records(&self, count: usize) -> Vec<serde_json::Value> {
        let log: Vec<serde_json::Value> = std::fs::read_to_string(self.dir.path().join("fake.log"))
            .unwrap_or_default()
            .lines()
            .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
            .filter(|record| record["verb"] == "hook")
            .collect();
        let of = |ev: &str| -> Vec<&serde_json::Value> {
            log.iter().filter(|record| record["ev"] == ev).collect()
        };
        let runs = of("hook");
        assert_eq!(runs.len(), count, "hook runs: {log:#?}");
        for run in &runs {
            let answered = of("upstream_answered")
                .into_iter()
                .filter(|record| record["pid"] == run["pid"])
                .count();
            assert_eq!(
                answered, 1,
                "Gortex's own handler answered run {}: {log:#?}",
                run["pid"]
            );
        }
        runs.into_iter().cloned().collect()
    }

    fn context(&self) -> EnvelopeContext {
        EnvelopeContext {
            cwd: self.repo.to_str().expect("utf8").into(),
            session_id: "s-live".into(),
        }
    }
}

impl Drop for Workspace {
    fn drop(&mut self) {
        // Closing its stdin ends `daemon serve`.
        drop(self.daemon.stdin.take());
        let _ = self.daemon.wait();
    }
}

#[tokio::test]
async fn enrich_flag_turns_the_deny_into_guidance() {
    let ws = Workspace::new();
    let envelope =
        envelope_for_tool_call("read", &json!({"path":"src/app.go"}), &ws.context(), |_| {
            None
        });
    let deny = run(&ws.argv(HookMode::Deny), &envelope).await;
    assert_eq!(deny.failure, None);
    match outcome(&deny.decision) {
        HookOutcome::Block { reason } => assert!(
            reason.starts_with("[Gortex] BLOCKED: Read of src/app.go"),
            "{reason}"
        ),
        other => panic!("expected a block, got {other:?}"),
    }
    let enrich = run(&ws.argv(HookMode::Enrich), &envelope).await;
    let records = ws.answered_records(2);
    assert_eq!(records[0]["mode"], "deny", "no --mode flag means deny");
    assert_eq!(
        records[1]["mode"], "enrich",
        "CFG-8: --mode=enrich reached the hook"
    );
    assert_eq!(records[1]["envelope"]["tool_name"], "Read");
    assert_eq!(
        records[1]["envelope"]["tool_input"]["file_path"],
        "src/app.go"
    );
    match outcome(&enrich.decision) {
        HookOutcome::Steer { text } => assert!(
            text.starts_with("[Gortex] BLOCKED: Read of src/app.go"),
            "{text}"
        ),
        other => panic!("expected guidance, got {other:?}"),
    }
}

#[tokio::test]
async fn graph_calls_get_the_empty_decision() {
    let ws = Workspace::new();
    let envelope = envelope_for_tool_call(
        "mcp__gortex__read",
        &json!({"target":{"file":"src/app.go"}}),
        &ws.context(),
        |_| None,
    );
    let graph = run(&ws.argv(HookMode::Deny), &envelope).await;
    assert_eq!(graph.failure, None);
    assert_eq!(outcome(&graph.decision), HookOutcome::None);
    // HOOK-6: what the product sent is what makes the hook answer {}.
    let records = ws.answered_records(1);
    assert_eq!(records[0]["envelope"]["tool_name"], "read");
    assert_eq!(records[0]["envelope"]["is_gortex_tool"], true);
    assert_eq!(
        records[0]["envelope"]["tool_input"],
        json!({"target":{"file":"src/app.go"}})
    );
}

#[tokio::test]
async fn session_start_returns_the_orientation() {
    let ws = Workspace::new();
    let cwd = ws.context().cwd;
    let answer = run(&ws.argv(HookMode::Deny), &envelope_for_session_start(&cwd)).await;
    assert_eq!(answer.failure, None);
    let records = ws.answered_records(1);
    assert_eq!(
        records[0]["envelope"],
        json!({"event": "session_start", "cwd": cwd})
    );
    let text = orientation(&answer.decision).expect("orientation");
    assert!(text.starts_with("## Gortex Session Orientation"), "{text}");
    assert!(text.contains("v0.64.4"), "the daemon's version: {text}");
}

#[tokio::test]
async fn prompt_gets_relevant_symbols_guidance() {
    let ws = Workspace::new();
    let envelope =
        envelope_for_prompt("how does renderWidget draw the page", &ws.context()).expect("sent");
    let answer = run(&ws.argv(HookMode::Deny), &envelope).await;
    assert_eq!(answer.failure, None);
    let records = ws.answered_records(1);
    assert_eq!(records[0]["envelope"]["event"], "prompt");
    assert_eq!(
        records[0]["envelope"]["prompt"],
        "how does renderWidget draw the page"
    );
    assert_eq!(records[0]["envelope"]["session_id"], "s-live");
    let guidance = prompt_guidance(&answer.decision).expect("guidance");
    assert!(
        guidance.starts_with("## Gortex — relevant indexed symbols for your request"),
        "{guidance}"
    );
    assert!(
        guidance.contains("`renderWidget` (function) — src/app.go:3"),
        "the symbol the daemon found: {guidance}"
    );
}
