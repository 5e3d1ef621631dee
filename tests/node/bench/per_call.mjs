// Per-call overhead on Pi's thread (issue 16, measure 1), precisely: the events Pi's agent session
// emits around one tool call, dispatched through Pi's own ExtensionRunner exactly as
// `AgentSession` does (`turn_start`, `tool_execution_start` and `tool_execution_end` always;
// `tool_call` and `tool_result` only when some extension has a handler), with the tool's own
// execution left out: it is the same for every configuration. Configurations, interleaved in
// blocks in the same process:
// - `Pi's own MCP`: no extension handlers, what Pi does for a server in its own mcp.json;
// - `no-op handlers`: an extension subscribed to the same events doing nothing (Pi's own cost of
//   dispatching them to any extension);
// - `pi-gortex, enforce off` on the path this Pi host takes (native on Pi >= 0.99).
// Two kinds of call: a graph search (nothing to do: the fast paths) and a gortex edit of a file
// that really changes between `tool_call` and `tool_result` (a snapshot, a diff, `details`).
// The session benchmark (`make bench-session`) measures the same in a whole Pi session, where
// its noise on this machine is ten times the 0.1 ms target; this one is the precise figure.
//
// Run: PI_HOST_DIR=tests/hosts/pi-1.6.0 $NODE22 tests/node/bench/per_call.mjs
// Knobs: BENCH_CALLS (per block, default 500), BENCH_BLOCKS (default 15), BENCH_BEFORE_PKG_DIR (an
// unpacked older package, run as a fourth configuration). Prints a JSON report.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { IS_NATIVE_HOST, PI_VERSION, ROOT, start, workspace } from "../lib/pi.mjs";

const CALLS = Number(process.env.BENCH_CALLS ?? 500);
const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 15);
const NOOP = join(ROOT, "tests/bench/noop-handlers.ts");
const NONE = join(ROOT, "tests/bench/no-handlers.ts");
const prefix = IS_NATIVE_HOST ? "mcp__gortex__" : "";
const SEARCH = { name: `${prefix}search`, input: { operation: "symbols", query: "Hello" } };
const EDIT = {
  name: IS_NATIVE_HOST ? "mcp__gortex__edit" : "gortex_edit",
  input: { operation: "file", target: { file: "main.go" }, match: "hello", replacement: "howdy" },
};
// A search answer of the simulator's size, as Pi hands it to `tool_result`.
const SEARCH_TEXT = JSON.stringify({
  results: Array.from({ length: 8 }, (_, i) => ({ name: `Hello${i}`, kind: "func", file: "main.go", line: i + 1 })),
});
const MAIN_GO = (word) => `package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println("${word}")\n}\n`;

let callId = 0;
/**
 * One tool call's events, gated the way Pi 1.6.0's AgentSession gates them. Returns the time
 * spent in them (the tool's execution, `between`, excluded) and the tool_result's answer.
 */
async function oneCall(s, tool, between) {
  const { runner } = s;
  const toolCallId = `c${++callId}`;
  const began = performance.now();
  await runner.emit({ type: "turn_start", turnIndex: callId, timestamp: Date.now() });
  await runner.emit({ type: "tool_execution_start", toolCallId, toolName: tool.name, args: tool.input });
  if (runner.hasHandlers("tool_call"))
    await runner.emitToolCall({ type: "tool_call", toolName: tool.name, toolCallId, input: tool.input });
  const paused = performance.now();
  between?.();
  const resumed = performance.now();
  const result = { content: [{ type: "text", text: SEARCH_TEXT }], details: undefined };
  const answer = !runner.hasHandlers("tool_result")
    ? undefined
    : await runner.emitToolResult({
        type: "tool_result",
        toolName: tool.name,
        toolCallId,
        input: tool.input,
        content: result.content,
        details: result.details,
        isError: false,
      });
  await runner.emit({ type: "tool_execution_end", toolCallId, toolName: tool.name, result, isError: false });
  return { us: (paused - began + performance.now() - resumed) * 1000, answer };
}

/**
 * A stand-in for Pi's MCP extension (as in native.test.mjs): registers `/mcp`, which NAT-6 looks
 * for before it keeps the native path. Loaded in every configuration, so all have the same runner.
 */
function connector(pi) {
  pi.registerCommand("mcp", { description: "MCP servers", handler: async () => {} });
}

async function configuration(name, options) {
  const ws = workspace();
  writeFileSync(join(ws.cwd, "main.go"), MAIN_GO("hello"));
  const s = await start(ws, { ...options, extraFactories: [connector] });
  await s.sessionStart();
  await s.beforeAgentStart("go");
  let flip = false;
  // What the edit tool does between its tool_call and tool_result: change the file.
  const edit = () => writeFileSync(join(ws.cwd, "main.go"), MAIN_GO((flip = !flip) ? "howdy" : "hello"));
  return { name, s, edit, search: [], edits: [] };
}

const median = (xs) => {
  const v = [...xs].sort((a, b) => a - b);
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
};

async function block(config, tool, between) {
  let us = 0;
  for (let i = 0; i < CALLS; i += 1) us += (await oneCall(config.s, tool, between)).us;
  return us / CALLS;
}

/** The edit really gets its diff on the extension (else the figure would be of the fast path). */
async function assertDiffed(config) {
  const { answer } = await oneCall(config.s, EDIT, config.edit);
  const diffs = answer?.details?.diffs?.length ?? 0;
  if (IS_NATIVE_HOST && diffs !== 1) throw new Error(`${config.name}: an edit got ${diffs} diffs, not 1`);
}

const configs = [
  await configuration("Pi's own MCP", { pkgDir: NONE }),
  await configuration("no-op handlers", { pkgDir: NOOP }),
  await configuration("pi-gortex, enforce off", { env: { GORTEX_ENFORCE: "0" } }),
];
// Before and after in one run: BENCH_BEFORE_PKG_DIR names an unpacked older package.
if (process.env.BENCH_BEFORE_PKG_DIR)
  configs.push(
    await configuration("pi-gortex, enforce off (before)", {
      pkgDir: process.env.BENCH_BEFORE_PKG_DIR,
      env: { GORTEX_ENFORCE: "0" },
    }),
  );
for (const c of configs.slice(2)) await assertDiffed(c);
// Warm-up: the JIT and the addon's first calls.
for (const c of configs) {
  await block(c, SEARCH);
  await block(c, EDIT, c.edit);
}
for (let b = 0; b < BLOCKS; b += 1) {
  for (let i = 0; i < configs.length; i += 1) {
    const c = configs[(i + b) % configs.length];
    c.search.push(await block(c, SEARCH));
    c.edits.push(await block(c, EDIT, c.edit));
  }
}
const base = configs[0];
const rows = configs.map((c) => ({
  configuration: c.name,
  searchUsPerCall: median(c.search),
  editUsPerCall: median(c.edits),
  searchOverUs: median(c.search) - median(base.search),
  editOverUs: median(c.edits) - median(base.edits),
}));
for (const c of configs) await c.s.shutdown();
console.log(
  JSON.stringify(
    {
      pi: PI_VERSION,
      path: IS_NATIVE_HOST ? "native" : "own client",
      callsPerBlock: CALLS,
      blocks: BLOCKS,
      note: "us per call on Pi's thread, medians of blocks; *Over* = minus Pi's own MCP; the tool's execution is not included",
      rows,
    },
    null,
    2,
  ),
);
process.exit(0);
