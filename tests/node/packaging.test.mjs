// Packaging (PKG-*) and the failure posture of the core (FAIL-4, PKG-4, PKG-5): the manifest,
// a bare copy found by Pi's discovery, a copy whose native core is missing, the packed tarball
// in a clean directory, and silence on stdout/stderr.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { checkPlatform, inspectBinary, packAll } from "../../bindings/node/scripts/pack-all.mjs";
import { EXPECTED_HANDLERS } from "./lib/handlers.mjs";
import { ADDON_FILE, copyPackage, FAKE, PI_VERSION, PKG_DIR, pi, ROOT, start, workspace } from "./lib/pi.mjs";

const OWN = { GORTEX_NATIVE_MCP: "0" };
const TARBALL = join(ROOT, "target/pi-gortex.tgz");
const manifest = JSON.parse(readFileSync(join(PKG_DIR, "package.json"), "utf8"));
const addonFile = ADDON_FILE;

function ourExtension(s, dir) {
  return s.loader
    .getExtensions()
    .extensions.find((extension) => extension.path.startsWith(dir) || extension.resolvedPath?.startsWith(dir));
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
    assert.deepEqual(manifest.peerDependencies, {
      "@earendil-works/pi-coding-agent": "*",
      "@earendil-works/pi-tui": "*",
    });
    assert.equal(manifest.peerDependenciesMeta["@earendil-works/pi-coding-agent"].optional, true);
    assert.equal(manifest.engines.node, ">=22.19.0");
    assert.ok(manifest.napi.targets.includes("x86_64-unknown-linux-gnu"));
    assert.equal(manifest.repository.url, "git+https://github.com/gortexhq/pi.git");
    assert.ok(manifest.homepage && manifest.bugs.url, "homepage and bugs");
  });

  test("PKG-9: six declared targets, no Windows, each with its npm/<platform>/ package", () => {
    const tags = [
      "linux-x64-gnu",
      "linux-x64-musl",
      "linux-arm64-gnu",
      "linux-arm64-musl",
      "darwin-x64",
      "darwin-arm64",
    ];
    assert.equal(manifest.napi.targets.length, tags.length);
    assert.ok(!manifest.napi.targets.some((target) => target.includes("windows")), "Windows is not a target (README)");
    assert.deepEqual(readdirSync(join(PKG_DIR, "npm")).sort(), [...tags].sort());
    for (const tag of tags) {
      const platform = JSON.parse(readFileSync(join(PKG_DIR, "npm", tag, "package.json"), "utf8"));
      assert.equal(platform.name, `pi-gortex-${tag}`);
      assert.equal(platform.version, manifest.version, `${tag} version follows pi-gortex`);
      assert.equal(platform.main, `pi-gortex.${tag}.node`);
      assert.ok(!platform.keywords.includes("pi-package"), `${tag} is not a Pi package of its own`);
    }
  });

  test("the tarball holds LICENSE, CHANGELOG.md and the README", () => {
    assert.ok(existsSync(TARBALL), `make pack first: ${TARBALL}`);
    const listing = execFileSync("tar", ["-tzf", TARBALL], { encoding: "utf8" }).trim().split("\n");
    for (const file of ["package/LICENSE", "package/CHANGELOG.md", "package/README.md"])
      assert.ok(listing.includes(file), `${file} in ${listing.join(", ")}`);
    assert.match(
      readFileSync(join(PKG_DIR, "LICENSE"), "utf8"),
      /Apache License\s+Version 2\.0, January 2004[\s\S]*END OF TERMS AND CONDITIONS/,
    );
    const readme = readFileSync(join(PKG_DIR, "README.md"), "utf8");
    for (const topic of [
      "## Prerequisite: the `gortex` daemon",
      "## Install",
      "## Configure",
      "/gortex",
      "## Troubleshooting",
    ])
      assert.ok(readme.includes(topic), topic);
  });

  test("PKG-1: the packed package loads one bundled module; the checkout's sources stay its source", () => {
    assert.ok(existsSync(TARBALL), `make pack first: ${TARBALL}`);
    const listing = execFileSync("tar", ["-tzf", TARBALL], { encoding: "utf8" }).trim().split("\n");
    const packed = JSON.parse(execFileSync("tar", ["-xzOf", TARBALL, "package/package.json"], { encoding: "utf8" }));
    assert.deepEqual(packed.pi.extensions, ["./dist/extension.js"]);
    assert.equal(packed.main, "./dist/extension.js");
    assert.equal(packed.exports["."], "./dist/extension.js");
    assert.equal(packed.devDependencies, undefined);
    assert.ok(listing.includes("package/dist/extension.js"));
    assert.ok(listing.includes("package/glue/load.mjs"), "the bin's loader");
    assert.deepEqual(
      listing.filter((file) => /\.ts$/.test(file) && !file.endsWith(".d.ts")),
      [],
      "no TypeScript source beside the bundle",
    );
    const bundled = execFileSync("tar", ["-xzOf", TARBALL, "package/dist/extension.js"], { encoding: "utf8" });
    const imports = [...bundled.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]);
    const kept = imports.filter((spec) => !spec.startsWith("node:"));
    assert.ok(kept.length > 0, "the bundle imports Pi's packages");
    assert.deepEqual(
      kept.filter((spec) => !spec.startsWith("@earendil-works/")),
      [],
      "only Pi's own packages stay imports: the glue is inside",
    );
  });

  test("make pack-all: one platform package per core present, the main package with every platform optional and no core", () => {
    const out = join(workspace().dir, "pack-all");
    const result = packAll({ out, sources: [PKG_DIR] });
    assert.deepEqual(result.problems, []);
    assert.deepEqual(
      result.packed.map((p) => p.tag),
      [addonFile.replace(/^pi-gortex\.|\.node$/g, "")],
    );
    const list = (tarball) => execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" }).trim().split("\n").sort();
    assert.deepEqual(list(result.packed[0].tarball), [
      "package/README.md",
      "package/package.json",
      `package/${addonFile}`,
    ]);
    const mainFiles = list(result.main);
    assert.ok(!mainFiles.some((file) => file.endsWith(".node")), "no core in the main package");
    const published = JSON.parse(
      execFileSync("tar", ["-xzOf", result.main, "package/package.json"], { encoding: "utf8" }),
    );
    assert.deepEqual(
      Object.keys(published.optionalDependencies).sort(),
      manifest.napi.targets.length === 6
        ? readdirSync(join(PKG_DIR, "npm"))
            .map((tag) => `pi-gortex-${tag}`)
            .sort()
        : [],
    );
    assert.ok(Object.values(published.optionalDependencies).every((version) => version === manifest.version));
  });

  test("make pack-all refuses a core whose binary is not for the platform its name claims", () => {
    const core = readFileSync(join(PKG_DIR, addonFile));
    assert.deepEqual(inspectBinary(core), { os: "linux", cpu: "x64", libc: "glibc" });
    const darwin = JSON.parse(readFileSync(join(PKG_DIR, "npm/darwin-arm64/package.json"), "utf8"));
    assert.deepEqual(checkPlatform("darwin-arm64", manifest, darwin, core), [
      "pi-gortex.darwin-arm64.node: built for os linux, its name says darwin",
      "pi-gortex.darwin-arm64.node: built for cpu x64, its name says arm64",
    ]);
    const musl = JSON.parse(readFileSync(join(PKG_DIR, "npm/linux-x64-musl/package.json"), "utf8"));
    assert.deepEqual(checkPlatform("linux-x64-musl", manifest, musl, core), [
      "pi-gortex.linux-x64-musl.node: built for libc glibc, its name says musl",
    ]);
    assert.deepEqual(checkPlatform("linux-x64-musl", manifest, musl, Buffer.from("not a binary")), [
      "pi-gortex.linux-x64-musl.node: not a 64-bit ELF or Mach-O addon",
    ]);
  });

  test("PKG-9 loader: the platform tag comes from Node's ELF interpreter, never from process.report.getReport()", async () => {
    const loader = await import(join(PKG_DIR, "glue/load.mjs"));
    const original = process.report.getReport;
    let reports = 0;
    process.report.getReport = (...args) => {
      reports += 1;
      return original.apply(process.report, args);
    };
    try {
      assert.equal(loader.platformTag(), addonFile.replace(/^pi-gortex\.|\.node$/g, ""));
    } finally {
      process.report.getReport = original;
    }
    assert.equal(reports, 0, "getReport can take minutes on some hosts; it is not on the start path");
    const head = readFileSync(process.execPath).subarray(0, 4096);
    assert.match(loader.elfInterpreter(head), /^\/lib(64)?\/ld-linux-x86-64\.so\.2$/);
    assert.equal(loader.libcOfInterpreter("/lib/ld-musl-aarch64.so.1"), "musl");
    assert.equal(loader.libcOfInterpreter("/lib/ld-linux-aarch64.so.1"), "gnu");
    assert.equal(loader.elfInterpreter(Buffer.from("#!/bin/sh\n")), undefined);
    assert.equal(loader.elfInterpreter(head.subarray(0, 60)), undefined, "truncated: no answer, no throw");
    assert.equal(loader.tagOfTriple("aarch64-apple-darwin"), "darwin-arm64");
    assert.equal(loader.tagOfTriple("x86_64-unknown-linux-musl"), "linux-x64-musl");
  });

  test("PKG-3/PKG-8: a bare copy in <agentDir>/extensions loads through discovery with the expected handlers", async () => {
    const ws = workspace();
    const dir = join(ws.agentDir, "extensions/pi-gortex");
    copyPackage(dir);
    const loader = new pi.DefaultResourceLoader({
      cwd: ws.cwd,
      agentDir: ws.agentDir,
      noSkills: true,
      noPromptTemplates: true,
      noThemes: true,
      noContextFiles: true,
    });
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

  test("PKG-11: `npx pi-gortex doctor --json` from the installed package prints a valid DoctorReport, as the Rust binary does", async () => {
    assert.ok(existsSync(TARBALL), `make pack first: ${TARBALL}`);
    const ws = workspace();
    const project = join(ws.dir, "project");
    mkdirSync(project);
    const npm = (args) =>
      execFileSync("npm", args, {
        cwd: project,
        encoding: "utf8",
        env: { ...process.env, npm_config_audit: "false", npm_config_fund: "false", npm_config_offline: "true" },
      });
    npm(["init", "-y"]);
    npm(["install", "--no-save", TARBALL]);
    const env = {
      ...process.env,
      GORTEX_BIN: FAKE,
      FAKE_GORTEX_LOG: join(ws.dir, "npx.log"),
      PI_CODING_AGENT_DIR: ws.agentDir,
    };
    for (const key of Object.keys(env)) if (key.startsWith("GORTEX_") && key !== "GORTEX_BIN") delete env[key];
    const npx = spawnSync("npx", ["--no-install", "pi-gortex", "doctor", "--json", "--cwd", ws.cwd], {
      cwd: project,
      env,
      encoding: "utf8",
      timeout: 60000,
    });
    assert.equal(npx.status, 0, npx.stderr);
    assert.equal(npx.stderr, "");
    const report = JSON.parse(npx.stdout);
    assert.equal(report.ok, true);
    assert.equal(report.binary.resolved, FAKE);
    // Valid against schema/doctor.schema.json, by the project's own validator.
    const file = join(ws.dir, "report.json");
    writeFileSync(file, npx.stdout);
    const valid = spawnSync("cargo", ["run", "-q", "-p", "pi-gortex-codegen", "--", "validate", "DoctorReport", file], {
      cwd: ROOT,
      encoding: "utf8",
    });
    assert.equal(valid.status, 0, `${valid.stdout}${valid.stderr}`);
    // Same bytes as the Rust binary, once the measured latency is set aside.
    const rust = spawnSync(
      "cargo",
      ["run", "-q", "-p", "pi-gortex-runtime", "--bin", "pi-gortex", "--", "doctor", "--json", "--cwd", ws.cwd],
      { cwd: ROOT, env, encoding: "utf8" },
    );
    assert.equal(rust.status, npx.status);
    const unlatency = (text) => text.replace(/"latency_?[mM]s": [\d.]+/g, '"latencyMs": 0');
    assert.equal(unlatency(npx.stdout), unlatency(rust.stdout));
    // The exit codes are the binary's: a usage error is 2, with clap's message on stderr.
    const usage = spawnSync("npx", ["--no-install", "pi-gortex", "frobnicate"], {
      cwd: project,
      env,
      encoding: "utf8",
    });
    assert.equal(usage.status, 2);
    assert.match(usage.stderr, /unrecognized subcommand 'frobnicate'/);
    const listing = execFileSync("tar", ["-tzf", TARBALL], { encoding: "utf8" });
    assert.ok(listing.includes("package/bin/pi-gortex.mjs"), "the bin entry is in the tarball");
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
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      timeout: 30000,
      encoding: "utf8",
    });
    assert.equal(run.status, 0);
    assert.equal(run.stdout, "");
    assert.equal(run.stderr, "");
  });
});
