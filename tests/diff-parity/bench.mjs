// Side-by-side timing of Pi 1.6.0's generateDiffString and ours, on the same
// four inputs (bench-inputs.mjs), in one run. Prints median ms per call and
// the ratio.
//
// Pi is timed here under Node 22; ours through the criterion bench
// `runtime/benches/diff_engine.rs`, which reads the same input files
// (DIFF_BENCH_INPUTS) and leaves its medians in criterion's estimates.json.
//
// Usage (from the repo root): $NODE22 tests/diff-parity/bench.mjs

import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { benchCases } from "./bench-inputs.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "..", "..");
const piDir = join(repo, "tests", "hosts", "pi-1.6.0", "node_modules", "@earendil-works", "pi-coding-agent");
const pkg = JSON.parse(readFileSync(join(piDir, "package.json"), "utf8"));
const { generateDiffString } = await import(pathToFileURL(join(piDir, pkg.exports["."].import)).href);

const target = resolve(process.env.CARGO_TARGET_DIR ?? join(repo, "target"));
const inputs = join(target, "diff-bench");
mkdirSync(inputs, { recursive: true });

const cases = benchCases();
const median = (xs) => {
	const s = [...xs].sort((a, b) => a - b);
	return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const pi = {};
for (const c of cases) {
	writeFileSync(join(inputs, `${c.id}.old`), c.old);
	writeFileSync(join(inputs, `${c.id}.new`), c.new);
	generateDiffString(c.old, c.new); // warm-up
	const runs = c.id.startsWith("a_") || c.id.startsWith("b_") ? 15 : 5;
	const times = [];
	for (let i = 0; i < runs; i++) {
		const t = performance.now();
		generateDiffString(c.old, c.new);
		times.push(performance.now() - t);
	}
	pi[c.id] = median(times);
	console.error(`pi ${c.id}: ${pi[c.id].toFixed(2)} ms`);
}

execFileSync(
	"cargo",
	["bench", "-p", "pi-gortex-runtime", "--bench", "diff_engine", "--", "--noplot"],
	{ cwd: repo, stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, DIFF_BENCH_INPUTS: inputs } },
);
const criterionMedian = (group, id) =>
	JSON.parse(readFileSync(join(target, "criterion", group, id, "new", "estimates.json"), "utf8")).median
		.point_estimate / 1e6;

const rows = [
	"| case | Pi 1.6.0 generateDiffString (ms) | pi-gortex (ms) | ratio |",
	"|---|---:|---:|---:|",
];
for (const c of cases) {
	const ours = criterionMedian("generate_diff_string", c.id);
	rows.push(`| ${c.id} | ${pi[c.id].toFixed(2)} | ${ours.toFixed(2)} | ${(pi[c.id] / ours).toFixed(1)}x |`);
}
rows.push("");
rows.push(`refused-diff ceiling (search stopped at MAX_DIFF_STEPS): ${criterionMedian("budget", "at_step_limit").toFixed(1)} ms`);
console.log(rows.join("\n"));
