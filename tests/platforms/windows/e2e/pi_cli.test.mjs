// The real Pi 1.6.0 CLI, headless with the faux provider (tests/e2e/faux-model.ts), in Node 22 for
// Windows under wine (`make test-windows-e2e`, in `make test-platforms`): the extension is loaded
// with `-e <package>` holding the core built for Windows, gortex is fake-gortex.exe. A small slice
// of tests/e2e: a graph call on each MCP path and a hook decision; the children end with Pi.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { clientOf, initializes, toolName } from "../../../e2e/lib/gortex.mjs";
import { collect, describeRun, piArgs, reportOf, runEnv, sandbox, spawnCollect } from "../../../e2e/lib/run.mjs";
import { SOURCE_FILES } from "../../../e2e/lib/workspace.mjs";
import { PKG_DIR } from "../../../node/lib/pi.mjs";

const PKG = PKG_DIR;

/** One print run of Pi with the package under test; its tree of fake-gortex.exe must end with it. */
async function runPi({ script, args = [], scenario }) {
  const box = sandbox({ gortex: false, files: SOURCE_FILES, scenario });
  const argv = [...piArgs(box, { args: ["-e", PKG, ...args] }), "-p", "go"];
  const result = await spawnCollect(process.execPath, argv, { cwd: box.work, env: runEnv(box, { script }) });
  return collect(box, result, script);
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The fake-gortex.exe processes of a run still alive a few seconds after Pi exited. */
async function survivors(run) {
  const pids = [...new Set(run.fake.filter((r) => r.ev === "start" && Number.isInteger(r.pid)).map((r) => r.pid))];
  const deadline = Date.now() + 5000;
  let living = pids.filter(alive);
  while (living.length && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    living = living.filter(alive);
  }
  return { pids, living };
}

async function assertClean(run) {
  assert.equal(run.timedOut, false, `Pi did not exit within 60 s\n${describeRun(run)}`);
  assert.equal(run.status, 0, describeRun(run));
  assert.equal(run.stderr, "", `no extension output on stderr\n${describeRun(run)}`);
  const { pids, living } = await survivors(run);
  assert.ok(pids.length >= 1, "fake-gortex.exe ran");
  assert.deepEqual(living, [], `fake-gortex.exe outlived Pi\n${describeRun(run)}`);
}

const fakeReply = (bare, op, args) => `[fake-gortex] ${bare} ${op} ${JSON.stringify(args)}`;

describe(`Windows: the real Pi CLI in Node ${process.version} (${process.platform}-${process.arch})`, () => {
  for (const path of ["native", "own"]) {
    test(`E2E-5 ${path} path: a graph search reaches gortex.exe and its text reaches the model`, async () => {
      assert.equal(process.platform, "win32");
      const args = { operation: "symbols", query: "Hello" };
      const name = toolName(path, "search");
      const run = await runPi({
        script: [{ call: name, args }, { report: true }],
        args: path === "own" ? ["--no-mcp"] : [],
      });
      await assertClean(run);
      const inits = initializes(run.fake);
      assert.ok(inits.length >= 1, "a gortex mcp child was initialized");
      assert.ok(
        inits.every((params) => clientOf(params) === path),
        JSON.stringify(inits.map(clientOf)),
      );
      assert.deepEqual(reportOf(run.stdout)?.toolResults, [
        { name, isError: false, text: fakeReply("search", "symbols", args) },
      ]);
    });
  }

  // Simulator: a scripted block decision. Gortex's own hook asks the daemon over a UNIX socket,
  // which fake-gortex serves only on Unix.
  test("E2E-5 HOOK-10: Pi's read is blocked by gortex.exe hook's decision, with its reason", async () => {
    const reason = "[Gortex] BLOCKED: use the graph";
    const run = await runPi({
      scenario: { decisions: [{ match: { tool_name: "Read" }, decision: { block: true, reason } }] },
      script: [{ call: "read", args: { path: "main.go" } }, { report: true }],
    });
    await assertClean(run);
    const [result] = reportOf(run.stdout)?.toolResults ?? [];
    assert.equal(result?.name, "read");
    assert.equal(result?.isError, true);
    assert.match(result?.text ?? "", /\[Gortex\] BLOCKED: use the graph/);
    const hook = run.fake.find((r) => r.ev === "hook" && r.envelope?.event === "tool_call");
    assert.equal(hook?.envelope?.cwd, run.box.work, "the session cwd as a Windows path");
  });
});
