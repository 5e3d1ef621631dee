//! HOOK-1, CFG-8 and HOOK-15 end to end against fake-gortex: the posture
//! flag reaches the hook, the session hook answers with the orientation
//! (SES-12), and a prompt gets the relevant-symbols guidance.

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
    ];
    argv.extend(hook_argv(fake_gortex().to_str().expect("utf8"), mode));
    argv
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
    let guidance = prompt_guidance(&answer.decision).expect("guidance");
    assert!(
        guidance.starts_with("## Gortex — relevant indexed symbols for your request"),
        "{guidance}"
    );
}
