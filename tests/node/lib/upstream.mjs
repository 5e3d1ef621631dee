//! upstream.mjs - a workspace whose hook channel is Gortex's own hook handler (built by
//! `make gortex-hook` from the upstream sources into target/) asking fake-gortex's daemon
//! socket side (`daemon serve`) for its facts. fake-gortex still serves MCP and relays the hook
//! run (FAKE_GORTEX_UPSTREAM_HOOK), logging the envelope; the decision is the upstream one.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { FAKE, ROOT, workspace } from "./pi.mjs";

export const UPSTREAM_HOOK = process.env.GORTEX_UPSTREAM_HOOK ?? join(ROOT, "target/gortex-upstream/bin/gortex-hook");

/**
 * Gortex's hook built on the generated Go types (`make gortex-hook-adopted`), when the make run
 * names it and it is not the build under test: the relay sends it every envelope too, and
 * assertAnsweredByUpstream requires its answers to be the same bytes.
 */
export const TWIN_HOOK =
  process.env.GORTEX_HOOK_ADOPTED && process.env.GORTEX_HOOK_ADOPTED !== UPSTREAM_HOOK
    ? process.env.GORTEX_HOOK_ADOPTED
    : "";

/** Project files of the default fixture: two declared symbols in src/app.go, none in src/empty.go. */
export const FILES = {
  "src/app.go": "package app\n\nfunc renderWidget() {}\n\nfunc Serve() {}\n",
  "src/empty.go": "package app\n",
  "README.md": "# app\n",
};

/**
 * A workspace (see pi.mjs) that is a git repository holding `files`, with the upstream hook,
 * its own HOME, and, unless `daemon` is false, a running daemon socket that tracks it.
 * `await ws.stopDaemon()` ends the daemon (it also ends when this process exits).
 */
export async function upstreamWorkspace({ files = FILES, daemon = true, ...options } = {}) {
  if (!existsSync(UPSTREAM_HOOK)) throw new Error(`${UPSTREAM_HOOK} is missing: run \`make gortex-hook\``);
  const ws = workspace(options);
  mkdirSync(join(ws.cwd, ".git"));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(ws.cwd, rel)), { recursive: true });
    writeFileSync(join(ws.cwd, rel), text);
  }
  ws.env.FAKE_GORTEX_UPSTREAM_HOOK = UPSTREAM_HOOK;
  if (TWIN_HOOK) ws.env.FAKE_GORTEX_UPSTREAM_TWIN = TWIN_HOOK;
  ws.env.FAKE_GORTEX_HOOK_HOME = join(ws.dir, "home");
  ws.env.GORTEX_DAEMON_SOCKET = join(ws.dir, "d.sock");
  mkdirSync(ws.env.FAKE_GORTEX_HOOK_HOME);
  ws.stopDaemon = async () => {};
  if (daemon) ws.stopDaemon = await startDaemon(ws);
  return ws;
}

/**
 * Asserts that Gortex's own handler answered every hook run logged in `ws` (a workspace, or a
 * session with one): a run is a hook process that logged the envelope it was sent (a `hook`
 * record), and the relay writes `upstream_answered` before it only once the handler exited with
 * its answer (`upstream_failed` otherwise). `count` is the number of hook runs the test made; the
 * check never passes on a log without hook runs. With TWIN_HOOK, every run's envelope was also
 * decided by the adopted build, identically.
 */
export function assertAnsweredByUpstream(ws, count) {
  const log = (ws.ws ?? ws).log().filter((r) => r.verb === "hook");
  const runs = log.filter((r) => r.ev === "hook");
  assert.ok(runs.length >= 1, "no hook run was logged");
  if (count !== undefined) assert.equal(runs.length, count, "hook runs");
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
      `hook run ${pid} was not answered by Gortex's own handler: ${JSON.stringify(own)}`,
    );
    if (TWIN_HOOK) {
      const twins = own.filter((r) => r.ev === "upstream_twin");
      assert.equal(
        twins.length,
        own.filter((r) => r.ev === "hook").length,
        `hook run ${pid}: the twin build was not asked`,
      );
      for (const twin of twins)
        assert.ok(twin.same, `hook run ${pid}: the adopted build decided otherwise: ${JSON.stringify(own)}`);
    }
  }
}

/** Starts `fake-gortex daemon serve` in the workspace; resolves once it listens. */
async function startDaemon(ws) {
  // An earlier test's variables may still be set in this process: the daemon sees only this workspace's.
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("FAKE_GORTEX_") && !name.startsWith("GORTEX_")),
  );
  const child = spawn(FAKE, ["daemon", "serve"], {
    cwd: ws.cwd,
    env: { ...inherited, ...ws.env },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exited = new Promise((resolve) => child.on("exit", resolve));
  await new Promise((resolve, reject) => {
    child.stdout.once("data", resolve);
    child.once("exit", (code) => reject(new Error(`daemon serve exited with ${code}`)));
  });
  child.unref();
  child.stdout.unref?.();
  child.stdin.unref?.();
  return async () => {
    // Held by the test while it stops: the daemon is unreferenced so a failing test cannot hang on it.
    child.ref();
    child.stdin.end();
    await exited;
  };
}
