// Packaging (PKG-*) and the failure posture of the core (FAIL-4, PKG-4, PKG-5): the manifest,
// a bare copy found by Pi's discovery, a copy whose native core is missing, the packed tarball
// in a clean directory, and silence on stdout/stderr.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, test } from "node:test";
import { pi, PI_VERSION, PKG_DIR, ROOT, start, workspace } from "./lib/pi.mjs";

const OWN = { GORTEX_NATIVE_MCP: "0" };
const TARBALL = join(ROOT, "target/pi-gortex.tgz");
const manifest = JSON.parse(readFileSync(join(PKG_DIR, "package.json"), "utf8"));
const addonFile = readdirSync(PKG_DIR).find((name) => name.endsWith(".node"));

/** Copies what the package ships (its `files`) into `dest`, optionally without the core. */
function copyPackage(dest, { withAddon = true } = {}) {
  mkdirSync(dest, { recursive: true });
  for (const entry of ["package.json", "index.ts", "glue", "types"]) cpSync(join(PKG_DIR, entry), join(dest, entry), { recursive: true });
  if (withAddon) cpSync(join(PKG_DIR, addonFile), join(dest, addonFile));
}

const EXPECTED_HANDLERS = ["session_start", "session_compact", "before_agent_start", "session_shutdown", "tool_call", "tool_result", "tool_execution_end", "turn_end"];

function ourExtension(s, dir) {
  return s.loader.getExtensions().extensions.find((extension) => extension.path.startsWith(dir) || extension.resolvedPath?.startsWith(dir));
}

describe(`packaging on Pi ${PI_VERSION}`, () => {
  test("PKG-1/3/6: the manifest", () => {
    assert.equal(manifest.name, "pi-gortex");
    assert.equal(manifest.type, "module");
    assert.equal(manifest.license, "Apache-2.0");
    assert.ok(manifest.keywords.includes("pi-package") && manifest.keywords.includes("pi-extension"));
    assert.deepEqual(manifest.pi.extensions, ["./index.ts"]);
    assert.equal(manifest.main, "./index.ts");
    assert.equal(manifest.dependencies, undefined, "no runtime dependencies");
    assert.deepEqual(manifest.peerDependencies, { "@earendil-works/pi-coding-agent": "*", "@earendil-works/pi-tui": "*" });
    assert.equal(manifest.peerDependenciesMeta["@earendil-works/pi-coding-agent"].optional, true);
    assert.equal(manifest.engines.node, ">=22.19.0");
    assert.ok(manifest.napi.targets.includes("x86_64-unknown-linux-gnu"));
  });

  test("PKG-3/PKG-8: a bare copy in <agentDir>/extensions loads through discovery with the expected handlers", async () => {
    const ws = workspace();
    const dir = join(ws.agentDir, "extensions/pi-gortex");
    copyPackage(dir);
    const loader = new pi.DefaultResourceLoader({ cwd: ws.cwd, agentDir: ws.agentDir, noSkills: true, noPromptTemplates: true, noThemes: true, noContextFiles: true });
    const s = await start(ws, { loader, env: OWN });
    assert.deepEqual(s.errors, []);
    const extension = ourExtension(s, dir);
    assert.ok(extension, "discovered");
    const handlers = [...extension.handlers.keys()];
    assert.deepEqual(handlers, EXPECTED_HANDLERS, "SES-18 order, no context handler");
    assert.equal(extension.handlers.get("tool_call").length, 2, "enforcement, then the diff watcher");
    assert.equal(extension.handlers.get("session_shutdown").length, 2);
    await s.sessionStart();
    assert.ok(s.toolNames().includes("gortex_read"));
    await s.shutdown();
  });

  test("PKG-4/FAIL-2: without its native core the extension loads and tells the first turn, once", async () => {
    const ws = workspace();
    const dir = join(ws.dir, "pkg-without-core");
    copyPackage(dir, { withAddon: false });
    const s = await start(ws, { pkgDir: dir, env: OWN });
    assert.deepEqual(s.errors, []);
    await s.sessionStart();
    const [first] = await s.beforeAgentStart();
    assert.match(first.content, /^\[Gortex\] graph tools are unavailable this session \(pi-gortex native core failed to load: .+\)\. Tell the user to run \/reload to retry the connection\.$/);
    assert.deepEqual(first.details, { briefing: false });
    assert.deepEqual(await s.beforeAgentStart("again"), []);
    await s.shutdown();
  });

  test("PKG-4: the packed tarball loads from a clean directory with no node_modules", async () => {
    assert.ok(existsSync(TARBALL), `make pack first: ${TARBALL}`);
    const ws = workspace();
    const clean = join(ws.dir, "clean");
    mkdirSync(clean);
    execFileSync("tar", ["-xzf", TARBALL, "-C", clean]);
    const dir = join(clean, "package");
    assert.ok(!existsSync(join(dir, "node_modules")));
    const s = await start(ws, { pkgDir: dir, env: OWN });
    assert.deepEqual(s.errors, []);
    await s.sessionStart();
    const result = await s.execute("search", { query: "x" });
    assert.match(result.content[0].text, /^\[fake-gortex\] search/);
    await s.shutdown();
  });

  test("PKG-5: a whole session writes nothing to the process's stdout or stderr (fd level)", () => {
    // A child Node runs the session, so writes by the core or by children at the file
    // descriptor level are caught too, not only JavaScript writes.
    const script = `
      import { start, workspace } from ${JSON.stringify(new URL("./lib/pi.mjs", import.meta.url).href)};
      const faults = [{ kind: "hook_stderr", text: "noise from the hook" }, { kind: "stderr_flood", bytes: 100000 }];
      const s = await start(workspace({ scenario: { faults } }), { env: { GORTEX_NATIVE_MCP: "0" } });
      await s.sessionStart();
      await s.beforeAgentStart();
      await s.toolCall("read", { path: "a.go" });
      await s.execute("search", { query: "x" });
      await s.shutdown();
    `;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { timeout: 30000, encoding: "utf8" });
    assert.equal(run.status, 0);
    assert.equal(run.stdout, "");
    assert.equal(run.stderr, "");
  });

  test("FAIL-4: a panic in the core fails open and is reported once per session", async () => {
    const ws = workspace();
    const s = await start(ws, { env: OWN });
    const addon = createRequire(join(PKG_DIR, "index.ts"))(`./${addonFile}`);
    assert.equal(await addon.debugForcePanic(true), false, "the async guard answers the fallback");
    assert.equal(await addon.debugForcePanic(false), false, "the sync guard answers the fallback");
    await s.sessionStart();
    const warnings = () => s.host.notifications.filter((n) => n.message.startsWith("pi-gortex hit an internal error"));
    assert.equal(warnings().length, 1);
    assert.match(warnings()[0].message, /forced by debugForcePanic/);
    await addon.debugForcePanic(true);
    await s.beforeAgentStart();
    assert.equal(warnings().length, 1, "not repeated within the session");
    assert.ok(s.toolNames().includes("search"), "the session kept its tools");
    await s.shutdown();
  });

  test("FAIL-4: a value the addon cannot read is recorded like a panic, never silently defaulted", async () => {
    const ws = workspace();
    const s = await start(ws, { env: OWN });
    const addon = createRequire(join(PKG_DIR, "index.ts"))(`./${addonFile}`);
    // A ToolCallEvent whose toolCallId is a number: the export answers its fail-open value...
    assert.equal(addon.watchEdit(0, 0, { toolCallId: 7, toolName: "edit", input: {}, cwd: ws.cwd, sessionId: "" }), false);
    await s.sessionStart();
    // ...and the session hears about it once, naming the shape that failed.
    const warnings = s.host.notifications.filter((n) => n.message.startsWith("pi-gortex hit an internal error"));
    assert.equal(warnings.length, 1, JSON.stringify(s.host.notifications));
    assert.match(warnings[0].message, /could not read a ToolCallEvent/);
    await s.shutdown();
  });
});
