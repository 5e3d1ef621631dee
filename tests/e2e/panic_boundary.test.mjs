//! panic_boundary.test.mjs - no panic crosses napi, in a real Pi session over RPC: a
//! test-only command (rpc-helpers.ts `/e2e-panic`) makes the pi-gortex core panic inside a
//! runtime call, on the async and the sync guard, before the first turn. The extension must fail
//! open (the session and its graph tools keep working), warn the user exactly once per session
//! (FAIL-4, through a `warning` notification), never write to stderr, and leave no process.
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe } from "node:test";
import { assertClean, toolName } from "./lib/gortex.mjs";
import { CONCURRENCY, scenario } from "./lib/matrix.mjs";
import { startRpc } from "./lib/rpc_steps.mjs";
import { reportOf, sandbox } from "./lib/run.mjs";
import { SOURCE_FILES } from "./lib/workspace.mjs";

const SEARCH_ARGS = { operation: "symbols", query: "Hello" };

describe("no panic crosses napi (FAIL-4)", { concurrency: CONCURRENCY }, () => {
  scenario("a forced core panic fails open, warns once, and the session keeps its tools", {}, async ({ pi, path }) => {
    const box = sandbox({ pi, files: SOURCE_FILES });
    const addon = join(box.agent, "npm/node_modules/pi-gortex/pi-gortex.linux-x64-gnu.node");
    const search = toolName(path, "search");
    const rpc = startRpc(box, {
      script: [{ call: search, args: SEARCH_ARGS }, { report: true }, { say: "later" }],
      env: { PI_E2E_GORTEX_ADDON: addon },
    });
    const panicked = await rpc.send({ type: "prompt", message: "/e2e-panic" }, { settle: false });
    assert.equal(panicked?.success, true, JSON.stringify(panicked));
    await rpc.send({ type: "prompt", message: "go" });
    const afterGo = await rpc.send({ type: "get_last_assistant_text" });
    // A second panic in the same session is not reported again.
    await rpc.send({ type: "prompt", message: "/e2e-panic" }, { settle: false });
    await rpc.send({ type: "prompt", message: "more" });
    const last = await rpc.send({ type: "get_last_assistant_text" });
    const run = await rpc.quit();
    await assertClean(run);

    const warnings = rpc.notifications.filter((n) => String(n.message).startsWith("pi-gortex hit an internal error"));
    assert.equal(warnings.length, 1, `one warning: ${JSON.stringify(rpc.notifications)}`);
    assert.equal(warnings[0].notifyType, "warning");
    assert.match(warnings[0].message, /forced by debugForcePanic/);
    const report = reportOf(String(afterGo?.data?.text ?? afterGo?.data ?? ""));
    assert.deepEqual(
      report?.toolResults.map((r) => [r.name, r.isError]),
      [[search, false]],
      "the graph tool still works after the panic",
    );
    assert.equal(last?.data?.text ?? last?.data, "later", "the session kept going");
  });
});
