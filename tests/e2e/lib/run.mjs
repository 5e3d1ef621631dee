//! run.mjs - runs the real `pi` CLI headless in an isolated sandbox (pi-host.md E2E-2, E2E-5,
//! E2E-6) and returns everything a test asserts on.
//!
//! Each run gets a fresh temp dir holding `agent/` (PI_CODING_AGENT_DIR) and `work/` (cwd), no
//! network (PI_OFFLINE), the scripted faux model, and fake-gortex as `GORTEX_BIN`. The 60 s kill
//! is the failure signal for a hang; wall time is never asserted. Runs are asynchronous so the
//! suite can run independent scenarios concurrently.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { FAKE_GORTEX, FAUX_MODEL, NODE22, PI, REPO } from "./hosts.mjs";
import { installInto, npmPrefix } from "./install.mjs";

export const KILL_AFTER_MS = 60_000;

// Sandboxes are removed when the test process ends well, and kept for inspection after a failure
// (or always with PI_E2E_KEEP=1); each failure message names its sandbox.
const sandboxes = [];
process.on("exit", (code) => {
  if (code !== 0 || process.exitCode || process.env.PI_E2E_KEEP === "1") return;
  for (const root of sandboxes) rmSync(root, { recursive: true, force: true });
});

/** Parses JSONL text; a line that is not JSON is kept as `{unparsed: line}` so tests can see it. */
export function parseJsonl(text) {
  return text
    .split("\n")
    .map((line) => line.replace(/\r$/, ""))
    .filter((line) => line.trim() !== "")
    .map((line) => {
      try {
        return JSON.parse(line);
      } catch {
        return { unparsed: line };
      }
    });
}

function readJsonl(path) {
  return existsSync(path) ? parseJsonl(readFileSync(path, "utf8")) : [];
}

/**
 * Builds the sandbox for one run.
 * - `gortex`: install the packed extension into the agent dir (default true);
 * - `settings`: merged into `<agent>/settings.json`;
 * - `files` / `agentFiles`: relative path -> content, written under `work/` / `agent/`;
 * - `scenario`: fake-gortex scenario object (FAKE-2), written to a file;
 * - `upstream`: the hook channel is Gortex's own hook handler (see `UPSTREAM_HOOK`), `work/` is a
 *   git repository, and a daemon socket tracks it for the run (`{daemon: false}`: none listens);
 * - `setup(box)`: last step, for content that depends on the sandbox's own paths.
 */
export function sandbox({
  pi = "1.6.0",
  gortex = true,
  settings,
  files = {},
  agentFiles = {},
  scenario,
  upstream,
  setup,
} = {}) {
  const root = mkdtempSync(join(tmpdir(), "pi-e2e-"));
  sandboxes.push(root);
  const agent = join(root, "agent");
  const work = join(root, "work");
  mkdirSync(agent, { recursive: true });
  mkdirSync(work, { recursive: true });
  if (gortex) installInto(agent, pi);
  if (settings) {
    const path = join(agent, "settings.json");
    const base = existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : {};
    writeFileSync(path, JSON.stringify({ ...base, ...settings }, null, 2));
  }
  const write = (base, rel, content) => {
    const path = join(base, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  };
  for (const [rel, content] of Object.entries(files)) write(work, rel, content);
  for (const [rel, content] of Object.entries(agentFiles)) write(agent, rel, content);
  const scenarioPath = join(root, "scenario.json");
  if (scenario) writeFileSync(scenarioPath, JSON.stringify(scenario));
  const box = {
    pi,
    root,
    agent,
    work,
    scenarioPath: scenario ? scenarioPath : undefined,
    modelLog: join(root, "pi-e2e.jsonl"),
    fakeLog: join(root, "fake-gortex.jsonl"),
    sessions: join(root, "sessions"),
  };
  if (upstream) {
    mkdirSync(join(work, ".git"));
    mkdirSync(join(root, "home"));
    box.upstream = { daemon: upstream.daemon !== false };
  }
  setup?.(box);
  return box;
}

/** The environment of a run: isolation variables, the script, the fake, then `env` overrides. */
export function runEnv(box, { script = [], env = {} } = {}) {
  const base = { ...process.env };
  // A developer's own Gortex settings must not leak into the sandbox.
  for (const key of Object.keys(base))
    if (key.startsWith("GORTEX_") || key.startsWith("FAKE_GORTEX_")) delete base[key];
  const merged = {
    ...base,
    PI_CODING_AGENT_DIR: box.agent,
    PI_OFFLINE: "1",
    PI_SKIP_VERSION_CHECK: "1",
    PI_TELEMETRY: "0",
    npm_config_prefix: npmPrefix(box.agent),
    PI_E2E_SCRIPT: JSON.stringify(script),
    PI_E2E_LOG: box.modelLog,
    GORTEX_BIN: FAKE_GORTEX,
    FAKE_GORTEX_LOG: box.fakeLog,
    ...(box.scenarioPath ? { FAKE_GORTEX_SCENARIO: box.scenarioPath } : {}),
    ...(box.upstream ? upstreamEnv(box) : {}),
    // The suite's own knob: the hook-channel suites run with the warm spare on and off.
    ...(process.env.GORTEX_HOOK_PRESPAWN ? { GORTEX_HOOK_PRESPAWN: process.env.GORTEX_HOOK_PRESPAWN } : {}),
    ...env,
  };
  // `env: {NAME: undefined}` removes a variable (e.g. GORTEX_BIN for the sidecar scenarios).
  for (const [key, value] of Object.entries(merged)) if (value === undefined || value === null) delete merged[key];
  return merged;
}

/**
 * Gortex's own hook handler, built by `make gortex-hook` from the upstream sources. fake-gortex
 * relays each hook run to it (logging the envelope and its decision as a `hook` record, after an
 * `upstream_answered` record once the handler exited with its answer); the handler asks
 * fake-gortex's daemon socket side for its facts.
 */
export const UPSTREAM_HOOK = process.env.GORTEX_UPSTREAM_HOOK || join(REPO, "target/gortex-upstream/bin/gortex-hook");

/** The adopted build as a twin of the handler under test (tests/node/lib/upstream.mjs's TWIN_HOOK). */
export const TWIN_HOOK =
  process.env.GORTEX_HOOK_ADOPTED && process.env.GORTEX_HOOK_ADOPTED !== UPSTREAM_HOOK
    ? process.env.GORTEX_HOOK_ADOPTED
    : "";

function upstreamEnv(box) {
  return {
    FAKE_GORTEX_UPSTREAM_HOOK: UPSTREAM_HOOK,
    FAKE_GORTEX_HOOK_HOME: join(box.root, "home"),
    GORTEX_DAEMON_SOCKET: join(box.root, "d.sock"),
    ...(TWIN_HOOK ? { FAKE_GORTEX_UPSTREAM_TWIN: TWIN_HOOK } : {}),
  };
}

/**
 * Asserts that Gortex's own handler answered every hook run of `run`: a run is a hook process that
 * logged the envelope it was sent (a `hook` record), and the relay writes `upstream_answered`
 * before it only once the handler exited with its answer. `count` is the number of hook runs the
 * scenario makes; the check never passes on a log without hook runs. With TWIN_HOOK, every run's
 * envelope was also decided by the adopted build, identically.
 */
export function assertAnsweredByUpstream(run, count) {
  const log = run.fake.filter((r) => r.verb === "hook");
  const runs = log.filter((r) => r.ev === "hook");
  assert.ok(runs.length >= 1, `no hook run was logged\n${describeRun(run)}`);
  if (count !== undefined) assert.equal(runs.length, count, `hook runs\n${describeRun(run)}`);
  // With the spare off (GORTEX_HOOK_PRESPAWN=0) every hook process is spawned for its call: none waits unfed.
  if (process.env.GORTEX_HOOK_PRESPAWN === "0") {
    const fed = new Set(log.filter((r) => r.ev === "input" && r.bytes > 0).map((r) => r.pid));
    const unfed = log.filter((r) => r.ev === "start" && !fed.has(r.pid)).map((r) => r.pid);
    assert.deepEqual(unfed, [], "hook processes started with no envelope while the spare is off");
  }
  for (const { pid } of runs) {
    const own = log.filter((r) => r.pid === pid);
    assert.equal(
      own.filter((r) => r.ev === "upstream_answered").length,
      own.filter((r) => r.ev === "hook").length,
      `hook run ${pid} was not answered by Gortex's own handler: ${JSON.stringify(own)}\n${describeRun(run)}`,
    );
    if (TWIN_HOOK) {
      const twins = own.filter((r) => r.ev === "upstream_twin");
      assert.equal(
        twins.length,
        own.filter((r) => r.ev === "hook").length,
        `hook run ${pid}: the twin build was not asked`,
      );
      for (const twin of twins) {
        assert.ok(twin.same, `hook run ${pid}: the adopted build decided otherwise: ${JSON.stringify(own)}`);
      }
    }
  }
}

/**
 * Starts `fake-gortex daemon serve` in `work/` for an upstream sandbox that wants a daemon (its
 * own log, so the run's leak check does not count it); resolves to the function that stops it.
 */
export async function startDaemon(box, env) {
  if (!box.upstream?.daemon) return async () => {};
  if (!existsSync(UPSTREAM_HOOK)) throw new Error(`${UPSTREAM_HOOK} is missing: run \`make gortex-hook\``);
  const child = spawn(FAKE_GORTEX, ["daemon", "serve"], {
    cwd: box.work,
    env: { ...env, FAKE_GORTEX_LOG: join(box.root, "daemon.jsonl") },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exited = new Promise((resolve) => child.on("exit", resolve));
  await new Promise((resolve, reject) => {
    child.stdout.once("data", resolve);
    child.once("exit", (code) => reject(new Error(`daemon serve exited with ${code}`)));
  });
  return async () => {
    child.stdin.end();
    await exited;
  };
}

/** Pi's argv before the mode-specific part: the faux model, the model flag, session handling. */
export function piArgs(box, { args = [], session = false } = {}) {
  return [
    PI[box.pi].cli,
    "-e",
    FAUX_MODEL,
    "--model",
    "faux/faux-1",
    ...(session ? ["--session-dir", box.sessions] : ["--no-session"]),
    ...args,
  ];
}

/**
 * Spawns a process, collects its output, kills it at `KILL_AFTER_MS` (reported as `timedOut`).
 * `watch(pid)`, if given, starts a measurement when the child starts and returns the function that
 * ends it; its value is the result's `measured` (the trust-boundary rows read peak RSS this way).
 */
export function spawnCollect(command, argv, { cwd, env, input, watch }) {
  return new Promise((resolve) => {
    const child = spawn(command, argv, { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    const stopWatch = watch?.(child.pid);
    const out = [];
    const err = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, KILL_AFTER_MS);
    child.stdout.on("data", (chunk) => out.push(chunk));
    child.stderr.on("data", (chunk) => err.push(chunk));
    child.on("error", (error) => err.push(Buffer.from(String(error))));
    child.on("close", (status, signal) => {
      clearTimeout(timer);
      resolve({
        pid: child.pid,
        status,
        signal,
        timedOut,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
        ...(stopWatch ? { measured: stopWatch() } : {}),
      });
    });
    child.stdin.end(input ?? "");
  });
}

/**
 * What a test reads after a run: process outcome plus the two logs and any session file, and the
 * script the model was given (assertClean checks it was played to the end).
 */
export function collect(box, result, script = []) {
  const events = readJsonl(box.modelLog);
  const fake = readJsonl(box.fakeLog);
  let session = [];
  if (existsSync(box.sessions)) {
    const files = readdirSync(box.sessions, { recursive: true }).filter((f) => String(f).endsWith(".jsonl"));
    session = files.flatMap((f) => readJsonl(join(box.sessions, String(f))));
  }
  return { ...result, box, script, events, fake, session, models: events.filter((e) => e.ev === "model") };
}

/**
 * Runs Pi once in print (`mode: "print"`) or JSON (`mode: "json"`) mode with `prompt`.
 * Returns `{status, signal, timedOut, stdout, stderr, events, models, fake, session, json, box}`.
 */
export async function runPi({ mode = "print", prompt = "go", script, env, args, session, ...boxOptions } = {}) {
  const box = sandbox(boxOptions);
  const argv = [...piArgs(box, { args, session }), ...(mode === "json" ? ["--mode", "json", prompt] : ["-p", prompt])];
  const merged = runEnv(box, { script, env });
  const stopDaemon = await startDaemon(box, merged);
  const result = await spawnCollect(NODE22, argv, { cwd: box.work, env: merged }).finally(stopDaemon);
  const collected = collect(box, result, script);
  if (mode === "json") collected.json = parseJsonl(result.stdout);
  return collected;
}

/** The REPORT line the faux model wrote for a `{"report":true}` step, parsed. */
export function reportOf(text) {
  const line = text.split("\n").find((l) => l.startsWith("REPORT "));
  return line ? JSON.parse(line.slice("REPORT ".length)) : undefined;
}

/** The final assistant text of a run in any mode (print stdout, JSON stream, RPC last text). */
export function finalText(run) {
  if (run.lastText !== undefined) return String(run.lastText ?? "");
  if (run.json) {
    const last = run.json.filter((e) => e.type === "message_end" && e.message?.role === "assistant").at(-1);
    return (last?.message.content ?? [])
      .filter((b) => b.type === "text")
      .map((b) => b.text)
      .join("\n");
  }
  return run.stdout;
}

/** Short description of a run for assertion messages. */
export function describeRun(run) {
  const tail = (s) => (s.length > 1500 ? `…${s.slice(-1500)}` : s);
  return `rc=${run.status} signal=${run.signal} timedOut=${run.timedOut}\nstdout:\n${tail(run.stdout)}\nstderr:\n${tail(run.stderr)}\nsandbox: ${run.box.root}`;
}
