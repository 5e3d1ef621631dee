//! diff.test.mjs - edit diffs end to end (scenario 6): a Gortex `edit` that writes a
//! file yields DIFF-21 details in its tool result, byte-identical to Pi's own diff helpers
//! (DIFF-13), for an explicit `operation` and for an inferred one (DIFF-2), on both paths
//! (DIFF-16 own client, DIFF-19 native). Checked in the session file, as a user's session keeps
//! them; the model still reads only Gortex's reply (TOOL-7).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe } from "node:test";
import { assertClean, hostDiff, toolName } from "./lib/gortex.mjs";
import { CONCURRENCY, scenario } from "./lib/matrix.mjs";
import { runPi } from "./lib/run.mjs";
import { MAIN_GO, SOURCE_FILES, UTIL_GO } from "./lib/workspace.mjs";

const EDITS = [
  {
    label: "with operation",
    file: "main.go",
    before: MAIN_GO,
    args: {
      operation: "file",
      target: { file: "main.go" },
      match: 'return "hello"',
      replacement: 'return "hello, world"',
    },
  },
  {
    label: "without operation (inferred file)",
    file: "util.go",
    before: UTIL_GO,
    args: { target: { file: "util.go" }, match: "n * 2", replacement: "n + n" },
  },
];

describe("edit diffs", { concurrency: CONCURRENCY }, () => {
  scenario(
    "6. a Gortex edit produces diff details in the tool result (session file), with and without operation",
    {},
    async ({ pi, path }) => {
      const edit = toolName(path, "edit");
      const run = await runPi({
        pi,
        session: true,
        files: SOURCE_FILES,
        script: [...EDITS.map((e) => ({ call: edit, args: e.args })), { say: "edited" }],
      });
      await assertClean(run);
      const { generateDiffString, generateUnifiedPatch } = await hostDiff(pi);
      const results = run.session.filter(
        (e) => e.type === "message" && e.message?.role === "toolResult" && e.message.toolName === edit,
      );
      assert.equal(
        results.length,
        EDITS.length,
        `both edit results are in the session file (${run.session.length} entries)`,
      );
      for (const [i, spec] of EDITS.entries()) {
        const message = results[i].message;
        assert.equal(message.isError, false, `${spec.label}: ${JSON.stringify(message.content)}`);
        const after = readFileSync(join(run.box.work, spec.file), "utf8");
        assert.equal(
          after,
          spec.before.replace(spec.args.match, spec.args.replacement),
          `fake-gortex applied edit ${spec.label}`,
        );
        const { diff, firstChangedLine } = generateDiffString(spec.before, after);
        const patch = generateUnifiedPatch(spec.file, spec.before, after);
        // TOOL-7: the model reads Gortex's reply, not the diff.
        const text = message.content.map((c) => c.text).join("\n");
        assert.ok(!text.includes(diff), "the diff is not in the model-visible text");
        const details = message.details ?? {};
        const expected = { diffs: [{ path: spec.file, diff, patch, firstChangedLine }], patch, diff, firstChangedLine };
        if (path === "own") {
          // MCP-36: the daemon's structuredContent rides beside the EditDetails.
          const { structuredContent, ...edit } = details;
          assert.deepEqual(edit, expected, `${spec.label}: EditDetails (DIFF-21)`);
          assert.equal(structuredContent?.status, "applied", `${spec.label}: structuredContent kept (MCP-36)`);
        } else {
          // Native: merged into the details Pi's MCP result already carries (DIFF-19).
          const { diffs, patch: p, diff: d, firstChangedLine: f } = details;
          assert.deepEqual(
            { diffs, patch: p, diff: d, firstChangedLine: f },
            expected,
            `${spec.label}: EditDetails merged (DIFF-19); details=${JSON.stringify(details)}`,
          );
        }
      }
    },
  );
});
