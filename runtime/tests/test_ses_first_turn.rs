//! SES-13 (and HOOK-15 on the first turn): the first-turn text, its exact
//! parts, their order and the `\n\n` joiner, and SES-14's `details.briefing`.

use pi_gortex_runtime::extension::session::texts::{
    first_turn_message, first_turn_text, start_error_text, FirstTurn, STILL_REGISTERING_TEXT,
};
use serde_json::json;

const ORIENTATION: &str =
    "## Gortex Session Orientation\n\n✓ Gortex daemon ready (v0.64.4, uptime 5s).";
const WARNING: &str = "[Gortex] the daemon is gortex 0.60.0, older than the 0.61.2 this extension targets. A graph tool may be missing or behave unexpectedly. If one does, tell the user to run `gortex upgrade`.";

#[test]
fn exact_texts() {
    assert_eq!(
        start_error_text("gortex mcp spawn failed"),
        "[Gortex] graph tools are unavailable this session (gortex mcp spawn failed). Tell the user to run /reload to retry the connection."
    );
    assert_eq!(
        STILL_REGISTERING_TEXT,
        "[Gortex] graph tools were still registering when this turn began, so a tool named below may not be callable yet. If one is missing, say so and tell the user to retry, or to run /reload if it stays missing. Don't fall back to native tools."
    );
}

#[test]
fn own_client_down_then_warning_then_briefing() {
    let turn = FirstTurn {
        start_error: Some("initialize timed out after 60000ms"),
        ready: false,
        version_warning: Some(WARNING),
        orientation: Some(ORIENTATION),
        ..FirstTurn::default()
    };
    let message = first_turn_message(&turn).expect("message");
    assert_eq!(
        message.content,
        format!(
            "{}\n\n{WARNING}\n\n{ORIENTATION}",
            start_error_text("initialize timed out after 60000ms")
        ),
        "the start error replaces the still-registering text"
    );
    assert!(message.details.briefing);
    assert_eq!(
        serde_json::to_value(&message).expect("json"),
        json!({"customType":"gortex","content":message.content,"display":false,"details":{"briefing":true}})
    );
}

#[test]
fn not_ready_gets_the_still_registering_text() {
    let turn = FirstTurn {
        ready: false,
        orientation: Some(ORIENTATION),
        ..FirstTurn::default()
    };
    assert_eq!(
        first_turn_text(&turn).expect("text"),
        format!("{STILL_REGISTERING_TEXT}\n\n{ORIENTATION}")
    );
}

#[test]
fn ready_turn_is_just_the_briefing() {
    let turn = FirstTurn {
        ready: true,
        orientation: Some(ORIENTATION),
        ..FirstTurn::default()
    };
    let message = first_turn_message(&turn).expect("message");
    assert_eq!(message.content, ORIENTATION);
    assert!(message.details.briefing);
}

#[test]
fn briefing_already_in_context_is_not_repeated() {
    let turn = FirstTurn {
        ready: true,
        version_warning: Some(WARNING),
        orientation: Some(ORIENTATION),
        briefing_in_context: true,
        ..FirstTurn::default()
    };
    let message = first_turn_message(&turn).expect("message");
    assert_eq!(message.content, WARNING);
    assert!(
        !message.details.briefing,
        "briefing is false without the orientation"
    );
}

#[test]
fn no_parts_means_nothing() {
    let ready = FirstTurn {
        ready: true,
        orientation: Some(""),
        version_warning: Some(""),
        ..FirstTurn::default()
    };
    assert_eq!(first_turn_message(&ready), None);
}

#[test]
fn prompt_guidance_joins_after_the_orientation() {
    let guidance = "## Gortex — relevant indexed symbols for your request\n- foo";
    let turn = FirstTurn {
        ready: true,
        orientation: Some(ORIENTATION),
        prompt_context: Some(guidance),
        ..FirstTurn::default()
    };
    assert_eq!(
        first_turn_text(&turn).expect("text"),
        format!("{ORIENTATION}\n\n{guidance}")
    );
}
