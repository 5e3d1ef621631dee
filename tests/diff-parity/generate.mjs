// Golden parity corpus for the Rust diff engine (DIFF-13).
//
// Builds >= 300 before/after text pairs (synthetic cases from a seeded
// generator; real files of this repository's tree, each with seeded edits;
// and consecutive versions of files from its git history, read at run time
// when .git is present) and runs Pi 1.6.0's own generateDiffString and
// generateUnifiedPatch on each. Writes one JSON object per line:
//   {"name", "path", "old", "new", "diff", "firstChangedLine", "patch"}
// runtime/tests/test_diff_parity.rs runs this script under Node 22 and
// requires the Rust output to be byte-identical for every line.
//
// Usage: node generate.mjs <out.jsonl> [--repo DIR] [--pi PKG_DIR]

import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const out = args[0];
if (!out) {
  console.error("usage: generate.mjs <out.jsonl> [--repo DIR] [--pi PKG_DIR]");
  process.exit(2);
}
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i > 0 && args[i + 1] ? args[i + 1] : fallback;
};
const repo = resolve(option("--repo", join(here, "..", "..")));
const piDir = resolve(
  option("--pi", join(here, "..", "hosts", "pi-1.6.0", "node_modules", "@earendil-works", "pi-coding-agent")),
);

// The package's own entry point, as its `exports["."].import` names it (PI-5).
const pkg = JSON.parse(readFileSync(join(piDir, "package.json"), "utf8"));
const entry = pkg.exports?.["."]?.import ?? pkg.main;
const pi = await import(pathToFileURL(join(piDir, entry)).href);
const { generateDiffString, generateUnifiedPatch } = pi;
if (typeof generateDiffString !== "function" || typeof generateUnifiedPatch !== "function") {
  console.error(`Pi ${pkg.version} at ${piDir} does not export the diff helpers`);
  process.exit(1);
}

// ---------------------------------------------------------------- synthetic
// mulberry32: a small seeded PRNG so the corpus is the same on every run.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const cases = [];
const add = (name, oldText, newText, path = "f.txt") => cases.push({ name, path, old: oldText, new: newText });

const lines = (n, f = (i) => `line ${i + 1}`) => Array.from({ length: n }, (_, i) => f(i));
const text = (ls, trailing = true) => (ls.length ? ls.join("\n") + (trailing ? "\n" : "") : "");

// Hand-written edge cases.
add("spec example", "a\nb\n", "a\nc\n");
add("spec 20 lines", text(lines(20, (i) => `l${i + 1}`)), text(lines(20, (i) => (i === 9 ? "X" : `l${i + 1}`))));
add("both empty", "", "");
add("empty to text", "", "a\nb\n");
add("text to empty", "a\nb\n", "");
add("empty to no newline", "", "a");
add("no newline to empty", "a", "");
add("identical", "a\nb\n", "a\nb\n");
add("add trailing newline", "a\nb", "a\nb\n");
add("remove trailing newline", "a\nb\n", "a\nb");
add("no newline both sides", "a\nb", "a\nc");
add("no newline change last", "x\ny\nz", "x\ny\nw");
add("only newline", "\n", "\n\n");
add("blank lines", "\n\n\n", "\n\n");
add("duplicate append", "a\na\n", "a\na\na\n");
add("duplicate remove", "a\na\na\n", "a\na\n");
add("tie ab", "a\nb\n", "b\na\n");
add("tie abc", "a\nb\nc\n", "c\nb\na\n");
add("whitespace lines", "a\n  \n\t\nb\n", "a\n \n\t\t\nb\n");
add("crlf same", "a\r\nb\r\n", "a\r\nc\r\n");
add("crlf to lf", "a\r\nb\r\n", "a\nb\n");
add("mixed endings", "a\r\nb\nc\r\n", "a\nb\r\nc\r\n");
add("lone cr", "a\rb\nc\n", "a\rb\nd\n");
add("bom", "\ufeffa\nb\n", "\ufeffa\nc\n");
add("bom added", "a\nb\n", "\ufeffa\nb\n");
add("long line", `${"x".repeat(5000)}\n`, `${"x".repeat(4999)}y\n`);
add("unicode", "héllo\n世界\n🙂\n", "héllo\n世界!\n🙂\n");
add("width change 9 to 10", text(lines(9)), text(lines(10)));
add("width change 99 to 100", text(lines(99)), text(lines(100)));
add("all different", text(lines(30, (i) => `a${i}`)), text(lines(25, (i) => `b${i}`)));
add(
  "all different no newline",
  text(
    lines(7, (i) => `a${i}`),
    false,
  ),
  text(
    lines(9, (i) => `b${i}`),
    false,
  ),
);
add("replace all braces", "{\n}\n{\n}\n", "}\n{\n}\n{\n");
add("context exactly 8", text(lines(20)), text(lines(20, (i) => (i === 5 || i === 14 ? "X" : `line ${i + 1}`))));
add("context exactly 9", text(lines(20)), text(lines(20, (i) => (i === 5 || i === 15 ? "X" : `line ${i + 1}`))));
add("change first line", text(lines(12)), text(lines(12, (i) => (i === 0 ? "first" : `line ${i + 1}`))));
add("change last line", text(lines(12)), text(lines(12, (i) => (i === 11 ? "last" : `line ${i + 1}`))));

// Generated cases: a base text, then a mutation of a given kind.
const vocab = ["", "}", "{", "  return x;", "\t", " ", "foo", "bar", "baz", "// comment", "x = 1", "end"];
function baseText(r, n, repetitive) {
  return lines(n, (i) => {
    if (repetitive) return vocab[Math.floor(r() * vocab.length)];
    return r() < 0.15 ? vocab[Math.floor(r() * vocab.length)] : `stmt_${i}_${Math.floor(r() * 1000)}`;
  });
}
function mutate(r, ls, kind, repetitive) {
  const out = ls.slice();
  const pick = () => Math.floor(r() * (out.length + 1));
  const fresh = () => (repetitive ? vocab[Math.floor(r() * vocab.length)] : `new_${Math.floor(r() * 100000)}`);
  const edits = 1 + Math.floor(r() * 6);
  for (let e = 0; e < edits; e++) {
    const k = kind === "mixed" ? ["insert", "delete", "replace", "move", "dup"][Math.floor(r() * 5)] : kind;
    const at = pick();
    const len = 1 + Math.floor(r() * 4);
    if (k === "insert") out.splice(at, 0, ...Array.from({ length: len }, fresh));
    else if (k === "delete") out.splice(at, len);
    else if (k === "replace") out.splice(at, len, ...Array.from({ length: 1 + Math.floor(r() * 4) }, fresh));
    else if (k === "move") {
      const block = out.splice(at, len);
      out.splice(pick(), 0, ...block);
    } else if (k === "dup") {
      const block = out.slice(at, at + len);
      out.splice(pick(), 0, ...block);
    }
  }
  return out;
}
const kinds = ["insert", "delete", "replace", "move", "dup", "mixed"];
const r = rng(0x5eed);
for (let i = 0; i < 300; i++) {
  const kind = kinds[i % kinds.length];
  const repetitive = i % 3 === 0;
  const n = Math.floor(r() * (i % 7 === 0 ? 400 : 60));
  const a = baseText(r, n, repetitive);
  const b = mutate(r, a, kind, repetitive);
  const trailA = r() < 0.85;
  const trailB = r() < 0.85 ? trailA : !trailA;
  let oldText = text(a, trailA);
  let newText = text(b, trailB);
  if (i % 17 === 5) {
    oldText = oldText.replace(/\n/g, "\r\n");
    newText = newText.replace(/\n/g, "\r\n");
  }
  add(`gen ${i} ${kind}${repetitive ? " repetitive" : ""}`, oldText, newText, `src/gen_${i}.txt`);
}

// Maximal ties: tiny alphabets, where almost every alignment is ambiguous,
// and lopsided lengths, where jsdiff's edge pruning decides the result.
const t = rng(0x7135);
for (let i = 0; i < 120; i++) {
  const alphabet = i % 2 ? ["a", "b"] : ["a", "b", "c", ""];
  const word = () => alphabet[Math.floor(t() * alphabet.length)];
  const longSide = Math.floor(t() * 40);
  const shortSide = i % 3 === 0 ? Math.floor(t() * 4) : Math.floor(t() * 40);
  const [na, nb] = i % 4 < 2 ? [longSide, shortSide] : [shortSide, longSide];
  add(`ties ${i}`, text(lines(na, word), t() < 0.8), text(lines(nb, word), t() < 0.8));
}
for (let i = 0; i < 20; i++) {
  const base = lines(50 + i * 7, (j) => `row ${j}`);
  const extra = lines(1 + i, (j) => (j % 2 ? "row 3" : `more ${j}`));
  const kind = i % 4;
  const changed =
    kind === 0
      ? [...extra, ...base]
      : kind === 1
        ? [...base, ...extra]
        : kind === 2
          ? base.slice(i + 1)
          : base.slice(0, -(i + 1));
  add(`edges ${i}`, text(base), text(changed));
}

const decoder = new TextDecoder("utf-8", { fatal: true });
// ---------------------------------------------------------------- real tree
// Real files of the working tree, each with seeded edits. Unlike the history
// part below this needs no .git, so a source tarball, a shallow clone or
// cargo-mutants' copy of the tree still gets real-world text in the corpus.
const treeRoots = ["runtime/src", "bindings/node/glue", "codegen/src", "docs", "schema"];
const treeLimit = 100;
function walk(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : e.isFile() ? [join(dir, e.name)] : []));
}
const treeFiles = treeRoots.flatMap((root) => walk(join(repo, root))).filter((f) => statSync(f).size <= 64 * 1024);
const tr = rng(0x7ee5);
let treeCount = 0;
for (const file of treeFiles) {
  if (treeCount >= treeLimit) break;
  let before;
  try {
    before = decoder.decode(readFileSync(file));
  } catch {
    continue; // not UTF-8
  }
  const trailing = before.endsWith("\n");
  const ls = before.split("\n");
  if (trailing) ls.pop();
  const kind = kinds[treeCount % kinds.length];
  const after = text(mutate(tr, ls, kind, false), trailing);
  const path = relative(repo, file);
  add(`tree ${path} ${kind}`, before, after, path);
  treeCount++;
}

// ---------------------------------------------------------------- real history
function git(...gitArgs) {
  return execFileSync("git", ["-C", repo, ...gitArgs], { encoding: "buffer", maxBuffer: 256 * 1024 * 1024 });
}
function textAt(rev, path) {
  try {
    const bytes = git("show", `${rev}:${path}`);
    if (bytes.length > 256 * 1024 || bytes.includes(0)) return undefined;
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}
let realCount = 0;
const realLimit = 200;
try {
  const log = git("log", "--format=%H %P", "--no-merges").toString("utf8").trim().split("\n").filter(Boolean);
  outer: for (const line of log) {
    const [commit, parent] = line.split(" ");
    if (!parent) continue;
    const changed = git("diff", "--name-only", "--diff-filter=M", parent, commit)
      .toString("utf8")
      .split("\n")
      .filter(Boolean);
    for (const path of changed) {
      const before = textAt(parent, path);
      const after = textAt(commit, path);
      if (before === undefined || after === undefined) continue;
      add(`git ${commit.slice(0, 10)} ${path}`, before, after, path);
      if (++realCount >= realLimit) break outer;
    }
  }
} catch (error) {
  console.error(`git history unavailable: ${error.message}`);
}

// ---------------------------------------------------------------- expected
const rows = cases.map((c) => {
  const { diff, firstChangedLine } = generateDiffString(c.old, c.new);
  const patch = generateUnifiedPatch(c.path, c.old, c.new);
  return JSON.stringify({ ...c, diff, firstChangedLine: firstChangedLine ?? null, patch });
});
writeFileSync(out, `${rows.join("\n")}\n`);
console.error(
  `diff-parity: ${cases.length} pairs (${treeCount} from the tree, ${realCount} from git history), Pi ${pkg.version}`,
);
