//! pi-gortex-runtime: every decision the Pi extension makes, in Rust.
//!
//! The TypeScript glue in `bindings/node` only turns Pi events into calls on
//! this crate and its answers into Pi API calls. Everything here is testable
//! without Pi: pure functions where the logic allows, and tokio where a child
//! process has to be driven.
//!
//! Modules by role:
//! - [`config`]: layered configuration with provenance (CFG-*).
//! - [`mcp`]: the own MCP stdio client (MCP-*).
//! - [`catalogue`]: which daemon tools become which Pi tools (TOOL-*).
//! - [`version`]: version floor and skew texts.
//! - [`hook`]: the asynchronous hook exchange and envelope normalization (HOOK-*).
//! - [`session`]: first-turn assembly, briefing and compaction rules (SES-*).
//! - [`readiness`]: the first turn's readiness barrier.
//! - [`native`]: native-MCP decisions: binary resolution, server config (NAT-*).
//! - [`diff`]: edit classification, snapshots and Pi-identical diffs (DIFF-*).
//! - [`doctor`]: the `pi-gortex doctor` report.
//! - [`extension`]: the extension itself, one method per Pi event it handles.
//! - [`terminal_text`]: untrusted text escaped and cut before it is shown.
//! - [`status`]: the footer status and the `/gortex` block (STAT-*).
//! - [`cli`]: the `pi-gortex` command line, shared by the binary and the npm bin.
//! - `platform`: the OS mechanisms (process trees, pipes, file opening), each
//!   with a Unix and a Windows side.

pub mod catalogue;
pub mod cli;
pub mod config;
pub mod diff;
pub mod doctor;
pub mod extension;
pub mod hook;
pub mod instance;
pub mod json_type;
pub mod mcp;
pub mod native;
pub(crate) mod platform;
pub mod readiness;
pub mod savings;
pub mod session;
pub mod stats;
pub mod status;
pub mod sync;
pub mod terminal_text;
pub mod version;
