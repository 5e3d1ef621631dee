//! Why an MCP request failed. The `Display` texts are the spec's exact
//! rejection texts (docs/rules.md), because they reach the user and the model verbatim.

/// A failed request or a client marked exited.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpError {
    /// The child could not be spawned.
    #[error("gortex mcp spawn failed")]
    SpawnFailed {
        /// The OS error, for diagnosis only.
        detail: String,
    },
    /// The child exited, with how and the last of its stderr.
    #[error("{}", exited_text(how, stderr_tail))]
    Exited {
        /// `with status N`, `by signal N`, or empty.
        how: String,
        /// The trimmed last 8 KiB of stderr.
        stderr_tail: String,
    },
    /// A frame grew past the cap.
    #[error("gortex mcp frame exceeded {limit} bytes")]
    FrameTooLarge {
        /// The cap in bytes.
        limit: usize,
    },
    /// A request timed out on a child that sent nothing at all.
    #[error("gortex mcp killed after {method} timed out")]
    Wedged {
        /// The method that timed out.
        method: String,
    },
    /// The client was stopped; it is final.
    #[error("gortex mcp bridge stopped")]
    Stopped,
    /// A write was attempted with no child.
    #[error("gortex mcp is not running")]
    NotRunning,
    /// A request outlived its timeout.
    #[error("{method} timed out after {ms}ms")]
    Timeout {
        /// The method.
        method: String,
        /// The timeout in milliseconds.
        ms: u128,
    },
    /// An error response.
    #[error("{message}")]
    Rpc {
        /// `error.code` when it was an integer.
        code: Option<i64>,
        /// `error.message`, or `JSON-RPC error <code>`.
        message: String,
    },
    /// The caller aborted a tool call.
    #[error("tool call aborted")]
    Aborted,
    /// The child stopped reading its stdin while frames kept coming, so the
    /// unwritten backlog reached its bound.
    #[error("gortex mcp stdin backlog exceeded {limit} bytes")]
    BacklogFull {
        /// The bound in force, in bytes.
        limit: usize,
    },
    /// One of the client's own tasks panicked; what it was doing for the
    /// pending requests cannot finish.
    #[error("gortex mcp client {task} task failed")]
    TaskPanicked {
        /// Which task: `supervisor` or `stdin writer`.
        task: &'static str,
    },
    /// A result did not have the shape its method promises.
    #[error("invalid {method} result: {detail}")]
    InvalidResult {
        /// The method.
        method: String,
        /// The decoding error.
        detail: String,
    },
}

fn exited_text(how: &str, stderr_tail: &str) -> String {
    let mut text = String::from("gortex mcp exited");
    if !how.is_empty() {
        text.push(' ');
        text.push_str(how);
    }
    if !stderr_tail.is_empty() {
        text.push_str(": ");
        text.push_str(stderr_tail);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_texts_follow_the_spec() {
        let exited = |how: &str, tail: &str| McpError::Exited {
            how: how.into(),
            stderr_tail: tail.into(),
        };
        assert_eq!(exited("", "").to_string(), "gortex mcp exited");
        assert_eq!(
            exited("with status 1", "boom").to_string(),
            "gortex mcp exited with status 1: boom"
        );
        assert_eq!(
            McpError::Timeout {
                method: "tools/call".into(),
                ms: 600000
            }
            .to_string(),
            "tools/call timed out after 600000ms"
        );
        assert_eq!(
            McpError::FrameTooLarge { limit: 67108864 }.to_string(),
            "gortex mcp frame exceeded 67108864 bytes"
        );
    }
}
