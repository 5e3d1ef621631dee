//! The narrow JSON-RPC envelope read on the hot path.
//!
//! Only `id`, `method`, `params`, `result` and `error` are looked at to route
//! a frame; bodies stay borrowed and are decoded into the generated schema
//! types only by whoever needs them. `result` is read as any `R`: a
//! [`RawValue`], or a reader that takes what it needs of a large result in
//! the same pass, so a 16 MiB tool result is scanned once. Either way the
//! place of `result` in the frame is known, from the members around it.

use std::fmt;
use std::marker::PhantomData;
use std::ops::Range;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

/// The routing-relevant members of one inbound JSON-RPC object.
#[derive(Debug)]
pub struct Envelope<'a, R = &'a RawValue> {
    /// `id`, verbatim (number, string or null).
    pub id: Option<&'a RawValue>,
    /// `method`, verbatim (a string for requests and notifications).
    pub method: Option<&'a RawValue>,
    /// `params` of a request or notification.
    pub params: Option<&'a RawValue>,
    /// `result` of a response, as read by `R`; `None` when absent or null.
    pub result: Option<R>,
    /// Where `result`'s JSON text lies in the frame, when present and
    /// found in the same pass (always, unless a member name next to it is
    /// written with escapes).
    pub result_range: Option<Range<usize>>,
    /// `error` of a response.
    pub error: Option<&'a RawValue>,
}

/// What an inbound object is.
#[derive(Debug, PartialEq, Eq)]
pub enum Inbound<'a> {
    /// A string `method` and an `id`: the server asks something of us.
    ServerRequest {
        /// The id to echo, verbatim.
        id: &'a str,
        /// The method name.
        method: String,
    },
    /// A string `method` and no `id`.
    Notification {
        /// The method name.
        method: String,
    },
    /// No string `method`, and an integer `id` we may have issued.
    Response {
        /// The numeric id.
        id: u64,
    },
    /// Anything else that is still a JSON object: ignored.
    Other,
}

impl<'a> Envelope<'a> {
    /// Parses one frame. `None` means noise: not UTF-8, not JSON, or not an object.
    pub fn parse(frame: &'a [u8]) -> Option<Self> {
        Self::read(frame)
    }
}

impl<'a, R: Deserialize<'a>> Envelope<'a, R> {
    /// [`Envelope::parse`] with `result` read as `R`, in the same pass.
    pub fn read(frame: &'a [u8]) -> Option<Self> {
        let mut deserializer = serde_json::Deserializer::from_slice(frame);
        let envelope = deserializer
            .deserialize_map(EnvelopeVisitor {
                frame,
                result: PhantomData,
            })
            .ok()?;
        deserializer.end().ok()?;
        Some(envelope)
    }
}

impl<'a, R> Envelope<'a, R> {
    /// Classifies the object by `method` first, so a server request is never
    /// mistaken for a response that shares its id.
    pub fn classify(&self) -> Inbound<'a> {
        let method = self
            .method
            .and_then(|raw| serde_json::from_str::<String>(raw.get()).ok());
        match (method, self.id) {
            (Some(method), Some(id)) => Inbound::ServerRequest {
                id: id.get(),
                method,
            },
            (Some(method), None) => Inbound::Notification { method },
            (None, Some(id)) => match id.get().parse::<u64>() {
                Ok(id) => Inbound::Response { id },
                Err(_) => Inbound::Other,
            },
            (None, None) => Inbound::Other,
        }
    }
}

/// The members the envelope reads; any other is skipped.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Member {
    Id,
    Method,
    Params,
    Result,
    Error,
    Other,
}

impl Member {
    fn of(name: &str) -> Self {
        match name {
            "id" => Self::Id,
            "method" => Self::Method,
            "params" => Self::Params,
            "result" => Self::Result,
            "error" => Self::Error,
            _ => Self::Other,
        }
    }
}

/// A member name, and its offset in the frame when serde lent it from there
/// (a name without escapes).
struct Name {
    member: Member,
    at: Option<(usize, usize)>,
}

struct NameSeed<'a> {
    frame: &'a [u8],
}

impl<'de> DeserializeSeed<'de> for NameSeed<'de> {
    type Value = Name;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Name, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for NameSeed<'de> {
    type Value = Name;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a member name")
    }

    fn visit_borrowed_str<E>(self, name: &'de str) -> Result<Name, E> {
        let at = (name.as_ptr() as usize)
            .checked_sub(self.frame.as_ptr() as usize)
            .filter(|start| start + name.len() <= self.frame.len())
            .map(|start| (start, start + name.len()));
        Ok(Name {
            member: Member::of(name),
            at,
        })
    }

    fn visit_str<E>(self, name: &str) -> Result<Name, E> {
        Ok(Name {
            member: Member::of(name),
            at: None,
        })
    }
}

struct EnvelopeVisitor<'a, R> {
    frame: &'a [u8],
    result: PhantomData<R>,
}

fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r')
}

/// The first offset from `at` on that is not JSON whitespace.
fn skip_space(frame: &[u8], mut at: usize) -> usize {
    while frame.get(at).is_some_and(|byte| is_space(*byte)) {
        at += 1;
    }
    at
}

/// The offset just after the last non-whitespace byte before `end`.
fn trim_space_back(frame: &[u8], mut end: usize) -> usize {
    while end > 0 && is_space(frame[end - 1]) {
        end -= 1;
    }
    end
}

/// Where the value after the name ending at `name_end` starts: past the
/// closing quote, whitespace, the colon and whitespace.
fn value_start(frame: &[u8], name_end: usize) -> Option<usize> {
    let colon = skip_space(frame, name_end + 1);
    (frame.get(colon) == Some(&b':')).then(|| skip_space(frame, colon + 1))
}

/// Where a value ends that a separator `sep` (`,` before the next name's
/// quote at `next`, or the object's closing `}`) follows.
fn value_end(frame: &[u8], sep_at: usize, sep: u8) -> Option<usize> {
    (frame.get(sep_at) == Some(&sep)).then(|| trim_space_back(frame, sep_at))
}

impl<'de, R: Deserialize<'de>> Visitor<'de> for EnvelopeVisitor<'de, R> {
    type Value = Envelope<'de, R>;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a JSON-RPC object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let frame = self.frame;
        let mut envelope = Envelope {
            id: None,
            method: None,
            params: None,
            result: None,
            result_range: None,
            error: None,
        };
        let mut seen = [false; 5];
        // The start of `result`'s value while its end is still to be found.
        let mut open: Option<Option<usize>> = None;
        while let Some(name) = map.next_key_seed(NameSeed { frame })? {
            if let Some(start) = open.take() {
                // The value ended before `,` and this name's opening quote.
                let end = name.at.and_then(|(at, _)| {
                    let comma = trim_space_back(frame, at.checked_sub(1)?).checked_sub(1)?;
                    value_end(frame, comma, b',')
                });
                envelope.result_range = start.zip(end).map(|(start, end)| start..end);
            }
            let slot = match name.member {
                Member::Id => 0,
                Member::Method => 1,
                Member::Params => 2,
                Member::Result => 3,
                Member::Error => 4,
                Member::Other => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            if std::mem::replace(&mut seen[slot], true) {
                return Err(serde::de::Error::custom("duplicate member"));
            }
            match name.member {
                Member::Id => envelope.id = map.next_value()?,
                Member::Method => envelope.method = map.next_value()?,
                Member::Params => envelope.params = map.next_value()?,
                Member::Error => envelope.error = map.next_value()?,
                Member::Result => {
                    envelope.result = map.next_value()?;
                    open = Some(name.at.and_then(|(_, end)| value_start(frame, end)));
                }
                Member::Other => {}
            }
        }
        if let Some(start) = open {
            // The last member: its value ends before the object's `}`.
            let close = trim_space_back(frame, frame.len()).checked_sub(1);
            let end = close.and_then(|close| value_end(frame, close, b'}'));
            envelope.result_range = start.zip(end).map(|(start, end)| start..end);
        }
        Ok(envelope)
    }
}

/// Builds one outbound request frame, newline included.
pub fn request_frame(id: u64, method: &str, params: &RawValue) -> Vec<u8> {
    use std::io::Write;
    let params = params.get();
    let mut frame = Vec::with_capacity(64 + method.len() + params.len());
    // Writing into a Vec cannot fail.
    let _ = write!(frame, "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":");
    let _ = serde_json::to_writer(&mut frame, method);
    frame.extend_from_slice(b",\"params\":");
    frame.extend_from_slice(params.as_bytes());
    frame.extend_from_slice(b"}\n");
    frame
}

/// Builds one outbound notification frame, newline included.
pub fn notification_frame(method: &str, params: &RawValue) -> Vec<u8> {
    let method = serde_json::to_string(method).unwrap_or_else(|_| "\"\"".to_string());
    format!(
        "{{\"jsonrpc\":\"2.0\",\"method\":{method},\"params\":{}}}\n",
        params.get()
    )
    .into_bytes()
}

/// The answer to a server `ping`: an empty result, id echoed verbatim.
pub fn ping_reply_frame(raw_id: &str) -> Vec<u8> {
    format!("{{\"jsonrpc\":\"2.0\",\"id\":{raw_id},\"result\":{{}}}}\n").into_bytes()
}

/// The answer to any other server request.
pub fn method_not_found_frame(raw_id: &str) -> Vec<u8> {
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{raw_id},\"error\":{{\"code\":-32601,\"message\":\"Method not found\"}}}}\n"
    )
    .into_bytes()
}

/// The rejection text of an error response: `error.message` when it
/// is a non-empty string, else `JSON-RPC error <code>`.
pub fn error_message(error: &RawValue) -> (Option<i64>, String) {
    #[derive(Deserialize)]
    struct ErrorBody {
        #[serde(default)]
        code: Option<serde_json::Value>,
        #[serde(default)]
        message: Option<serde_json::Value>,
    }
    let body: Option<ErrorBody> = serde_json::from_str(error.get()).ok();
    let code_value = body.as_ref().and_then(|body| body.code.clone());
    let code = code_value.as_ref().and_then(serde_json::Value::as_i64);
    let message = body
        .and_then(|body| body.message)
        .and_then(|message| match message {
            serde_json::Value::String(text) if !text.is_empty() => Some(text),
            _ => None,
        });
    let text = message.unwrap_or_else(|| {
        let code_text = code_value
            .map(|value| value.to_string())
            .unwrap_or_else(|| "undefined".to_string());
        format!("JSON-RPC error {code_text}")
    });
    (code, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classify(text: &str) -> Option<String> {
        Envelope::parse(text.as_bytes()).map(|envelope| format!("{:?}", envelope.classify()))
    }

    #[test]
    fn tells_server_requests_from_responses() {
        assert_eq!(
            classify(r#"{"jsonrpc":"2.0","id":"srv-1","method":"ping"}"#).unwrap(),
            r#"ServerRequest { id: "\"srv-1\"", method: "ping" }"#
        );
        assert_eq!(
            classify(r#"{"id":3,"method":"roots/list"}"#).unwrap(),
            r#"ServerRequest { id: "3", method: "roots/list" }"#
        );
        assert_eq!(
            classify(r#"{"id":3,"result":{}}"#).unwrap(),
            "Response { id: 3 }"
        );
        assert_eq!(
            classify(r#"{"method":"notifications/tools/list_changed"}"#).unwrap(),
            r#"Notification { method: "notifications/tools/list_changed" }"#
        );
        assert_eq!(classify(r#"{"jsonrpc":"2.0"}"#).unwrap(), "Other");
        assert_eq!(classify(r#"{"id":"x","result":1}"#).unwrap(), "Other");
    }

    #[test]
    fn noise_is_not_an_envelope() {
        for noise in ["not json", "[1,2]", "3", "\"s\"", "null"] {
            assert!(classify(noise).is_none(), "{noise}");
        }
        assert!(Envelope::parse(b"{\"id\":1,\"result\":\"\xff\"}").is_none());
    }

    #[test]
    fn error_text_falls_back_to_code() {
        let raw = |text: &str| RawValue::from_string(text.to_string()).unwrap();
        assert_eq!(
            error_message(&raw(r#"{"code":-32603,"message":"daemon warming up"}"#)).1,
            "daemon warming up"
        );
        assert_eq!(
            error_message(&raw(r#"{"code":-32000}"#)).1,
            "JSON-RPC error -32000"
        );
        assert_eq!(
            error_message(&raw(r#"{"code":5,"message":""}"#)).1,
            "JSON-RPC error 5"
        );
    }
}
