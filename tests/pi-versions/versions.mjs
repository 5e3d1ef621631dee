//! versions.mjs - the Pi releases `make test-pi-versions` runs the smoke slice on, and the range
//! bindings/node/package.json declares from them. Each release is a tests/hosts/pi-<version>/
//! folder pinning it (one per minor, its newest patch), so adding a folder widens both the run
//! and the range packaging.test.mjs expects.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const HOSTS = join(REPO, "tests/hosts");
const PI_PACKAGE = "@earendil-works/pi-coding-agent";

/** Orders `x.y.z` strings numerically. */
export function compareVersions(a, b) {
  const [x, y] = [a, b].map((v) => v.split(".").map(Number));
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
}

/** The pinned Pi version of every tests/hosts/pi-*\/ folder, oldest first. */
export function hostVersions() {
  return readdirSync(HOSTS)
    .filter((name) => name.startsWith("pi-"))
    .map((name) => {
      const pinned = JSON.parse(readFileSync(join(HOSTS, name, "package.json"), "utf8")).dependencies[PI_PACKAGE];
      if (name !== `pi-${pinned}`) throw new Error(`tests/hosts/${name} pins ${PI_PACKAGE}@${pinned}`);
      return pinned;
    })
    .sort(compareVersions);
}

/** The peer range that covers exactly the versions run: from the oldest to the newest. */
export function declaredRange(versions = hostVersions()) {
  return `>=${versions[0]} <=${versions.at(-1)}`;
}

/**
 * The smoke slice: the packed extension loads, a graph tool answers through the path the Pi has
 * (its own MCP from 0.99, the extension's client before), Gortex's own hook blocks a read, and
 * every mode ends with no Gortex process left. Each entry is an e2e file and a test title prefix.
 */
export const SMOKE = [
  ["loading.test.mjs", "loads with -e <installed package dir>"],
  ["tools.test.mjs", "1. a graph tool call (search) reaches the daemon"],
  ["hook_upstream.test.mjs", "U1. deny: Pi's read of indexed main.go is blocked"],
  ["session.test.mjs", "12. after exit no fake-gortex process is left, in every mode"],
];
