// The tool event handlers: read discipline on tool_call (HOOK-4..16), the
// edit watcher (DIFF-15, DIFF-17..20) with its read-ahead at the assistant
// message (native path), and the native tools_search hold (NAT-15). The core keeps the claims and snapshots and
// decides from the tool's name and ids whether a call needs anything; only
// then do arguments or result text cross into it. Errors are swallowed
// (DIFF-22, HOOK-16).
import type { Bridge, Ctx, ToolEventLike } from "./host.ts";
import { awaitTools, cwdOf, resultText, swallow, toolCallEvent } from "./host.ts";

async function claimEdit({ pi, addon, generation, instance }: Bridge, event: ToolEventLike, ctx: Ctx) {
  try {
    if (addon.watchEdit(generation, instance, toolCallEvent(pi, event, ctx)))
      await addon.watchSnapshot(generation, String(event.toolCallId));
  } catch {
    // DIFF-22
  }
  return undefined;
}

async function finishResult(bridge: Bridge, event: ToolEventLike, ctx: Ctx) {
  const { pi, addon, generation } = bridge;
  try {
    const action = await addon.watchToolResult(generation, {
      ...ids(event),
      isError: Boolean(event.isError),
      cwd: cwdOf(pi, ctx),
      details: event.details ?? null,
      text: resultText(event),
    });
    if (action.awaitTools) await awaitTools(bridge, action.awaitTools);
    if (action.details) return { details: action.details };
  } catch {
    // DIFF-22
  }
  return undefined;
}

/** HOOK-4..16: the core runs the hook and shapes the answer. A throwing tool_call handler makes Pi block the call, so this fails open (HOOK-16). */
function enforcement({ pi, addon, generation, instance }: Bridge) {
  return async (event: ToolEventLike, ctx: Ctx) => {
    try {
      const action = await addon.enforceToolCall(generation, instance, toolCallEvent(pi, event, ctx));
      if (action.action === "block") return { block: true, reason: action.reason };
      if (action.action === "steer") pi.sendMessage(action.message, { deliverAs: "steer" });
    } catch {
      // HOOK-16: fail open.
    }
    return undefined;
  };
}

const ids = (event: ToolEventLike) => ({
  toolCallId: String(event.toolCallId ?? ""),
  toolName: String(event.toolName ?? ""),
});

/**
 * Read-ahead (native path): the assistant message names its tool calls before Pi
 * prepares any, so a Gortex edit's files are read now and its tool_call seldom waits for a read.
 * The core decides from each call's name; only an edit's arguments cross napi.
 */
function readAhead({ pi, addon, generation, instance }: Bridge) {
  return (event: { message?: { role?: unknown; content?: unknown } }, ctx: Ctx) => {
    const message = event.message;
    if (message?.role !== "assistant" || !Array.isArray(message.content)) return undefined;
    for (const block of message.content as ToolCallBlock[]) {
      if (block?.type !== "toolCall") continue;
      const { id, name, arguments: args } = block;
      swallow(() => addon.prefetchEdit(generation, instance, String(id), String(name), args, cwdOf(pi, ctx)));
    }
    return undefined;
  };
}

type ToolCallBlock = { type?: unknown; id?: unknown; name?: unknown; arguments?: unknown } | undefined;

export function registerToolEvents(bridge: Bridge, enforce: boolean, native: boolean): void {
  const { pi, addon, generation, instance } = bridge;
  if (native) pi.on("message_end", readAhead(bridge));
  if (enforce) pi.on("tool_call", enforcement(bridge));
  // The fast paths stay synchronous: no promise, no argument or text copy.
  pi.on("tool_call", (event: ToolEventLike, ctx: Ctx) => {
    const { toolCallId, toolName } = ids(event);
    const parent = typeof event.parentToolCallId === "string" ? event.parentToolCallId : undefined;
    const claims = swallow(() => addon.watchToolCall(generation, instance, toolCallId, toolName, parent));
    return claims ? claimEdit(bridge, event, ctx) : undefined;
  });
  pi.on("tool_result", (event: ToolEventLike, ctx: Ctx) => {
    const { toolCallId, toolName } = ids(event);
    const needsWork = swallow(() =>
      addon.resultNeedsWork(generation, instance, toolCallId, toolName, Boolean(event.isError)),
    );
    return needsWork ? finishResult(bridge, event, ctx) : undefined;
  });
  const reset = () => void swallow(() => addon.watchReset(generation));
  pi.on(
    "tool_execution_end",
    (event: ToolEventLike) => void swallow(() => addon.watchToolEnd(generation, ids(event).toolCallId)),
  );
  // DIFF-20: cleared when the next turn starts or the run ends, not on turn_end: with a
  // turn_end handler present, Pi builds the whole session's context twice per turn
  // (docs/decisions/006-no-turn-end-handler.md).
  pi.on("turn_start", reset);
  pi.on("agent_end", reset);
  pi.on("session_shutdown", reset);
}
