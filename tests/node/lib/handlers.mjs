//! handlers.mjs - the events the extension subscribes to, in SES-18's order (PKG-8), and no
//! `context` or `turn_end` handler (DIFF-20, decision 006). One list for every suite that checks it.

export const EXPECTED_HANDLERS = [
  "session_start",
  "session_compact",
  "before_agent_start",
  "session_shutdown",
  "tool_call",
  "tool_result",
  "tool_execution_end",
  "turn_start",
  "agent_end",
];
