#!/usr/bin/env bash
# The release workflow's test job: the ExtensionRunner suites against the core the build job made
# (downloaded next to index.ts), on the runner's own OS and architecture. Windows runs the Windows
# suites (tests/platforms/windows: the ExtensionRunner smoke suite and the real Pi CLI slice), as
# wine does here; every other runner runs tests/node on Pi 1.6.0 and its own-client subset on
# Pi 0.87.1. A file that cannot run on a runner is named with its reason, never dropped silently.
# Expects GORTEX_UPSTREAM_HOOK (Gortex's own `gortex` binary, `gortex hook`), FAKE_GORTEX_BIN,
# the Pi hosts installed and target/pi-gortex.tgz packed.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
os=$(uname -s)

# node --test with these arguments; fails when it fails or when no test passed (a run that
# executed nothing proves nothing). Node's TAP and spec reporters both end with a pass count.
node_tests() {
  local log status=0 passed
  log=$(mktemp)
  node --test "$@" 2>&1 | tee "$log" || status=$?
  passed=$(grep -aoE '^(# |ℹ )pass [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+$' || true)
  rm -f "$log"
  ((status == 0)) || return "$status"
  ((${passed:-0} > 0)) || {
    echo "no test passed: node --test $*"
    return 1
  }
}

case "$os" in
MINGW* | MSYS* | CYGWIN* | Windows_NT)
  node_tests --test-concurrency=1 tests/platforms/windows/node/*.test.mjs tests/platforms/windows/e2e/*.test.mjs
  exit
  ;;
esac

files=()
for file in tests/node/*.test.mjs; do
  case "$(basename "$file"):$os" in
  packaging.test.mjs:*)
    # Its header fixtures are linked by `make platform-fixtures` with Debian's cross toolchains;
    # the publish job's pack-all reads the real cores' headers instead.
    echo "not run on this runner: $file (fixtures from Debian's cross toolchains; pack-all checks the real cores)"
    continue
    ;;
  scope.test.mjs:Darwin)
    echo "not run on this runner: $file (PKG-7 watches the session's execs with strace, which is Linux's)"
    continue
    ;;
  esac
  files+=("$file")
done
node_tests --test-concurrency=2 "${files[@]}"
PI_HOST_DIR="$root/tests/hosts/pi-0.87.1" node_tests --test-concurrency=2 "${files[@]}"
