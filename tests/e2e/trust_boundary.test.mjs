//! trust_boundary.test.mjs - issue 11 items 1-4 in the real Pi CLI, on both Pi versions: a cloned
//! project whose sidecar is a symlink to /dev/zero, a FIFO, a directory or 20 MB; PATH with an
//! empty and a `.` entry while the repository ships an executable `gortex`; a variable whose value
//! is not UTF-8. Each run must exit 0 (assertClean), keep Pi's peak RSS under 300 MB (VmHWM of the
//! Pi process, polled until it exits), give the model the graph tool's result, and never run the
//! repository's program (it would write a marker).
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe } from "node:test";
import { assertClean, toolName } from "./lib/gortex.mjs";
import { FAKE_GORTEX, NODE22 } from "./lib/hosts.mjs";
import { CONCURRENCY, scenario } from "./lib/matrix.mjs";
import { collect, KILL_AFTER_MS, piArgs, reportOf, runEnv, sandbox } from "./lib/run.mjs";
import { SOURCE_FILES } from "./lib/workspace.mjs";

const SEARCH_ARGS = { operation: "symbols", query: "Hello" };
const searchReply = `[fake-gortex] search symbols ${JSON.stringify(SEARCH_ARGS)}`;
const RSS_LIMIT_KB = 300 * 1024;

/** Peak RSS (VmHWM, kB) of `pid`: polled until the process is gone; VmHWM only grows. */
function watchPeak(pid) {
  let peak = 0;
  const read = () => {
    try {
      const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      if (match) peak = Math.max(peak, Number(match[1]));
    } catch {
      // Gone: the last value read stands.
    }
  };
  read();
  const timer = setInterval(read, 20);
  return () => {
    clearInterval(timer);
    return peak;
  };
}

/**
 * Runs Pi in print mode like runPi, measuring its peak RSS. `wrap` runs Pi through `/bin/sh -c`
 * (exec, same pid) so a test can export a variable JavaScript cannot spell (non-UTF-8 bytes).
 */
function runMeasured({ pi, script, env, args, shellPrefix, ...boxOptions }) {
  const box = sandbox({ pi, files: SOURCE_FILES, ...boxOptions });
  const argv = [...piArgs(box, { args }), "-p", "go"];
  const [command, fullArgv] = shellPrefix
    ? ["/bin/sh", ["-c", `${shellPrefix}; exec "$0" "$@"`, NODE22, ...argv]]
    : [NODE22, argv];
  return new Promise((resolve) => {
    const child = spawn(command, fullArgv, {
      cwd: box.work,
      env: runEnv(box, { script, env }),
      stdio: ["pipe", "pipe", "pipe"],
    });
    const stop = watchPeak(child.pid);
    const out = [];
    const err = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, KILL_AFTER_MS);
    child.stdout.on("data", (c) => out.push(c));
    child.stderr.on("data", (c) => err.push(c));
    child.on("exit", () => {
      // The status file is still readable until the parent reaps; read it one last time.
    });
    child.on("close", (status, signal) => {
      clearTimeout(timer);
      const peakKb = stop();
      const result = {
        pid: child.pid,
        status,
        signal,
        timedOut,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
      };
      resolve({ ...collect(box, result), peakKb });
    });
    child.stdin.end("");
  });
}

/** The assertions every row makes; returns the peak in MB for the record. */
async function assertSurvived(run, path, marker) {
  await assertClean(run);
  assert.ok(run.peakKb > 0, "the peak RSS was measured");
  assert.ok(run.peakKb < RSS_LIMIT_KB, `peak RSS ${Math.round(run.peakKb / 1024)} MB`);
  assert.deepEqual(reportOf(run.stdout).toolResults, [
    { name: toolName(path, "search"), isError: false, text: searchReply },
  ]);
  if (marker) assert.equal(existsSync(marker), false, "the repository's gortex never ran");
  // Figures for docs/reliability.md (node --test prints diagnostics).
  console.log(`# peak RSS ${run.box.pi} ${Math.round(run.peakKb / 1024)} MB`);
}

const searchScript = (path) => [{ call: toolName(path, "search"), args: SEARCH_ARGS }, { report: true }];

/** A sidecar layout built inside the sandbox's project. */
function sidecarCase(name, make) {
  scenario(
    `a project sidecar that is ${name}: one warning, the layer falls through, tools work (CFG-16)`,
    {},
    async ({ pi, path }) => {
      const run = await runMeasured({
        pi,
        script: searchScript(path),
        setup: (box) => {
          mkdirSync(join(box.work, ".pi"), { recursive: true });
          make(join(box.work, ".pi/gortex.json"), box);
        },
      });
      await assertSurvived(run, path);
    },
  );
}

describe("trust boundary: project sidecars", { concurrency: CONCURRENCY }, () => {
  sidecarCase("a symlink to /dev/zero", (file) => symlinkSync("/dev/zero", file));
  sidecarCase("a FIFO", (file) => {
    const made = spawnSync("mkfifo", [file]);
    assert.equal(made.status, 0, String(made.stderr));
  });
  sidecarCase("a directory", (file) => mkdirSync(file));
  sidecarCase("20 MB", (file) => writeFileSync(file, `{"enforce":false}${" ".repeat(20 * 1024 * 1024)}`));
});

describe("trust boundary: binary and environment", { concurrency: CONCURRENCY }, () => {
  scenario(
    "PATH with an empty and a . entry and a repository gortex: the repository's program never runs (CFG-18)",
    {},
    async ({ pi, path }) => {
      const dirs = mkdtempSync(join(tmpdir(), "pi-e2e-path-"));
      const bin = join(dirs, "bin");
      mkdirSync(bin);
      symlinkSync(FAKE_GORTEX, join(bin, "gortex"));
      const marker = join(dirs, "repository-gortex-ran");
      const run = await runMeasured({
        pi,
        script: searchScript(path),
        env: { GORTEX_BIN: undefined, PATH: `:.:${bin}:${process.env.PATH}` },
        setup: (box) => {
          const shim = join(box.work, "gortex");
          writeFileSync(shim, `#!/bin/sh\ntouch '${marker}'\nexec '${FAKE_GORTEX}' "$@"\n`);
          chmodSync(shim, 0o755);
        },
      });
      await assertSurvived(run, path, marker);
    },
  );

  scenario(
    "a variable whose value is not UTF-8: the graph tools stay (CFG-18, issue 11 item 4)",
    {},
    async ({ pi, path }) => {
      const run = await runMeasured({
        pi,
        script: searchScript(path),
        shellPrefix: "export PI_GORTEX_E2E_RAW=\"$(printf 'caf\\351\\377')\"",
      });
      await assertSurvived(run, path);
    },
  );
});
