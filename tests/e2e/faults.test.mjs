//! faults.test.mjs - FAKE-8 faults through the real Pi CLI (E2E-10, FAIL-1/2): each fault costs
//! the session at most a capability, never the session, and never leaks a process or a byte of
//! output. Hook faults run on both paths (the extension runs the hook on both); MCP transport
//! faults run on Pi 0.87.1, where the extension's own client owns the connection (on the native
//! path Pi's MCP client does, and its fault handling is Pi's).
import assert from "node:assert/strict";
import { describe } from "node:test";
import {
  assertClean,
  hooksFor,
  initializes,
  offeredTools,
  resultFor,
  toolHookRuns,
  toolName,
  unavailableText,
  userTexts,
} from "./lib/gortex.mjs";
import { CONCURRENCY, scenario } from "./lib/matrix.mjs";
import { reportOf, runPi } from "./lib/run.mjs";
import { SOURCE_FILES } from "./lib/workspace.mjs";

const SEARCH_ARGS = { operation: "symbols", query: "Hello" };
const searchReply = `[fake-gortex] search symbols ${JSON.stringify(SEARCH_ARGS)}`;
const readMain = { call: "read", args: { path: "main.go" } };

/** A run whose only assertion target is a fault: the script ends with a report. */
function runWith(pi, scenario, script, extra = {}) {
  return runPi({ pi, files: SOURCE_FILES, scenario, script: [...script, { report: true }], ...extra });
}

/**
 * Pi's read of main.go ran (the hook failed open) and returned the file, and the hook really was
 * invoked for it: a run that skipped the hook would pass the rest. A hook killed before it
 * answered (timeout) logs its start but no `hook` record, so `logged: false` counts starts only.
 */
function assertReadProceeded(run, { logged = true } = {}) {
  assert.equal(toolHookRuns(run.fake), 1, "one hook process started for the read");
  if (logged) assert.equal(hooksFor(run.fake, "tool_call", "Read").length, 1, "the hook received the read's envelope");
  const [result] = reportOf(run.stdout).toolResults;
  assert.equal(result.name, "read");
  assert.equal(result.isError, false, `the read was not blocked: ${result.text}`);
  assert.match(result.text, /func Hello\(\) string/);
}

describe("hook faults fail open (HOOK-2, HOOK-3)", { concurrency: CONCURRENCY }, () => {
  scenario("hook timeout: the hook is killed at 5 s and the call proceeds", {}, async ({ pi }) => {
    const run = await runWith(pi, { faults: [{ kind: "hook_timeout", delay_ms: 8000, event: "tool_call" }] }, [
      readMain,
    ]);
    await assertClean(run);
    assertReadProceeded(run, { logged: false });
  });

  scenario("hook garbage on stdout: treated as {} and the call proceeds", {}, async ({ pi }) => {
    const run = await runWith(pi, { faults: [{ kind: "hook_garbage", stdout: "not json", event: "tool_call" }] }, [
      readMain,
    ]);
    await assertClean(run);
    assertReadProceeded(run);
  });

  scenario('hook answers {"block":"yes"}: only JSON true blocks', {}, async ({ pi }) => {
    const run = await runWith(
      pi,
      { faults: [{ kind: "hook_garbage", stdout: '{"block":"yes","reason":"nope"}', event: "tool_call" }] },
      [readMain],
    );
    await assertClean(run);
    assertReadProceeded(run);
  });

  scenario("hook exits non-zero with a valid deny on stdout: ignored", {}, async ({ pi }) => {
    const deny = JSON.stringify({ block: true, reason: "[Gortex] BLOCKED: should be ignored" });
    const run = await runWith(pi, { faults: [{ kind: "hook_exit", exit_code: 3, stdout: deny, event: "tool_call" }] }, [
      readMain,
    ]);
    await assertClean(run);
    assertReadProceeded(run);
  });

  scenario("hook writes to stderr: nothing reaches Pi's stderr (PKG-5)", {}, async ({ pi }) => {
    const run = await runWith(pi, { faults: [{ kind: "hook_stderr", text: "HOOK NOISE ON STDERR\n" }] }, [readMain]);
    await assertClean(run); // asserts stderr === ""
    assert.ok(hooksFor(run.fake, "tool_call", "Read").length === 1, "the hook ran for the read");
    // The hook itself still answered, so the read was blocked as usual.
    assert.equal(reportOf(run.stdout).toolResults[0].isError, true);
  });

  scenario("hook output over 16 MiB: killed, treated as {}", {}, async ({ pi }) => {
    const run = await runWith(pi, { faults: [{ kind: "hook_huge", event: "tool_call" }] }, [readMain]);
    await assertClean(run);
    assertReadProceeded(run);
  });
});

describe("MCP faults on the own client (MCP-*, FAIL-2)", { concurrency: CONCURRENCY }, () => {
  const OWN = { only: "0.87.1" };

  scenario("failing handshake once: the retry succeeds and the tools work (MCP-19)", OWN, async ({ pi }) => {
    const run = await runWith(pi, { faults: [{ kind: "failing_handshake", n: 1 }] }, [
      { call: "search", args: SEARCH_ARGS },
    ]);
    await assertClean(run);
    assert.equal(initializes(run.fake).length, 2, "two initialize attempts");
    assert.deepEqual(reportOf(run.stdout).toolResults, [{ name: "search", isError: false, text: searchReply }]);
  });

  scenario(
    "failing handshake twice: the model is told the bridge is unavailable, naming /reload",
    OWN,
    async ({ pi }) => {
      const run = await runWith(pi, { faults: [{ kind: "failing_handshake", n: 2 }] }, []);
      await assertClean(run);
      const orientation = hooksFor(run.fake, "session_start")[0]?.decision;
      const first = userTexts(run.models[0]);
      assert.equal(first[0], "go");
      assert.ok(first[1].startsWith(`${unavailableText("daemon warming up")}`), JSON.stringify(first));
      assert.ok(orientation, "the session hook still ran");
      assert.ok(!offeredTools(run.models[0]).includes("search"), "no graph tools");
    },
  );

  scenario("child exits right after start: bridge unavailable with the exit reason", OWN, async ({ pi }) => {
    const run = await runWith(pi, { faults: [{ kind: "exit_on_start", exit_code: 1, verb: "mcp" }] }, []);
    await assertClean(run);
    const first = userTexts(run.models[0]);
    // MCP-4's error also says how the child ended (and its stderr tail, empty here) into the
    // error, after the spec's `gortex mcp exited` (MCP-4).
    assert.ok(first[1].startsWith(unavailableText("gortex mcp exited with status 1")), JSON.stringify(first));
  });

  scenario(
    "crash on the first call: that call fails, the next one respawns and works (MCP-16)",
    OWN,
    async ({ pi }) => {
      const run = await runWith(pi, { faults: [{ kind: "crash_on_call", n: 1 }] }, [
        { call: "search", args: SEARCH_ARGS },
        { call: "search", args: SEARCH_ARGS },
      ]);
      await assertClean(run);
      assert.deepEqual(reportOf(run.stdout).toolResults, [
        {
          name: "search",
          isError: true,
          // MCP-4's text, with the exit status and the stderr tail.
          text: "gortex search failed: gortex mcp exited with status 1: [gortex mcp] serving stdio (fake-gortex)",
        },
        { name: "search", isError: false, text: searchReply },
      ]);
      assert.equal(run.fake.filter((r) => r.ev === "start" && r.verb === "mcp").length, 2, "one respawn");
    },
  );

  scenario(
    "oversized frame: the call fails with the byte cap text, the next call respawns (MCP-7)",
    OWN,
    async ({ pi }) => {
      const run = await runWith(pi, { faults: [{ kind: "oversized_frame" }] }, [
        { call: "search", args: SEARCH_ARGS },
        { call: "search", args: SEARCH_ARGS },
      ]);
      await assertClean(run);
      // The fault answers every tools/call with the huge frame, so both calls fail the same way;
      // the second one is served by a respawned child.
      const failed = {
        name: "search",
        isError: true,
        text: "gortex search failed: gortex mcp frame exceeded 67108864 bytes",
      };
      assert.deepEqual(reportOf(run.stdout).toolResults, [failed, failed]);
      assert.equal(
        run.fake.filter((r) => r.ev === "start" && r.verb === "mcp").length,
        2,
        "the next call respawned the child",
      );
    },
  );

  scenario("junk lines around replies are skipped (MCP-6)", OWN, async ({ pi }) => {
    const run = await runWith(pi, { faults: [{ kind: "garbage", on: "tools/call" }, { kind: "garbage" }] }, [
      { call: "search", args: SEARCH_ARGS },
    ]);
    await assertClean(run);
    assert.deepEqual(reportOf(run.stdout).toolResults, [{ name: "search", isError: false, text: searchReply }]);
  });

  for (const mode of ["bytewise", "utf8_mid", "before_newline", "coalesce", "crlf"]) {
    scenario(`frames split ${mode}: replies arrive intact (MCP-6)`, OWN, async ({ pi }) => {
      const text = "naïve café ✓ 😀";
      const run = await runWith(pi, { faults: [{ kind: "split", mode }], calls: { search: { text } } }, [
        { call: "search", args: SEARCH_ARGS },
      ]);
      await assertClean(run);
      assert.deepEqual(reportOf(run.stdout).toolResults, [{ name: "search", isError: false, text }]);
    });
  }

  scenario("a server ping is answered (MCP-11)", OWN, async ({ pi }) => {
    const run = await runWith(pi, { faults: [{ kind: "server_ping", after: "tools/list" }] }, [
      { call: "search", args: SEARCH_ARGS },
    ]);
    await assertClean(run);
    const answers = run.fake.filter((r) => r.ev === "answer");
    assert.ok(
      answers.length >= 1,
      `the client answered the ping: ${JSON.stringify(run.fake.filter((r) => r.ev !== "send"))}`,
    );
    assert.equal(reportOf(run.stdout).toolResults[0].isError, false);
  });

  scenario("a flood on the child's stderr does not block it (MCP-3)", OWN, async ({ pi }) => {
    const run = await runWith(pi, { faults: [{ kind: "stderr_flood", bytes: 4 * 1024 * 1024 }] }, [
      { call: "search", args: SEARCH_ARGS },
    ]);
    await assertClean(run);
    assert.deepEqual(reportOf(run.stdout).toolResults, [{ name: "search", isError: false, text: searchReply }]);
  });

  scenario("daemon start fails: ignored, tools work (MCP-1)", OWN, async ({ pi }) => {
    const run = await runWith(pi, { faults: [{ kind: "daemon_start_fail", exit_code: 1 }] }, [
      { call: "search", args: SEARCH_ARGS },
    ]);
    await assertClean(run);
    assert.ok(
      run.fake.some((r) => r.ev === "daemon_start"),
      "the launcher ran",
    );
    assert.deepEqual(reportOf(run.stdout).toolResults, [{ name: "search", isError: false, text: searchReply }]);
  });

  scenario("a slow handshake holds the first turn until the tools exist (SES-11)", OWN, async ({ pi }) => {
    const run = await runWith(pi, { faults: [{ kind: "slow_handshake", delay_ms: 700 }] }, [
      { call: "search", args: SEARCH_ARGS },
    ]);
    await assertClean(run);
    assert.ok(offeredTools(run.models[0]).includes("search"), "the first request already offers the tools");
    assert.equal(reportOf(run.stdout).toolResults[0].isError, false);
  });

  scenario("a child that ignores SIGTERM is still gone after Pi exits (MCP-15)", OWN, async ({ pi }) => {
    const run = await runWith(pi, { faults: [{ kind: "ignore_sigterm" }] }, [{ call: "search", args: SEARCH_ARGS }]);
    await assertClean(run); // polls every logged pid
    assert.equal(reportOf(run.stdout).toolResults[0].isError, false);
  });

  scenario("a withdrawn tool leaves the active tools (TOOL-10)", OWN, async ({ pi }) => {
    const run = await runWith(
      pi,
      // The first listing still shows `explore`; right after it the fake withdraws it and
      // announces the change. The first search is answered only once the re-list (the second
      // listing) is answered, and the second search is one more model turn, so the last turn
      // starts after the core has handed the new listing to the glue.
      { faults: [{ kind: "withdraw", tools: ["explore"], after_list: 1 }], calls: { search: { until_lists: 2 } } },
      [
        { call: "search", args: SEARCH_ARGS },
        { call: "search", args: SEARCH_ARGS },
      ],
    );
    await assertClean(run);
    assert.ok(offeredTools(run.models[0]).includes("explore"), "offered before the withdrawal");
    const active = run.events.filter((e) => e.ev === "turn_start").map((e) => e.activeTools);
    assert.ok(active[0].includes("explore"));
    assert.ok(!active.at(-1).includes("explore"), `withdrawn by the last turn: ${JSON.stringify(active.at(-1))}`);
    assert.ok(!offeredTools(run.models.at(-1)).includes("explore"), "no longer offered to the model");
    assert.ok(resultFor(run, "search"), "the session went on");
  });
});

describe("MCP faults on the native path are Pi's, the session survives", { concurrency: CONCURRENCY }, () => {
  scenario(
    "a child that ignores SIGTERM is gone after Pi exits (Pi's kill escalation)",
    { both: false },
    async ({ pi }) => {
      const run = await runWith(pi, { faults: [{ kind: "ignore_sigterm" }] }, [
        { call: toolName("native", "search"), args: SEARCH_ARGS },
      ]);
      await assertClean(run);
      assert.equal(reportOf(run.stdout).toolResults[0].isError, false);
    },
  );
});
