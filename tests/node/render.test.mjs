// Rendering (REN-1..6) of own-client tools, drawn through the registered definitions with a
// plain-text theme, so rows compare as text.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { PI_VERSION, start, workspace } from "./lib/pi.mjs";

const theme = new Proxy({}, { get: (_t, key) => (key === "fg" || key === "bg" ? (_c, text) => text : (text) => text) });
const context = (expanded) => ({
  expanded,
  isPartial: false,
  args: {},
  state: {},
  invalidate() {},
  cwd: "/abs",
  isError: false,
  argsComplete: true,
  executionStarted: false,
  showImages: false,
  toolCallId: "x",
});

function row(component, width = 200) {
  return component
    .render(width)
    .map((line) => line.trimEnd())
    .join("\n");
}

describe(`rendering on Pi ${PI_VERSION}`, () => {
  let s;
  before(async () => {
    s = await start(workspace(), { env: { GORTEX_NATIVE_MCP: "0" } });
    await s.sessionStart();
  });
  after(() => s.shutdown());

  const line = (tool, args, expanded = false) => row(s.tool(tool).renderCall(args, theme, context(expanded)));

  test("REN-8: the spec's examples", () => {
    assert.equal(line("gortex_read", { target: { file: "/abs/src/tools.ts" } }), "gortex read /abs/src/tools.ts");
    assert.equal(
      line("gortex_read", { target: { file: "/abs/a.ts" }, options: { offset: 10, limit: 5 } }),
      "gortex read /abs/a.ts:10-14",
    );
    assert.equal(
      line("gortex_read", { target: { file: "/abs/a.ts" }, options: { offset: "10", limit: "5" } }),
      "gortex read /abs/a.ts",
    );
    assert.equal(
      line("gortex_read", { operation: "source", target: { symbol: "src/a.ts::f" }, options: { new_user_task: true } }),
      "gortex_read source src/a.ts::f",
    );
    assert.equal(
      line("search", { operation: "symbols", query: "callRenderer", output: { format: "gcx" } }),
      "search symbols callRenderer",
    );
    assert.equal(
      line("search", { operation: "text", query: "x", options: { limit: 5, path: "src/" } }),
      "search text x path=src/ limit=5",
    );
    assert.equal(
      line("trace", { operation: "path", target: { symbol: "a" }, to: { symbol: "b" } }),
      "trace path a to b",
    );
    assert.equal(line("analyze", { kind: "dead_code" }), "analyze dead_code");
    assert.equal(line("analyze", { operation: "run", kind: "dead_code" }), "analyze run kind=dead_code");
  });

  test("REN-2/3: collapsed values are cut to 60 characters and the row to the width; expanded shows all", () => {
    const long = "q".repeat(100);
    assert.equal(line("search", { query: long }), `search ${"q".repeat(59)}…`);
    const cut = row(s.tool("search").renderCall({ query: long }, theme, context(false)), 20).replace(
      /\x1b\[[0-9;]*m/g,
      "",
    );
    assert.ok(cut.length <= 20 && cut.startsWith("search qqq"), JSON.stringify(cut));
    assert.ok(line("search", { query: long }, true).includes(long));
  });

  test("REN-5: collapsed results show nothing without diffs; expanded shows the text", () => {
    const result = { content: [{ type: "text", text: "answer" }], details: {} };
    assert.equal(row(s.tool("search").renderResult(result, { expanded: false }, theme, { isError: false })), "");
    assert.equal(row(s.tool("search").renderResult(result, { expanded: true }, theme, { isError: false })), "answer");
  });

  test("REN-6: a note entry draws the path and the note; text goes below when expanded", () => {
    const result = {
      content: [{ type: "text", text: "applied" }],
      details: { diffs: [{ path: "big.ts", diff: "", patch: "", note: "not diffed: over 1 MiB" }] },
    };
    const collapsed = row(s.tool("gortex_edit").renderResult(result, { expanded: false }, theme, { isError: false }));
    assert.equal(collapsed.trim(), "big.ts not diffed: over 1 MiB");
    const expanded = row(s.tool("gortex_edit").renderResult(result, { expanded: true }, theme, { isError: false }));
    assert.ok(expanded.trim().endsWith("applied"));
    const errored = row(s.tool("gortex_edit").renderResult(result, { expanded: false }, theme, { isError: true }));
    assert.equal(errored, "", "no diff view on an error result");
  });
});
