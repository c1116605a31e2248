#!/usr/bin/env bash
# The --json output of every read command on the bench fixtures, one file each, so two binaries
# can be compared byte for byte (issue 25: a move that changes no behaviour).
#
#   bench/json-outputs.sh <git-majordomus> <out-dir>
#   diff -r <out-dir of the old binary> <out-dir of the new one>      (empty: nothing changed)
#
# Needs the fixtures `make bench` caches (BENCH_FIXTURES_ONLY=1 bench/bench.sh builds them). Runs
# on copies under target/bench/work/ (the paths the fixtures were generated at) and writes
# nothing to the cached fixtures. Each read runs twice: with no read model and with the one the
# first run left, and both must agree.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(realpath "$1"); OUTDIR=$(realpath -m "$2")
FIX=$(ls -d "$root"/target/bench/fixtures/*/ | head -1); FIX=${FIX%/}
WORK=$root/target/bench/work
[[ -d $FIX/large/repo ]] || { echo "error: no bench fixtures under target/bench/fixtures; run BENCH_FIXTURES_ONLY=1 bench/bench.sh" >&2; exit 2; }

export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 LC_ALL=C TZ=UTC
export MAJORDOMUS_NOW=2026-12-01T00:00:00Z
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
export HOME=$FIX/home XDG_STATE_HOME=$FIX/home/.local/state

rm -rf "$OUTDIR" "$WORK/large" "$WORK/tiny" "$WORK/curve"
mkdir -p "$OUTDIR"
cp -a "$FIX/large" "$WORK/large"; cp -a "$FIX/tiny" "$WORK/tiny"
mkdir -p "$WORK/curve"; cp -a "$FIX/curve-1000/." "$WORK/curve/"

# <name> <checkout> <args...>: stdout, then the exit code as the file's last line.
run() {
  local name=$1 dir=$2; shift 2
  (cd "$dir" && { "$BIN" --json "$@" 2>/dev/null; echo "exit $?"; }) >"$OUTDIR/$name.json" || true
}
reads() { # <prefix> <checkout>
  local p=$1 d=$2
  run "$p-continuity-status" "$d" continuity status --all
  run "$p-continuity-records" "$d" continuity records
  run "$p-continuity-plan" "$d" continuity plan
  run "$p-continuity-verify" "$d" continuity verify
  run "$p-state" "$d" state
  run "$p-explain" "$d" explain
  run "$p-lifecycle" "$d" lifecycle
  run "$p-handover-resolve" "$d" handover --resolve
  run "$p-handover-list" "$d" handover --list
  run "$p-checkpoint-list" "$d" checkpoint --list
  run "$p-context" "$d" context
  run "$p-history" "$d" history --limit 50
  run "$p-search" "$d" search "Bench handover 4242"
  run "$p-check" "$d" check
  run "$p-doctor" "$d" doctor
  run "$p-question-list" "$d" question list
  run "$p-decision-list" "$d" decision list
  run "$p-session-list" "$d" session list
}
for pass in cold warm; do
  for f in large tiny curve; do
    [[ $pass == cold ]] && rm -rf "$WORK/$f"/repo/.git/majordomus/readmodel* 2>/dev/null || true
    reads "$pass-$f" "$WORK/$f/repo"
  done
done
# doctor times itself against its budget: the one figure that differs from run to run.
sed -i -E 's/ran in [0-9]+ ms/ran in N ms/' "$OUTDIR"/*.json
for f in "$OUTDIR"/cold-*.json; do
  w=$OUTDIR/warm-${f#"$OUTDIR"/cold-}
  cmp -s "$f" "$w" || echo "warning: cold and warm differ: $(basename "$f")" >&2
done
ls "$OUTDIR" | wc -l
