//! lifecycle_leaks.test.mjs - leaks across lifecycles: scripted prompt, `new_session`,
//! resume (`switch_session` back to the first session file), `/reload` and quit over Pi's RPC
//! mode. After
//! each step the number of live `gortex mcp` children fake-gortex logged must be what the spec
//! expects: exactly one on the own client (SES-16 stops the old session's child, SES-7 starts the
//! new one, which must differ from the old), exactly one on the native path too (Pi owns that
//! child, NAT-7, and keeps a single connection), and none after quit (MCP-15, SES-17:
//! assertClean). Pi's RPC mode has no reload command, so `/reload` is driven through a test-only
//! extension command that calls `ctx.reload()` (rpc-helpers.ts); on the own client the child
//! after it must be a new process.
import assert from "node:assert/strict";
import { describe } from "node:test";
import { assertClean } from "./lib/gortex.mjs";
import { CONCURRENCY, scenario } from "./lib/matrix.mjs";
import { settleCount, startRpc } from "./lib/rpc_steps.mjs";
import { sandbox } from "./lib/run.mjs";
import { SOURCE_FILES } from "./lib/workspace.mjs";

describe("leaks across lifecycles", { concurrency: CONCURRENCY }, () => {
  scenario(
    "prompt, /new, resume, /reload, quit: live gortex mcp children are 1, 1, 1, 1, then 0",
    {},
    async ({ pi, path }) => {
      const box = sandbox({ pi, files: SOURCE_FILES });
      const rpc = startRpc(box, { script: [{ say: "one" }, { say: "two" }, { say: "three" }, { say: "four" }] });
      const expectOne = async (step) => {
        const check = (n) => n === 1;
        const live = await settleCount(box, check);
        assert.ok(check(live.length), `${step}: live gortex mcp children ${JSON.stringify(live)} (path ${path})`);
        return live;
      };

      await rpc.send({ type: "prompt", message: "go" });
      const first = await expectOne("after the first prompt");
      const state = await rpc.send({ type: "get_state" });
      const firstSession = state?.data?.sessionFile;

      const fresh = await rpc.send({ type: "new_session" });
      assert.equal(fresh?.success, true, JSON.stringify(fresh));
      await rpc.send({ type: "prompt", message: "again" });
      const afterNew = await expectOne("after /new and a prompt");
      if (path === "own") assert.notDeepEqual(afterNew, first, "the old session's child was replaced, not kept");

      assert.ok(firstSession, "the first session was saved");
      const resumed = await rpc.send({ type: "switch_session", sessionPath: firstSession });
      assert.equal(resumed?.success, true, JSON.stringify(resumed));
      await rpc.send({ type: "prompt", message: "resumed" });
      const afterResume = await expectOne("after resume and a prompt");

      const reloaded = await rpc.send({ type: "prompt", message: "/e2e-reload" }, { settle: false });
      assert.equal(reloaded?.success, true, JSON.stringify(reloaded));
      await rpc.send({ type: "prompt", message: "after reload" });
      const afterReload = await expectOne("after /reload and a prompt");
      if (path === "own") assert.notDeepEqual(afterReload, afterResume, "the reload replaced the child");

      const run = await rpc.quit();
      await assertClean(run); // no fake-gortex process alive after quit
      assert.ok(
        run.fake.some((r) => r.ev === "start" && r.verb === "mcp"),
        "a gortex mcp child ran at all",
      );
    },
  );
});
