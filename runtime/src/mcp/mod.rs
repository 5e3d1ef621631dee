//! The own MCP stdio client (MCP-*), used on Pi < 0.99 and whenever the
//! native path is not taken.
//!
//! Layers, bottom up: [`transport`] (the child process), [`framing`] (NDJSON
//! bytes to lines), [`envelope`] (lines to routed messages), [`client`]
//! (requests, timeouts, respawn, stop), [`handshake`] and [`tools`] (the MCP
//! methods used), and [`bridge`] (one session: start, skew report, catalogue,
//! re-sync, tool calls). [`daemon`] launches the shared daemon.

pub mod bridge;
pub mod call_result;
pub mod client;
pub mod daemon;
pub mod envelope;
pub mod error;
pub mod framing;
pub mod handshake;
pub mod routing;
pub mod tools;
pub mod transport;

pub use client::{ClientConfig, McpClient, RawResponse, Timeouts};
pub use error::McpError;
