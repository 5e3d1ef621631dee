//! loading.test.mjs - the packed extension loads every way a user can load it (E2E-3, PKG-1,
//! PKG-3): from Pi's settings after `pi install` (what every other scenario uses), with
//! `-e <package dir>` (the `pi.extensions` manifest), and as a bare copy in
//! `<agentDir>/extensions/pi-gortex/` with no `node_modules` anywhere above it.
import assert from "node:assert/strict";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { describe } from "node:test";
import { assertClean, toolName } from "./lib/gortex.mjs";
import { installedPackageDir } from "./lib/install.mjs";
import { CONCURRENCY, scenario } from "./lib/matrix.mjs";
import { reportOf, runPi } from "./lib/run.mjs";
import { SOURCE_FILES } from "./lib/workspace.mjs";

const args = { operation: "symbols", query: "Hello" };

async function assertSearchWorks(run, path) {
  await assertClean(run);
  const [result] = reportOf(run.stdout).toolResults;
  assert.deepEqual(result, {
    name: toolName(path, "search"),
    isError: false,
    text: `[fake-gortex] search symbols ${JSON.stringify(args)}`,
  });
}

describe("loading the packed extension", { concurrency: CONCURRENCY }, () => {
  scenario("loads with -e <installed package dir>", {}, async ({ pi, path }) => {
    const run = await runPi({
      pi,
      gortex: false,
      args: ["-e", installedPackageDir(pi)],
      files: SOURCE_FILES,
      script: [{ call: toolName(path, "search"), args }, { report: true }],
    });
    await assertSearchWorks(run, path);
  });

  scenario(
    "loads as a bare copy in <agentDir>/extensions/ with no node_modules above (PKG-3)",
    {},
    async ({ pi, path }) => {
      const run = await runPi({
        pi,
        gortex: false,
        setup: (box) => cpSync(installedPackageDir(pi), join(box.agent, "extensions/pi-gortex"), { recursive: true }),
        files: SOURCE_FILES,
        script: [{ call: toolName(path, "search"), args }, { report: true }],
      });
      await assertSearchWorks(run, path);
    },
  );
});
