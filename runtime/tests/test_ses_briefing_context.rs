//! SES-14 (briefing already in context after resume or reload) and SES-15
//! (the re-send after compaction).

use pi_gortex_runtime::extension::session::texts::{
    briefing_in_context, compaction_resend, HiddenMessage,
};
use serde_json::json;

#[test]
fn briefing_entry_is_recognized() {
    let entries = json!([
        {"type":"message","role":"user"},
        {"type":"custom_message","customType":"gortex","content":"## Gortex…","display":false,"details":{"briefing":true}}
    ]);
    assert!(briefing_in_context(&entries));
}

#[test]
fn near_misses_are_not_a_briefing() {
    for entry in [
        json!({"type":"custom_message","customType":"gortex","details":{"briefing":false}}),
        json!({"type":"custom_message","customType":"gortex","details":{"briefing":"true"}}),
        json!({"type":"custom_message","customType":"gortex"}),
        json!({"type":"custom_message","customType":"other","details":{"briefing":true}}),
        json!({"type":"custom","customType":"gortex","details":{"briefing":true}}),
    ] {
        assert!(!briefing_in_context(&json!([entry])), "{entry}");
    }
}

#[test]
fn pi_that_cannot_tell_means_no() {
    assert!(!briefing_in_context(&json!(null)));
    assert!(!briefing_in_context(&json!({"entries":[]})));
    assert!(!briefing_in_context(&json!([])));
}

#[test]
fn compaction_resends_the_cached_briefing_once() {
    assert_eq!(
        compaction_resend(true, Some("## Gortex Session Orientation"), false),
        Some(HiddenMessage::new(
            "## Gortex Session Orientation".into(),
            true
        ))
    );
}

#[test]
fn no_resend_without_compaction_briefing_or_when_present() {
    assert_eq!(compaction_resend(false, Some("b"), false), None);
    assert_eq!(compaction_resend(true, None, false), None);
    assert_eq!(compaction_resend(true, Some(""), false), None);
    assert_eq!(compaction_resend(true, Some("b"), true), None);
}
