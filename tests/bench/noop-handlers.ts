/**
 * noop-handlers.ts - an extension that subscribes to the same per-call events as pi-gortex's
 * watcher (`tool_call`, `tool_result`, `tool_execution_end`, `turn_end`) and does nothing in them.
 * The benchmark configuration `1.6.0 mcp.json + no-op handlers` loads it next to Pi's own MCP, so
 * the share of the extension's per-call overhead that is Pi's own cost of dispatching these events
 * to an extension can be told apart from the extension's work (tests/bench/lib.mjs).
 */
export default function noopHandlers(pi: any): void {
  for (const event of ["tool_call", "tool_result", "tool_execution_end", "turn_end"]) {
    pi.on(event, () => undefined);
  }
}
