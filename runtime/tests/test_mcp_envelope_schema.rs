//! MCP-8 and the schema: the narrow hot-path envelope and the generated
//! `JsonRpcMessage` agree on every example frame of the schema crate and on
//! every frame the client itself writes, and all of them validate.

use pi_gortex_runtime::mcp::envelope::{self, Envelope, Inbound};
use pi_gortex_runtime::mcp::handshake::initialize_params;
use pi_gortex_schema::mcp::{JsonRpcMessage, RequestId};
use serde_json::Value;

fn example_frames(validity: &str) -> Vec<(String, Vec<u8>)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../schema/examples/JsonRpcMessage")
        .join(validity);
    let mut frames: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .map(|path| {
            let bytes = std::fs::read(&path).unwrap();
            // One frame per line on the wire: compact it.
            let value: Value = serde_json::from_slice(&bytes).unwrap();
            (
                path.display().to_string(),
                serde_json::to_vec(&value).unwrap(),
            )
        })
        .collect();
    frames.sort();
    frames
}

/// What the generated type says the frame is, in the envelope's terms.
fn generated_kind(message: &JsonRpcMessage) -> String {
    let response = |id: &Option<RequestId>| match id {
        Some(RequestId::Integer(id)) if *id >= 0 => format!("Response {{ id: {id} }}"),
        _ => "Other".to_string(),
    };
    match message {
        JsonRpcMessage::Request(request) => {
            format!("ServerRequest {{ method: {:?} }}", request.method)
        }
        JsonRpcMessage::Notification(note) => {
            format!("Notification {{ method: {:?} }}", note.method)
        }
        JsonRpcMessage::ResultResponse(ok) => response(&Some(ok.id.clone())),
        JsonRpcMessage::ErrorResponse(error) => response(&error.id),
    }
}

fn envelope_kind(frame: &[u8]) -> String {
    let envelope = Envelope::parse(frame).expect("an object frame");
    match envelope.classify() {
        Inbound::ServerRequest { method, .. } => format!("ServerRequest {{ method: {method:?} }}"),
        Inbound::Notification { method } => format!("Notification {{ method: {method:?} }}"),
        Inbound::Response { id } => format!("Response {{ id: {id} }}"),
        Inbound::Other => "Other".to_string(),
    }
}

#[test]
fn mcp_8_envelope_and_generated_message_agree_on_every_schema_example() {
    let frames = example_frames("valid");
    assert!(frames.len() >= 10, "examples found: {}", frames.len());
    for (name, frame) in frames {
        let value: Value = serde_json::from_slice(&frame).unwrap();
        pi_gortex_schema::validate("JsonRpcMessage", &value)
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let message: JsonRpcMessage = serde_json::from_slice(&frame)
            .unwrap_or_else(|e| panic!("{name}: generated type rejects it: {e}"));
        assert_eq!(envelope_kind(&frame), generated_kind(&message), "{name}");
        // The raw bodies the envelope keeps are the generated type's bodies.
        let envelope = Envelope::parse(&frame).unwrap();
        let raw = |body: Option<&serde_json::value::RawValue>| {
            body.map(|raw| serde_json::from_str::<Value>(raw.get()).unwrap())
        };
        match &message {
            JsonRpcMessage::ResultResponse(ok) => {
                assert_eq!(
                    raw(envelope.result),
                    Some(Value::Object(ok.result.clone())),
                    "{name}"
                )
            }
            JsonRpcMessage::Request(request) => {
                assert_eq!(
                    raw(envelope.params),
                    request.params.clone().map(Value::Object),
                    "{name}"
                )
            }
            JsonRpcMessage::Notification(note) => {
                assert_eq!(
                    raw(envelope.params),
                    note.params.clone().map(Value::Object),
                    "{name}"
                )
            }
            JsonRpcMessage::ErrorResponse(error) => {
                let (code, text) = envelope::error_message(envelope.error.unwrap());
                assert_eq!(code, Some(error.error.code), "{name}");
                assert_eq!(text, error.error.message, "{name}");
            }
        }
    }
}

#[test]
fn mcp_8_schema_invalid_examples_are_still_routed_safely() {
    // The envelope is deliberately more lenient than the schema (MCP-6 only
    // skips non-objects); an invalid example must never panic or be a response
    // the generated type would call a request.
    for (name, frame) in example_frames("invalid") {
        let value: Value = serde_json::from_slice(&frame).unwrap();
        assert!(
            pi_gortex_schema::validate("JsonRpcMessage", &value).is_err(),
            "{name}"
        );
        let _ = Envelope::parse(&frame).map(|envelope| envelope.classify());
    }
}

#[test]
fn every_frame_the_client_writes_validates_as_a_json_rpc_message() {
    let empty = serde_json::value::RawValue::from_string("{}".into()).unwrap();
    let cancelled =
        serde_json::value::to_raw_value(&pi_gortex_schema::mcp::CancelledNotificationParams {
            request_id: RequestId::Integer(7),
            reason: Some("aborted by the user".into()),
            extra: Default::default(),
        })
        .unwrap();
    let frames = [
        envelope::request_frame(1, "initialize", &initialize_params()),
        envelope::request_frame(2, "tools/list", &empty),
        envelope::notification_frame("notifications/initialized", &empty),
        envelope::notification_frame("notifications/cancelled", &cancelled),
        envelope::ping_reply_frame("\"srv-1\""),
        envelope::method_not_found_frame("42"),
    ];
    for frame in frames {
        assert_eq!(frame.last(), Some(&b'\n'));
        let line = &frame[..frame.len() - 1];
        assert!(!line.contains(&b'\n'));
        let value: Value = serde_json::from_slice(line).unwrap();
        pi_gortex_schema::validate("JsonRpcMessage", &value)
            .unwrap_or_else(|e| panic!("{value}: {e:?}"));
        let _: JsonRpcMessage = serde_json::from_value(value).unwrap();
    }
    let init: Value = serde_json::from_str(initialize_params().get()).unwrap();
    pi_gortex_schema::validate("InitializeRequestParams", &init).unwrap();
}
