//! HOOK-1, CFG-8 and HOOK-15 end to end against fake-gortex: the posture
//! flag reaches the hook, the session hook answers with the orientation
//! (SES-12), and a prompt gets the relevant-symbols guidance. Each test
//! reads the fake's log to check what the hook was actually sent (the
//! product's side), not only what the fake answered.

mod common_config;

use std::path::Path;

use common_config::{fake_gortex, temp_dir};
use pi_gortex_runtime::config::{hook_argv, HookMode};
use pi_gortex_runtime::hook::{
    envelope_for_prompt, envelope_for_session_start, envelope_for_tool_call, orientation, outcome,
    prompt_guidance, run, EnvelopeContext, HookOutcome,
};
use serde_json::json;

/// The CFG-8 argv, with fake-gortex state kept in `dir`.
fn argv(dir: &Path, mode: HookMode) -> Vec<String> {
    let mut argv = vec![
        "/usr/bin/env".to_string(),
        format!("FAKE_GORTEX_STATE={}", dir.display()),
        format!("FAKE_GORTEX_LOG={}", dir.join("fake.log").display()),
    ];
    argv.extend(hook_argv(fake_gortex().to_str().expect("utf8"), mode));
    argv
}

/// The `hook` records of the fake's log: what each run was sent.
fn hook_records(dir: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join("fake.log"))
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|record| record["ev"] == "hook")
        .collect()
}

fn context() -> EnvelopeContext {
    EnvelopeContext {
        cwd: "/repo".into(),
        session_id: "s-live".into(),
    }
}

#[tokio::test]
async fn enrich_flag_turns_the_deny_into_guidance() {
    let dir = temp_dir();
    let envelope =
        envelope_for_tool_call("read", &json!({"path":"src/a.go"}), &context(), |_| None);
    let deny = run(&argv(dir.path(), HookMode::Deny), &envelope).await;
    assert!(matches!(outcome(&deny.decision), HookOutcome::Block { .. }));
    let enrich = run(&argv(dir.path(), HookMode::Enrich), &envelope).await;
    let records = hook_records(dir.path());
    assert_eq!(records.len(), 2);
    assert_eq!(records[0]["mode"], "deny", "no --mode flag means deny");
    assert_eq!(
        records[1]["mode"], "enrich",
        "CFG-8: --mode=enrich reached the hook"
    );
    assert_eq!(records[1]["envelope"]["tool_name"], "Read");
    assert_eq!(
        records[1]["envelope"]["tool_input"]["file_path"],
        "src/a.go"
    );
    match outcome(&enrich.decision) {
        HookOutcome::Steer { text } => assert!(
            text.starts_with("[Gortex] BLOCKED: Read of src/a.go"),
            "{text}"
        ),
        other => panic!("expected guidance, got {other:?}"),
    }
}

#[tokio::test]
async fn graph_calls_get_the_empty_decision() {
    let dir = temp_dir();
    let envelope = envelope_for_tool_call(
        "mcp__gortex__read",
        &json!({"target":{"file":"src/a.go"}}),
        &context(),
        |_| None,
    );
    let graph = run(&argv(dir.path(), HookMode::Deny), &envelope).await;
    assert_eq!(graph.failure, None);
    assert_eq!(outcome(&graph.decision), HookOutcome::None);
    // HOOK-6: what the product sent is what makes the hook answer {}.
    let records = hook_records(dir.path());
    assert_eq!(records.len(), 1);
    assert_eq!(records[0]["envelope"]["tool_name"], "read");
    assert_eq!(records[0]["envelope"]["is_gortex_tool"], true);
    assert_eq!(
        records[0]["envelope"]["tool_input"],
        json!({"target":{"file":"src/a.go"}})
    );
}

#[tokio::test]
async fn session_start_returns_the_orientation() {
    let dir = temp_dir();
    let answer = run(
        &argv(dir.path(), HookMode::Deny),
        &envelope_for_session_start("/repo"),
    )
    .await;
    assert_eq!(answer.failure, None);
    let records = hook_records(dir.path());
    assert_eq!(
        records[0]["envelope"],
        json!({"event": "session_start", "cwd": "/repo"})
    );
    let text = orientation(&answer.decision).expect("orientation");
    assert!(
        text.starts_with("## Gortex Session Orientation\n\n✓ Gortex daemon ready (v0.64.4"),
        "{text}"
    );
}

#[tokio::test]
async fn prompt_gets_relevant_symbols_guidance() {
    let dir = temp_dir();
    let envelope =
        envelope_for_prompt("how does the handler parse requests", &context()).expect("sent");
    let answer = run(&argv(dir.path(), HookMode::Deny), &envelope).await;
    assert_eq!(answer.failure, None);
    let records = hook_records(dir.path());
    assert_eq!(records[0]["envelope"]["event"], "prompt");
    assert_eq!(
        records[0]["envelope"]["prompt"],
        "how does the handler parse requests"
    );
    assert_eq!(records[0]["envelope"]["session_id"], "s-live");
    let guidance = prompt_guidance(&answer.decision).expect("guidance");
    assert!(
        guidance.starts_with("## Gortex — relevant indexed symbols for your request"),
        "{guidance}"
    );
}
