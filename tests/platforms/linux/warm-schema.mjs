// Preloaded (`--import`) by run.sh into arm64 Node under qemu before the ExtensionRunner suites.
// A session's first configuration read with a sidecar compiles the sidecar's JSON Schema once per
// process: 75 ms natively (release core), 5.3 s for the dev core under qemu-user, which is over
// the extension's 5 s read bound, so whichever test reads a sidecar first would run without its
// configuration (the bound's fail-open, as designed). The compile is done here once, so every test
// meets the steady state (34-49 ms under qemu), as a host does after its first session.
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

const pkg = process.env.PI_GORTEX_TEST_PKG_DIR;
const core = createRequire(import.meta.url)(
  join(
    pkg,
    readdirSync(pkg).find((name) => name.endsWith(".node")),
  ),
);
const cwd = mkdtempSync(join(tmpdir(), "pi-gortex-warm-"));
mkdirSync(join(cwd, ".pi"));
writeFileSync(join(cwd, ".pi/gortex.json"), JSON.stringify({ hook_mode: "enrich" }));
const started = Date.now();
for (let attempt = 1; attempt <= 12; attempt++) {
  const config = await new core.Extension(new core.Module()).resolveConfig(cwd);
  if (config.hookArgv.includes("--mode=enrich")) {
    process.stderr.write(`warm-schema: the sidecar schema compiled in ${Date.now() - started} ms (${attempt} reads)\n`);
    break;
  }
}
