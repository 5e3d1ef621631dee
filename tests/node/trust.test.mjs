// The trust boundary through Pi's loader and runner, on both hosts: project trust (CFG-19: the project
// sidecar counts only when `ctx.isProjectTrusted()` says so, with one notice per folder saying
// how to trust it) and item 4 (a bridge that fails to start tells the model and `/gortex` why).
import assert from "node:assert/strict";
import { chmodSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { FAKE, IS_NATIVE_HOST, PI_VERSION, start, workspace } from "./lib/pi.mjs";
import { unavailableText } from "./lib/texts.mjs";

const OWN = { GORTEX_NATIVE_MCP: "0" };
const NOT_TRUSTED =
  /^pi-gortex: .*\.pi\/gortex\.json is ignored because this folder is not trusted\. To use it, trust the folder: run \/trust in Pi, or start Pi with --approve\.$/;

const trustNotices = (s) => s.host.notifications.filter((n) => /not trusted/.test(n.message));
/** The `--mode=` flag of the hook runs for tool calls (absent: the default, deny). */
const hookModes = (s) =>
  s
    .hooks()
    .filter((r) => r.envelope?.event === "tool_call")
    .map((r) => r.argv?.find((a) => a.startsWith("--mode=")) ?? "deny");

/** Runs `/gortex` as Pi would and returns the status block it showed. */
async function gortexStatus(s) {
  const before = s.host.notifications.length;
  await s.runner.getCommand("gortex").handler("", s.ctx);
  const shown = s.host.notifications.slice(before).map((n) => n.message);
  const block = shown.find((m) => m.startsWith("Gortex bridge:"));
  assert.ok(block, JSON.stringify(shown));
  return block;
}

/** A stand-in for Pi's MCP connector: `/mcp` is registered, so NAT-6 keeps the native path. */
function connector(pi) {
  pi.registerCommand("mcp", { description: "MCP servers", handler: async () => {} });
}

describe(`project trust (CFG-19) on Pi ${PI_VERSION}`, () => {
  test("an untrusted folder's sidecar is ignored with one notice per folder; trusting the folder honours it", async () => {
    const ws = workspace({ projectSidecar: { hook_mode: "enrich" }, trusted: false });
    const s = await start(ws, { env: OWN });
    await s.sessionStart();
    await s.toolCall("grep", { pattern: "x" });
    assert.deepEqual(hookModes(s), ["deny"], "the project's enrich was not honoured");
    const notices = trustNotices(s);
    assert.equal(notices.length, 1, JSON.stringify(s.host.notifications));
    assert.match(notices[0].message, NOT_TRUSTED);
    assert.equal(notices[0].type, "warning");

    // /new: a new instance of the same import; the folder was already named once.
    const again = await s.replace("new");
    assert.equal(trustNotices(again).length, 0, JSON.stringify(again.host.notifications));

    // The user trusts the folder (/trust); the next session honours the sidecar.
    ws.trusted = true;
    const trusted = await again.replace("new");
    await trusted.toolCall("grep", { pattern: "y" });
    assert.deepEqual(hookModes(trusted).at(-1), "--mode=enrich");
    assert.equal(trustNotices(trusted).length, 0);
    await trusted.shutdown();
  });

  test("an untrusted folder cannot turn enforcement off; the handler stays registered for a trusted one's", async () => {
    const ws = workspace({ projectSidecar: { enforce: false }, trusted: false });
    const s = await start(ws, { env: OWN });
    await s.sessionStart();
    await s.toolCall("grep", { pattern: "x" });
    assert.equal(hookModes(s).length, 1, "the hook judged the call: the project's enforce:false was ignored");
    ws.trusted = true;
    const trusted = await s.replace("new");
    await trusted.toolCall("grep", { pattern: "y" });
    assert.equal(hookModes(trusted).length, 1, "trusted: enforce:false honoured, no new hook run");
    await trusted.shutdown();
  });

  test("a native registration made from an untrusted sidecar's preset moves to the own client", {
    skip: !IS_NATIVE_HOST && "Pi 0.87 has no registerMcpServer",
  }, async () => {
    const ws = workspace({ projectSidecar: { tools_preset: "full" }, trusted: false });
    const s = await start(ws, { extraFactories: [connector] });
    const servers = () =>
      s.loader
        .getExtensions()
        .runtime.mcpServers.list()
        .map((entry) => entry.name);
    assert.ok(servers().includes("gortex"), "registered at load, before trust is known");
    await s.sessionStart();
    assert.ok(!servers().includes("gortex"), "withdrawn: it carried the project's preset");
    assert.ok(s.toolNames().includes("search"), "the own client serves the tools");
    const mcp = ws.log().filter((r) => r.verb === "mcp" && r.ev === "start");
    assert.equal(mcp.length, 1);
    assert.notEqual(mcp[0].env?.GORTEX_TOOLS, "full", JSON.stringify(mcp[0]));
    assert.match(
      await gortexStatus(s),
      /path {8}own client: the native server came from this project's \.pi\/gortex\.json, which an untrusted folder does not honour/,
      "/gortex says why the native path was left",
    );
    await s.shutdown();

    const trustedWs = workspace({ projectSidecar: { tools_preset: "full" } });
    const t = await start(trustedWs, { extraFactories: [connector] });
    await t.sessionStart();
    const list = t.loader.getExtensions().runtime.mcpServers.list();
    assert.ok(
      list.some((entry) => entry.name === "gortex"),
      "trusted: the native registration stays",
    );
    await t.shutdown();
  });
});

describe(`a failed bridge start is seen by the model and /gortex on Pi ${PI_VERSION}`, () => {
  const cases = [
    ["an absent binary", { env: { ...OWN, GORTEX_BIN: "/nonexistent/pi-gortex/gortex" } }],
    [
      "PATH with only an empty and a . entry, the folder holding a gortex (CFG-18: never run)",
      { env: { ...OWN, GORTEX_BIN: null, PATH: ":." }, shim: true },
    ],
    ["a handshake that fails twice", { env: OWN, scenario: { faults: [{ kind: "failing_handshake", n: 2 }] } }],
  ];
  for (const [name, { env, scenario, shim }] of cases) {
    test(name, async () => {
      const ws = workspace({ scenario });
      const marker = join(ws.dir, "repository-gortex-ran");
      if (shim) {
        writeFileSync(join(ws.cwd, "gortex"), `#!/bin/sh\ntouch '${marker}'\nexec '${FAKE}' "$@"\n`);
        chmodSync(join(ws.cwd, "gortex"), 0o755);
      }
      const path = process.env.PATH;
      let s;
      try {
        s = await start(ws, { env });
      } finally {
        // start() applied PATH for the factory; the rest of the suite needs the real one.
        if (path !== undefined) process.env.PATH = path;
      }
      await s.sessionStart();
      const block = await gortexStatus(s);
      assert.match(block, /^Gortex bridge: down\n/);
      const lastError = /\n {2}last error {2}(.+)$/.exec(block.trimEnd())?.[1];
      assert.ok(lastError && lastError !== "none", block);
      const [first] = await s.beforeAgentStart();
      assert.ok(first.content.startsWith(unavailableText(lastError)), `${first.content}\n---\n${block}`);
      assert.equal(existsSync(marker), false, "the folder's gortex never ran");
      await s.shutdown();
    });
  }
});
