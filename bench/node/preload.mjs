//! preload.mjs - loaded into the Pi process under benchmark with `node --import`. It starts an
//! event-loop delay histogram the benchmark model (faux-bench.ts) resets when the session's first
//! model request arrives, and at exit appends the process's peak RSS to `PI_BENCH_OUT`.
//! It only observes: nothing here runs on Pi's hot path besides the histogram's own timer.
import { appendFileSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { setFlagsFromString, writeHeapSnapshot } from "node:v8";
import { runInNewContext } from "node:vm";

const histogram = monitorEventLoopDelay({ resolution: 1 });
histogram.enable();
// `mark(name)` lets an instrumented copy of the extension (see docs/benchmarks.md,
// "make bench-startup") put timestamps on the same clock; they are written at exit.
const marks = [];
// `retainedHeapMiB()`: the heap after full collections, what the session really keeps (a peak RSS
// also holds garbage not yet collected, whose amount depends on when the collector ran).
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc");
const retainedHeapMiB = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
};
globalThis.__piBench = { histogram, marks, mark: (name) => marks.push([name, performance.now()]), retainedHeapMiB };

// PI_BENCH_MEM_TRACE=1: memory sampled every 50 ms, and where it stood when RSS peaked, to tell
// a peak of V8's heap (garbage not yet collected) from memory outside it (the addon's allocator).
let peak;
if (process.env.PI_BENCH_MEM_TRACE === "1") {
  const sample = () => {
    const m = process.memoryUsage();
    if (!peak || m.rss > peak.rss) peak = m;
  };
  setInterval(sample, 50).unref();
}

/** Peak RSS, CPU time (user + system) and uptime of this process, read at exit. */
function exitRecord() {
  const usage = process.resourceUsage();
  const memory = process.memoryUsage();
  return {
    ev: "exit",
    marks,
    maxRssKiB: usage.maxRSS,
    // Where the memory is at exit: V8's heap, memory outside it (Buffers, the addon's
    // ArrayBuffers), so a peak RSS that grows can be told apart from a heap that grows.
    heapUsedMiB: memory.heapUsed / 2 ** 20,
    heapTotalMiB: memory.heapTotal / 2 ** 20,
    externalMiB: memory.external / 2 ** 20,
    rssAtExitMiB: memory.rss / 2 ** 20,
    ...(peak ? { atPeakRss: Object.fromEntries(Object.entries(peak).map(([k, v]) => [k, v / 2 ** 20])) } : {}),
    cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000,
    uptimeMs: performance.now(),
  };
}

process.on("exit", () => {
  // PI_BENCH_HEAP_SNAPSHOT=<file>: what the heap holds at exit, for a heap that grows per call.
  if (process.env.PI_BENCH_HEAP_SNAPSHOT) writeHeapSnapshot(process.env.PI_BENCH_HEAP_SNAPSHOT);
  const out = process.env.PI_BENCH_OUT;
  if (!out) return;
  try {
    appendFileSync(out, `${JSON.stringify(exitRecord())}\n`);
  } catch {
    // A missing record shows up as a missing figure in the table.
  }
});
