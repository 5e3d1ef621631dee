// The tool events: each goes to the core's Extension in one call, which
// reads from the event only what the call needs and answers null when there
// is nothing to apply. The glue supplies what only Pi's objects know (cwd and
// session id, and the tool list a tools_search waits for, as functions the core
// calls only when its decision needs them) and applies the answer. A throwing tool_call handler makes Pi block the call, so every
// handler fails open.
import type { Ctx, Instance, ToolEventLike } from "./host.ts";
import { cwdOf, notifyAll, sessionIdOf, swallow, toolNames } from "./host.ts";
import { showFooter } from "./status.ts";

// What `applied` hands on: never null (a null answer applies nothing).
type ToolCallAnswer = NonNullable<Awaited<ReturnType<Instance["extension"]["toolCall"]>>>;
type ToolResultAnswer = NonNullable<Awaited<ReturnType<Instance["extension"]["toolResult"]>>>;

/** The core's answer applied now when it is the value itself, else once its promise settles. A
 * failure (a throw, a rejection: the hook's exchange, a diff) applies nothing: the call proceeds
 * and its result stays as Pi has it. */
function applied<T, R>(answer: T | Promise<T> | null | undefined, apply: (value: T) => R) {
  if (isPromise(answer))
    return answer.then(
      (value) => swallow(() => apply(value)),
      () => undefined,
    );
  return answer == null ? undefined : swallow(() => apply(answer));
}

// A thenable, not `instanceof Promise`: a promise of another realm is still one.
const isPromise = <T>(value: T | Promise<T>): value is Promise<T> =>
  typeof (value as { then?: unknown } | null)?.then === "function";

function applyToolCall({ pi }: Instance, action: ToolCallAnswer) {
  if (action.action === "block") return { block: true, reason: action.reason };
  if (action.action === "steer") pi.sendMessage(action.message, { deliverAs: "steer" });
  return undefined;
}

/** A result's diff goes back to Pi; what the graph saved may also move the footer or warn once. */
function applyToolResult(ctx: Ctx, action: ToolResultAnswer) {
  notifyAll(ctx, [action.notice]);
  if (action.footer) showFooter(ctx, action.footer);
  return action.details ? { details: action.details } : undefined;
}

export function registerToolEvents(instance: Instance, native: boolean): void {
  const { pi, extension } = instance;
  if (native)
    pi.on("message_end", (event: object, ctx: Ctx) => void swallow(() => extension.messageEnd(event, cwdOf(pi, ctx))));
  pi.on("tool_call", (event: ToolEventLike, ctx: Ctx) => {
    const answer = swallow(() => extension.toolCall(event, () => [cwdOf(pi, ctx), sessionIdOf(ctx)]));
    return applied(answer, (action) => applyToolCall(instance, action));
  });
  pi.on("tool_result", (event: ToolEventLike, ctx: Ctx) => {
    const answer = swallow(() =>
      extension.toolResult(
        event,
        () => cwdOf(pi, ctx),
        () => toolNames(pi),
      ),
    );
    return applied(answer, (action) => applyToolResult(ctx, action));
  });
  pi.on("tool_execution_end", (event: ToolEventLike) => void swallow(() => extension.toolExecutionEnd(event)));
  // Cleared when the next turn starts or the run ends, not on turn_end: with a turn_end handler
  // present, Pi builds the whole session's context twice per turn (docs/decisions/006-no-turn-end-handler.md).
  pi.on("turn_start", () => void swallow(() => extension.clearCalls()));
  pi.on("agent_end", () => void swallow(() => extension.clearCalls()));
}
