//! tools.test.mjs - Gortex's MCP tools as Pi tools, end to end (scenarios 1, 2, 9, 10):
//! a graph call reaches the daemon and its text reaches the model; colliding names are aliased
//! with the TOOL-3 note; `--no-mcp` on Pi 1.6 falls back to the own client; a tool promoted by
//! `tools_search` is callable on the next model turn (TOOL-8, NAT-15).
import assert from "node:assert/strict";
import { describe } from "node:test";
import {
  aliasNote,
  assertClean,
  clientOf,
  FACADE,
  initializes,
  offeredTools,
  resultFor,
  toolName,
} from "./lib/gortex.mjs";
import { CONCURRENCY, scenario } from "./lib/matrix.mjs";
import { reportOf, runPi } from "./lib/run.mjs";
import { SOURCE_FILES } from "./lib/workspace.mjs";

/** FAKE-5 default reply text for a call. */
const fakeReply = (bare, op, args) => `[fake-gortex] ${bare} ${op} ${JSON.stringify(args)}`;

/** The client that connected, told apart by its `initialize` (FAKE-3, E2E-9). */
function assertClient(run, path) {
  const inits = initializes(run.fake);
  assert.ok(inits.length >= 1, "a gortex mcp child was initialized");
  for (const params of inits) {
    assert.equal(params.protocolVersion, "2025-11-25", "both clients offer the protocol Pi's MCP offers");
    if (path === "native") {
      assert.equal(clientOf(params), "native", "Pi's own MCP client connected (native path)");
    } else {
      assert.equal(clientOf(params), "own", "the extension's own client connected");
      assert.deepEqual(params.capabilities?.experimental?.["gortex/wire"], ["gcx"]);
      assert.deepEqual(params.clientInfo, { name: "pi", version: "1.0.0" });
    }
  }
}

describe("graph tools", { concurrency: CONCURRENCY }, () => {
  scenario(
    "1. a graph tool call (search) reaches the daemon and its text comes back to the model",
    {},
    async ({ pi, path }) => {
      const args = { operation: "symbols", query: "Hello" };
      const name = toolName(path, "search");
      const run = await runPi({ pi, files: SOURCE_FILES, script: [{ call: name, args }, { report: true }] });
      await assertClean(run);
      assertClient(run, path);
      assert.ok(
        run.fake.some((r) => r.ev === "recv" && r.method === "tools/call"),
        "the daemon received tools/call",
      );
      const report = reportOf(run.stdout);
      assert.deepEqual(report.toolResults, [{ name, isError: false, text: fakeReply("search", "symbols", args) }]);
    },
  );

  scenario(
    "2. a colliding tool is registered under its alias, described as such, and callable",
    {},
    async ({ pi, path }) => {
      const name = toolName(path, "read");
      const args = { operation: "file", target: { file: "README.md" } };
      const run = await runPi({ pi, files: SOURCE_FILES, script: [{ call: name, args }, { report: true }] });
      await assertClean(run);
      const offered = run.models[0].tools;
      const alias = offered.find((t) => t.name === name);
      assert.ok(alias, `${name} is offered to the model; got ${offered.map((t) => t.name).join(", ")}`);
      const piRead = offered.find((t) => t.name === "read");
      assert.ok(piRead, "Pi's own read stays registered");
      assert.ok(!piRead.description.includes("Gortex"), "Pi's own read is not overridden by Gortex");
      if (path === "own") {
        // TOOL-3: note, one blank line, then the daemon's description.
        const prefix = `${aliasNote("read")}\n\n`;
        assert.ok(
          alias.description.startsWith(prefix),
          `description starts with the TOOL-3 note; got ${JSON.stringify(alias.description.slice(0, 300))}`,
        );
        assert.ok(alias.description.length > prefix.length, "the daemon's own description follows the note");
        const editAlias = offered.find((t) => t.name === "gortex_edit");
        assert.ok(editAlias?.description.startsWith(`${aliasNote("edit")}\n\n`), "gortex_edit carries its note too");
        assert.ok(!offered.some((t) => t.name === "gortex_search"), "a non-colliding tool keeps its bare name");
      }
      assert.deepEqual(reportOf(run.stdout).toolResults, [
        { name, isError: false, text: fakeReply("read", "file", args) },
      ]);
      // HOOK-6: the graph call reaches the hook under the daemon's bare name, flagged as a graph tool.
      const graphHooks = run.fake.filter((r) => r.ev === "hook" && r.envelope?.event === "tool_call");
      assert.equal(graphHooks.length, 1, "one tool-call hook ran");
      assert.equal(graphHooks[0].envelope.tool_name, "read");
      assert.equal(graphHooks[0].envelope.is_gortex_tool, true);
      assert.deepEqual(graphHooks[0].envelope.tool_input, args);
    },
  );

  scenario(
    "9. Pi 1.6 with --no-mcp falls back to the own client and the tools work",
    { both: false, path: "own" },
    async ({ pi }) => {
      const searchArgs = { operation: "text", query: "fmt" };
      const readArgs = { operation: "file", target: { file: "main.go" } };
      const run = await runPi({
        pi,
        args: ["--no-mcp"],
        files: SOURCE_FILES,
        script: [
          {
            calls: [
              ["search", searchArgs],
              ["gortex_read", readArgs],
            ],
          },
          { report: true },
        ],
      });
      // stderr must be empty: in particular no `MCP server "gortex" is registered, but no loaded
      // extension connects MCP servers` (NAT-6 withdraws the registration).
      await assertClean(run);
      assertClient(run, "own");
      const offered = offeredTools(run.models[0]);
      assert.ok(!offered.some((n) => n.startsWith("mcp__gortex__")), "no native tools");
      for (const bare of FACADE)
        assert.ok(offered.includes(toolName("own", bare)), `${toolName("own", bare)} registered`);
      assert.deepEqual(reportOf(run.stdout).toolResults, [
        { name: "search", isError: false, text: fakeReply("search", "text", searchArgs) },
        { name: "gortex_read", isError: false, text: fakeReply("read", "file", readArgs) },
      ]);
    },
  );

  scenario("10. a tool promoted through tools_search is callable in the next model turn", {}, async ({ pi, path }) => {
    const search = toolName(path, "tools_search");
    const promoted = toolName(path, "get_architecture");
    const run = await runPi({
      pi,
      env: { GORTEX_TOOLS: "nav" },
      files: SOURCE_FILES,
      script: [
        { call: search, args: { query: "select:get_architecture" } },
        { call: promoted, args: {} },
        { report: true },
      ],
    });
    await assertClean(run);
    assert.ok(!offeredTools(run.models[0]).includes(promoted), "the deferred tool is not offered before promotion");
    assert.ok(
      offeredTools(run.models[1]).includes(promoted),
      `the promoted tool is offered on the very next turn; got ${offeredTools(run.models[1]).join(", ")}`,
    );
    const searchResult = resultFor(run, search);
    assert.equal(searchResult.isError, false);
    assert.deepEqual(JSON.parse(searchResult.text).promoted, ["get_architecture"]);
    const call = resultFor(run, promoted);
    assert.equal(call.isError, false, `the promoted call succeeded: ${call.text}`);
    assert.equal(call.text, fakeReply("get_architecture", "-", {}));
  });
});
