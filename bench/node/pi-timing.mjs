//! pi-timing.mjs - Pi's own startup timings (`PI_TIMING=1`) for one benchmark configuration:
//! the extension's "module import" and "factory" times and Pi's createAgentSessionRuntime, one
//! line per run (the first run fills jiti's transpile cache and is printed too). Used to find
//! where the extension's start goes (docs/benchmarks.md, decision 007).
//!   $NODE22 bench/node/pi-timing.mjs "1.6.0 native, enforce on" [runs]
//! `BUNDLE=<file>` replaces the installed package's entry module with that file first.
import { spawnSync } from "node:child_process";
import { copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { NODE22, PI, REPO } from "../../tests/e2e/lib/hosts.mjs";
import { runEnv, sandbox } from "../../tests/e2e/lib/run.mjs";
import { CONFIGS, FAKE_RELEASE } from "./lib.mjs";

const [name, runsArg] = process.argv.slice(2);
const config = CONFIGS[name];
if (!config) {
  process.stderr.write(`usage: pi-timing.mjs <configuration> [runs]; one of: ${Object.keys(CONFIGS).join("; ")}\n`);
  process.exit(2);
}
const server = { command: FAKE_RELEASE, args: ["mcp"], exposure: "direct", timeout: 600 };
const replaceEntry = (box) => {
  const pkg = join(box.agent, "npm/node_modules/pi-gortex");
  const entry = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")).pi.extensions[0];
  copyFileSync(process.env.BUNDLE, join(pkg, entry));
};
const box = sandbox({
  pi: config.pi,
  gortex: config.ext,
  agentFiles: config.mcpJson ? { "mcp.json": { mcpServers: { gortex: server } } } : {},
  setup: process.env.BUNDLE ? replaceEntry : undefined,
});
const env = runEnv(box, {
  env: {
    GORTEX_BIN: FAKE_RELEASE,
    PI_BENCH_OUT: join(box.root, "bench.jsonl"),
    PI_BENCH_CALLS: "0",
    PI_BENCH_TOOLS: JSON.stringify(config.tools),
    PI_TIMING: "1",
    ...(config.env ?? {}),
  },
});
const preload = pathToFileURL(join(REPO, "bench/node/preload.mjs")).href;
const faux = join(REPO, "bench/node/faux-bench.ts");
const argv = ["--import", preload, PI[config.pi].cli, "-e", faux, "--model", "faux/faux-1", "--no-session", "-p", "go"];
for (let run = 0; run < Number(runsArg ?? 3); run++) {
  const { stderr } = spawnSync(NODE22, argv, { cwd: box.work, env, encoding: "utf8" });
  const ours = [...stderr.matchAll(/pi-gortex\/(?:index\.ts|dist\/extension\.js) (module import|factory): (\d+)ms/g)];
  const runtime = stderr.match(/createAgentSessionRuntime: (\d+)ms/)?.[1];
  process.stdout.write(
    `${run} ${ours.map((m) => `${m[1]}=${m[2]}ms`).join(" ")} createAgentSessionRuntime=${runtime}ms\n`,
  );
}
