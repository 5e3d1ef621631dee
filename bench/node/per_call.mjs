// Per-call overhead on Pi's thread, precisely: the events Pi's agent session
// emits around one tool call, dispatched through Pi's own ExtensionRunner exactly as
// `AgentSession` does (`turn_start`, the assistant message's `message_end`,
// `tool_execution_start`, `tool_execution_end` and the result message's `message_end` always;
// `tool_call` and `tool_result` only when some extension has a handler), with the tool's own
// execution left out: it is the same for every configuration. Configurations, interleaved in
// blocks in the same process:
// - `Pi's own MCP`: no extension handlers, what Pi does for a server in its own mcp.json;
// - `no-op handlers`: an extension subscribed to the same events doing nothing (Pi's own cost of
//   dispatching them to any extension);
// - `floor`: the same handlers, each making one call into the real addon that does nothing, and
//   for an edit the two reads of its file that any diff needs: the least an extension built as one
//   crossing per event can cost;
// - `floor without the addon`: the floor with a plain JavaScript no-op in place of each addon call,
//   so the floor's crossings and its reads can be told apart (and, on a search, a configuration
//   that does what the no-op peer does: their difference is the harness's own spread);
// - `pi-gortex, enforce off` on the path this Pi host takes (native on Pi >= 0.99), and the same
//   with `stats` off (what counting the graph's answers costs).
// Two kinds of call: a graph search (nothing to do: the fast paths) and a gortex edit of a file
// that really changes between `tool_call` and `tool_result` (a snapshot, a diff, `details`).
// The session benchmark (`make bench-session`) measures the same in a whole Pi session, where
// its noise on this machine is ten times the 0.1 ms target; this one is the precise figure.
//
// Run: PI_HOST_DIR=tests/hosts/pi-1.6.0 $NODE22 bench/node/per_call.mjs
// Knobs: BENCH_CALLS (per block, default 500), BENCH_BLOCKS (default 15), BENCH_BEFORE_PKG_DIR (an
// unpacked older package, run as a fourth configuration; BENCH_BEFORE_FIRST=1 starts it first).
// Prints a JSON report.
// BENCH_EDIT_WRITE=in-place: the edit rewrites the file in place (same length, no truncation)
// instead of writeFileSync's truncate-and-write, whose close makes ext4 write the file out at once
// (auto_da_alloc); that disk write's completion interrupts land in whatever runs next, the
// extension's read of the file included (docs/benchmarks.md).
// The hook's floor is a bare spawn-and-wait of the hook binary with the variables and cwd of the
// `enforce on` workspace, by bench/rust/examples/hook_spawn_floor (release if built, else debug), so
// it does the same work (the fake's log and session state) as the configuration's hook.
// BENCH_UPSTREAM_HOOK=1: every workspace is tests/node/lib/upstream.mjs's (Gortex's own hook from
// `make gortex-hook`, relayed by fake-gortex, asking a `daemon serve` socket), and the floor is a
// bare spawn-and-wait of that hook binary (and of the relay). The hook child inherits the
// variables of the workspace started last, the `enforce on` one (not with BENCH_BEFORE_PKG_DIR).
// BENCH_UPSTREAM_HOOK=direct: the same workspaces, but `gortex` is a `sh` script that `exec`s
// Gortex's own hook for `hook` (with the workspace's HOME and daemon socket) and the simulator
// otherwise, so the process spawned, and kept as the spare, is the hook itself, as in an
// installation; the relay and its log are out of the path.
// The hook configurations are `enforce on` with the session's warm spare (HOOK-18) and without it
// (GORTEX_HOOK_PRESPAWN=0); each of their calls follows an untimed pause of BENCH_HOOK_GAP_MS
// (default 100), the model's turn in a session, in which a spare gets past its start-up, and
// BENCH_HOOK_TOOL_MS (default 0) of untimed tool execution between tool_call and tool_result;
// `enforce off, paced` is the same pacing without the hook, their baseline.
// FAKE_GORTEX_HOOK_STARTUP_MS in the environment delays the simulator's start-up (inherited by
// every hook child and by the floor's).
import { spawnSync } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync, writeFileSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import {
  ADDON_FILE,
  FAKE,
  IS_NATIVE_HOST,
  PI_VERSION,
  PKG_DIR,
  ROOT,
  start,
  workspace,
} from "../../tests/node/lib/pi.mjs";
import { UPSTREAM_HOOK, upstreamWorkspace } from "../../tests/node/lib/upstream.mjs";

const CALLS = Number(process.env.BENCH_CALLS ?? 500);
const HOOK_CALLS = Number(process.env.BENCH_HOOK_CALLS ?? 100);
const HOOK_GAP_MS = Number(process.env.BENCH_HOOK_GAP_MS ?? 100);
const HOOK_TOOL_MS = Number(process.env.BENCH_HOOK_TOOL_MS ?? 0);
const FLOOR_SAMPLES = Number(process.env.BENCH_FLOOR_SAMPLES ?? 20);
const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 15);
const RETAINED_CALLS = Number(process.env.BENCH_RETAINED_CALLS ?? 5000);
const UPSTREAM_DIRECT = process.env.BENCH_UPSTREAM_HOOK === "direct";
const UPSTREAM = process.env.BENCH_UPSTREAM_HOOK === "1" || UPSTREAM_DIRECT;
const IN_PLACE = process.env.BENCH_EDIT_WRITE === "in-place";
// A full collection on demand, for the heap a call leaves behind.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc");
const NOOP = join(ROOT, "bench/node/noop-handlers.ts");
const NONE = join(ROOT, "bench/node/no-handlers.ts");
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
  // The assistant message that asks for the call ends before Pi prepares it (`message_end`
  // always reaches the runner; the native read-ahead starts an edit's read here).
  const toolCall = { type: "toolCall", id: toolCallId, name: tool.name, arguments: tool.input };
  await runner.emitMessageEnd({ type: "message_end", message: { role: "assistant", content: [toolCall] } });
  await runner.emit({ type: "tool_execution_start", toolCallId, toolName: tool.name, args: tool.input });
  if (runner.hasHandlers("tool_call"))
    await runner.emitToolCall({ type: "tool_call", toolName: tool.name, toolCallId, input: tool.input });
  const paused = performance.now();
  await between?.();
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
  const resultMessage = { role: "toolResult", toolCallId, toolName: tool.name, content: result.content };
  await runner.emitMessageEnd({ type: "message_end", message: resultMessage });
  return { us: (paused - began + performance.now() - resumed) * 1000, answer };
}

/**
 * A stand-in for Pi's MCP extension (as in native.test.mjs): registers `/mcp`, which NAT-6 looks
 * for before it keeps the native path. Loaded in every configuration, so all have the same runner.
 */
function connector(pi) {
  pi.registerCommand("mcp", { description: "MCP servers", handler: async () => {} });
}

// The events pi-gortex's glue handles per call on this host (message_end only on the native path):
// the no-op peer subscribes to the same ones.
const CALL_EVENTS = ["tool_call", "tool_result", "tool_execution_end", "turn_start", "agent_end"];
if (IS_NATIVE_HOST) CALL_EVENTS.push("message_end");
process.env.PI_BENCH_NOOP_EVENTS = CALL_EVENTS.join(",");

/**
 * The floor of an extension that makes one addon call per event: the same handlers, each making one
 * call into the real addon that does nothing (`clearCalls` of an extension that has no session),
 * and for an edit the two reads of its file that any diff needs (the assistant message's planned
 * call and the result), with `readFileSync` and no boundary, diff or details. `withAddon` false puts
 * a JavaScript no-op in place of the addon call.
 */
function floorHandlers(cwd, withAddon) {
  return (pi) => {
    const addon = withAddon ? createRequire(import.meta.url)(join(PKG_DIR, ADDON_FILE)) : undefined;
    const core = addon ? new addon.Extension(new addon.Module()) : { clearCalls() {} };
    const edits = (name) => name === EDIT.name;
    const read = (input) => readFileSync(join(cwd, input.target.file));
    for (const event of CALL_EVENTS.filter((e) => e !== "message_end" && e !== "tool_result"))
      pi.on(event, () => void core.clearCalls());
    pi.on("message_end", (event) => {
      core.clearCalls();
      for (const block of event.message.content ?? [])
        if (block.type === "toolCall" && edits(block.name)) read(block.arguments);
    });
    pi.on("tool_result", (event) => {
      core.clearCalls();
      if (edits(event.toolName)) read(event.input);
    });
  };
}

/** The tool's write of the file: truncate and write, or over the same length in place. */
function rewrite(path, text) {
  if (!IN_PLACE) return writeFileSync(path, text);
  const fd = openSync(path, "r+");
  try {
    writeSync(fd, text, 0);
  } finally {
    closeSync(fd);
  }
}

/** `gortex` for BENCH_UPSTREAM_HOOK=direct: Gortex's own hook for `hook`, the simulator otherwise. */
function directHook(ws) {
  const script = join(ws.dir, "gortex");
  const quoted = (text) => `'${text.replaceAll("'", "'\\''")}'`;
  writeFileSync(
    script,
    [
      "#!/bin/sh",
      `if [ "$1" = hook ]; then shift; HOME=${quoted(ws.env.FAKE_GORTEX_HOOK_HOME)} GORTEX_DAEMON_SOCKET=${quoted(ws.env.GORTEX_DAEMON_SOCKET)} exec ${quoted(UPSTREAM_HOOK)} hook "$@"; fi`,
      `exec ${quoted(FAKE)} "$@"`,
      "",
    ].join("\n"),
    { mode: 0o755 },
  );
  return script;
}

async function configuration(name, { hookOnly = false, floor = false, withAddon = true, ...options }) {
  const ws = UPSTREAM ? await upstreamWorkspace() : workspace();
  if (UPSTREAM_DIRECT) ws.env.GORTEX_BIN = directHook(ws);
  writeFileSync(join(ws.cwd, "main.go"), MAIN_GO("hello"));
  const extraFactories = floor ? [connector, floorHandlers(ws.cwd, withAddon)] : [connector];
  const s = await start(ws, { ...options, extraFactories });
  await s.sessionStart();
  await s.beforeAgentStart("go");
  let flip = false;
  // What the edit tool does between its tool_call and tool_result: change the file.
  const edit = () => rewrite(join(ws.cwd, "main.go"), MAIN_GO((flip = !flip) ? "howdy" : "hello"));
  return { name, ws, s, edit, hookOnly, search: [], edits: [] };
}

const median = (xs) => {
  const v = [...xs].sort((a, b) => a - b);
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
};

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function block(config, tool, between, calls = CALLS) {
  let us = 0;
  for (let i = 0; i < calls; i += 1) {
    if (config.hookOnly && HOOK_GAP_MS > 0) await pause(HOOK_GAP_MS);
    us += (await oneCall(config.s, tool, between)).us;
  }
  return us / calls;
}

/** The edit really gets its diff on the extension (else the figure would be of the fast path). */
async function assertDiffed(config) {
  const { answer } = await oneCall(config.s, EDIT, config.edit);
  const diffs = answer?.details?.diffs?.length ?? 0;
  if (IS_NATIVE_HOST && diffs !== 1) throw new Error(`${config.name}: an edit got ${diffs} diffs, not 1`);
}

// The spare is named on, as `enforce on, no spare` names it off: a variable a start sets stays in
// the process for the configurations started after it.
const enforced = (env) => ({ GORTEX_HOOK_PRESPAWN: "1", ...env, GORTEX_ENFORCE: "1" });
const before = process.env.BENCH_BEFORE_PKG_DIR;
const configs = [
  await configuration("Pi's own MCP", { pkgDir: NONE }),
  await configuration("no-op handlers", { pkgDir: NOOP }),
  await configuration("floor: one empty crossing per event, an edit's two reads", { pkgDir: NONE, floor: true }),
  await configuration("floor without the addon: a JavaScript no-op per event, an edit's two reads", {
    pkgDir: NONE,
    floor: true,
    withAddon: false,
  }),
];
const after = async () => [
  await configuration("pi-gortex, enforce off", { env: { GORTEX_ENFORCE: "0" } }),
  // What counting the graph's answers costs (SAVE-1): the same without it.
  await configuration("pi-gortex, enforce off, stats off", { env: { GORTEX_ENFORCE: "0", GORTEX_STATS: "0" } }),
  await configuration("pi-gortex, enforce off, paced", { env: { GORTEX_ENFORCE: "0" }, hookOnly: true }),
  await configuration("pi-gortex, enforce on", { env: enforced({}), hookOnly: true }),
  await configuration("pi-gortex, enforce on, no spare", {
    env: enforced({ GORTEX_HOOK_PRESPAWN: "0" }),
    hookOnly: true,
  }),
];
// Before and after in one run: BENCH_BEFORE_PKG_DIR names an unpacked older package.
const beforeConfigs = async () => [
  await configuration("pi-gortex, enforce off (before)", { pkgDir: before, env: { GORTEX_ENFORCE: "0" } }),
  await configuration("pi-gortex, enforce on (before)", { pkgDir: before, env: enforced({}), hookOnly: true }),
];
// The package started first measures slower on a native edit, whichever it is (the same
// package in both places differed by 18-33 %), so a comparison runs in both orders.
if (!before) configs.push(...(await after()));
else if (process.env.BENCH_BEFORE_FIRST === "1") configs.push(...(await beforeConfigs()), ...(await after()));
else configs.push(...(await after()), ...(await beforeConfigs()));
for (const c of configs.filter((c) => c.name.startsWith("pi-gortex") && !c.hookOnly)) await assertDiffed(c);

/**
 * The hook's floor: p50 of a bare spawn-and-wait of `bin hook --agent=pi` (a graph call's
 * envelope) with the variables and cwd of the hook configuration's workspace, in microseconds:
 * the same binary doing the same work (its log, its session state) as the configuration's hook.
 */
function spawnFloor(bin, ws, samples) {
  const example = ["release", "debug"]
    .map((profile) => join(process.env.CARGO_TARGET_DIR || join(ROOT, "target"), profile, "examples/hook_spawn_floor"))
    .find(existsSync);
  if (!example) throw new Error("build bench/rust/examples/hook_spawn_floor (cargo build --example hook_spawn_floor)");
  // The relay hands the hook this HOME; spawned directly, the hook needs it set.
  // Its own log, so the workspace's log counts only the configuration's hook runs.
  // Each of its timed runs follows the same pause as a hook configuration's call.
  const env = {
    ...process.env,
    ...ws.env,
    FAKE_GORTEX_LOG: join(ws.dir, "floor.log"),
    HOOK_FLOOR_GAP_MS: String(HOOK_GAP_MS),
  };
  if (ws.env.FAKE_GORTEX_HOOK_HOME) env.HOME = ws.env.FAKE_GORTEX_HOOK_HOME;
  const run = spawnSync(example, [bin, String(samples)], { cwd: ws.cwd, env, encoding: "utf8", timeout: 120_000 });
  if (run.status !== 0) throw new Error(`hook_spawn_floor ${bin}: ${run.stderr}`);
  const report = JSON.parse(run.stdout);
  decisions.push(report.decision_p50_ms * 1000);
  spares.push(report.spare_p50_ms * 1000);
  return report.bare_p50_ms * 1000;
}

/** One block of each kind this configuration measures. */
async function blocks(c) {
  const tool = c.hookOnly && HOOK_TOOL_MS > 0 ? () => pause(HOOK_TOOL_MS) : undefined;
  c.search.push(await block(c, SEARCH, tool, c.hookOnly ? HOOK_CALLS : CALLS));
  if (!c.hookOnly) c.edits.push(await block(c, EDIT, c.edit));
}
// Warm-up: the JIT and the addon's first calls.
for (const c of configs) await blocks(c);
const floors = [];
const relayFloors = [];
// The floor's other figures: the hook's own decision time, and the exchange on a spare alone.
const decisions = [];
const spares = [];
const hookWs = configs.find((c) => c.name === "pi-gortex, enforce on").ws;
for (let b = 0; b < BLOCKS; b += 1) {
  // The bare spawn-and-wait of the hook binary, between rounds (bench/rust/examples/hook_spawn_floor.rs).
  floors.push(spawnFloor(UPSTREAM ? UPSTREAM_HOOK : FAKE, hookWs, FLOOR_SAMPLES));
  if (UPSTREAM && !UPSTREAM_DIRECT) {
    relayFloors.push(spawnFloor(FAKE, hookWs, FLOOR_SAMPLES));
    decisions.pop();
    spares.pop();
  }
  for (let i = 0; i < configs.length; i += 1) await blocks(configs[(i + b) % configs.length]);
}

/** Heap kept per call after a full collection: growth that would accumulate over a session. */
async function retainedBytesPerCall(c) {
  const collect = () => {
    gc();
    gc();
    return process.memoryUsage().heapUsed;
  };
  const calls = RETAINED_CALLS;
  const start = collect();
  for (let i = 0; i < calls; i += 1) {
    await oneCall(c.s, SEARCH);
    if (!c.hookOnly && i % 5 === 4) await oneCall(c.s, EDIT, c.edit);
  }
  return (collect() - start) / calls;
}
const retained = new Map();
for (const c of configs.filter((c) => !c.hookOnly)) retained.set(c.name, await retainedBytesPerCall(c));

const base = configs[0];
const noop = configs[1];
const floor = configs[2];
const byName = new Map(configs.map((c) => [c.name, c]));
const [searches, reads, edits] = (process.env.BENCH_MIX ?? "6,2,2").split(",").map(Number);
const editShare = edits / (searches + reads + edits);
const floorUs = floors.length ? median(floors) : undefined;
const relayFloorUs = relayFloors.length ? median(relayFloors) : undefined;
const decisionUs = decisions.length ? median(decisions) : undefined;
const rows = configs.map((c) => {
  const searchOverUs = median(c.search) - median(base.search);
  const editOverUs = c.hookOnly ? undefined : median(c.edits) - median(base.edits);
  // The hook configurations' calls are paced the same as their own `enforce off`.
  const own = byName.get(c.name.replace("enforce on", "enforce off"));
  const off = c.name.endsWith("(before)") ? own : (byName.get("pi-gortex, enforce off, paced") ?? own);
  const hookUs = c.hookOnly && c !== off ? median(c.search) - median(off.search) : undefined;
  return {
    configuration: c.name,
    searchUsPerCall: median(c.search),
    editUsPerCall: c.hookOnly ? undefined : median(c.edits),
    searchOverUs,
    editOverUs,
    // The session benchmark's mix: the share of edits pays the edit figure, the rest the search one.
    mixOverUs: editOverUs === undefined ? undefined : (1 - editShare) * searchOverUs + editShare * editOverUs,
    // The measures: against the no-op peer, and against the floor of one crossing per event.
    searchToNoop: median(c.search) / median(noop.search),
    editToNoop: c.hookOnly ? undefined : median(c.edits) / median(noop.edits),
    searchToFloor: median(c.search) / median(floor.search),
    editToFloor: c.hookOnly ? undefined : median(c.edits) / median(floor.edits),
    hookUs,
    hookToBareSpawn: hookUs === undefined || !floorUs ? undefined : hookUs / floorUs,
    hookToRelaySpawn: hookUs === undefined || !relayFloorUs ? undefined : hookUs / relayFloorUs,
    hookToDecision: hookUs === undefined || !decisionUs ? undefined : hookUs / decisionUs,
    retainedBytesPerCall: retained.get(c.name),
  };
});
// The hook configuration's calls really reached Gortex's own hook (the relay logs each one).
const upstreamRuns =
  UPSTREAM && !UPSTREAM_DIRECT ? hookWs.log().filter((r) => r.ev === "hook" && r.upstream === true) : [];
for (const c of configs) await c.s.shutdown();
for (const c of configs) await c.ws.stopDaemon?.();
console.log(
  JSON.stringify(
    {
      pi: PI_VERSION,
      path: IS_NATIVE_HOST ? "native" : "own client",
      callsPerBlock: CALLS,
      hookCallsPerBlock: HOOK_CALLS,
      blocks: BLOCKS,
      hook: UPSTREAM_DIRECT
        ? "Gortex's own (spawned as `gortex hook`)"
        : UPSTREAM
          ? "Gortex's own (fake-gortex relay)"
          : "fake-gortex",
      editWrite: IN_PLACE ? "in place" : "truncate and write",
      bareHookSpawnP50Us: floorUs,
      bareRelaySpawnP50Us: relayFloorUs,
      hookDecisionP50Us: decisionUs,
      spareExchangeP50Us: spares.length ? median(spares) : undefined,
      hookGapMs: HOOK_GAP_MS,
      hookStartupMs: Number(process.env.FAKE_GORTEX_HOOK_STARTUP_MS ?? 0),
      upstreamHookRuns: UPSTREAM && !UPSTREAM_DIRECT ? upstreamRuns.length : undefined,
      upstreamHookDecisions:
        UPSTREAM && !UPSTREAM_DIRECT
          ? [...new Set(upstreamRuns.map((r) => String(r.decision).slice(0, 60)))]
          : undefined,
      note: "us per call on Pi's thread, medians of blocks; *Over* = minus Pi's own MCP; the tool's execution is not included; hookUs = enforce on minus off (a search call the hook allows)",
      rows,
    },
    null,
    2,
  ),
);
process.exit(0);
