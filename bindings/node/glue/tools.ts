// Own-client tools (TOOL-4..11): registration from the core's catalogue
// updates, execute through the core with abort (MCP-30), edit diffs under
// Pi's per-file locks (DIFF-16), and withdrawn tools via setActiveTools.
import { withFileMutationQueue } from "@earendil-works/pi-coding-agent";

import type { CatalogueUpdate, ToolRegistration } from "./boundary.ts";
import type { Bridge, Ctx } from "./host.ts";
import { cwdOf, swallow } from "./host.ts";
import { renderCall, renderResult } from "./render.ts";

/** DIFF-16 step 2: nested per-file locks, in sorted order. */
function underLocks<T>(paths: string[], work: () => Promise<T>): Promise<T> {
  return paths.reduceRight<() => Promise<T>>((inner, path) => () => withFileMutationQueue(path, inner), work)();
}

/** Registers, withdraws and re-activates per one listing (TOOL-4, TOOL-10). */
export function applyCatalogue(bridge: Bridge, update: CatalogueUpdate | undefined): void {
  if (!update) return;
  const { pi, addon } = bridge;
  for (const tool of update.register) swallow(() => register(bridge, tool));
  if (update.deactivate.length === 0 && update.activate.length === 0) return;
  const changes = { register: [], deactivate: update.deactivate, activate: update.activate };
  swallow(() => pi.setActiveTools(addon.activeTools(pi.getActiveTools(), changes)));
}

/** The core sends metadata only to a host that takes it; one that still refuses it gets the bare tool (MCP-36). */
function register(bridge: Bridge, tool: ToolRegistration): void {
  const base = toolDef(bridge, tool);
  const extra = toolMetadata(tool);
  try {
    bridge.pi.registerTool({ ...base, ...extra });
  } catch (error) {
    if (Object.keys(extra).length === 0) throw error;
    bridge.pi.registerTool(base);
  }
}

function toolMetadata(tool: ToolRegistration): object {
  const { annotations, outputSchema } = tool;
  return { ...(annotations ? { annotations } : {}), ...(outputSchema ? { outputSchema } : {}) };
}

/** Pi's partial-result callback of a running tool. */
type OnUpdate = (partial: { content: { type: "text"; text: string }[]; details: object }) => void;

function toolDef(bridge: Bridge, tool: ToolRegistration) {
  const { name, description, parameters } = tool;
  return {
    name,
    label: name,
    description,
    parameters,
    execute: (id: string, params: unknown, signal?: AbortSignal, onUpdate?: OnUpdate, ctx?: Ctx) =>
      execute(bridge, tool, id, params ?? {}, signal, ctx, onUpdate),
    renderCall: renderCall(bridge.addon, name, tool.daemonName, process.cwd()),
    renderResult,
  };
}

/** TOOL-6: never resolves with a failure; throws the core's text instead. */
async function execute(
  bridge: Bridge,
  tool: ToolRegistration,
  callId: string,
  args: unknown,
  signal?: AbortSignal,
  ctx?: Ctx,
  onUpdate?: OnUpdate,
) {
  const { addon, generation, pi } = bridge;
  const cwd = cwdOf(pi, ctx);
  const candidates = ctx ? (swallow(() => addon.editCandidates(generation, tool.name, args, cwd)) ?? []) : [];
  const onAbort = () => swallow(() => addon.abortCall(generation, callId));
  // Stryker disable next-line ObjectLiteral,BooleanLiteral: a signal aborts once, and the finally removes the listener
  signal?.addEventListener("abort", onAbort, { once: true });
  // An already-aborted signal never fires "abort": tell the core now (MCP-30).
  if (signal?.aborted) onAbort();
  const request = { callId, name: tool.name, args, cwd, diff: candidates.length > 0 };
  // MCP-34: the core's throttled progress texts, shown as Pi's own MCP shows them.
  const onProgress = (text: string) => swallow(() => onUpdate?.({ content: [{ type: "text", text }], details: {} }));
  const run = () =>
    typeof onUpdate === "function"
      ? addon.executeTool(generation, request, onProgress)
      : addon.executeTool(generation, request);
  let result: Awaited<ReturnType<typeof run>>;
  try {
    result = await underLocks(candidates, run); // no candidates: no locks, just the call
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
  applyCatalogue(bridge, result.catalogue);
  if (!result.ok) throw new Error(result.text);
  // MCP-37: the blocks the core converted (text and images), else the text alone.
  const content = result.content ?? [{ type: "text" as const, text: result.text }];
  return { content, details: result.details ?? {} };
}
