// STAT-4 through Pi's ExtensionRunner, with the simulator's `warming` and `standard_partial`
// briefings (the upstream hook's warming briefing is covered by the upstream-hook suites): the
// footer says `indexing` while the daemon reports it, a later turn asks the session hook again off
// the turn, and the footer clears once the briefing says ready; a ready daemon costs no extra call.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { describe, test } from "node:test";
import { PI_VERSION, start, until, workspace } from "./lib/pi.mjs";

const OWN = { GORTEX_NATIVE_MCP: "0" };
const VERSION = "0.64.4";

function sessionHooks(s) {
  return s.hooks().filter((r) => r.envelope?.event === "session_start");
}

describe(`indexing state on Pi ${PI_VERSION}`, () => {
  test("STAT-4: warming, then ready: the footer says indexing, then clears after a later turn", async () => {
    const ws = workspace({ scenario: { orientation: "warming" } });
    const s = await start(ws, { env: OWN });
    await s.sessionStart();
    await s.beforeAgentStart("go");
    assert.equal(s.host.footers.at(-1), `gortex: indexing · own · v${VERSION}`, JSON.stringify(s.host.footers));
    assert.equal(sessionHooks(s).length, 1);

    writeFileSync(ws.env.FAKE_GORTEX_SCENARIO, JSON.stringify({ orientation: "standard_ready" }));
    await s.beforeAgentStart("again");
    await until(() => s.host.footers.at(-1) === `gortex: connected · own · v${VERSION}`);
    assert.equal(sessionHooks(s).length, 2, "one fresh briefing, asked off the turn");

    // Ready: later turns ask nothing more.
    await s.beforeAgentStart("third");
    await s.beforeAgentStart("fourth");
    assert.equal(sessionHooks(s).length, 2, "no per-turn cost once ready");
    await s.shutdown();
  });

  test("STAT-4: enrichment still running counts as indexing; /gortex shows it", async () => {
    const ws = workspace({ scenario: { orientation: "standard_partial" } });
    const s = await start(ws, { env: OWN });
    await s.sessionStart();
    await s.beforeAgentStart("go");
    assert.equal(s.host.footers.at(-1), `gortex: indexing · own · v${VERSION}`);
    const command = s.runner.getRegisteredCommands().find((c) => (c.name ?? c.invocationName) === "gortex");
    await command.handler("", s.ctx);
    const block = s.host.notifications.find((n) => String(n.message).startsWith("Gortex bridge:"));
    assert.ok(block, JSON.stringify(s.host.notifications));
    assert.ok(
      block.message.includes("\n  index       indexing: references queryable, semantic enrichment still running\n"),
      block.message,
    );
    await s.shutdown();
  });

  test("STAT-4: a ready daemon: connected, and later turns never re-run the session hook", async () => {
    const ws = workspace({ scenario: { orientation: "lean_ready" } });
    const s = await start(ws, { env: OWN });
    await s.sessionStart();
    await s.beforeAgentStart("go");
    await s.beforeAgentStart("again");
    assert.equal(s.host.footers.at(-1), `gortex: connected · own · v${VERSION}`);
    assert.equal(sessionHooks(s).length, 1);
    await s.shutdown();
  });

  test("STAT-4: the lean tier's warming briefing puts indexing in the footer too", async () => {
    const ws = workspace({ scenario: { orientation: "lean_warming" } });
    const s = await start(ws, { env: OWN });
    await s.sessionStart();
    await s.beforeAgentStart("go");
    assert.equal(s.host.footers.at(-1), `gortex: indexing · own · v${VERSION}`);
    await s.shutdown();
  });
});
