// Own-client tools: registration from the core's catalogue updates,
// execute through the core with abort, edit diffs under Pi's per-file
// locks, and withdrawn tools via setActiveTools.
import { withFileMutationQueue } from "@earendil-works/pi-coding-agent";

import type { CatalogueUpdate, ToolRegistration } from "./boundary.ts";
import type { Ctx, Instance } from "./host.ts";
import { cwdOf, swallow } from "./host.ts";
import { renderCall, renderResult } from "./render.ts";

/** Nested per-file locks, in sorted order, so Pi's own edit cannot interleave. */
function underLocks<T>(paths: string[], work: () => Promise<T>): Promise<T> {
  return paths.reduceRight<() => Promise<T>>((inner, path) => () => withFileMutationQueue(path, inner), work)();
}

/** Registers, withdraws and re-activates per one listing. */
export function applyCatalogue(instance: Instance, update: CatalogueUpdate | undefined): void {
  if (!update) return;
  const { pi, addon } = instance;
  for (const tool of update.register) swallow(() => register(instance, tool));
  if (update.deactivate.length === 0 && update.activate.length === 0) return;
  const changes = { register: [], deactivate: update.deactivate, activate: update.activate };
  swallow(() => pi.setActiveTools(addon.activeTools(pi.getActiveTools(), changes)));
}

/** The core sends metadata only to a host that takes it; one that still refuses it gets the bare tool. */
function register(instance: Instance, tool: ToolRegistration): void {
  const base = toolDef(instance, tool);
  const extra = toolMetadata(tool);
  try {
    instance.pi.registerTool({ ...base, ...extra });
  } catch (error) {
    if (Object.keys(extra).length === 0) throw error;
    instance.pi.registerTool(base);
  }
}

function toolMetadata(tool: ToolRegistration): object {
  const { annotations, outputSchema } = tool;
  return { ...(annotations ? { annotations } : {}), ...(outputSchema ? { outputSchema } : {}) };
}

/** Pi's partial-result callback of a running tool. */
type OnUpdate = (partial: { content: { type: "text"; text: string }[]; details: object }) => void;

function toolDef(instance: Instance, tool: ToolRegistration) {
  const { name, description, parameters } = tool;
  return {
    name,
    label: name,
    description,
    parameters,
    execute: (id: string, params: unknown, signal?: AbortSignal, onUpdate?: OnUpdate, ctx?: Ctx) =>
      execute(instance, tool, id, params ?? {}, signal, ctx, onUpdate),
    renderCall: renderCall(instance.addon, name, tool.daemonName, process.cwd()),
    renderResult,
  };
}

/** Never resolves with a failure; throws the core's text instead. */
async function execute(
  instance: Instance,
  tool: ToolRegistration,
  callId: string,
  args: unknown,
  signal?: AbortSignal,
  ctx?: Ctx,
  onUpdate?: OnUpdate,
) {
  const { extension, pi } = instance;
  const cwd = cwdOf(pi, ctx);
  const candidates = ctx ? (swallow(() => extension.editCandidates(tool.name, args, cwd)) ?? []) : [];
  const onAbort = () => swallow(() => extension.abortCall(callId));
  signal?.addEventListener("abort", onAbort, { once: true });
  // An already-aborted signal never fires "abort": tell the core now (MCP-30).
  if (signal?.aborted) onAbort();
  const request = { callId, name: tool.name, args, cwd, diff: candidates.length > 0 };
  // The core's throttled progress texts, shown as Pi's own MCP shows them.
  const onProgress = (text: string) => swallow(() => onUpdate?.({ content: [{ type: "text", text }], details: {} }));
  const run = () =>
    typeof onUpdate === "function" ? extension.executeTool(request, onProgress) : extension.executeTool(request);
  let result: Awaited<ReturnType<typeof run>>;
  try {
    result = await underLocks(candidates, run); // no candidates: no locks, just the call
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
  applyCatalogue(instance, result.catalogue);
  if (!result.ok) throw new Error(result.text);
  // The blocks the core converted (text and images), else the text alone.
  const content = result.content ?? [{ type: "text" as const, text: result.text }];
  return { content, details: result.details ?? {} };
}
