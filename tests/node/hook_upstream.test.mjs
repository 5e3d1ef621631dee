// The hook channel against Gortex's own hook handler (HOOK-*, SES-12/15, HOOK-15), through Pi's
// runner: the four postures, stand-down without a daemon, warming, the briefing, prompt context,
// Pi's read/bash/grep/find/ls/edit/write on indexed, unindexed and non-source files, and graph
// calls passing through. The daemon's facts come from fake-gortex's socket side (lib/upstream.mjs).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { PI_VERSION, start } from "./lib/pi.mjs";
import { assertAnsweredByUpstream, upstreamWorkspace } from "./lib/upstream.mjs";

const OWN = { GORTEX_NATIVE_MCP: "0" };
const READ_DENY = /^\[Gortex\] BLOCKED: Read of src\/app\.go \(2 symbols indexed\)\. Call `explore` first/;

async function session({ env = {}, ...options } = {}) {
  const ws = await upstreamWorkspace(options);
  const s = await start(ws, { env: { ...OWN, ...env } });
  await s.sessionStart();
  const end = async () => {
    await s.shutdown();
    await ws.stopDaemon();
  };
  return { s, ws, end };
}

/** The hook records of `event` the fake relayed to the upstream handler. */
function relayed(s, event = "tool_call") {
  return s.hooks().filter((r) => r.envelope?.event === event);
}

function steers(s) {
  return s.host.messages.map(({ message }) => message.content);
}

describe(`the upstream hook on Pi ${PI_VERSION}`, () => {
  test("HOOK-10 deny: Pi's read of indexed source is blocked with the symbol count the daemon reports", async () => {
    const { s, end } = await session();
    const result = await s.toolCall("read", { path: "src/app.go" });
    assert.equal(result.block, true);
    assert.match(result.reason, READ_DENY);
    assertAnsweredByUpstream(s, 1);
    await end();
  });

  test("HOOK-11 enrich: the deny text arrives as a steer message and the read proceeds", async () => {
    const { s, end } = await session({ env: { GORTEX_HOOK_MODE: "enrich" } });
    assert.equal(await s.toolCall("read", { path: "src/app.go" }), undefined);
    assert.equal(steers(s).length, 1);
    assert.match(steers(s)[0], READ_DENY);
    assertAnsweredByUpstream(s, 1);
    await end();
  });

  test("consult-unlock: blocked with the unlock line until a graph call, then a steer", async () => {
    const { s, end } = await session({ env: { GORTEX_HOOK_MODE: "consult-unlock" } });
    const first = await s.toolCall("read", { path: "src/app.go" });
    assert.equal(first.block, true);
    assert.match(first.reason, /\n\[Gortex\] consult-unlock: query the Gortex graph once \(any mcp__gortex__ tool\)/);
    assert.equal(await s.toolCall("gortex_read", { target: { file: "src/app.go" } }), undefined);
    assert.equal(relayed(s)[1].envelope.is_gortex_tool, true);
    assert.equal(await s.toolCall("read", { path: "src/app.go" }), undefined, "unlocked for this session");
    assert.match(steers(s).at(-1), READ_DENY);
    assertAnsweredByUpstream(s, 3);
    await end();
  });

  test("nudge: only the third raw read in a row is blocked", async () => {
    const { s, end } = await session({ env: { GORTEX_HOOK_MODE: "nudge" } });
    assert.equal(await s.toolCall("read", { path: "src/app.go" }), undefined);
    assert.equal(await s.toolCall("read", { path: "src/app.go" }), undefined);
    const third = await s.toolCall("read", { path: "src/app.go" });
    assert.equal(third?.block, true);
    assert.match(third.reason, /^\[Gortex\] You've made several raw file-search calls in a row\./);
    assertAnsweredByUpstream(s, 3);
    await end();
  });

  test("HOOK-17 stand-down: without a reachable daemon every call proceeds and the briefing says so", async () => {
    const { s, end } = await session({ daemon: false });
    for (const [tool, input] of [
      ["read", { path: "src/app.go" }],
      ["grep", { pattern: "renderWidget" }],
      ["bash", { command: "cat src/app.go" }],
    ])
      assert.equal(await s.toolCall(tool, input), undefined, tool);
    assert.deepEqual(steers(s), []);
    const [briefing] = await s.beforeAgentStart();
    assert.match(briefing.content, /\*\*Gortex graph transport is unreachable\.\*\*/);
    // The three calls and the session hook: Gortex's handler answers without a daemon too.
    assertAnsweredByUpstream(s, 4);
    await end();
  });

  test("warming: the briefing says the daemon is warming up", async () => {
    const { s, end } = await session({ scenario: { orientation: "warming" } });
    const [briefing] = await s.beforeAgentStart();
    assert.match(
      briefing.content,
      /⏳ Gortex daemon warming up \(v0\.64\.4, 3s elapsed\)\. Enforcement is partial until ready\./,
    );
    assertAnsweredByUpstream(s, 1);
    await end();
  });

  test("SES-12/15: the briefing comes once per session, and once more after a compaction", async () => {
    const { s, ws, end } = await session();
    const [first] = await s.beforeAgentStart();
    assert.equal(first.display, false);
    assert.match(first.content, /^## Gortex Session Orientation\n\n✓ Gortex daemon ready \(v0\.64\.4/);
    assert.ok(first.content.includes(`**cwd \`${ws.cwd}\` is tracked**`), first.content);
    assert.deepEqual(await s.beforeAgentStart("second"), []);
    s.sessionManager.appendCompaction("## Goal\nSUMMARY", null, 1000);
    await s.compact();
    const [again] = await s.beforeAgentStart("after compaction");
    assert.equal(again.content, first.content);
    assert.deepEqual(await s.beforeAgentStart("later"), []);
    assert.equal(relayed(s, "session_start").length, 1);
    assertAnsweredByUpstream(s, 1);
    await end();
  });

  test("HOOK-15: prompt context names the indexed symbols the prompt mentions", async () => {
    const { s, end } = await session({ env: { GORTEX_PROMPT_CONTEXT: "yes" } });
    const [first] = await s.beforeAgentStart("why does renderWidget flicker");
    assert.match(first.content, /## Gortex — relevant indexed symbols for your request/);
    assert.match(first.content, /`renderWidget` \(function\) — src\/app\.go:3/);
    // The session hook and the prompt's.
    assertAnsweredByUpstream(s, 2);
    await end();
  });

  // Pi's built-in tools on indexed source, unindexed source (no symbols) and a non-source file.
  const cases = [
    ["read", { path: "src/app.go" }, "block", READ_DENY],
    // Pi reads `@src/app.go` as src/app.go; the envelope's file_path drops the `@` (HOOK-8).
    ["read", { path: "@src/app.go" }, "block", READ_DENY],
    ["read", { path: "src/empty.go" }, "steer", /^\[Gortex\] Use `explore` first, then `read` for indexed source:/],
    ["read", { path: "README.md" }, "pass"],
    [
      "bash",
      { command: "cat src/app.go" },
      "block",
      /^\[Gortex\] BLOCKED: Bash `cat src\/app\.go` reads indexed source \(2 symbols\)/,
    ],
    ["bash", { command: "cat README.md" }, "pass"],
    ["grep", { pattern: "renderWidget" }, "block", /^\[Gortex\] BLOCKED: Grep `renderWidget` targets indexed source\./],
    ["grep", { pattern: "app", glob: "*.md" }, "pass"],
    ["find", { pattern: "**/*.go" }, "block", /^\[Gortex\] BLOCKED: Glob `\*\*\/\*\.go` targets indexed source\./],
    ["find", { pattern: "*.md" }, "pass"],
    // A Grep/Glob scope written `@src` is Pi's `src`, which Gortex proves indexed (HOOK-8).
    ["grep", { pattern: "zzq", path: "@src" }, "block", /^\[Gortex\] BLOCKED: Grep `zzq` targets indexed source\./],
    ["find", { pattern: "*.go", path: "@src" }, "block", /^\[Gortex\] BLOCKED: Glob `\*\.go` targets indexed source\./],
    ["ls", { path: "src" }, "pass"],
    [
      "edit",
      { path: "src/app.go", edits: [{ oldText: "Serve", newText: "Run" }] },
      "steer",
      /^\[Gortex\] Edit of src\/app\.go \(indexed source\)\./,
    ],
    ["edit", { path: "src/empty.go", edits: [{ oldText: "app", newText: "b" }] }, "pass"],
    ["write", { path: "src/app.go", content: "" }, "steer", /^\[Gortex\] Write of src\/app\.go \(indexed source/],
    ["write", { path: "src/new.go", content: "" }, "pass"],
    ["write", { path: "notes.md", content: "" }, "pass"],
  ];
  test("HOOK-7/8: Pi's read/bash/grep/find/ls/edit/write on indexed, unindexed and non-source files", async () => {
    const { s, end } = await session();
    for (const [tool, input, expected, text] of cases) {
      const label = `${tool} ${JSON.stringify(input)}`;
      const before = s.host.messages.length;
      const result = await s.toolCall(tool, input);
      if (expected === "block") {
        assert.equal(result?.block, true, label);
        assert.match(result.reason, text, label);
      } else {
        assert.equal(result, undefined, label);
      }
      const added = steers(s).slice(before);
      if (expected === "steer") {
        assert.equal(added.length, 1, label);
        assert.match(added[0], text, label);
      } else assert.deepEqual(added, [], label);
    }
    assertAnsweredByUpstream(s, cases.length);
    await end();
  });

  test("HOOK-6: graph calls pass through, whatever they name", async () => {
    const { s, end } = await session();
    assert.equal(await s.toolCall("gortex_read", { target: { file: "src/app.go" } }), undefined);
    assert.equal(await s.toolCall("search", { operation: "symbols", query: "renderWidget" }), undefined);
    assert.deepEqual(steers(s), []);
    assertAnsweredByUpstream(s, 2);
    assert.deepEqual(
      relayed(s).map((r) => [r.envelope.is_gortex_tool, r.decision]),
      [
        [true, "{}"],
        [true, "{}"],
      ],
    );
    await end();
  });
});
