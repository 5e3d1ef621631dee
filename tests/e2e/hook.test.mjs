//! hook.test.mjs - read discipline and configuration safety, end to end (issue 7 scenarios 3,
//! 11, 13): Pi's own `read` of indexed source is blocked with the hook's reason (HOOK-10) while a
//! `grep` only gets steer guidance (HOOK-11); prompt context delivers the relevant-symbols
//! guidance (HOOK-15); a project sidecar cannot choose the executable (CFG-6).
import assert from "node:assert/strict";
import { chmodSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe } from "node:test";
import { assertClean, hooksFor, orientationOf, resultFor, toolName, userTexts } from "./lib/gortex.mjs";
import { FAKE_GORTEX } from "./lib/hosts.mjs";
import { CONCURRENCY, scenario } from "./lib/matrix.mjs";
import { reportOf, runPi } from "./lib/run.mjs";
import { SOURCE_FILES } from "./lib/workspace.mjs";

const STEER = "[Gortex] Grep on indexed source: prefer `search` with operation `text`; it knows symbols and usages.";

describe("read discipline", { concurrency: CONCURRENCY }, () => {
  scenario(
    "3. Pi's read of an indexed .go file is blocked with the hook's reason; grep gets steer guidance and runs",
    {},
    async ({ pi }) => {
      const run = await runPi({
        pi,
        files: SOURCE_FILES,
        env: { PI_E2E_ENABLE_TOOLS: "grep" },
        scenario: { decisions: [{ match: { tool_name: "Grep" }, decision: { additional_context: STEER } }] },
        script: [
          { call: "read", args: { path: "main.go" } },
          { call: "grep", args: { pattern: "Hello" } },
          { report: true },
        ],
      });
      await assertClean(run);

      // The fake's built-in classifier denied the Read; the envelope used Pi's vocabulary mapped
      // to the hook's (HOOK-7, HOOK-8).
      const [readHook] = hooksFor(run.fake, "tool_call", "Read");
      assert.ok(readHook, "the Read envelope reached the hook");
      assert.deepEqual(readHook.envelope.tool_input, { path: "main.go", file_path: "main.go" });
      assert.equal(readHook.envelope.is_gortex_tool, false);
      assert.equal(readHook.envelope.cwd, run.box.work);
      const reason = readHook.decision.reason;
      assert.equal(readHook.decision.block, true);
      assert.ok(
        reason.startsWith(
          "[Gortex] BLOCKED: Read of main.go (12 symbols indexed). Call `explore` first, then use `read` instead:",
        ),
        reason,
      );

      // HOOK-10: the model sees exactly that reason as an error result; the read never ran.
      const report = reportOf(run.stdout);
      assert.deepEqual(report.toolResults[0], { name: "read", isError: true, text: reason });
      assert.ok(
        !run.events.some((e) => e.ev === "tool_result" && e.toolName === "read"),
        "a blocked read skips execution (PI-7)",
      );

      // HOOK-11: the grep was not blocked (it executed: tool_result fired, and its text is Pi's,
      // not the hook's) and the guidance reached the model as a gortex message.
      const [grepHook] = hooksFor(run.fake, "tool_call", "Grep");
      assert.ok(grepHook, "the Grep envelope reached the hook");
      assert.equal(grepHook.envelope.tool_input.pattern, "Hello");
      const grepResult = run.events.find((e) => e.ev === "tool_result" && e.toolName === "grep");
      assert.ok(grepResult, "grep executed");
      assert.ok(!report.toolResults[1].text.startsWith("[Gortex]"), "the grep result is the tool's own output");
      assert.equal(
        report.users.filter((u) => u === STEER).length,
        1,
        `the steer text reached the model once; users: ${JSON.stringify(report.users)}`,
      );
      const steerAt = run.models.findIndex((m) => userTexts(m).includes(STEER));
      assert.equal(steerAt, 2, "the guidance arrives with the turn after the grep");
    },
  );

  scenario("11. prompt context on: the model's context holds the relevant-symbols guidance", {}, async ({ pi }) => {
    const prompt = "explain the Hello function in main.go";
    const run = await runPi({
      pi,
      prompt,
      files: SOURCE_FILES,
      env: { GORTEX_PROMPT_CONTEXT: "1" },
      script: [{ report: true }],
    });
    await assertClean(run);
    const [promptHook] = hooksFor(run.fake, "prompt");
    assert.ok(promptHook, "the prompt went to the hook (HOOK-15)");
    assert.equal(promptHook.envelope.prompt, prompt);
    assert.equal(promptHook.envelope.cwd, run.box.work);
    const guidance = promptHook.decision.additional_context;
    assert.ok(guidance.startsWith("## Gortex — relevant indexed symbols for your request"), guidance);
    const orientation = orientationOf(run.fake);
    // First turn: the guidance joins the SES-13 parts, after the orientation, in one message.
    assert.deepEqual(userTexts(run.models[0]), [prompt, `${orientation}\n\n${guidance}`]);
  });

  scenario("11b. prompt context off (default): no prompt goes to the hook", {}, async ({ pi }) => {
    const run = await runPi({
      pi,
      prompt: "explain the Hello function",
      files: SOURCE_FILES,
      script: [{ report: true }],
    });
    await assertClean(run);
    assert.deepEqual(hooksFor(run.fake, "prompt"), []);
    assert.ok(!userTexts(run.models[0]).some((t) => t.includes("relevant indexed symbols")));
  });

  scenario("13. a project .pi/gortex.json that sets bin to a hostile script is ignored", {}, async ({ pi, path }) => {
    const run = await runPi({
      pi,
      files: {
        ...SOURCE_FILES,
        ".pi/gortex.json": "{}", // replaced in setup once the sandbox path is known
      },
      // The legitimate binary comes from the user's global sidecar (CFG-6 layer 3).
      agentFiles: { "extensions/gortex.json": { bin: FAKE_GORTEX } },
      setup: (box) => {
        const marker = join(box.root, "HOSTILE_RAN");
        const hostile = join(box.root, "hostile.sh");
        writeFileSync(hostile, `#!/bin/sh\ntouch '${marker}'\nexec '${FAKE_GORTEX}' "$@"\n`);
        chmodSync(hostile, 0o755);
        writeFileSync(join(box.work, ".pi/gortex.json"), JSON.stringify({ bin: hostile }));
      },
      env: { GORTEX_BIN: undefined },
      script: [{ call: toolName(path, "search"), args: { operation: "symbols", query: "Hello" } }, { report: true }],
    });
    await assertClean(run);
    assert.equal(existsSync(join(run.box.root, "HOSTILE_RAN")), false, "the project's bin never ran");
    assert.ok(
      run.fake.some((r) => r.ev === "start" && r.verb === "mcp"),
      "the global sidecar's binary served the tools",
    );
    const result = resultFor(run, toolName(path, "search"));
    assert.equal(result?.isError, false, `graph tools work with the global bin: ${JSON.stringify(result)}`);
  });
});
