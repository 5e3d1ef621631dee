// One extension instance: created per factory call, wired to Pi's
// events in the SES-18 order. Every latch and decision lives in the core
// (the instance's latches and readiness barrier, keyed by its handle); these
// handlers read Pi, forward to the addon and apply its answer.
import type { Addon, PathChoice } from "./boundary.ts";
import type { Bridge, Ctx, PiLike } from "./host.ts";
import { awaitTools, contextEntries, cwdOf, notifyAll, sessionBegin, sessionIdOf, swallow, textOf } from "./host.ts";
import { nativeRendererResolver } from "./render.ts";
import { afterStep, refreshReadiness, registerStatusCommand, showFooter } from "./status.ts";
import { registerToolEvents } from "./tool_events.ts";
import { applyCatalogue } from "./tools.ts";

/** SES-4..9, NAT-5, NAT-6: the plan comes from the core; this applies it. */
function sessionStart(bridge: Bridge, serverName: string) {
  const { pi, addon, generation, instance } = bridge;
  return async (_event: unknown, ctx: Ctx) => {
    // The core's readiness barrier; the ticket goes back on every exit path.
    const ticket = addon.openSession(generation, instance);
    try {
      // Pi's trust answer goes to the core, which narrows the config.
      const begin = sessionBegin(pi, ctx);
      const plan = addon.beginSession(generation, instance, begin);
      notifyAll(ctx, plan.notices);
      // Withdraw the registration; the core latched the own client.
      // Stryker disable next-line OptionalChaining: inside swallow(), a member that is missing throws and is swallowed to the same undefined
      if (plan.withdrawServer) swallow(() => pi.unregisterMcpServer?.(serverName));
      if (!plan.startOwnClient) return;
      showFooter(bridge, ctx);
      const started = await addon.startOwnClient(generation, instance, (update) => applyCatalogue(bridge, update));
      if (started.status !== "started") return;
      notifyAll(ctx, [started.userWarning]);
      applyCatalogue(bridge, started.catalogue);
    } catch {
      // The session goes on without the bridge.
    } finally {
      addon.closeSession(generation, instance, ticket);
      afterStep(bridge, ctx);
    }
  };
}

/** SES-10..15, HOOK-15: the core plans the turn before any await; this waits and forwards. */
function beforeAgentStart(bridge: Bridge) {
  const { pi, addon, generation, instance } = bridge;
  return async (event: { prompt?: unknown; messageType?: unknown }, ctx: Ctx) => {
    try {
      refreshReadiness(bridge, ctx);
      const turn = { prompt: textOf(event.prompt), messageType: textOf(event.messageType) };
      const plan = addon.planTurn(generation, instance, turn);
      if (plan.turn === "none") return undefined;
      // The core's capped wait on its readiness barrier.
      let ready = plan.readyWaitMs === undefined || (await addon.awaitReady(generation, instance, plan.readyWaitMs));
      if (plan.nativeWait) ready = await awaitTools(bridge, plan.nativeWait);
      const entries = plan.readContext ? contextEntries(ctx) : undefined;
      const request = { plan, cwd: cwdOf(pi, ctx), sessionId: sessionIdOf(ctx), ready, contextEntries: entries };
      const result = await addon.runTurn(generation, instance, request);
      notifyAll(ctx, result.notices);
      if (plan.turn === "first") afterStep(bridge, ctx);
      return result.message ? { message: result.message } : undefined;
    } catch {
      // The turn goes on without the bridge (the handler answers undefined).
    }
  };
}

/** NAT-2 at factory time; a throwing registerMcpServer is a refusal the core latches (NAT-5). */
function registerNative({ pi, addon, generation, instance }: Bridge): PathChoice {
  const hasRegisterMcpServer = typeof pi.registerMcpServer === "function";
  const choice = addon.choosePath(generation, instance, { hasRegisterMcpServer });
  if (!choice.native) return choice;
  try {
    // Stryker disable next-line OptionalChaining: the core chose native only because the method is there
    pi.registerMcpServer?.(choice.serverName, choice.serverConfig);
    return choice;
  } catch (error) {
    addon.refuseNative(generation, instance, error instanceof Error ? error.message : String(error));
    return { ...choice, native: false };
  }
}

export async function createInstance(pi: PiLike, addon: Addon, generation: number): Promise<void> {
  const instance = addon.createInstance();
  const extension = new addon.Extension(generation, instance);
  const bridge: Bridge = { pi, addon, extension, generation, instance };
  // The core arms the instance's readiness barrier as it resolves the configuration.
  await addon.resolveConfig(generation, instance, process.cwd());
  const path = registerNative(bridge);
  registerStatusCommand(bridge);
  pi.on("session_start", sessionStart(bridge, path.serverName));
  pi.on("session_compact", () => void swallow(() => extension.sessionCompact()));
  pi.on("before_agent_start", beforeAgentStart(bridge));
  // Only this instance's client; a second shutdown finds nothing.
  pi.on(
    "session_shutdown",
    async () => void (await swallow(() => extension.sessionShutdown())?.catch(() => undefined)),
  );
  registerToolEvents(bridge, path.native);
  // Stryker disable next-line OptionalChaining: inside swallow(), a member that is missing throws and is swallowed to the same undefined
  if (path.native) swallow(() => pi.registerToolRenderer?.(nativeRendererResolver(path.toolPrefix)));
}
