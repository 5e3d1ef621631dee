//! lib.mjs - what the benchmark scripts share: the configurations under comparison (Pi version,
//! extension or not, server in Pi's own mcp.json or not, environment), one measured Pi run, and
//! medians. Sandboxes come from the e2e suite (tests/e2e/lib/run.mjs), so a benchmark run is set
//! up exactly as a test run: isolated agent dir, no network, the packed extension installed the
//! way a user installs it. The simulator is fake-gortex built in release mode.
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { NODE22, PI, REPO, TARBALL } from "../../tests/e2e/lib/hosts.mjs";
import { runEnv, sandbox } from "../../tests/e2e/lib/run.mjs";
import { SOURCE_FILES } from "../../tests/e2e/lib/workspace.mjs";

export const FAKE_RELEASE = process.env.BENCH_FAKE_GORTEX || join(REPO, "target/release/fake-gortex");
const PRELOAD = pathToFileURL(join(REPO, "bench/node/preload.mjs")).href;
const FAUX_BENCH = join(REPO, "bench/node/faux-bench.ts");
const NOOP_HANDLERS = join(REPO, "bench/node/noop-handlers.ts");
const SDK_CLIENT = join(REPO, "tests/sdk-peer/pi-client.mjs");

const NATIVE_TOOLS = { search: "mcp__gortex__search", edit: "mcp__gortex__edit", read: "read" };
const OWN_TOOLS = { search: "search", edit: "gortex_edit", read: "read" };
const SLOW_HOOK = { faults: [{ kind: "hook_timeout", delay_ms: 20 }] };

/** The server entry a user would put in Pi's own mcp.json: same command, exposure and timeout. */
function mcpJson() {
  return { mcpServers: { gortex: { command: FAKE_RELEASE, args: ["mcp"], exposure: "direct", timeout: 600 } } };
}

/**
 * Every configuration a benchmark can run. `base` names the configuration the per-call overhead
 * is measured against (same Pi version): Pi's own MCP with the same server where the version has
 * one, else Pi alone.
 */
export const CONFIGS = {
  "1.6.0 Pi alone": { pi: "1.6.0", ext: false, tools: NATIVE_TOOLS },
  "1.6.0 mcp.json": { pi: "1.6.0", ext: false, mcpJson: true, tools: NATIVE_TOOLS },
  // Pi's own cost of dispatching the edit claims' per-call events to an extension that does nothing.
  "1.6.0 mcp.json + no-op handlers": {
    pi: "1.6.0",
    ext: false,
    mcpJson: true,
    extensions: [NOOP_HANDLERS],
    tools: NATIVE_TOOLS,
    base: "1.6.0 mcp.json",
  },
  // Pi's own cost of one turn_end handler that does nothing: with one, Pi builds the session's
  // context around every turn (decision 006; the edit claims no longer subscribe to turn_end).
  "1.6.0 mcp.json + no-op turn_end": {
    pi: "1.6.0",
    ext: false,
    mcpJson: true,
    extensions: [NOOP_HANDLERS],
    env: { PI_BENCH_NOOP_EVENTS: "turn_end" },
    tools: NATIVE_TOOLS,
    base: "1.6.0 mcp.json",
  },
  "1.6.0 native, enforce off": {
    pi: "1.6.0",
    ext: true,
    env: { GORTEX_ENFORCE: "0" },
    tools: NATIVE_TOOLS,
    base: "1.6.0 mcp.json",
  },
  "1.6.0 native, enforce on": { pi: "1.6.0", ext: true, tools: NATIVE_TOOLS, base: "1.6.0 mcp.json" },
  "1.6.0 native, slow hook 20 ms": {
    pi: "1.6.0",
    ext: true,
    scenario: SLOW_HOOK,
    tools: NATIVE_TOOLS,
    base: "1.6.0 mcp.json",
  },
  "1.6.0 own, enforce off": {
    pi: "1.6.0",
    ext: true,
    env: { GORTEX_NATIVE_MCP: "0", GORTEX_ENFORCE: "0" },
    tools: OWN_TOOLS,
    base: "1.6.0 mcp.json",
  },
  "1.6.0 own, enforce on": {
    pi: "1.6.0",
    ext: true,
    env: { GORTEX_NATIVE_MCP: "0" },
    tools: OWN_TOOLS,
    base: "1.6.0 mcp.json",
  },
  "0.87.1 Pi alone": { pi: "0.87.1", ext: false, tools: OWN_TOOLS },
  // 0.87.1 has no built-in MCP: the same server through a minimal extension on the official MCP
  // SDK (tests/sdk-peer/pi-client.mjs), so the session holds the same results as with ours.
  "0.87.1 SDK client": {
    pi: "0.87.1",
    ext: false,
    extensions: [SDK_CLIENT],
    env: { PI_BENCH_SDK_SERVER: FAKE_RELEASE },
    tools: OWN_TOOLS,
    base: "0.87.1 Pi alone",
  },
  "0.87.1 Pi alone + no-op turn_end": {
    pi: "0.87.1",
    ext: false,
    extensions: [NOOP_HANDLERS],
    env: { PI_BENCH_NOOP_EVENTS: "turn_end" },
    tools: OWN_TOOLS,
    base: "0.87.1 Pi alone",
  },
  "0.87.1 own, enforce off": {
    pi: "0.87.1",
    ext: true,
    env: { GORTEX_ENFORCE: "0" },
    tools: OWN_TOOLS,
    base: "0.87.1 Pi alone",
    peer: "0.87.1 SDK client",
  },
  "0.87.1 own, enforce on": {
    pi: "0.87.1",
    ext: true,
    tools: OWN_TOOLS,
    base: "0.87.1 Pi alone",
    peer: "0.87.1 SDK client",
  },
  "0.87.1 own, slow hook 20 ms": {
    pi: "0.87.1",
    ext: true,
    scenario: SLOW_HOOK,
    tools: OWN_TOOLS,
    base: "0.87.1 Pi alone",
  },
};

/**
 * Before and after in one run: with `BENCH_BEFORE_TGZ` naming a tarball packed from an
 * older commit (`npm pack` of its bindings/node with its release addon), each configuration of
 * `BEFORE_OF` gets a twin `<name> (before)` whose sandbox holds that package in place of the
 * installed target/pi-gortex.tgz. Everything else (Pi, simulator, baseline) is shared.
 */
export const BEFORE_OF = [
  "1.6.0 native, enforce off",
  "1.6.0 native, enforce on",
  "1.6.0 own, enforce on",
  "0.87.1 own, enforce off",
  "0.87.1 own, enforce on",
];
const BEFORE_TGZ = process.env.BENCH_BEFORE_TGZ;
if (BEFORE_TGZ) {
  const unpacked = mkdtempSync(join(tmpdir(), "pi-gortex-before-"));
  const untar = spawnSync("/bin/tar", ["-xzf", BEFORE_TGZ, "-C", unpacked], { encoding: "utf8" });
  if (untar.status !== 0) throw new Error(`cannot unpack ${BEFORE_TGZ}: ${untar.stderr}`);
  const swap = (box) => {
    const installed = join(box.agent, "npm/node_modules/pi-gortex");
    rmSync(installed, { recursive: true, force: true });
    cpSync(join(unpacked, "package"), installed, { recursive: true });
  };
  for (const name of BEFORE_OF) CONFIGS[`${name} (before)`] = { ...CONFIGS[name], setup: swap };
  process.on("exit", () => rmSync(unpacked, { recursive: true, force: true }));
}

/** Fails with a clear message when a build product the benchmark needs is missing. */
export function requireBuilt() {
  const absent = [NODE22, PI["1.6.0"].cli, PI["0.87.1"].cli, FAKE_RELEASE, TARBALL].filter((p) => !existsSync(p));
  if (absent.length)
    throw new Error(`not built: ${absent.join(", ")} (run make pack and cargo build --release -p fake-gortex)`);
}

function parseRecords(path) {
  if (!existsSync(path)) return {};
  const out = {};
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (!line.trim()) continue;
    try {
      const record = JSON.parse(line);
      out[record.ev] = record;
    } catch {
      // ignored: a torn line leaves its figure missing
    }
  }
  return out;
}

// One sandbox per configuration, reused by every run: the installed extension keeps one path,
// as it does for a user, so Pi's jiti loader finds its transpile cache (keyed by file path) warm
// after the first start. BENCH_FRESH=1 gives every run a fresh sandbox (a cold first start).
const boxes = new Map();
function boxFor(name, config) {
  const fresh = process.env.BENCH_FRESH === "1";
  let box = fresh ? undefined : boxes.get(name);
  if (!box) {
    box = sandbox({
      pi: config.pi,
      gortex: config.ext,
      agentFiles: config.mcpJson ? { "mcp.json": mcpJson() } : {},
      scenario: config.scenario,
      setup: config.setup,
    });
    boxes.set(name, box);
  }
  // The session edits main.go: every run starts from the same files.
  for (const [rel, content] of Object.entries(SOURCE_FILES)) writeFileSync(join(box.work, rel), content);
  return box;
}

/**
 * One Pi print run of `calls` tool calls under configuration `name`. Returns wall time (spawn to
 * exit, as a user waits), the session time the model saw (first to last model request), peak RSS
 * of the Pi process and the event-loop delay percentiles during the session.
 */
export function runOnce(name, { calls, mix, extraArgs = [], extraEnv = {} }) {
  const config = CONFIGS[name];
  const box = boxFor(name, config);
  const out = join(box.root, "bench.jsonl");
  rmSync(out, { force: true });
  const env = runEnv(box, {
    env: {
      GORTEX_BIN: FAKE_RELEASE,
      FAKE_GORTEX_LOG: undefined,
      PI_E2E_LOG: undefined,
      PI_BENCH_OUT: out,
      PI_BENCH_CALLS: String(calls),
      PI_BENCH_TOOLS: JSON.stringify(config.tools),
      ...(mix ? { PI_BENCH_MIX: mix } : {}),
      ...(config.env ?? {}),
      ...extraEnv,
    },
  });
  const argv = [
    "--import",
    PRELOAD,
    ...extraArgs,
    PI[config.pi].cli,
    "-e",
    FAUX_BENCH,
    ...(config.extensions ?? []).flatMap((path) => ["-e", path]),
    "--model",
    "faux/faux-1",
    "--no-session",
    "-p",
    "go",
  ];
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(NODE22, argv, { cwd: box.work, env, stdio: ["ignore", "pipe", "pipe"] });
    const stdout = [];
    const stderr = [];
    child.stdout.on("data", (c) => stdout.push(c));
    child.stderr.on("data", (c) => stderr.push(c));
    const timer = setTimeout(() => child.kill("SIGKILL"), 300_000);
    child.on("close", (status) => {
      const wallMs = performance.now() - started;
      clearTimeout(timer);
      const records = parseRecords(out);
      const text = Buffer.concat(stdout).toString();
      const ok = status === 0 && records.done && text.includes("DONE");
      resolve({
        name,
        calls,
        ok,
        wallMs,
        sessionMs: records.done?.sessionMs,
        firstRequestMs: records.first_request?.atMs,
        sessionStartMs: records.session_start?.atMs,
        turnStartMs: records.before_agent_start?.atMs,
        maxRssMiB: records.exit ? records.exit.maxRssKiB / 1024 : undefined,
        cpuMs: records.exit?.cpuMs,
        heapUsedMiB: records.exit?.heapUsedMiB,
        externalMiB: records.exit?.externalMiB,
        eldP99Ms: records.done?.eldP99Ms,
        eldMaxMs: records.done?.eldMaxMs,
        turnMedianMs: records.done?.turnMedianMs,
        retainedHeapMiB: records.done?.retainedHeapMiB,
        error: ok
          ? undefined
          : `rc=${status} ${text.slice(-300)} ${Buffer.concat(stderr).toString().slice(-600)} (${box.root})`,
        box: box.root,
      });
    });
  });
}

export function median(values) {
  const xs = values.filter((v) => typeof v === "number" && Number.isFinite(v)).sort((a, b) => a - b);
  if (!xs.length) return undefined;
  const mid = Math.floor(xs.length / 2);
  return xs.length % 2 ? xs[mid] : (xs[mid - 1] + xs[mid]) / 2;
}

export function fmt(value, digits = 2) {
  return typeof value === "number" && Number.isFinite(value) ? value.toFixed(digits) : "–";
}

/** The per-call spawn-and-wait floor of the hook binary, from the runtime example (see docs/benchmarks.md). */
export function hookFloor(samples = 200) {
  const bin = join(process.env.CARGO_TARGET_DIR || join(REPO, "target"), "release/examples/hook_spawn_floor");
  if (!existsSync(bin)) return undefined;
  const run = spawnSync(bin, [FAKE_RELEASE, String(samples)], { encoding: "utf8", timeout: 120_000 });
  try {
    return JSON.parse(run.stdout);
  } catch {
    return undefined;
  }
}

/** One uncounted start per configuration: installs its sandbox and fills jiti's transpile cache. */
export async function warmUp(names) {
  for (const name of names) {
    const sample = await runOnce(name, { calls: 0 });
    if (!sample.ok) throw new Error(`warm-up of ${name} failed: ${sample.error}`);
  }
}
