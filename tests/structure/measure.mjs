// `make structure`: the shape of the hand-written code, measured rather than
// claimed. Prints, and exits 1 when a limit is exceeded:
// - the lines of the napi adapter (bindings/node/src) and its `unsafe` blocks;
// - rule IDs cited in product comments, per line of product code (rule IDs
//   belong in docs/rules.md, test names and test files);
// - import circles between files of one crate or of the glue (a parent module
//   and its own children are one unit, so `super::` between them is no circle).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const LIMITS = { adapterLines: 700, adapterUnsafe: 0, exportLines: 15, linesPerRuleId: 60, circles: 0 };

function walk(dir, keep) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "node_modules" || name === "generated" ? [] : walk(path, keep);
    return keep(path) ? [path] : [];
  });
}

const rel = (path) => relative(ROOT, path).split("\\").join("/");
const lines = (text) => text.replace(/\n$/, "").split("\n");

/** The product part of a Rust file: everything before its `#[cfg(test)]` module. */
export function productText(path, text) {
  if (/(^|\/)tests?\.rs$/.test(path) || /\/tests\//.test(path)) return "";
  const at = text.search(/^#\[cfg\(test\)\]\s*\n\s*(pub(\([^)]*\))? )?mod /m);
  return at < 0 ? text : text.slice(0, at);
}

/** The rule IDs docs/rules.md defines (`- **MCP-12 Title.**`). */
export function definedRuleIds(rules) {
  return new Set([...rules.matchAll(/^\s*[-|]\s*\*\*([A-Z]{2,6}-\d+)/gm)].map((m) => m[1]));
}

/** Rule IDs cited in the comments of `text`; a range such as MCP-20..24 is one
 * citation, and a name such as UTF-8 that no rule defines is none. */
export function commentRuleIds(text, defined) {
  const id = /\b([A-Z]{2,6}-\d+)(?:\.\.(?:[A-Z]{2,6}-)?\d+)?/g;
  let count = 0;
  for (const line of lines(text)) {
    const at = line.search(/\/\/|\/\*|^\s*\*/);
    if (at < 0) continue;
    for (const match of line.slice(at).matchAll(id)) if (defined.has(match[1])) count++;
  }
  return count;
}

/** The module path (`["mcp", "client"]`) of a Rust file under a crate's src. */
function modulePath(srcRel) {
  const parts = srcRel.replace(/\.rs$/, "").split("/");
  if (parts.at(-1) === "mod" || parts.at(-1) === "lib" || parts.at(-1) === "main") parts.pop();
  return parts;
}

/** Edges from each Rust file of a crate to the crate files its paths name. */
function rustEdges(src) {
  const files = walk(src, (p) => p.endsWith(".rs"));
  const byModule = new Map(files.map((f) => [modulePath(relative(src, f).split("\\").join("/")).join("::"), f]));
  const resolve = (segments) => {
    for (let n = segments.length; n >= 0; n--) {
      const file = byModule.get(segments.slice(0, n).join("::"));
      if (file) return file;
    }
    return undefined;
  };
  const edges = new Map();
  for (const file of files) {
    const own = modulePath(relative(src, file).split("\\").join("/"));
    const text = productText(file, readFileSync(file, "utf8")).replace(/\/\/.*$/gm, "");
    const targets = new Set();
    const paths = [...text.matchAll(/\b(crate|super)((?:::[a-z_][a-z0-9_]*)+)/g)];
    for (const [, head, tail] of paths) {
      const segments = tail.split("::").filter(Boolean);
      const base = head === "crate" ? [] : own.slice(0, -1);
      const target = resolve([...base, ...segments]);
      if (target && target !== file) targets.add(target);
    }
    // `use a::{b, c}` groups name their members after the brace.
    for (const [, head, tail, group] of text.matchAll(/\b(crate|super)((?:::[a-z_][a-z0-9_]*)*)::\{([^}]*)\}/g)) {
      const base = [...(head === "crate" ? [] : own.slice(0, -1)), ...tail.split("::").filter(Boolean)];
      for (const member of group.split(",").map((m) => m.trim().split("::")[0])) {
        const target = resolve([...base, member]);
        if (target && target !== file) targets.add(target);
      }
    }
    edges.set(file, targets);
  }
  return { files, edges, moduleOf: (f) => modulePath(relative(src, f).split("\\").join("/")) };
}

/** Strongly connected components of more than one unit (Tarjan). */
export function circles(nodes, next) {
  let index = 0;
  const seen = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (v) => {
    seen.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of next(v)) {
      if (!seen.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), seen.get(w)));
    }
    if (low.get(v) === seen.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component);
    }
  };
  for (const v of nodes) if (!seen.has(v)) visit(v);
  return found;
}

/** Import circles of one crate. A module and its ancestors are one family (a parent
 * declares and re-exports its children, a child reaches its parent through `super::`),
 * so only edges between files where neither is the other's ancestor count. */
function crateCircles(src) {
  const { files, edges, moduleOf } = rustEdges(src);
  const isAncestor = (a, b) => a.length <= b.length && a.every((s, i) => b[i] === s);
  const next = new Map();
  for (const [from, targets] of edges) {
    const kept = [...targets].filter((to) => {
      const [f, t] = [moduleOf(from), moduleOf(to)];
      return !isAncestor(f, t) && !isAncestor(t, f);
    });
    next.set(from, kept);
  }
  return circles(files, (v) => next.get(v) ?? []).map((c) => c.map(rel));
}

/** Import circles among the glue's TypeScript files. */
function glueCircles(dirs) {
  const files = dirs.flatMap((d) => walk(d, (p) => p.endsWith(".ts") && !p.endsWith(".d.ts")));
  const edges = new Map();
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    const targets = [...text.matchAll(/from\s+"(\.[^"]+\.ts)"/g)].map(([, spec]) => join(dirname(file), spec));
    edges.set(
      file,
      targets.filter((t) => files.includes(t)),
    );
  }
  return circles(files, (f) => edges.get(f) ?? []).map((c) => c.map(rel));
}

/** The napi exports of one adapter file, each with its length in lines (signature to closing brace). */
function exportLengths(file, text) {
  const all = lines(text);
  const found = [];
  let attribute = -1;
  all.forEach((line, i) => {
    if (/^\s*#\[napi\b/.test(line)) attribute = i;
    const fn = /^(\s*)pub fn (\w+)/.exec(line);
    if (!fn || attribute < 0) return;
    attribute = -1;
    const end = all.findIndex((l, j) => j > i && l === `${fn[1]}}`);
    found.push({ name: `${rel(file)}:${fn[2]}`, lines: end - i + 1 });
  });
  return found;
}

export function measure() {
  const defined = definedRuleIds(readFileSync(join(ROOT, "docs", "rules.md"), "utf8"));
  const adapter = walk(join(ROOT, "bindings/node/src"), (p) => p.endsWith(".rs"));
  const adapterText = adapter.map((f) => readFileSync(f, "utf8"));
  const adapterLines = adapterText.reduce((n, t) => n + lines(t).length, 0);
  const adapterUnsafe = adapterText.reduce((n, t) => n + (t.match(/\bunsafe\b/g) ?? []).length, 0);
  const exports = adapter.flatMap((f, i) => exportLengths(f, adapterText[i]));
  const longest = exports.reduce((a, b) => (b.lines > a.lines ? b : a), { name: "none", lines: 0 });

  const product = [
    ...walk(join(ROOT, "runtime/src"), (p) => p.endsWith(".rs")),
    ...adapter,
    ...walk(join(ROOT, "bindings/node/glue"), (p) => p.endsWith(".ts") && !p.endsWith(".d.ts")),
    join(ROOT, "bindings/node/index.ts"),
  ];
  let productLines = 0;
  let ruleIds = 0;
  const dense = [];
  for (const file of product) {
    const text = productText(rel(file), readFileSync(file, "utf8"));
    const n = text ? lines(text).length : 0;
    const ids = commentRuleIds(text, defined);
    productLines += n;
    ruleIds += ids;
    if (ids > 0 && n / ids < LIMITS.linesPerRuleId) dense.push({ file: rel(file), lines: n, ids });
  }

  const found = [
    ...crateCircles(join(ROOT, "runtime/src")),
    ...crateCircles(join(ROOT, "bindings/node/src")),
    ...crateCircles(join(ROOT, "codegen/src")),
    ...glueCircles([join(ROOT, "bindings/node/glue")]),
  ];
  return { adapterLines, adapterUnsafe, longest, productLines, ruleIds, dense, circles: found };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const m = measure();
  const perId = m.ruleIds ? m.productLines / m.ruleIds : Number.POSITIVE_INFINITY;
  const checks = [
    [`bindings/node/src lines`, m.adapterLines, `≤ ${LIMITS.adapterLines}`, m.adapterLines <= LIMITS.adapterLines],
    [`bindings/node/src unsafe`, m.adapterUnsafe, `≤ ${LIMITS.adapterUnsafe}`, m.adapterUnsafe <= LIMITS.adapterUnsafe],
    [
      `longest napi export`,
      `${m.longest.lines} (${m.longest.name})`,
      `≤ ${LIMITS.exportLines}`,
      m.longest.lines <= LIMITS.exportLines,
    ],
    [
      `product lines per rule ID in comments`,
      `${perId.toFixed(0)} (${m.ruleIds} IDs, ${m.productLines} lines)`,
      `≥ ${LIMITS.linesPerRuleId}`,
      perId >= LIMITS.linesPerRuleId,
    ],
    [`import circles`, m.circles.length, `≤ ${LIMITS.circles}`, m.circles.length <= LIMITS.circles],
  ];
  for (const [what, value, limit, ok] of checks) console.log(`${ok ? "ok  " : "FAIL"} ${what}: ${value} (${limit})`);
  for (const c of m.circles) console.log(`     circle: ${c.join(" ↔ ")}`);
  if (process.argv.includes("--files")) {
    for (const d of m.dense.sort((a, b) => a.lines / a.ids - b.lines / b.ids)) {
      console.log(`     ${d.file}: ${d.ids} IDs in ${d.lines} lines`);
    }
  }
  process.exit(checks.every(([, , , ok]) => ok) ? 0 : 1);
}
