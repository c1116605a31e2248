#!/usr/bin/env bash
# Two binaries side by side on the cached `make bench` fixtures: interleaved medians (old, new,
# old, new, …) of the start hook, a warm `continuity status` and a warm `continuity plan` on the
# large fixture, and of a cold `continuity verify` of its 100,000 records, on one copy of the
# checkout. Run `make bench` (or BENCH_FIXTURES_ONLY=1
# bench/bench.sh) once first for the fixtures.
#
#   bench/compare.sh OLD_BINARY NEW_BINARY [RUNS=21] [SLOW_RUNS=5]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
OLD=$1 NEW=$2 RUNS=${3:-21} SLOW=${4:-5}
large=$(ls -d "$root"/target/bench/fixtures/*/large 2>/dev/null | head -1)
[[ -n $large ]] || { echo "bench/compare.sh: no fixtures; run BENCH_FIXTURES_ONLY=1 bench/bench.sh first" >&2; exit 1; }
FIX=${large%/large}
W=$root/target/bench/compare
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 LC_ALL=C TZ=UTC
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
export MAJORDOMUS_NOW=2026-12-01T00:00:00Z HOME=$FIX/home XDG_STATE_HOME=$FIX/home/.local/state
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
# One copy of the checkout per binary: each keeps its own read-model cache (two binaries of
# other rules would rebuild each other's on every run, and "warm" would measure cold reads).
rm -rf "$W"; mkdir -p "$W"; cp -a "$FIX/large" "$W/old"; cp -a "$FIX/large" "$W/new"
# Microseconds of one whole-process run of binary $1 in its own copy.
t() { local b=$1 dir s e; shift; [[ $b == "$OLD" ]] && dir=$W/old/repo || dir=$W/new/repo
  s=$(date +%s%N); (cd "$dir" && "$b" "$@" >/dev/null 2>&1 </dev/null) || true; e=$(date +%s%N); echo $(( (e - s) / 1000 )); }
med() { sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]/1000}'; }
hook() { local dir; [[ $1 == "$OLD" ]] && dir=$W/old/repo || dir=$W/new/repo
  (cd "$dir" && "$1" hook claude-code start <<<'{"session_id":"bench","source":"startup"}'); }
th() { local s e; s=$(date +%s%N); hook "$1" >/dev/null 2>&1 || true; e=$(date +%s%N); echo $(( (e - s) / 1000 )); }
for d in "$W/old/repo" "$W/new/repo"; do (cd "$d" && git status --porcelain >/dev/null); done
for b in "$OLD" "$NEW"; do hook "$b" >/dev/null 2>&1; done
o=(); n=()
for ((i = 0; i < RUNS; i++)); do o+=("$(th "$OLD")"); n+=("$(th "$NEW")"); done
echo "start hook (large fixture), $RUNS runs: old $(printf '%s\n' "${o[@]}" | med) ms, new $(printf '%s\n' "${n[@]}" | med) ms"
for cmd in status plan; do
  for b in "$OLD" "$NEW"; do t "$b" continuity "$cmd" >/dev/null; done
  o=(); n=()
  for ((i = 0; i < RUNS; i++)); do o+=("$(t "$OLD" continuity "$cmd")"); n+=("$(t "$NEW" continuity "$cmd")"); done
  echo "warm continuity $cmd (large fixture), $RUNS runs: old $(printf '%s\n' "${o[@]}" | med) ms, new $(printf '%s\n' "${n[@]}" | med) ms"
done
o=(); n=()
for ((i = 0; i < SLOW; i++)); do o+=("$(t "$OLD" continuity verify)"); n+=("$(t "$NEW" continuity verify)"); done
echo "cold continuity verify (100,000 records), $SLOW runs: old $(printf '%s\n' "${o[@]}" | med) ms, new $(printf '%s\n' "${n[@]}" | med) ms"
(cd "$W/new/repo" && "$NEW" continuity verify | tail -1)
