//! The narrow JSON-RPC envelope read on the hot path (MCP-8).
//!
//! Only `id`, `method`, `result` and `error` are looked at to route a frame;
//! bodies stay as borrowed [`RawValue`]s and are decoded into the generated
//! schema types only by whoever needs them. This keeps routing a 16 MiB tool
//! result down to one syntax scan.

use serde::Deserialize;
use serde_json::value::RawValue;

/// The routing-relevant members of one inbound JSON-RPC object.
#[derive(Debug, Deserialize)]
pub struct Envelope<'a> {
    /// `id`, verbatim (number, string or null).
    #[serde(borrow, default)]
    pub id: Option<&'a RawValue>,
    /// `method`, verbatim (a string for requests and notifications).
    #[serde(borrow, default)]
    pub method: Option<&'a RawValue>,
    /// `params` of a request or notification.
    #[serde(borrow, default)]
    pub params: Option<&'a RawValue>,
    /// `result` of a response.
    #[serde(borrow, default)]
    pub result: Option<&'a RawValue>,
    /// `error` of a response.
    #[serde(borrow, default)]
    pub error: Option<&'a RawValue>,
}

/// What an inbound object is (MCP-8).
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
        // A derived struct also accepts a JSON array of its fields; only an
        // object is a message.
        let first = frame.iter().find(|byte| !byte.is_ascii_whitespace())?;
        if *first != b'{' {
            return None;
        }
        serde_json::from_slice(frame).ok()
    }

    /// [`Self::parse`] on a frame already known to be UTF-8, which serde_json
    /// then does not check again.
    pub fn parse_str(frame: &'a str) -> Option<Self> {
        let first = frame.bytes().find(|byte| !byte.is_ascii_whitespace())?;
        if first != b'{' {
            return None;
        }
        serde_json::from_str(frame).ok()
    }

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

/// Builds one outbound request frame, newline included (MCP-5).
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

/// The answer to a server `ping`: an empty result, id echoed verbatim (MCP-11).
pub fn ping_reply_frame(raw_id: &str) -> Vec<u8> {
    format!("{{\"jsonrpc\":\"2.0\",\"id\":{raw_id},\"result\":{{}}}}\n").into_bytes()
}

/// The answer to any other server request (MCP-11).
pub fn method_not_found_frame(raw_id: &str) -> Vec<u8> {
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{raw_id},\"error\":{{\"code\":-32601,\"message\":\"Method not found\"}}}}\n"
    )
    .into_bytes()
}

/// The rejection text of an error response (MCP-9): `error.message` when it
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
