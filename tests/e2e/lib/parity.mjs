//! parity.mjs - the side-by-side runs of tests/e2e/mcp_parity.test.mjs: the same scripted server
//! (tests/sdk-peer/content-server.mjs, on the official MCP SDK) and the same calls through Pi
//! 1.6.0's built-in MCP, Pi 1.6.0 with `--no-mcp` and Pi 0.87.1 (both the extension's own client),
//! and readers for what the model and the user got from each call.
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FAKE_GORTEX, NODE22, REPO } from "./hosts.mjs";
import { runPi } from "./run.mjs";

export const CONTENT_SERVER = join(REPO, "tests/sdk-peer/content-server.mjs");
export const SDK = join(REPO, "tests/sdk-peer/node_modules/@modelcontextprotocol/sdk");

/** The three paths compared: Pi's built-in MCP, and the own client on both Pi versions. */
export const PATHS = [
  { key: "native", pi: "1.6.0", args: [] },
  { key: "own-1.6.0", pi: "1.6.0", args: ["--no-mcp"] },
  { key: "own-0.87.1", pi: "0.87.1", args: [] },
];

/**
 * A `gortex` for the runs: `mcp` runs the scripted SDK server, every other verb (daemon start,
 * version, hook) is fake-gortex's, so the extension's session around the calls is the usual one.
 * The server's start is logged like a fake-gortex process, so the leak check covers it.
 */
export function gortexWrapper() {
  const dir = mkdtempSync(join(tmpdir(), "pi-parity-bin-"));
  const path = join(dir, "gortex");
  const quote = (s) => `'${s.replaceAll("'", "'\\''")}'`;
  writeFileSync(
    path,
    [
      "#!/bin/sh",
      'if [ "$1" = mcp ]; then',
      '  [ -n "$FAKE_GORTEX_LOG" ] && printf \'{"ev":"start","pid":%s,"verb":"content-server"}\\n\' $$ >> "$FAKE_GORTEX_LOG"',
      `  exec ${quote(NODE22)} ${quote(CONTENT_SERVER)}`,
      "fi",
      `exec ${quote(FAKE_GORTEX)} "$@"`,
      "",
    ].join("\n"),
  );
  chmodSync(path, 0o755);
  return path;
}

/** The name the model calls the server's `result` tool by on a path. */
export function toolNameOn(path) {
  return path.key === "native" ? "mcp__gortex__result" : "result";
}

/** Runs every call, in order, through one path in JSON mode (the stream carries every message). */
export function runPath(path, calls, bin) {
  const name = toolNameOn(path);
  const script = [...calls.map((call) => ({ call: name, args: call.args })), { say: "done" }];
  return runPi({ pi: path.pi, mode: "json", args: path.args, script, env: { GORTEX_BIN: bin } });
}

/**
 * Per call id (`call_1`, …): what the model got, the `toolResult` message as Pi keeps it and
 * sends it to the provider (`content` blocks, `isError`), and what the user's interface got, the
 * `tool_execution_end` result (`content`, `details`, and Pi's own `structuredContent`).
 */
export function resultsOf(run) {
  const model = new Map();
  const user = new Map();
  for (const event of run.json ?? []) {
    if (event.type === "message_end" && event.message?.role === "toolResult") {
      model.set(event.message.toolCallId, { isError: event.message.isError === true, content: event.message.content });
    }
    if (event.type === "tool_execution_end") {
      user.set(event.toolCallId, { isError: event.isError === true, result: event.result });
    }
  }
  return { model, user };
}

/** Temp files a result names: the full output of a cut text, or a saved binary resource. */
const SAVED = /(\/[^\s\]]*?)(pi-mcp-)[A-Za-z0-9]+(\.[A-Za-z0-9]{1,8})/g;

/** The saved files named in some content, read, in order. */
export function savedFiles(content) {
  const files = [];
  for (const block of content ?? []) {
    if (block.type !== "text") continue;
    for (const match of block.text.matchAll(SAVED)) {
      const path = match[0];
      files.push({ path, bytes: existsSync(path) ? readFileSync(path) : undefined });
    }
  }
  return files;
}

/**
 * Content with each saved file's path written as `<tmp>/pi-mcp-*<ext>`: the random part is random
 * on every path and run (MCP-35 names the one difference of style in it).
 */
export function withoutRandomNames(content) {
  return (content ?? []).map((block) =>
    block.type === "text" ? { ...block, text: block.text.replace(SAVED, "<tmp>/pi-mcp-*$3") } : block,
  );
}
