//! rpc_steps.mjs - a Pi RPC session driven one command at a time, so a test can look at the
//! world (live children, the fake's log) between commands; plus the live `gortex mcp` children
//! fake-gortex logged. Used by lifecycle_leaks.test.mjs and panic_boundary.test.mjs. Test-only
//! helper extensions are loaded next to the extension under test with `-e`.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { NODE22, REPO } from "./hosts.mjs";
import { collect, KILL_AFTER_MS, parseJsonl, piArgs, runEnv } from "./run.mjs";

/** Gives RPC mode `/e2e-reload` (`ctx.reload()`) and `/e2e-panic` (the addon's test-only panic). */
export const HELPER_EXTENSION = join(REPO, "tests/e2e/rpc-helpers.ts");

/** Pids of `mcp` processes the fake logged that are still running (a zombie counts as gone). */
export function liveMcpChildren(box) {
  let records = [];
  try {
    records = parseJsonl(readFileSync(box.fakeLog, "utf8"));
  } catch {
    return [];
  }
  const pids = new Set(records.filter((r) => r.ev === "start" && r.verb === "mcp").map((r) => r.pid));
  return [...pids].filter((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
    } catch {
      return false;
    }
  });
}

/** Polls until `check(count)` holds (a stopped child gets its 2 s kill grace); returns the pids. */
export async function settleCount(box, check, ms = 6000) {
  const deadline = Date.now() + ms;
  let live = liveMcpChildren(box);
  while (!check(live.length) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    live = liveMcpChildren(box);
  }
  return live;
}

/**
 * Starts `pi --mode rpc` in `box` with the helper extension. `send(command)` resolves with the
 * command's response (a prompt: once the agent settled, unless `{settle:false}`, as for a slash
 * command that starts no turn); `notifications` collects `notify` requests, `statuses` the
 * `setStatus` ones (footer status); `quit()` closes stdin
 * and resolves with the `runPi`-shaped result.
 */
export function startRpc(box, { script = [], env = {} } = {}) {
  const args = ["-e", HELPER_EXTENSION];
  const child = spawn(NODE22, [...piArgs(box, { args, session: true }), "--mode", "rpc"], {
    cwd: box.work,
    env: runEnv(box, { script, env }),
    stdio: ["pipe", "pipe", "pipe"],
  });
  const err = [];
  const notifications = [];
  const statuses = [];
  let stdout = "";
  let pending = Buffer.alloc(0);
  let waiter = null;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill("SIGKILL");
  }, KILL_AFTER_MS);
  child.stdout.on("data", (chunk) => {
    stdout += chunk.toString("utf8");
    pending = Buffer.concat([pending, chunk]);
    let nl = pending.indexOf(0x0a);
    while (nl !== -1) {
      const line = pending.subarray(0, nl).toString("utf8").replace(/\r$/, "");
      pending = pending.subarray(nl + 1);
      nl = pending.indexOf(0x0a);
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        continue;
      }
      if (message.type === "extension_ui_request") {
        if (message.method === "notify") notifications.push(message);
        else if (message.method === "setStatus") statuses.push(message);
        else if (["select", "confirm", "input", "editor"].includes(message.method)) {
          child.stdin.write(`${JSON.stringify({ type: "extension_ui_response", id: message.id, cancelled: true })}\n`);
        }
      }
      if (waiter?.(message)) waiter = null;
    }
  });
  child.stderr.on("data", (c) => err.push(c));
  const closed = new Promise((resolve) =>
    child.on("close", (status, signal) => {
      clearTimeout(timer);
      resolve({ pid: child.pid, status, signal, timedOut, stdout, stderr: Buffer.concat(err).toString("utf8") });
    }),
  );
  let n = 0;
  return {
    notifications,
    statuses,
    send(command, { settle = command.type === "prompt" } = {}) {
      const id = `c${++n}`;
      const done = new Promise((resolve) => {
        let response;
        waiter = (m) => {
          if (m.type === "response" && m.id === id) {
            response = m;
            if (!settle || m.success === false) return (resolve(m), true);
          }
          if (settle && m.type === "agent_settled") return (resolve(response), true);
          return false;
        };
      });
      child.stdin.write(`${JSON.stringify({ id, ...command })}\n`);
      return done;
    },
    async quit() {
      child.stdin.end();
      return collect(box, await closed);
    },
  };
}
