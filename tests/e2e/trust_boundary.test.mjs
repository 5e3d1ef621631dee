//! trust_boundary.test.mjs - the trust boundary in the real Pi CLI, on both Pi versions: a cloned
//! project whose sidecar is a symlink to /dev/zero, a FIFO, a directory or 20 MB; PATH with an
//! empty and a `.` entry while the repository ships an executable `gortex`; a variable whose value
//! is not UTF-8. Each run must exit 0 (assertClean), keep Pi's peak RSS under 300 MB (VmHWM of the
//! Pi process, polled until it exits), give the model the graph tool's result, and never run the
//! repository's program (it would write a marker). Plus CFG-19 on both versions (both have
//! `ctx.isProjectTrusted()`): an untrusted folder's sidecar is ignored with one notice saying how
//! to trust it, a trusted one's honoured.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe } from "node:test";
import { assertClean, hooksFor, toolName } from "./lib/gortex.mjs";
import { FAKE_GORTEX, NODE22 } from "./lib/hosts.mjs";
import { CONCURRENCY, scenario } from "./lib/matrix.mjs";
import { runRpc } from "./lib/rpc.mjs";
import { collect, piArgs, reportOf, runEnv, runPi, sandbox, spawnCollect } from "./lib/run.mjs";
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
 * Runs Pi in print mode like runPi, measuring its peak RSS. `shellPrefix` runs Pi through
 * `/bin/sh -c` (exec, same pid) so a test can export a variable JavaScript cannot spell (non-UTF-8
 * bytes). Every project ships an executable `gortex` that leaves a marker (`run.marker`) if it
 * ever runs: the repository's program must never run, whatever the case.
 */
async function runMeasured({ pi, script, env, args, shellPrefix, setup, ...boxOptions }) {
  const box = sandbox({
    pi,
    files: SOURCE_FILES,
    ...boxOptions,
    setup: (made) => {
      const shim = join(made.work, "gortex");
      writeFileSync(
        shim,
        `#!/bin/sh\ntouch '${join(made.root, "repository-gortex-ran")}'\nexec '${FAKE_GORTEX}' "$@"\n`,
      );
      chmodSync(shim, 0o755);
      setup?.(made);
    },
  });
  const marker = join(box.root, "repository-gortex-ran");
  const argv = [...piArgs(box, { args }), "-p", "go"];
  const [command, fullArgv] = shellPrefix
    ? ["/bin/sh", ["-c", `${shellPrefix}; exec "$0" "$@"`, NODE22, ...argv]]
    : [NODE22, argv];
  const { measured: peakKb, ...result } = await spawnCollect(command, fullArgv, {
    cwd: box.work,
    env: runEnv(box, { script, env }),
    input: "",
    watch: watchPeak,
  });
  return { ...collect(box, result), peakKb, marker };
}

/** The assertions every row makes: Pi exits 0 and clean, peak RSS, the graph result, no marker. */
async function assertSurvived(run, path, label) {
  await assertClean(run);
  assert.ok(run.peakKb > 0, "the peak RSS was measured");
  assert.ok(run.peakKb < RSS_LIMIT_KB, `peak RSS ${Math.round(run.peakKb / 1024)} MB`);
  assert.deepEqual(reportOf(run.stdout).toolResults, [
    { name: toolName(path, "search"), isError: false, text: searchReply },
  ]);
  assert.equal(existsSync(run.marker), false, "the repository's gortex never ran");
  // Figures for docs/reliability.md (node --test prints diagnostics).
  console.log(`# peak RSS Pi ${run.box.pi}, ${label}: ${Math.round(run.peakKb / 1024)} MB`);
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
      await assertSurvived(run, path, `sidecar ${name}`);
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
      // The project's own `gortex` (runMeasured's marker shim) is what `.` and `` would find.
      const run = await runMeasured({
        pi,
        script: searchScript(path),
        env: { GORTEX_BIN: undefined, PATH: `:.:${bin}:${process.env.PATH}` },
      });
      await assertSurvived(run, path, "PATH :. with a repository gortex");
    },
  );

  scenario("a variable whose value is not UTF-8: the graph tools stay (CFG-18)", {}, async ({ pi, path }) => {
    const run = await runMeasured({
      pi,
      script: searchScript(path),
      shellPrefix: "export PI_GORTEX_E2E_RAW=\"$(printf 'caf\\351\\377')\"",
    });
    await assertSurvived(run, path, "a non-UTF-8 variable");
  });
});

describe("trust boundary: project trust (CFG-19)", { concurrency: CONCURRENCY }, () => {
  const sidecar = JSON.stringify({ hook_mode: "enrich" });
  // A `.pi/settings.json` is a protected resource: without a decision Pi's print, JSON and RPC
  // modes decline it.
  const asking = { ...SOURCE_FILES, ".pi/gortex.json": sidecar, ".pi/settings.json": "{}" };
  // Only `gortex.json`: nothing Pi protects, so Pi trusts the folder unless told otherwise.
  const plain = { ...SOURCE_FILES, ".pi/gortex.json": sidecar };
  const readMain = { call: "read", args: { path: "main.go" } };
  const saved = (trusted) => (box) =>
    writeFileSync(join(box.agent, "trust.json"), JSON.stringify({ [box.work]: trusted }));
  /** The hook posture of the one read; asserts the hook judged it (enforcement is on either way). */
  const modeOf = (run) => {
    const reads = hooksFor(run.fake, "tool_call", "Read");
    assert.equal(reads.length, 1, "the hook ran for the read");
    return reads[0].argv.find((a) => a.startsWith("--mode")) ?? "deny";
  };
  const IGNORED = "deny";
  const HONOURED = "--mode=enrich";
  // [what, files, run options, expected posture, scenario options]
  const rows = [
    ["a folder Pi asks about, no decision", asking, {}, IGNORED],
    ["a folder Pi asks about, no decision, JSON mode", asking, { mode: "json" }, IGNORED],
    ["a folder Pi asks about, --approve", asking, { args: ["--approve"] }, HONOURED],
    ["a folder Pi asks about, a saved trust decision", asking, { setup: saved(true) }, HONOURED],
    ["a folder Pi asks about, a saved refusal", asking, { setup: saved(false) }, IGNORED],
    ["only gortex.json, no flag (Pi trusts it)", plain, {}, HONOURED],
    ["only gortex.json, JSON mode", plain, { mode: "json" }, HONOURED],
    ["only gortex.json, --no-approve", plain, { args: ["--no-approve"] }, IGNORED],
    // Pi 1.6.0 applies a saved refusal to any folder; 0.87.1 consults saved decisions only
    // when a protected resource is present, so there the folder stays trusted.
    ["only gortex.json, a saved refusal", plain, { setup: saved(false) }, IGNORED, { both: false }],
    [
      "only gortex.json, a saved refusal (0.87.1 still trusts it)",
      plain,
      { setup: saved(false) },
      HONOURED,
      { only: "0.87.1" },
    ],
  ];
  for (const [what, files, { mode, ...options }, expected, scenarioOptions = {}] of rows) {
    const verdict = expected === IGNORED ? "the project sidecar is ignored" : "the project sidecar is honoured";
    scenario(`${what}: ${verdict}`, scenarioOptions, async ({ pi }) => {
      const script = [readMain, { report: true }];
      const run =
        mode === "json"
          ? await runPi({ pi, mode, files, script, ...options })
          : await runMeasured({ pi, files, script, ...options });
      await assertClean(run);
      assert.equal(modeOf(run), expected);
    });
  }

  scenario("untrusted over RPC: exactly one notice across /new, saying how to trust the folder", {}, async ({ pi }) => {
    // No prompt: the notice comes from session_start, and Pi 0.87.1's RPC has no agent_settled.
    const run = await runRpc({
      pi,
      files: asking,
      commands: [{ type: "get_state" }, { type: "new_session" }, { type: "get_state" }],
    });
    await assertClean(run);
    const notices = run.notifications.filter((n) => /not trusted/.test(n.message));
    assert.equal(notices.length, 1, JSON.stringify(run.notifications));
    assert.equal(notices[0].notifyType, "warning");
    assert.equal(
      notices[0].message,
      `pi-gortex: ${join(run.box.work, ".pi/gortex.json")} is ignored because this folder is not trusted. To use it, trust the folder: run /trust in Pi, or start Pi with --approve.`,
    );
  });

  scenario("trusted over RPC: no notice", {}, async ({ pi }) => {
    const run = await runRpc({ pi, files: asking, args: ["--approve"], commands: [{ type: "get_state" }] });
    await assertClean(run);
    assert.deepEqual(
      run.notifications.filter((n) => /not trusted/.test(n.message)),
      [],
    );
  });
});
