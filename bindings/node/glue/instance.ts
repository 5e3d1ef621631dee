// One extension instance (SES-2): created per factory call, wired to Pi's
// events in the SES-18 order. Every latch and decision lives in the core
// (the instance's latches, keyed by its handle); these handlers read Pi,
// forward to the addon and apply its answer.
import { ReadinessBarrier } from "./barrier.ts";
import type { Addon } from "./boundary.ts";
import { enforcementHandler } from "./enforce.ts";
import type { Ctx, PiLike } from "./host.ts";
import {
  awaitTools,
  commandNames,
  contextEntries,
  cwdOf,
  notifyAll,
  projectTrustOf,
  sessionIdOf,
  swallow,
  textOf,
} from "./host.ts";
import { registerNative, withdrawServer } from "./native.ts";
import { nativeRendererResolver } from "./render.ts";
import { type PathFacts, StatusReporter } from "./status.ts";
import { OwnTools } from "./tools.ts";
import { registerWatcher } from "./watcher.ts";

interface Instance {
  pi: PiLike;
  addon: Addon;
  generation: number;
  instance: number;
  barrier: ReadinessBarrier;
  status: StatusReporter;
  path: PathFacts;
}

function reportPanics({ addon, generation, instance }: Instance, ctx: Ctx | undefined): void {
  notifyAll(ctx, [swallow(() => addon.panicNotice(generation, instance))]);
}

/** SES-4..9, NAT-5, NAT-6: the plan comes from the core; this applies it. */
function sessionStart(self: Instance, tools: OwnTools, serverName: string) {
  const { pi, addon, generation, instance, barrier } = self;
  return async (_event: unknown, ctx: Ctx) => {
    const release = barrier.beginSession();
    try {
      // CFG-19: Pi's trust answer goes to the core, which narrows the config.
      const trusted = projectTrustOf(ctx);
      const begin = {
        parkedTurn: barrier.hasParkedTurn,
        commands: commandNames(pi),
        ...(trusted === undefined ? {} : { projectTrusted: trusted }),
      };
      const plan = addon.beginSession(generation, instance, begin);
      notifyAll(ctx, plan.notices);
      if (plan.withdrawServer) {
        withdrawServer(pi, serverName);
        self.path.native = false;
        self.path.fallback = "no_mcp_connector";
      }
      if (!plan.startOwnClient) return;
      self.status.footer(ctx);
      const started = await addon.startOwnClient(generation, instance, (update) => tools.apply(update));
      if (started.status !== "started") return;
      notifyAll(ctx, [started.userWarning]);
      tools.apply(started.catalogue);
    } catch {
      // FAIL-1: the session goes on without the bridge.
    } finally {
      release();
      reportPanics(self, ctx);
      self.status.footer(ctx);
    }
  };
}

/** SES-10..15, HOOK-15: the core plans the turn before any await; this waits and forwards. */
function beforeAgentStart(self: Instance) {
  const { pi, addon, generation, instance, barrier } = self;
  return async (event: { prompt?: unknown; messageType?: unknown }, ctx: Ctx) => {
    try {
      const plan = addon.planTurn(generation, instance, {
        prompt: textOf(event.prompt),
        messageType: textOf(event.messageType),
      });
      if (plan.turn === "none") return undefined;
      let ready = plan.readyWaitMs === undefined || (await barrier.wait(plan.readyWaitMs));
      if (plan.nativeWait) ready = await awaitTools(pi, addon, plan.nativeWait);
      const entries = plan.readContext ? contextEntries(ctx) : undefined;
      const request = { plan, cwd: cwdOf(pi, ctx), sessionId: sessionIdOf(ctx), ready, contextEntries: entries };
      const result = await addon.runTurn(generation, instance, request);
      notifyAll(ctx, result.notices);
      if (plan.turn === "first") {
        reportPanics(self, ctx);
        self.status.footer(ctx);
      }
      return result.message ? { message: result.message } : undefined;
    } catch {
      return undefined;
    }
  };
}

export async function createInstance(pi: PiLike, addon: Addon, generation: number): Promise<void> {
  const instance = addon.createInstance();
  // SES-3: armed before the first suspension point of the factory.
  const facts: PathFacts = { native: false };
  const status = new StatusReporter(pi, addon, generation, instance, facts);
  const self: Instance = { pi, addon, generation, instance, barrier: new ReadinessBarrier(), status, path: facts };
  const config = await addon.resolveConfig(generation, instance, process.cwd());
  const path = registerNative(pi, addon, generation, instance);
  facts.native = path.native;
  facts.toolPrefix = path.toolPrefix;
  status.register();
  pi.on("session_start", sessionStart(self, new OwnTools(pi, addon, generation), path.serverName));
  pi.on("session_compact", () => void swallow(() => addon.onCompact(generation, instance)));
  pi.on("before_agent_start", beforeAgentStart(self));
  pi.on("session_shutdown", async () => {
    // SES-16: only this instance's client; a second shutdown finds nothing.
    await addon.stopOwnClient(generation, instance).catch(() => undefined);
    return undefined;
  });
  if (config.enforce) pi.on("tool_call", enforcementHandler(pi, addon, generation, instance));
  registerWatcher(pi, addon, generation, instance);
  if (path.native) swallow(() => pi.registerToolRenderer?.(nativeRendererResolver(path.toolPrefix)));
}
