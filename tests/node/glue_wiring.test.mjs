// The glue's wiring against a recording double of the addon: which core call each Pi event
// makes, with which arguments, and how the answer is applied (SES-18 order, DIFF-15..20,
// HOOK-10/11/16, NAT-15, TOOL-4..10, STAT-1..3). The ExtensionRunner suites prove the same
// paths with the real core; a double is the only way to see what the glue must NOT do: no
// async hop and no argument copy for a call that needs nothing, no setActiveTools
// for a listing that changes nothing, no candidates without a tool context. Fast, so Stryker
// (`make mutants-ts`) runs it early.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { runInNewContext } from "node:vm";
import { EXPECTED_NATIVE_HANDLERS } from "./lib/handlers.mjs";

const glue = (file) => import(new URL(`../../bindings/node/glue/${file}`, import.meta.url).href);
const { registerToolEvents } = await glue("tool_events.ts");
const { applyCatalogue } = await glue("tools.ts");
const { registerStatusCommand, showFooter } = await glue("status.ts");
const { createInstance } = await glue("instance.ts");

const boom = () => {
  throw new Error("host member failed");
};

/**
 * An addon whose every export, and every method of the Extension objects it makes, records its
 * arguments and answers from `answers` (keyed by the export's or the method's name).
 */
function addonDouble(answers = {}) {
  const calls = [];
  const recorder =
    (name) =>
    (...args) => {
      calls.push([name, ...args]);
      const answer = answers[name];
      return typeof answer === "function" ? answer(...args) : answer;
    };
  const extension = new Proxy({}, { get: (_target, name) => recorder(name) });
  const shared = { module: "shared" };
  // Constructors the glue calls with `new`: each records the call and answers its object.
  function Extension(...args) {
    calls.push(["new Extension", ...args]);
    return extension;
  }
  function Module() {
    calls.push(["new Module"]);
    return shared;
  }
  const classes = { Extension, Module };
  const addon = new Proxy({}, { get: (_target, name) => classes[name] ?? recorder(name) });
  const of = (name) => calls.filter((call) => call[0] === name).map((call) => call.slice(1));
  return { addon, calls, of, shared };
}

/** A Pi that records what the glue asks of it. */
function piDouble(extra = {}) {
  const handlers = new Map();
  const record = { sent: [], registered: [], activeSets: [], commands: new Map(), renderers: [] };
  const pi = {
    record,
    handlers,
    on: (event, handler) => handlers.set(event, [...(handlers.get(event) ?? []), handler]),
    registerTool: (tool) => record.registered.push(tool),
    sendMessage: (message, options) => record.sent.push({ message, options }),
    getActiveTools: () => ["read"],
    setActiveTools: (names) => record.activeSets.push(names),
    getAllTools: () => [{ name: "read" }],
    getCommands: () => [],
    registerCommand: (name, options) => record.commands.set(name, options),
    registerToolRenderer: (resolver) => record.renderers.push(resolver),
    cwd: "/pi-cwd",
    ...extra,
  };
  return pi;
}

const handlersOf = (pi, event) => pi.handlers.get(event) ?? [];
/** Runs every handler of `event` and returns their results (awaited). */
const emit = (pi, event, payload, ctx) => Promise.all(handlersOf(pi, event).map((handler) => handler(payload, ctx)));
const ctxOf = (extra = {}) => {
  const shown = [];
  const status = [];
  return {
    shown,
    status,
    cwd: "/ctx-cwd",
    hasUI: true,
    sessionManager: { getSessionId: () => "sess" },
    ui: { notify: (text, level) => shown.push({ text, level }), setStatus: (key, text) => status.push({ key, text }) },
    ...extra,
  };
};
const instanceOf = (pi, addon) => ({ pi, addon, extension: new addon.Extension(new addon.Module()) });

describe("tool_events.ts: the tool event handlers", () => {
  test("a tool_call the core answers with null is answered synchronously; the event goes as Pi gave it", () => {
    const { addon, of } = addonDouble({ toolCall: null });
    const pi = piDouble();
    registerToolEvents(instanceOf(pi, addon), false);
    assert.equal(handlersOf(pi, "tool_call").length, 1, "one handler whether or not the hook is enforced");
    const [handler] = handlersOf(pi, "tool_call");
    const event = { toolCallId: "c1", toolName: "grep", input: { big: "x" }, parentToolCallId: 5 };
    assert.equal(handler(event, ctxOf()), undefined, "not a promise");
    assert.equal(of("toolCall").length, 1);
    assert.equal(of("toolCall")[0][0], event, "Pi's own object, not a copy");
    // The cwd and session id go as a function the core calls only when it needs them.
    const placeOf = (call) => call.slice(1).map((place) => place());
    assert.deepEqual(placeOf(of("toolCall")[0]), [["/ctx-cwd", "sess"]]);
    handler({}, ctxOf({ cwd: undefined, sessionManager: undefined }));
    assert.deepEqual(placeOf(of("toolCall")[1]), [["/pi-cwd", ""]], "HOOK-9: pi.cwd, then no session id");
  });

  test("HOOK-10/11/16: the core's action blocks with the reason, steers with a steer message, fails open", async () => {
    const actions = {
      b: { action: "block", reason: "use gortex" },
      s: { action: "steer", message: { customType: "gortex", content: "hint" } },
      p: { action: "none" },
    };
    const { addon } = addonDouble({
      toolCall: (event) =>
        event.toolCallId === "x"
          ? Promise.reject(new Error("hook exchange failed"))
          : event.toolCallId === "t"
            ? boom()
            : Promise.resolve(actions[event.toolCallId]),
    });
    const pi = piDouble();
    registerToolEvents(instanceOf(pi, addon), false);
    const [handler] = handlersOf(pi, "tool_call");
    assert.deepEqual(await handler({ toolCallId: "b", toolName: "read" }, ctxOf()), {
      block: true,
      reason: "use gortex",
    });
    assert.equal(await handler({ toolCallId: "s", toolName: "read" }, ctxOf()), undefined);
    assert.deepEqual(pi.record.sent, [
      { message: { customType: "gortex", content: "hint" }, options: { deliverAs: "steer" } },
    ]);
    assert.equal(await handler({ toolCallId: "p", toolName: "read" }, ctxOf()), undefined);
    assert.equal(await handler({ toolCallId: "x", toolName: "read" }, ctxOf()), undefined, "a rejection");
    assert.equal(handler({ toolCallId: "t", toolName: "read" }, ctxOf()), undefined, "a throw");
    assert.equal(pi.record.sent.length, 1, "only the steer sent a message");
  });

  test("an action the core answers as a value is applied synchronously, with no promise", () => {
    const actions = {
      b: { action: "block", reason: "use gortex" },
      s: { action: "steer", message: { customType: "gortex", content: "hint" } },
      p: { action: "none" },
    };
    const { addon } = addonDouble({
      toolCall: (event) => actions[event.toolCallId],
      toolResult: (event) => (event.toolCallId === "d" ? { details: { diffs: [1] } } : {}),
    });
    const pi = piDouble({ sendMessage: boom });
    registerToolEvents(instanceOf(pi, addon), true);
    const [call] = handlersOf(pi, "tool_call");
    assert.deepEqual(call({ toolCallId: "b" }, ctxOf()), { block: true, reason: "use gortex" }, "not a promise");
    assert.equal(call({ toolCallId: "s" }, ctxOf()), undefined, "a steer Pi refuses to send fails open");
    assert.equal(call({ toolCallId: "p" }, ctxOf()), undefined);
    const [result] = handlersOf(pi, "tool_result");
    assert.deepEqual(result({ toolCallId: "d" }, ctxOf()), { details: { diffs: [1] } }, "not a promise");
    assert.equal(result({ toolCallId: "e" }, ctxOf()), undefined);
  });

  test("a promise of another realm is awaited, not applied as an action", async () => {
    const foreign = (value) => runInNewContext("Promise").resolve(value);
    const { addon } = addonDouble({
      toolCall: () => foreign({ action: "block", reason: "r" }),
      toolResult: () => foreign({ details: { diffs: [] } }),
    });
    const pi = piDouble();
    registerToolEvents(instanceOf(pi, addon), true);
    assert.deepEqual(await handlersOf(pi, "tool_call")[0]({ toolCallId: "x" }, ctxOf()), { block: true, reason: "r" });
    assert.deepEqual(await handlersOf(pi, "tool_result")[0]({ toolCallId: "x" }, ctxOf()), { details: { diffs: [] } });
  });

  test("DIFF-17 read-ahead: native only, the assistant message goes to the core once, synchronously", () => {
    const own = piDouble();
    registerToolEvents(instanceOf(own, addonDouble().addon), false);
    assert.deepEqual(handlersOf(own, "message_end"), [], "no read-ahead on the own client");
    const { addon, of } = addonDouble({ messageEnd: (event) => (event.message === "bad" ? boom() : undefined) });
    const pi = piDouble();
    registerToolEvents(instanceOf(pi, addon), true);
    const [readAhead] = handlersOf(pi, "message_end");
    const event = {
      message: { role: "assistant", content: [{ type: "toolCall", id: "e1", name: "mcp__gortex__edit" }] },
    };
    assert.equal(readAhead(event, ctxOf()), undefined, "not a promise");
    assert.equal(readAhead({ message: "bad" }, ctxOf()), undefined, "DIFF-22: a throw is swallowed");
    assert.deepEqual(of("messageEnd")[0], [event, "/ctx-cwd"]);
    assert.equal(of("messageEnd").length, 2);
  });

  test("a tool_result the core answers with null is answered synchronously", () => {
    const { addon, of } = addonDouble({ toolResult: null });
    const pi = piDouble();
    registerToolEvents(instanceOf(pi, addon), false);
    const [result] = handlersOf(pi, "tool_result");
    const event = { toolCallId: "r1", toolName: "read", content: [{ type: "text", text: "long" }], isError: 1 };
    assert.equal(result(event, ctxOf()), undefined);
    const [[sent, cwd, names, ...rest]] = of("toolResult");
    assert.deepEqual([sent, cwd(), names(), ...rest], [event, "/ctx-cwd", ["read"]]);
    assert.equal(of("toolResult").length, 1);
  });

  test("DIFF-19/NAT-15: a result action's details replace Pi's; the core reads Pi's tools through the glue", async () => {
    const answers = {
      toolResult: (event) => Promise.resolve(event.toolCallId === "d" ? { details: { diffs: [] } } : {}),
    };
    const { addon, of } = addonDouble(answers);
    const pi = piDouble({ getAllTools: () => [{ name: "read" }, "mcp__gortex__x"] });
    registerToolEvents(instanceOf(pi, addon), false);
    const [result] = handlersOf(pi, "tool_result");
    assert.deepEqual(await result({ toolCallId: "d", toolName: "mcp__gortex__edit" }, ctxOf()), {
      details: { diffs: [] },
    });
    assert.equal(await result({ toolCallId: "t", toolName: "mcp__gortex__tools_search" }, ctxOf()), undefined);
    const [, [, , names]] = of("toolResult");
    assert.deepEqual(names(), ["read", "mcp__gortex__x"], "NAT-15: the names the held search polls");
    assert.equal(of("toolResult").length, 2, "one call per result, however long the core holds it");
    const throwing = piDouble({ getAllTools: boom });
    const quiet = addonDouble({ toolResult: null });
    registerToolEvents(instanceOf(throwing, quiet.addon), false);
    handlersOf(throwing, "tool_result")[0]({ toolCallId: "q" }, ctxOf());
    assert.equal(quiet.of("toolResult")[0][2](), undefined, "FAIL-3: Pi's throw reads as no names");
    assert.equal(await result({ toolCallId: "n", toolName: "edit" }, ctxOf()), undefined);
    const failing = addonDouble({ toolResult: () => Promise.reject(new Error("x")) });
    const pi2 = piDouble();
    registerToolEvents(instanceOf(pi2, failing.addon), false);
    assert.equal(await handlersOf(pi2, "tool_result")[0]({ toolCallId: "f" }, ctxOf()), undefined, "DIFF-22");
  });

  test("SAVE-2/SAVE-4: a result action's footer is shown and its notice told, with a UI only, beside its details", async () => {
    const answers = {
      f: { footer: "gortex: connected · native · −9.7k tok" },
      n: { notice: "could not record", details: { diffs: [] } },
      l: Promise.resolve({ footer: "later", notice: "told later" }),
    };
    const { addon } = addonDouble({ toolResult: (event) => answers[event.toolCallId] });
    const pi = piDouble();
    registerToolEvents(instanceOf(pi, addon), true);
    const [result] = handlersOf(pi, "tool_result");
    const ctx = ctxOf();
    assert.equal(result({ toolCallId: "f" }, ctx), undefined, "a footer alone changes no result");
    assert.deepEqual(result({ toolCallId: "n" }, ctx), { details: { diffs: [] } });
    assert.equal(await result({ toolCallId: "l" }, ctx), undefined);
    assert.deepEqual(ctx.status, [
      { key: "gortex", text: "gortex: connected · native · −9.7k tok" },
      { key: "gortex", text: "later" },
    ]);
    assert.deepEqual(ctx.shown, [
      { text: "could not record", level: "warning" },
      { text: "told later", level: "warning" },
    ]);
    const headless = ctxOf({ hasUI: false });
    assert.deepEqual(result({ toolCallId: "n" }, headless), { details: { diffs: [] } }, "no UI: only the details");
    assert.equal(result({ toolCallId: "f" }, headless), undefined);
    assert.deepEqual([headless.status, headless.shown], [[], []]);
  });

  test("DIFF-20: tool_execution_end releases the call; turn_start and agent_end clear", async () => {
    const { addon, of } = addonDouble();
    const pi = piDouble();
    registerToolEvents(instanceOf(pi, addon), false);
    const end = { toolCallId: "x1" };
    await emit(pi, "tool_execution_end", end);
    assert.deepEqual(of("toolExecutionEnd"), [[end]]);
    for (const [index, event] of ["turn_start", "agent_end"].entries()) {
      await emit(pi, event, {});
      assert.equal(of("clearCalls").length, index + 1, `${event} clears`);
    }
    assert.equal(handlersOf(pi, "turn_end").length, 0, "decision 006");
    const throwing = addonDouble({ toolExecutionEnd: boom, clearCalls: boom });
    const quiet = piDouble();
    registerToolEvents(instanceOf(quiet, throwing.addon), false);
    for (const event of ["tool_execution_end", "turn_start", "agent_end"])
      assert.deepEqual(await emit(quiet, event, {}), [undefined], `${event} fails open`);
  });
});

describe("tools.ts: catalogue updates (TOOL-4, TOOL-10)", () => {
  const registration = (name) => ({ name, description: `d ${name}`, parameters: { type: "object" }, daemonName: name });

  test("MCP-36: metadata rides on the registration; a host refusing it still gets the bare tool", () => {
    const annotations = { readOnlyHint: true };
    const outputSchema = { type: "object" };
    const withMeta = { ...registration("search"), annotations, outputSchema };
    const { addon } = addonDouble();
    const taking = piDouble();
    applyCatalogue(instanceOf(taking, addon), { register: [withMeta], deactivate: [], activate: [] });
    assert.deepEqual(taking.record.registered[0].annotations, annotations);
    assert.deepEqual(taking.record.registered[0].outputSchema, outputSchema);
    const refusing = piDouble();
    refusing.registerTool = (tool) => {
      if ("annotations" in tool) throw new Error("unknown field");
      refusing.record.registered.push(tool);
    };
    applyCatalogue(instanceOf(refusing, addon), { register: [withMeta], deactivate: [], activate: [] });
    assert.deepEqual(
      refusing.record.registered.map((tool) => [tool.name, tool.annotations, tool.outputSchema]),
      [["search", undefined, undefined]],
    );
    // A bare tool the host refuses is not offered again: there is nothing left to drop.
    const attempts = [];
    const refusingAll = piDouble();
    refusingAll.registerTool = (tool) => {
      attempts.push(tool.name);
      throw new Error("refused");
    };
    applyCatalogue(instanceOf(refusingAll, addon), {
      register: [registration("search")],
      deactivate: [],
      activate: [],
    });
    assert.deepEqual(attempts, ["search"], "one attempt for a tool without metadata");
  });

  test("each listed tool is registered with its schema; a listing that moves nothing leaves the active set", () => {
    const { addon, of } = addonDouble();
    const pi = piDouble();
    applyCatalogue(instanceOf(pi, addon), {
      register: [registration("search"), registration("edit")],
      deactivate: [],
      activate: [],
    });
    assert.deepEqual(
      pi.record.registered.map(({ name, label, description, parameters }) => ({
        name,
        label,
        description,
        parameters,
      })),
      [
        { name: "search", label: "search", description: "d search", parameters: { type: "object" } },
        { name: "edit", label: "edit", description: "d edit", parameters: { type: "object" } },
      ],
    );
    assert.deepEqual(pi.record.activeSets, []);
    assert.deepEqual(of("activeTools"), []);
    applyCatalogue(instanceOf(pi, addon), undefined);
    assert.equal(pi.record.registered.length, 2);
  });

  test("a withdrawal or a return goes through the core's activeTools to setActiveTools", () => {
    const { addon, of } = addonDouble({ activeTools: (current, changes) => [...current, ...changes.activate] });
    const pi = piDouble();
    applyCatalogue(instanceOf(pi, addon), { register: [], deactivate: ["old"], activate: [] });
    applyCatalogue(instanceOf(pi, addon), { register: [], deactivate: [], activate: ["back"] });
    assert.deepEqual(of("activeTools"), [
      [["read"], { register: [], deactivate: ["old"], activate: [] }],
      [["read"], { register: [], deactivate: [], activate: ["back"] }],
    ]);
    assert.deepEqual(pi.record.activeSets, [["read"], ["read", "back"]]);
  });

  test("TOOL-6/MCP-30: execute sends the call, throws a failure's text, and tells the core of an abort", async () => {
    const { addon, of } = addonDouble({
      editCandidates: () => [],
      executeTool: (call) =>
        call.callId === "bad" ? { ok: false, text: "daemon said no" } : { ok: true, text: "fine", details: undefined },
    });
    const pi = piDouble();
    applyCatalogue(instanceOf(pi, addon), { register: [registration("search")], deactivate: [], activate: [] });
    const [tool] = pi.record.registered;
    assert.deepEqual(await tool.execute("ok", { q: 1 }, undefined, undefined, ctxOf()), {
      content: [{ type: "text", text: "fine" }],
      details: {},
    });
    assert.deepEqual(of("executeTool")[0], [
      { callId: "ok", name: "search", args: { q: 1 }, cwd: "/ctx-cwd", diff: false },
    ]);
    assert.deepEqual(of("editCandidates"), [["search", { q: 1 }, "/ctx-cwd"]]);
    await assert.rejects(tool.execute("bad", undefined, undefined, undefined, ctxOf()), { message: "daemon said no" });
    assert.deepEqual(of("executeTool")[1][0].args, {}, "absent params are an empty object");
    await tool.execute("noctx", {}, undefined, undefined, undefined);
    assert.equal(of("editCandidates").length, 2, "no candidates without a tool context");
    assert.equal(of("executeTool").at(-1)[0].diff, false);
    const aborted = new AbortController();
    aborted.abort();
    await tool.execute("pre", {}, aborted.signal, undefined, ctxOf());
    assert.deepEqual(of("abortCall"), [["pre"]], "an already-aborted signal is told at once");
    const later = new AbortController();
    await tool.execute("done", {}, later.signal, undefined, ctxOf());
    later.abort();
    assert.equal(of("abortCall").length, 1, "the listener is removed once the call settled");
  });

  test("MCP-34: the core's progress texts reach Pi's update callback as text updates", async () => {
    const { addon, of } = addonDouble({
      editCandidates: () => [],
      executeTool: (_call, onProgress) => {
        onProgress("step 1 of 2");
        onProgress("Progress 2/2");
        return { ok: true, text: "done", details: undefined };
      },
    });
    const pi = piDouble();
    applyCatalogue(instanceOf(pi, addon), { register: [registration("search")], deactivate: [], activate: [] });
    const [tool] = pi.record.registered;
    const updates = [];
    await tool.execute("p", {}, undefined, (partial) => updates.push(partial), ctxOf());
    assert.deepEqual(updates, [
      { content: [{ type: "text", text: "step 1 of 2" }], details: {} },
      { content: [{ type: "text", text: "Progress 2/2" }], details: {} },
    ]);
    assert.equal(typeof of("executeTool")[0][1], "function");
    const throwing = () => {
      throw new Error("ui gone");
    };
    assert.deepEqual(await tool.execute("q", {}, undefined, throwing, ctxOf()), {
      content: [{ type: "text", text: "done" }],
      details: {},
    });
  });

  test("DIFF-22: a throwing editCandidates runs the call without a diff", async () => {
    const { addon, of } = addonDouble({ editCandidates: boom, executeTool: { ok: true, text: "t" } });
    const pi = piDouble();
    applyCatalogue(instanceOf(pi, addon), { register: [registration("edit")], deactivate: [], activate: [] });
    await pi.record.registered[0].execute("e", {}, undefined, undefined, ctxOf());
    assert.equal(of("executeTool")[0][0].diff, false);
  });

  test("DIFF-16: an edit with candidates runs under Pi's per-file locks and asks for the diff", async () => {
    const { addon, of } = addonDouble({
      editCandidates: () => ["/w/a.ts", "/w/b.ts"],
      executeTool: () => ({ ok: true, text: "edited", details: { diffs: [] } }),
    });
    const pi = piDouble();
    applyCatalogue(instanceOf(pi, addon), { register: [registration("edit")], deactivate: [], activate: [] });
    const result = await pi.record.registered[0].execute("e", { path: "a" }, undefined, undefined, ctxOf());
    assert.deepEqual(result.details, { diffs: [] });
    assert.equal(of("executeTool")[0][0].diff, true);
  });
});

describe("status.ts: footer and /gortex (STAT-1..3)", () => {
  test("the core's footer is shown only with a UI; a failing setStatus is swallowed", () => {
    const ctx = ctxOf();
    showFooter(ctx, "given");
    showFooter(ctxOf({ hasUI: false }), "hidden");
    showFooter(undefined, "nowhere");
    assert.deepEqual(ctx.status, [{ key: "gortex", text: "given" }]);
    const failing = ctxOf({ ui: { notify: boom, setStatus: boom } });
    assert.equal(showFooter(failing, "x"), undefined, "FAIL-3");
  });

  test("/gortex sends args, cwd and Pi's tools to the core, shows its reply at its level and its footer", async () => {
    const { addon, calls, of } = addonDouble({
      gortexCommand: (command) =>
        command.args === "boom"
          ? Promise.reject(new Error("x"))
          : { text: `reply ${command.args}`, level: "warning", footer: command.args === "doctor" ? "ft" : undefined },
      // The core's own footer: shown only when a reply carries one, never in its place.
      gortexStatus: { footer: "core footer" },
    });
    const pi = piDouble();
    registerStatusCommand(instanceOf(pi, addon));
    const command = pi.record.commands.get("gortex");
    assert.match(command.description, /doctor/);
    const ctx = ctxOf();
    await command.handler("doctor", ctx);
    await command.handler("", ctx);
    await command.handler("boom", ctx);
    assert.deepEqual(of("gortexCommand")[0], [{ args: "doctor", cwd: "/ctx-cwd", piTools: ["read"] }]);
    const crossings = calls.filter((call) => !call[0].startsWith("new ")).map((call) => call[0]);
    assert.deepEqual(crossings, ["gortexCommand", "gortexCommand", "gortexCommand"], "one core call per command");
    assert.deepEqual(ctx.shown, [
      { text: "reply doctor", level: "warning" },
      { text: "reply ", level: "warning" },
    ]);
    assert.deepEqual(ctx.status, [{ key: "gortex", text: "ft" }]);
    const blind = piDouble({ getAllTools: boom });
    registerStatusCommand(instanceOf(blind, addon));
    await blind.record.commands.get("gortex").handler("x", ctx);
    assert.deepEqual(of("gortexCommand").at(-1)[0].piTools, []);
  });
});

describe("instance.ts: the SES-18 wiring", () => {
  const config = { enforce: false };
  const own = { native: false, serverName: "gortex", toolPrefix: "mcp__gortex__" };

  test("registration order, and a native choice registers the server and the renderer", async () => {
    const native = {
      native: true,
      serverName: "gortex",
      serverConfig: { command: "gortex" },
      toolPrefix: "mcp__gortex__",
    };
    const { addon, of, shared } = addonDouble({
      resolveConfig: config,
      choosePath: native,
      sessionShutdown: () => Promise.reject(new Error("SES-16: a failed stop is swallowed")),
    });
    const servers = [];
    const pi = piDouble({ registerMcpServer: (name, cfg) => servers.push([name, cfg]) });
    await createInstance(pi, addon, shared);
    assert.deepEqual(of("resolveConfig"), [[process.cwd()]]);
    assert.deepEqual(of("choosePath"), [[{ hasRegisterMcpServer: true }]]);
    assert.deepEqual(servers, [["gortex", { command: "gortex" }]]);
    assert.equal(pi.record.renderers.length, 1);
    assert.deepEqual([...pi.handlers.keys()], EXPECTED_NATIVE_HANDLERS, "SES-18 order");
    await emit(pi, "session_compact", {});
    await emit(pi, "session_shutdown", {});
    assert.deepEqual(of("sessionCompact"), [[]]);
    assert.deepEqual(of("new Extension"), [[shared]], "one Extension per factory call, on the import's Module");
    assert.deepEqual(of("sessionShutdown"), [[]]);
  });

  test("each tool event, the session start, each turn, the compaction and the shutdown cross into the core once", async () => {
    const native = { native: true, serverName: "gortex", serverConfig: {}, toolPrefix: "mcp__gortex__" };
    const { addon, calls } = addonDouble({ resolveConfig: config, choosePath: native });
    const pi = piDouble({ registerMcpServer: () => undefined });
    await createInstance(pi, addon, {});
    const message = { role: "assistant", content: [{ type: "toolCall", id: "c", name: "mcp__gortex__edit" }] };
    const events = {
      message_end: { message },
      tool_call: { toolCallId: "c", toolName: "mcp__gortex__edit", input: { path: "a" } },
      tool_result: { toolCallId: "c", toolName: "mcp__gortex__edit", content: [] },
      tool_execution_end: { toolCallId: "c" },
      turn_start: {},
      agent_end: {},
      session_compact: {},
      session_shutdown: {},
      session_start: {},
      before_agent_start: { prompt: "p" },
    };
    for (const [event, payload] of Object.entries(events)) {
      const before = calls.length;
      await emit(pi, event, payload, ctxOf());
      assert.equal(calls.length - before, 1, `${event}: ${JSON.stringify(calls.slice(before).map((c) => c[0]))}`);
    }
  });

  test("NAT-5: a throwing registerMcpServer is a refusal the core hears, with the error's message", async () => {
    const native = { native: true, serverName: "gortex", serverConfig: {}, toolPrefix: "mcp__gortex__" };
    for (const [thrown, said] of [
      [new Error("refused"), "refused"],
      ["a string", "a string"],
    ]) {
      const { addon, of } = addonDouble({
        resolveConfig: config,
        choosePath: native,
        sessionStart: (_begin, _tools, apply) => apply({ notices: [], withdrawServer: true }),
      });
      const pi = piDouble({
        registerMcpServer: () => {
          throw thrown;
        },
      });
      await createInstance(pi, addon, {});
      assert.deepEqual(of("refuseNative"), [[said]]);
      // NAT-6: the withdrawal names the server the refused registration used.
      const withdrawn = [];
      pi.unregisterMcpServer = (name) => withdrawn.push(name);
      await emit(pi, "session_start", {}, ctxOf());
      assert.deepEqual(withdrawn, ["gortex"]);
      assert.equal(pi.record.renderers.length, 0, "no renderer for a refused native path");
    }
    const { addon, of } = addonDouble({ resolveConfig: config, choosePath: own });
    const plain = piDouble({ registerMcpServer: undefined });
    await createInstance(plain, addon, {});
    assert.deepEqual(of("choosePath")[0][0], { hasRegisterMcpServer: false });
    assert.equal(plain.record.renderers.length, 0, "no renderer on the own client's path");
  });

  test("SES-7: session_start is one core call; each step it hands over is applied: notices, withdrawal, catalogue, footer", async () => {
    const search = { name: "search", description: "", parameters: {}, daemonName: "search" };
    let apply;
    const { addon, calls, of } = addonDouble({
      resolveConfig: config,
      choosePath: own,
      sessionStart: (_begin, _tools, callback) => {
        apply = callback;
        callback({ notices: ["notice"], withdrawServer: true, footer: "gortex: connecting" });
        const started = { register: [search], deactivate: [], activate: [] };
        return Promise.resolve().then(() =>
          callback({ notices: ["old daemon"], catalogue: started, footer: "gortex: own client" }),
        );
      },
    });
    const withdrawn = [];
    const pi = piDouble({ unregisterMcpServer: (name) => withdrawn.push(name), getCommands: () => [{ name: "mcp" }] });
    await createInstance(pi, addon, {});
    const ctx = ctxOf({ isProjectTrusted: () => true });
    const before = calls.length;
    await emit(pi, "session_start", {}, ctx);
    assert.deepEqual(
      calls.slice(before).map((call) => call[0]),
      ["sessionStart"],
      "one core call for the whole session start",
    );
    const [[begin, piTools, callback]] = of("sessionStart");
    assert.deepEqual([begin, piTools], [{ commands: ["mcp"], projectTrusted: true }, ["read"]]);
    assert.equal(typeof callback, "function");
    assert.deepEqual(withdrawn, ["gortex"]);
    assert.deepEqual(ctx.shown, [
      { text: "notice", level: "warning" },
      { text: "old daemon", level: "warning" },
    ]);
    assert.deepEqual(
      pi.record.registered.map((tool) => tool.name),
      ["search"],
    );
    assert.deepEqual(ctx.status, [
      { key: "gortex", text: "gortex: connecting" },
      { key: "gortex", text: "gortex: own client" },
    ]);
    apply({
      notices: [],
      catalogue: {
        register: [{ name: "later", description: "", parameters: {}, daemonName: "later" }],
        deactivate: [],
        activate: [],
      },
    });
    assert.deepEqual(
      pi.record.registered.map((tool) => tool.name),
      ["search", "later"],
      "a later re-sync is applied too",
    );
  });

  test("SES-7: a step without a catalogue registers nothing; a failing core or Pi fails open; no UI, no tool names", async () => {
    for (const sessionStart of [
      (_begin, _tools, apply) => {
        apply({ notices: [] });
        return null;
      },
      () => {
        throw new Error("FAIL-1: a core that cannot plan");
      },
      () => Promise.reject(new Error("a start that failed")),
    ]) {
      const { addon } = addonDouble({ resolveConfig: config, choosePath: own, sessionStart });
      const withdrawn = [];
      const pi = piDouble({ unregisterMcpServer: (name) => withdrawn.push(name) });
      await createInstance(pi, addon, {});
      const ctx = ctxOf();
      assert.deepEqual(await emit(pi, "session_start", {}, ctx), [undefined]);
      assert.deepEqual(pi.record.registered, []);
      assert.deepEqual(withdrawn, []);
      assert.deepEqual(ctx.shown, []);
      assert.deepEqual(ctx.status, []);
    }
    const blind = addonDouble({ resolveConfig: config, choosePath: own });
    const blindPi = piDouble({ getAllTools: boom });
    await createInstance(blindPi, blind.addon, {});
    await emit(blindPi, "session_start", {}, ctxOf());
    assert.deepEqual(blind.of("sessionStart")[0][1], [], "FAIL-3: no tool names reads as none");
    const { addon, of } = addonDouble({
      resolveConfig: config,
      choosePath: own,
      sessionStart: (_begin, _tools, apply) => apply({ notices: ["n"], withdrawServer: true, footer: "f" }),
    });
    const pi = piDouble({ unregisterMcpServer: boom });
    await createInstance(pi, addon, {});
    const ctx = ctxOf({ hasUI: false });
    await emit(pi, "session_start", {}, ctx);
    assert.equal(of("sessionStart")[0][1], null, "no UI: no footer is worded");
    assert.deepEqual([ctx.shown, ctx.status], [[], []], "no UI: nothing shown; a throwing withdrawal is swallowed");
  });

  test("a session_start or before_agent_start without a context still reaches the core, as one without a UI", async () => {
    const { addon, of } = addonDouble({ resolveConfig: config, choosePath: own });
    const pi = piDouble();
    await createInstance(pi, addon, {});
    await emit(pi, "session_start", {}, undefined);
    await emit(pi, "before_agent_start", { prompt: "go", messageType: "user" }, undefined);
    assert.equal(of("sessionStart").length, 1, "the session starts");
    assert.equal(of("sessionStart")[0][1], null, "no UI: no tool names for a footer");
    assert.equal(of("beforeAgentStart").length, 1, "the turn is planned");
    assert.equal(of("beforeAgentStart")[0][4], null, "no UI: no footer callback");
  });

  test("SES-10..15: before_agent_start is one core call; the glue reads Pi when asked and applies the action", async () => {
    const actions = {
      first: { notices: ["n"], message: { customType: "gortex", content: "brief" }, footer: "f" },
      later: { notices: [] },
    };
    const { addon, calls, of } = addonDouble({
      resolveConfig: config,
      choosePath: own,
      beforeAgentStart: (turn) =>
        turn.prompt === "boom"
          ? boom()
          : turn.prompt === "reject"
            ? Promise.reject(new Error("x"))
            : (actions[turn.prompt] ?? null),
    });
    const pi = piDouble();
    await createInstance(pi, addon, {});
    const entries = [{ type: "custom_message", customType: "gortex", details: { briefing: true }, extra: 1 }];
    const ctx = ctxOf({ sessionManager: { getSessionId: () => "s9", buildContextEntries: () => entries } });
    const run = async (prompt, at = ctx) =>
      (await emit(pi, "before_agent_start", { prompt, messageType: "user" }, at))[0];
    const before = calls.length;
    assert.equal(await run("none"), undefined, "a turn with nothing to do");
    assert.deepEqual(await run("first"), { message: { customType: "gortex", content: "brief" } });
    assert.equal(await run("later"), undefined);
    assert.deepEqual(
      calls.slice(before).map((call) => call[0]),
      ["beforeAgentStart", "beforeAgentStart", "beforeAgentStart"],
      "one core call per turn",
    );
    const [turn, place, readEntries, readNames, footer] = of("beforeAgentStart")[1];
    assert.deepEqual([turn, place], [{ prompt: "first", messageType: "user" }, ["/ctx-cwd", "s9"]]);
    assert.deepEqual(readEntries(), [{ type: "custom_message", customType: "gortex", details: { briefing: true } }]);
    assert.deepEqual(readNames(), ["read"]);
    assert.deepEqual(ctx.shown, [{ text: "n", level: "warning" }]);
    assert.deepEqual(ctx.status, [{ key: "gortex", text: "f" }], "the footer the first turn's action carries");
    footer("refreshed");
    assert.deepEqual(ctx.status.at(-1), { key: "gortex", text: "refreshed" }, "a refresh's footer is shown");
    await run(5);
    assert.deepEqual(of("beforeAgentStart").at(-1)[0], { prompt: undefined, messageType: "user" });
    assert.equal(await run("boom"), undefined, "a throwing core fails open");
    assert.equal(await run("reject"), undefined, "a rejecting core fails open");
    await run("later", ctxOf({ hasUI: false }));
    assert.equal(of("beforeAgentStart").at(-1)[4], null, "no UI: no footer callback");
  });
});
