#!/usr/bin/env bash
# Builds the upstream Gortex hook handler from src.tgz with its two wire types replaced by the
# generated Go package: pi.go's BridgeEvent and BridgeDecision become aliases of
# gortexproto.BridgeEvent and gortexproto.BridgeDecision (bindings/go of this repository, copied
# into the scratch tree and wired by a `replace` line), and nothing else changes.
#   adopt.sh [OUT]      OUT defaults to ./bin/gortex-hook-adopted; GO as for build.sh.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="$(realpath -m "${1:-$here/bin/gortex-hook-adopted}")"
go="${GO:-go}"; case "$go" in */*) go="$(realpath "$go")" ;; esac
module=github.com/gortexhq/pi/bindings/go
scratch="$(mktemp -d)"; trap 'rm -rf "$scratch"' EXIT
tar -xzf "$here/src.tgz" -C "$scratch"
cd "$scratch/work"

# The package as a user's module cache holds it: its own files only, read from the scratch tree.
mkdir -p third_party/gortexproto
cp -R "$repo/bindings/go/." third_party/gortexproto/
cat >>go.mod <<MOD

require $module v0.0.0
replace $module => ./third_party/gortexproto
MOD

# The two struct declarations (with their doc comments) give way to aliases; the PiEvent and
# PiDecision aliases below them keep naming the same types. perl exits 1 when either is missing,
# so an upstream change to the declarations stops the build instead of building the original.
MODULE=$module perl -0 -e '
  $_ = <STDIN>;
  my $n = 0;
  $n += s{(?:^//[^\n]*\n)*^type BridgeEvent struct \{\n.*?^\}\n}{// BridgeEvent is the envelope type of the generated package.\ntype BridgeEvent = gortexproto.BridgeEvent\n}ms;
  $n += s{(?:^//[^\n]*\n)*^type BridgeDecision struct \{\n.*?^\}\n}{// BridgeDecision is the decision type of the generated package.\ntype BridgeDecision = gortexproto.BridgeDecision\n}ms;
  $n += s{^import \(\n}{import (\n\tgortexproto "$ENV{MODULE}"\n}m;
  print;
  exit($n == 3 ? 0 : 1);
' <internal/hooks/pi.go >internal/hooks/pi.go.new || { echo "adopt.sh: pi.go no longer declares BridgeEvent and BridgeDecision as expected" >&2; exit 1; }
mv internal/hooks/pi.go.new internal/hooks/pi.go

mkdir -p "$(dirname "$out")"
GOTOOLCHAIN=local GOPROXY=off GOFLAGS=-mod=mod GONOSUMDB='*' CGO_ENABLED=0 \
  GOPATH="${GOPATH:-$scratch/gopath}" GOCACHE="${GOCACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gortex-hook-build}" \
  "$go" build -p 1 -trimpath -o "$out" ./cmd/gortex-hook
echo "built $out"
