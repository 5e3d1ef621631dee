// The edit watcher's Pi handlers (DIFF-15, DIFF-17..20) and the native
// tools_search hold (NAT-15). The core keeps the claims and snapshots and
// decides from the tool's name and ids whether a call needs anything; only
// then do arguments or result text cross into it. Errors are swallowed
// (DIFF-22, HOOK-16).
import type { Addon } from "./boundary.ts";
import type { Ctx, PiLike, ToolCallEventLike, ToolResultLike } from "./host.ts";
import { awaitTools, cwdOf, resultText, swallow, toolCallEvent } from "./host.ts";

type ToolResultEventLike = ToolCallEventLike & ToolResultLike;

async function claimEdit(
  pi: PiLike,
  addon: Addon,
  generation: number,
  instance: number,
  event: ToolCallEventLike,
  ctx: Ctx,
) {
  try {
    if (addon.watchEdit(generation, instance, toolCallEvent(pi, event, ctx)))
      await addon.watchSnapshot(generation, String(event.toolCallId));
  } catch {
    // DIFF-22
  }
  return undefined;
}

async function finishResult(pi: PiLike, addon: Addon, generation: number, event: ToolResultEventLike, ctx: Ctx) {
  try {
    const action = await addon.watchToolResult(generation, {
      toolCallId: String(event.toolCallId ?? ""),
      toolName: String(event.toolName ?? ""),
      isError: Boolean(event.isError),
      cwd: cwdOf(pi, ctx),
      details: event.details ?? null,
      text: resultText(event),
    });
    if (action.awaitTools) await awaitTools(pi, addon, action.awaitTools);
    if (action.details) return { details: action.details };
  } catch {
    // DIFF-22
  }
  return undefined;
}

export function registerWatcher(pi: PiLike, addon: Addon, generation: number, instance: number): void {
  // The fast paths stay synchronous: no promise, no argument or text copy.
  pi.on("tool_call", (event: ToolCallEventLike, ctx: Ctx) => {
    const parent = typeof event.parentToolCallId === "string" ? event.parentToolCallId : undefined;
    const id = String(event.toolCallId ?? "");
    if (!swallow(() => addon.watchToolCall(generation, instance, id, String(event.toolName ?? ""), parent)))
      return undefined;
    return claimEdit(pi, addon, generation, instance, event, ctx);
  });
  pi.on("tool_result", (event: ToolResultEventLike, ctx: Ctx) => {
    const id = String(event.toolCallId ?? "");
    if (
      !swallow(() =>
        addon.resultNeedsWork(generation, instance, id, String(event.toolName ?? ""), Boolean(event.isError)),
      )
    )
      return undefined;
    return finishResult(pi, addon, generation, event, ctx);
  });
  pi.on(
    "tool_execution_end",
    (event: ToolCallEventLike) => void swallow(() => addon.watchToolEnd(generation, String(event.toolCallId ?? ""))),
  );
  pi.on("turn_end", () => void swallow(() => addon.watchReset(generation)));
  pi.on("session_shutdown", () => void swallow(() => addon.watchReset(generation)));
}
