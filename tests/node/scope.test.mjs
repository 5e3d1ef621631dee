// PKG-7 (scope): in a whole own-client session (session start with the daemon launcher, first
// turn with the session hook, an enforced call, a graph tool call, an edit with its diff,
// shutdown), the extension runs no executable but the configured binary and opens no network
// connection. A child Node runs the session under strace, which sees every process the addon
// spawns (execve) and every socket connect, whoever makes them.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { FAKE, PI_VERSION } from "./lib/pi.mjs";

const session = `
  import { writeFileSync } from "node:fs";
  import { join } from "node:path";
  import { start, workspace, until } from ${JSON.stringify(new URL("./lib/pi.mjs", import.meta.url).href)};
  const ws = workspace();
  const s = await start(ws, { env: { GORTEX_NATIVE_MCP: "0" } });
  await s.sessionStart();
  await s.beforeAgentStart("where is f");
  await s.toolCall("read", { path: "a.go" });
  await s.execute("search", { operation: "symbols", query: "f" });
  const file = join(ws.cwd, "e.txt");
  writeFileSync(file, "x\\n");
  const edit = await s.execute("gortex_edit", { operation: "file", target: { file }, match: "x", replacement: "y" });
  if (!edit.details?.diff) process.exit(3);
  if (!(await until(() => s.ws.log().some((r) => r.ev === "daemon_start"), 10000))) process.exit(4);
  await s.shutdown();
`;

/**
 * The paths of the successful execs, in order: `<pid> execve("<path>", ...) = 0`. With `-f`,
 * strace splits a call that another process interrupts into `<pid> execve("<path>", ...
 * <unfinished ...>` and a later `<pid> <... execve resumed>) = 0`; both forms count.
 */
function successfulExecs(lines) {
  const unfinished = new Map();
  const execs = [];
  for (const line of lines) {
    const call = line.match(/^(\d+) +execve\("([^"]*)"/);
    if (call && / = 0$/.test(line)) execs.push(call[2]);
    else if (call && /<unfinished \.\.\.>$/.test(line)) unfinished.set(call[1], call[2]);
    const resumed = line.match(/^(\d+) +<\.\.\. execve resumed>.* = 0$/);
    if (resumed && unfinished.has(resumed[1])) execs.push(unfinished.get(resumed[1]));
  }
  return execs;
}

describe(`scope on Pi ${PI_VERSION}`, () => {
  test("PKG-7: a session execs only the configured binary and connects to no network address", () => {
    const log = join(mkdtempSync(join(tmpdir(), "pi-gortex-strace-")), "trace");
    const run = spawnSync(
      "strace",
      ["-f", "-qq", "-e", "trace=execve,connect", "-o", log, process.execPath, "--input-type=module", "-e", session],
      {
        timeout: 120000,
        encoding: "utf8",
      },
    );
    assert.equal(run.error, undefined, `strace must be installed (make tools): ${run.error}`);
    assert.equal(run.status, 0, run.stderr);
    const lines = readFileSync(log, "utf8").split("\n");
    const execs = successfulExecs(lines);
    assert.equal(realpathSync(execs[0]), realpathSync(process.execPath), "the first exec is the session's Node");
    const others = execs.slice(1).map((path) => realpathSync(path));
    assert.ok(others.length >= 4, `mcp, daemon launcher and hooks were spawned: ${JSON.stringify(others)}`);
    assert.deepEqual([...new Set(others)], [realpathSync(FAKE)], "every spawned executable is the configured bin");
    const network = lines.filter((l) => / connect\(/.test(l) && /sa_family=AF_INET6?\b/.test(l));
    assert.deepEqual(network, [], "no network connection");
  });
});
