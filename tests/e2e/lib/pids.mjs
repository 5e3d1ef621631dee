//! pids.mjs - leak check for processes fake-gortex started (FAKE-3, MCP-15, SES-17).
//!
//! Every fake-gortex process logs a `start` record with its pid. After Pi exits, each of those
//! pids must be gone. A child may still be finishing its own exit on stdin EOF when Pi returns
//! (MCP-3 allows that), so the check polls for a short grace period; a zombie counts as gone.
import { readFileSync } from "node:fs";

const GRACE_MS = 3000;

function alive(pid) {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // Field 3 of /proc/<pid>/stat is the state; `Z` is an exited process awaiting its reaper.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** Pids of every fake-gortex process in the log, with the verb it ran. */
export function loggedProcesses(fakeLog) {
  const seen = new Map();
  for (const record of fakeLog)
    if (record.ev === "start" && Number.isInteger(record.pid)) seen.set(record.pid, record.verb);
  return [...seen].map(([pid, verb]) => ({ pid, verb }));
}

/** The logged processes still alive after the grace period (empty = no leak). */
export async function survivors(fakeLog, graceMs = GRACE_MS) {
  const processes = loggedProcesses(fakeLog);
  const deadline = Date.now() + graceMs;
  let living = processes.filter((p) => alive(p.pid));
  while (living.length && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    living = living.filter((p) => alive(p.pid));
  }
  return living;
}
