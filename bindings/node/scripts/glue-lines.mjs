// `make glue-lines`: a measure of the TypeScript glue. Counts the
// lines of index.ts + glue/*.ts (the generated types and the plain-JS loader
// are not glue) now and at a baseline commit, both as Biome formats them with
// the repository's biome.json, so a formatting difference is never counted as
// a change. Also lists the longest functions (the measure allows 40 lines).
// Exits 1 when a function is longer than that.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const PKG = join(dirname(fileURLToPath(import.meta.url)), "..");
const ROOT = join(PKG, "..", "..");
const BIOME = join(PKG, "node_modules", ".bin", "biome");
const BASE = process.argv[2] ?? "84cf52d^";
const MAX_FUNCTION_LINES = 40;

const isGlue = (path) => /^bindings\/node\/(index\.ts|glue\/[^/]+\.ts)$/.test(path);
const git = (...args) => execFileSync("git", ["-C", ROOT, ...args], { encoding: "utf8", maxBuffer: 1 << 26 });

/** The glue files of a commit, or of the working tree when `rev` is undefined. */
function glueFiles(rev) {
  const listed = rev ? git("ls-tree", "-r", "--name-only", rev, "bindings/node") : git("ls-files", "bindings/node");
  const paths = listed.split("\n").filter(isGlue);
  return paths.map((path) => ({
    path,
    text: rev ? git("show", `${rev}:${path}`) : readFileSync(join(ROOT, path), "utf8"),
  }));
}

/** The text as Biome formats it with the repository's configuration. */
function formatted({ path, text }) {
  const args = ["format", `--stdin-file-path=${join(ROOT, path)}`];
  return execFileSync(BIOME, args, { cwd: ROOT, input: text, encoding: "utf8" });
}

function count(files) {
  const lines = files.flatMap(({ text }) => text.replace(/\n$/, "").split("\n"));
  return { all: lines.length, nonBlank: lines.filter((line) => line.trim() !== "").length };
}

/** Every function-like node with its line span, longest first. */
function functionSpans(files) {
  const spans = [];
  for (const { path, text } of files) {
    const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
    const visit = (node) => {
      if (ts.isFunctionLike(node) && "body" in node && node.body) {
        const line = (pos) => source.getLineAndCharacterOfPosition(pos).line;
        const name = node.name?.getText(source) ?? "(anonymous)";
        spans.push({
          where: `${path}:${line(node.getStart(source)) + 1} ${name}`,
          lines: line(node.end) - line(node.getStart(source)) + 1,
        });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return spans.sort((a, b) => b.lines - a.lines);
}

const now = glueFiles();
const base = glueFiles(BASE).map((file) => ({ ...file, text: formatted(file) }));
const [before, after] = [count(base), count(now)];
const change = (key) => `${(((after[key] - before[key]) / before[key]) * 100).toFixed(1)}%`;
console.log(`glue (index.ts + glue/*.ts), Biome-formatted: ${BASE} ${base.length} files, now ${now.length} files`);
console.log(`  all lines:       ${before.all} -> ${after.all} (${change("all")})`);
console.log(`  non-blank lines: ${before.nonBlank} -> ${after.nonBlank} (${change("nonBlank")})`);
const spans = functionSpans(now);
console.log(`longest functions (limit ${MAX_FUNCTION_LINES} lines):`);
for (const span of spans.slice(0, 5)) console.log(`  ${span.lines} ${span.where}`);
process.exitCode = spans.some((span) => span.lines > MAX_FUNCTION_LINES) ? 1 : 0;
