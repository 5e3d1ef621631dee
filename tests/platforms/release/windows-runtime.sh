#!/usr/bin/env bash
# The release workflow's Windows runtime job: every test binary of the runtime and fake-gortex
# built for the runner's MSVC target and run on Windows itself, then, with --ignored, the tests
# whose Windows `ignore` reason starts with "wine" (reparse points, process start-up speed):
# they are ignored because of the emulator `make test-windows` uses, and hold on Windows.
# Fails when a run fails, when no test passed, or when the ignored run passed fewer tests than
# the sources mark as wine limits.
# Usage: windows-runtime.sh <target triple>. Expects NODE22 (a Windows path), the Pi 1.6.0 host
# and tests/sdk-peer installed.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
target=${1:?usage: windows-runtime.sh <target triple>}

cargo build -q -p fake-gortex --target "$target"
export FAKE_GORTEX_BIN
FAKE_GORTEX_BIN=$(cygpath -w "$root/target/$target/debug/fake-gortex.exe")

# Passed tests in a libtest log: the sum of its "test result" lines.
passed() { grep -aE '^test result: ' "$1" | grep -oE '[0-9]+ passed' | awk '{s += $1} END {print s + 0}'; }

all=$(mktemp)
cargo test -p pi-gortex-runtime -p fake-gortex --target "$target" 2>&1 | tee "$all"

mapfile -t files < <(grep -lE 'ignore = "wine' runtime/tests/*.rs)
wine_limits=$(cat "${files[@]}" | grep -cE 'ignore = "wine')
tests=()
for file in "${files[@]}"; do tests+=(--test "$(basename "$file" .rs)"); done
ignored=$(mktemp)
cargo test -p pi-gortex-runtime --target "$target" "${tests[@]}" -- --ignored 2>&1 | tee "$ignored"

echo "windows ($target): $(passed "$all") passed; wine limits run: $(passed "$ignored") of $wine_limits"
(($(passed "$all") > 0)) || { echo "no test passed" && exit 1; }
(($(passed "$ignored") == wine_limits)) || { echo "not every wine limit ran and passed" && exit 1; }
