//! MCP frame decoding (MCP-8..11, MCP-18, MCP-25, MCP-27, TOOL-2..4).
//!
//! The input is one inbound chunk. It goes through the framing decoder and
//! every frame through the hot-path envelope router; the generated schema
//! types (`pi_gortex_schema::mcp`) decode the same frame, and the two must
//! agree: a frame the schema accepts as a JSON-RPC message is routed as the
//! matching kind. The replies the client writes to server requests must be
//! one JSON line echoing the id. Result bodies go through the readers the
//! client uses (handshake, result text, the tool catalogue), and the router's
//! one-scan reader must route each frame as the serde reader does.

use pi_gortex_runtime::catalogue::{self, CatalogueState};
use pi_gortex_runtime::mcp::envelope::{self, Envelope, Inbound};
use pi_gortex_runtime::mcp::framing::FrameDecoder;
use pi_gortex_runtime::mcp::handshake::read_handshake;
use pi_gortex_runtime::mcp::routing;
use pi_gortex_runtime::mcp::tools::{is_error, model_text, result_text};
use pi_gortex_runtime::version::skew_warning;
use pi_gortex_schema::mcp::{
    CallToolResult, InitializeResult, JsonRpcMessage, ListToolsResult, RequestId,
};
use serde_json::Value;

/// A reply frame must be exactly one JSON object line whose `id` equals the
/// request's raw id.
fn check_reply(frame: &[u8], raw_id: &str) {
    let (last, body) = frame.split_last().expect("a reply is never empty");
    assert_eq!(*last, b'\n', "a reply ends with a newline");
    assert!(!body.contains(&b'\n'), "a reply is one line");
    let reply: Value = serde_json::from_slice(body).expect("a reply is JSON");
    let id: Value = serde_json::from_str(raw_id).expect("a raw id is JSON");
    assert_eq!(reply.get("id"), Some(&id), "the reply echoes the id");
}

/// The schema's verdict must match the router's (skipped for non-objects:
/// serde may read a struct from an array, the router rightly does not).
fn check_agreement(frame: &[u8], inbound: Option<&Inbound<'_>>) {
    let first = frame.iter().find(|byte| !byte.is_ascii_whitespace());
    if first != Some(&b'{') {
        return;
    }
    let Ok(message) = serde_json::from_slice::<JsonRpcMessage>(frame) else {
        return;
    };
    let inbound = inbound.expect("a schema-valid message is routed");
    match (message, inbound) {
        (JsonRpcMessage::Request(request), Inbound::ServerRequest { method, .. }) => {
            assert_eq!(&request.method, method);
        }
        (JsonRpcMessage::Notification(note), Inbound::Notification { method }) => {
            assert_eq!(&note.method, method);
        }
        (JsonRpcMessage::ResultResponse(response), routed) => {
            check_response_id(Some(&response.id), routed)
        }
        (JsonRpcMessage::ErrorResponse(response), routed) => {
            check_response_id(response.id.as_ref(), routed)
        }
        (message, routed) => panic!("schema says {message:?}, router says {routed:?}"),
    }
}

/// A response with a positive integer id settles that id; any other id
/// (string, null, negative) cannot be one of ours.
fn check_response_id(id: Option<&RequestId>, routed: &Inbound<'_>) {
    match (id, routed) {
        (Some(RequestId::Integer(n)), Inbound::Response { id }) => {
            assert_eq!(u64::try_from(*n).ok(), Some(*id))
        }
        (Some(RequestId::Integer(n)), Inbound::Other) => {
            assert!(*n < 0, "integer id {n} must route as a response")
        }
        (_, Inbound::Other) => {}
        (id, routed) => panic!("response id {id:?} routed as {routed:?}"),
    }
}

/// Reads a result body the way each consumer does; none may panic.
fn read_result(raw: &str) {
    let info = read_handshake(raw.as_bytes());
    let _ = skew_warning(&info.server_version, &info.protocol);
    let _ = serde_json::from_str::<InitializeResult>(raw);
    let _ = serde_json::from_str::<CallToolResult>(raw);
    let _ = serde_json::from_str::<ListToolsResult>(raw);
    let Ok(value) = serde_json::from_str::<Value>(raw) else {
        return;
    };
    let _ = (result_text(&value), model_text(&value), is_error(&value));
    if let Some(Value::Array(tools)) = value.get("tools") {
        let (changes, state) = catalogue::plan(tools, &CatalogueState::new());
        for name in state.registered() {
            assert!(!name.is_empty(), "a registered name is never empty");
        }
        let _ = changes.apply_to_active(&["read".to_string()]);
    }
}

/// Decodes one chunk of daemon output (see the module doc).
pub fn run(data: &[u8]) {
    let mut decoder = FrameDecoder::default();
    let mut frames = Vec::new();
    if decoder
        .push(data, |frame| frames.push(frame.into_owned()))
        .is_err()
    {
        return;
    }
    for frame in &frames {
        // The one-scan reader of the common response agrees with the serde
        // reader on every frame.
        if let Some(difference) = routing::scan_differs(frame) {
            panic!("the one-scan reader differs: {difference}");
        }
        let envelope = Envelope::parse(frame);
        let inbound = envelope.as_ref().map(Envelope::classify);
        check_agreement(frame, inbound.as_ref());
        let Some(envelope) = envelope else {
            continue;
        };
        match inbound.expect("parsed") {
            Inbound::ServerRequest { id, .. } => {
                check_reply(&envelope::ping_reply_frame(id), id);
                check_reply(&envelope::method_not_found_frame(id), id);
            }
            Inbound::Response { .. } => {
                if let Some(result) = envelope.result {
                    read_result(result.get());
                }
                if let Some(error) = envelope.error {
                    let (_, text) = envelope::error_message(error);
                    assert!(!text.is_empty(), "a rejection always has a text");
                }
            }
            Inbound::Notification { .. } | Inbound::Other => {}
        }
    }
}
