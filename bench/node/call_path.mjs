// Own-client tool call seen from JavaScript: Pi's `execute` of a registered
// gortex tool (ExtensionRunner -> glue -> addon -> gortex mcp simulator -> back), p50 per call,
// against a Node pipe echo to `cat` of a line of the same size in the same run, interleaved in
// blocks. Also interleaved: the same `tools/call` sent by Node straight to the simulator over its
// pipes (no extension, no Pi): the floor any client of this simulator has, since the simulator's
// own work is part of every call. Prints a JSON report. Enforcement is off and the call is not an
// edit, so only the call path itself is measured.
//
// Run: FAKE_GORTEX_BIN=$PWD/target/release/fake-gortex $NODE22 bench/node/call_path.mjs (an absolute path:
// the simulator is spawned from the workspace directory)
// Knobs: BENCH_CALLS (default 2000), BENCH_BLOCK (default 100). BENCH_CPU_PROF=1 runs only the
// Pi execute loop (for --cpu-prof).
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { FAKE, PKG_DIR, start, workspace } from "../../tests/node/lib/pi.mjs";

const CALLS = Number(process.env.BENCH_CALLS ?? 2000);
const BLOCK = Number(process.env.BENCH_BLOCK ?? 100);
const ARGS = { operation: "symbols", query: "Hello" };

function p(values, q) {
  const xs = [...values].sort((a, b) => a - b);
  return xs[Math.min(xs.length - 1, Math.floor(xs.length * q))];
}

/** One line in, the same line back: the cheapest round trip through a child's pipes. */
function catEcho() {
  const child = spawn("/bin/cat", [], { stdio: ["pipe", "pipe", "ignore"] });
  let waiting;
  let buffered = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    buffered += chunk;
    if (buffered.endsWith("\n")) {
      buffered = "";
      waiting?.();
    }
  });
  const line = `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "search", arguments: ARGS } })}\n`;
  return {
    call: () =>
      new Promise((resolve) => {
        waiting = resolve;
        child.stdin.write(line);
      }),
    stop: () => child.kill(),
  };
}

/** The simulator (`fake-gortex mcp`) driven by Node directly: handshake, then one `tools/call` per call. */
async function simulatorDirect() {
  const child = spawn(FAKE, ["mcp"], { stdio: ["pipe", "pipe", "ignore"] });
  let waiting;
  let buffered = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    buffered += chunk;
    let end = buffered.indexOf("\n");
    while (end >= 0) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      const resolve = waiting;
      waiting = undefined;
      resolve?.(line);
      end = buffered.indexOf("\n");
    }
  });
  let id = 0;
  const request = (method, params) =>
    new Promise((resolve) => {
      waiting = resolve;
      id += 1;
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    });
  await request("initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "bench", version: "1" },
  });
  child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  return {
    call: () => request("tools/call", { name: "search", arguments: ARGS }),
    stop: () => child.kill(),
  };
}

/**
 * Where a call's time goes: wraps the addon exports the glue calls (the glue's `require` of the
 * addon returns this same exports object) and records, per call, the synchronous part of
 * `executeTool` (argument conversion, task spawn), its whole promise, and `editCandidates`.
 */
function instrumentAddon() {
  const file = readdirSync(PKG_DIR).find((f) => f.endsWith(".node"));
  const addon = createRequire(import.meta.url)(join(PKG_DIR, file));
  const parts = { executeSync: [], executePromise: [], editCandidates: [] };
  const { executeTool, editCandidates } = addon;
  addon.executeTool = (...args) => {
    const began = performance.now();
    const promise = executeTool(...args);
    const called = performance.now();
    parts.executeSync.push(called - began);
    return promise.then((value) => {
      parts.executePromise.push(performance.now() - began);
      return value;
    });
  };
  addon.editCandidates = (...args) => {
    const began = performance.now();
    const value = editCandidates(...args);
    parts.editCandidates.push(performance.now() - began);
    return value;
  };
  return parts;
}
const parts = process.env.BENCH_BREAKDOWN === "1" ? instrumentAddon() : undefined;

const ws = workspace({});
// No simulator log (FAKE-3): its per-request file writes are a test facility, not a daemon's
// work, and would be counted in both the extension's and the direct path's figures.
const session = await start(ws, { env: { GORTEX_NATIVE_MCP: "0", GORTEX_ENFORCE: "0", FAKE_GORTEX_LOG: null } });
await session.sessionStart();
if (!session.toolNames().includes("search")) throw new Error(`own client not started: ${session.toolNames()}`);
const echo = catEcho();
const direct = await simulatorDirect();
const piTimes = [];
const echoTimes = [];
const directTimes = [];
const only = process.env.BENCH_CPU_PROF === "1";
// Warm-up of both paths (JIT, first respawn-free calls).
for (let i = 0; i < 50; i++) {
  await session.execute("search", ARGS);
  await echo.call();
  await direct.call();
}
for (let done = 0; done < CALLS; done += BLOCK) {
  for (let i = 0; i < BLOCK; i++) {
    const began = performance.now();
    await session.execute("search", ARGS);
    piTimes.push(performance.now() - began);
  }
  if (only) continue;
  for (let i = 0; i < BLOCK; i++) {
    const began = performance.now();
    await echo.call();
    echoTimes.push(performance.now() - began);
  }
  for (let i = 0; i < BLOCK; i++) {
    const began = performance.now();
    await direct.call();
    directTimes.push(performance.now() - began);
  }
}
echo.stop();
direct.stop();
await session.shutdown();
const us = (ms) => Math.round(ms * 1000);
const report = {
  calls: CALLS,
  piExecuteP50Us: us(p(piTimes, 0.5)),
  piExecuteP90Us: us(p(piTimes, 0.9)),
  ...(only
    ? {}
    : {
        catEchoP50Us: us(p(echoTimes, 0.5)),
        catEchoP90Us: us(p(echoTimes, 0.9)),
        ratioP50: Number((p(piTimes, 0.5) / p(echoTimes, 0.5)).toFixed(2)),
        simulatorDirectP50Us: us(p(directTimes, 0.5)),
        simulatorDirectRatioToEchoP50: Number((p(directTimes, 0.5) / p(echoTimes, 0.5)).toFixed(2)),
      }),
};
if (parts) {
  for (const [name, values] of Object.entries(parts)) report[`${name}P50Us`] = us(p(values.slice(50), 0.5));
}
console.log(JSON.stringify(report));
