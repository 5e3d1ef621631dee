// The native path on Pi >= 0.99 (NAT-*, DIFF-17..20, REN-7), through Pi's loader and runner.
// Pi's built-in MCP extension needs a full agent session to connect, so these suites load a
// connector double instead: an inline extension that registers `/mcp` (what NAT-6 looks for)
// and, where a test needs them, tools named like Pi's MCP tools. The real connection is covered
// by tests/e2e on the real CLI.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { FAKE, IS_NATIVE_HOST, PI_VERSION, pi, start, until, workspace } from "./lib/pi.mjs";
import { NATIVE_DESCRIPTION, refusalText, STILL_REGISTERING, staleModelText, staleUserText } from "./lib/texts.mjs";
import { assertAnsweredByUpstream, upstreamWorkspace } from "./lib/upstream.mjs";

function tool(name) {
  return {
    name,
    label: name,
    description: name,
    parameters: { type: "object", properties: {} },
    execute: async () => ({ content: [{ type: "text", text: "ok" }], details: {} }),
  };
}

/**
 * A stand-in for Pi's MCP extension: registers /mcp and, after `afterMs`, the
 * given tools; with `gated`, only when the test calls `state.connect()`.
 */
function connector({ tools = ["search"], afterMs = 0, gated = false } = {}) {
  const state = { pi: undefined };
  const register = () => {
    for (const name of tools) state.pi.registerTool(tool(`mcp__gortex__${name}`));
  };
  state.connect = register;
  const factory = (pi) => {
    state.pi = pi;
    pi.registerCommand("mcp", { description: "MCP servers", handler: async () => {} });
    pi.on("session_start", () => {
      if (!gated) setTimeout(register, afterMs);
    });
  };
  state.register = (name) => state.pi.registerTool(tool(name));
  return { factory, state };
}

function servers(s) {
  return s.loader.getExtensions().runtime.mcpServers.list();
}

/** STAT-2: the `path` line of the `/gortex` block, as the user would read it. */
async function statusPath(s) {
  const before = s.host.notifications.length;
  await s.runner.getCommand("gortex").handler("", s.runner.createCommandContext());
  const [shown] = s.host.notifications.splice(before);
  return String(shown?.message ?? "")
    .split("\n")
    .find((line) => line.trimStart().startsWith("path"))
    ?.trim();
}

describe(`native path on Pi ${PI_VERSION}`, { skip: !IS_NATIVE_HOST && "Pi 0.87 has no registerMcpServer" }, () => {
  test("NAT-2/4/WIRE-22: registerMcpServer gets gortex with direct exposure and a 600 s timeout", async () => {
    const ws = workspace({ projectSidecar: { tools_preset: "nav" } });
    const { factory } = connector();
    const s = await start(ws, { extraFactories: [factory] });
    const server = servers(s).find((entry) => entry.name === "gortex");
    assert.ok(server, JSON.stringify(servers(s)));
    const config = server.config ?? server;
    assert.equal(config.command, FAKE);
    assert.deepEqual(config.args, ["mcp"]);
    assert.deepEqual(config.env, { GORTEX_TOOLS: "nav", GORTEX_TOOLS_MODE: "defer" });
    assert.equal(config.exposure, "direct");
    assert.equal(config.timeout, 600);
    assert.equal(config.description, NATIVE_DESCRIPTION);
    await s.sessionStart();
    assert.ok(!s.toolNames().includes("gortex_read"), "NAT-7: native registers no tools of its own");
    assert.ok(!s.ws.log().some((r) => r.verb === "mcp"), "NAT-7: the extension spawns nothing");
    assert.ok(!s.ws.log().some((r) => r.ev === "daemon_start"), "NAT-7: no daemon launcher");
    await s.shutdown();
  });

  test("NAT-6/14: with no /mcp connector the server is withdrawn and the own client serves the tools", async () => {
    const ws = workspace();
    const s = await start(ws);
    assert.ok(servers(s).some((entry) => entry.name === "gortex"));
    await s.sessionStart();
    assert.ok(!servers(s).some((entry) => entry.name === "gortex"), "unregistered");
    assert.ok(s.toolNames().includes("gortex_read"));
    assert.deepEqual(s.host.notifications, [], "the fallback is silent");
    assert.match(await statusPath(s), /^path +own client: .*\/mcp/, "the path the core latched at the withdrawal");
    await s.shutdown();
  });

  test("NAT-5: a refused registration falls back to the own client with a notice each session", async () => {
    const ws = workspace();
    const other = join(ws.dir, "other.js");
    writeFileSync(
      other,
      'export default function (pi) { pi.registerMcpServer("gortex", { command: "other", args: [] }); }\n',
    );
    const s = await start(ws, { extraPaths: [other] });
    assert.deepEqual(s.errors, []);
    await s.sessionStart();
    assert.equal(s.host.notifications.length, 1);
    const [{ message, type }] = s.host.notifications;
    assert.equal(type, "warning");
    assert.equal(message, refusalText(`MCP server "gortex" is already registered by extension "${other}"`));
    assert.ok(s.toolNames().includes("gortex_read"));
    await s.sessionStart("new");
    assert.equal(s.host.notifications.length, 2, "again at the next session_start of this instance");
    // `/gortex` says why the own client runs: Pi's refusal text, as the notice gave it.
    const gortex = s.runner.getRegisteredCommands().find((c) => (c.name ?? c.invocationName) === "gortex");
    await gortex.handler("", s.ctx);
    const block = s.host.notifications.at(-1).message.split("\n");
    assert.equal(block[0], "Gortex bridge: connected", block.join("\n"));
    assert.equal(
      block[4],
      `  path        own client: Pi refused the MCP server (MCP server "gortex" is already registered by extension "${other}")`,
    );
    await s.shutdown();
  });

  test("NAT-9: the first turn waits for mcp__gortex__ tools and is ready when they appear", async () => {
    const ws = workspace();
    const { factory, state } = connector({ gated: true });
    const s = await start(ws, { extraFactories: [factory] });
    await s.sessionStart();
    const sessionHooks = () => s.hooks().filter((r) => r.envelope?.event === "session_start");
    let settled = false;
    const turn = s.beforeAgentStart().then((messages) => ((settled = true), messages));
    // The turn is polling Pi's tool list: two polls seen, still unsettled,
    // and the session hook (which runs after the wait, SES-12) not yet run.
    const polledFrom = s.host.getAllToolsCalls;
    assert.ok(await until(() => s.host.getAllToolsCalls >= polledFrom + 2, 20000), "the first turn polls getAllTools");
    assert.equal(settled, false, "the turn did not go ahead without the tools");
    assert.deepEqual(sessionHooks(), []);
    state.connect();
    const [first] = await turn;
    assert.ok(!first.content.includes(STILL_REGISTERING), first.content);
    assert.equal(first.details.briefing, true);
    assert.equal(sessionHooks().length, 1);
    await s.shutdown();
  });

  test("NAT-9: without gortex tools the turn gives up after 5 s and says so", async () => {
    const ws = workspace();
    const { factory } = connector({ tools: [] });
    const s = await start(ws, { extraFactories: [factory] });
    await s.sessionStart();
    const began = Date.now();
    const [first] = await s.beforeAgentStart();
    assert.ok(Date.now() - began >= 4500);
    assert.ok(first.content.startsWith(STILL_REGISTERING));
    await s.shutdown();
  });

  test("NAT-10: the daemon version is read from the briefing and skew is reported", async () => {
    // Gortex's own hook writes the briefing, with the version its daemon socket reports.
    const ws = await upstreamWorkspace({ scenario: { version: "0.60.0" } });
    const { factory } = connector();
    const s = await start(ws, { extraFactories: [factory] });
    await s.sessionStart();
    const [first] = await s.beforeAgentStart();
    assert.ok(first.content.startsWith(staleModelText("0.60.0")), first.content);
    assert.deepEqual(s.host.notifications, [{ message: staleUserText("0.60.0"), type: "warning" }]);
    assert.ok(first.content.includes("✓ Gortex daemon ready (v0.60.0, uptime 5s)."), first.content);
    assertAnsweredByUpstream(s, 1);
    await s.shutdown();
    await ws.stopDaemon();
  });

  test("HOOK-5/6 native: mcp__gortex__ calls go to the hook by bare name; other servers' tools by their full name", async () => {
    const ws = await upstreamWorkspace();
    const { factory } = connector();
    const s = await start(ws, { extraFactories: [factory] });
    await s.sessionStart();
    await s.toolCall("mcp__gortex__read", { target: { file: "a.go" } });
    await s.toolCall("mcp__docs__read", { path: "a.go" });
    const envelopes = s
      .hooks()
      .filter((r) => r.envelope?.event === "tool_call")
      .map((r) => r.envelope);
    assert.equal(envelopes[0].tool_name, "read");
    assert.equal(envelopes[0].is_gortex_tool, true);
    assert.equal(envelopes[1].tool_name, "mcp__docs__read");
    assert.equal(envelopes[1].is_gortex_tool, false);
    assertAnsweredByUpstream(s, 2);
    assert.deepEqual(
      s.hooks().map((r) => r.decision),
      ["{}", "{}"],
      "Gortex's hook lets both through: a graph call, and a name outside its vocabulary",
    );
    await s.shutdown();
    await ws.stopDaemon();
  });

  test("DIFF-17/19/21: a native Gortex edit gets diff details merged into Pi's own", async () => {
    const ws = workspace();
    const file = join(ws.cwd, "a.txt");
    writeFileSync(file, "one\ntwo\nthree\n");
    const { factory } = connector();
    const s = await start(ws, { extraFactories: [factory] });
    await s.sessionStart();
    const input = { operation: "file", target: { file }, match: "two", replacement: "TWO" };
    assert.equal(await s.toolCall("mcp__gortex__edit", input, { toolCallId: "e1" }), undefined);
    writeFileSync(file, "one\nTWO\nthree\n"); // what Pi's MCP call to the daemon did
    const result = await s.toolResult(
      "mcp__gortex__edit",
      input,
      { content: [{ type: "text", text: "applied" }], details: { server: "gortex" } },
      { toolCallId: "e1" },
    );
    assert.equal(result.details.server, "gortex");
    assert.equal(result.details.diffs[0].path, "a.txt");
    const expected = pi.generateDiffString("one\ntwo\nthree\n", "one\nTWO\nthree\n");
    assert.equal(result.details.diff, expected.diff, "DIFF-13: byte-identical to Pi's generateDiffString");
    assert.equal(result.details.firstChangedLine, expected.firstChangedLine);
    assert.equal(result.details.patch, pi.generateUnifiedPatch("a.txt", "one\ntwo\nthree\n", "one\nTWO\nthree\n"));
    await s.shutdown();
  });

  test("DIFF-15: a shell command running during a native edit replaces the diff with a note", async () => {
    const ws = workspace();
    const file = join(ws.cwd, "a.txt");
    writeFileSync(file, "one\n");
    const { factory } = connector();
    const s = await start(ws, { extraFactories: [factory], env: { GORTEX_ENFORCE: "0" } });
    await s.sessionStart();
    await s.toolCall("bash", { command: "true" }, { toolCallId: "b1" });
    const input = { target: { file }, content: "two\n" };
    await s.toolCall("mcp__gortex__edit", input, { toolCallId: "e1" });
    writeFileSync(file, "two\n");
    const result = await s.toolResult("mcp__gortex__edit", input, { content: [], details: {} }, { toolCallId: "e1" });
    assert.deepEqual(result.details.diffs, [
      { path: "a.txt", diff: "", patch: "", note: "not diffed: a shell command ran at the same time" },
    ]);
    await s.shutdown();
  });

  test("DIFF-18: a path two calls in flight claim gets no diff", async () => {
    const ws = workspace();
    const file = join(ws.cwd, "a.txt");
    writeFileSync(file, "one\n");
    const { factory } = connector();
    const s = await start(ws, { extraFactories: [factory], env: { GORTEX_ENFORCE: "0" } });
    await s.sessionStart();
    const input = { target: { file }, content: "two\n" };
    await s.toolCall("mcp__gortex__edit", input, { toolCallId: "e1" });
    await s.toolCall("write", { path: file, content: "three\n" }, { toolCallId: "w1" });
    writeFileSync(file, "two\n");
    assert.equal(
      await s.toolResult("mcp__gortex__edit", input, { content: [], details: {} }, { toolCallId: "e1" }),
      undefined,
    );
    await s.shutdown();
  });

  test("NAT-15: a tools_search result is held until the promoted tools are registered", async () => {
    const ws = workspace();
    const { factory, state } = connector();
    const s = await start(ws, { extraFactories: [factory], env: { GORTEX_ENFORCE: "0" } });
    await s.sessionStart();
    setTimeout(() => state.register("mcp__gortex__find_clones"), 200);
    const text = JSON.stringify({ query: "select:find_clones", promoted: ["find_clones"], tools: [] });
    await s.toolResult(
      "mcp__gortex__tools_search",
      { query: "select:find_clones" },
      { content: [{ type: "text", text }] },
      { toolCallId: "t1" },
    );
    assert.ok(s.toolNames().includes("mcp__gortex__find_clones"));
    await s.shutdown();
  });

  test("NAT-13/REN-7: the renderer wraps only gortex MCP tools and leaves others to Pi", async () => {
    const ws = workspace();
    const { factory } = connector();
    const s = await start(ws, { extraFactories: [factory] });
    await s.sessionStart();
    const base = { renderCall: () => "call", renderResult: () => ({ render: () => ["BASE"], invalidate() {} }) };
    const other = s.runner.resolveToolRenderers("mcp__docs__read", () => base);
    assert.equal(other.renderResult, base.renderResult);
    const wrapped = s.runner.resolveToolRenderers("mcp__gortex__edit", () => base);
    assert.notEqual(wrapped.renderResult, base.renderResult);
    const theme = { fg: (_c, t) => t, bold: (t) => t };
    const collapsed = wrapped.renderResult({ content: [], details: {} }, { expanded: false }, theme, {});
    assert.deepEqual(collapsed.render(80).filter(Boolean), [], "collapsed with no diffs shows nothing");
    const expanded = wrapped.renderResult({ content: [], details: {} }, { expanded: true }, theme, {});
    assert.deepEqual(expanded.render(80), ["BASE"]);
    await s.shutdown();
  });

  /** A started native session, enforcement off, whose work tree holds `a.txt` ("one"). */
  async function editSession() {
    const ws = workspace();
    const file = join(ws.cwd, "a.txt");
    writeFileSync(file, "one\n");
    const { factory } = connector();
    const s = await start(ws, { extraFactories: [factory], env: { GORTEX_ENFORCE: "0" } });
    await s.sessionStart();
    return { s, file };
  }

  /**
   * A native session with `a.txt` ("one"), enforcement off: `steps(s, input)` runs the calls and
   * events, then the file becomes "two" and the result of the edit `resultOf` is returned.
   */
  async function nativeEditResult(resultOf, steps) {
    const { s, file } = await editSession();
    const input = { target: { file }, content: "two\n" };
    await steps(s, input);
    writeFileSync(file, "two\n");
    const details = { content: [], details: {} };
    const result = await s.toolResult("mcp__gortex__edit", input, details, { toolCallId: resultOf });
    await s.shutdown();
    return result;
  }

  /** A native edit claimed, then `event` (if any), then the file changed and the result seen. */
  const lateEditResult = (event) =>
    nativeEditResult("e1", async (s, input) => {
      await s.toolCall("mcp__gortex__edit", input, { toolCallId: "e1" });
      if (event) await s.runner.emit(event);
    });

  // DIFF-20: the next turn's start or the run's end drops pending claims (not turn_end, whose
  // mere presence makes Pi build the session's context twice per turn: decision 006).
  for (const event of [
    { type: "turn_start", turnIndex: 1, timestamp: 0 },
    { type: "agent_end", messages: [] },
    { type: "session_shutdown", reason: "quit" },
  ]) {
    test(`DIFF-20: ${event.type} drops pending claims, so a late result gets no diff`, async () => {
      assert.equal(await lateEditResult(event), undefined);
    });
  }

  /** A native edit `e1` claimed and (with `end`) ended unrun, then a second edit `e2` of the same file. */
  const secondEditResult = (end) =>
    nativeEditResult("e2", async (s, input) => {
      await s.toolCall("mcp__gortex__edit", input, { toolCallId: "e1" });
      if (end) await s.runner.emit({ type: "tool_execution_end", toolCallId: "e1", toolName: "mcp__gortex__edit" });
      await s.toolCall("mcp__gortex__edit", input, { toolCallId: "e2" });
    });

  test("DIFF-18/20: a claim that never ran is released at tool_execution_end, so the next edit of its file gets a diff", async () => {
    const result = await secondEditResult(true);
    assert.equal(result?.details?.diffs?.[0]?.path, "a.txt", "e1's claim no longer contests a.txt");
    // Control: with e1 still in flight, the same path is contested (DIFF-18) and e2 gets no diff.
    assert.equal(await secondEditResult(false), undefined);
  });

  test("DIFF-20 control: without a clearing event the same late result gets its diff", async () => {
    const result = await lateEditResult(undefined);
    assert.equal(result?.details?.diffs?.length, 1, "the claim held its snapshot");
  });

  /**
   * DIFF-17 read-ahead: the assistant message naming the edit `e1` of `a.txt` ("one"), then
   * `between(s, file)`, then e1's tool_call, the file becoming "two" and e1's result, whose
   * `diff` is returned.
   */
  async function readAheadDiff(between) {
    const { s, file } = await editSession();
    const input = { operation: "file", target: { file: "a.txt" }, content: "two\n" };
    const toolCall = { type: "toolCall", id: "e1", name: "mcp__gortex__edit", arguments: input };
    const message = {
      role: "assistant",
      content: [{ type: "toolCall", id: "g1", name: "grep", arguments: {} }, toolCall],
    };
    await s.runner.emitMessageEnd({ type: "message_end", message });
    await between(s, file);
    await s.toolCall("mcp__gortex__edit", input, { toolCallId: "e1" });
    writeFileSync(file, "two\n");
    const result = await s.toolResult("mcp__gortex__edit", input, { content: [], details: {} }, { toolCallId: "e1" });
    await s.shutdown();
    return result?.details?.diff;
  }

  test("DIFF-17 read-ahead: an edit the assistant message names gets its diff through Pi's events", async () => {
    assert.equal(await readAheadDiff(async () => {}), "-1 one\n+1 two");
  });

  test("DIFF-17 read-ahead: once a call of a sequential batch has run, the edit reads its file again", async () => {
    const diff = await readAheadDiff(async (s, file) => {
      await s.toolCall("grep", {}, { toolCallId: "g1" });
      // The first call of the batch runs and changes the file the edit then edits.
      writeFileSync(file, "mid\n");
      await s.toolResult("grep", {}, { content: [] }, { toolCallId: "g1" });
      await s.runner.emit({ type: "tool_execution_end", toolCallId: "g1", toolName: "grep" });
    });
    assert.equal(diff, "-1 mid\n+1 two", "the before side is the file as the edit found it");
  });
});
