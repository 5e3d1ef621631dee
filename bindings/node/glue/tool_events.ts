// The tool events: each goes to the core's Extension in one call, which
// reads from the event only what the call needs and answers null when there
// is nothing to apply. The glue supplies what only Pi's objects know (cwd and
// session id, and the tool list a tools_search waits for, as functions the core
// calls only when its decision needs them) and applies the answer. A throwing tool_call handler makes Pi block the call, so every
// handler fails open.
import type { Ctx, Instance, ToolEventLike } from "./host.ts";
import { cwdOf, sessionIdOf, swallow, toolNames } from "./host.ts";

type ToolCallAnswer = Awaited<ReturnType<Instance["extension"]["toolCall"]>>;
type ToolResultAnswer = Awaited<ReturnType<Instance["extension"]["toolResult"]>>;

async function applyToolCall({ pi }: Instance, pending: Promise<ToolCallAnswer>) {
  try {
    const action = await pending;
    if (action?.action === "block") return { block: true, reason: action.reason };
    if (action?.action === "steer") pi.sendMessage(action.message, { deliverAs: "steer" });
  } catch {
    // The hook's failure lets the call proceed.
  }
  return undefined;
}

async function applyToolResult(pending: Promise<ToolResultAnswer>) {
  try {
    const action = await pending;
    if (action?.details) return { details: action.details };
  } catch {
    // A failed diff leaves the result as Pi has it.
  }
  return undefined;
}

export function registerToolEvents(instance: Instance, native: boolean): void {
  const { pi, extension } = instance;
  if (native)
    pi.on("message_end", (event: object, ctx: Ctx) => void swallow(() => extension.messageEnd(event, cwdOf(pi, ctx))));
  pi.on("tool_call", (event: ToolEventLike, ctx: Ctx) => {
    const pending = swallow(() => extension.toolCall(event, () => [cwdOf(pi, ctx), sessionIdOf(ctx)]));
    return pending ? applyToolCall(instance, pending) : undefined;
  });
  pi.on("tool_result", (event: ToolEventLike, ctx: Ctx) => {
    const pending = swallow(() =>
      extension.toolResult(
        event,
        () => cwdOf(pi, ctx),
        () => toolNames(pi),
      ),
    );
    return pending ? applyToolResult(pending) : undefined;
  });
  pi.on("tool_execution_end", (event: ToolEventLike) => void swallow(() => extension.toolExecutionEnd(event)));
  // Cleared when the next turn starts or the run ends, not on turn_end: with a turn_end handler
  // present, Pi builds the whole session's context twice per turn (docs/decisions/006-no-turn-end-handler.md).
  pi.on("turn_start", () => void swallow(() => extension.clearCalls()));
  pi.on("agent_end", () => void swallow(() => extension.clearCalls()));
}
