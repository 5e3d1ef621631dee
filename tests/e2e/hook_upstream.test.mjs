//! hook_upstream.test.mjs - the hook channel end to end against Gortex's own hook handler, on
//! both Pi versions: deny and enrich postures, nudge, stand-down without a daemon, the warming
//! briefing and prompt context. The daemon's facts (tracked work dir, main.go declaring Hello and
//! main) come from fake-gortex's socket side; see `upstream` in lib/run.mjs.
import assert from "node:assert/strict";
import { describe } from "node:test";
import { assertClean, hooksFor, orientationOf, userTexts } from "./lib/gortex.mjs";
import { CONCURRENCY, scenario } from "./lib/matrix.mjs";
import { assertAnsweredByUpstream, reportOf, runPi } from "./lib/run.mjs";
import { SOURCE_FILES } from "./lib/workspace.mjs";

const READ_DENY =
  "[Gortex] BLOCKED: Read of main.go (2 symbols indexed). Call `explore` first, then use `read` instead:";

describe("read discipline against the upstream hook", { concurrency: CONCURRENCY }, () => {
  scenario(
    "U1. deny: Pi's read of indexed main.go is blocked with the upstream reason; README.md is read",
    {},
    async ({ pi }) => {
      const run = await runPi({
        pi,
        upstream: true,
        files: SOURCE_FILES,
        script: [
          { call: "read", args: { path: "main.go" } },
          { call: "read", args: { path: "README.md" } },
          { report: true },
        ],
      });
      await assertClean(run);
      // The session hook and the two reads.
      assertAnsweredByUpstream(run, 3);
      const [mainHook, readmeHook] = hooksFor(run.fake, "tool_call", "Read");
      // HOOK-7/8/9: Pi's vocabulary mapped to the hook's, with the session's cwd.
      assert.deepEqual(mainHook.envelope.tool_input, { path: "main.go", file_path: "main.go" });
      assert.equal(mainHook.envelope.is_gortex_tool, false);
      assert.equal(mainHook.envelope.cwd, run.box.work);
      assert.equal(mainHook.decision.block, true);
      assert.ok(mainHook.decision.reason.startsWith(READ_DENY), mainHook.decision.reason);
      assert.deepEqual(readmeHook.decision, {});
      const report = reportOf(run.stdout);
      // HOOK-10: the model sees exactly that reason as an error result; the read never ran.
      assert.deepEqual(report.toolResults[0], { name: "read", isError: true, text: mainHook.decision.reason });
      const executed = run.events.filter((e) => e.ev === "tool_result" && e.toolName === "read");
      assert.equal(executed.length, 1, "only the README read executed (PI-7)");
      assert.equal(report.toolResults[1].isError, false);
      assert.match(report.toolResults[1].text, /A tiny Go program/);
    },
  );

  scenario("U2. enrich: the read runs and the deny text reaches the model as guidance", {}, async ({ pi }) => {
    const run = await runPi({
      pi,
      upstream: true,
      files: SOURCE_FILES,
      env: { GORTEX_HOOK_MODE: "enrich" },
      script: [{ call: "read", args: { path: "main.go" } }, { report: true }],
    });
    await assertClean(run);
    assertAnsweredByUpstream(run, 2);
    const [hook] = hooksFor(run.fake, "tool_call", "Read");
    assert.ok(hook.argv.includes("--mode=enrich"));
    const guidance = hook.decision.additional_context;
    assert.ok(guidance.startsWith(READ_DENY), guidance);
    assert.equal(hook.decision.block, undefined);
    const report = reportOf(run.stdout);
    assert.equal(report.toolResults[0].isError, false);
    assert.match(report.toolResults[0].text, /func Hello/);
    assert.equal(report.users.filter((u) => u === guidance).length, 1, JSON.stringify(report.users));
    const steerAt = run.models.findIndex((m) => userTexts(m).includes(guidance));
    assert.equal(steerAt, 1, "HOOK-11: the guidance arrives with the turn after the read");
  });

  scenario("U3. nudge: only the third raw read in a row is blocked", {}, async ({ pi }) => {
    const read = { call: "read", args: { path: "main.go" } };
    const run = await runPi({
      pi,
      upstream: true,
      files: SOURCE_FILES,
      env: { GORTEX_HOOK_MODE: "nudge" },
      script: [read, read, read, { report: true }],
    });
    await assertClean(run);
    assertAnsweredByUpstream(run, 4);
    const blocks = hooksFor(run.fake, "tool_call", "Read").map((h) => h.decision.block === true);
    assert.deepEqual(blocks, [false, false, true]);
  });

  scenario(
    "U4. HOOK-17 stand-down: with no daemon the read runs and the briefing says the transport is unreachable",
    {},
    async ({ pi }) => {
      const run = await runPi({
        pi,
        upstream: { daemon: false },
        files: SOURCE_FILES,
        script: [{ call: "read", args: { path: "main.go" } }, { report: true }],
      });
      await assertClean(run);
      assertAnsweredByUpstream(run, 2);
      assert.deepEqual(hooksFor(run.fake, "tool_call", "Read")[0].decision, {});
      assert.match(orientationOf(run.fake), /\*\*Gortex graph transport is unreachable\.\*\*/);
      assert.equal(reportOf(run.stdout).toolResults[0].isError, false);
    },
  );

  scenario("U5. warming: the model's first turn carries the warming briefing", {}, async ({ pi }) => {
    const run = await runPi({
      pi,
      upstream: true,
      files: SOURCE_FILES,
      scenario: { orientation: "warming" },
      script: [{ report: true }],
    });
    await assertClean(run);
    assertAnsweredByUpstream(run, 1);
    const orientation = orientationOf(run.fake);
    assert.match(
      orientation,
      /⏳ Gortex daemon warming up \(v0\.64\.4, 3s elapsed\)\. Enforcement is partial until ready\./,
    );
    assert.ok(userTexts(run.models[0]).includes(orientation));
  });

  scenario("U6. prompt context: the upstream hook names the indexed symbol the prompt mentions", {}, async ({ pi }) => {
    const prompt = "explain the Hello function in main.go";
    const run = await runPi({
      pi,
      upstream: true,
      prompt,
      files: SOURCE_FILES,
      env: { GORTEX_PROMPT_CONTEXT: "1" },
      script: [{ report: true }],
    });
    await assertClean(run);
    // The session hook and the prompt's.
    assertAnsweredByUpstream(run, 2);
    const guidance = hooksFor(run.fake, "prompt")[0].decision.additional_context;
    assert.match(guidance, /`Hello` \(function\) — main\.go:6/);
    assert.deepEqual(userTexts(run.models[0]), [prompt, `${orientationOf(run.fake)}\n\n${guidance}`]);
  });
});
