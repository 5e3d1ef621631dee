//! gortex.mjs - what the scenarios know about pi-gortex and fake-gortex: tool names per path
//! (TOOL-2, NAT-8), the facade surface (FAKE-5), the spec's exact texts (SES-13, MCP-22/23,
//! TOOL-3), readers for the fake's log (FAKE-3), and the checks every run must pass (rc, no hang,
//! no leaked process, PKG-5 silence).
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { PI } from "./hosts.mjs";
import { survivors } from "./pids.mjs";
import { describeRun } from "./run.mjs";

/** Pi's built-in vocabulary: a Gortex tool of one of these names is aliased (TOOL-1, TOOL-2). */
export const RESERVED = new Set(["read", "grep", "find", "ls", "bash", "edit", "write"]);

/** The closed facade the fake serves a named client (FAKE-5). */
export const FACADE = [
  "analyze",
  "ask",
  "capabilities",
  "change",
  "edit",
  "explore",
  "overlay",
  "pr",
  "publish_review",
  "read",
  "recall",
  "refactor",
  "relations",
  "remember",
  "response",
  "review",
  "search",
  "session",
  "trace",
  "workspace",
  "workspace_admin",
];

/** The name the model calls a daemon tool by: `mcp__gortex__<bare>` native, else TOOL-2. */
export function toolName(path, bare) {
  if (path === "native") return `mcp__gortex__${bare}`;
  return RESERVED.has(bare) ? `gortex_${bare}` : bare;
}

/** TOOL-3 note that opens an aliased tool's description. */
export function aliasNote(bare) {
  const aliased = `gortex_${bare}`;
  return `Gortex's \`${bare}\` tool, registered as \`${aliased}\` because Pi has a built-in \`${bare}\`. Gortex guidance and denial messages that name \`${bare}\` mean this tool.`;
}

/** SES-13 part 1 when the bridge failed. */
export function unavailableText(error) {
  return `[Gortex] graph tools are unavailable this session (${error}). Tell the user to run /reload to retry the connection.`;
}

/** MCP-23 stale model line and MCP-22 stale user text for a daemon of version `v`. */
export function staleModelText(v) {
  return `[Gortex] the daemon is gortex ${v}, older than the 0.61.2 this extension targets. A graph tool may be missing or behave unexpectedly. If one does, tell the user to run \`gortex upgrade\`.`;
}
export function staleUserText(v) {
  return `gortex ${v} is older than 0.61.2, which this extension needs. Graph tools and read discipline may be missing or wrong. Run \`gortex upgrade\`.`;
}

/** Hook records of the fake's log, with `decision` parsed (it is logged as the raw text written). */
export function hookRecords(fake) {
  return fake
    .filter((r) => r.ev === "hook")
    .map((r) => {
      let decision = r.decision;
      if (typeof decision === "string") {
        try {
          decision = JSON.parse(decision);
        } catch {
          // keep the raw text; a test comparing it will show it
        }
      }
      return { ...r, decision };
    });
}

/** Hook records whose envelope has the given event (and, optionally, canonical tool name). */
export function hooksFor(fake, event, toolName) {
  return hookRecords(fake).filter(
    (r) => r.envelope?.event === event && (toolName === undefined || r.envelope?.tool_name === toolName),
  );
}

/** The orientation the fake answered to the session hook; asserts it ran exactly once. */
export function orientationOf(fake) {
  const sessions = hooksFor(fake, "session_start");
  assert.equal(sessions.length, 1, `the session hook runs exactly once (SES-12); got ${sessions.length}`);
  const orientation = sessions[0].decision?.orientation;
  assert.equal(typeof orientation, "string", "the fake answered the session hook with an orientation");
  return orientation;
}

/**
 * Hook runs for tool calls: every hook process fed an envelope (its `input` record) minus the
 * session and prompt hooks'. A hook killed while deciding (timeout) has logged its input but
 * never its `hook` record; a spare started ahead and ended unused logs no input.
 */
export function toolHookRuns(fake) {
  const fed = fake.filter((r) => r.verb === "hook" && r.ev === "input" && r.bytes > 0).length;
  return fed - hooksFor(fake, "session_start").length - hooksFor(fake, "prompt").length;
}

/** `initialize` requests the fake received. */
export function initializes(fake) {
  return fake.filter((r) => r.ev === "recv" && r.method === "initialize").map((r) => r.params ?? {});
}

/**
 * Which client sent an `initialize` (FAKE-3): both offer protocol `2025-11-25`, only the
 * extension's own client asks for the GCX wire format.
 */
export function clientOf(params) {
  return params.capabilities?.experimental?.["gortex/wire"] ? "own" : "native";
}

/** The user-role texts of one model request. */
export function userTexts(request) {
  return request.messages.filter((m) => m.role === "user").map((m) => m.text);
}

/** Tool names the model was offered in one request. */
export function offeredTools(request) {
  return request.tools.map((t) => t.name);
}

/** The tool result the model saw for `toolName` in the last request (undefined when absent). */
export function resultFor(run, name) {
  const last = run.models.at(-1);
  return last?.messages.filter((m) => m.role === "toolResult" && m.toolName === name).at(-1);
}

/**
 * Every run: rc as expected, no 60 s kill, the scripted model reached its last request (a Pi that
 * ends early with rc 0 is caught, E2E-11), stderr empty (PKG-5: Pi itself writes nothing there in
 * these modes), and no fake-gortex process alive after exit (MCP-15, SES-17).
 */
export async function assertClean(run, { status = 0, stderr = "" } = {}) {
  assert.equal(run.timedOut, false, `Pi did not exit within 60 s\n${describeRun(run)}`);
  assert.equal(run.status, status, describeRun(run));
  assertScriptFinished(run);
  if (stderr !== undefined)
    assert.equal(run.stderr, stderr, `stderr must carry no extension output (PKG-5)\n${describeRun(run)}`);
  const left = await survivors(run.fake);
  assert.deepEqual(
    left,
    [],
    `fake-gortex processes alive after Pi exited: ${JSON.stringify(left)}\n${describeRun(run)}`,
  );
}

/**
 * E2E-11: the scripted model served its last step, and when that step called tools, the model
 * was asked once more (so the calls' results reached it). A Pi that stops early with rc 0 fails
 * here. Checked for print and JSON runs (`runPi` records the script); an RPC run can start new
 * sessions, each with a fresh model cursor, so its tests check their own last reply instead.
 */
export function assertScriptFinished(run) {
  const script = run.script ?? [];
  if (script.length === 0) return;
  const served = run.models.filter((m) => !m.summary).map((m) => m.step);
  const last = script.length - 1;
  assert.ok(
    served.includes(last),
    `the scripted model never reached its last step (${last}); steps served: ${JSON.stringify(served)}\n${describeRun(run)}`,
  );
  const final = script[last];
  if (final && ("call" in final || "calls" in final)) {
    assert.ok(
      served.includes(script.length),
      `the model never saw the results of its last step's calls; steps served: ${JSON.stringify(served)}\n${describeRun(run)}`,
    );
  }
}

/** Pi's own diff helpers for a version, to state DIFF-13 expectations byte for byte. */
export async function hostDiff(version) {
  const cli = PI[version].cli;
  const module = join(cli, "../../core/tools/edit-diff.js");
  return import(pathToFileURL(module).href);
}
