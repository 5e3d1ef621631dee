//! fault_matrix.test.mjs - the rows of the fault matrix (docs/reliability.md) that
//! faults.test.mjs, session.test.mjs and hook.test.mjs do not already drive through the real Pi
//! CLI: a `null` hook, an exit mid-handshake, `list_changed` before the initialize response, a
//! burst of 10,000 `list_changed`, a tool withdrawn and re-added, protocol skew, broken and
//! wrong-typed sidecars, a PATH directory named `gortex`, and files a diff must not read (binary,
//! over 1 MiB, not UTF-8, a symlink out of the repo). Every run must complete cleanly (rc 0, no
//! stderr, no fake-gortex process left: assertClean) and no tool call may be blocked by a fault.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe } from "node:test";
import {
  assertClean,
  clientOf,
  hooksFor,
  initializes,
  offeredTools,
  toolHookRuns,
  toolName,
  unavailableText,
  userTexts,
} from "./lib/gortex.mjs";
import { FAKE_GORTEX } from "./lib/hosts.mjs";
import { CONCURRENCY, scenario } from "./lib/matrix.mjs";
import { reportOf, runPi } from "./lib/run.mjs";
import { SOURCE_FILES } from "./lib/workspace.mjs";

const SEARCH_ARGS = { operation: "symbols", query: "Hello" };
const searchReply = `[fake-gortex] search symbols ${JSON.stringify(SEARCH_ARGS)}`;
const readMain = { call: "read", args: { path: "main.go" } };
const OWN = { only: "0.87.1" };

function runWith(pi, scenario, script, extra = {}) {
  return runPi({ pi, files: SOURCE_FILES, scenario, script: [...script, { report: true }], ...extra });
}

const listings = (run) => run.fake.filter((r) => r.ev === "recv" && r.method === "tools/list").length;
const sent = (run, method) => run.fake.filter((r) => r.ev === "send" && r.method === method).length;

describe("fault matrix: hook", { concurrency: CONCURRENCY }, () => {
  scenario("hook answers null: treated as {} and the read proceeds (HOOK-3)", {}, async ({ pi }) => {
    const run = await runWith(pi, { faults: [{ kind: "hook_garbage", stdout: "null", event: "tool_call" }] }, [
      readMain,
    ]);
    await assertClean(run);
    assert.equal(hooksFor(run.fake, "tool_call", "Read").length, 1, "the hook ran for the read and answered null");
    assert.equal(toolHookRuns(run.fake), 1);
    const [result] = reportOf(run.stdout).toolResults;
    assert.equal(result.isError, false, `not blocked: ${result.text}`);
    assert.match(result.text, /func Hello\(\) string/);
  });
});

describe("fault matrix: daemon on the own client", { concurrency: CONCURRENCY }, () => {
  // Valid JSON whose text holds a lone surrogate before an escaped backslash made the
  // own client's result reader panic ("gortex: internal error") after the daemon had run the
  // call. On Pi 1.6.0 `--no-mcp` puts the own client in charge.
  scenario(
    "a reply with a lone surrogate and an escaped backslash reaches the model",
    { path: "own" },
    async ({ pi }) => {
      const run = await runWith(
        pi,
        { calls: { search: { text_json: '"found \\ud800abcde\\\\ done"' } } },
        [{ call: "search", args: SEARCH_ARGS }],
        {
          args: pi === "1.6.0" ? ["--no-mcp"] : [],
        },
      );
      await assertClean(run);
      assert.deepEqual(reportOf(run.stdout).toolResults, [
        { name: "search", isError: false, text: "found \ufffdabcde\\ done" },
      ]);
    },
  );

  scenario("the child exits during the handshake: the retry succeeds and tools work (MCP-19)", OWN, async ({ pi }) => {
    const run = await runWith(pi, { faults: [{ kind: "crash_on_call", method: "initialize", n: 1 }] }, [
      { call: "search", args: SEARCH_ARGS },
    ]);
    await assertClean(run);
    assert.equal(run.fake.filter((r) => r.ev === "start" && r.verb === "mcp").length, 2, "one respawn for the retry");
    assert.deepEqual(reportOf(run.stdout).toolResults, [{ name: "search", isError: false, text: searchReply }]);
  });

  scenario(
    "an unknown server request is answered -32601 Method not found, echoing its id (MCP-11)",
    OWN,
    async ({ pi }) => {
      const run = await runWith(
        pi,
        { faults: [{ kind: "server_request", method: "roots/list", after: "tools/list", id: 42 }] },
        [{ call: "search", args: SEARCH_ARGS }],
      );
      await assertClean(run);
      const answers = run.fake.filter((r) => r.ev === "answer" && r.request === "roots/list");
      assert.equal(answers.length, 1, JSON.stringify(run.fake.filter((r) => r.ev === "answer")));
      assert.equal(answers[0].id, 42);
      assert.deepEqual(answers[0].error, { code: -32601, message: "Method not found" });
      assert.deepEqual(reportOf(run.stdout).toolResults, [{ name: "search", isError: false, text: searchReply }]);
    },
  );

  scenario("list_changed before the initialize response is ignored (TOOL-9)", OWN, async ({ pi }) => {
    // The slow search keeps the session open well past the 200 ms debounce, so a wrongly
    // wired early notification would show up as a second listing.
    const run = await runWith(
      pi,
      { faults: [{ kind: "list_changed_burst", count: 50, after: "start" }], calls: { search: { delay_ms: 700 } } },
      [{ call: "search", args: SEARCH_ARGS }],
    );
    await assertClean(run);
    assert.equal(sent(run, "notifications/tools/list_changed"), 50, "the fault fired");
    assert.equal(listings(run), 1, "only the session's own listing");
    assert.equal(reportOf(run.stdout).toolResults[0].isError, false);
  });

  scenario("a burst of 10,000 list_changed causes at most 3 re-lists (TOOL-9)", OWN, async ({ pi }) => {
    // The search reply waits for the first re-list (an event, so a loaded machine cannot end the
    // session before it), and for at least 1.5 s, several debounce windows, so that further
    // re-lists the burst wrongly caused would be counted.
    const run = await runWith(
      pi,
      {
        faults: [{ kind: "list_changed_burst", count: 10000, after: "tools/list" }],
        calls: { search: { delay_ms: 1500, until_lists: 2 } },
      },
      [{ call: "search", args: SEARCH_ARGS }],
    );
    await assertClean(run);
    assert.equal(sent(run, "notifications/tools/list_changed"), 10000, "the whole burst was sent");
    const relists = listings(run) - 1;
    assert.ok(relists >= 1 && relists <= 3, `${relists} re-lists for one burst`);
    assert.equal(reportOf(run.stdout).toolResults[0].isError, false);
  });

  scenario("a tool withdrawn and re-added is offered again (TOOL-10)", OWN, async ({ pi }) => {
    // The first search is answered only once the fake has answered the third listing (the one
    // that shows explore again); the second search is one more model turn after it, so the last
    // turn starts after the core has handed that listing to the glue.
    const run = await runWith(
      pi,
      {
        faults: [
          { kind: "withdraw", tools: ["explore"], after_list: 1 },
          { kind: "relist", tools: ["explore"], after_list: 2 },
        ],
        calls: { search: { until_lists: 3 } },
      },
      [
        { call: "search", args: SEARCH_ARGS },
        { call: "search", args: SEARCH_ARGS },
      ],
    );
    await assertClean(run);
    assert.ok(
      run.fake.some((r) => r.ev === "withdraw") && run.fake.some((r) => r.ev === "relist"),
      "both faults fired",
    );
    assert.ok(listings(run) >= 3, `listed, re-listed without explore, re-listed with it (${listings(run)})`);
    const active = run.events.filter((e) => e.ev === "turn_start").map((e) => e.activeTools);
    assert.ok(active.at(-1).includes("explore"), `explore active again: ${JSON.stringify(active.at(-1))}`);
    assert.ok(offeredTools(run.models.at(-1)).includes("explore"), "offered to the model again");
  });

  scenario("another protocol version: one model line and the tools stay (MCP-21..24)", OWN, async ({ pi }) => {
    const run = await runWith(pi, { protocol: "2023-01-01" }, [{ call: "search", args: SEARCH_ARGS }]);
    await assertClean(run);
    const line =
      "[Gortex] the daemon negotiated MCP protocol 2023-01-01 instead of 2025-11-25. A graph tool call may fail. If one does, tell the user to run `gortex upgrade`.";
    const first = userTexts(run.models[0]);
    assert.ok(first[1]?.startsWith(line), JSON.stringify(first));
    assert.equal(reportOf(run.stdout).toolResults[0].isError, false, "the tools still work");
  });
});

describe("fault matrix: configuration", { concurrency: CONCURRENCY }, () => {
  scenario("a project sidecar with broken JSON reads as {}: default deny posture (CFG-4)", {}, async ({ pi }) => {
    const run = await runWith(pi, {}, [readMain], {
      files: { ...SOURCE_FILES, ".pi/gortex.json": '{"hook_mode": "enrich",' },
    });
    await assertClean(run);
    const [hook] = hooksFor(run.fake, "tool_call", "Read");
    assert.ok(hook, "the hook ran for the read");
    assert.ok(!hook.argv.some((a) => a.startsWith("--mode")), `deny is never passed: ${hook.argv}`);
    assert.equal(reportOf(run.stdout).toolResults[0].isError, true, "blocked by the hook's deny, as without a sidecar");
  });

  scenario("a project sidecar with wrong types: each bad key falls through (CFG-5, CFG-9)", {}, async ({ pi }) => {
    const sidecar = JSON.stringify({ enforce: "false", hook_mode: 5, tools_preset: 7 });
    const run = await runWith(pi, {}, [readMain], { files: { ...SOURCE_FILES, ".pi/gortex.json": sidecar } });
    await assertClean(run);
    const [hook] = hooksFor(run.fake, "tool_call", "Read");
    assert.ok(hook, 'enforce stays true: the string "false" is not a boolean');
    assert.ok(!hook.argv.some((a) => a.startsWith("--mode")), `mode stays deny: ${hook.argv}`);
    const start = run.fake.find((r) => r.ev === "start" && r.verb === "mcp");
    if (start) assert.equal(start.env?.GORTEX_TOOLS, undefined, "a numeric preset is not forwarded");
  });

  // Spawning through PATH skips a directory whatever NAT-3 decides, so the tool working proves
  // nothing about NAT-3. What does: the path chosen (native only when NAT-3 resolves `gortex`
  // past the directory), and with the directory alone, the own client and its spawn failure
  // reaching the model (NAT-2: an unresolvable binary goes to the own client).
  scenario("a PATH entry that is a directory named gortex is skipped (NAT-3)", {}, async ({ pi, path }) => {
    // PATH is fixed before the sandbox exists, so the two entries live in their own temp dir.
    const dirs = mkdtempSync(join(tmpdir(), "pi-e2e-path-"));
    const decoy = join(dirs, "decoy");
    const bin = join(dirs, "bin");
    mkdirSync(join(decoy, "gortex"), { recursive: true });
    mkdirSync(bin, { recursive: true });
    symlinkSync(FAKE_GORTEX, join(bin, "gortex"));
    const run = await runWith(pi, {}, [{ call: toolName(path, "search"), args: SEARCH_ARGS }], {
      env: { GORTEX_BIN: undefined, PATH: `${decoy}:${bin}:${process.env.PATH}` },
    });
    const alone = await runWith(pi, {}, [], { env: { GORTEX_BIN: undefined, PATH: `${decoy}:${process.env.PATH}` } });
    rmSync(dirs, { recursive: true, force: true });
    await assertClean(run);
    assert.deepEqual(reportOf(run.stdout).toolResults, [
      { name: toolName(path, "search"), isError: false, text: searchReply },
    ]);
    // Only the extension's own client asks for the GCX wire format (FAKE-3).
    const clients = initializes(run.fake).map(clientOf);
    assert.ok(
      clients.length >= 1 && clients.every((c) => c === (path === "native" ? "native" : "own")),
      `the ${path} path was chosen: ${JSON.stringify(clients)}`,
    );
    await assertClean(alone);
    assert.deepEqual(
      userTexts(alone.models[0]),
      ["go", unavailableText("gortex mcp spawn failed")],
      "a directory alone does not resolve",
    );
  });
});

describe("fault matrix: files a diff must not read", { concurrency: CONCURRENCY }, () => {
  scenario(
    "binary, over 1 MiB, not UTF-8: a note each; a symlink out of the repo: no entry (DIFF-8, DIFF-9)",
    {},
    async ({ pi, path }) => {
      const edit = toolName(path, "edit");
      const write = (file) => ({ call: edit, args: { operation: "write", target: { file }, content: "replaced\n" } });
      const files = ["bin.dat", "big.txt", "latin1.txt", "escape.txt"];
      const run = await runPi({
        pi,
        session: true,
        files: SOURCE_FILES,
        setup: (box) => {
          writeFileSync(join(box.work, "bin.dat"), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01]));
          writeFileSync(join(box.work, "big.txt"), "x".repeat(1024 * 1024 + 10));
          writeFileSync(join(box.work, "latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
          writeFileSync(join(box.root, "outside.txt"), "secret\n");
          symlinkSync(join(box.root, "outside.txt"), join(box.work, "escape.txt"));
        },
        script: [...files.map(write), { say: "written" }],
      });
      await assertClean(run);
      const results = run.session.filter(
        (e) => e.type === "message" && e.message?.role === "toolResult" && e.message.toolName === edit,
      );
      assert.equal(results.length, files.length, "every edit result is in the session file");
      const notes = results.map((r) => (r.message.details?.diffs ?? []).map((d) => [d.path, d.note ?? null, d.diff]));
      assert.deepEqual(notes, [
        [["bin.dat", "not diffed: binary file", ""]],
        [["big.txt", "not diffed: over 1 MiB", ""]],
        [["latin1.txt", "not diffed: not UTF-8 text", ""]],
        [],
      ]);
      for (const r of results) assert.equal(r.message.isError, false, "the edits themselves succeed");
      // The fake wrote through the symlink; the bridge never read the target.
      assert.equal(readFileSync(join(run.box.root, "outside.txt"), "utf8"), "replaced\n");
    },
  );
});

// The handshake and tool-call timeouts are 60 s and 600 s (MCP-13). The addon honours two
// test-only variables that shorten them (PI_GORTEX_TEST_INIT_TIMEOUT_MS,
// PI_GORTEX_TEST_CALL_TIMEOUT_MS), so these rows run the very same code paths in seconds.
describe("fault matrix: hangs on the own client", { concurrency: CONCURRENCY }, () => {
  scenario(
    "a handshake that hangs: both attempts time out, the model is told, nothing is left (MCP-13, MCP-19, SES-13)",
    OWN,
    async ({ pi }) => {
      const run = await runWith(pi, { faults: [{ kind: "slow_handshake", delay_ms: 120000 }] }, [], {
        env: { PI_GORTEX_TEST_INIT_TIMEOUT_MS: "1500" },
      });
      await assertClean(run);
      const first = userTexts(run.models[0]);
      assert.equal(first[0], "go");
      assert.ok(first[1].startsWith(unavailableText("initialize timed out after 1500ms")), JSON.stringify(first));
      assert.equal(
        run.fake.filter((r) => r.ev === "start" && r.verb === "mcp").length,
        2,
        "the one retry ran on a new child",
      );
      assert.ok(!offeredTools(run.models[0]).includes("search"), "no graph tools");
    },
  );

  scenario(
    "a call that hangs past its timeout: the silent child is killed and the next call respawns (MCP-13, MCP-14)",
    OWN,
    async ({ pi }) => {
      const run = await runWith(
        pi,
        { faults: [{ kind: "hang", method: "tools/call", after_n: 1 }] },
        [
          { call: "search", args: SEARCH_ARGS },
          { call: "search", args: SEARCH_ARGS },
        ],
        { env: { PI_GORTEX_TEST_CALL_TIMEOUT_MS: "1500" } },
      );
      await assertClean(run);
      const timedOut = {
        name: "search",
        isError: true,
        text: "gortex search failed: tools/call timed out after 1500ms",
      };
      // The hang counter spans processes, so the respawned child hangs too: what matters is that
      // each call ends at its timeout and the wedged child is replaced, not waited on.
      assert.deepEqual(reportOf(run.stdout).toolResults, [timedOut, timedOut]);
      const starts = run.fake.filter((r) => r.ev === "start" && r.verb === "mcp");
      assert.equal(starts.length, 2, "the second call respawned after the wedged child was killed");
      const firstExit = run.fake.find((r) => r.ev === "exit" && r.pid === starts[0].pid);
      assert.ok(firstExit, "the wedged child exited");
      assert.ok(firstExit.t <= starts[1].t, `killed at the timeout, before the respawn: ${JSON.stringify(firstExit)}`);
    },
  );
});
