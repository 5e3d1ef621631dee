// Side-by-side timing of Pi 1.6.0's generateDiffString and ours, on the same
// four inputs (diff-inputs.mjs), in one run. Prints median ms per call and
// the ratio.
//
// Pi is timed here under Node 22; ours by the bench binary of
// `bench/rust/benches/diff_engine.rs` in its plain-timing mode
// (DIFF_BENCH_RAW), reading the same input files (DIFF_BENCH_INPUTS).
// Rounds of both alternate, so a shared, busy machine loads both sides
// alike. Criterion figures for ours: `cargo bench --bench diff_engine`.
//
// Usage (from the repo root): $NODE22 bench/node/diff.mjs [rounds]

import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { benchCases } from "./diff-inputs.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "..", "..");
const rounds = Number(process.argv[2] ?? 3);
const piDir = join(repo, "tests", "hosts", "pi-1.6.0", "node_modules", "@earendil-works", "pi-coding-agent");
const pkg = JSON.parse(readFileSync(join(piDir, "package.json"), "utf8"));
const { generateDiffString } = await import(pathToFileURL(join(piDir, pkg.exports["."].import)).href);

const target = resolve(process.env.CARGO_TARGET_DIR ?? join(repo, "target"));
const inputs = join(target, "diff-bench");
mkdirSync(inputs, { recursive: true });
const cases = benchCases();
for (const c of cases) {
  writeFileSync(join(inputs, `${c.id}.old`), c.old);
  writeFileSync(join(inputs, `${c.id}.new`), c.new);
}

// Build the bench binary once and find it.
const build = execFileSync(
  "cargo",
  ["bench", "-p", "pi-gortex-runtime", "--bench", "diff_engine", "--no-run", "--message-format=json"],
  { cwd: repo, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], maxBuffer: 64 * 1024 * 1024 },
);
const binary = build
  .split("\n")
  .filter((l) => l.startsWith("{"))
  .map((l) => JSON.parse(l))
  .find((m) => m.reason === "compiler-artifact" && m.target?.name === "diff_engine" && m.executable)?.executable;
if (!binary) throw new Error("diff_engine bench binary not found");

const runsFor = (id) => (id.startsWith("a_") || id.startsWith("b_") ? 15 : 3);
const samples = Object.fromEntries(cases.map((c) => [c.id, { pi: [], ours: [] }]));
for (let round = 0; round < rounds; round++) {
  for (const c of cases) {
    generateDiffString(c.old, c.new); // warm-up
    for (let i = 0; i < runsFor(c.id); i++) {
      const t = performance.now();
      generateDiffString(c.old, c.new);
      samples[c.id].pi.push(performance.now() - t);
    }
  }
  const ours = JSON.parse(
    execFileSync(binary, [], {
      encoding: "utf8",
      env: { ...process.env, DIFF_BENCH_INPUTS: inputs, DIFF_BENCH_RAW: "15" },
    }),
  );
  for (const c of cases) samples[c.id].ours.push(...ours[c.id]);
  console.error(`round ${round + 1}/${rounds} done`);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const rows = [
  "| case | Pi 1.6.0 generateDiffString (median ms) | pi-gortex (median ms) | ratio |",
  "|---|---:|---:|---:|",
];
for (const c of cases) {
  const pi = median(samples[c.id].pi);
  const ours = median(samples[c.id].ours);
  rows.push(`| ${c.id} | ${pi.toFixed(2)} | ${ours.toFixed(2)} | ${(pi / ours).toFixed(1)}x |`);
}
console.log(rows.join("\n"));
