#!/usr/bin/env node
// pack-all: assembles the publishable npm packages the napi-rs way from
// whatever `pi-gortex.<platform>.node` files are present (issue 14 item 1).
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
import { BUNDLE, stageMainPackage } from "./stage.mjs";

const PKG_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** napi's platform tag for a Rust target triple, e.g. `linux-x64-gnu`. */
export function tagOf(triple) {
  const [arch, , os, abi] = triple.split("-");
  const cpu = { x86_64: "x64", aarch64: "arm64" }[arch];
  if (!cpu) throw new Error(`unsupported target ${triple}`);
  if (os === "darwin") return `darwin-${cpu}`;
  if (os === "linux") return `linux-${cpu}-${abi}`;
  throw new Error(`unsupported target ${triple}`);
}

/** What a tag promises: npm's `os`, `cpu` and (Linux) `libc` fields. */
export function platformOf(tag) {
  const [os, cpu, abi] = tag.split("-");
  return { os, cpu, ...(abi ? { libc: abi === "gnu" ? "glibc" : "musl" } : {}) };
}

/**
 * What a compiled addon really is, read from its header: `{ os, cpu, libc? }`,
 * or `undefined` for a file that is neither a 64-bit ELF nor a thin Mach-O.
 */
export function inspectBinary(bytes) {
  if (bytes.length >= 20 && bytes.readUInt32BE(0) === 0x7f454c46) {
    if (bytes[4] !== 2 || bytes[5] !== 1) return undefined; // 64-bit little-endian only
    const cpu = { 62: "x64", 183: "arm64" }[bytes.readUInt16LE(18)];
    if (!cpu) return undefined;
    // The libc a shared object links is named in its dynamic string table.
    const text = bytes.toString("latin1");
    const libc =
      text.includes("libc.musl-") || text.includes("ld-musl-")
        ? "musl"
        : text.includes("libc.so.6")
          ? "glibc"
          : undefined;
    return { os: "linux", cpu, ...(libc ? { libc } : {}) };
  }
  if (bytes.length >= 8 && bytes.readUInt32LE(0) === 0xfeedfacf) {
    const cpu = { 0x01000007: "x64", 0x0100000c: "arm64" }[bytes.readUInt32LE(4)];
    return cpu ? { os: "darwin", cpu } : undefined;
  }
  return undefined;
}

/** Problems with one core and its platform package manifest; empty when it is right. */
export function checkPlatform(tag, manifest, platformManifest, bytes) {
  const problems = [];
  const want = platformOf(tag);
  const file = `pi-gortex.${tag}.node`;
  const is = inspectBinary(bytes);
  if (!is) problems.push(`${file}: not a 64-bit ELF or Mach-O addon`);
  else {
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
