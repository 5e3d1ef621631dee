# Sourced by run.sh and node.sh: installs what Windows-under-wine needs (Debian's wine
# and mingw-w64, the rustup target), makes the wine prefix under target/ (reported as
# Windows 10: Node 22 refuses older ones with exit 216) and puts the stand-in
# bcryptprimitives.dll (processprng.c) in it, which wine 8 lacks and Rust's std needs.
# Expects $root; exports WINEPREFIX, WINEDEBUG, WINEDLLOVERRIDES.
target=x86_64-pc-windows-gnu
missing=()
command -v wine >/dev/null || missing+=(wine wine64)
command -v x86_64-w64-mingw32-gcc >/dev/null || missing+=(gcc-mingw-w64-x86-64-posix)
if ((${#missing[@]})); then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
rustup target add "$target" >/dev/null 2>&1

export WINEPREFIX="$root/target/wine-prefix"
export WINEDEBUG=-all
# No Mono or Gecko: nothing here needs them, and wine would try to download them.
export WINEDLLOVERRIDES="mscoree,mshtml="
if [[ ! -f "$WINEPREFIX/.pi-gortex-ready" ]]; then
  wineboot -i >/dev/null 2>&1 || true
  wine winecfg /v win10 >/dev/null 2>&1
  wineserver -w
  touch "$WINEPREFIX/.pi-gortex-ready"
fi
prng_dll="$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll"
if [[ ! -f "$prng_dll" || "$root/tests/platforms/windows/processprng.c" -nt "$prng_dll" ]]; then
  x86_64-w64-mingw32-gcc -shared -O2 -o "$prng_dll" "$root/tests/platforms/windows/processprng.c" \
    "$root/tests/platforms/windows/processprng.def" -ladvapi32
fi
