// The slice of Pi's ExtensionAPI the glue touches (the Pi host's extension API), typed
// structurally so one glue serves Pi 0.87.1 and 1.6.0. Every optional member
// is feature-detected before use, and every call Pi may refuse is
// wrapped so its error is swallowed.
import type { Addon, ContextEntry, Extension, SessionBegin } from "./boundary.ts";

export type Theme = { fg(color: string, text: string): string; bold(text: string): string };

export interface Ctx {
  cwd?: string;
  hasUI?: boolean;
  /** Always present in Pi's context (both hosts); the calls are still wrapped. */
  ui: { notify(text: string, level?: string): void; setStatus(key: string, text: string | undefined): void };
  sessionManager?: { getSessionId?(): string; sessionId?: unknown; buildContextEntries?(): unknown };
  isProjectTrusted?(): boolean;
}

/** A `tool_call` event, or a `tool_result` with its result, as far as the glue reads it. */
export interface ToolEventLike {
  toolCallId?: string;
  toolName?: string;
  input?: unknown;
  parentToolCallId?: string;
  content?: { type: string; text?: string }[];
  details?: unknown;
  isError?: boolean;
}

export type RenderResult = (
  result: ToolEventLike,
  options: { expanded?: boolean },
  theme: Theme,
  context?: Record<string, unknown>,
) => unknown;

// Pi's handler signature: (event, ctx) => result. Each handler declares the event
// shape it reads; `never` admits any of them (only Pi calls these).
export type Handler = (event: never, ctx: Ctx) => unknown;

export interface PiLike {
  on(event: string, handler: Handler): void;
  registerTool(tool: object): void;
  sendMessage(message: unknown, options?: unknown): void;
  getActiveTools(): string[];
  setActiveTools(names: string[]): void;
  getAllTools(): ({ name: string } | string)[];
  getCommands(): { name: string }[];
  registerMcpServer?(name: string, config: unknown): void;
  unregisterMcpServer?(name: string): void;
  registerToolRenderer?(resolver: (toolName: string, next: () => unknown) => unknown): void;
  registerCommand?(name: string, options: { description?: string; handler(args: string, ctx: Ctx): unknown }): void;
  cwd?: unknown;
}

/** One factory call as its handlers see it: Pi's API, the addon, and this call's core object. */
export type Instance = { pi: PiLike; addon: Addon; extension: Extension };

/** Runs `work`, swallowing any error: a failing Pi member never breaks a handler. */
export function swallow<T>(work: () => T): T | undefined {
  try {
    return work();
  } catch {
    // The answer is "nothing" (undefined).
  }
}

/** Each present text as a user warning, only with a UI; errors swallowed. */
export function notifyAll(ctx: Ctx | undefined, texts: (string | null | undefined)[]): void {
  for (const text of texts) if (text && ctx?.hasUI) swallow(() => ctx.ui.notify(text, "warning"));
}

/** A string value of a Pi event field, else undefined. */
export function textOf(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** HOOK-9 cwd: `ctx.cwd`, else `pi.cwd`, else the process cwd. */
export function cwdOf(pi: PiLike, ctx: Ctx | undefined): string {
  return textOf(ctx?.cwd) || textOf(swallow(() => pi.cwd)) || process.cwd();
}

/** The session id: `getSessionId()` where Pi has it, else the field. */
export function sessionIdOf(ctx: Ctx | undefined): string {
  const manager = ctx?.sessionManager;
  const getter = manager?.getSessionId;
  return textOf(typeof getter === "function" ? swallow(() => getter.call(manager)) : manager?.sessionId) ?? "";
}

/** What the core reads at `session_start`: Pi's commands (whether Pi has an MCP connector; undefined when
 * Pi cannot give them) and Pi's project trust (absent on a Pi without the API or when it throws). */
export function sessionBegin(pi: PiLike, ctx: Ctx | undefined): SessionBegin {
  const commands = swallow(() => pi.getCommands().map((command) => command.name));
  const trusted = swallow(() => ctx?.isProjectTrusted?.());
  return { commands, ...(typeof trusted === "boolean" ? { projectTrusted: trusted } : {}) };
}

/** Names of every tool Pi has, undefined when Pi cannot give them. */
export function toolNames(pi: PiLike): string[] | undefined {
  return swallow(() => pi.getAllTools().map((tool) => (typeof tool === "string" ? tool : tool.name)));
}

/** The session's context entries, projected to what the core reads. */
export function contextEntries(ctx: Ctx): ContextEntry[] | undefined {
  const entries = swallow(() => ctx.sessionManager?.buildContextEntries?.());
  if (!Array.isArray(entries)) return undefined;
  return entries.map((e) => ({ type: textOf(e?.type), customType: textOf(e?.customType), details: e?.details }));
}

/** The text parts of a tool result, joined by newlines. */
export function resultText(result: ToolEventLike): string {
  const texts = (result.content ?? []).filter((item) => item.type === "text" && typeof item.text === "string");
  return texts.map((item) => item.text).join("\n");
}
