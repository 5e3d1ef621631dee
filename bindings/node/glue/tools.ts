// Own-client tools (TOOL-4..11): registration from the core's catalogue
// updates, execute through the core with abort (MCP-30), edit diffs under
// Pi's per-file locks (DIFF-16), and withdrawn tools via setActiveTools.
import { withFileMutationQueue } from "@earendil-works/pi-coding-agent";

import type { Addon, CatalogueUpdate, ToolExecuteResult, ToolRegistration } from "./boundary.ts";
import type { Ctx, PiLike } from "./host.ts";
import { cwdOf, swallow } from "./host.ts";
import { renderCall, renderResult } from "./render.ts";

/** DIFF-16 step 2: nested per-file locks, in sorted order. */
function underLocks<T>(paths: string[], work: () => Promise<T>): Promise<T> {
  return paths.reduceRight<() => Promise<T>>((inner, path) => () => withFileMutationQueue(path, inner), work)();
}

export class OwnTools {
  private readonly pi: PiLike;
  private readonly addon: Addon;
  private readonly generation: number;

  constructor(pi: PiLike, addon: Addon, generation: number) {
    this.pi = pi;
    this.addon = addon;
    this.generation = generation;
  }

  /** Registers, withdraws and re-activates per one listing (TOOL-4, TOOL-10). */
  apply(update: CatalogueUpdate | undefined): void {
    if (!update) return;
    for (const tool of update.register) this.register(tool);
    if (update.deactivate.length === 0 && update.activate.length === 0) return;
    const changes = { register: [], deactivate: update.deactivate, activate: update.activate };
    swallow(() => this.pi.setActiveTools(this.addon.activeTools(this.pi.getActiveTools(), changes)));
  }

  private register(tool: ToolRegistration): void {
    const { addon, pi } = this;
    swallow(() =>
      pi.registerTool({
        name: tool.name,
        label: tool.name,
        description: tool.description,
        parameters: tool.parameters,
        execute: (toolCallId, params, signal, _onUpdate, ctx) => this.execute(tool, toolCallId, params, signal, ctx),
        renderCall: renderCall(addon, tool.name, tool.daemonName, process.cwd()),
        renderResult: renderResult(),
      }),
    );
  }

  /** TOOL-6: never resolves with a failure; throws the core's text instead. */
  private async execute(
    tool: ToolRegistration,
    toolCallId: string,
    params: unknown,
    signal: AbortSignal | undefined,
    ctx: Ctx | undefined,
  ) {
    const { addon, generation, pi } = this;
    const args = params ?? {};
    const cwd = cwdOf(pi, ctx);
    const candidates = ctx ? (swallow(() => addon.editCandidates(generation, tool.name, args, cwd)) ?? []) : [];
    const onAbort = () => swallow(() => addon.abortCall(generation, toolCallId));
    signal?.addEventListener("abort", onAbort, { once: true });
    // An already-aborted signal never fires "abort": tell the core now (MCP-30).
    if (signal?.aborted) onAbort();
    let result: ToolExecuteResult;
    try {
      const run = () =>
        addon.executeTool(generation, { callId: toolCallId, name: tool.name, args, cwd, diff: candidates.length > 0 });
      result = candidates.length > 0 ? await underLocks(candidates, run) : await run();
    } finally {
      signal?.removeEventListener("abort", onAbort);
    }
    this.apply(result.catalogue);
    if (!result.ok) throw new Error(result.text);
    return { content: [{ type: "text" as const, text: result.text }], details: result.details ?? {} };
  }
}
