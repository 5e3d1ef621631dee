//! matrix.mjs - declares a scenario once and runs it on every Pi/path it applies to:
//! every scenario on Pi 1.6.0 (native MCP path); those marked `both` also on Pi 0.87.1 (own
//! client). A missing build product (fake-gortex, the packed tarball, a host) skips with the
//! reason when the suite is run by hand, and fails under `make test-e2e`
//! (PI_E2E_REQUIRE_BUILT=1), so `make test` can never pass by skipping.
import assert from "node:assert/strict";
import { test } from "node:test";
import { FAKE_GORTEX, missing, NODE22, PI, TARBALL, VERSION_UNDER_TEST } from "./hosts.mjs";

/** Under PI_E2E_VERSION (`make test-pi-versions`), that Pi alone, on its default path. */
export const TARGETS = VERSION_UNDER_TEST
  ? [{ pi: VERSION_UNDER_TEST, path: PI[VERSION_UNDER_TEST].path }]
  : [
      { pi: "1.6.0", path: "native" },
      { pi: "0.87.1", path: "own" },
    ];

/** Independent scenarios run concurrently; a few Pi processes at a time suit two cores. */
export const CONCURRENCY = 3;

/**
 * Registers `name` for each target. `fn` receives `{pi, path}`. `both: false` keeps it on 1.6.0;
 * `only: "<version>"` keeps it on that version (own-client faults: "0.87.1").
 * `pathOverride` names the path a 1.6.0-only scenario really exercises (e.g. `--no-mcp` = own).
 */
export function scenario(name, { both = true, path, only } = {}, fn) {
  for (const target of TARGETS) {
    if (!both && target.pi !== "1.6.0") continue;
    if (only && target.pi !== only) continue;
    const on = { ...target, path: path ?? target.path };
    const absent = missing(NODE22, PI[on.pi].cli, FAKE_GORTEX, TARBALL);
    const title = `${name} [Pi ${on.pi}, ${on.path}]`;
    if (absent && process.env.PI_E2E_REQUIRE_BUILT === "1") {
      // Under `make test-e2e` everything is built first: a missing product is a failure.
      test(title, () => assert.fail(absent));
    } else {
      test(title, absent ? { skip: absent } : {}, () => fn(on));
    }
  }
}
