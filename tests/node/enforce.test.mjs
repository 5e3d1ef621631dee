// Read discipline on tool_call (HOOK-*, CFG-7/8/10) through Pi's runner. Decisions come from
// Gortex's own hook handler (lib/upstream.mjs) except where a test names the fault the
// simulator's hook stands for. Runs on every host.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { FAKE, PI_VERSION, start, workspace } from "./lib/pi.mjs";
import { assertAnsweredByUpstream, upstreamWorkspace } from "./lib/upstream.mjs";

const OWN = { GORTEX_NATIVE_MCP: "0" };

function hookCalls(s, event = "tool_call") {
  return s.hooks().filter((r) => r.envelope?.event === event);
}

async function session(options = {}) {
  const ws = workspace(options);
  const s = await start(ws, { env: { ...OWN, ...(options.env ?? {}) } });
  await s.sessionStart();
  return s;
}

/** A session whose hook is Gortex's own; `end()` also stops its daemon. */
async function upstreamSession(options = {}) {
  const ws = await upstreamWorkspace(options);
  const s = await start(ws, { env: { ...OWN, ...(options.env ?? {}) } });
  await s.sessionStart();
  s.end = async () => {
    await s.shutdown();
    await ws.stopDaemon();
  };
  return s;
}

describe(`enforcement on Pi ${PI_VERSION}`, () => {
  test("HOOK-10: a blocked read returns {block, reason} with the hook's reason", async () => {
    const s = await upstreamSession();
    const result = await s.toolCall("read", { path: "src/app.go" });
    assert.equal(result.block, true);
    assert.equal(result.reason, JSON.parse(hookCalls(s)[0].decision).reason);
    assert.match(result.reason, /^\[Gortex\] BLOCKED: Read of src\/app\.go/);
    assertAnsweredByUpstream(s, 1);
    await s.end();
  });

  // Simulator: a block with an empty reason, which Gortex's hook never writes.
  test("HOOK-10: an empty reason falls back to the default text", async () => {
    const s = await session({ scenario: { decisions: [{ match: { tool_name: "Read" }, decision: { block: true } }] } });
    assert.deepEqual(await s.toolCall("read", { path: "x.md" }), {
      block: true,
      reason: "[Gortex] blocked: prefer graph tools.",
    });
    await s.shutdown();
  });

  test("HOOK-11/WIRE-24: guidance is sent as a visible gortex steer message, the call proceeds", async () => {
    const s = await upstreamSession();
    assert.equal(await s.toolCall("read", { path: "src/empty.go" }), undefined);
    const text = JSON.parse(hookCalls(s)[0].decision).additional_context;
    assert.match(text, /^\[Gortex\] Use `explore` first/);
    assert.deepEqual(s.host.messages, [
      { message: { customType: "gortex", content: text, display: true }, options: { deliverAs: "steer" } },
    ]);
    assertAnsweredByUpstream(s, 1);
    await s.end();
  });

  // Simulator: a decision with both block and additional_context, which Gortex's hook never writes.
  test("HOOK-12: block wins over additional_context", async () => {
    const s = await session({
      scenario: {
        decisions: [
          {
            match: { tool_name: "Grep" },
            decision: { block: true, reason: "[Gortex] no", additional_context: "[Gortex] hint" },
          },
        ],
      },
    });
    assert.deepEqual(await s.toolCall("grep", { pattern: "x" }), { block: true, reason: "[Gortex] no" });
    assert.deepEqual(s.host.messages, []);
    await s.shutdown();
  });

  test("HOOK-7/8/9: the envelope maps Pi's names and keys and carries cwd and session id", async () => {
    const s = await upstreamSession();
    await s.toolCall("ls", { path: "src" });
    const [record] = hookCalls(s);
    assertAnsweredByUpstream(s, 1);
    assert.deepEqual(record.envelope, {
      event: "tool_call",
      tool_name: "Glob",
      tool_input: { path: "src", file_path: "src", pattern: "src" },
      cwd: s.ws.cwd,
      session_id: s.sessionManager.getSessionId(),
      is_gortex_tool: false,
    });
    await s.end();
  });

  test("HOOK-5/6: an aliased graph tool is sent by its bare daemon name with raw input", async () => {
    const s = await upstreamSession();
    await s.toolCall("gortex_read", { target: { file: "src/app.go" } });
    const [record] = hookCalls(s);
    assert.equal(record.envelope.tool_name, "read");
    assert.equal(record.envelope.is_gortex_tool, true);
    assert.deepEqual(record.envelope.tool_input, { target: { file: "src/app.go" } });
    assert.equal(record.decision, "{}");
    assertAnsweredByUpstream(s, 1);
    await s.end();
  });

  test("HOOK-13: sub-calls with a parentToolCallId are enforced too", async () => {
    const s = await upstreamSession();
    const result = await s.toolCall("read", { path: "src/app.go" }, { parentToolCallId: "call_parent" });
    assert.equal(result.block, true);
    assertAnsweredByUpstream(s, 1);
    await s.end();
  });

  test("CFG-10/HOOK-4: with enforce off no tool_call reaches the hook, the briefing still does", async () => {
    const s = await session({ env: { GORTEX_ENFORCE: "off" } });
    const ours = s.loader.getExtensions().extensions.find((extension) => extension.handlers.has("session_compact"));
    assert.equal(ours.handlers.get("tool_call").length, 1, "only the edit claims' tool_call handler");
    assert.equal(await s.toolCall("read", { path: "a.go" }), undefined);
    assert.deepEqual(hookCalls(s), []);
    const [first] = await s.beforeAgentStart();
    assert.equal(first.details.briefing, true);
    assert.equal(hookCalls(s, "session_start").length, 1, "the session hook ran");
    await s.shutdown();
  });

  test("CFG-7/8: the posture reaches the hook as --mode; deny is never passed", async () => {
    const s = await upstreamSession({ projectSidecar: { hook_mode: "adaptive-nudge" } });
    await s.toolCall("read", { path: "src/app.go" });
    assert.ok(hookCalls(s)[0].argv.includes("--mode=nudge"), JSON.stringify(hookCalls(s)[0].argv));
    assert.equal(hookCalls(s)[0].decision, "{}", "Gortex's nudge lets the first read through");
    assertAnsweredByUpstream(s, 1);
    await s.end();
    const d = await upstreamSession({ env: { GORTEX_HOOK_MODE: "ENRICH-ish" } });
    const denied = await d.toolCall("read", { path: "src/app.go" });
    assert.ok(!hookCalls(d)[0].argv.some((arg) => arg.startsWith("--mode")));
    assert.equal(denied.block, true, "an unknown posture is deny");
    assertAnsweredByUpstream(d, 1);
    await d.end();
  });

  test("CFG-6: a project sidecar cannot choose the binary", async () => {
    // No GORTEX_BIN, so only the sidecars compete: the project's `bin` is a
    // script that would leave a marker, the global one is the fake.
    const ws = workspace({ globalSidecar: { bin: FAKE } });
    const marker = join(ws.dir, "project-bin-ran");
    const hostile = join(ws.dir, "hostile-gortex");
    writeFileSync(hostile, `#!/bin/sh\necho "$@" >> '${marker}'\nexec '${FAKE}' "$@"\n`, { mode: 0o755 });
    mkdirSync(join(ws.cwd, ".pi"), { recursive: true });
    writeFileSync(join(ws.cwd, ".pi/gortex.json"), JSON.stringify({ bin: hostile }));
    const s = await start(ws, { env: { ...OWN, GORTEX_BIN: null } });
    await s.sessionStart();
    assert.ok(s.toolNames().includes("search"), "the global sidecar's binary serves the tools");
    assert.ok(s.mcpPids().length >= 1, "gortex mcp ran from the global sidecar's bin");
    await s.toolCall("read", { path: "a.go" });
    assert.equal(hookCalls(s).length, 1, "the hook ran from the global sidecar's bin");
    assert.equal(existsSync(marker), false, "the project sidecar's bin never ran");
    // Not silent: exactly one warning names the file and the ignored key.
    const warnings = s.host.notifications.filter((n) => n.type === "warning");
    assert.equal(warnings.length, 1, JSON.stringify(s.host.notifications));
    assert.match(
      warnings[0].message,
      /^pi-gortex configuration: .*\.pi\/gortex\.json: key `bin` is ignored in a project sidecar/,
    );
    await s.sessionStart();
    assert.equal(s.host.notifications.filter((n) => n.type === "warning").length, 1, "warned once");
    await s.shutdown();
  });

  for (const [name, fault] of [
    ["garbage", { kind: "hook_garbage", stdout: "not json" }],
    ["null", { kind: "hook_garbage", stdout: "null" }],
    ["a string block", { kind: "hook_garbage", stdout: '{"block":"yes","reason":"x"}' }],
    [
      "non-zero exit with a deny",
      { kind: "hook_exit", exit_code: 2, stdout: '{"block":true,"reason":"[Gortex] BLOCKED: x"}' },
    ],
  ]) {
    // Simulator: a hook answer Gortex's own never gives (garbage, a mistyped field, a failing exit).
    test(`HOOK-3/FAIL-1: hook ${name} lets the call proceed`, async () => {
      const s = await session({ scenario: { faults: [fault] } });
      assert.equal(await s.toolCall("read", { path: "a.go" }), undefined);
      // The call went ahead because the hook's answer was refused, not
      // because no hook ran: the fake logged this very invocation.
      const calls = hookCalls(s);
      assert.equal(calls.length, 1, JSON.stringify(s.hooks()));
      assert.equal(calls[0].envelope.tool_name, "Read");
      assert.deepEqual(calls[0].envelope.tool_input.file_path, "a.go");
      await s.shutdown();
    });
  }

  test("HOOK-16: an internal error in the handler never blocks the call", async () => {
    // A real internal error: reading the input throws (Pi hands over
    // whatever the model produced), so building the envelope fails inside
    // the handler. Pi turns a throwing tool_call handler into a block.
    const s = await session();
    let touched = 0;
    const input = new Proxy(
      {},
      {
        ownKeys() {
          touched += 1;
          throw new Error("hostile input");
        },
        get(_target, key) {
          if (key === "toJSON") {
            touched += 1;
            throw new Error("hostile input");
          }
          return undefined;
        },
      },
    );
    assert.equal(await s.toolCall("read", input), undefined);
    assert.ok(touched > 0, "the handler did reach the failing input");
    assert.deepEqual(hookCalls(s), [], "no envelope could be built, so no hook ran");
    await s.shutdown();
  });

  test("HOOK-16: a missing hook binary never blocks and never throws", async () => {
    const ws = workspace();
    const s = await start(ws, { env: { ...OWN, GORTEX_BIN: "/nonexistent/gortex" } });
    await s.sessionStart();
    assert.equal(await s.toolCall("read", { path: "a.go" }), undefined);
    await s.shutdown();
  });
});
