// `pi-gortex stats` over a large history (SAVE-5): writes RECORDS well-formed records (default
// 100,000, spread over 60 days and 40 projects) to a temporary agent dir, then runs the npm
// package's Node entry (the addon's runCli) RUNS times, text and --json interleaved, and prints
// the wall time of each whole process (Node's start included) as a JSON report. A benchmark, not
// a timed test: the budget is 0.5 s.
//
// Run: $NODE22 bench/node/stats.mjs   (after `make pack`)
// Knobs: BENCH_RECORDS (default 100000), BENCH_RUNS (default 7).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "../..");
const RECORDS = Number(process.env.BENCH_RECORDS || 100_000);
const RUNS = Number(process.env.BENCH_RUNS || 7);
const agent = mkdtempSync(join(tmpdir(), "pi-gortex-stats-bench-"));
const file = join(agent, "gortex-stats.jsonl");

const now = Date.now();
const lines = [];
for (let i = 0; i < RECORDS; i++) {
  const kept = 4_000 + ((i * 7919) % 60_000);
  const graph = 500 + ((i * 104_729) % 9_000);
  const keptTokens = Math.ceil(kept / 4);
  const graphTokens = Math.ceil(graph / 4);
  lines.push(
    JSON.stringify({
      v: 1,
      id: `session-${i}:4242:0:${now - i}`,
      project: `/home/user/work/project-${i % 40}`,
      started_ms: now - (i % 60) * 86_400_000 - 3_600_000,
      ended_ms: now - (i % 60) * 86_400_000,
      redirected: { read: 3, grep: 1, find: 0, ls: 0, bash: 1 },
      kept_out_bytes: kept,
      kept_out_tokens: keptTokens,
      not_sized: 2,
      graph_answers: 4,
      graph_chars: graph,
      graph_tokens: graphTokens,
      allowed: 0,
      allowed_bytes: 0,
      net_tokens: keptTokens - graphTokens,
    }),
  );
}
writeFileSync(file, `${lines.join("\n")}\n`);

const bin = join(REPO, "bindings/node/bin/pi-gortex.mjs");
const env = { ...process.env, PI_CODING_AGENT_DIR: agent };
const timings = { text: [], json: [] };
for (let run = 0; run < RUNS; run++) {
  for (const [kind, args] of [
    ["text", ["stats"]],
    ["json", ["stats", "--json"]],
  ]) {
    const started = process.hrtime.bigint();
    const out = spawnSync(process.execPath, [bin, ...args], { env, encoding: "utf8", maxBuffer: 1 << 26 });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (out.status !== 0) throw new Error(`pi-gortex stats failed: ${out.stderr}`);
    timings[kind].push(ms);
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const noop = [];
for (let run = 0; run < RUNS; run++) {
  const started = process.hrtime.bigint();
  spawnSync(process.execPath, ["-e", ""]);
  noop.push(Number(process.hrtime.bigint() - started) / 1e6);
}
console.log(
  JSON.stringify(
    {
      records: RECORDS,
      file_bytes: statSync(file).size,
      runs: RUNS,
      median_ms: { text: median(timings.text), json: median(timings.json), node_noop: median(noop) },
      max_ms: { text: Math.max(...timings.text), json: Math.max(...timings.json) },
      budget_ms: 500,
    },
    null,
    2,
  ),
);
rmSync(agent, { recursive: true, force: true });
