//! What one inbound frame means for the client (MCP-8..MCP-11), as a pure
//! function so the hot path can be measured without processes.

use std::ops::Range;

use pi_gortex_schema::mcp::ProgressNotificationParams;

use super::envelope::{self, Envelope, Inbound};
use super::framing::Frame;

/// The notification that triggers a re-sync (MCP-10).
pub const LIST_CHANGED: &str = "notifications/tools/list_changed";
/// The notification that reports a request's progress (MCP-34).
pub const PROGRESS: &str = "notifications/progress";

/// A successful response's `result`, kept as the bytes it arrived in.
/// A large frame is moved here without a copy; decoding is up to the caller.
#[derive(Debug, Clone)]
pub struct RawResponse {
    bytes: Vec<u8>,
    range: Range<usize>,
}

impl RawResponse {
    /// The `result` JSON text (`null` when the response had none).
    pub fn json(&self) -> &[u8] {
        &self.bytes[self.range.clone()]
    }

    /// Decodes `result` into `T`.
    pub fn decode<T: serde::de::DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_slice(self.json())
    }

    /// Wraps a complete JSON text (for tests and callers holding one).
    #[cfg(any(test, feature = "test-support"))]
    pub fn from_json(bytes: Vec<u8>) -> Self {
        let range = 0..bytes.len();
        Self { bytes, range }
    }

    /// Decodes `result` leniently: `Value::Null` when it does not parse.
    pub fn to_value(&self) -> serde_json::Value {
        self.decode().unwrap_or(serde_json::Value::Null)
    }

    fn null() -> Self {
        Self {
            bytes: b"null".to_vec(),
            range: 0..4,
        }
    }

    /// Keeps the frame (moved when owned, the result copied when borrowed).
    fn from_frame(frame: Frame<'_>, range: Range<usize>) -> Self {
        match frame {
            Frame::Owned(bytes) => Self { bytes, range },
            Frame::Borrowed(bytes) => {
                let bytes = bytes[range].to_vec();
                let range = 0..bytes.len();
                Self { bytes, range }
            }
        }
    }
}

impl PartialEq for RawResponse {
    fn eq(&self, other: &Self) -> bool {
        self.json() == other.json()
    }
}

/// The routing decision for one frame.
#[derive(Debug)]
pub enum Routed {
    /// Not UTF-8, not JSON, or not an object: skipped and counted (MCP-6).
    Noise,
    /// A response to client request `id` (MCP-9): the result, or the error
    /// code and rejection text.
    Response {
        /// The numeric id.
        id: u64,
        /// `Ok(result)` or `Err((code, text))`.
        outcome: Result<RawResponse, (Option<i64>, String)>,
    },
    /// The frame to write back for a server request (MCP-11).
    Reply(Vec<u8>),
    /// `notifications/tools/list_changed` (MCP-10).
    ListChanged,
    /// `notifications/progress` with well-formed params (MCP-34).
    Progress(ProgressNotificationParams),
    /// A valid object that asks nothing of the client.
    Ignored,
}

/// Routes one frame.
pub fn route(frame: Frame<'_>) -> Routed {
    let Some(envelope) = Envelope::parse(frame.bytes()) else {
        return Routed::Noise;
    };
    match envelope.classify() {
        Inbound::Response { id } => {
            if let Some(error) = envelope.error {
                return Routed::Response {
                    id,
                    outcome: Err(envelope::error_message(error)),
                };
            }
            let base = frame.bytes().as_ptr() as usize;
            let range = envelope.result.map(|result| {
                let start = result.get().as_ptr() as usize - base;
                start..start + result.get().len()
            });
            let raw = match range {
                None => RawResponse::null(),
                Some(range) => RawResponse::from_frame(frame, range),
            };
            Routed::Response {
                id,
                outcome: Ok(raw),
            }
        }
        Inbound::ServerRequest { id, method } => Routed::Reply(if method == "ping" {
            envelope::ping_reply_frame(id)
        } else {
            envelope::method_not_found_frame(id)
        }),
        Inbound::Notification { method } if method == LIST_CHANGED => Routed::ListChanged,
        Inbound::Notification { method } if method == PROGRESS => envelope
            .params
            .and_then(|params| serde_json::from_str(params.get()).ok())
            .map_or(Routed::Ignored, Routed::Progress),
        Inbound::Notification { .. } | Inbound::Other => Routed::Ignored,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_ping_is_answered_and_any_other_request_is_method_not_found() {
        let reply = |frame: &[u8]| match route(Frame::Borrowed(frame)) {
            Routed::Reply(bytes) => String::from_utf8(bytes).unwrap(),
            other => panic!("a reply, got {other:?}"),
        };
        assert_eq!(
            reply(br#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#),
            "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}\n"
        );
        assert!(reply(br#"{"jsonrpc":"2.0","id":6,"method":"roots/list"}"#).contains("-32601"));
    }

    #[test]
    fn only_tools_list_changed_is_a_list_change() {
        let changed = br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#;
        assert!(matches!(
            route(Frame::Borrowed(changed)),
            Routed::ListChanged
        ));
        let other = br#"{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}"#;
        assert!(matches!(route(Frame::Borrowed(other)), Routed::Ignored));
    }

    #[test]
    fn a_raw_response_decodes_leniently_and_compares_by_its_json() {
        let response = RawResponse::from_json(br#"{"a":[1,2]}"#.to_vec());
        assert_eq!(response.to_value(), serde_json::json!({"a": [1, 2]}));
        assert_eq!(
            RawResponse::from_json(b"not json".to_vec()).to_value(),
            serde_json::Value::Null
        );
        assert_eq!(response, RawResponse::from_json(br#"{"a":[1,2]}"#.to_vec()));
        assert_ne!(response, RawResponse::from_json(br#"{"a":[2,1]}"#.to_vec()));
    }

    #[test]
    fn a_borrowed_response_keeps_only_its_result() {
        let frame = br#"{"jsonrpc":"2.0","id":7,"result":{"a":[1,2]}}"#;
        let Routed::Response { id, outcome } = route(Frame::Borrowed(frame)) else {
            panic!("a response");
        };
        assert_eq!(id, 7);
        assert_eq!(outcome.unwrap().json(), br#"{"a":[1,2]}"#);
    }

    #[test]
    fn an_owned_response_is_moved_not_copied() {
        let frame = br#"{"id":3,"result":"x","jsonrpc":"2.0"}"#.to_vec();
        let address = frame.as_ptr();
        let Routed::Response { outcome, .. } = route(Frame::Owned(frame)) else {
            panic!("a response");
        };
        let raw = outcome.unwrap();
        assert_eq!(raw.json(), b"\"x\"");
        assert_eq!(raw.bytes.as_ptr(), address);
    }
}
