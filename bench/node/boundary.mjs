// Boundary benchmark: event-loop delay while tool calls are enforced through the
// addon's async hook, against the 0.4.0 approach (execFileSync of the same hook), and the cost
// of one tool_call decision through the addon with enforcement off. Prints a JSON report.
//
// Run: $NODE22 bench/node/boundary.mjs   (needs fake-gortex and the built addon)
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { FAKE, PKG_DIR, start, workspace } from "../../tests/node/lib/pi.mjs";

const CALLS = Number(process.env.BENCH_CALLS ?? 200);
const HOOK_MS = 20;
const DECISIONS = Number(process.env.BENCH_DECISIONS ?? 200000);

function histogramReport(histogram, wallMs, calls) {
  return {
    loopDelayP50Ms: histogram.percentile(50) / 1e6,
    loopDelayP99Ms: histogram.percentile(99) / 1e6,
    loopDelayMaxMs: histogram.max / 1e6,
    wallPerCallMs: wallMs / calls,
  };
}

/** Keeps the loop busy with a 1 ms ticker, as a TUI's render timers would. */
function ticker() {
  const timer = setInterval(() => {}, 1);
  return () => clearInterval(timer);
}

async function enforcedThroughAddon() {
  const ws = workspace({ scenario: { faults: [{ kind: "hook_timeout", delay_ms: HOOK_MS }] } });
  const s = await start(ws, { env: { GORTEX_NATIVE_MCP: "0" } });
  await s.sessionStart();
  await s.toolCall("read", { path: "warmup.go" });
  const stop = ticker();
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  const began = performance.now();
  for (let i = 0; i < CALLS; i += 1) await s.toolCall("read", { path: `f${i}.go` });
  const wall = performance.now() - began;
  histogram.disable();
  stop();
  await s.shutdown();
  return histogramReport(histogram, wall, CALLS);
}

/** The measurement's own floor: the same loop awaiting a timer of the hook's length. */
async function baseline() {
  const stop = ticker();
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  const began = performance.now();
  for (let i = 0; i < CALLS; i += 1) await new Promise((resolve) => setTimeout(resolve, HOOK_MS));
  const wall = performance.now() - began;
  histogram.disable();
  stop();
  return histogramReport(histogram, wall, CALLS);
}

async function execFileSyncOf040() {
  const ws = workspace({ scenario: { faults: [{ kind: "hook_timeout", delay_ms: HOOK_MS }] } });
  Object.assign(process.env, ws.env);
  const envelope = (i) =>
    JSON.stringify({
      event: "tool_call",
      tool_name: "Read",
      tool_input: { path: `f${i}.go`, file_path: `f${i}.go` },
      cwd: ws.cwd,
      session_id: "",
      is_gortex_tool: false,
    });
  const stop = ticker();
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  const began = performance.now();
  for (let i = 0; i < CALLS; i += 1) {
    execFileSync(FAKE, ["hook", "--agent=pi"], {
      input: envelope(i),
      timeout: 5000,
      stdio: ["pipe", "pipe", "ignore"],
    });
    // Yield once per call like Pi's handler chain does, so the monitor can sample.
    await new Promise((resolve) => setImmediate(resolve));
  }
  const wall = performance.now() - began;
  histogram.disable();
  stop();
  return histogramReport(histogram, wall, CALLS);
}

async function decisionCost() {
  const addonFile = readdirSync(PKG_DIR).find((name) => name.endsWith(".node"));
  const addon = createRequire(join(PKG_DIR, "index.ts"))(`./${addonFile}`);
  const extension = new addon.Extension(new addon.Module());
  // The per-call fast path: decided from the tool's name and ids alone.
  const event = { toolCallId: "call_1", toolName: "read", input: { path: "src/a.go" } };
  // A fresh place function per call, as the glue makes one.
  for (let i = 0; i < 10000; i += 1) extension.toolCall(event, () => ["/w", ""]);
  const began = performance.now();
  for (let i = 0; i < DECISIONS; i += 1) extension.toolCall(event, () => ["/w", ""]);
  const addonUs = ((performance.now() - began) * 1000) / DECISIONS;

  // The same decision through Pi's runner: every handler the extension registers for
  // tool_call, with enforcement off (the edit claims only).
  const ws = workspace();
  const s = await start(ws, { env: { GORTEX_NATIVE_MCP: "0", GORTEX_ENFORCE: "0" } });
  await s.sessionStart();
  const runnerCalls = 20000;
  for (let i = 0; i < 2000; i += 1) await s.toolCall("read", { path: "src/a.go" }, { toolCallId: "w" });
  const began2 = performance.now();
  for (let i = 0; i < runnerCalls; i += 1) await s.toolCall("read", { path: "src/a.go" }, { toolCallId: "r" });
  const runnerUs = ((performance.now() - began2) * 1000) / runnerCalls;
  await s.shutdown();
  return { addonWatchToolCallUs: addonUs, throughPiRunnerUs: runnerUs };
}

const report = {
  node: process.version,
  calls: CALLS,
  hookMs: HOOK_MS,
  baselineTimerOnly: await baseline(),
  enforcedThroughAddon: await enforcedThroughAddon(),
  execFileSync040: await execFileSyncOf040(),
  decisionEnforcementOff: await decisionCost(),
};
report.goals = {
  loopDelayP99Under2Ms: report.enforcedThroughAddon.loopDelayP99Ms < 2,
  decisionUnder5Us: report.decisionEnforcementOff.addonWatchToolCallUs < 5,
};
console.log(JSON.stringify(report, null, 2));
