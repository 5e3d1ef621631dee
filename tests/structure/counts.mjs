// `make structure`: the test counts README.md and docs/testing.md state, counted from the
// sources, so a figure in a document is never typed by hand. Exits 1 when
//   - a generated block (`<!-- BEGIN generated: NAME (tests/structure/counts.mjs…) -->` …
//     `<!-- END generated: NAME -->`) differs from what the sources give, or
//   - a figure checked in place (CHECKED below) differs, or its sentence is no longer found
//     (a reworded sentence must not leave a stale count behind), or
//   - a hook-channel test that runs Gortex's own hook does not check that it answered.
// `--write` rewrites the blocks and the checked figures from the sources.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const read = (rel) => readFileSync(join(ROOT, rel), "utf8");
const rel = (path) => relative(ROOT, path).split("\\").join("/");

function walk(dir, keep) {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return ["node_modules", "target"].includes(name) ? [] : walk(path, keep);
      return keep(path) ? [path] : [];
    });
}

const RUST_TEST = /^\s*#\[(?:test|tokio::test)\b/gm;
const NODE_TEST = /^\s*test(?:\.\w+)?\(/gm;
const E2E_TEST = /^\s*(?:scenario|test)(?:\.\w+)?\(/gm;
const count = (text, pattern) => [...text.matchAll(pattern)].length;
const rustFiles = (dir) => walk(join(ROOT, dir), (p) => p.endsWith(".rs"));
const rustTests = (...dirs) =>
  dirs.flatMap(rustFiles).reduce((n, p) => n + count(readFileSync(p, "utf8"), RUST_TEST), 0);
const topFiles = (dir, suffix) =>
  readdirSync(join(ROOT, dir))
    .filter((name) => name.endsWith(suffix))
    .map((name) => `${dir}/${name}`);
const declarations = (files, pattern) => files.reduce((n, f) => n + count(read(f), pattern), 0);

/** Test binaries of the runtime and fake-gortex, as `cargo test` builds them (cargo metadata). */
function testBinaries() {
  const meta = JSON.parse(
    execFileSync("cargo", ["metadata", "--no-deps", "--format-version", "1", "--offline"], {
      cwd: ROOT,
      encoding: "utf8",
      maxBuffer: 64 << 20,
    }),
  );
  return meta.packages
    .filter((p) => p.name === "pi-gortex-runtime" || p.name === "fake-gortex")
    .flatMap((p) => p.targets.filter((t) => t.test && t.kind.some((k) => ["lib", "bin", "test"].includes(k))))
    .map((t) => t.name);
}

/** Tests ignored on Windows: `#[cfg_attr(windows, ignore = "reason")]`, with their test binary. */
function windowsIgnores() {
  const attr = /#\[cfg_attr\(\s*windows,\s*ignore\s*=\s*"([^"]*)"\s*\)\]/g;
  return ["runtime/tests", "runtime/src", "tests/fake-gortex"].flatMap(rustFiles).flatMap((path) => {
    const file = rel(path);
    const binary = file.startsWith("runtime/tests/") ? file.replace(/^runtime\/tests\/|\.rs$/g, "") : file;
    return [...readFileSync(path, "utf8").matchAll(attr)].map((m) => ({ binary, reason: m[1] }));
  });
}

/** The binaries `make test-windows` runs: the Makefile's WINDOWS_TEST_BINARIES. */
function makeTestWindows() {
  const m = read("Makefile").match(/^WINDOWS_TEST_BINARIES \?=((?:.*\\\n)*.*)$/m);
  if (!m) throw new Error("Makefile: WINDOWS_TEST_BINARIES ?= not found");
  return m[1].replace(/\\\n/g, " ").trim().split(/\s+/);
}

const isWine = (reason) => reason.startsWith("wine");
const tally = (list) => {
  const out = new Map();
  for (const key of list) out.set(key, (out.get(key) ?? 0) + 1);
  return out;
};

function windowsBlock() {
  const ignores = windowsIgnores();
  const listed = new Set(makeTestWindows());
  const inMake = ignores.filter((i) => listed.has(i.binary));
  const split = (list) => {
    const wine = list.filter((i) => isWine(i.reason)).length;
    const parts = [`${wine} wine limits`];
    if (list.length > wine) parts.push(`${list.length - wine} not for Windows`);
    return `${list.length}: ${parts.join(", ")}`;
  };
  const notForWindows = ignores.filter((i) => !isWine(i.reason));
  const rows = [
    "| Where | What runs | Test binaries | Ignored on Windows |",
    "|---|---|---|---|",
    `| \`make test-windows\` (in \`make test\`), wine | the binaries the Makefile's \`WINDOWS_TEST_BINARIES\` names | ${listed.size} | ${split(inMake)} |`,
    `| \`make test-windows-all\` (in \`make test-platforms\`), wine | every test binary of the runtime and fake-gortex | ${testBinaries().length} | ${split(ignores)} |`,
    `| release workflow, job \`windows-runtime\`, Windows (MSVC build) | every test binary, then the wine limits with \`--ignored\` | ${testBinaries().length} | ${notForWindows.length} not for Windows |`,
    "",
    "| `ignore` reason on Windows | Kind | Tests |",
    "|---|---|---|",
  ];
  for (const [reason, n] of tally(ignores.map((i) => i.reason))) {
    const where = [...tally(ignores.filter((i) => i.reason === reason).map((i) => i.binary))]
      .map(([binary, k]) => `\`${binary}\` ${k}`)
      .join(", ");
    rows.push(`| ${reason} | ${isWine(reason) ? "wine limit" : "not for Windows"} | ${n}: ${where} |`);
  }
  return rows.join("\n");
}

/**
 * Hook-channel tests that run Gortex's own hook, by file: each must check that the handler
 * answered (`assertAnsweredByUpstream`, or `answered_records` in Rust). A test runs it when it
 * sets up an upstream workspace (node), an `upstream` sandbox (e2e), or lives in a file whose
 * every test does.
 */
const UPSTREAM_SUITES = [
  { file: "tests/node/hook_upstream.test.mjs", decl: NODE_TEST, runs: () => true },
  { file: "tests/node/enforce.test.mjs", decl: NODE_TEST, runs: (b) => /upstream(Workspace|Session)\(/.test(b) },
  { file: "tests/node/session.test.mjs", decl: NODE_TEST, runs: (b) => /upstreamWorkspace\(/.test(b) },
  { file: "tests/node/native.test.mjs", decl: NODE_TEST, runs: (b) => /upstreamWorkspace\(/.test(b) },
  { file: "tests/e2e/hook_upstream.test.mjs", decl: E2E_TEST, runs: (b) => /\bupstream:/.test(b) },
  { file: "tests/e2e/session.test.mjs", decl: E2E_TEST, runs: (b) => /\bupstream:/.test(b) },
  { file: "runtime/tests/test_hook_live_events.rs", decl: RUST_TEST, runs: () => true },
  { file: "runtime/tests/test_hook_spare.rs", decl: RUST_TEST, runs: (b) => /Upstream::new\(\)/.test(b) },
];
const CHECKS = /assertAnsweredByUpstream\(|\.answered_records\(|\.all_answered_upstream\(/;

/** The text of each test declared in `text`: from its declaration to the next one. */
function testBlocks(text, decl) {
  const starts = [...text.matchAll(decl)].map((m) => m.index);
  return starts.map((at, i) => text.slice(at, starts[i + 1] ?? text.length));
}

function upstreamTests(problems) {
  return UPSTREAM_SUITES.map(({ file, decl, runs }) => {
    const blocks = testBlocks(read(file), decl).filter(runs);
    for (const block of blocks)
      if (!CHECKS.test(block))
        problems.push(`${file}: runs Gortex's own hook without checking it answered: ${block.trim().split("\n")[0]}`);
    return { file, tests: blocks.filter((b) => CHECKS.test(b)).length };
  });
}

function hookBlock(problems) {
  const suites = upstreamTests(problems);
  const total = suites.reduce((n, s) => n + s.tests, 0);
  return [
    "| Suite | Tests |",
    "|---|---|",
    ...suites.map((s) => `| \`${s.file}\` | ${s.tests} |`),
    `| all | ${total} |`,
  ].join("\n");
}

/** Figures checked where they stand: the pattern's groups are replaced by the values. */
function checked() {
  const node = topFiles("tests/node", ".test.mjs");
  const e2e = topFiles("tests/e2e", ".test.mjs");
  const integration = topFiles("runtime/tests", ".rs");
  return [
    ["docs/testing.md", /^\| runtime unit tests \(`runtime\/src`\) \| (\d+) \|/m, [rustTests("runtime/src")]],
    [
      "docs/testing.md",
      /^\| runtime integration \(`runtime\/tests`\) \| (\d+) in (\d+) files \|/m,
      [rustTests("runtime/tests"), integration.length],
    ],
    ["docs/testing.md", /^\| codegen \+ schema \| (\d+) \|/m, [rustTests("codegen", "schema")]],
    ["docs/testing.md", /^\| fake-gortex self-tests \| (\d+) \|/m, [rustTests("tests/fake-gortex")]],
    [
      "docs/testing.md",
      /^\| node \(ExtensionRunner and glue\) \| (\d+) in (\d+) files \|/m,
      [declarations(node, NODE_TEST), node.length],
    ],
    ["docs/testing.md", /^\| e2e \| (\d+) declarations in (\d+) files \|/m, [declarations(e2e, E2E_TEST), e2e.length]],
    [
      "docs/testing.md",
      /^\| runtime `test_hook_faults` \((\d+)\) \|/m,
      [count(read("runtime/tests/test_hook_faults.rs"), RUST_TEST)],
    ],
  ];
}

const BLOCKS = [
  ["docs/testing.md", "Windows test counts", windowsBlock],
  ["docs/testing.md", "hook-channel tests that prove Gortex's own hook answered", hookBlock],
];

const write = process.argv.includes("--write");
const problems = [];
const docs = new Map();
const doc = (file) => docs.get(file) ?? docs.set(file, read(file)).get(file);

for (const [file, name, make] of BLOCKS) {
  const begin = `<!-- BEGIN generated: ${name} (tests/structure/counts.mjs; do not edit) -->\n`;
  const end = `\n<!-- END generated: ${name} -->`;
  const want = make(problems);
  const text = doc(file);
  const a = text.indexOf(begin);
  const b = text.indexOf(end, a);
  if (a < 0 || b < 0) {
    problems.push(`${file}: no generated block "${name}"`);
    continue;
  }
  if (text.slice(a + begin.length, b) === want) continue;
  if (write) docs.set(file, text.slice(0, a + begin.length) + want + text.slice(b));
  else
    problems.push(
      `${file}: the block "${name}" differs from the sources (run node tests/structure/counts.mjs --write)`,
    );
}

for (const [file, pattern, values] of checked()) {
  const text = doc(file);
  const m = new RegExp(pattern.source, `${pattern.flags}d`).exec(text);
  if (!m) {
    problems.push(`${file}: no longer found: ${pattern}`);
    continue;
  }
  const typed = m.slice(1).map(Number);
  if (typed.every((n, i) => n === values[i])) continue;
  if (write) {
    // Each group's figure is replaced where the group matched, last first so earlier indices hold.
    let fixed = text;
    for (let k = values.length; k >= 1; k--) {
      const [from, to] = m.indices[k];
      fixed = fixed.slice(0, from) + String(values[k - 1]) + fixed.slice(to);
    }
    docs.set(file, fixed);
  } else problems.push(`${file}: ${m[0].trim()} — counted: ${values.join(", ")}`);
}

if (write) for (const [file, text] of docs) if (text !== read(file)) writeFileSync(join(ROOT, file), text);
for (const p of problems) console.error(`counts: ${p}`);
if (problems.length) process.exit(1);
if (!problems.length) console.log(`counts: ${write ? "written" : "the documents' test counts match the sources"}`);
