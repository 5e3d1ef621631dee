// Startup cost on this platform (`make bench-windows` runs it in Node for Linux and in Node for
// Windows under wine, one after the other): a one-turn print run of the real Pi 1.6.0 CLI (the
// faux model answers at once), timed from spawn to exit, with Pi alone, with the extension on
// Pi's own MCP (native) and on its own client (`--no-mcp`). Runs are interleaved; medians and the
// ratio to Pi alone are printed, with the floor of one spawn-and-wait of fake-gortex on the same
// platform (the extension starts one `gortex mcp` child). Wine is not a benchmark: its figures
// say what the extension costs there relative to Pi, not what Windows would cost.
// Knobs: BENCH_RUNS (default 5), PI_GORTEX_TEST_PKG_DIR (the package with this platform's core).
import { spawnSync } from "node:child_process";
import { performance } from "node:perf_hooks";
import { FAKE_GORTEX } from "../../tests/e2e/lib/hosts.mjs";
import { piArgs, runEnv, sandbox, spawnCollect } from "../../tests/e2e/lib/run.mjs";
import { PKG_DIR } from "../../tests/node/lib/pi.mjs";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const CONFIGS = {
  "Pi alone": [],
  "pi-gortex, Pi's MCP (native)": ["-e", PKG_DIR],
  "pi-gortex, own client": ["-e", PKG_DIR, "--no-mcp"],
};

const median = (xs) => {
  const v = [...xs].sort((a, b) => a - b);
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
};

async function once(args) {
  const box = sandbox({ gortex: false });
  const argv = [...piArgs(box, { args }), "-p", "go"];
  const began = performance.now();
  const run = await spawnCollect(process.execPath, argv, {
    cwd: box.work,
    env: runEnv(box, { script: [{ say: "done" }] }),
  });
  const ms = performance.now() - began;
  if (run.status !== 0 || run.timedOut) throw new Error(`rc ${run.status}: ${run.stderr}`);
  return ms;
}

function spawnFloor() {
  const began = performance.now();
  const run = spawnSync(FAKE_GORTEX, ["version"], { encoding: "utf8" });
  if (run.status !== 0) throw new Error(`fake-gortex version: rc ${run.status} ${run.stderr}`);
  return performance.now() - began;
}

const names = Object.keys(CONFIGS);
const samples = Object.fromEntries(names.map((n) => [n, []]));
const floors = [];
for (const name of names) await once(CONFIGS[name]); // warm-up: file caches, Pi's transpile cache
for (let run = 0; run < RUNS; run++) {
  for (let i = 0; i < names.length; i++) {
    const name = names[(i + run) % names.length];
    samples[name].push(await once(CONFIGS[name]));
  }
  floors.push(spawnFloor());
}
const alone = median(samples["Pi alone"]);
console.log(
  JSON.stringify(
    {
      platform: `${process.platform}-${process.arch}`,
      node: process.version,
      runs: RUNS,
      fakeGortexSpawnP50Ms: median(floors),
      rows: names.map((name) => ({
        configuration: name,
        medianMs: median(samples[name]),
        overPiAloneMs: median(samples[name]) - alone,
        ratioToPiAlone: median(samples[name]) / alone,
      })),
    },
    null,
    2,
  ),
);
