// Session lifecycle (SES-*): barrier, first turn, hidden message, resume, compaction, shutdown,
// overlapping instances on a cached module and /reload, through Pi's loader and runner.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, test } from "node:test";
import { alive, delay, PI_VERSION, start, until, workspace } from "./lib/pi.mjs";
import { STILL_REGISTERING } from "./lib/texts.mjs";

const OWN = { GORTEX_NATIVE_MCP: "0" };

function sessionHooks(s) {
  return s.hooks().filter((r) => r.envelope?.event === "session_start");
}

describe(`session lifecycle on Pi ${PI_VERSION}`, () => {
  test("SES-12/14: the briefing arrives once as a hidden gortex message; later turns add nothing", async () => {
    const ws = workspace();
    const s = await start(ws, { env: OWN });
    await s.sessionStart();
    const first = await s.beforeAgentStart();
    assert.equal(first.length, 1);
    assert.equal(first[0].customType, "gortex");
    assert.equal(first[0].display, false);
    assert.deepEqual(first[0].details, { briefing: true });
    assert.ok(first[0].content.startsWith("## Gortex Session Orientation"));
    assert.deepEqual(await s.beforeAgentStart("second"), []);
    assert.deepEqual(await s.beforeAgentStart("third"), []);
    assert.equal(sessionHooks(s).length, 1, "the session hook runs exactly once");
    assert.deepEqual(sessionHooks(s)[0].envelope, { event: "session_start", cwd: ws.cwd });
    await s.shutdown();
  });

  test("SES-14: a resumed session whose context holds the briefing does not repeat it", async () => {
    const ws = workspace();
    const s = await start(ws, { env: OWN });
    await s.sessionStart();
    await s.beforeAgentStart();
    const resumed = await s.replace("resume", { sessionManager: s.sessionManager });
    assert.deepEqual(await resumed.beforeAgentStart(), []);
    assert.equal(sessionHooks(resumed).length, 2, "the new session still runs its hook once");
    await resumed.shutdown();
  });

  test("SES-15: after a compaction the cached briefing is re-sent once, without a new hook run", async () => {
    const ws = workspace();
    const s = await start(ws, { env: OWN });
    await s.sessionStart();
    const [first] = await s.beforeAgentStart();
    s.sessionManager.appendCompaction("## Goal\nSUMMARY", null, 1000);
    await s.compact();
    const [again] = await s.beforeAgentStart("after compaction");
    assert.deepEqual(again, { customType: "gortex", content: first.content, display: false, details: { briefing: true } });
    assert.deepEqual(await s.beforeAgentStart("later"), []);
    assert.equal(sessionHooks(s).length, 1);
    await s.shutdown();
  });

  test("SES-3/11: a turn that arrives before session_start waits for it and sees the tools", async () => {
    const ws = workspace({ scenario: { faults: [{ kind: "slow_handshake", delay_ms: 300 }] } });
    const s = await start(ws, { env: OWN });
    const turn = s.beforeAgentStart();
    await delay(50);
    await s.sessionStart();
    const [first] = await turn;
    assert.ok(!first.content.includes(STILL_REGISTERING));
    assert.ok(s.toolNames().includes("search"));
    // SES-6: the parked turn was this session's first turn; the latch stayed set.
    assert.deepEqual(await s.beforeAgentStart("second"), []);
    assert.equal(sessionHooks(s).length, 1);
    await s.shutdown();
  });

  test("SES-11: the wait is capped at 15 s and the turn is told tools may be missing", async () => {
    const ws = workspace({ scenario: { faults: [{ kind: "slow_handshake", delay_ms: 30000 }] } });
    const s = await start(ws, { env: OWN });
    const starting = s.sessionStart();
    const began = Date.now();
    const [first] = await s.beforeAgentStart();
    const waited = Date.now() - began;
    assert.ok(waited >= 14000, `waited ${waited} ms`);
    assert.ok(first.content.startsWith(STILL_REGISTERING), first.content);
    await s.shutdown();
    await starting;
  });

  test("SES-16/MCP-15: shutdown stops the own client's child; a second shutdown is a no-op", async () => {
    const ws = workspace();
    const s = await start(ws, { env: OWN });
    await s.sessionStart();
    const [pid] = s.mcpPids();
    assert.ok(alive(pid));
    await s.shutdown();
    assert.ok(await until(() => !alive(pid)), "the child is gone");
    await s.shutdown();
  });

  test("SES-1/SES-7: a new instance on the cached module stops the previous child; SES-16: the old instance's shutdown leaves the new one alone", async () => {
    const ws = workspace();
    const a = await start(ws, { env: OWN });
    await a.sessionStart();
    const [pidA] = a.mcpPids();
    const b = await a.replace("new", { shutdownFirst: false });
    assert.ok(await until(() => !alive(pidA)), "A's child was stopped by B's session_start");
    const pidB = b.mcpPids().find((pid) => pid !== pidA);
    assert.ok(alive(pidB));
    await a.shutdown("new");
    assert.ok(alive(pidB), "A's late shutdown does not stop B's child");
    const result = await b.execute("search", { query: "x" });
    assert.match(result.content[0].text, /fake-gortex/);
    await b.shutdown();
    assert.ok(await until(() => !alive(pidB)));
  });

  test("SES-1: /reload re-imports the module, so the new generation starts fresh and the old child is stopped", async () => {
    const ws = workspace();
    const a = await start(ws, { env: OWN });
    await a.sessionStart();
    const [pidA] = a.mcpPids();
    const b = await a.reload();
    assert.ok(await until(() => !alive(pidA)));
    assert.ok(b.toolNames().includes("search"));
    const [first] = await b.beforeAgentStart();
    assert.equal(first.details.briefing, true);
    await b.shutdown();
  });

  test("SES-5: an overlapping older session_start cannot release a turn parked on a newer one", async () => {
    const ws = workspace({ scenario: { faults: [{ kind: "slow_handshake", delay_ms: 600 }] } });
    const s = await start(ws, { env: OWN });
    const a = s.sessionStart("startup");
    await delay(20);
    const turn = s.beforeAgentStart();
    await delay(20);
    const c = s.sessionStart("reload");
    const [first] = await turn;
    await Promise.all([a, c]);
    assert.ok(!first.content.includes(STILL_REGISTERING));
    assert.ok(s.toolNames().includes("search"), "the parked turn sees C's tools");
    await s.shutdown();
    // SES-8: the superseded start stopped its own child; nothing leaks.
    for (const pid of s.mcpPids()) assert.ok(await until(() => !alive(pid)), `gortex mcp ${pid} left running`);
  });

  test("SES-17/MCP-3: a process that never shuts the session down still exits promptly", () => {
    // A child Node runs a session with a live gortex mcp child and returns without
    // session_shutdown; nothing the extension started may hold it open.
    const script = `
      import { start, workspace } from ${JSON.stringify(new URL("./lib/pi.mjs", import.meta.url).href)};
      const s = await start(workspace(), { env: { GORTEX_NATIVE_MCP: "0" } });
      await s.sessionStart();
      await s.beforeAgentStart();
      if (s.mcpPids().length !== 1) process.exit(3);
    `;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { timeout: 20000, encoding: "utf8" });
    assert.equal(run.error, undefined, "the process exited before the 20 s kill");
    assert.equal(run.status, 0, run.stderr);
  });

  test("HOOK-15/CFG-15: with prompt context on, the prompt goes to the hook and its guidance joins the hidden message", async () => {
    const guidance = "## Gortex — relevant indexed symbols for your request\n- f";
    const ws = workspace({ scenario: { decisions: [{ match: { event: "prompt" }, decision: { additional_context: guidance } }] } });
    const s = await start(ws, { env: { ...OWN, GORTEX_PROMPT_CONTEXT: "yes" } });
    await s.sessionStart();
    const [first] = await s.beforeAgentStart("where is f");
    assert.ok(first.content.startsWith("## Gortex Session Orientation"));
    assert.ok(first.content.endsWith(`\n\n${guidance}`), first.content);
    const [later] = await s.beforeAgentStart("and g");
    assert.deepEqual(later, { customType: "gortex", content: guidance, display: false, details: { briefing: false } });
    assert.deepEqual(await s.beforeAgentStart("/reload"), [], "slash commands are never sent");
    const prompts = s.hooks().filter((r) => r.envelope?.event === "prompt").map((r) => r.envelope.prompt);
    assert.deepEqual(prompts, ["where is f", "and g"]);
    await s.shutdown();
  });

  test("CFG-15: prompt context is off by default", async () => {
    const ws = workspace();
    const s = await start(ws, { env: OWN });
    await s.sessionStart();
    await s.beforeAgentStart("where is f");
    assert.equal(s.hooks().filter((r) => r.envelope?.event === "prompt").length, 0);
    await s.shutdown();
  });

  test("MCP-1: the own client launches the daemon at session_start", async () => {
    const ws = workspace();
    const s = await start(ws, { env: OWN });
    await s.sessionStart();
    assert.ok(await until(() => s.ws.log().some((r) => r.ev === "daemon_start")));
    await s.shutdown();
  });
});
