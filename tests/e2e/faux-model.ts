/**
 * faux-model.ts - the scripted model for the end-to-end suite (pi-host.md E2E-4).
 *
 * Loaded by the real `pi` CLI with `-e`, next to (never inside) the extension under test, so a
 * failing pi-gortex factory cannot take the model down with it and mask the failure (E2E-3).
 *
 * - Registers Pi's built-in faux provider as `faux/faux-1` (no key, no network). The
 *   `@earendil-works/pi-ai` import is aliased by Pi's loader to the running Pi's own copy.
 * - Plays the script in env `PI_E2E_SCRIPT` (a JSON array). Steps:
 *   `{"call": name, "args": {...}}`, `{"calls": [[name, args], ...]}`, `{"say": text}`,
 *   `{"report": true}`. When the script is exhausted it answers `DONE`.
 * - Env `PI_E2E_ENABLE_TOOLS` (comma list) adds Pi built-ins that are off by default (`grep`,
 *   `find`, `ls`) to the active tools at `session_start`: test setup, so a script can call them.
 * - Appends one JSON line per observation to env `PI_E2E_LOG`: every model request (`model`,
 *   with the messages and tool declarations the model received) and the Pi events the tests
 *   assert. Handlers only observe; they never return anything, so they cannot change what they
 *   measure.
 */
import { appendFileSync } from "node:fs";
import * as piAi from "@earendil-works/pi-ai";
import { VERSION } from "@earendil-works/pi-coding-agent";

const { fauxAssistantMessage, fauxToolCall } = piAi;

type Step =
  | { call: string; args?: Record<string, unknown> }
  | { calls: [string, Record<string, unknown>][] }
  | { say: string }
  | { report: true };

/** Why: the summary request of a compaction must not consume a script step (E2E-8). */
const SUMMARY_MARKERS = ["<conversation>", "# Conversation"];
const SUMMARY_TEXT = "## Goal\nSUMMARY";
/** Why: the faux queue consumes one entry per request, compaction summaries included (E2E-11). */
const QUEUED_FACTORIES = 64;

function log(record: Record<string, unknown>): void {
  const path = process.env.PI_E2E_LOG;
  if (!path) return;
  try {
    appendFileSync(path, `${JSON.stringify({ t: Date.now(), ...record })}\n`);
  } catch {
    // A lost log line shows up as a failed assertion; the run itself must go on.
  }
}

function readScript(): Step[] {
  try {
    const parsed = JSON.parse(process.env.PI_E2E_SCRIPT ?? "[]");
    return Array.isArray(parsed) ? parsed : [];
  } catch {
    return [];
  }
}

/** Text of a message's content, whatever its shape (string or blocks). */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((block) => block && block.type === "text" && typeof block.text === "string")
    .map((block) => block.text)
    .join("\n");
}

/** The messages as the model received them, reduced to what tests assert on. */
function summarizeMessages(messages: any[]) {
  const tools = new Map<string, string>();
  const out: Record<string, unknown>[] = [];
  for (const message of messages) {
    if (message.role === "system") {
      for (const tool of message.toolsAdded ?? []) tools.set(tool.name, tool.description ?? "");
      for (const tool of message.toolsRemoved ?? []) tools.delete(tool.name);
      out.push({ role: "system" });
    } else if (message.role === "assistant") {
      const calls = (message.content ?? []).filter((b: any) => b.type === "toolCall");
      out.push({
        role: "assistant",
        text: textOf(message.content),
        calls: calls.map((c: any) => ({ id: c.id, name: c.name, args: c.arguments })),
      });
    } else if (message.role === "toolResult") {
      out.push({
        role: "toolResult",
        toolName: message.toolName,
        toolCallId: message.toolCallId,
        isError: message.isError === true,
        text: textOf(message.content),
      });
    } else {
      out.push({ role: message.role, text: textOf(message.content) });
    }
  }
  return { messages: out, tools: [...tools].map(([name, description]) => ({ name, description })) };
}

function isSummaryRequest(messages: any[]): boolean {
  const users = messages.filter((m) => m.role === "user");
  const last = users[users.length - 1];
  if (!last) return false;
  const text = textOf(last.content).trimStart();
  return SUMMARY_MARKERS.some((marker) => text.startsWith(marker));
}

function report(messages: any[]): string {
  const toolResults = messages
    .filter((m) => m.role === "toolResult")
    .map((m) => ({ name: m.toolName, isError: m.isError === true, text: textOf(m.content) }));
  const users = messages.filter((m) => m.role === "user").map((m) => textOf(m.content));
  return `REPORT ${JSON.stringify({ toolResults, users })}`;
}

const FAUX = { provider: "faux", api: "faux-api", models: [{ id: "faux-1", name: "Faux 1" }] };

/**
 * Registers the faux provider with the running Pi and returns its handle (`setResponses`). Pi
 * 0.81 and later take the provider object. Pi 0.80 takes only a name and a config. Pi 0.79 and
 * older have no `fauxProvider`: `registerFauxProvider` puts the streams in pi-ai's registry under
 * the `api` name, where Pi finds them for the models of the config.
 */
function registerFaux(pi: any): { setResponses(responses: unknown[]): void } {
  const ai: any = piAi;
  const config = { baseUrl: "http://faux.invalid", apiKey: "faux", api: FAUX.api };
  if (typeof ai.fauxProvider !== "function") {
    const faux = ai.registerFauxProvider(FAUX);
    pi.registerProvider(FAUX.provider, { ...config, models: faux.models });
    return faux;
  }
  const faux = ai.fauxProvider(FAUX);
  const [major, minor] = VERSION.split(".").map(Number);
  if (major >= 1 || minor >= 81) pi.registerProvider(faux.provider);
  else pi.registerProvider(FAUX.provider, { ...config, streamSimple: faux.provider.streamSimple, models: faux.models });
  return faux;
}

export default function fauxModel(pi: any): void {
  const script = readScript();
  let cursor = 0;
  let nextCallId = 1;
  let request = 0;

  const faux = registerFaux(pi);

  const answer = (context: any) => {
    const messages: any[] = context?.messages ?? [];
    request += 1;
    const seen = summarizeMessages(messages);
    if (isSummaryRequest(messages)) {
      log({ ev: "model", request, summary: true, ...seen });
      return fauxAssistantMessage(SUMMARY_TEXT);
    }
    const step = script[cursor];
    log({ ev: "model", request, step: cursor, ...seen });
    if (step === undefined) return fauxAssistantMessage("DONE");
    cursor += 1;
    if ("call" in step) {
      const id = `call_${nextCallId++}`;
      return fauxAssistantMessage([fauxToolCall(step.call, step.args ?? {}, { id })], { stopReason: "toolUse" });
    }
    if ("calls" in step) {
      const calls = step.calls.map(([name, args]) => fauxToolCall(name, args ?? {}, { id: `call_${nextCallId++}` }));
      return fauxAssistantMessage(calls, { stopReason: "toolUse" });
    }
    if ("say" in step) return fauxAssistantMessage(step.say);
    return fauxAssistantMessage(report(messages));
  };
  faux.setResponses(Array.from({ length: QUEUED_FACTORIES }, () => answer));

  const safe = (fn: () => unknown) => {
    try {
      return fn();
    } catch (error) {
      return { error: String(error) };
    }
  };
  const names = (list: unknown) =>
    Array.isArray(list) ? list.map((item: any) => (typeof item === "string" ? item : item?.name)) : list;

  const enable = (process.env.PI_E2E_ENABLE_TOOLS ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  pi.on("session_start", (event: any, ctx: any) => {
    if (enable.length) safe(() => pi.setActiveTools([...new Set([...pi.getActiveTools(), ...enable])]));
    log({
      ev: "session_start",
      reason: event?.reason,
      cwd: ctx?.cwd,
      mode: ctx?.mode,
      hasUI: ctx?.hasUI,
      commands: names(safe(() => pi.getCommands())),
      allTools: names(safe(() => pi.getAllTools())),
      activeTools: safe(() => pi.getActiveTools()),
    });
  });
  pi.on("before_agent_start", (event: any) => {
    log({ ev: "before_agent_start", prompt: event?.prompt, messageType: event?.messageType });
  });
  pi.on("session_compact", () => {
    log({ ev: "session_compact" });
  });
  pi.on("tool_call", (event: any) => {
    log({
      ev: "tool_call",
      toolName: event?.toolName,
      toolCallId: event?.toolCallId,
      input: event?.input,
      parentToolCallId: event?.parentToolCallId,
    });
  });
  pi.on("tool_result", (event: any) => {
    log({
      ev: "tool_result",
      toolName: event?.toolName,
      toolCallId: event?.toolCallId,
      isError: event?.isError,
      text: textOf(event?.content),
      details: event?.details,
    });
  });
  pi.on("tool_execution_end", (event: any) => {
    log({
      ev: "tool_execution_end",
      toolName: event?.toolName,
      toolCallId: event?.toolCallId,
      isError: event?.isError,
      result: event?.result,
    });
  });
  pi.on("turn_start", () => {
    log({
      ev: "turn_start",
      activeTools: safe(() => pi.getActiveTools()),
      allTools: names(safe(() => pi.getAllTools())),
    });
  });
  pi.on("turn_end", () => {
    log({ ev: "turn_end" });
  });
  pi.on("agent_end", () => {
    log({ ev: "agent_end" });
  });
  pi.on("session_shutdown", (event: any) => {
    log({ ev: "session_shutdown", reason: event?.reason });
  });
}
