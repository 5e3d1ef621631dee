// Read discipline on tool_call (HOOK-4..16): the core runs the hook and
// shapes the answer; this handler applies it. It never throws: a throwing
// tool_call handler makes Pi block the call (HOOK-16).
import type { Addon } from "./boundary.ts";
import type { Ctx, PiLike, ToolCallEventLike } from "./host.ts";
import { toolCallEvent } from "./host.ts";

export function enforcementHandler(pi: PiLike, addon: Addon, generation: number, instance: number) {
  return async (event: ToolCallEventLike, ctx: Ctx) => {
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
