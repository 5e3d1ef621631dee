#!/usr/bin/env bash
# Tiny real addons-to-be for every object format pack-all reads, so its header
# checks are tested on what real linkers write rather than on bytes the test
# itself made up: each fixture is a shared object that calls one Node-API
# function, built by the linker a core for that platform is built with
# (zig for musl and macOS, as cargo-zigbuild does; mingw for PE; Debian's
# cross gcc for arm64 glibc). Usage: fixtures.sh OUT_DIR ZIG
set -euo pipefail
out=$1
zig=$2
mkdir -p "$out"
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
cat >"$src/addon.c" <<'C'
#include <stdlib.h>
typedef struct napi_env__ *napi_env;
typedef struct napi_value__ *napi_value;
extern int napi_create_object(napi_env env, napi_value *result);
napi_value napi_register_module_v1(napi_env env, napi_value exports) {
  napi_value object;
  free(malloc(8));
  napi_create_object(env, &object);
  return object ? object : exports;
}
C
# A macOS library that leaves a symbol other than Node-API to the host.
cat >"$src/stray.c" <<'C'
extern int not_node_api(void);
int entry(void) { return not_node_api(); }
C
echo 'int entry(void) { return 42; }' >"$src/plain.c"
echo 'int main(void) { return 0; }' >"$src/main.c"

build() { # name, compiler command...
  local name=$1
  shift
  [ -s "$out/$name" ] && return
  "$@" -o "$out/$name.tmp"
  mv -f "$out/$name.tmp" "$out/$name"
}
build linux-x64-gnu.so cc -shared -fPIC "$src/addon.c"
build linux-arm64-gnu.so aarch64-linux-gnu-gcc -shared -fPIC "$src/addon.c"
build linux-x64-musl.so "$zig" cc -target x86_64-linux-musl -shared -fPIC "$src/addon.c"
build linux-x64-gnu.exe cc -no-pie "$src/main.c"
build darwin-arm64.dylib "$zig" cc -target aarch64-macos.11.0 -shared -undefined dynamic_lookup "$src/addon.c"
build darwin-x64.dylib "$zig" cc -target x86_64-macos.11.0 -shared -undefined dynamic_lookup "$src/addon.c"
build darwin-arm64-macos15.dylib "$zig" cc -target aarch64-macos.15.0 -shared -undefined dynamic_lookup "$src/addon.c"
build darwin-arm64-stray.dylib "$zig" cc -target aarch64-macos.11.0 -shared -undefined dynamic_lookup "$src/stray.c"
build win32-x64.dll x86_64-w64-mingw32-gcc -shared "$src/plain.c"
build win32-x64.exe x86_64-w64-mingw32-gcc "$src/main.c"
ls "$out"
