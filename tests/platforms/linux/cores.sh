#!/usr/bin/env bash
# The native core of every non-Windows target, linked here as the release
# workflow links it, then checked by pack-all's header reader. Usage:
#   cores.sh OUT_DIR PROFILE        (PROFILE: dev or release)
# arm64 glibc links with Debian's cross gcc; musl and macOS with
# cargo-zigbuild (zig from PyPI, no macOS SDK: napi-rs leaves Node-API to
# the host with -undefined dynamic_lookup). The musl cores are built without
# crt-static (a static libc cannot be a shared object), in their own target
# directory so the static test binaries of run.sh keep theirs; the macOS
# cores go there too, so they build while run.sh's builds hold target/.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
out=$1
profile=${2:-dev}
dir=$([ "$profile" = dev ] && echo debug || echo "$profile")
mkdir -p "$out/cores"
export PATH="$ZIG_PATH:$PATH" MACOSX_DEPLOYMENT_TARGET=11.0
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
rustup target add aarch64-unknown-linux-gnu x86_64-unknown-linux-musl aarch64-unknown-linux-musl \
  x86_64-apple-darwin aarch64-apple-darwin >/dev/null

core() { # triple, tag, target dir, cargo subcommand, library name
  local triple=$1 tag=$2 tdir=$3 sub=$4 lib=$5
  local started=$SECONDS
  cargo "$sub" -q -p pi-gortex-node --profile "$profile" --target "$triple" --target-dir "$tdir"
  cp -f "$tdir/$triple/$dir/$lib" "$out/cores/pi-gortex.$tag.node"
  echo "core $tag: $((SECONDS - started)) s"
}
for arch in x86_64 aarch64; do
  tag=linux-$([ $arch = x86_64 ] && echo x64 || echo arm64)-musl
  RUSTFLAGS="-C target-feature=-crt-static" core "$arch-unknown-linux-musl" "$tag" "$root/target/platforms/dylib" \
    zigbuild libpi_gortex_node.so
done
core x86_64-apple-darwin darwin-x64 "$root/target/platforms/dylib" zigbuild libpi_gortex_node.dylib
core aarch64-apple-darwin darwin-arm64 "$root/target/platforms/dylib" zigbuild libpi_gortex_node.dylib
# Last: it shares target/ (and its lock) with run.sh's arm64 test builds.
core aarch64-unknown-linux-gnu linux-arm64-gnu "$root/target" build libpi_gortex_node.so
"$NODE22" "$root/bindings/node/scripts/pack-all.mjs" --out "$out/pack-all" --from "$out/cores"
