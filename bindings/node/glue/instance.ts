// One extension instance: created per factory call, wired to Pi's
// events in the SES-18 order. Every latch and decision lives in the core's
// Extension object (the instance's latches and readiness barrier); these
// handlers read Pi, forward to it and apply its answer.
import type { Addon, Module, PathChoice, SessionAction } from "./boundary.ts";
import type { Ctx, Instance, PiLike } from "./host.ts";
import { contextEntries, cwdOf, notifyAll, sessionBegin, sessionIdOf, swallow, textOf, toolNames } from "./host.ts";
import { nativeRendererResolver } from "./render.ts";
import { registerStatusCommand, showFooter } from "./status.ts";
import { registerToolEvents } from "./tool_events.ts";
import { applyCatalogue } from "./tools.ts";

/** What one step of a `session_start` asks of Pi, applied in the core's order. */
function applySession(instance: Instance, ctx: Ctx, serverName: string, action: SessionAction): void {
  const { pi } = instance;
  notifyAll(ctx, action.notices);
  // Withdraw the registration; the core latched the own client.
  if (action.withdrawServer) swallow(() => pi.unregisterMcpServer?.(serverName));
  applyCatalogue(instance, action.catalogue);
  if (action.footer) showFooter(ctx, action.footer);
}

/** `session_start`: one core call, which hands each step to `apply` (the own client's start and
 * its later listings too) and releases a waiting first turn once the last step is applied. */
function sessionStart(instance: Instance, serverName: string) {
  const { pi, extension } = instance;
  return async (_event: unknown, ctx: Ctx) => {
    const apply = (action: SessionAction) => void swallow(() => applySession(instance, ctx, serverName, action));
    try {
      // Pi's trust answer narrows the core's config; Pi's tool names word the footer (none without a UI).
      const piTools = ctx?.hasUI ? (toolNames(pi) ?? []) : null;
      await extension.sessionStart(sessionBegin(pi, ctx), piTools, apply);
    } catch {
      // The session goes on without the own client.
    }
  };
}

/** `before_agent_start`: one core call, which plans the turn before any await, waits, runs the
 * hook and answers what to show and return. The glue reads Pi for it when asked. */
function beforeAgentStart(instance: Instance) {
  const { pi, extension } = instance;
  return async (event: { prompt?: unknown; messageType?: unknown }, ctx: Ctx) => {
    try {
      const turn = { prompt: textOf(event.prompt), messageType: textOf(event.messageType) };
      const footer = ctx?.hasUI ? (text: string) => showFooter(ctx, text) : null;
      const read = [() => contextEntries(ctx), () => toolNames(pi), footer] as const;
      const place: [string, string] = [cwdOf(pi, ctx), sessionIdOf(ctx)];
      const action = await extension.beforeAgentStart(turn, place, ...read);
      if (!action) return undefined;
      notifyAll(ctx, action.notices);
      if (action.footer) showFooter(ctx, action.footer);
      return action.message ? { message: action.message } : undefined;
    } catch {
      // The turn goes on without the core (the handler answers undefined).
    }
  };
}

/** The native path at factory time; a throwing registerMcpServer is a refusal the core latches. */
function registerNative({ pi, extension }: Instance): PathChoice {
  const hasRegisterMcpServer = typeof pi.registerMcpServer === "function";
  const choice = extension.choosePath({ hasRegisterMcpServer });
  if (!choice.native) return choice;
  try {
    pi.registerMcpServer?.(choice.serverName, choice.serverConfig);
    return choice;
  } catch (error) {
    extension.refuseNative(error instanceof Error ? error.message : String(error));
    return { ...choice, native: false };
  }
}

export async function createInstance(pi: PiLike, addon: Addon, shared: Module): Promise<void> {
  const extension = new addon.Extension(shared);
  const instance: Instance = { pi, addon, extension };
  // The core arms the instance's readiness barrier as it resolves the configuration.
  await extension.resolveConfig(process.cwd());
  const path = registerNative(instance);
  registerStatusCommand(instance);
  pi.on("session_start", sessionStart(instance, path.serverName));
  pi.on("session_compact", () => void swallow(() => extension.sessionCompact()));
  pi.on("before_agent_start", beforeAgentStart(instance));
  // Only this instance's client; a second shutdown finds nothing.
  pi.on(
    "session_shutdown",
    async () => void (await swallow(() => extension.sessionShutdown())?.catch(() => undefined)),
  );
  registerToolEvents(instance, path.native);
  if (path.native) swallow(() => pi.registerToolRenderer?.(nativeRendererResolver(path.toolPrefix)));
}
