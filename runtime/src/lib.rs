//! pi-gortex-runtime: every decision the Pi extension makes, in Rust.
//!
//! The TypeScript glue in `bindings/node` only turns Pi events into calls on
//! this crate and its answers into Pi API calls. Everything here is testable
//! without Pi: pure functions where the logic allows, and tokio where a child
//! process has to be driven.
//!
//! The extension itself lives in one room, [`extension`]: one method per Pi
//! event, the state one import and one instance keep, the session latches,
//! the readiness barrier, the first-turn texts and the status wording. Every
//! other module here is a library at least two rooms use (the extension, the
//! `pi-gortex` command line and its doctor, the hook exchange, the MCP client):
//! - [`extension`]: the Pi extension, one method per Pi event it handles.
//! - [`cli`]: the `pi-gortex` command line, shared by the binary and the npm bin.
//! - [`doctor`]: the `pi-gortex doctor` report.
//! - [`config`]: layered configuration with provenance (CFG-*).
//! - [`mcp`]: the own MCP stdio client (MCP-*).
//! - [`catalogue`]: which daemon tools become which Pi tools (TOOL-*).
//! - [`version`]: version floor and skew texts.
//! - [`hook`]: the hook exchange and envelope normalization (HOOK-*).
//! - [`native`]: native-MCP decisions: binary resolution, server config (NAT-*).
//! - [`diff`]: edit classification, snapshots and Pi-identical diffs (DIFF-*).
//! - [`savings`]: what the graph saved in one session (SAVE-1).
//! - [`stats`]: the stats file of every session's savings and its report (SAVE-4, SAVE-5).
//! - [`terminal_text`]: untrusted text escaped and cut before it is shown.
//! - [`json_type`]: the JSON type name warnings and failure reasons use.
//! - [`sync`]: the one poison-ignoring `lock`.
//! - [`guard`]: the one panic guard: a panic is recorded and becomes a fail-open value.
//! - `platform`: the OS mechanisms (process trees, pipes, file opening), each
//!   with a Unix and a Windows side.

pub mod catalogue;
pub mod cli;
pub mod config;
pub mod diff;
pub mod doctor;
pub mod extension;
pub mod guard;
pub mod hook;
pub mod json_type;
pub mod mcp;
pub mod native;
pub(crate) mod platform;
pub mod savings;
pub mod stats;
pub mod sync;
pub mod terminal_text;
pub mod version;
