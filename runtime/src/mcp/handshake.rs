//! The `initialize` exchange.

use pi_gortex_schema::mcp::{
    ClientCapabilities, Implementation, InitializeRequestParams, InitializeResult,
};
use serde_json::value::RawValue;
use serde_json::Map;

use crate::version::PROTOCOL_VERSION;

/// `clientInfo.name`: the daemon picks its compact wire format from it.
pub const CLIENT_NAME: &str = "pi";
/// `clientInfo.version`.
pub const CLIENT_VERSION: &str = "1.0.0";

/// What the client reads from the handshake result.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HandshakeInfo {
    /// `result.serverInfo.version`, or `""` when missing or not a string.
    pub server_version: String,
    /// `result.protocolVersion`, or `""` when missing or not a string.
    pub protocol: String,
}

/// The `initialize` params we send.
pub fn initialize_params() -> Box<RawValue> {
    let mut experimental = Map::new();
    experimental.insert("gortex/wire".into(), serde_json::json!(["gcx"]));
    let params = InitializeRequestParams {
        protocol_version: PROTOCOL_VERSION.into(),
        capabilities: ClientCapabilities {
            experimental: Some(experimental),
            elicitation: None,
            roots: None,
            sampling: None,
            extra: Map::new(),
        },
        client_info: Implementation {
            name: CLIENT_NAME.into(),
            version: CLIENT_VERSION.into(),
            title: None,
            extra: Map::new(),
        },
        extra: Map::new(),
    };
    serde_json::value::to_raw_value(&params).expect("static params serialize")
}

/// Reads the server version and protocol, tolerating anything else: the
/// generated [`InitializeResult`] first, and a field-by-field reading when a
/// daemon sends something the schema rejects (a non-string version, say).
pub fn read_handshake(result: &[u8]) -> HandshakeInfo {
    if let Ok(typed) = serde_json::from_slice::<InitializeResult>(result) {
        return HandshakeInfo {
            server_version: typed
                .server_info
                .map(|info| info.version)
                .unwrap_or_default(),
            protocol: typed.protocol_version.unwrap_or_default(),
        };
    }
    let result: serde_json::Value = serde_json::from_slice(result).unwrap_or_default();
    let text = |value: Option<&serde_json::Value>| {
        value
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    HandshakeInfo {
        server_version: text(result.pointer("/serverInfo/version")),
        protocol: text(result.get("protocolVersion")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_version_and_protocol_leniently() {
        let info = read_handshake(
            br#"{"protocolVersion":"2025-06-18","serverInfo":{"name":"gortex","version":"0.64.4"}}"#,
        );
        assert_eq!(info.server_version, "0.64.4");
        assert_eq!(info.protocol, "2025-06-18");
        let info = read_handshake(br#"{"protocolVersion":7,"serverInfo":{"version":null}}"#);
        assert_eq!(info, HandshakeInfo::default());
        assert_eq!(read_handshake(b"null"), HandshakeInfo::default());
    }

    #[test]
    fn params_match_wire_2() {
        let params: serde_json::Value = serde_json::from_str(initialize_params().get()).unwrap();
        assert_eq!(
            params,
            serde_json::json!({"protocolVersion":"2025-11-25","capabilities":{"experimental":{"gortex/wire":["gcx"]}},"clientInfo":{"name":"pi","version":"1.0.0"}})
        );
    }
}
