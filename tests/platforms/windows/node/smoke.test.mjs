// The extension in Node 22 for Windows (under wine, `make test-windows-node`): the core built
// for Windows loads through Pi's real loader and ExtensionRunner, the own client lists and calls
// the daemon's tools, the hook answers a tool_call, and the children end with the session, also
// when the host process is killed (the job object). gortex is fake-gortex.exe built for Windows.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { describe, test } from "node:test";
import { ADDON_FILE, alive, PI_VERSION, start, until, workspace } from "../../../node/lib/pi.mjs";

const OWN = { GORTEX_NATIVE_MCP: "0" };

async function ownSession(options = {}) {
  const ws = workspace(options);
  const s = await start(ws, { env: { ...OWN, ...(options.env ?? {}) } });
  await s.sessionStart();
  return s;
}

describe(`Windows: the extension in Node ${process.version} (${process.platform}-${process.arch}) on Pi ${PI_VERSION}`, () => {
  test("PKG-9: Pi's loader loads the extension with the win32-x64-msvc core; no load or handler errors", async () => {
    assert.equal(process.platform, "win32");
    assert.equal(ADDON_FILE, "pi-gortex.win32-x64-msvc.node");
    const s = await ownSession();
    assert.deepEqual(s.errors, []);
    assert.deepEqual(s.host.extensionErrors, []);
    assert.equal(s.mcpPids().length, 1, "one gortex mcp child started");
    await s.shutdown();
  });

  test("TOOL-2/6: the own client lists the daemon's tools and a call returns its text", async () => {
    const s = await ownSession();
    const names = s.toolNames();
    assert.ok(names.includes("search") && names.includes("gortex_read") && names.includes("gortex_edit"), names.join());
    const result = await s.execute("search", { operation: "symbols", query: "foo" });
    assert.deepEqual(result.content, [
      { type: "text", text: '[fake-gortex] search symbols {"operation":"symbols","query":"foo"}' },
    ]);
    await s.shutdown();
  });

  // Simulator: a scripted block decision. Gortex's own hook reads its facts from the daemon over
  // a UNIX socket, which fake-gortex serves only on Unix.
  test("HOOK-10: a tool_call runs gortex.exe hook and its block decision reaches Pi", async () => {
    const reason = "[Gortex] BLOCKED: use the graph";
    const s = await ownSession({
      scenario: { decisions: [{ match: { tool_name: "Read" }, decision: { block: true, reason } }] },
    });
    assert.deepEqual(await s.toolCall("read", { path: "src\\app.go" }), { block: true, reason });
    const hook = s.hooks().find((r) => r.envelope?.event === "tool_call");
    assert.equal(hook?.envelope?.tool_name, "Read");
    assert.equal(hook?.envelope?.cwd, s.ws.cwd, "the session cwd as a Windows path");
    await s.shutdown();
  });

  test("SES-16/MCP-15: shutdown ends the gortex mcp child", async () => {
    const s = await ownSession();
    const [pid] = s.mcpPids();
    assert.ok(alive(pid));
    await s.shutdown();
    assert.ok(await until(() => !alive(pid), 30000), "the child is gone");
  });

  // Simulator fault: a wedged child (ignores the end of its stdin), so only the job object
  // can end it once the host is gone.
  test("MCP-3: a host killed outright takes its gortex mcp child with it (job object)", async () => {
    const ws = workspace({ scenario: { faults: [{ kind: "ignore_sigterm" }] } });
    const script = `
      import { fakeLog, start } from ${JSON.stringify(new URL("../../../node/lib/pi.mjs", import.meta.url).href)};
      const ws = JSON.parse(process.env.SMOKE_WS);
      ws.log = () => fakeLog(ws.env.FAKE_GORTEX_LOG);
      const s = await start(ws, { env: { GORTEX_NATIVE_MCP: "0" } });
      await s.sessionStart();
      process.stdout.write(\`pids \${JSON.stringify(s.mcpPids())}\\n\`);
      setInterval(() => {}, 1000);
    `;
    const host = spawn(process.execPath, ["--input-type=module", "-e", script], {
      env: { ...process.env, SMOKE_WS: JSON.stringify({ ...ws, log: undefined }) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    host.stderr.on("data", (chunk) => (stderr += chunk));
    const exited = new Promise((resolve) => host.on("exit", resolve));
    const pids = await new Promise((resolve, reject) => {
      let out = "";
      host.stdout.on("data", (chunk) => {
        out += chunk;
        const line = out.match(/^pids (.*)$/m);
        if (line) resolve(JSON.parse(line[1]));
      });
      host.on("exit", (code) => reject(new Error(`host exited with ${code}: ${stderr}`)));
    });
    assert.equal(pids.length, 1, "one gortex mcp child");
    assert.ok(alive(pids[0]));
    host.kill(); // TerminateProcess: no exit handler runs in the host
    await exited;
    assert.ok(await until(() => !alive(pids[0]), 30000), `gortex mcp ${pids[0]} outlived its killed host`);
  });
});
