//! The open `ContentBlock` union dispatches on the `type` tag alone: a known tag always parses
//! as its own variant (or fails), and only an unknown tag becomes `UnknownContentBlock`.

use pi_gortex_schema::mcp::ContentBlock;
use serde_json::json;

fn parse(value: serde_json::Value) -> Result<ContentBlock, serde_json::Error> {
    serde_json::from_value(value)
}

#[test]
fn text_tag_parses_as_text_content() {
    let block = parse(json!({"type": "text", "text": "hello"})).unwrap();
    assert!(matches!(block, ContentBlock::TextContent(ref t) if t.text == "hello"));
}

#[test]
fn unknown_tag_parses_as_unknown_block_and_keeps_its_members() {
    let value = json!({"type": "widget", "payload": {"x": 1}});
    let block = parse(value.clone()).unwrap();
    match &block {
        ContentBlock::UnknownContentBlock(unknown) => assert_eq!(unknown.type_, "widget"),
        other => panic!("expected the unknown variant, got {other:?}"),
    }
    assert_eq!(serde_json::to_value(&block).unwrap(), value);
}

#[test]
fn known_tag_with_missing_members_is_an_error_not_an_unknown_block() {
    assert!(parse(json!({"type": "image", "mimeType": "image/png"})).is_err());
    assert!(parse(json!({"type": "text"})).is_err());
}

#[test]
fn block_without_a_string_tag_is_an_error() {
    assert!(parse(json!({"text": "x"})).is_err());
    assert!(parse(json!({"type": 1, "text": "x"})).is_err());
}

#[test]
fn each_known_tag_selects_its_variant() {
    let cases = [
        (
            json!({"type": "image", "data": "", "mimeType": "image/png"}),
            "image",
        ),
        (
            json!({"type": "audio", "data": "", "mimeType": "audio/wav"}),
            "audio",
        ),
        (
            json!({"type": "resource_link", "uri": "file:///a", "name": "a"}),
            "resource_link",
        ),
        (
            json!({"type": "resource", "resource": {"uri": "file:///a", "text": ""}}),
            "resource",
        ),
    ];
    for (value, tag) in cases {
        let variant = match parse(value).unwrap() {
            ContentBlock::ImageContent(_) => "image",
            ContentBlock::AudioContent(_) => "audio",
            ContentBlock::ResourceLink(_) => "resource_link",
            ContentBlock::EmbeddedResource(_) => "resource",
            ContentBlock::TextContent(_) => "text",
            ContentBlock::UnknownContentBlock(_) => "unknown",
        };
        assert_eq!(variant, tag);
    }
}

#[test]
fn hook_mode_knows_its_documented_values_and_accepts_others() {
    use pi_gortex_schema::hook::HookMode;
    let known: HookMode = serde_json::from_value(json!("consult-unlock")).unwrap();
    assert!(known.is_known());
    let other: HookMode = serde_json::from_value(json!("ENRICH-ish")).unwrap();
    assert!(!other.is_known());
    assert_eq!(HookMode::KNOWN.len(), 5);
}

#[test]
fn validate_reports_the_file_pointer_of_the_failing_keyword() {
    let errors = pi_gortex_schema::validate("HookDecision", &json!({"block": "yes"})).unwrap_err();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].instance_pointer, "/block");
    assert_eq!(
        errors[0].schema_pointer,
        "/$defs/HookDecision/properties/block/type"
    );
    assert!(
        pi_gortex_schema::validate("HookDecision", &json!({"block": true, "reason": "x"})).is_ok()
    );
}

#[test]
fn validate_names_an_unknown_type() {
    let errors = pi_gortex_schema::validate("NoSuchType", &json!({})).unwrap_err();
    assert!(errors[0].message.contains("NoSuchType"));
}
