#!/usr/bin/env node
// pi-gortex (PKG-11): the npm package's command line (`npx pi-gortex doctor [--json]`,
// `npx pi-gortex diff <before> <after>`), for users who never build the Rust
// workspace. The commands run in the native core (`runCli`, the same
// function the Rust `pi-gortex` binary runs), so the output and the exit
// codes are the binary's. This file only loads the core and prints.
import { loadCore } from "../glue/load.mjs";

const loaded = loadCore();
if (!("addon" in loaded)) {
  process.stderr.write(
    `pi-gortex: ${loaded.error}\nPlatform ${loaded.tag}; prebuilt cores exist for ${loaded.supported.join(", ")}.\n`,
  );
  process.exit(2);
}
const out = await loaded.addon.runCli(["pi-gortex", ...process.argv.slice(2)]);
process.stdout.write(out.stdout);
process.stderr.write(out.stderr);
process.exitCode = out.exitCode;
