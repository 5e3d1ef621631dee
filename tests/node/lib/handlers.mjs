//! handlers.mjs - the events the extension subscribes to, in SES-18's order (PKG-8), and no
//! `context` or `turn_end` handler (DIFF-20, decision 006). One list for every suite that checks it:
//! the own client's, and the native path's, which adds the edit read-ahead at `message_end`.

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

/** On the native path the edit claims also read edits ahead at the assistant message (DIFF-17). */
export const EXPECTED_NATIVE_HANDLERS = [
  ...EXPECTED_HANDLERS.slice(0, 4),
  "message_end",
  ...EXPECTED_HANDLERS.slice(4),
];
