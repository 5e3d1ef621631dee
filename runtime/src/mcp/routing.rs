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
    bytes: Kept,
    range: Range<usize>,
}

/// The frame (or the copied result) a response keeps: as text when the
/// whole of it was UTF-8, so its readers need not check that again.
#[derive(Debug, Clone)]
enum Kept {
    Text(String),
    Bytes(Vec<u8>),
}

impl RawResponse {
    /// The `result` JSON text (`null` when the response had none).
    pub fn json(&self) -> &[u8] {
        match &self.bytes {
            Kept::Text(text) => &text.as_bytes()[self.range.clone()],
            Kept::Bytes(bytes) => &bytes[self.range.clone()],
        }
    }

    /// The `result` JSON text when it is known to be UTF-8.
    pub fn json_str(&self) -> Option<&str> {
        match &self.bytes {
            Kept::Text(text) => text.get(self.range.clone()),
            Kept::Bytes(_) => None,
        }
    }

    /// Decodes `result` into `T`.
    pub fn decode<T: serde::de::DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        match self.json_str() {
            Some(text) => serde_json::from_str(text),
            None => serde_json::from_slice(self.json()),
        }
    }

    /// Wraps a complete JSON text (for tests and callers holding one).
    #[cfg(any(test, feature = "test-support"))]
    pub fn from_json(bytes: Vec<u8>) -> Self {
        let range = 0..bytes.len();
        Self {
            bytes: Kept::Bytes(bytes),
            range,
        }
    }

    /// Decodes `result` leniently: `Value::Null` when it does not parse.
    pub fn to_value(&self) -> serde_json::Value {
        self.decode().unwrap_or(serde_json::Value::Null)
    }

    fn null() -> Self {
        Self {
            bytes: Kept::Text("null".to_string()),
            range: 0..4,
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

/// Routes one frame. A frame that is UTF-8 throughout is checked once here
/// and parsed as text, so no reader of its result checks it again; any other
/// is parsed as bytes, which reads it as before (serde_json checks only the
/// members it returns).
pub fn route(frame: Frame<'_>) -> Routed {
    match frame {
        Frame::Owned(bytes) => {
            let kept = match String::from_utf8(bytes) {
                Ok(text) => Kept::Text(text),
                Err(error) => Kept::Bytes(error.into_bytes()),
            };
            let decision = match &kept {
                Kept::Text(text) => decide(text.as_bytes(), Envelope::parse_str(text)),
                Kept::Bytes(bytes) => decide(bytes, Envelope::parse(bytes)),
            };
            // A large frame is moved into its response, not copied.
            finish(decision, |range| (kept, range))
        }
        Frame::Borrowed(bytes) => match std::str::from_utf8(bytes) {
            Ok(text) => finish(decide(bytes, Envelope::parse_str(text)), |range| {
                let kept = text.get(range).unwrap_or("null").to_string();
                let range = 0..kept.len();
                (Kept::Text(kept), range)
            }),
            Err(_) => finish(decide(bytes, Envelope::parse(bytes)), |range| {
                let kept = bytes[range].to_vec();
                let range = 0..kept.len();
                (Kept::Bytes(kept), range)
            }),
        },
    }
}

/// A routing decision that borrows nothing from the frame.
enum Decision {
    Routed(Routed),
    /// A successful response, with the range of its `result` in the frame.
    Result {
        id: u64,
        range: Option<Range<usize>>,
    },
}

fn decide(frame: &[u8], envelope: Option<Envelope<'_>>) -> Decision {
    let Some(envelope) = envelope else {
        return Decision::Routed(Routed::Noise);
    };
    let routed = match envelope.classify() {
        Inbound::Response { id } => {
            if let Some(error) = envelope.error {
                Routed::Response {
                    id,
                    outcome: Err(envelope::error_message(error)),
                }
            } else {
                let base = frame.as_ptr() as usize;
                let range = envelope.result.map(|result| {
                    let start = result.get().as_ptr() as usize - base;
                    start..start + result.get().len()
                });
                return Decision::Result { id, range };
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
    };
    Decision::Routed(routed)
}

/// The routed frame; `keep` gives what a response keeps of the frame and
/// where its `result` lies in that.
fn finish(decision: Decision, keep: impl FnOnce(Range<usize>) -> (Kept, Range<usize>)) -> Routed {
    match decision {
        Decision::Routed(routed) => routed,
        Decision::Result { id, range } => {
            let raw = match range {
                None => RawResponse::null(),
                Some(range) => {
                    let (bytes, range) = keep(range);
                    RawResponse { bytes, range }
                }
            };
            Routed::Response {
                id,
                outcome: Ok(raw),
            }
        }
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
    fn a_frame_not_utf8_outside_its_result_still_routes_as_before() {
        // serde_json checks only the members it returns, so such a frame was
        // always a response; only a frame UTF-8 throughout is kept as text.
        let odd = b"{\"id\":4,\"x\":\"\xff\",\"result\":{\"a\":\"\xc3\xa9\"}}".to_vec();
        let clean = "{\"id\":4,\"result\":{\"a\":\"\u{e9}\"}}"
            .as_bytes()
            .to_vec();
        for (frame, text) in [(odd, false), (clean, true)] {
            for owned in [true, false] {
                let routed = if owned {
                    route(Frame::Owned(frame.clone()))
                } else {
                    route(Frame::Borrowed(&frame))
                };
                let Routed::Response {
                    id: 4,
                    outcome: Ok(raw),
                } = routed
                else {
                    panic!("a response: {routed:?}");
                };
                assert_eq!(raw.to_value(), serde_json::json!({"a": "\u{e9}"}));
                assert_eq!(raw.json_str().is_some(), text, "owned {owned}");
            }
        }
        // Bytes that are not UTF-8 inside the result still make it noise.
        let bad = b"{\"id\":4,\"result\":\"\xff\"}";
        assert!(matches!(route(Frame::Borrowed(bad)), Routed::Noise));
        assert!(matches!(route(Frame::Owned(bad.to_vec())), Routed::Noise));
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
        assert_eq!(
            raw.json().as_ptr(),
            address.wrapping_add("{\"id\":3,\"result\":".len())
        );
    }
}
