//! pool-startup.mjs - pools the samples of several `make bench-startup` runs (the JSON files it
//! writes under target/bench/) and prints the medians and the start-up ratios over all of them. On a
//! noisy machine one run's medians move by several percent; the median over every interleaved
//! sample of the same trees is the steadier figure (docs/benchmarks.md).
//!   $NODE22 bench/node/pool-startup.mjs target/bench/startup-*.json
import { readFileSync } from "node:fs";
import { fmt, median } from "./lib.mjs";

const files = process.argv.slice(2);
if (files.length === 0) {
  process.stderr.write("usage: pool-startup.mjs <startup-*.json>...\n");
  process.exit(2);
}
const samples = files.flatMap((file) => JSON.parse(readFileSync(file, "utf8")).samples ?? []);
const of = (name) => samples.filter((s) => s.ok && s.name === name);
const stat = (name, key) => median(of(name).map((s) => s[key]));
const names = [...new Set(samples.map((s) => s.name))];
const lines = [
  `Pooled over ${files.length} runs: medians of every interleaved sample.`,
  "",
  "| Configuration | wall s | CPU s | peak RSS MiB | n |",
  "|---|---|---|---|---|",
  ...names.map(
    (n) =>
      `| ${n} | ${fmt(stat(n, "wallMs") / 1000, 3)} | ${fmt(stat(n, "cpuMs") / 1000, 3)} | ${fmt(stat(n, "maxRssMiB"), 1)} | ${of(n).length} |`,
  ),
  "",
];
const ratio = (a, b) => fmt(stat(a, "wallMs") / stat(b, "wallMs"), 3);
for (const tag of ["", " (before)"]) {
  if (!names.includes(`1.6.0 native, enforce on${tag}`)) continue;
  lines.push(
    `native / own mcp.json (1.6.0)${tag}: ${ratio(`1.6.0 native, enforce on${tag}`, "1.6.0 mcp.json")} (target <= 1.05)`,
    `own client / Pi alone (1.6.0)${tag}: ${ratio(`1.6.0 own, enforce on${tag}`, "1.6.0 Pi alone")} (target <= 1.10)`,
    `own client / Pi alone (0.87.1)${tag}: ${ratio(`0.87.1 own, enforce on${tag}`, "0.87.1 Pi alone")} (target <= 1.10)`,
  );
}
if (names.includes("1.6.0 mcp.json + no-op handlers"))
  lines.push(`no-op extension / own mcp.json (1.6.0): ${ratio("1.6.0 mcp.json + no-op handlers", "1.6.0 mcp.json")}`);
process.stdout.write(`${lines.join("\n")}\n`);
