// What a compiled addon is, read from its object-file headers rather than
// searched for as text: ELF (architecture, interpreter and DT_NEEDED for the
// libc), PE (machine, DLL, PE32+) and Mach-O (cputype, minimum macOS from
// LC_BUILD_VERSION, the libraries it binds and the symbols it leaves to the
// host). No maintained npm package reads all three at this depth (the ones
// that exist are single-format and unmaintained), so this is a small parser
// that bounds-checks every read and answers `undefined` for what it cannot
// read. Used by pack-all.mjs; not shipped.

/** @typedef {{ format: "elf", cpu?: string, machine: number, type: number, interpreter?: string, needed: string[], libc?: "glibc" | "musl" }} ElfInfo */
/** @typedef {{ format: "pe", cpu?: string, machine: number, dll: boolean, pe32plus: boolean }} PeInfo */
/** @typedef {{ format: "macho", cpu?: string, cputype: number, filetype: number, minos?: string, libraries: string[], undefinedSymbols: { name: string, library?: string }[] }} MachoInfo */

const ELF_CPU = { 62: "x64", 183: "arm64" };
const PE_CPU = { 0x8664: "x64", 0xaa64: "arm64" };
const MACHO_CPU = { 0x01000007: "x64", 0x0100000c: "arm64" };

/** A reader whose every access past the end throws a RangeError (Buffer's own checks). */
function reader(bytes, little = true) {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const u64 = (at) => {
    const value = little ? buf.readBigUInt64LE(at) : buf.readBigUInt64BE(at);
    if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError("offset beyond any file");
    return Number(value);
  };
  return {
    buf,
    u8: (at) => buf.readUInt8(at),
    u16: (at) => (little ? buf.readUInt16LE(at) : buf.readUInt16BE(at)),
    u32: (at) => (little ? buf.readUInt32LE(at) : buf.readUInt32BE(at)),
    u64,
    /** A NUL-terminated string starting at `at`, which must end inside `limit`. */
    cstr(at, limit = buf.length) {
      const end = buf.indexOf(0, at);
      if (at >= limit || end < 0 || end >= limit) throw new RangeError("unterminated string");
      return buf.toString("latin1", at, end);
    },
  };
}

/** Runs a parser, turning any out-of-bounds read into "not readable". */
function guarded(parse, bytes) {
  try {
    return parse(bytes);
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}

// ---------------------------------------------------------------- ELF
const PT_LOAD = 1;
const PT_DYNAMIC = 2;
const PT_INTERP = 3;
const DT_NULL = 0;
const DT_NEEDED = 1;
const DT_STRTAB = 5;
const DT_STRSZ = 10;

/** The libc an ELF object links, from its interpreter, then its DT_NEEDED names. */
export function libcOfElf(interpreter, needed) {
  if (interpreter?.includes("ld-musl-")) return "musl";
  if (interpreter && /\/ld-linux[-.]/.test(interpreter)) return "glibc";
  if (needed.some((name) => name === "libc.so.6")) return "glibc";
  // musl's libc is `libc.musl-<arch>.so.1` on Alpine, and plain `libc.so`
  // when linked against musl's own sysroot (zig, musl-gcc).
  if (needed.some((name) => name === "libc.so" || name.startsWith("libc.musl-"))) return "musl";
  return undefined;
}

function parseElf(bytes) {
  const r0 = reader(bytes);
  if (r0.buf.length < 64 || r0.buf.readUInt32BE(0) !== 0x7f454c46) return undefined;
  if (r0.buf[4] !== 2) return undefined; // ELFCLASS64 only: every declared target is 64-bit
  if (r0.buf[5] !== 1 && r0.buf[5] !== 2) return undefined;
  const r = reader(bytes, r0.buf[5] === 1);
  const type = r.u16(16);
  const machine = r.u16(18);
  const phoff = r.u64(32);
  const phentsize = r.u16(54);
  const phnum = r.u16(56);
  if (phentsize < 56) return undefined;
  const segments = [];
  for (let i = 0; i < phnum; i += 1) {
    const at = phoff + i * phentsize;
    segments.push({
      type: r.u32(at),
      offset: r.u64(at + 8),
      vaddr: r.u64(at + 16),
      filesz: r.u64(at + 32),
    });
  }
  let interpreter;
  const interp = segments.find((s) => s.type === PT_INTERP);
  if (interp) interpreter = r.cstr(interp.offset, interp.offset + interp.filesz);
  const needed = [];
  const dynamic = segments.find((s) => s.type === PT_DYNAMIC);
  if (dynamic) {
    const entries = [];
    for (let at = dynamic.offset; at + 16 <= dynamic.offset + dynamic.filesz; at += 16) {
      const tag = r.u64(at);
      if (tag === DT_NULL) break;
      entries.push({ tag, value: r.u64(at + 8) });
    }
    const strtab = entries.find((e) => e.tag === DT_STRTAB)?.value;
    const strsz = entries.find((e) => e.tag === DT_STRSZ)?.value;
    // DT_STRTAB is a virtual address: the PT_LOAD segment holding it maps it to a file offset.
    const load = segments.find(
      (s) => s.type === PT_LOAD && strtab !== undefined && strtab >= s.vaddr && strtab < s.vaddr + s.filesz,
    );
    if (entries.some((e) => e.tag === DT_NEEDED)) {
      if (!load || strsz === undefined) return undefined;
      const base = load.offset + (strtab - load.vaddr);
      for (const e of entries) if (e.tag === DT_NEEDED) needed.push(r.cstr(base + e.value, base + strsz));
    }
  }
  return {
    format: "elf",
    cpu: ELF_CPU[machine],
    machine,
    type,
    ...(interpreter !== undefined ? { interpreter } : {}),
    needed,
    ...(libcOfElf(interpreter, needed) ? { libc: libcOfElf(interpreter, needed) } : {}),
  };
}

// ---------------------------------------------------------------- PE
const IMAGE_FILE_DLL = 0x2000;

function parsePe(bytes) {
  const r = reader(bytes);
  if (r.buf.length < 64 || r.u16(0) !== 0x5a4d) return undefined; // "MZ"
  const pe = r.u32(0x3c);
  if (r.u32(pe) !== 0x00004550) return undefined; // "PE\0\0"
  const machine = r.u16(pe + 4);
  const characteristics = r.u16(pe + 22);
  const optionalSize = r.u16(pe + 20);
  const magic = optionalSize >= 2 ? r.u16(pe + 24) : 0;
  return {
    format: "pe",
    cpu: PE_CPU[machine],
    machine,
    dll: (characteristics & IMAGE_FILE_DLL) !== 0,
    pe32plus: magic === 0x20b,
  };
}

// ---------------------------------------------------------------- Mach-O
const LC_SYMTAB = 0x2;
const LC_LOAD_DYLIB = 0xc;
const LC_LOAD_WEAK_DYLIB = 0x80000018;
const LC_REEXPORT_DYLIB = 0x8000001f;
const LC_VERSION_MIN_MACOSX = 0x24;
const LC_BUILD_VERSION = 0x32;
const PLATFORM_MACOS = 1;
const N_STAB = 0xe0;
const N_TYPE = 0x0e;
const N_EXT = 0x01;
const N_UNDF = 0x0;

/** `X.Y.Z` from Mach-O's nibble-packed version (xxxx.yy.zz), the trailing `.0` dropped. */
export function machoVersion(packed) {
  const parts = [packed >>> 16, (packed >>> 8) & 0xff, packed & 0xff];
  if (parts[2] === 0) parts.pop();
  return parts.join(".");
}

function parseMacho(bytes) {
  const r = reader(bytes);
  if (r.buf.length < 32 || r.u32(0) !== 0xfeedfacf) return undefined; // thin 64-bit little-endian
  const cputype = r.u32(4);
  const filetype = r.u32(12);
  const ncmds = r.u32(16);
  const sizeofcmds = r.u32(20);
  const end = 32 + sizeofcmds;
  if (end > r.buf.length) return undefined;
  let minos;
  let symtab;
  const libraries = [];
  for (let i = 0, at = 32; i < ncmds; i += 1) {
    const cmd = r.u32(at);
    const size = r.u32(at + 4);
    if (size < 8 || at + size > end) return undefined;
    if (cmd === LC_BUILD_VERSION && r.u32(at + 8) === PLATFORM_MACOS) minos = machoVersion(r.u32(at + 12));
    else if (cmd === LC_VERSION_MIN_MACOSX && minos === undefined) minos = machoVersion(r.u32(at + 8));
    else if (cmd === LC_SYMTAB)
      symtab = { symoff: r.u32(at + 8), nsyms: r.u32(at + 12), stroff: r.u32(at + 16), strsize: r.u32(at + 20) };
    else if (cmd === LC_LOAD_DYLIB || cmd === LC_LOAD_WEAK_DYLIB || cmd === LC_REEXPORT_DYLIB)
      libraries.push(r.cstr(at + r.u32(at + 8), at + size));
    at += size;
  }
  const undefinedSymbols = [];
  if (symtab) {
    for (let i = 0; i < symtab.nsyms; i += 1) {
      const at = symtab.symoff + i * 16; // nlist_64
      const type = r.u8(at + 4);
      if (type & N_STAB || (type & N_TYPE) !== N_UNDF || !(type & N_EXT)) continue;
      const strx = r.u32(at);
      // Two-level namespace: the ordinal names the LC_LOAD_DYLIB that provides
      // the symbol; 0 (ld64's flat fallback, zig's dynamic_lookup) and 0xfe
      // (DYNAMIC_LOOKUP_ORDINAL) leave it to whatever the host process has loaded.
      const ordinal = (r.u16(at + 6) >>> 8) & 0xff;
      const library = ordinal >= 1 && ordinal <= libraries.length ? libraries[ordinal - 1] : undefined;
      undefinedSymbols.push({
        name: r.cstr(symtab.stroff + strx, symtab.stroff + symtab.strsize),
        ...(library !== undefined ? { library } : {}),
      });
    }
  }
  return {
    format: "macho",
    cpu: MACHO_CPU[cputype],
    cputype,
    filetype,
    ...(minos !== undefined ? { minos } : {}),
    libraries,
    undefinedSymbols,
  };
}

/**
 * The headers of a compiled object: ELF, PE or Mach-O info, or `undefined`
 * for a file that is none of them or cannot be read to the end of its headers.
 * @param {Uint8Array} bytes
 * @returns {ElfInfo | PeInfo | MachoInfo | undefined}
 */
export function readBinary(bytes) {
  return guarded(parseElf, bytes) ?? guarded(parsePe, bytes) ?? guarded(parseMacho, bytes);
}
