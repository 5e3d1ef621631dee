//! rpc.mjs - drives `pi --mode rpc` through a list of commands (pi-host.md E2E-7).
//!
//! stdout is split on `\n` only (Pi's RPC framing; a generic line reader would also break on
//! U+2028 and friends), a trailing `\r` is stripped, and each line is parsed. Dialog requests
//! (`select`, `confirm`, `input`, `editor`) are answered `cancelled`; `notify` requests are
//! collected so tests can assert user warnings. After each `prompt` the driver waits for
//! `agent_settled`; after any other command for the `response` with its id. It then asks for the
//! last assistant text and closes stdin, and Pi exits.
import { spawn } from "node:child_process";
import { NODE22 } from "./hosts.mjs";
import { collect, KILL_AFTER_MS, piArgs, runEnv, sandbox, startDaemon } from "./run.mjs";

const DIALOGS = new Set(["select", "confirm", "input", "editor"]);

/** The event that ends a prompt: `agent_settled` from Pi 0.80 on; before, `agent_end`. */
function settledEvent(version) {
  const [major, minor] = version.split(".").map(Number);
  return major >= 1 || minor >= 80 ? "agent_settled" : "agent_end";
}

/**
 * Runs Pi in RPC mode. `commands` defaults to one prompt `go`; a string is a prompt, an object is
 * sent as is (an `id` is added when absent). Returns the `runPi` fields plus `messages` (every
 * parsed stdout line), `notifications` (notify requests) and `lastText`.
 */
export async function runRpc({ commands = ["go"], script, env, args, session, ...boxOptions } = {}) {
  const box = sandbox(boxOptions);
  const argv = [...piArgs(box, { args, session }), "--mode", "rpc"];
  const merged = runEnv(box, { script, env });
  const stopDaemon = await startDaemon(box, merged);
  const settled = settledEvent(box.pi);
  return new Promise((resolve) => {
    const child = spawn(NODE22, argv, {
      cwd: box.work,
      env: merged,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const messages = [];
    const notifications = [];
    const err = [];
    let pending = Buffer.alloc(0);
    let stdout = "";
    let lastText;
    let timedOut = false;
    let step = 0;
    let waitingFor = null;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, KILL_AFTER_MS);

    const send = (object) => {
      try {
        child.stdin.write(`${JSON.stringify(object)}\n`);
      } catch {
        // Pi died; the close handler reports it.
      }
    };
    const next = () => {
      if (step >= commands.length) {
        waitingFor = { response: "last" };
        send({ id: "last", type: "get_last_assistant_text" });
        return;
      }
      const command = commands[step];
      const id = `c${step + 1}`;
      step += 1;
      if (typeof command === "string") {
        waitingFor = { settled: true };
        send({ id, type: "prompt", message: command });
      } else {
        const withId = { id, ...command };
        waitingFor = withId.type === "prompt" ? { settled: true } : { response: withId.id };
        send(withId);
      }
    };
    const handle = (message) => {
      messages.push(message);
      if (message.type === "extension_ui_request") {
        if (message.method === "notify") notifications.push(message);
        else if (DIALOGS.has(message.method)) send({ type: "extension_ui_response", id: message.id, cancelled: true });
        return;
      }
      if (waitingFor?.settled && message.type === settled) return next();
      if (waitingFor?.response && message.type === "response" && message.id === waitingFor.response) {
        if (message.id === "last") {
          lastText = message.data?.text ?? message.data;
          waitingFor = null;
          child.stdin.end();
          return;
        }
        return next();
      }
    };
    child.stdout.on("data", (chunk) => {
      stdout += chunk.toString("utf8");
      pending = Buffer.concat([pending, chunk]);
      let newline = pending.indexOf(0x0a);
      while (newline !== -1) {
        const line = pending.subarray(0, newline).toString("utf8").replace(/\r$/, "");
        pending = pending.subarray(newline + 1);
        if (line.trim() !== "") {
          try {
            handle(JSON.parse(line));
          } catch {
            messages.push({ unparsed: line });
          }
        }
        newline = pending.indexOf(0x0a);
      }
    });
    child.stderr.on("data", (chunk) => err.push(chunk));
    child.on("error", (error) => err.push(Buffer.from(String(error))));
    child.on("close", async (status, signal) => {
      clearTimeout(timer);
      await stopDaemon();
      const result = { pid: child.pid, status, signal, timedOut, stdout, stderr: Buffer.concat(err).toString("utf8") };
      resolve({ ...collect(box, result), messages, notifications, lastText });
    });
    next();
  });
}
