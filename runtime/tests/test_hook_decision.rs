//! HOOK-3 (decision parsing, fail-open per document, lenient per field),
//! HOOK-10..12 (typed outcome, fallback reason, precedence, the tool_call's
//! action) and SES-13's
//! reading of the session hook's orientation.

use pi_gortex_runtime::hook::{
    orientation, outcome, parse_decision, prompt_guidance, steer_message, tool_call_action,
    HookDecision, HookFailure, HookOutcome, FALLBACK_BLOCK_REASON,
};
use pi_gortex_schema::host::ToolCallAction;

fn decision(text: &str) -> HookDecision {
    parse_decision(text.as_bytes()).expect("a decision")
}

#[test]
fn non_objects_and_garbage_are_failures() {
    assert_eq!(parse_decision(b"  \n"), Err(HookFailure::EmptyOutput));
    assert!(matches!(
        parse_decision(b"not json"),
        Err(HookFailure::InvalidJson { .. })
    ));
    assert_eq!(
        parse_decision(b"null"),
        Err(HookFailure::NotAnObject {
            found: "null".into()
        })
    );
    assert_eq!(
        parse_decision(b"[]"),
        Err(HookFailure::NotAnObject {
            found: "array".into()
        })
    );
}

#[test]
fn only_json_true_blocks() {
    assert_eq!(
        outcome(&decision(r#"{"block":"yes","reason":"r"}"#)),
        HookOutcome::None
    );
    assert_eq!(outcome(&decision(r#"{"block":1}"#)), HookOutcome::None);
    assert_eq!(
        outcome(&decision(r#"{"block":false,"reason":"r"}"#)),
        HookOutcome::None
    );
    assert_eq!(
        outcome(&decision(
            r#"{"block":true,"reason":"[Gortex] BLOCKED: Read of a.go"}"#
        )),
        HookOutcome::Block {
            reason: "[Gortex] BLOCKED: Read of a.go".into()
        }
    );
}

#[test]
fn block_without_usable_reason_gets_the_fallback() {
    assert_eq!(
        FALLBACK_BLOCK_REASON,
        "[Gortex] blocked: prefer graph tools."
    );
    for text in [
        r#"{"block":true}"#,
        r#"{"block":true,"reason":""}"#,
        r#"{"block":true,"reason":5}"#,
    ] {
        assert_eq!(
            outcome(&decision(text)),
            HookOutcome::Block {
                reason: FALLBACK_BLOCK_REASON.into()
            },
            "{text}"
        );
    }
}

#[test]
fn guidance_steers_and_block_wins() {
    assert_eq!(
        outcome(&decision(
            r#"{"additional_context":"[Gortex] Use `explore` first"}"#
        )),
        HookOutcome::Steer {
            text: "[Gortex] Use `explore` first".into()
        }
    );
    assert_eq!(
        outcome(&decision(
            r#"{"block":true,"reason":"no","additional_context":"hint"}"#
        )),
        HookOutcome::Block {
            reason: "no".into()
        }
    );
    assert_eq!(
        outcome(&decision(r#"{"additional_context":""}"#)),
        HookOutcome::None
    );
    assert_eq!(
        outcome(&decision(r###"{"orientation":"## Gortex"}"###)),
        HookOutcome::None,
        "ignored on tool_call"
    );
    assert_eq!(outcome(&decision("{}")), HookOutcome::None);
}

#[test]
fn prompt_guidance_is_non_empty_additional_context() {
    let d = decision(
        r###"{"additional_context":"## Gortex — relevant indexed symbols for your request\n- a"}"###,
    );
    assert!(prompt_guidance(&d)
        .expect("guidance")
        .starts_with("## Gortex — relevant"));
    assert_eq!(
        prompt_guidance(&decision(r#"{"additional_context":7}"#)),
        None
    );
}

#[test]
fn orientation_is_the_session_hooks_non_empty_orientation_text() {
    let d = decision(r###"{"orientation":"## Gortex Session Orientation\n\nready"}"###);
    assert_eq!(
        orientation(&d),
        Some("## Gortex Session Orientation\n\nready")
    );
    // SES-13: an empty, missing or wrong-typed orientation is no orientation.
    for text in [r#"{"orientation":""}"#, "{}", r#"{"orientation":5}"#] {
        assert_eq!(orientation(&decision(text)), None, "{text}");
    }
}

#[test]
fn hook_11_steer_is_a_visible_gortex_message() {
    let message = serde_json::to_value(steer_message("g".into())).unwrap();
    assert_eq!(
        message,
        serde_json::json!({"customType": "gortex", "content": "g", "display": true})
    );
}

#[test]
fn hook_10_and_11_a_tool_call_decision_becomes_its_action() {
    assert_eq!(
        tool_call_action(&decision(r#"{"block":true,"additional_context":"g"}"#)),
        ToolCallAction::Block {
            reason: FALLBACK_BLOCK_REASON.to_string()
        },
        "a block wins over guidance"
    );
    assert_eq!(
        tool_call_action(&decision(r#"{"additional_context":"g"}"#)),
        ToolCallAction::Steer {
            message: steer_message("g".into())
        }
    );
    assert_eq!(
        tool_call_action(&decision(r#"{"block":false}"#)),
        ToolCallAction::None
    );
}
