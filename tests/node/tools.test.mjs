// Own-client tools (TOOL-*, MCP-22/23/30, SES-13 bridge down, DIFF-16) through Pi's real loader
// and runner against fake-gortex. Runs on every host (on 1.6.0 with native MCP off).
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { IS_NATIVE_HOST, PI_VERSION, pi, start, until, workspace } from "./lib/pi.mjs";
import {
  aliasNote,
  protocolModelText,
  protocolUserText,
  staleModelText,
  staleUserText,
  unavailableText,
} from "./lib/texts.mjs";

const OWN = { GORTEX_NATIVE_MCP: "0" };

async function ownSession(options = {}) {
  const ws = workspace(options);
  const s = await start(ws, { env: { ...OWN, ...(options.env ?? {}) } });
  await s.sessionStart();
  return s;
}

describe(`own-client tools on Pi ${PI_VERSION}`, () => {
  test("TOOL-2/3: colliding names are aliased with the rename note; others keep their bare name", async () => {
    const s = await ownSession();
    const names = s.toolNames();
    assert.ok(names.includes("gortex_read") && names.includes("gortex_edit"));
    assert.ok(names.includes("search") && !names.includes("read") && !names.includes("gortex_search"));
    const read = s.tool("gortex_read");
    assert.ok(read.description.startsWith(`${aliasNote("read")}\n\n`), read.description);
    assert.equal(read.label, "gortex_read");
    assert.ok(!s.tool("search").description.startsWith("Gortex's"));
    await s.shutdown();
  });

  test("TOOL-4: parameters are the daemon's inputSchema, verbatim", async () => {
    const s = await ownSession();
    const schema = s.tool("search").parameters;
    assert.equal(schema.type, "object");
    assert.ok(schema.properties.operation.enum.includes("symbols"));
    await s.shutdown();
  });

  test("MCP-36: the daemon's annotations reach Pi where its tool API takes them; 0.87.1 still registers", async () => {
    const s = await ownSession();
    const search = s.tool("search");
    const edit = s.tool("gortex_edit");
    assert.ok(search && edit, "both tools registered");
    if (IS_NATIVE_HOST) {
      assert.deepEqual(search.annotations, { readOnlyHint: true, openWorldHint: false });
      assert.deepEqual(edit.annotations, { readOnlyHint: false, destructiveHint: true, openWorldHint: false });
    } else {
      assert.equal(search.annotations, undefined, "an older tool API is not handed fields it lacks");
      assert.equal(edit.annotations, undefined);
    }
    assert.equal(search.outputSchema, undefined, "the daemon declares no outputSchema");
    await s.shutdown();
  });

  test("MCP-36: a result's structuredContent is kept in details", async () => {
    const structured = { hits: [{ name: "foo", line: 3 }] };
    const s = await ownSession({ scenario: { calls: { search: { text: "1 hit", structured } } } });
    const result = await s.execute("search", { query: "foo" });
    assert.deepEqual(result.content, [{ type: "text", text: "1 hit" }]);
    assert.deepEqual(result.details, { structuredContent: structured });
    await s.shutdown();
  });

  test("TOOL-6: execute returns the daemon's text and empty details", async () => {
    const s = await ownSession();
    const result = await s.execute("search", { operation: "symbols", query: "foo" });
    assert.deepEqual(result.content, [
      { type: "text", text: '[fake-gortex] search symbols {"operation":"symbols","query":"foo"}' },
    ]);
    assert.deepEqual(result.details, {});
    await s.shutdown();
  });

  test("TOOL-6 step 7: an isError result throws its text", async () => {
    const s = await ownSession({ scenario: { calls: { search: { is_error: true, text: "no such symbol" } } } });
    await assert.rejects(s.execute("search", { query: "x" }), { message: "no such symbol" });
    await s.shutdown();
  });

  test("MCP-30: an aborted call rejects at once and sends notifications/cancelled", async () => {
    const s = await ownSession({ scenario: { calls: { search: { delay_ms: 10000 } } } });
    const controller = new AbortController();
    const running = s.execute("search", { query: "slow" }, { signal: controller.signal });
    await until(() => s.ws.log().some((r) => r.ev === "recv" && r.method === "tools/call"));
    const began = Date.now();
    controller.abort();
    await assert.rejects(running, { message: "gortex search failed: tool call aborted" });
    assert.ok(Date.now() - began < 5000, "the abort does not wait for the daemon");
    assert.ok(await until(() => s.ws.log().some((r) => r.ev === "recv" && r.method === "notifications/cancelled")));
    await s.shutdown();
  });

  test("MCP-30: an already-aborted signal cancels the call: it is never sent", async () => {
    const s = await ownSession();
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(s.execute("search", { query: "never" }, { signal: controller.signal }), {
      message: "gortex search failed: tool call aborted",
    });
    // A later call's reply means the fake has read every earlier frame.
    await s.execute("search", { query: "after" });
    const calls = s.ws.log().filter((r) => r.ev === "recv" && r.method === "tools/call");
    assert.equal(calls.length, 1, "only the later call was sent");
    await s.shutdown();
  });

  test("MCP-30: an abort while Pi's file lock is held cancels the edit: it is never sent", async () => {
    const ws = workspace();
    const file = join(ws.cwd, "locked.txt");
    writeFileSync(file, "x\n");
    const s = await start(ws, { env: OWN });
    await s.sessionStart();
    let release;
    const held = new Promise((resolve) => (release = resolve));
    let entered;
    const inside = new Promise((resolve) => (entered = resolve));
    // Pi's own edit holds the file's lock (DIFF-16 step 2 waits for it).
    const holder = pi.withFileMutationQueue(file, async () => {
      entered();
      await held;
    });
    await inside;
    const controller = new AbortController();
    const running = s.execute(
      "gortex_edit",
      { operation: "file", target: { file }, match: "x", replacement: "y" },
      { signal: controller.signal },
    );
    controller.abort();
    release();
    await holder;
    await assert.rejects(running, { message: "gortex edit failed: tool call aborted" });
    assert.equal(readFileSync(file, "utf8"), "x\n", "the edit never ran");
    await s.execute("search", { query: "after" });
    const calls = s.ws.log().filter((r) => r.ev === "recv" && r.method === "tools/call");
    assert.equal(calls.length, 1, "only the later call was sent");
    await s.shutdown();
  });

  test("MCP-2: gortex mcp runs in the session cwd the factory saw, not wherever the host is now", async () => {
    // pi.mjs moves the process back out of the workspace after the factory ran.
    const s = await ownSession();
    const starts = s.ws.log().filter((r) => r.ev === "start" && r.verb === "mcp");
    assert.ok(starts.length >= 1, "gortex mcp started");
    assert.notEqual(process.cwd(), s.ws.cwd, "the host has moved on");
    for (const start of starts) assert.equal(start.cwd, s.ws.cwd);
    await s.shutdown();
  });

  test("TOOL-6 step 1 / SES-9: a call after shutdown says the bridge is not connected", async () => {
    const s = await ownSession();
    await s.shutdown();
    await assert.rejects(s.execute("search", { query: "x" }), {
      message: "gortex search: MCP bridge is not connected",
    });
  });

  test("SES-13/FAIL-2: a missing binary registers nothing and the first turn names /reload, once", async () => {
    const ws = workspace();
    const s = await start(ws, { env: { ...OWN, GORTEX_BIN: join(ws.dir, "missing-gortex") } });
    await s.sessionStart();
    assert.deepEqual(s.toolNames(), []);
    const [first] = await s.beforeAgentStart();
    assert.equal(first.content, unavailableText("gortex mcp spawn failed"));
    assert.deepEqual(await s.beforeAgentStart("again"), [], "FAIL-5: reported once");
    await s.shutdown();
  });

  test("MCP-22/23/24: a daemon below the floor warns the user once, tells the model, keeps every tool", async () => {
    const s = await ownSession({ scenario: { version: "0.60.0" } });
    assert.deepEqual(s.host.notifications, [{ message: staleUserText("0.60.0"), type: "warning" }]);
    assert.ok(s.toolNames().includes("search"));
    const [first] = await s.beforeAgentStart();
    assert.ok(first.content.startsWith(staleModelText("0.60.0")), first.content);
    assert.equal(first.details.briefing, true);
    await s.shutdown();
  });

  test("MCP-21: protocol skew gives the protocol texts", async () => {
    const s = await ownSession({ scenario: { protocol: "2023-01-01" } });
    assert.deepEqual(s.host.notifications, [
      { message: protocolUserText("gortex 0.64.4", "2023-01-01"), type: "warning" },
    ]);
    const [first] = await s.beforeAgentStart();
    assert.ok(first.content.startsWith(protocolModelText("2023-01-01")));
    await s.shutdown();
  });

  test("TOOL-8 / TOOL-6 step 5: a tools_search call returns only after the promoted tool is registered", async () => {
    const s = await ownSession({ env: { GORTEX_TOOLS: "nav" } });
    assert.ok(s.toolNames().includes("tools_search"));
    assert.ok(!s.toolNames().includes("find_clones"));
    await s.execute("tools_search", { query: "select:find_clones" });
    assert.ok(s.toolNames().includes("find_clones"), "callable by the time the model reads the reply");
    await s.shutdown();
  });

  test("TOOL-10: a withdrawn tool leaves the active tools; a relisted one comes back", async () => {
    const faults = [
      { kind: "withdraw", tools: ["trace"], after_list: 1 },
      { kind: "relist", tools: ["trace"], after_list: 2 },
    ];
    const s = await ownSession({ scenario: { faults } });
    // The first listing registered trace; its list_changed re-list drops it (TOOL-9 debounce).
    assert.ok(
      await until(() => s.host.setActiveCalls.some((names) => !names.includes("trace")), 5000),
      "trace withdrawn",
    );
    assert.ok(s.toolNames().includes("trace"), "Pi cannot unregister: still registered");
    // The second listing's list_changed brings it back.
    assert.ok(await until(() => s.activeTools().includes("trace"), 5000), "trace relisted");
    assert.ok(s.host.setActiveCalls.at(-1).includes("trace"));
    await s.shutdown();
  });

  test("DIFF-16: an edit gets Pi-identical diff details under the own client; the model text is Gortex's", async () => {
    const ws = workspace();
    const file = join(ws.cwd, "a.txt");
    writeFileSync(file, "one\ntwo\nthree\n");
    const s = await start(ws, { env: OWN });
    await s.sessionStart();
    const result = await s.execute("gortex_edit", {
      operation: "file",
      target: { file },
      match: "two",
      replacement: "TWO",
    });
    assert.equal(readFileSync(file, "utf8"), "one\nTWO\nthree\n");
    assert.match(result.content[0].text, /"status":"applied"/);
    const details = result.details;
    assert.equal(details.diffs.length, 1);
    assert.equal(details.diffs[0].path, "a.txt");
    const expected = pi.generateDiffString("one\ntwo\nthree\n", "one\nTWO\nthree\n");
    assert.equal(details.diff, expected.diff, "DIFF-13: byte-identical to Pi's generateDiffString");
    assert.equal(details.firstChangedLine, expected.firstChangedLine);
    assert.equal(details.patch, pi.generateUnifiedPatch("a.txt", "one\ntwo\nthree\n", "one\nTWO\nthree\n"));
    assert.equal(details.patch, details.diffs[0].patch);
    await s.shutdown();
  });

  test("DIFF-2 improvement: an edit without operation is inferred and diffed", async () => {
    const ws = workspace();
    const file = join(ws.cwd, "b.txt");
    const s = await start(ws, { env: OWN });
    await s.sessionStart();
    const result = await s.execute("gortex_edit", { target: { file }, content: "new file\n" });
    assert.equal(readFileSync(file, "utf8"), "new file\n");
    assert.equal(result.details.diffs[0].path, "b.txt");
    assert.match(result.details.diff, /\+1 new file/);
    await s.shutdown();
  });

  // The file changes while the call is in flight (the test writes it once the
  // fake has received the call, which answers 1.5 s later). A diffed call
  // would report that change; a dry run must not be snapshotted at all. The
  // same call without dry_run shows the change does produce a diff.
  for (const dryRun of [true, false]) {
    test(`DIFF-3: ${dryRun ? "a dry run is not diffed" : "control: the same call without dry_run is diffed"}`, async () => {
      const ws = workspace({
        scenario: { calls: { edit: { text: '{"path":"c.txt","status":"applied"}', delay_ms: 1500 } } },
      });
      const file = join(ws.cwd, "c.txt");
      writeFileSync(file, "x\n");
      const s = await start(ws, { env: OWN });
      await s.sessionStart();
      const options = dryRun ? { dry_run: true } : {};
      const call = s.execute("gortex_edit", {
        operation: "file",
        target: { file },
        match: "x",
        replacement: "y",
        options,
      });
      const received = () => ws.log().some((r) => r.ev === "recv" && r.method === "tools/call");
      assert.ok(await until(received, 20000), "the fake received the call");
      writeFileSync(file, "changed\n");
      const result = await call;
      if (dryRun) assert.deepEqual(result.details, {});
      else assert.match(result.details?.diff ?? "", /changed/, JSON.stringify(result.details));
      await s.shutdown();
    });
  }

  test("TOOL-9: a burst of list_changed yields one re-list once quiet", async () => {
    const s = await ownSession({
      scenario: { faults: [{ kind: "list_changed_burst", count: 200, spacing_ms: 0, after: "tools/list" }] },
    });
    const lists = () => s.ws.log().filter((r) => r.ev === "recv" && r.method === "tools/list").length;
    assert.ok(await until(() => lists() >= 2, 5000), "the burst caused a re-list");
    await new Promise((resolve) => setTimeout(resolve, 600));
    assert.ok(lists() <= 3, `re-lists: ${lists() - 1}`);
    await s.shutdown();
  });

  test("DIFF-8: an edit naming a file outside the cwd and repo root is never read or diffed", async () => {
    const ws = workspace();
    const outside = join(ws.dir, "outside.txt");
    writeFileSync(outside, "secret\n");
    const s = await start(ws, { env: OWN });
    await s.sessionStart();
    const result = await s.execute("gortex_edit", {
      operation: "file",
      target: { file: outside },
      match: "secret",
      replacement: "x",
    });
    assert.equal(result.details.diffs, undefined, "no diff of a file outside");
    assert.deepEqual(Object.keys(result.details), ["structuredContent"], "only the daemon's structured result");
    await s.shutdown();
  });

  test("MCP-19/SES-9: one failed handshake is retried; two give the daemon's error to the first turn", async () => {
    const once = await ownSession({ scenario: { faults: [{ kind: "failing_handshake", n: 1 }] } });
    assert.ok(once.toolNames().includes("search"));
    await once.shutdown();
    const twice = await ownSession({ scenario: { faults: [{ kind: "failing_handshake", n: 2 }] } });
    assert.deepEqual(twice.toolNames(), []);
    const [first] = await twice.beforeAgentStart();
    assert.ok(first.content.startsWith(`${unavailableText("daemon warming up")}\n\n## Gortex Session Orientation`));
    await twice.shutdown();
  });
});
