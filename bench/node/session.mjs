//! session.mjs - `make bench-session`: the extension's cost inside a real Pi session.
//!
//! The real Pi CLI in print mode plays a scripted session of N tool calls (graph searches, Pi
//! `read`s of indexed source that the hook blocks, gortex edits that change a file and get diffs)
//! against fake-gortex built in release mode, under each configuration of lib.mjs, interleaved:
//! every run goes through all configurations and call counts before the next run starts, so
//! machine noise spreads over all of them. Prints medians per configuration and N; writes every
//! sample to target/bench/session-<time>.json.
//!
//! Knobs (environment): BENCH_CALLS (default "300,900"), BENCH_RUNS (default 5), BENCH_CONFIGS
//! (semicolon-separated configuration names or substrings, since names hold commas; default all), BENCH_MIX (default "6,2,2").
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "../../tests/e2e/lib/hosts.mjs";
import { CONFIGS, fmt, hookFloor, median, requireBuilt, runOnce, warmUp } from "./lib.mjs";

requireBuilt();
const counts = (process.env.BENCH_CALLS ?? "300,900").split(",").map(Number);
const runs = Number(process.env.BENCH_RUNS ?? "5");
const wanted = (process.env.BENCH_CONFIGS ?? "")
  .split(";")
  .map((s) => s.trim())
  .filter(Boolean);
let names = Object.keys(CONFIGS).filter((n) => !wanted.length || wanted.some((w) => n.includes(w)));
// A configuration's baseline always runs with it, or its overhead cannot be computed.
names = [...new Set([...names, ...names.map((n) => CONFIGS[n].base).filter(Boolean)])];
const mix = process.env.BENCH_MIX;

if (process.env.BENCH_FRESH !== "1") await warmUp(names);
const samples = [];
const floors = [];
for (let run = 1; run <= runs; run++) {
  const floor = hookFloor();
  if (floor) floors.push(floor);
  for (const calls of counts) {
    // Rotate the order each run, so no configuration always follows the same neighbour.
    const order = names.map((_, i) => names[(i + run) % names.length]);
    for (const name of order) {
      const sample = await runOnce(name, { calls, mix });
      samples.push(sample);
      process.stderr.write(
        `run ${run}/${runs} N=${calls} ${name}: ${sample.ok ? `${fmt(sample.wallMs / 1000)} s` : `FAILED ${sample.error}`}\n`,
      );
    }
  }
}

const stat = (name, calls, key) =>
  median(samples.filter((s) => s.ok && s.name === name && s.calls === calls).map((s) => s[key]));
// The mix's share of each kind of call (searches, reads, edits per block of ten).
const [searches, reads, edits] = (mix ?? "6,2,2").split(",").map(Number);
const SHARE = { search: searches / 10, read: reads / 10, edit: edits / 10 };
/** The median over runs of one kind's median turn (faux-bench.ts `turnMedians`). */
const turn = (name, calls, kind) =>
  median(samples.filter((s) => s.ok && s.name === name && s.calls === calls).map((s) => s.turnMedianMs?.[kind]));
/**
 * Per-call difference of `name` over `other` from the median turns, weighted by the mix: the
 * steady per-call figure, without the pauses that dominate the mean (session time / N) here.
 */
const turnDelta = (name, other, calls) =>
  Object.entries(SHARE).reduce(
    (sum, [kind, share]) => sum + share * (turn(name, calls, kind) - turn(other, calls, kind)),
    0,
  );
const rows = [];
for (const name of names) {
  for (const calls of counts) {
    const base = CONFIGS[name].base;
    const session = stat(name, calls, "sessionMs");
    const baseSession = base ? stat(base, calls, "sessionMs") : undefined;
    rows.push({
      name,
      calls,
      wallS: stat(name, calls, "wallMs") / 1000,
      sessionS: session / 1000,
      perCallMs: base ? (session - baseSession) / calls : undefined,
      perCallTurnMs: base ? turnDelta(name, base, calls) : undefined,
      turnMs: Object.fromEntries(Object.keys(SHARE).map((kind) => [kind, turn(name, calls, kind)])),
      maxRssMiB: stat(name, calls, "maxRssMiB"),
      eldP99Ms: stat(name, calls, "eldP99Ms"),
      n: samples.filter((s) => s.ok && s.name === name && s.calls === calls).length,
    });
  }
}

const floorMs = median(floors.map((f) => f.bare_p50_ms));
const exchangeMs = median(floors.map((f) => f.exchange_p50_ms));
const lines = [
  `Medians of ${runs} interleaved runs (n = successful runs). Overhead per call = (session - baseline session) / N, baseline as named; "by turns": the same from the median turn of each kind of call, weighted by the mix (${mix ?? "6,2,2"}).`,
  "",
  "| Configuration | N | wall s | session s | overhead ms/call (vs) | by turns ms/call | median turn ms search / read / edit | peak RSS MiB | event-loop delay p99 ms | n |",
  "|---|---|---|---|---|---|---|---|---|---|",
  ...rows.map(
    (r) =>
      `| ${r.name} | ${r.calls} | ${fmt(r.wallS)} | ${fmt(r.sessionS)} | ${r.perCallMs === undefined ? "–" : `${fmt(r.perCallMs)} (${CONFIGS[r.name].base})`} | ${r.perCallTurnMs === undefined ? "–" : fmt(r.perCallTurnMs, 3)} | ${Object.values(
        r.turnMs,
      )
        .map((v) => fmt(v, 3))
        .join(" / ")} | ${fmt(r.maxRssMiB, 1)} | ${fmt(r.eldP99Ms, 1)} | ${r.n} |`,
  ),
  "",
];
// Against a peer that holds the same results (0.87.1: the SDK client), per call and in memory.
for (const name of names) {
  const peer = CONFIGS[name].peer;
  if (!peer || !names.includes(peer)) continue;
  for (const calls of counts) {
    const perCall = (stat(name, calls, "sessionMs") - stat(peer, calls, "sessionMs")) / calls;
    lines.push(
      `Overhead per call vs ${peer}, ${name}, N=${calls}: ${fmt(perCall)} ms (by turns ${fmt(turnDelta(name, peer, calls), 3)} ms)`,
    );
  }
}
// Hook cost inside Pi: enforcement on minus off, per call, next to the bare spawn-and-wait floor.
for (const [on, off] of [
  ["1.6.0 native, enforce on", "1.6.0 native, enforce off"],
  ["0.87.1 own, enforce on", "0.87.1 own, enforce off"],
  ["1.6.0 own, enforce on", "1.6.0 own, enforce off"],
  ["1.6.0 native, enforce on (before)", "1.6.0 native, enforce off (before)"],
  ["0.87.1 own, enforce on (before)", "0.87.1 own, enforce off (before)"],
]) {
  if (!names.includes(on) || !names.includes(off)) continue;
  for (const calls of counts) {
    const cost = (stat(on, calls, "sessionMs") - stat(off, calls, "sessionMs")) / calls;
    const byTurns = turnDelta(on, off, calls);
    lines.push(
      `Hook cost per call, ${on.replace(", enforce on", "")}, N=${calls}: ${fmt(cost)} ms (by turns ${fmt(byTurns)} ms); bare spawn-and-wait of the hook binary ${fmt(floorMs)} ms (ratio ${fmt(cost / floorMs)}; by turns ${fmt(byTurns / floorMs)}); runtime exchange alone ${fmt(exchangeMs)} ms`,
    );
  }
}
for (const calls of counts) {
  const growth = (n) => stat(n, counts.at(-1), "maxRssMiB") - stat(n, counts[0], "maxRssMiB");
  if (calls !== counts.at(-1) || counts.length < 2) continue;
  for (const name of names)
    lines.push(`Peak RSS growth ${counts[0]} -> ${calls} calls, ${name}: ${fmt(growth(name), 1)} MiB`);
  // What the session keeps, without the garbage a peak also holds (faux-bench.ts, after gc()).
  const kept = (n) => stat(n, counts.at(-1), "retainedHeapMiB") - stat(n, counts[0], "retainedHeapMiB");
  for (const name of names)
    lines.push(`Retained heap growth ${counts[0]} -> ${calls} calls, ${name}: ${fmt(kept(name), 2)} MiB`);
}
console.log(lines.join("\n"));

const dir = join(REPO, "target/bench");
mkdirSync(dir, { recursive: true });
const file = join(dir, `session-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
writeFileSync(file, JSON.stringify({ counts, runs, rows, floors, samples }, null, 2));
console.log(`\nsamples: ${file}`);
