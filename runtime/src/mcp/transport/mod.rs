//! Process plumbing for the own MCP client: spawning and killing the
//! `gortex mcp` child, writing its stdin, and draining its stderr.

pub mod child_process;
pub mod outbound;
pub mod stderr_tail;
