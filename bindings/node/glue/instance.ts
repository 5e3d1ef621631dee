// One extension instance (SES-2): created per factory call, wired to Pi's
// events in the SES-18 order. Module-generation state lives in the core,
// keyed by the generation handle of the import (SES-1).
import { ReadinessBarrier } from "./barrier.ts";
import type { Addon, HostConfig } from "./boundary.ts";
import { enforcementHandler } from "./enforce.ts";
import type { Ctx, PiLike } from "./host.ts";
import { cwdOf, notifyWarning, projectTrustOf, sessionIdOf, swallow } from "./host.ts";
import { awaitNativeTools, choosePath, hasMcpConnector, MCP_TOOL_PREFIX, withdrawServer } from "./native.ts";
import { nativeRendererResolver } from "./render.ts";
import { OwnTools } from "./tools.ts";
import { registerWatcher } from "./watcher.ts";

/** The one warning a caught core panic produces per session (FAIL-4). */
export function panicWarning(message: string): string {
  return `pi-gortex hit an internal error and continued without that step (${message}).`;
}

interface BeforeAgentStartLike {
  prompt?: unknown;
  messageType?: unknown;
}

/** HOOK-15: the user prompt of this turn, if the event carries one. */
function userPrompt(event: BeforeAgentStartLike): string | undefined {
  if (event.messageType !== undefined && event.messageType !== "user") return undefined;
  return typeof event.prompt === "string" && event.prompt ? event.prompt : undefined;
}

/** SES-14: whether the session already holds a briefing. */
function briefingInContext(addon: Addon, ctx: Ctx): boolean {
  const manager = ctx.sessionManager;
  if (typeof manager?.buildContextEntries !== "function") return false;
  try {
    const entries = manager.buildContextEntries();
    if (!Array.isArray(entries)) return false;
    const text = (value: unknown) => (typeof value === "string" ? value : undefined);
    const projected = entries.map((entry: { type?: unknown; customType?: unknown; details?: unknown }) => ({
      type: text(entry?.type),
      customType: text(entry?.customType),
      details: entry?.details,
    }));
    return addon.briefingInContext(projected);
  } catch {
    return false;
  }
}

/** CFG-19: one notice per folder for this import, not one per session (`/new` makes a new instance). */
const trustNoticesGiven = new Set<string>();

export async function createInstance(pi: PiLike, addon: Addon, generation: number): Promise<void> {
  const instance = addon.createInstance();
  // SES-3: armed before the first suspension point of the factory.
  const barrier = new ReadinessBarrier();
  let config: HostConfig = await addon.resolveConfig(generation, instance, process.cwd());
  const path = choosePath(pi, addon, generation, instance);
  const tools = new OwnTools(pi, addon, generation);
  let firstTurnTaken = false;
  let briefing: string | undefined;
  let compacted = false;
  let panicReported = false;
  let configWarned = false;

  // CFG-19: the project sidecar counts only in a folder the host trusts. The
  // factory resolved it in (no ctx yet); each session start narrows it away
  // when ctx.isProjectTrusted() says no. A native registration made from
  // values that no longer hold is withdrawn and redone.
  const applyTrust = (ctx: Ctx) => {
    const trusted = projectTrustOf(ctx);
    if (trusted === undefined) return;
    const before = config;
    config = addon.trustProject(generation, instance, trusted);
    if (config.trustNotice && !trustNoticesGiven.has(config.trustNotice)) {
      trustNoticesGiven.add(config.trustNotice);
      notifyWarning(ctx, config.trustNotice);
    }
    const nativeChanged = before.nativeMcp !== config.nativeMcp || before.toolsPreset !== config.toolsPreset;
    if (!nativeChanged || typeof pi.registerMcpServer !== "function") return;
    if (path.native) withdrawServer(pi);
    const next = choosePath(pi, addon, generation, instance);
    path.native = next.native;
    delete path.refusal;
    if (next.refusal) path.refusal = next.refusal;
  };

  const isNative = () => path.native;
  const reportPanics = (ctx: Ctx | undefined) => {
    const panics = swallow(() => addon.takePanics()) ?? [];
    if (panics.length === 0 || panicReported) return;
    panicReported = true;
    notifyWarning(ctx, panicWarning(panics[0]!));
  };

  pi.on("session_start", async (_event: unknown, ctx: Ctx) => {
    const release = barrier.beginSession();
    try {
      applyTrust(ctx);
      // A bad sidecar or environment value falls through to the next layer;
      // the user hears about it once, in this session's first start.
      if (!configWarned && config.warnings.length > 0) {
        configWarned = true;
        notifyWarning(ctx, `pi-gortex configuration: ${config.warnings.join("; ")}`);
      }
      // SES-6
      swallow(() => addon.beginSession(generation));
      briefing = undefined;
      compacted = false;
      panicReported = false;
      if (!barrier.hasParkedTurn) firstTurnTaken = false;
      // SES-7 step 1, NAT-6, NAT-14
      if (path.native) {
        if (hasMcpConnector(pi)) return;
        withdrawServer(pi);
        path.native = false;
      }
      if (path.refusal) notifyWarning(ctx, addon.refusalNotice(path.refusal));
      const started = await addon.startOwnClient(generation, instance, (update) => tools.apply(update));
      if (started.status !== "started") return;
      if (started.userWarning) notifyWarning(ctx, started.userWarning);
      tools.apply(started.catalogue);
    } catch {
      // FAIL-1: the session goes on without the bridge.
    } finally {
      release();
      reportPanics(ctx);
    }
  });

  pi.on("session_compact", () => {
    compacted = true;
    return undefined;
  });

  pi.on("before_agent_start", async (event: BeforeAgentStartLike, ctx: Ctx) => {
    try {
      const prompt = config.promptContext ? userPrompt(event) : undefined;
      const cwd = cwdOf(pi, ctx);
      const sessionId = sessionIdOf(ctx);
      if (!firstTurnTaken) {
        // SES-10: latched before the first suspension point.
        firstTurnTaken = true;
        let ready = await barrier.wait();
        if (path.native) ready = await awaitNativeTools(pi, addon);
        const result = await addon.firstTurn(generation, instance, {
          cwd,
          sessionId,
          ready,
          native: path.native,
          briefingInContext: briefingInContext(addon, ctx),
          ...(prompt ? { prompt } : {}),
        });
        briefing = result.briefing;
        if (result.userWarning) notifyWarning(ctx, result.userWarning);
        reportPanics(ctx);
        return result.message ? { message: result.message } : undefined;
      }
      const wasCompacted = compacted;
      compacted = false;
      if (!wasCompacted && !prompt) return undefined;
      const result = await addon.laterTurn(generation, instance, {
        cwd,
        sessionId,
        compacted: wasCompacted,
        ...(briefing ? { briefing } : {}),
        briefingInContext: wasCompacted ? briefingInContext(addon, ctx) : false,
        ...(prompt ? { prompt } : {}),
      });
      return result.message ? { message: result.message } : undefined;
    } catch {
      return undefined;
    }
  });

  pi.on("session_shutdown", async () => {
    // SES-16: only this instance's client; a second shutdown finds nothing.
    try {
      await addon.stopOwnClient(generation, instance);
    } catch {
      // FAIL-3
    }
    return undefined;
  });

  // Registered whatever the factory's config says: trust (CFG-19) may turn
  // enforcement back on at session start; the gate reads the current value.
  const enforce = enforcementHandler(pi, addon, generation, instance, isNative);
  pi.on("tool_call", (event, ctx) => (config.enforce ? enforce(event, ctx) : undefined));
  registerWatcher(pi, addon, generation, isNative);
  if (path.native && typeof pi.registerToolRenderer === "function") {
    swallow(() => pi.registerToolRenderer!(nativeRendererResolver(MCP_TOOL_PREFIX)));
  }
}
