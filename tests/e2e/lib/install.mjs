//! install.mjs - installs the packed pi-gortex tarball the way a user does, once per suite run.
//!
//! `pi install npm:<tarball>` runs Pi's own npm install into `<agentDir>/npm/`. Pi records that
//! source as the tarball path, which it cannot resolve on the next start, so the template's
//! settings are then written as `{"packages":["npm:pi-gortex"]}`: exactly the state a user has
//! after `pi install npm:pi-gortex`. Each test copies the template into its fresh agent dir.
//! The template is cached per tarball content and Pi version; concurrent test processes build
//! into private directories and rename, so no lock is needed.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NODE22, PI, TARBALL } from "./hosts.mjs";

const CACHE = join(tmpdir(), "pi-gortex-e2e-install");

/**
 * npm's global prefix of an agent dir. Pi 0.74 installs a user's npm packages with `npm install -g`
 * and finds them under `npm root -g`, so each agent dir has its own prefix (npm_config_prefix), and
 * no run reads or writes the machine's.
 */
export const npmPrefix = (agentDir) => join(agentDir, "npm-global");

/** Where `pi install` put the package: Pi's own npm folder, or the agent dir's global prefix. */
function packageDir(agentDir) {
  const dirs = [join(agentDir, "npm/node_modules/pi-gortex"), join(npmPrefix(agentDir), "lib/node_modules/pi-gortex")];
  return dirs.find((dir) => existsSync(join(dir, "package.json")));
}

/** Path of an agent-dir template holding the installed package, building it when absent. */
export function agentTemplate(version) {
  const digest = createHash("sha256").update(readFileSync(TARBALL)).digest("hex").slice(0, 16);
  const final = join(CACHE, `${digest}-${version}`);
  if (existsSync(join(final, "settings.json"))) return final;
  mkdirSync(CACHE, { recursive: true });
  const scratch = `${final}.tmp-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  const run = spawnSync(NODE22, [PI[version].cli, "install", `npm:${TARBALL}`], {
    env: {
      ...process.env,
      PI_CODING_AGENT_DIR: scratch,
      PI_OFFLINE: "1",
      PI_SKIP_VERSION_CHECK: "1",
      PI_TELEMETRY: "0",
      npm_config_prefix: npmPrefix(scratch),
    },
    encoding: "utf8",
    timeout: 120_000,
  });
  if (run.status !== 0 || !packageDir(scratch)) {
    throw new Error(`pi install npm:${TARBALL} failed (rc ${run.status}): ${run.stdout}${run.stderr}`);
  }
  writeFileSync(join(scratch, "settings.json"), `${JSON.stringify({ packages: ["npm:pi-gortex"] }, null, 2)}\n`);
  try {
    renameSync(scratch, final);
  } catch {
    // Another test process won the race; its template is identical.
    rmSync(scratch, { recursive: true, force: true });
  }
  return final;
}

/** Directory of the installed package (for `-e <dir>` and PKG-3 copies). */
export function installedPackageDir(version) {
  return packageDir(agentTemplate(version));
}

/** Fills a fresh agent dir with the installed package and its settings entry. */
export function installInto(agentDir, version) {
  cpSync(agentTemplate(version), agentDir, { recursive: true });
}
