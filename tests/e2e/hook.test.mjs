//! hook.test.mjs - configuration of the hook channel, end to end (scenarios 11b, 13): no
//! prompt goes to the hook by default (CFG-15), and a project sidecar cannot choose the executable
//! (CFG-6). The hook's decisions themselves (scenarios 3 and 11) are tested against Gortex's own
//! hook in hook_upstream.test.mjs.
import assert from "node:assert/strict";
import { chmodSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe } from "node:test";
import { assertClean, hooksFor, resultFor, toolName, userTexts } from "./lib/gortex.mjs";
import { FAKE_GORTEX } from "./lib/hosts.mjs";
import { CONCURRENCY, scenario } from "./lib/matrix.mjs";
import { runPi } from "./lib/run.mjs";
import { SOURCE_FILES } from "./lib/workspace.mjs";

describe("read discipline", { concurrency: CONCURRENCY }, () => {
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
