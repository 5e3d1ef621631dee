//! mcp_json_precedence.test.mjs - NAT-12 in the real Pi 1.6.0 CLI: a server named `gortex` in
//! Pi's own `<agentDir>/mcp.json` replaces the extension's registration, exposure included. Without
//! `exposure` (Pi's default `codemode`) the graph tools cannot be called by name; with
//! `"exposure": "direct"` they can, and they are answered by the mcp.json server, not a second
//! connection. Either way the session survives and the extension says nothing on stderr.
//!
//! The mcp.json server gets its own fake-gortex scenario (a reply text of its own), so the
//! model's tool result says which registration answered; the fake's log says how many `gortex mcp`
//! children ran.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe } from "node:test";
import { assertClean, clientOf, initializes, offeredTools, toolName } from "./lib/gortex.mjs";
import { FAKE_GORTEX } from "./lib/hosts.mjs";
import { CONCURRENCY, scenario } from "./lib/matrix.mjs";
import { reportOf, runPi } from "./lib/run.mjs";
import { SOURCE_FILES } from "./lib/workspace.mjs";

const SEARCH = toolName("native", "search");
const SEARCH_ARGS = { operation: "symbols", query: "Hello" };
const MCP_JSON_REPLY = "answered by the mcp.json server";

/**
 * A print run on Pi 1.6.0 (native path) whose `<agentDir>/mcp.json` has a `gortex` server on the
 * fake with a scenario of its own; `extra` adds e.g. `exposure`.
 */
function runWithMcpJson(extra) {
  return runPi({
    pi: "1.6.0",
    files: SOURCE_FILES,
    setup: (box) => {
      const scenarioPath = join(box.root, "mcp-json-scenario.json");
      writeFileSync(scenarioPath, JSON.stringify({ calls: { search: { text: MCP_JSON_REPLY } } }));
      const server = { command: FAKE_GORTEX, args: ["mcp"], env: { FAKE_GORTEX_SCENARIO: scenarioPath }, ...extra };
      writeFileSync(join(box.agent, "mcp.json"), JSON.stringify({ mcpServers: { gortex: server } }));
    },
    script: [{ call: SEARCH, args: SEARCH_ARGS }, { report: true }],
  });
}

/** `gortex mcp` children started in the run (FAKE-3 `start` records). */
const mcpStarts = (run) => run.fake.filter((r) => r.ev === "start" && r.verb === "mcp").length;

describe("NAT-12: a gortex server in Pi's mcp.json wins over the extension's registration", {
  concurrency: CONCURRENCY,
}, () => {
  scenario(
    "without exposure, Pi's codemode default keeps the graph tools from being called by name",
    { both: false },
    async () => {
      const run = await runWithMcpJson({});
      await assertClean(run);
      assert.equal(
        mcpStarts(run),
        1,
        "one gortex server: the mcp.json one replaced the extension's, it is not a second connection",
      );
      assert.ok(
        !offeredTools(run.models[0]).includes(SEARCH),
        `${SEARCH} is not offered: ${offeredTools(run.models[0]).join(", ")}`,
      );
      const [result] = reportOf(run.stdout).toolResults;
      assert.equal(result.name, SEARCH);
      assert.equal(result.isError, true, `the call by name fails: ${result.text}`);
      assert.match(result.text, /not found/);
      assert.ok(!run.fake.some((r) => r.ev === "recv" && r.method === "tools/call"), "no tools/call reached a daemon");
    },
  );

  scenario(
    'with "exposure": "direct", the tools are callable and answered by the mcp.json server',
    { both: false },
    async () => {
      const run = await runWithMcpJson({ exposure: "direct" });
      await assertClean(run);
      assert.equal(
        mcpStarts(run),
        1,
        "one gortex server: the mcp.json one replaced the extension's, it is not a second connection",
      );
      for (const params of initializes(run.fake))
        assert.equal(clientOf(params), "native", "Pi's own MCP client connected");
      assert.deepEqual(reportOf(run.stdout).toolResults, [{ name: SEARCH, isError: false, text: MCP_JSON_REPLY }]);
    },
  );
});
