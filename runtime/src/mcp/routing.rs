//! What one inbound frame means for the client, as a pure function so the
//! hot path can be measured without processes.

use std::ops::Range;

use pi_gortex_schema::mcp::ProgressNotificationParams;

pub use super::call_result::RawResponse;
use super::call_result::{self, LazyResult, PreRead};
use super::envelope::{self, Envelope, Inbound};
use super::framing::Frame;
use super::response_scan;

/// The notification that triggers a re-sync.
pub const LIST_CHANGED: &str = "notifications/tools/list_changed";
/// The notification that reports a request's progress.
pub const PROGRESS: &str = "notifications/progress";

/// The routing decision for one frame.
#[derive(Debug)]
pub enum Routed {
    /// Not UTF-8, not JSON, or not an object: skipped and counted.
    Noise,
    /// A response to client request `id`: the result, or the error
    /// code and rejection text.
    Response {
        /// The numeric id.
        id: u64,
        /// `Ok(result)` or `Err((code, text))`.
        outcome: Result<RawResponse, (Option<i64>, String)>,
    },
    /// The frame to write back for a server request.
    Reply(Vec<u8>),
    /// `notifications/tools/list_changed`.
    ListChanged,
    /// `notifications/progress` with well-formed params.
    Progress(ProgressNotificationParams),
    /// A valid object that asks nothing of the client.
    Ignored,
}

/// Routes one frame, in one pass over it: a response's `result` is read
/// as a tool call result as it goes (any result: the router cannot tell a
/// call's from another's, and reading one that is not a call costs no
/// more than skipping it). The common response, text blocks alone, is read
/// by the one-scan reader; every frame it declines, by serde_json.
pub fn route(frame: Frame<'_>) -> Routed {
    let decision = match response_scan::scan_response(frame.bytes()) {
        Some(scanned) => Decision::Result {
            id: scanned.id,
            found: Some((scanned.result, Some(scanned.read))),
        },
        None => decide(frame.bytes()),
    };
    settle(frame, decision)
}

/// [`route`] by the serde reader alone, which decides every frame the
/// one-scan reader declines: the reference the one-scan reader is checked
/// against.
#[cfg(any(test, feature = "test-support"))]
pub fn route_by_serde(frame: Frame<'_>) -> Routed {
    let decision = decide(frame.bytes());
    settle(frame, decision)
}

/// How [`route`] and [`route_by_serde`] differ on `frame`, a response read
/// as a tool call result included; `None` when they agree.
#[cfg(any(test, feature = "test-support"))]
pub fn scan_differs(frame: &[u8]) -> Option<String> {
    use super::call_result::take_call_result;
    let (a, b) = (
        route(Frame::Borrowed(frame)),
        route_by_serde(Frame::Borrowed(frame)),
    );
    match (a, b) {
        (
            Routed::Response {
                id: a_id,
                outcome: Ok(mut a),
            },
            Routed::Response {
                id: b_id,
                outcome: Ok(mut b),
            },
        ) => {
            if a_id != b_id || a.json() != b.json() {
                return Some(format!("id {a_id} / {b_id}, or the result's place"));
            }
            let (a, b) = (take_call_result(&mut a), take_call_result(&mut b));
            (a != b).then(|| format!("{a:?}\n{b:?}"))
        }
        (
            Routed::Response {
                id: a_id,
                outcome: Err(a),
            },
            Routed::Response {
                id: b_id,
                outcome: Err(b),
            },
        ) if a_id == b_id && a == b => None,
        (Routed::Reply(a), Routed::Reply(b)) if a == b => None,
        (Routed::Progress(a), Routed::Progress(b)) if a == b => None,
        (Routed::Noise, Routed::Noise)
        | (Routed::Ignored, Routed::Ignored)
        | (Routed::ListChanged, Routed::ListChanged) => None,
        (a, b) => Some(format!("{a:?}\n{b:?}")),
    }
}

fn settle(frame: Frame<'_>, decision: Decision) -> Routed {
    match decision {
        Decision::Routed(routed) => routed,
        Decision::Result { id, found: None } => Routed::Response {
            id,
            outcome: Ok(RawResponse::null()),
        },
        Decision::Result {
            id,
            found: Some((range, read)),
        } => {
            let (bytes, range) = match frame {
                // A large frame is moved into its response, not copied.
                Frame::Owned(bytes) => (bytes, range),
                Frame::Borrowed(bytes) => (bytes[range.clone()].to_vec(), 0..range.len()),
            };
            Routed::Response {
                id,
                outcome: Ok(RawResponse::new(bytes, range, read)),
            }
        }
    }
}

/// A routing decision that borrows nothing from the frame.
enum Decision {
    Routed(Routed),
    /// A successful response, with the range of its `result` in the frame
    /// and what was read of it.
    Result {
        id: u64,
        found: Option<(Range<usize>, Option<PreRead>)>,
    },
}

fn decide(frame: &[u8]) -> Decision {
    let Some(envelope) = Envelope::<LazyResult<'_>>::read(frame) else {
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
                let Some(lazy) = envelope.result else {
                    return Decision::Result { id, found: None };
                };
                return match result_range(frame, envelope.result_range, &lazy) {
                    Some(range) => {
                        let read = call_result::pre_read(&lazy, frame[range.start..].as_ptr());
                        Decision::Result {
                            id,
                            found: Some((range, read)),
                        }
                    }
                    None => Decision::Routed(Routed::Noise),
                };
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

/// Where `result` lies in the frame, `None` when it is not UTF-8 throughout
/// (noise, as a result read whole would be). serde_json checked the text
/// literals it lent, so only the bytes around them are checked here.
fn result_range(
    frame: &[u8],
    found: Option<Range<usize>>,
    lazy: &LazyResult<'_>,
) -> Option<Range<usize>> {
    let range = match found {
        Some(range) => range,
        // A member name next to `result` written with escapes: find it the
        // slow way, as a raw value (which checks it whole).
        None => {
            let raw = Envelope::parse(frame)?.result?.get();
            let start = (raw.as_ptr() as usize).checked_sub(frame.as_ptr() as usize)?;
            return Some(start..start + raw.len()).filter(|range| range.end <= frame.len());
        }
    };
    let json = frame.get(range.clone())?;
    let mut checked = 0;
    for literal in call_result::text_literals(lazy, json.as_ptr()) {
        std::str::from_utf8(json.get(checked..literal.start)?).ok()?;
        checked = literal.end;
    }
    std::str::from_utf8(json.get(checked..)?).ok()?;
    Some(range)
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
        // always a response.
        let odd = b"{\"id\":4,\"x\":\"\xff\",\"result\":{\"a\":\"\xc3\xa9\"}}".to_vec();
        let clean = "{\"id\":4,\"result\":{\"a\":\"\u{e9}\"}}"
            .as_bytes()
            .to_vec();
        for frame in [odd, clean] {
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
                assert_eq!(
                    raw.to_value(),
                    serde_json::json!({"a": "\u{e9}"}),
                    "owned {owned}"
                );
            }
        }
        // Bytes that are not UTF-8 anywhere inside the result, read or not,
        // still make it noise.
        for bad in [
            &b"{\"id\":4,\"result\":\"\xff\"}"[..],
            b"{\"id\":4,\"result\":{\"x\":\"\xff\"}}",
            b"{\"id\":4,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"\xff\"}]}}",
            b"{\"id\":4,\"result\":{\"content\":[{\"text\":\"a\"},{\"z\":\"\xff\"}]}}",
            b"{\"id\":4,\"result\":{\"content\":[{\"text\":\"a\"}],\"z\":[\"\xff\"]},\"jsonrpc\":\"2.0\"}",
        ] {
            assert!(matches!(route(Frame::Borrowed(bad)), Routed::Noise));
            assert!(matches!(route(Frame::Owned(bad.to_vec())), Routed::Noise));
        }
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

    #[test]
    fn the_result_found_in_one_pass_is_the_raw_result() {
        // Whatever the spacing and order of members, and with names written
        // with escapes (found by a second, raw pass), the range is exactly
        // the raw `result` text.
        let frames = [
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#,
            r#" { "id" : 1 , "result" :  {"a":[1,{"b":"}"}]}  ,  "jsonrpc" : "2.0" }  "#,
            r#"{"result":"x\"}","id":1}"#,
            r#"{"id":1,"result":[1,2] ,"x":{}}"#,
            r#"{"id":1,"result":12.5e3}"#,
            "{\"id\":1,\n\"result\":\ttrue\r\n}\r",
            r#"{"id":1,"res\u0075lt":{"k":"v"}}"#,
            r#"{"id":1,"result":{"k":"v"},"\u006aa":1}"#,
            r#"{"id":1,"result":{"content":[{"type":"text","text":"a\u00e9"}]},"error":null}"#,
        ];
        for frame in frames {
            let raw = Envelope::parse(frame.as_bytes()).unwrap().result.unwrap();
            let Routed::Response {
                id: 1,
                outcome: Ok(routed),
            } = route(Frame::Borrowed(frame.as_bytes()))
            else {
                panic!("a response: {frame}");
            };
            assert_eq!(routed.json(), raw.get().as_bytes(), "{frame}");
        }
    }

    #[test]
    fn a_null_or_absent_result_reads_as_null() {
        for frame in [r#"{"id":2,"result":null}"#, r#"{"id":2}"#] {
            let Routed::Response {
                outcome: Ok(raw), ..
            } = route(Frame::Borrowed(frame.as_bytes()))
            else {
                panic!("a response: {frame}");
            };
            assert_eq!(raw.json(), b"null");
        }
    }

    #[test]
    fn a_repeated_routing_member_is_noise() {
        for frame in [
            r#"{"id":1,"id":2,"result":{}}"#,
            r#"{"id":1,"result":{},"result":{}}"#,
            r#"{"id":1,"result":{},"error":{},"error":{}}"#,
        ] {
            assert!(
                matches!(route(Frame::Borrowed(frame.as_bytes())), Routed::Noise),
                "{frame}"
            );
        }
    }
}
