// stage: the main npm package as it is published, in a directory of its own.
//
// The checkout keeps the glue as one TypeScript file per concern (index.ts +
// glue/*.ts), which Pi loads as they are during development (`pi -e
// bindings/node`) and which the ExtensionRunner suites and StrykerJS test. The
// published package instead carries them bundled into one module,
// dist/extension.js (esbuild; Pi's own packages stay imports, resolved by Pi's
// loader), and its manifest names that module. Pi's loader pays a fixed cost
// per module it loads through jiti (resolution, the transpile cache lookup,
// evaluation): one module instead of ten took about 6 ms off every start
// (docs/benchmarks.md). glue/load.mjs, bundled in, keeps its paths:
// dist/ sits one level below the package root, as glue/ does.
//
//   node scripts/stage.mjs --out DIR [--no-core]
//
// Used by `make pack` (with the core, for the tests' tarball) and by
// scripts/pack-all.mjs (without it; cores go to the platform packages).
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";

const PKG_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
export const BUNDLE = "dist/extension.js";
/** Sources the bundle replaces in the published package. */
const BUNDLED = (path) => path === "index.ts" || /^glue\/[^/]+\.ts$/.test(path);

/** The manifest of the published package: every entry that named index.ts names the bundle. */
export function publishedManifest(manifest) {
  const entry = `./${BUNDLE}`;
  const published = {
    ...manifest,
    main: entry,
    exports: { ...manifest.exports, ".": entry },
    pi: { ...manifest.pi, extensions: [entry] },
    files: [...manifest.files.filter((pattern) => pattern !== "index.ts" && pattern !== "glue/*.ts"), "dist/*.js"],
  };
  delete published.devDependencies;
  delete published.scripts;
  return published;
}

/** Bundles index.ts and the glue it imports into `outfile`. */
export function bundle(outfile) {
  const result = buildSync({
    entryPoints: [join(PKG_DIR, "index.ts")],
    outfile,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node22",
    // Pi's packages are Pi's own instances (its loader maps these imports to them).
    external: ["@earendil-works/*"],
    banner: {
      js: "// pi-gortex: index.ts and glue/*.ts bundled by scripts/stage.mjs (esbuild); edit those, not this.",
    },
    legalComments: "none",
    logLevel: "silent",
  });
  if (result.errors.length > 0) throw new Error(`bundle: ${result.errors.map((e) => e.text).join("; ")}`);
}

/** Copies what `npm pack` would take from the checkout into `out`, minus the bundled sources. */
export function stageMainPackage(out, { withCore }) {
  const manifest = JSON.parse(readFileSync(join(PKG_DIR, "package.json"), "utf8"));
  const listing = JSON.parse(
    execFileSync("npm", ["pack", "--dry-run", "--json", "--silent"], { cwd: PKG_DIR, encoding: "utf8" }),
  )[0].files.map((file) => file.path);
  rmSync(out, { recursive: true, force: true });
  for (const path of listing) {
    if (BUNDLED(path) || path === "package.json" || (!withCore && path.endsWith(".node"))) continue;
    mkdirSync(dirname(join(out, path)), { recursive: true });
    cpSync(join(PKG_DIR, path), join(out, path));
  }
  bundle(join(out, BUNDLE));
  writeFileSync(join(out, "package.json"), `${JSON.stringify(publishedManifest(manifest), null, 2)}\n`);
  return manifest;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const out = args[args.indexOf("--out") + 1];
  if (!args.includes("--out") || !out) {
    process.stderr.write("usage: stage.mjs --out DIR [--no-core]\n");
    process.exit(2);
  }
  stageMainPackage(resolve(out), { withCore: !args.includes("--no-core") });
}
