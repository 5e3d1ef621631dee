// Read discipline on tool_call (HOOK-4..16): the core runs the hook; this
// handler applies the action. It never throws: a throwing tool_call handler
// makes Pi block the call (HOOK-16).
import type { Addon } from "./boundary.ts";
import type { Ctx, PiLike } from "./host.ts";
import { cwdOf, sessionIdOf, swallow } from "./host.ts";

export interface ToolCallEventLike {
  toolCallId?: string;
  toolName?: string;
  input?: unknown;
  parentToolCallId?: string;
}

export function toolCallEvent(pi: PiLike, event: ToolCallEventLike, ctx: Ctx, native: boolean) {
  return {
    toolCallId: String(event.toolCallId ?? ""),
    toolName: String(event.toolName ?? ""),
    input: event.input ?? {},
    ...(typeof event.parentToolCallId === "string" ? { parentToolCallId: event.parentToolCallId } : {}),
    cwd: cwdOf(pi, ctx),
    sessionId: sessionIdOf(ctx),
    native,
  };
}

export function enforcementHandler(pi: PiLike, addon: Addon, generation: number, instance: number, isNative: () => boolean) {
  return async (event: ToolCallEventLike, ctx: Ctx) => {
    try {
      const action = await addon.enforceToolCall(generation, instance, toolCallEvent(pi, event, ctx, isNative()));
      if (action.action === "block") return { block: true, reason: action.reason };
      if (action.action === "steer") {
        const text = action.text;
        swallow(() => pi.sendMessage({ customType: "gortex", content: text, display: true }, { deliverAs: "steer" }));
      }
    } catch {
      // HOOK-16: fail open.
    }
    return undefined;
  };
}
