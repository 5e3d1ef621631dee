// Own-client tool call seen from JavaScript (issue 16 item 3): Pi's `execute` of a registered
// gortex tool (ExtensionRunner -> glue -> addon -> gortex mcp simulator -> back), p50 per call,
// against a Node pipe echo to `cat` of a line of the same size in the same run, interleaved in
// blocks. Prints a JSON report. Enforcement is off and the call is not an edit, so only the
// call path itself is measured.
//
// Run: FAKE_GORTEX_BIN=target/release/fake-gortex $NODE22 tests/node/bench/call_path.mjs
// Knobs: BENCH_CALLS (default 2000), BENCH_BLOCK (default 100). BENCH_CPU_PROF=1 runs only the
// Pi execute loop (for --cpu-prof).
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { start, workspace } from "../lib/pi.mjs";

const CALLS = Number(process.env.BENCH_CALLS ?? 2000);
const BLOCK = Number(process.env.BENCH_BLOCK ?? 100);
const ARGS = { operation: "symbols", query: "Hello" };

function p(values, q) {
  const xs = [...values].sort((a, b) => a - b);
  return xs[Math.min(xs.length - 1, Math.floor(xs.length * q))];
}

/** One line in, the same line back: the cheapest round trip through a child's pipes. */
function catEcho() {
  const child = spawn("cat", [], { stdio: ["pipe", "pipe", "ignore"] });
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

const ws = workspace({});
const session = await start(ws, { env: { GORTEX_NATIVE_MCP: "0", GORTEX_ENFORCE: "0" } });
await session.sessionStart();
if (!session.toolNames().includes("search")) throw new Error(`own client not started: ${session.toolNames()}`);
const echo = catEcho();
const piTimes = [];
const echoTimes = [];
const only = process.env.BENCH_CPU_PROF === "1";
// Warm-up of both paths (JIT, first respawn-free calls).
for (let i = 0; i < 50; i++) {
  await session.execute("search", ARGS);
  await echo.call();
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
}
echo.stop();
await session.shutdown();
const us = (ms) => Math.round(ms * 1000);
const report = {
  calls: CALLS,
  piExecuteP50Us: us(p(piTimes, 0.5)),
  piExecuteP90Us: us(p(piTimes, 0.9)),
  ...(only ? {} : { catEchoP50Us: us(p(echoTimes, 0.5)), catEchoP90Us: us(p(echoTimes, 0.9)), ratioP50: Number((p(piTimes, 0.5) / p(echoTimes, 0.5)).toFixed(2)) }),
};
console.log(JSON.stringify(report));
