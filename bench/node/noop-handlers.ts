/**
 * noop-handlers.ts - an extension that subscribes to the same per-call events as pi-gortex's glue
 * on the native path (`tool_call`, `tool_result`, `tool_execution_end`, `turn_start`, `agent_end`,
 * `message_end`) and does nothing in them. The benchmark configurations `1.6.0 mcp.json + no-op
 * handlers` (bench/node/lib.mjs) and per_call.mjs's `no-op handlers` load it next to Pi's own
 * MCP, so the share of the extension's per-call overhead that is Pi's own cost of dispatching
 * these events to an extension can be told apart from the extension's work.
 * `PI_BENCH_NOOP_EVENTS` (comma-separated) replaces the list: per_call.mjs drops `message_end` on
 * the own-client path, where the glue does not handle it, and `turn_end` alone gives the cost of a
 * turn_end handler (docs/decisions/006-no-turn-end-handler.md).
 */
const GLUE_EVENTS = ["tool_call", "tool_result", "tool_execution_end", "turn_start", "agent_end", "message_end"];

export default function noopHandlers(pi: any): void {
  const listed = process.env.PI_BENCH_NOOP_EVENTS?.split(",").filter(Boolean);
  for (const event of listed ?? GLUE_EVENTS) {
    pi.on(event, () => undefined);
  }
}
