//! The own MCP stdio client (MCP-*), used on Pi < 0.99 and whenever the
//! native path is not taken.
//!
//! Layers, bottom up: [`transport`] (the child process, its stdin sink and
//! stderr tail), [`framing`] (NDJSON bytes to lines), [`envelope`] and
//! [`routing`] (lines to routed messages, the common response read in one
//! scan by the private `response_scan`), the private `supervisor` (the
//! task owning one child), [`client`] (requests, timeouts, respawn, stop),
//! [`handshake`], [`tools`], [`call_result`] and [`result_value`] (the MCP
//! methods used, and what a result shows the model),
//! [`output_limit`] (what the model reads of a large result), and
//! [`own_client`] (one session: start, skew report, catalogue, re-sync, tool
//! calls). [`daemon`] launches the shared daemon.
//!
//! The entry point for the glue is [`own_client::OwnClient`].

pub mod call_result;
pub mod client;
pub mod content;
pub mod daemon;
pub mod envelope;
pub mod error;
pub mod framing;
pub mod handshake;
pub mod output_limit;
pub mod own_client;
mod response_scan;
pub mod result_value;
pub mod routing;
mod supervisor;
pub mod tools;
pub mod transport;

pub use client::{ClientConfig, ClientTask, McpClient, RawResponse, Timeouts};
pub use error::McpError;
