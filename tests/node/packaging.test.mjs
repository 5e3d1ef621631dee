// Packaging (PKG-*) and the failure posture of the core (FAIL-4, PKG-4, PKG-5): the manifest,
// a bare copy found by Pi's discovery, a copy whose native core is missing, the packed tarball
// in a clean directory, and silence on stdout/stderr.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { libcOfElf, machoVersion, readBinary } from "../../bindings/node/scripts/binary-headers.mjs";
import {
  checkPlatform,
  inspectBinary,
  MACOS_MIN,
  packAll,
  platformOf,
  tagOf,
} from "../../bindings/node/scripts/pack-all.mjs";
import { declaredRange } from "../pi-versions/versions.mjs";
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
    // The declared Pi range is the one `make test-pi-versions` runs, oldest to newest; pi-tui
    // ships in step with Pi.
    const range = declaredRange();
    assert.deepEqual(manifest.peerDependencies, {
      "@earendil-works/pi-coding-agent": range,
      "@earendil-works/pi-tui": range,
    });
    assert.equal(manifest.peerDependenciesMeta["@earendil-works/pi-coding-agent"].optional, true);
    assert.equal(manifest.engines.node, ">=22.19.0");
    assert.ok(manifest.napi.targets.includes("x86_64-unknown-linux-gnu"));
    assert.equal(manifest.repository.url, "git+https://github.com/gortexhq/pi.git");
    assert.ok(manifest.homepage && manifest.bugs.url, "homepage and bugs");
  });

  test("PKG-9: eight declared targets, Windows included, each with its npm/<platform>/ package", () => {
    const tags = [
      "linux-x64-gnu",
      "linux-x64-musl",
      "linux-arm64-gnu",
      "linux-arm64-musl",
      "darwin-x64",
      "darwin-arm64",
      "win32-x64-msvc",
      "win32-arm64-msvc",
    ];
    assert.deepEqual(manifest.napi.targets.map(tagOf), tags);
    assert.deepEqual(readdirSync(join(PKG_DIR, "npm")).sort(), [...tags].sort());
    for (const tag of tags) {
      const platform = JSON.parse(readFileSync(join(PKG_DIR, "npm", tag, "package.json"), "utf8"));
      assert.equal(platform.name, `pi-gortex-${tag}`);
      assert.equal(platform.version, manifest.version, `${tag} version follows pi-gortex`);
      assert.equal(platform.main, `pi-gortex.${tag}.node`);
      assert.deepEqual(platform.files, [platform.main]);
      assert.ok(!platform.keywords.includes("pi-package"), `${tag} is not a Pi package of its own`);
      const { os, cpu, libc } = platformOf(tag);
      assert.deepEqual([platform.os, platform.cpu, platform.libc], [[os], [cpu], libc && [libc]], tag);
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
      manifest.napi.targets.length === 8
        ? readdirSync(join(PKG_DIR, "npm"))
            .map((tag) => `pi-gortex-${tag}`)
            .sort()
        : [],
    );
    assert.ok(Object.values(published.optionalDependencies).every((version) => version === manifest.version));
  });

  test("make pack-all refuses a core whose binary is not for the platform its name claims", () => {
    const core = readFileSync(join(PKG_DIR, addonFile));
    // This machine's glibc core: x64 here, arm64 in the arm64 run under qemu (test-platforms).
    const cpu = process.arch;
    const other = cpu === "x64" ? "arm64" : "x64";
    assert.deepEqual(inspectBinary(core), { os: "linux", cpu, libc: "glibc", problems: [] });
    const darwin = JSON.parse(readFileSync(join(PKG_DIR, `npm/darwin-${other}/package.json`), "utf8"));
    assert.deepEqual(checkPlatform(`darwin-${other}`, manifest, darwin, core), [
      `pi-gortex.darwin-${other}.node: built for os linux, its name says darwin`,
      `pi-gortex.darwin-${other}.node: built for cpu ${cpu}, its name says ${other}`,
    ]);
    const musl = JSON.parse(readFileSync(join(PKG_DIR, `npm/linux-${cpu}-musl/package.json`), "utf8"));
    assert.deepEqual(checkPlatform(`linux-${cpu}-musl`, manifest, musl, core), [
      `pi-gortex.linux-${cpu}-musl.node: built for libc glibc, its name says musl`,
    ]);
    assert.deepEqual(checkPlatform(`linux-${cpu}-musl`, manifest, musl, Buffer.from("not a binary")), [
      `pi-gortex.linux-${cpu}-musl.node: not a 64-bit ELF, PE or Mach-O addon`,
    ]);
  });

  // Real objects from the linkers the cores are built with (tests/platforms/linux/fixtures.sh).
  const FIXTURES = join(ROOT, "target/platform-fixtures");
  const fixture = (name) => {
    assert.ok(existsSync(join(FIXTURES, name)), `make platform-fixtures first: ${join(FIXTURES, name)}`);
    return readFileSync(join(FIXTURES, name));
  };
  const npmManifest = (tag) => JSON.parse(readFileSync(join(PKG_DIR, "npm", tag, "package.json"), "utf8"));

  test("pack-all reads the ELF: e_machine for the architecture, DT_NEEDED and PT_INTERP for glibc or musl", () => {
    assert.deepEqual(inspectBinary(fixture("linux-x64-gnu.so")), {
      os: "linux",
      cpu: "x64",
      libc: "glibc",
      problems: [],
    });
    assert.deepEqual(inspectBinary(fixture("linux-arm64-gnu.so")), {
      os: "linux",
      cpu: "arm64",
      libc: "glibc",
      problems: [],
    });
    // Linked against musl's own sysroot (zig, as cargo-zigbuild does): DT_NEEDED is plain `libc.so`.
    const musl = readBinary(fixture("linux-x64-musl.so"));
    assert.ok(musl.needed.includes("libc.so"), musl.needed.join(", "));
    assert.deepEqual(
      checkPlatform("linux-x64-musl", manifest, npmManifest("linux-x64-musl"), fixture("linux-x64-musl.so")),
      [],
    );
    assert.deepEqual(
      checkPlatform("linux-x64-gnu", manifest, npmManifest("linux-x64-gnu"), fixture("linux-x64-musl.so")),
      ["pi-gortex.linux-x64-gnu.node: built for libc musl, its name says glibc"],
    );
    const exe = readBinary(fixture("linux-x64-gnu.exe"));
    assert.match(exe.interpreter, /ld-linux-x86-64\.so\.2$/);
    assert.equal(libcOfElf("/lib/ld-musl-aarch64.so.1", []), "musl");
    assert.equal(libcOfElf(undefined, ["libc.musl-x86_64.so.1"]), "musl");
    assert.equal(libcOfElf(undefined, ["libm.so.6"]), undefined, "no libc named: no guess");
    assert.deepEqual(inspectBinary(fixture("linux-x64-gnu.exe")).problems, ["an ELF of type 2, not a shared object"]);
  });

  test("pack-all reads the PE: the machine field, a DLL, PE32+", () => {
    const win = npmManifest("win32-x64-msvc");
    assert.deepEqual(inspectBinary(fixture("win32-x64.dll")), { os: "win32", cpu: "x64", problems: [] });
    assert.deepEqual(checkPlatform("win32-x64-msvc", manifest, win, fixture("win32-x64.dll")), []);
    assert.deepEqual(
      checkPlatform("win32-arm64-msvc", manifest, npmManifest("win32-arm64-msvc"), fixture("win32-x64.dll")),
      ["pi-gortex.win32-arm64-msvc.node: built for cpu x64, its name says arm64"],
    );
    assert.deepEqual(checkPlatform("win32-x64-msvc", manifest, win, fixture("win32-x64.exe")), [
      "pi-gortex.win32-x64-msvc.node: a PE image that is not a DLL",
    ]);
    assert.deepEqual(checkPlatform("win32-x64-msvc", manifest, win, fixture("linux-x64-gnu.so")), [
      "pi-gortex.win32-x64-msvc.node: built for os linux, its name says win32",
    ]);
  });

  test("pack-all reads the Mach-O: cputype, LC_BUILD_VERSION's minos, only Node-API left to the host", () => {
    for (const tag of ["darwin-arm64", "darwin-x64"])
      assert.deepEqual(checkPlatform(tag, manifest, npmManifest(tag), fixture(`${tag}.dylib`)), [], tag);
    const info = readBinary(fixture("darwin-arm64.dylib"));
    assert.equal(info.minos, "11.0");
    assert.deepEqual(
      info.undefinedSymbols.filter((s) => s.library === undefined).map((s) => s.name),
      ["_napi_create_object"],
      "Node-API is left to the host; malloc and free are bound to libSystem",
    );
    assert.ok(info.undefinedSymbols.some((s) => s.name === "_malloc" && s.library === "/usr/lib/libSystem.B.dylib"));
    assert.deepEqual(checkPlatform("darwin-x64", manifest, npmManifest("darwin-x64"), fixture("darwin-arm64.dylib")), [
      "pi-gortex.darwin-x64.node: built for cpu arm64, its name says x64",
    ]);
    assert.deepEqual(inspectBinary(fixture("darwin-arm64-macos15.dylib")).problems, [
      `needs macOS 15.0, newer than ${MACOS_MIN} (MACOSX_DEPLOYMENT_TARGET)`,
    ]);
    assert.deepEqual(inspectBinary(fixture("darwin-arm64-stray.dylib")).problems, [
      "left to the host but not Node-API: _not_node_api",
    ]);
    assert.equal(machoVersion(0x000b0000), "11.0");
    assert.equal(machoVersion(0x000a0f06), "10.15.6");
  });

  test("pack-all's header reader answers `undefined`, never throws, for a truncated or lying header", () => {
    for (const name of ["linux-x64-musl.so", "win32-x64.dll", "darwin-arm64.dylib"]) {
      const whole = fixture(name);
      for (const length of [0, 4, 20, 63, 64, 200, 1024])
        assert.doesNotThrow(() => readBinary(whole.subarray(0, length)), `${name} cut at ${length}`);
      assert.equal(readBinary(whole.subarray(0, 40)), undefined, `${name} cut at 40`);
    }
    // A program header table said to lie beyond the file.
    const elf = Buffer.from(fixture("linux-x64-musl.so"));
    elf.writeBigUInt64LE(0xffffffffn, 32);
    assert.equal(readBinary(elf), undefined);
    // An e_lfanew that points past the end.
    const pe = Buffer.from(fixture("win32-x64.dll"));
    pe.writeUInt32LE(0x7fffffff, 0x3c);
    assert.equal(readBinary(pe), undefined);
    // A load command that claims more bytes than the commands hold.
    const macho = Buffer.from(fixture("darwin-arm64.dylib"));
    macho.writeUInt32LE(0x7fffffff, 32 + 4);
    assert.equal(readBinary(macho), undefined);
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
    const interpreter =
      process.arch === "arm64" ? /^\/lib(64)?\/ld-linux-aarch64\.so\.1$/ : /^\/lib(64)?\/ld-linux-x86-64\.so\.2$/;
    assert.match(loader.elfInterpreter(head), interpreter);
    assert.equal(loader.libcOfInterpreter("/lib/ld-musl-aarch64.so.1"), "musl");
    assert.equal(loader.libcOfInterpreter("/lib/ld-linux-aarch64.so.1"), "gnu");
    assert.equal(loader.elfInterpreter(Buffer.from("#!/bin/sh\n")), undefined);
    assert.equal(loader.elfInterpreter(head.subarray(0, 60)), undefined, "truncated: no answer, no throw");
    assert.equal(loader.tagOfTriple("aarch64-apple-darwin"), "darwin-arm64");
    assert.equal(loader.tagOfTriple("x86_64-unknown-linux-musl"), "linux-x64-musl");
    assert.equal(loader.tagOfTriple("aarch64-pc-windows-msvc"), "win32-arm64-msvc");
    // Node for Windows is an MSVC build: its tag is napi's, the one npm/<platform>/ is named by.
    assert.equal(
      loader.tagOfPlatform("win32", "x64", () => "unused"),
      "win32-x64-msvc",
    );
    assert.equal(
      loader.tagOfPlatform("darwin", "arm64", () => "unused"),
      "darwin-arm64",
    );
    assert.equal(
      loader.tagOfPlatform("linux", "arm64", () => "musl"),
      "linux-arm64-musl",
    );
    for (const triple of manifest.napi.targets) {
      const tag = loader.tagOfTriple(triple);
      assert.equal(tag, tagOf(triple), triple);
      const [os, cpu, abi] = tag.split("-");
      assert.equal(
        loader.tagOfPlatform(os, cpu, () => abi),
        tag,
        "the loader looks for what pack-all publishes",
      );
    }
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
    // One handler per event: the core judges a call and claims its files in one answer.
    assert.equal(extension.handlers.get("tool_call").length, 1, "enforcement and the edit diff in one call");
    assert.equal(extension.handlers.get("session_shutdown").length, 1);
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
