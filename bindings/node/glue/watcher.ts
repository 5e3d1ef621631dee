// The edit watcher's Pi handlers (DIFF-15, DIFF-17..20) and the native
// tools_search hold (NAT-15). The core keeps the claims and snapshots; these
// handlers only forward events. Errors are swallowed (DIFF-22, HOOK-16).
import type { Addon } from "./boundary.ts";
import type { Ctx, PiLike, ToolResultLike } from "./host.ts";
import { cwdOf, pollDelay, swallow, toolNames } from "./host.ts";
import { toolCallEvent, type ToolCallEventLike } from "./enforce.ts";

const PROMOTION_POLL_MS = 20;
const PROMOTION_WAIT_MS = 2000;

interface ToolResultEventLike extends ToolCallEventLike, ToolResultLike {}

/** NAT-15: waits until every name is in getAllTools(), at most 2 s. */
async function awaitTools(pi: PiLike, names: string[]): Promise<void> {
  const deadline = Date.now() + PROMOTION_WAIT_MS;
  while (Date.now() < deadline) {
    const present = swallow(() => new Set(toolNames(pi)));
    if (present && names.every((name) => present.has(name))) return;
    await pollDelay(PROMOTION_POLL_MS);
  }
}

export function registerWatcher(pi: PiLike, addon: Addon, generation: number, isNative: () => boolean): void {
  pi.on("tool_call", async (event: ToolCallEventLike, ctx: Ctx) => {
    try {
      const call = toolCallEvent(pi, event, ctx, isNative());
      if (addon.watchToolCall(generation, call)) await addon.watchSnapshot(generation, call);
    } catch {
      // DIFF-22
    }
    return undefined;
  });
  pi.on("tool_result", async (event: ToolResultEventLike, ctx: Ctx) => {
    try {
            const text = (event.content ?? [])
        .filter((item) => item.type === "text" && typeof item.text === "string")
        .map((item) => item.text)
        .join("\n");
      const action = await addon.watchToolResult(generation, {
        toolCallId: String(event.toolCallId ?? ""),
        toolName: String(event.toolName ?? ""),
        isError: Boolean(event.isError),
        cwd: cwdOf(pi, ctx),
        details: event.details ?? null,
        text,
      });
      if (action.awaitTools && action.awaitTools.length > 0 && isNative()) await awaitTools(pi, action.awaitTools);
      if (action.details) return { details: action.details };
    } catch {
      // DIFF-22
    }
    return undefined;
  });
  pi.on("tool_execution_end", (event: ToolCallEventLike) => {
    swallow(() => addon.watchToolEnd(generation, String(event.toolCallId ?? "")));
    return undefined;
  });
  pi.on("turn_end", () => {
    swallow(() => addon.watchReset(generation));
    return undefined;
  });
  pi.on("session_shutdown", () => {
    swallow(() => addon.watchReset(generation));
    return undefined;
  });
}
