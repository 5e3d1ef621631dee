//! savings.test.mjs - what the graph saved, in the real Pi CLI (SAVE-1..5): the model reads a
//! 40,000-byte indexed file, is blocked, then asks the graph (an answer of known size); `/gortex`
//! shows the read, the bytes and tokens kept out, the answer's size and the net, the footer the
//! net, the session's end leaves one record in `<agentDir>/gortex-stats.jsonl`, and
//! `pi-gortex stats` reports it. Then eight Pi processes end their sessions at once on one file.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe } from "node:test";
import { assertClean, toolName } from "./lib/gortex.mjs";
import { NODE22, REPO } from "./lib/hosts.mjs";
import { CONCURRENCY, scenario } from "./lib/matrix.mjs";
import { startRpc } from "./lib/rpc_steps.mjs";
import { piArgs, runEnv, sandbox, spawnCollect, startDaemon } from "./lib/run.mjs";
import { SOURCE_FILES } from "./lib/workspace.mjs";

const SEARCH_ARGS = { operation: "symbols", query: "Hello" };
/** The graph's answer: 1,234 characters, 309 tokens by Pi's estimate. */
const ANSWER = "Hello is defined in main.go:5 and called from util.go:7. ".repeat(22).slice(0, 1234);
/** A Go file of exactly 40,000 bytes in 500 lines of 80: within Pi's read caps, so all of it would be read. */
const BIG_GO = `${"package main".padEnd(79)}\n${`// ${"f".repeat(76)}\n`.repeat(499)}`;
const STATS_FILE = "gortex-stats.jsonl";

function records(box) {
  return readFileSync(join(box.agent, STATS_FILE), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

/** A sandbox holding the 40,000-byte indexed file, whose graph answers a search with ANSWER. */
function savingsBox(pi) {
  return sandbox({
    pi,
    files: { ...SOURCE_FILES, "big.go": BIG_GO },
    scenario: { calls: { search: { text: ANSWER } } },
  });
}

/** `pi-gortex stats` through the npm package's Node entry, on the sandbox's agent dir. */
function stats(box, args = []) {
  return spawnCollect(NODE22, [join(REPO, "bindings/node/bin/pi-gortex.mjs"), "stats", ...args], {
    cwd: box.work,
    env: { ...process.env, PI_CODING_AGENT_DIR: box.agent },
  });
}

describe("what the graph saved, in Pi", { concurrency: CONCURRENCY }, () => {
  for (const path of ["native", "own"]) {
    scenario(
      `SAVE-1/2/4/5: a blocked 40,000-byte read and one graph answer, in /gortex, the footer, the file and pi-gortex stats (${path})`,
      { both: path === "own", path },
      async ({ pi }) => {
        assert.equal(BIG_GO.length, 40_000);
        const box = savingsBox(pi);
        const search = toolName(path, "search");
        const env = path === "own" && pi === "1.6.0" ? { GORTEX_NATIVE_MCP: "0" } : {};
        const rpc = startRpc(box, {
          script: [{ call: "read", args: { path: "big.go" } }, { call: search, args: SEARCH_ARGS }, { say: "done" }],
          env,
        });
        await rpc.send({ type: "prompt", message: "go" });
        // SAVE-2: the footer followed the net with the graph answer's result, before any /gortex.
        const during = rpc.statuses.filter((s) => s.statusKey === "gortex").map((s) => s.statusText);
        assert.match(during.at(-1) ?? "", / · −9\.7k tok$/, JSON.stringify(during));
        const status = await rpc.send({ type: "prompt", message: "/gortex" }, { settle: false });
        assert.equal(status?.success, true, JSON.stringify(status));
        const shown = await rpc.send({ type: "prompt", message: "/gortex stats" }, { settle: false });
        assert.equal(shown?.success, true, JSON.stringify(shown));
        const run = await rpc.quit();
        await assertClean(run);

        // SAVE-2: the block, exact on this known session.
        const block = rpc.notifications.find((n) => String(n.message).startsWith("Gortex bridge:"));
        assert.ok(block, JSON.stringify(rpc.notifications));
        const saved = block.message.split("\n");
        const at = saved.indexOf("  saved       this session, tokens as Pi estimates them (characters ÷ 4)");
        assert.ok(at > 0, block.message);
        assert.deepEqual(saved.slice(at + 1, at + 6), [
          "    reads redirected  1 (read 1)",
          "    kept out          40,000 bytes, 10,000 tokens",
          "    graph answers     1, 1,234 characters, 309 tokens",
          "    read anyway       0 with guidance, 0 bytes entered the context",
          "    net               9,691 tokens (kept out minus graph answers)",
        ]);
        const footer = rpc.statuses.filter((s) => s.statusKey === "gortex").map((s) => s.statusText);
        assert.match(footer.at(-1), / · −9\.7k tok$/, JSON.stringify(footer));

        // SAVE-5: /gortex stats ran after writing this session's record.
        const report = rpc.notifications.find((n) => String(n.message).startsWith("What the graph saved"));
        assert.ok(report, JSON.stringify(rpc.notifications.map((n) => String(n.message).slice(0, 40))));
        assert.ok(report.message.includes("1 sessions, 1 reads redirected, 10,000 tokens kept out"), report.message);

        // SAVE-4: the session's end left its record (the last one of its id counts).
        const all = records(box);
        const last = all.at(-1);
        assert.ok(
          all.every((r) => r.id === last.id),
          "one session",
        );
        assert.equal(last.kept_out_bytes, 40_000);
        assert.equal(last.kept_out_tokens, 10_000);
        assert.equal(last.graph_chars, 1_234);
        assert.equal(last.net_tokens, 9_691);
        assert.equal(last.project, box.work);

        // SAVE-5: the command line, as text and as JSON.
        const text = await stats(box);
        assert.equal(text.status, 0, text.stderr);
        assert.ok(text.stdout.includes("net 9,691 tokens"), text.stdout);
        assert.ok(text.stdout.includes(`${"#".repeat(40)}  9,691`), text.stdout);
        const json = await stats(box, ["--json"]);
        const parsed = JSON.parse(json.stdout);
        assert.equal(parsed.total.net_tokens, 9_691);
        assert.equal(parsed.skipped, 0);
      },
    );
  }

  scenario(
    "SAVE-4: a stats file that cannot be written warns the user once, and /gortex says why",
    { both: false },
    async ({ pi }) => {
      const box = savingsBox(pi);
      // A directory where the file should be: every write fails (EISDIR), as an unwritable dir would.
      mkdirSync(join(box.agent, STATS_FILE));
      const search = toolName("native", "search");
      const read = { call: "read", args: { path: "big.go" } };
      const rpc = startRpc(box, {
        script: [read, { call: search, args: SEARCH_ARGS }, read, { call: search, args: SEARCH_ARGS }, { say: "done" }],
      });
      await rpc.send({ type: "prompt", message: "go" });
      const status = await rpc.send({ type: "prompt", message: "/gortex" }, { settle: false });
      assert.equal(status?.success, true, JSON.stringify(status));
      const run = await rpc.quit();
      await assertClean(run);
      const told = rpc.notifications.filter((n) => String(n.message).startsWith("pi-gortex could not record"));
      assert.equal(told.length, 1, JSON.stringify(rpc.notifications));
      assert.equal(told[0].notifyType, "warning");
      assert.ok(told[0].message.includes(`${STATS_FILE}: `), told[0].message);
      const block = rpc.notifications.find((n) => String(n.message).startsWith("Gortex bridge:"));
      assert.match(block.message, /\n {4}not recorded {6}.*gortex-stats\.jsonl: /, block.message);
      assert.match(block.message, /\n {4}kept out {10}80,000 bytes, 20,000 tokens\n/, "counting went on");
    },
  );

  scenario(
    "SAVE-4: eight Pi processes ending their sessions at once append eight intact records",
    { both: false },
    async ({ pi }) => {
      const box = savingsBox(pi);
      // The graph answer comes after the last tool call's interval write: only the session's end
      // records it.
      const search = toolName("native", "search");
      const script = [{ call: "read", args: { path: "big.go" } }, { call: search, args: SEARCH_ARGS }, { say: "done" }];
      const env = runEnv(box, { script });
      const stopDaemon = await startDaemon(box, env);
      const argv = [...piArgs(box), "-p", "go"];
      const runs = await Promise.all(
        Array.from({ length: 8 }, () => spawnCollect(NODE22, argv, { cwd: box.work, env })),
      ).finally(stopDaemon);
      for (const run of runs) assert.equal(run.status, 0, run.stderr);
      const last = new Map(records(box).map((r) => [r.id, r]));
      assert.equal(last.size, 8, JSON.stringify([...last.keys()]));
      for (const record of last.values()) {
        assert.equal(record.kept_out_bytes, 40_000);
        assert.equal(record.graph_chars, 1_234, "written at the session's end");
      }
      assert.equal(readFileSync(join(box.agent, STATS_FILE), "utf8").split("\n").filter(Boolean).length, 16);
    },
  );
});
