/**
 * noop-handlers.ts - an extension that subscribes to the same per-call events as pi-gortex's
 * watcher (`tool_call`, `tool_result`, `tool_execution_end`, `turn_start`, `agent_end`) and does
 * nothing in them. The benchmark configuration `1.6.0 mcp.json + no-op handlers` loads it next to
 * Pi's own MCP, so the share of the extension's per-call overhead that is Pi's own cost of
 * dispatching these events to an extension can be told apart from the extension's work
 * (tests/bench/lib.mjs). `PI_BENCH_NOOP_EVENTS` (comma-separated) replaces the list, e.g.
 * `turn_end` alone for the cost of a turn_end handler (docs/decisions/006-no-turn-end-handler.md).
 */
const WATCHER_EVENTS = ["tool_call", "tool_result", "tool_execution_end", "turn_start", "agent_end"];

export default function noopHandlers(pi: any): void {
  const listed = process.env.PI_BENCH_NOOP_EVENTS?.split(",").filter(Boolean);
  for (const event of listed ?? WATCHER_EVENTS) {
    pi.on(event, () => undefined);
  }
}
