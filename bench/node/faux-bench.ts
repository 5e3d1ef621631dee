/**
 * faux-bench.ts - the scripted model of the benchmarks (bench/node/session.mjs, startup.mjs).
 *
 * Like tests/e2e/faux-model.ts it registers Pi's faux provider as `faux/faux-1`, but it logs
 * nothing per request (the e2e model's per-request log grows with the session and would dominate
 * a 900-call run) and it builds its script from the environment:
 * - `PI_BENCH_CALLS`: number of tool calls, one per model request;
 * - `PI_BENCH_TOOLS`: JSON `{"search": name, "edit": name, "read": name}`, the tool names of the
 *   path under test (`mcp__gortex__search`, `search`, ...);
 * - `PI_BENCH_MIX`: per block of ten calls, how many are graph searches, Pi `read`s of an indexed
 *   file (the hook blocks them) and gortex edits of `main.go` that really change it (default
 *   `6,2,2`).
 * When the first request arrives it resets the event-loop histogram of preload.mjs and notes the
 * time; when the script is done it appends `{sessionMs, eldP99Ms, turnMedianMs, ...}` to
 * `PI_BENCH_OUT` (`turnMedianMs`: the median turn per kind of call, see `turnMedians`).
 */
import { appendFileSync } from "node:fs";
import { fauxAssistantMessage, fauxProvider, fauxToolCall } from "@earendil-works/pi-ai";

type Call = [string, Record<string, unknown>];
type Kind = "search" | "read" | "edit";

/** The kind of call `i` of the script. */
function kindOf(i: number): Kind {
  const [searches, reads] = (process.env.PI_BENCH_MIX ?? "6,2,2").split(",").map(Number);
  const slot = i % 10;
  return slot < searches ? "search" : slot < searches + reads ? "read" : "edit";
}

function script(): Call[] {
  const n = Number(process.env.PI_BENCH_CALLS ?? "0");
  const tools = JSON.parse(process.env.PI_BENCH_TOOLS ?? "{}");
  const calls: Call[] = [];
  let edits = 0;
  for (let i = 0; i < n; i++) {
    const kind = kindOf(i);
    if (kind === "search") {
      calls.push([tools.search, { operation: "symbols", query: `Hello${i}` }]);
    } else if (kind === "read") {
      calls.push([tools.read, { path: "main.go" }]);
    } else {
      // Alternate the replacement so every edit finds its match and changes the file.
      const [from, to] = edits++ % 2 === 0 ? ["hello", "howdy"] : ["howdy", "hello"];
      calls.push([tools.edit, { operation: "file", target: { file: "main.go" }, match: from, replacement: to }]);
    }
  }
  return calls;
}

function median(values: number[]): number | null {
  if (!values.length) return null;
  const xs = [...values].sort((a, b) => a - b);
  const mid = Math.floor(xs.length / 2);
  return xs.length % 2 ? xs[mid] : (xs[mid - 1] + xs[mid]) / 2;
}

/**
 * The median turn of each kind of call: from the model request that asked for call i to the next
 * request, which spans Pi handling the call, running the tool, every extension handler, and Pi
 * building the next request. A median per kind is robust to the pauses (garbage collection, a
 * core taken away) that dominate the mean on a noisy machine.
 */
function turnMedians(requests: number[]): Record<Kind, number | null> {
  const turns: Record<Kind, number[]> = { search: [], read: [], edit: [] };
  for (let i = 0; i + 1 < requests.length; i++) turns[kindOf(i)].push(requests[i + 1] - requests[i]);
  return { search: median(turns.search), read: median(turns.read), edit: median(turns.edit) };
}

function record(fields: Record<string, unknown>): void {
  const out = process.env.PI_BENCH_OUT;
  if (!out) return;
  try {
    appendFileSync(out, `${JSON.stringify(fields)}\n`);
  } catch {
    // A missing record shows up as a missing figure in the table.
  }
}

export default function fauxBench(pi: any): void {
  const calls = script();
  const bench = (globalThis as any).__piBench;
  let cursor = 0;
  let firstAt = 0;
  const requests: number[] = [];
  const faux = fauxProvider({ provider: "faux", api: "faux-api", models: [{ id: "faux-1", name: "Faux 1" }] });
  const answer = () => {
    requests.push(performance.now());
    if (cursor === 0) {
      firstAt = performance.now();
      bench?.histogram.reset();
      record({ ev: "first_request", atMs: firstAt });
    }
    const call = calls[cursor];
    cursor += 1;
    if (call)
      return fauxAssistantMessage([fauxToolCall(call[0], call[1], { id: `call_${cursor}` })], {
        stopReason: "toolUse",
      });
    const h = bench?.histogram;
    record({
      ev: "done",
      calls: calls.length,
      sessionMs: performance.now() - firstAt,
      firstRequestMs: firstAt,
      eldP99Ms: h ? h.percentile(99) / 1e6 : null,
      eldP50Ms: h ? h.percentile(50) / 1e6 : null,
      eldMaxMs: h ? h.max / 1e6 : null,
      turnMedianMs: turnMedians(requests),
      // After the session's time is taken: full collections cost tens of milliseconds.
      retainedHeapMiB: bench?.retainedHeapMiB?.() ?? null,
    });
    return fauxAssistantMessage("DONE");
  };
  faux.setResponses(Array.from({ length: calls.length + 8 }, () => answer));
  pi.registerProvider(faux.provider);
  // Where the start goes: when Pi fires session_start and the first before_agent_start, on the
  // same clock as the first model request.
  let turnSeen = false;
  pi.on("session_start", () => record({ ev: "session_start", atMs: performance.now() }));
  pi.on("before_agent_start", () => {
    if (turnSeen) return;
    turnSeen = true;
    record({ ev: "before_agent_start", atMs: performance.now() });
  });
}
