#!/usr/bin/env bash
# `make mutants`: cargo-mutants on the runtime's decision modules.
#
# Each group mutates a few files and runs only the test targets that speak
# for them, so the whole run fits in an hour on two shared cores. It works
# in a scratch copy of the tree (target/mutants/src) mutated in place, so the
# copy's own target/ stays warm between groups and between runs, and the
# developer's tree is never touched. Results: target/mutants/out/<group>/.
# Not part of `make test`.
#
# Usage: tests/mutants/run.sh [group ...]   (default: every group, in table
# order; named groups run in the order given)
# MUTANTS_SOURCE=head copies the committed tree (git archive HEAD) instead of
# the working tree.
# MUTANTS_JOBS=2 runs two copies of the tree side by side (src, src2), one
# taking the groups from the top of the table and one from the bottom; a
# group is claimed (out/<group>.claim) before it runs, so none runs twice.
# cargo-mutants' own -j needs a copy per job too, and cannot split by group.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
WORK="$ROOT/target/mutants"
SRC="${MUTANTS_SRC:-$WORK/src}"
OUT="$WORK/out"

command -v cargo-mutants >/dev/null || cargo install cargo-mutants --locked

# group name | files to mutate (runtime/src/...) | test targets (`lib` = the
# crate's unit tests). Every target is one more binary to rebuild per mutant,
# which is most of a mutant's cost, so each group names only the targets that
# speak for its files, and `lib` (a second compile of the whole crate) only
# where its files hold unit tests. The process-driving hook exchange comes last.
GROUPS_TABLE=(
  "hook|hook/decision.rs hook/normalize.rs hook/failure.rs|test_hook_decision test_hook_normalize"
  "version|version.rs|lib test_nat_version_from_briefing"
  "session|extension/session/texts.rs extension/session/latches.rs extension/session/readiness.rs|lib test_ses_briefing_context test_ses_first_turn test_nat_version_from_briefing"
  "config|config/mod.rs config/agent_dir.rs config/preset.rs config/sidecar.rs config/values.rs config/warning.rs|test_cfg_layers test_cfg_booleans test_cfg_sidecar_warnings test_cfg_agent_dir test_cfg_preset_env test_cfg_hook_mode_argv test_cfg_bin_project_ignored test_cfg_trust_and_text test_cfg_sidecar_schema_member test_cfg_bin_absolute"
  "config-files|config/binary.rs config/sidecar_file.rs|test_cfg_bin_absolute test_cfg_sidecar_untrusted_files test_cfg_bin_project_ignored"
  "catalogue|catalogue.rs|lib test_tool_catalogue"
  "native|native.rs|test_nat_choice test_nat_resolve_binary test_nat_server_config test_cfg_bin_absolute"
  "diff|diff/classify.rs diff/paths.rs|test_diff_edit_classification test_diff_candidate_paths"
  "mcp|mcp/framing.rs mcp/routing.rs mcp/response_scan.rs|lib test_mcp_framing test_mcp_envelope_schema"
  "extension-events|extension/state.rs extension/status.rs extension/tool_events.rs extension/execute.rs|lib"
  "extension-session|extension/session.rs extension/session_events.rs extension/pi_events.rs extension/call_line.rs extension/report.rs extension/own_client.rs guard.rs|lib"
  "savings|savings.rs|test_save_counts test_save_stats_file"
  "stats|stats.rs stats/line.rs|lib test_save_counts test_save_stats_file"
  "hook-exchange|hook/exchange.rs|test_hook_faults test_hook_live_events test_hook_spare test_hook_spare_refused"
  "hook-spare|hook/spare.rs|test_hook_spare test_hook_spare_refused test_hook_spare_leaks"
)

# A fresh copy of the sources (never of target/ or node_modules), then the fake
# the process-driving tests spawn.
mkdir -p "$SRC" "$OUT"
# The old sources go first (target/ stays): a file deleted or renamed in the
# tree must not linger in the copy as a stale test target. The copy gets fresh
# mtimes (tar -m): cargo compares them with its artifacts, and a run stopped
# mid-mutant leaves an artifact built from a mutant that is newer than the
# restored original's own mtime.
PARTS=(Cargo.toml Cargo.lock runtime bench schema codegen bindings tests/fake-gortex tests/diff-parity)
(cd "$SRC" && rm -rf "${PARTS[@]}")
if [[ ${MUTANTS_SOURCE:-tree} == head ]]; then
  (cd "$ROOT" && git archive HEAD "${PARTS[@]}") | (cd "$SRC" && tar -xmf -)
else
  (cd "$ROOT" && tar --exclude='*/node_modules' --exclude='*.node' -cf - "${PARTS[@]}") | (cd "$SRC" && tar -xmf -)
fi
(cd "$SRC" && cargo build -q -p fake-gortex)
export FAKE_GORTEX_BIN="$SRC/target/debug/fake-gortex"

# Claims left by a run that was stopped; the second copy inherits the clean state.
[[ -z ${MUTANTS_SRC:-} ]] && rm -rf "$OUT"/*.claim
if (($#)); then order=("$@"); else
  order=()
  for row in "${GROUPS_TABLE[@]}"; do order+=("${row%%|*}"); done
fi
if [[ ${MUTANTS_JOBS:-1} == 2 && -z ${MUTANTS_SRC:-} ]]; then
  # The second copy, from the bottom of the order; its target/ starts as a
  # copy of the first one's, so only the workspace crates are rebuilt.
  if [[ ! -d $WORK/src2/target && -d $SRC/target ]]; then mkdir -p "$WORK/src2" && cp -a "$SRC/target" "$WORK/src2/target"; fi
  reversed=()
  for ((i = ${#order[@]} - 1; i >= 0; i--)); do reversed+=("${order[i]}"); done
  MUTANTS_SRC="$WORK/src2" MUTANTS_JOBS=1 "$0" "${reversed[@]}" &
  second=$!
fi
start=$(date +%s)
for name in "${order[@]}"; do
  row=""
  for r in "${GROUPS_TABLE[@]}"; do [[ ${r%%|*} == "$name" ]] && row=$r; done
  [[ -n $row ]] || { echo "unknown group: $name" >&2; exit 2; }
  IFS='|' read -r name files tests <<<"$row"
  mkdir "$OUT/$name.claim" 2>/dev/null || continue
  args=()
  for f in $files; do args+=(--file "runtime/src/$f"); done
  # The targets go to every cargo invocation (-C), not only to `cargo test`:
  # cargo-mutants' build step is `cargo test --no-run`, which otherwise builds
  # every test target and example of the package for each mutant.
  target_args=()
  for t in $tests; do
    if [[ $t == lib ]]; then target_args+=(--cargo-arg=--lib); else target_args+=(--cargo-arg=--test="$t"); fi
  done
  echo "== mutants: $name ($files) [$(date -u +%H:%M:%S)]"
  group_start=$(date +%s)
  # Exit status 2 means "some mutants missed": report, keep going.
  # --profile mutants (Cargo.toml): no debug info, so relinking is cheap. A
  # mutant that hangs a test is cut at three times the baseline test time,
  # never less than 20 s.
  (cd "$SRC" && cargo mutants --in-place --package pi-gortex-runtime "${args[@]}" "${target_args[@]}" \
     --profile mutants --output "$OUT/$name" --timeout-multiplier 3 --minimum-test-timeout 20) || true
  echo "$(( $(date +%s) - group_start ))" > "$OUT/$name/wall_seconds"
done
[[ -n ${second:-} ]] && wait "$second"
[[ -n ${MUTANTS_SRC:-} ]] && exit 0
rm -rf "$OUT"/*.claim
echo "== mutants: wall time $(( $(date +%s) - start )) s"
# One summary line per group from cargo-mutants' outcomes.json.
for row in "${GROUPS_TABLE[@]}"; do
  IFS='|' read -r name _ _ <<<"$row"
  f="$OUT/$name/mutants.out/outcomes.json"
  [[ -f $f ]] || continue
  "${NODE22:-node}" -e '
    const o = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    console.log(`${process.argv[2]}: ${o.total_mutants} mutants, ${o.caught} caught, ${o.missed} missed, ${o.unviable} unviable, ${o.timeout} timeouts, ${process.argv[3]} s`);
  ' "$f" "$name" "$(cat "$OUT/$name/wall_seconds" 2>/dev/null)" 2>/dev/null || echo "$name: see $f"
done
