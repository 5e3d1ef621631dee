// Locating and loading the native core (PKG-4, PKG-9), in plain
// JavaScript so that both the extension (glue/addon.ts, through Pi's loader)
// and the package's command-line entry (bin/pi-gortex.mjs, plain Node, which
// will not strip types under node_modules) share one copy.
//
// The core is tried next to the package first (a local build, `make pack`),
// then as the per-platform npm package `pi-gortex-<tag>` (an optional
// dependency of the published package, napi-rs's layout).
//
// Platform detection runs on every start and /reload, so it must be cheap.
// `process.report.getReport()` is avoided: it can take seconds to minutes on
// some hosts (it resolves network interfaces). On Linux the libc is read from
// the ELF interpreter of the running Node binary (the answer napi's own
// loader gets from `ldd`), without spawning anything.
import { closeSync, openSync, readFileSync, readSync } from "node:fs";
import { createRequire } from "node:module";

/** PT_INTERP: the program header naming an executable's dynamic loader. */
const PT_INTERP = 3;
/** Enough of an executable to hold its program headers and interpreter path. */
const ELF_PROBE_BYTES = 4096;

/**
 * The dynamic loader named by an ELF image (32/64-bit, either byte order),
 * e.g. `/lib64/ld-linux-x86-64.so.2` or `/lib/ld-musl-aarch64.so.1`;
 * `undefined` for anything else (not ELF, static, truncated).
 * @param {Uint8Array} bytes
 * @returns {string | undefined}
 */
export function elfInterpreter(bytes) {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < 52 || buf.readUInt32BE(0) !== 0x7f454c46) return undefined;
  const is64 = buf[4] === 2;
  const little = buf[5] === 1;
  const u16 = (at) => (little ? buf.readUInt16LE(at) : buf.readUInt16BE(at));
  const u32 = (at) => (little ? buf.readUInt32LE(at) : buf.readUInt32BE(at));
  const word = (at) => (is64 ? Number(little ? buf.readBigUInt64LE(at) : buf.readBigUInt64BE(at)) : u32(at));
  try {
    const phoff = word(is64 ? 32 : 28);
    const phentsize = u16(is64 ? 54 : 42);
    const phnum = u16(is64 ? 56 : 44);
    for (let i = 0; i < phnum; i += 1) {
      const header = phoff + i * phentsize;
      if (u32(header) !== PT_INTERP) continue;
      const offset = word(header + (is64 ? 8 : 4));
      const size = word(header + (is64 ? 32 : 16));
      if (offset + size > buf.length) return undefined;
      return buf
        .subarray(offset, offset + size)
        .toString("latin1")
        .replace(/\0+$/, "");
    }
  } catch {
    // A truncated header reads past the buffer: not an answer.
  }
  return undefined;
}

/**
 * `gnu` or `musl` from a dynamic loader's path; `undefined` when it says neither.
 * @param {string | undefined} interpreter
 * @returns {"gnu" | "musl" | undefined}
 */
export function libcOfInterpreter(interpreter) {
  if (!interpreter) return undefined;
  if (interpreter.includes("musl")) return "musl";
  if (/\/ld-linux|\/ld64\.so|\/ld\.so/.test(interpreter)) return "gnu";
  return undefined;
}

/** @param {string} path */
function readHead(path) {
  let fd;
  try {
    fd = openSync(path, "r");
    const buf = Buffer.alloc(ELF_PROBE_BYTES);
    return buf.subarray(0, readSync(fd, buf, 0, ELF_PROBE_BYTES, 0));
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        // nothing to do
      }
    }
  }
}

/**
 * The libc of this Node process: its own ELF interpreter first; for a static
 * or unreadable Node, `ldd`'s script text (musl's `ldd` is musl's loader);
 * `getReport` only as the last resort, with network information excluded
 * (the part that can hang).
 * @returns {"gnu" | "musl"}
 */
function linuxLibc() {
  const fromInterpreter = libcOfInterpreter(elfInterpreter(readHead(process.execPath) ?? new Uint8Array()));
  if (fromInterpreter) return fromInterpreter;
  try {
    return readFileSync("/usr/bin/ldd", "latin1").includes("musl") ? "musl" : "gnu";
  } catch {
    // no ldd
  }
  try {
    const report = process.report;
    if (report && typeof report.getReport === "function") {
      report.excludeNetwork = true;
      return report.getReport()?.header?.glibcVersionRuntime ? "gnu" : "musl";
    }
  } catch {
    // fall through
  }
  return "gnu";
}

/**
 * The napi platform tag of a platform, e.g. `linux-x64-gnu`, `darwin-arm64`,
 * `win32-x64-msvc` (Node for Windows is an MSVC build, so its cores are too).
 * @param {string} platform `process.platform`
 * @param {string} arch `process.arch`
 * @param {() => string} libc the libc on Linux, asked only there
 * @returns {string}
 */
export function tagOfPlatform(platform, arch, libc) {
  if (platform === "linux") return `linux-${arch}-${libc()}`;
  if (platform === "win32") return `win32-${arch}-msvc`;
  return `${platform}-${arch}`;
}

/**
 * The napi platform tag of this process.
 * @returns {string}
 */
export function platformTag() {
  return tagOfPlatform(process.platform, process.arch, linuxLibc);
}

/**
 * The napi tag of a Rust target triple (`aarch64-apple-darwin` is `darwin-arm64`,
 * `x86_64-pc-windows-msvc` is `win32-x64-msvc`).
 * @param {string} triple
 * @returns {string}
 */
export function tagOfTriple(triple) {
  const [arch = "", , os = "", abi] = triple.split("-");
  const cpu = arch === "x86_64" ? "x64" : arch === "aarch64" ? "arm64" : arch;
  if (os === "linux") return `linux-${cpu}-${abi}`;
  if (os === "windows") return `win32-${cpu}-${abi}`;
  return `${os}-${cpu}`;
}

/** The platforms this package has cores for, from its own manifest (`napi.targets`). */
function supportedTags(require) {
  try {
    const targets = require("../package.json").napi?.targets;
    return Array.isArray(targets) ? targets.filter((t) => typeof t === "string").map(tagOfTriple) : [];
  } catch {
    return [];
  }
}

/** @param {unknown} error */
function firstLine(error) {
  return error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error);
}

/**
 * Loads the core. Never throws.
 * @returns {{ addon: unknown; tag: string } | { error: string; tag: string; supported: string[] }}
 */
export function loadCore() {
  const require = createRequire(import.meta.url);
  const tag = platformTag();
  let firstError = "";
  for (const candidate of [`../pi-gortex.${tag}.node`, `pi-gortex-${tag}`]) {
    try {
      return { addon: require(candidate), tag };
    } catch (error) {
      if (!firstError) firstError = firstLine(error);
    }
  }
  return { error: `pi-gortex native core failed to load: ${firstError}`, tag, supported: supportedTags(require) };
}
