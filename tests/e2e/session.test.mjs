//! session.test.mjs - session lifecycle end to end (scenarios 4, 5, 7, 8, 12): the
//! briefing reaches the model once (SES-12..14) and again once after a compaction (SES-15); a
//! missing binary degrades to the SES-13 unavailable text; a stale daemon gives the MCP-22/23
//! texts with every tool kept (MCP-24, NAT-10); no fake-gortex process outlives Pi (MCP-15,
//! SES-17).
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe } from "node:test";
import {
  assertClean,
  FACADE,
  hooksFor,
  offeredTools,
  orientationOf,
  staleModelText,
  staleUserText,
  toolName,
  unavailableText,
  userTexts,
} from "./lib/gortex.mjs";
import { CONCURRENCY, scenario } from "./lib/matrix.mjs";
import { loggedProcesses } from "./lib/pids.mjs";
import { runRpc } from "./lib/rpc.mjs";
import { assertAnsweredByUpstream, finalText, reportOf, runPi } from "./lib/run.mjs";
import { SOURCE_FILES } from "./lib/workspace.mjs";

const count = (list, value) => list.filter((x) => x === value).length;

describe("session lifecycle", { concurrency: CONCURRENCY }, () => {
  scenario("4. the briefing reaches the model's context exactly once across three turns", {}, async ({ pi, path }) => {
    const search = toolName(path, "search");
    const run = await runRpc({
      pi,
      upstream: true,
      files: SOURCE_FILES,
      commands: ["go", "second", "third"],
      script: [
        { call: search, args: { operation: "symbols", query: "Hello" } },
        { say: "one" },
        { say: "two" },
        { report: true },
      ],
    });
    await assertClean(run);
    const orientation = orientationOf(run.fake);
    // Gortex's own hook briefed the session and judged the search.
    assertAnsweredByUpstream(run, 2);
    assert.ok(orientation.startsWith("## Gortex Session Orientation\n\n✓ Gortex daemon ready (v0.64.4"), orientation);
    assert.equal(run.models.length, 4, "four model requests over three prompts");
    for (const [i, request] of run.models.entries()) {
      assert.equal(count(userTexts(request), orientation), 1, `request ${i + 1} holds the briefing exactly once`);
    }
    // SES-14: hidden, right after the first prompt, and nothing else from gortex on later prompts.
    assert.deepEqual(reportOf(run.lastText).users, ["go", orientation, "second", "third"]);
    const custom = run.messages.filter((m) => m.type === "message_end" && m.message?.role === "custom");
    assert.equal(custom.length, 1, "one gortex message in the session");
    assert.equal(custom[0].message.customType, "gortex");
    assert.equal(custom[0].message.display, false);
    assert.deepEqual(custom[0].message.details, { briefing: true });
    assert.deepEqual(hooksFor(run.fake, "prompt"), [], "prompt context is off by default");
  });

  scenario("5. a compaction causes the briefing to be re-sent once", { both: false }, async ({ pi }) => {
    const run = await runRpc({
      pi,
      upstream: true,
      files: SOURCE_FILES,
      settings: { compaction: { keepRecentTokens: 1 } },
      commands: ["go", "second", { type: "compact" }, "third"],
      script: [{ say: "one" }, { say: "two" }, { report: true }],
    });
    await assertClean(run);
    // Only the session hook: a compaction re-sends the briefing without running it again.
    assertAnsweredByUpstream(run, 1);
    assert.ok(
      run.events.some((e) => e.ev === "session_compact"),
      "the compaction happened",
    );
    assert.ok(
      run.models.some((m) => m.summary),
      "the faux model wrote the summary",
    );
    const orientation = orientationOf(run.fake); // also: the hook was not run again (SES-15)
    const last = run.models.filter((m) => !m.summary).at(-1);
    const users = userTexts(last);
    assert.equal(
      count(users, orientation),
      1,
      `the third prompt's context holds the briefing once; users: ${JSON.stringify(users)}`,
    );
    assert.ok(
      users.indexOf(orientation) > users.indexOf("third"),
      "it is the re-sent copy, stored after the third prompt",
    );
    const custom = run.messages.filter((m) => m.type === "message_end" && m.message?.role === "custom");
    assert.equal(custom.length, 2, "the briefing was stored twice: first turn and after the compaction");
    assert.deepEqual(custom[1].message.details, { briefing: true });
    assert.equal(custom[1].message.content, orientation);
  });

  scenario("7. the binary is missing: /reload is named, tools are absent, the run completes", {}, async ({ pi }) => {
    const run = await runPi({
      pi,
      files: SOURCE_FILES,
      env: { GORTEX_BIN: join("/nonexistent", "gortex") },
      script: [{ say: "ok" }],
    });
    await assertClean(run);
    assert.equal(run.stdout.trim(), "ok");
    assert.deepEqual(userTexts(run.models[0]), ["go", unavailableText("gortex mcp spawn failed")]);
    const offered = offeredTools(run.models[0]);
    const gortexTools = offered.filter(
      (n) =>
        n.startsWith("mcp__gortex__") ||
        n.startsWith("gortex_") ||
        (FACADE.includes(n) && n !== "read" && n !== "edit"),
    );
    assert.deepEqual(gortexTools, [], "no graph tools registered");
  });

  scenario(
    "8. a daemon below 0.61.2: the model text names the version and `gortex upgrade`; tools stay",
    {},
    async ({ pi, path }) => {
      const run = await runRpc({
        pi,
        files: SOURCE_FILES,
        scenario: { version: "0.60.0" },
        script: [{ report: true }],
      });
      await assertClean(run);
      const orientation = orientationOf(run.fake);
      assert.ok(orientation.includes("(v0.60.0, uptime 5s)"), orientation);
      assert.deepEqual(userTexts(run.models[0]), ["go", `${staleModelText("0.60.0")}\n\n${orientation}`]);
      // MCP-22: one user warning (RPC mode has a UI: WIRE-26).
      const warnings = run.notifications.map((n) => ({ message: n.message, notifyType: n.notifyType }));
      assert.deepEqual(warnings, [{ message: staleUserText("0.60.0"), notifyType: "warning" }]);
      const offered = offeredTools(run.models[0]);
      for (const bare of FACADE)
        assert.ok(offered.includes(toolName(path, bare)), `${toolName(path, bare)} stays registered`);
    },
  );

  scenario("12. after exit no fake-gortex process is left, in every mode", {}, async ({ pi, path }) => {
    const script = [
      { call: toolName(path, "search"), args: { operation: "symbols", query: "Hello" } },
      { report: true },
    ];
    const runs = await Promise.all([
      runPi({ pi, mode: "print", files: SOURCE_FILES, script }),
      runPi({ pi, mode: "json", files: SOURCE_FILES, script }),
      runRpc({ pi, files: SOURCE_FILES, script }),
    ]);
    for (const run of runs) {
      // assertClean polls every pid the fake logged, with a short grace for children that
      // exit on their own stdin EOF (MCP-3), and fails on the 60 s kill.
      await assertClean(run);
      const verbs = loggedProcesses(run.fake).map((p) => p.verb);
      assert.ok(verbs.includes("mcp"), `the check is not vacuous: a gortex mcp child ran (${verbs})`);
      assert.ok(verbs.includes("hook"), "hook processes ran");
      const report = reportOf(finalText(run));
      assert.equal(report?.toolResults[0]?.isError, false, "the scripted model reached its last step");
    }
  });
});
