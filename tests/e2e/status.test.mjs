//! status.test.mjs - the bridge's state inside the real Pi CLI over RPC
//! (STAT-1..3): the footer status (`setStatus("gortex", …)`), the `/gortex` status block and
//! `/gortex doctor` (the doctor run in process), on a working bridge and on a down one; and the
//! user's error notification when the native core cannot load.
import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe } from "node:test";
import { assertClean, toolName } from "./lib/gortex.mjs";
import { FAKE_GORTEX } from "./lib/hosts.mjs";
import { CONCURRENCY, scenario } from "./lib/matrix.mjs";
import { runRpc } from "./lib/rpc.mjs";
import { startRpc } from "./lib/rpc_steps.mjs";
import { sandbox } from "./lib/run.mjs";
import { SOURCE_FILES } from "./lib/workspace.mjs";

const SEARCH_ARGS = { operation: "symbols", query: "Hello" };
const VERSION = "0.64.4"; // fake-gortex's default daemon version

/** The notification a slash command produced (it is sent before the command's response). */
function told(rpc, prefix) {
  return rpc.notifications.filter((n) => String(n.message).startsWith(prefix));
}

function footers(rpc) {
  return rpc.statuses.filter((s) => s.statusKey === "gortex").map((s) => s.statusText);
}

describe("the bridge's state in Pi", { concurrency: CONCURRENCY }, () => {
  // Pi 1.6.0 on both paths (own: GORTEX_NATIVE_MCP=0), and Pi 0.87.1, whose only path is the own
  // client because it has no built-in MCP.
  for (const path of ["native", "own"]) {
    scenario(
      `STAT-1/2/3: /gortex and the footer on a working bridge; /gortex doctor runs in process (${path})`,
      { both: path === "own", path },
      async ({ pi }) => {
        const box = sandbox({ pi, files: SOURCE_FILES });
        const search = toolName(path, "search");
        // On 1.6.0 the own client is asked for; on 0.87.1 it is the only path, by default.
        const ownByChoice = path === "own" && pi === "1.6.0";
        const env = ownByChoice ? { GORTEX_NATIVE_MCP: "0" } : {};
        const rpc = startRpc(box, {
          script: [{ call: "read", args: { path: "main.go" } }, { call: search, args: SEARCH_ARGS }, { say: "done" }],
          env,
        });
        await rpc.send({ type: "prompt", message: "go" });
        const status = await rpc.send({ type: "prompt", message: "/gortex" }, { settle: false });
        assert.equal(status?.success, true, JSON.stringify(status));
        const doctor = await rpc.send({ type: "prompt", message: "/gortex doctor" }, { settle: false });
        assert.equal(doctor?.success, true, JSON.stringify(doctor));
        const run = await rpc.quit();
        await assertClean(run);

        // STAT-1: the footer ends connected, on the path in use, with the daemon's version, and
        // SAVE-2's net once the blocked read was counted.
        const footer = footers(rpc);
        const connected = `gortex: connected · ${path} · v${VERSION} · `;
        assert.ok(footer.at(-1).startsWith(connected), JSON.stringify(footer));
        assert.match(footer.at(-1).slice(connected.length), /^[−+]?[\d.]+k? tok$/);

        // STAT-2: the status block, section by section.
        const [block] = told(rpc, "Gortex bridge:");
        assert.ok(block, JSON.stringify(rpc.notifications));
        assert.equal(block.notifyType, "info");
        const lines = block.message.split("\n");
        assert.equal(lines[0], "Gortex bridge: connected");
        assert.equal(lines[1], `  daemon      ${FAKE_GORTEX} (v${VERSION})`);
        const why = {
          native: "native: Pi's built-in MCP owns the connection",
          own: ownByChoice ? "own client: native_mcp is off" : "own client: this Pi has no built-in MCP (Pi < 0.99)",
        };
        // CFG-20 and STAT-4: who starts the daemon, and the index readiness of the briefing.
        assert.equal(lines[2], "  started by  pi-gortex starts the daemon when none runs (daemon_autostart)");
        assert.equal(lines[3], "  index       ready");
        assert.equal(lines[4], `  path        ${why[path]}`);
        assert.match(lines[5], /^ {2}tools {7}[1-9]\d* /);
        if (path === "own") assert.ok(lines[5].includes("read → gortex_read"), lines[5]);
        assert.equal(lines[6], "  hook        deny, enforced on every tool call");
        const tally = /^ {2}this session (\d+) hook calls, (\d+) blocked, (\d+) steered, median [\d.]+ ms$/.exec(
          lines[7],
        );
        assert.ok(tally, lines[7]);
        assert.ok(Number(tally[1]) >= 2, "the read and the graph call went through the hook");
        assert.equal(Number(tally[2]), 1, "the read of main.go was blocked");
        assert.equal(lines[8], "  config");
        assert.equal(lines[9], `    bin              ${FAKE_GORTEX}  (environment)`);
        assert.match(lines[10], /^ {4}hook_mode {8}deny +\(default\)$/);
        if (ownByChoice) assert.match(lines[13], /^ {4}native_mcp {7}false +\(environment\)$/);
        else assert.match(lines[13], /^ {4}native_mcp {7}true +\(default\)$/);
        assert.match(lines[15], /^ {4}daemon_autostart true +\(default\)$/);
        assert.equal(lines.at(-1), "  last error  none");

        // STAT-3: /gortex doctor renders the doctor's report, healthy here.
        const [report] = told(rpc, "Configuration\n");
        assert.ok(report, JSON.stringify(rpc.notifications.map((n) => n.message.slice(0, 40))));
        assert.equal(report.notifyType, "info");
        assert.ok(report.message.includes(FAKE_GORTEX), "names the binary");
      },
    );
  }

  scenario(
    "STAT-1/2: a down bridge: the footer says down, /gortex names the binary and the last error",
    {},
    async ({ pi }) => {
      const box = sandbox({ pi, files: SOURCE_FILES });
      const missing = join(box.root, "no-such-gortex");
      const rpc = startRpc(box, { script: [{ say: "ok" }], env: { GORTEX_BIN: missing } });
      await rpc.send({ type: "prompt", message: "go" });
      await rpc.send({ type: "prompt", message: "/gortex" }, { settle: false });
      const doctor = await rpc.send({ type: "prompt", message: "/gortex doctor" }, { settle: false });
      assert.equal(doctor?.success, true);
      const run = await rpc.quit();
      await assertClean(run);

      assert.equal(footers(rpc).at(-1), "gortex: down · own");
      const [block] = told(rpc, "Gortex bridge:");
      const lines = block.message.split("\n");
      assert.equal(lines[0], "Gortex bridge: down");
      assert.equal(lines[1], `  daemon      \`${missing}\` does not resolve to an executable file`);
      assert.equal(
        lines[4],
        "  path        own client: the gortex binary does not resolve, so its failure is reported by the own client",
      );
      assert.match(lines.at(-1), /^ {2}last error {2}\S.*/);
      assert.notEqual(lines.at(-1), "  last error  none");
      // The doctor says why, at warning level (it exits 1 for a down bridge).
      const [report] = told(rpc, "Configuration\n");
      assert.equal(report.notifyType, "warning");
      assert.ok(report.message.includes(missing));
    },
  );

  // STAT-4 with the simulator's `warming` briefing (the upstream hook's warming case is in the
  // hook suites): the footer says indexing, and clears once a fresh briefing says ready.
  scenario(
    "STAT-4: the footer says indexing while the daemon warms up, and clears when it is ready",
    {},
    async ({ pi }) => {
      const box = sandbox({ pi, files: SOURCE_FILES, scenario: { orientation: "warming" } });
      const rpc = startRpc(box, { script: [{ say: "ok" }] });
      await rpc.send({ type: "prompt", message: "go" });
      const warming = await rpc.send({ type: "prompt", message: "/gortex" }, { settle: false });
      assert.equal(warming?.success, true);
      writeFileSync(box.scenarioPath, JSON.stringify({ orientation: "standard_ready" }));
      const ready = await rpc.send({ type: "prompt", message: "/gortex" }, { settle: false });
      assert.equal(ready?.success, true);
      const run = await rpc.quit();
      await assertClean(run);

      const path = pi === "1.6.0" ? "native" : "own";
      const footer = footers(rpc);
      assert.ok(footer.includes(`gortex: indexing · ${path} · v${VERSION}`), JSON.stringify(footer));
      assert.equal(footer.at(-1), `gortex: connected · ${path} · v${VERSION}`, JSON.stringify(footer));
      const [first, second] = told(rpc, "Gortex bridge:");
      assert.ok(
        first.message.includes(
          "\n  index       indexing: the daemon is warming up, graph answers and enforcement are partial\n",
        ),
        first.message,
      );
      assert.ok(second.message.includes("\n  index       ready\n"), second.message);
    },
  );

  scenario(
    "PKG-10: the user is told once, at error level, when the installed copy has no native core",
    {},
    async ({ pi }) => {
      const run = await runRpc({
        pi,
        files: SOURCE_FILES,
        setup: (box) => rmSync(join(box.agent, "npm/node_modules/pi-gortex/pi-gortex.linux-x64-gnu.node")),
        script: [{ say: "ok" }],
        commands: ["go", "again"],
      });
      await assertClean(run);
      const errors = run.notifications.filter((n) =>
        String(n.message).startsWith("pi-gortex: pi-gortex native core failed to load"),
      );
      assert.equal(errors.length, 1, JSON.stringify(run.notifications));
      assert.equal(errors[0].notifyType, "error");
      assert.ok(
        errors[0].message.includes(
          "Platform linux-x64-gnu; prebuilt cores exist for linux-x64-gnu, linux-x64-musl, linux-arm64-gnu, linux-arm64-musl, darwin-x64, darwin-arm64, win32-x64-msvc, win32-arm64-msvc.",
        ),
        errors[0].message,
      );
      assert.ok(errors[0].message.includes("read discipline"), "says read discipline is off");
    },
  );
});
