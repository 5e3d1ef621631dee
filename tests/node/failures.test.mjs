// Rules held through Pi's loader and runner: FAIL-3 (a host method that
// throws is swallowed), SES-10 (two concurrent first turns), CFG-1 (configuration is read once,
// at factory time), NAT-14 (the own-client latch holds across a second session_start) and
// DIFF-16 (an own-client edit holds Pi's per-file lock for the whole call).
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, test } from "node:test";
import {
  ADDON_FILE,
  copyPackage,
  IS_NATIVE_HOST,
  PI_VERSION,
  PKG_DIR,
  pi,
  start,
  until,
  workspace,
} from "./lib/pi.mjs";
import { STILL_REGISTERING } from "./lib/texts.mjs";

const OWN = { GORTEX_NATIVE_MCP: "0" };
const sessionHooks = (s) => s.hooks().filter((r) => r.envelope?.event === "session_start");
const toolHooks = (s) => s.hooks().filter((r) => r.envelope?.event === "tool_call");
const boom = () => {
  throw new Error("host method failed");
};

describe(`rules held through Pi's loader and runner, on Pi ${PI_VERSION}`, () => {
  test("SES-10: two concurrent first turns run the first-turn work once", async () => {
    const ws = workspace();
    const s = await start(ws, { env: OWN });
    await s.sessionStart();
    const [one, two] = await Promise.all([s.beforeAgentStart("one"), s.beforeAgentStart("two")]);
    const briefings = [...one, ...two].filter((m) => m.details?.briefing === true);
    assert.equal(briefings.length, 1, JSON.stringify([one, two]));
    assert.equal(sessionHooks(s).length, 1, "the session hook ran once");
    await s.shutdown();
  });

  test("FAIL-3: a throwing notify is swallowed; the warning's session goes on", async () => {
    // A daemon below the floor makes the extension notify the user (MCP-22).
    const ws = workspace({ scenario: { version: "0.60.0" } });
    let attempts = 0;
    const s = await start(ws, { env: OWN, notify: () => ((attempts += 1), boom()) });
    await s.sessionStart();
    assert.ok(attempts >= 1, "the extension did try to notify");
    assert.ok(s.toolNames().includes("search"), "the tools are still registered");
    const [first] = await s.beforeAgentStart();
    assert.equal(first.details.briefing, true);
    assert.deepEqual(s.host.extensionErrors, [], "no handler threw into Pi");
    await s.shutdown();
  });

  test("FAIL-3: a throwing sendMessage is swallowed; the guided call still proceeds", async () => {
    const text = "[Gortex] Use `search` for indexed source.";
    const ws = workspace({
      scenario: { decisions: [{ match: { tool_name: "Grep" }, decision: { additional_context: text } }] },
    });
    let attempts = 0;
    const s = await start(ws, { env: OWN, actions: { sendMessage: () => ((attempts += 1), boom()) } });
    await s.sessionStart();
    assert.equal(await s.toolCall("grep", { pattern: "x" }), undefined);
    assert.equal(attempts, 1, "the steer was attempted");
    assert.equal(toolHooks(s).length, 1);
    assert.deepEqual(s.host.extensionErrors, []);
    await s.shutdown();
  });

  test("FAIL-3: a throwing buildContextEntries reads as no briefing in context", async () => {
    const ws = workspace();
    const manager = pi.SessionManager.inMemory(ws.cwd);
    let attempts = 0;
    manager.buildContextEntries = () => ((attempts += 1), boom());
    const s = await start(ws, { env: OWN, sessionManager: manager });
    await s.sessionStart();
    const [first] = await s.beforeAgentStart();
    assert.ok(attempts >= 1, "the extension did ask for the context");
    assert.equal(first.details.briefing, true, "treated as no briefing: it is sent");
    assert.deepEqual(s.host.extensionErrors, []);
    await s.shutdown();
  });

  test("FAIL-3: a throwing getAllTools reads as not ready on the native path", {
    skip: !IS_NATIVE_HOST && "no native path on Pi 0.87",
  }, async () => {
    const ws = workspace();
    const connector = (api) => api.registerCommand("mcp", { description: "MCP servers", handler: async () => {} });
    let attempts = 0;
    const s = await start(ws, {
      extraFactories: [connector],
      actions: { getAllTools: () => ((attempts += 1), boom()) },
    });
    await s.sessionStart();
    const [first] = await s.beforeAgentStart();
    assert.ok(attempts >= 2, `polled ${attempts} times`);
    assert.ok(first.content.startsWith(STILL_REGISTERING), first.content);
    assert.deepEqual(s.host.extensionErrors, []);
    await s.shutdown();
  });

  test("CFG-1: configuration is read once, at factory time; a later change waits for /reload", async () => {
    const ws = workspace();
    const s = await start(ws, { env: OWN });
    await s.sessionStart();
    process.env.GORTEX_HOOK_MODE = "enrich";
    writeFileSync(join(ws.cwd, "later.json"), "{}");
    // A second session_start on the same instance must not re-read it either.
    await s.sessionStart("new");
    const denied = await s.toolCall("read", { path: "a.go" });
    assert.equal(denied?.block, true, "still the deny posture the factory read");
    assert.ok(!toolHooks(s)[0].argv.some((arg) => arg.startsWith("--mode")), JSON.stringify(toolHooks(s)[0].argv));
    const next = await s.reload();
    assert.equal(
      await next.toolCall("read", { path: "a.go" }),
      undefined,
      "after /reload: enrich, so the call proceeds",
    );
    assert.ok(toolHooks(next).at(-1).argv.includes("--mode=enrich"));
    delete process.env.GORTEX_HOOK_MODE;
    await next.shutdown();
  });

  test("NAT-14: an instance switched to the own client stays there at its next session_start", {
    skip: !IS_NATIVE_HOST && "no native path on Pi 0.87",
  }, async () => {
    const ws = workspace();
    let api;
    const late = (piApi) => {
      api = piApi;
    };
    const s = await start(ws, { extraFactories: [late] });
    await s.sessionStart();
    assert.ok(s.toolNames().includes("gortex_read"), "no connector: own client");
    const servers = () =>
      s.loader
        .getExtensions()
        .runtime.mcpServers.list()
        .map((entry) => entry.name);
    assert.ok(!servers().includes("gortex"), "the native registration was withdrawn");
    // A connector appears; the instance must not go back to native.
    api.registerCommand("mcp", { description: "MCP servers", handler: async () => {} });
    const before = s.mcpPids().length;
    await s.sessionStart("new");
    assert.equal(s.mcpPids().length, before + 1, "the own client started again for the new session");
    assert.ok(!servers().includes("gortex"));
    const [first] = await s.beforeAgentStart();
    assert.ok(!first.content.startsWith(STILL_REGISTERING), "no native readiness wait");
    await s.shutdown();
  });

  test("DIFF-16: an own-client edit holds Pi's per-file lock on its file for the whole call", async () => {
    const ws = workspace({ scenario: { calls: { edit: { text: '{"status":"applied"}', delay_ms: 1000 } } } });
    const file = join(ws.cwd, "locked.txt");
    writeFileSync(file, "x\n");
    const s = await start(ws, { env: OWN });
    await s.sessionStart();
    const call = s.execute("gortex_edit", { operation: "file", target: { file }, match: "x", replacement: "y" });
    const received = () => ws.log().some((r) => r.ev === "recv" && r.method === "tools/call");
    assert.ok(await until(received, 20000), "the call is in flight");
    // Pi's own edit of the same file queues behind the lock the call holds: when it runs, the
    // daemon has already answered (the fake answers 1 s after it received the call).
    const answered = () => ws.log().some((r) => r.ev === "send" && r.method === "result" && r.id === callId());
    const callId = () => ws.log().find((r) => r.ev === "recv" && r.method === "tools/call")?.id;
    let answeredWhenPiRan;
    await pi.withFileMutationQueue(file, async () => {
      answeredWhenPiRan = answered();
    });
    await call;
    assert.equal(answeredWhenPiRan, true, "Pi's edit ran while the gortex edit of the same file was still in flight");
    await s.shutdown();
  });
});

// The core's failure posture, with the glue Stryker mutates (moved here from packaging.test.mjs,
// which Stryker does not run): a package without its core (PKG-4, PKG-10, FAIL-2) and a panic or
// an unreadable value inside the core (FAIL-4).
describe(`the core failing on Pi ${PI_VERSION}`, () => {
  test("PKG-4/FAIL-2: without its native core the extension loads and tells the first turn, once", async () => {
    const ws = workspace();
    const dir = join(ws.dir, "pkg-without-core");
    copyPackage(dir, { withAddon: false });
    const s = await start(ws, { pkgDir: dir, env: OWN });
    assert.deepEqual(s.errors, []);
    await s.sessionStart();
    const [first] = await s.beforeAgentStart();
    assert.match(
      first.content,
      /^\[Gortex\] graph tools are unavailable this session \(pi-gortex native core failed to load: .+\)\. Tell the user to run \/reload to retry the connection\.$/,
    );
    assert.deepEqual(first.details, { briefing: false });
    assert.deepEqual(await s.beforeAgentStart("again"), []);
    // PKG-10: the user is told too, once, at error level, with what to do.
    const told = s.host.notifications.filter((n) =>
      n.message.startsWith("pi-gortex: pi-gortex native core failed to load"),
    );
    assert.equal(told.length, 1, JSON.stringify(s.host.notifications));
    assert.equal(told[0].type, "error");
    const tag = ADDON_FILE.replace(/^pi-gortex\.|\.node$/g, "");
    assert.ok(
      told[0].message.includes(
        `Platform ${tag}; prebuilt cores exist for linux-x64-gnu, linux-x64-musl, linux-arm64-gnu, linux-arm64-musl, darwin-x64, darwin-arm64, win32-x64-msvc, win32-arm64-msvc.`,
      ),
      told[0].message,
    );
    assert.ok(told[0].message.includes(`pi-gortex-${tag}`), "names the package to install");
    assert.ok(
      told[0].message.includes("read discipline (the hook on every tool call) are off"),
      "says read discipline is off",
    );
    await s.sessionStart();
    assert.equal(
      s.host.notifications.filter((n) => n.message.startsWith("pi-gortex: ")).length,
      1,
      "once per load, not per session",
    );
    await s.shutdown();
  });

  test("FAIL-4: a panic in the core fails open and is reported once per session", async () => {
    const ws = workspace();
    const s = await start(ws, { env: OWN });
    const addon = createRequire(join(PKG_DIR, "index.ts"))(`./${ADDON_FILE}`);
    assert.equal(await addon.debugForcePanic(true), false, "the async guard answers the fallback");
    assert.equal(await addon.debugForcePanic(false), false, "the sync guard answers the fallback");
    await s.sessionStart();
    const warnings = () => s.host.notifications.filter((n) => n.message.startsWith("pi-gortex hit an internal error"));
    assert.equal(warnings().length, 1);
    assert.match(warnings()[0].message, /forced by debugForcePanic/);
    await addon.debugForcePanic(true);
    await s.beforeAgentStart();
    assert.equal(warnings().length, 1, "not repeated within the session");
    assert.ok(s.toolNames().includes("search"), "the session kept its tools");
    await s.shutdown();
  });

  test("FAIL-4: a value the addon cannot read is recorded like a panic, never silently defaulted", async () => {
    const ws = workspace();
    const s = await start(ws, { env: OWN });
    const addon = createRequire(join(PKG_DIR, "index.ts"))(`./${ADDON_FILE}`);
    // A catalogue update whose withdrawals are a string: the export answers its fail-open value
    // (Pi's active tools unchanged)...
    assert.deepEqual(addon.activeTools(["read"], { activate: [], deactivate: "read" }), ["read"]);
    await s.sessionStart();
    // ...and the session hears about it once, naming the shape that failed.
    const warnings = s.host.notifications.filter((n) => n.message.startsWith("pi-gortex hit an internal error"));
    assert.equal(warnings.length, 1, JSON.stringify(s.host.notifications));
    assert.match(warnings[0].message, /could not read a CatalogueUpdate/);
    await s.shutdown();
  });
});
