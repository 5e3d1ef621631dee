//! startup.mjs - `make bench-startup`: how much the extension adds to Pi's start.
//!
//! A one-turn print run (the model answers at once, no tool call) of the real Pi CLI, timed from
//! spawn to exit, under: Pi alone; Pi with the simulator in its own mcp.json and no extension;
//! the extension on the native path; the extension on its own client; and the same on Pi 0.87.1
//! (Pi alone, own client). Runs are interleaved; medians are printed with the two ratios
//! docs/benchmarks.md sets targets for (native / own mcp.json <= 1.05, own client / Pi alone <= 1.10) and the peak
//! RSS the extension adds. Knobs: BENCH_RUNS (default 8), BENCH_CONFIGS (substrings separated by ";").
//! BENCH_CPU_PROF=<dir> passes --cpu-prof to every Pi process (profiles land in <dir>).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "../../tests/e2e/lib/hosts.mjs";
import { CONFIGS, fmt, median, requireBuilt, runOnce, warmUp } from "./lib.mjs";

const STARTUP_CONFIGS = [
  "1.6.0 Pi alone",
  "1.6.0 mcp.json",
  // The floor of any file extension next to Pi's own MCP: one module that does nothing.
  "1.6.0 mcp.json + no-op handlers",
  "1.6.0 native, enforce on",
  "1.6.0 own, enforce on",
  "0.87.1 Pi alone",
  "0.87.1 own, enforce on",
];

requireBuilt();
const runs = Number(process.env.BENCH_RUNS ?? "8");
const wanted = (process.env.BENCH_CONFIGS ?? "")
  .split(";")
  .map((s) => s.trim())
  .filter(Boolean);
// With BENCH_BEFORE_TGZ (lib.mjs), the older package's twins of these configurations run too.
const candidates = [...STARTUP_CONFIGS, ...STARTUP_CONFIGS.map((n) => `${n} (before)`).filter((n) => n in CONFIGS)];
const names = candidates.filter((n) => !wanted.length || wanted.some((w) => n.includes(w)));
const prof = process.env.BENCH_CPU_PROF;
const extraArgs = prof ? ["--cpu-prof", "--cpu-prof-dir", prof] : [];

if (process.env.BENCH_FRESH !== "1") await warmUp(names);
const samples = [];
for (let run = 1; run <= runs; run++) {
  const order = names.map((_, i) => names[(i + run) % names.length]);
  for (const name of order) {
    const sample = await runOnce(name, { calls: 0, extraArgs });
    samples.push(sample);
    process.stderr.write(
      `run ${run}/${runs} ${name}: ${sample.ok ? `${fmt(sample.wallMs / 1000, 3)} s` : `FAILED ${sample.error}`}\n`,
    );
  }
}

const stat = (name, key) => median(samples.filter((s) => s.ok && s.name === name).map((s) => s[key]));
const rows = names.map((name) => ({
  name,
  wallS: stat(name, "wallMs") / 1000,
  firstRequestS: stat(name, "firstRequestMs") / 1000,
  cpuS: stat(name, "cpuMs") / 1000,
  maxRssMiB: stat(name, "maxRssMiB"),
  n: samples.filter((s) => s.ok && s.name === name).length,
}));
const get = (name) => rows.find((r) => r.name === name);
const ratio = (a, b, key = "wallS") => (get(a) && get(b) ? get(a)[key] / get(b)[key] : undefined);
const rssAdded = (a, b) => (get(a) && get(b) ? get(a).maxRssMiB - get(b).maxRssMiB : undefined);
const lines = [
  `Medians of ${runs} interleaved one-turn print runs (first request = process start to the model's first request).`,
  "",
  "| Configuration | wall s | first request s | CPU s | peak RSS MiB | n |",
  "|---|---|---|---|---|---|",
  ...rows.map(
    (r) =>
      `| ${r.name} | ${fmt(r.wallS, 3)} | ${fmt(r.firstRequestS, 3)} | ${fmt(r.cpuS, 3)} | ${fmt(r.maxRssMiB, 1)} | ${r.n} |`,
  ),
  "",
  // The ratios docs/benchmarks.md sets targets for; with BENCH_BEFORE_TGZ, the older package's too.
  ...["", " (before)"].flatMap((tag) =>
    names.includes(`1.6.0 native, enforce on${tag}`) || names.includes(`0.87.1 own, enforce on${tag}`)
      ? [
          `native / own mcp.json (1.6.0)${tag}: ${fmt(ratio(`1.6.0 native, enforce on${tag}`, "1.6.0 mcp.json"), 3)} (target <= 1.05); CPU ${fmt(ratio(`1.6.0 native, enforce on${tag}`, "1.6.0 mcp.json", "cpuS"), 3)}`,
          `own client / Pi alone (1.6.0)${tag}: ${fmt(ratio(`1.6.0 own, enforce on${tag}`, "1.6.0 Pi alone"), 3)} (target <= 1.10); CPU ${fmt(ratio(`1.6.0 own, enforce on${tag}`, "1.6.0 Pi alone", "cpuS"), 3)}`,
          `own client / Pi alone (0.87.1)${tag}: ${fmt(ratio(`0.87.1 own, enforce on${tag}`, "0.87.1 Pi alone"), 3)} (target <= 1.10); CPU ${fmt(ratio(`0.87.1 own, enforce on${tag}`, "0.87.1 Pi alone", "cpuS"), 3)}`,
          `peak RSS added by the extension${tag}: native vs mcp.json ${fmt(rssAdded(`1.6.0 native, enforce on${tag}`, "1.6.0 mcp.json"), 1)} MiB; own vs Pi alone ${fmt(rssAdded(`1.6.0 own, enforce on${tag}`, "1.6.0 Pi alone"), 1)} MiB (1.6.0), ${fmt(rssAdded(`0.87.1 own, enforce on${tag}`, "0.87.1 Pi alone"), 1)} MiB (0.87.1)`,
        ]
      : [],
  ),
];
console.log(lines.join("\n"));
const dir = join(REPO, "target/bench");
mkdirSync(dir, { recursive: true });
const file = join(dir, `startup-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
writeFileSync(file, JSON.stringify({ runs, rows, samples }, null, 2));
console.log(`\nsamples: ${file}`);
