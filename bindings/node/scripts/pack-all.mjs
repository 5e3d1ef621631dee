#!/usr/bin/env node
// pack-all: assembles the publishable npm packages the napi-rs way from
// whatever `pi-gortex.<platform>.node` files are present.
// For each platform found, `npm/<platform>/` is staged with its core and
// packed; the main package is staged without any core, with every platform as
// an optional dependency (what `napi prepublish` writes at release time), and
// packed. Every core is checked to be a binary for the platform its name
// claims, and every tarball is checked to hold exactly what it should.
//
//   node scripts/pack-all.mjs --out DIR [--from DIR]...
//
// Exits 1 with one line per problem. Not shipped (not in `files`).
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { readBinary } from "./binary-headers.mjs";
import { BUNDLE, stageMainPackage } from "./stage.mjs";

const PKG_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** napi's platform tag for a Rust target triple, e.g. `linux-x64-gnu`, `win32-x64-msvc`. */
export function tagOf(triple) {
  const [arch, , os, abi] = triple.split("-");
  const cpu = { x86_64: "x64", aarch64: "arm64" }[arch];
  if (!cpu) throw new Error(`unsupported target ${triple}`);
  if (os === "darwin") return `darwin-${cpu}`;
  if (os === "linux") return `linux-${cpu}-${abi}`;
  if (os === "windows") return `win32-${cpu}-${abi}`;
  throw new Error(`unsupported target ${triple}`);
}

/** What a tag promises: npm's `os`, `cpu` and (Linux) `libc` fields. */
export function platformOf(tag) {
  const [os, cpu, abi] = tag.split("-");
  return { os, cpu, ...(os === "linux" ? { libc: abi === "gnu" ? "glibc" : "musl" } : {}) };
}

/** The oldest macOS the darwin cores promise (the release workflow's MACOSX_DEPLOYMENT_TARGET). */
export const MACOS_MIN = "11.0";
const ET_DYN = 3;
const MH_DYLIB = 6;
const MH_BUNDLE = 8;

/** a.b[.c] <= x.y[.z] */
function versionAtMost(version, limit) {
  const a = version.split(".").map(Number);
  const b = limit.split(".").map(Number);
  for (let i = 0; i < 3; i += 1) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) < (b[i] ?? 0);
  return true;
}

/**
 * What a compiled addon really is, read from its headers (binary-headers.mjs):
 * `{ os, cpu, libc? }` plus `problems`, the ways it is not a loadable addon for
 * that platform; `undefined` for a file that is not a 64-bit ELF, PE or Mach-O.
 */
export function inspectBinary(bytes) {
  const info = readBinary(bytes);
  if (!info) return undefined;
  const problems = [];
  if (info.format === "elf") {
    if (info.type !== ET_DYN) problems.push(`an ELF of type ${info.type}, not a shared object`);
    return {
      os: "linux",
      cpu: info.cpu ?? `machine ${info.machine}`,
      ...(info.libc ? { libc: info.libc } : {}),
      problems,
    };
  }
  if (info.format === "pe") {
    if (!info.dll) problems.push("a PE image that is not a DLL");
    if (!info.pe32plus) problems.push("a PE image that is not PE32+");
    return { os: "win32", cpu: info.cpu ?? `machine 0x${info.machine.toString(16)}`, problems };
  }
  if (info.filetype !== MH_BUNDLE && info.filetype !== MH_DYLIB)
    problems.push(`a Mach-O of filetype ${info.filetype}, not a dylib or bundle`);
  if (!info.minos) problems.push("no minimum macOS version (LC_BUILD_VERSION)");
  else if (!versionAtMost(info.minos, MACOS_MIN))
    problems.push(`needs macOS ${info.minos}, newer than ${MACOS_MIN} (MACOSX_DEPLOYMENT_TARGET)`);
  // Node-API comes from the host process; everything else must be bound to a system library.
  const hostSymbols = info.undefinedSymbols.filter((s) => s.library === undefined).map((s) => s.name);
  const foreign = hostSymbols.filter((name) => !/^_(napi|node_api)_/.test(name));
  if (foreign.length) problems.push(`left to the host but not Node-API: ${foreign.slice(0, 5).join(", ")}`);
  const libraries = info.libraries.filter((lib) => !/^\/(usr\/lib|System\/Library)\//.test(lib));
  if (libraries.length) problems.push(`links non-system libraries: ${libraries.join(", ")}`);
  return { os: "darwin", cpu: info.cpu ?? `cputype 0x${info.cputype.toString(16)}`, minos: info.minos, problems };
}

/** Problems with one core and its platform package manifest; empty when it is right. */
export function checkPlatform(tag, manifest, platformManifest, bytes) {
  const problems = [];
  const want = platformOf(tag);
  const file = `pi-gortex.${tag}.node`;
  const is = inspectBinary(bytes);
  if (!is) problems.push(`${file}: not a 64-bit ELF, PE or Mach-O addon`);
  else {
    for (const problem of is.problems) problems.push(`${file}: ${problem}`);
    for (const key of Object.keys(want)) {
      if (want[key] !== is[key])
        problems.push(`${file}: built for ${key} ${is[key] ?? "unknown"}, its name says ${want[key]}`);
    }
  }
  const expect = { name: `pi-gortex-${tag}`, version: manifest.version, main: file };
  for (const [key, value] of Object.entries(expect)) {
    if (platformManifest[key] !== value)
      problems.push(
        `npm/${tag}/package.json: ${key} is ${JSON.stringify(platformManifest[key])}, expected ${JSON.stringify(value)}`,
      );
  }
  for (const [key, value] of Object.entries(want)) {
    if (JSON.stringify(platformManifest[key]) !== JSON.stringify([value]))
      problems.push(
        `npm/${tag}/package.json: ${key} is ${JSON.stringify(platformManifest[key])}, expected ["${value}"]`,
      );
  }
  return problems;
}

/** Every `pi-gortex.<tag>.node` under the source directories (one level of subdirectories, napi artifacts' layout). */
function findCores(sources, tags) {
  const found = new Map();
  for (const source of sources) {
    if (!existsSync(source)) continue;
    const dirs = [
      source,
      ...readdirSync(source)
        .map((name) => join(source, name))
        .filter((path) => statSync(path).isDirectory() && basename(path) !== "node_modules"),
    ];
    for (const dir of dirs) {
      for (const tag of tags) {
        const path = join(dir, `pi-gortex.${tag}.node`);
        if (!found.has(tag) && existsSync(path)) found.set(tag, path);
      }
    }
  }
  return found;
}

function npmPack(dir, out) {
  const name = execFileSync("npm", ["pack", "--silent", "--pack-destination", out], { cwd: dir, encoding: "utf8" })
    .trim()
    .split("\n")
    .pop();
  return join(out, name);
}

function listTarball(tarball) {
  return execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" }).trim().split("\n").sort();
}

export function packAll({ out, sources = [PKG_DIR, join(PKG_DIR, "artifacts")] }) {
  const manifest = JSON.parse(readFileSync(join(PKG_DIR, "package.json"), "utf8"));
  const tags = manifest.napi.targets.map(tagOf);
  const problems = [];
  const packed = [];
  rmSync(out, { recursive: true, force: true });
  mkdirSync(join(out, "stage"), { recursive: true });

  for (const [tag, corePath] of findCores(sources, tags)) {
    const npmDir = join(PKG_DIR, "npm", tag);
    const platformManifest = JSON.parse(readFileSync(join(npmDir, "package.json"), "utf8"));
    const found = checkPlatform(tag, manifest, platformManifest, readFileSync(corePath));
    problems.push(...found);
    if (found.length > 0) continue;
    const stage = join(out, "stage", tag);
    cpSync(npmDir, stage, { recursive: true });
    cpSync(corePath, join(stage, `pi-gortex.${tag}.node`));
    const tarball = npmPack(stage, out);
    const want = ["package/README.md", "package/package.json", `package/pi-gortex.${tag}.node`];
    const got = listTarball(tarball);
    if (JSON.stringify(got) !== JSON.stringify(want))
      problems.push(`${basename(tarball)} holds ${got.join(", ")}; expected ${want.join(", ")}`);
    packed.push({ tag, tarball });
  }

  // The main package: no core inside; every platform as an optional dependency.
  const stage = join(out, "stage", "pi-gortex");
  stageMainPackage(stage, { withCore: false });
  const published = JSON.parse(readFileSync(join(stage, "package.json"), "utf8"));
  published.optionalDependencies = Object.fromEntries(tags.map((tag) => [`pi-gortex-${tag}`, manifest.version]));
  writeFileSync(join(stage, "package.json"), `${JSON.stringify(published, null, 2)}\n`);
  const main = npmPack(stage, out);
  const got = listTarball(main);
  for (const required of [
    "package/package.json",
    `package/${BUNDLE}`,
    "package/LICENSE",
    "package/CHANGELOG.md",
    "package/README.md",
    ...(manifest.bin ? Object.values(manifest.bin).map((path) => `package/${path.replace(/^\.\//, "")}`) : []),
  ]) {
    if (!got.includes(required)) problems.push(`${basename(main)} lacks ${required}`);
  }
  for (const path of got)
    if (path.endsWith(".node"))
      problems.push(`${basename(main)} bundles a core (${path}); cores belong in the platform packages`);
  rmSync(join(out, "stage"), { recursive: true, force: true });
  return { problems, packed, main, missing: tags.filter((tag) => !packed.some((p) => p.tag === tag)) };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const out = args[args.indexOf("--out") + 1];
  const sources = args.flatMap((arg, i) => (arg === "--from" ? [resolve(args[i + 1])] : []));
  if (!args.includes("--out") || !out) {
    process.stderr.write("usage: pack-all.mjs --out DIR [--from DIR]...\n");
    process.exit(2);
  }
  const result = packAll({ out: resolve(out), ...(sources.length ? { sources } : {}) });
  for (const { tag, tarball } of result.packed) process.stdout.write(`packed ${tag}: ${tarball}\n`);
  process.stdout.write(`packed main: ${result.main}\n`);
  if (result.missing.length)
    process.stdout.write(
      `no core present for: ${result.missing.join(", ")} (built by .github/workflows/release.yml)\n`,
    );
  for (const problem of result.problems) process.stderr.write(`pack-all: ${problem}\n`);
  process.exit(result.problems.length ? 1 : 0);
}
