#!/usr/bin/env bash
# Measures the continuity store at scale: publish into a store that already holds N records,
# `continuity status` and `continuity verify` cold (no admission index) and warm.
# Usage: bench/continuity.sh [path/to/git-majordomus]   (N defaults to 100000)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-$root/target/release/git-majordomus}
FILL=${FILL:-$root/target/release/examples/bench_store}
N=${N:-100000}
RUNS=${RUNS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME=$work/home XDG_STATE_HOME=$work/home/.local/state GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 LC_ALL=C TZ=UTC
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
mkdir -p "$HOME" "$work/repo/lib" && cd "$work/repo"
git init -q -b main && "$BIN" init >/dev/null && echo x > lib/a && git add -A && git commit -qm layer
s=$(date +%s%N); "$FILL" "$work/repo" "$N"; e=$(date +%s%N)
git gc -q
echo "store: $N records filled in $(( (e - s) / 1000000 )) ms; $(du -sh .git | cut -f1) .git after gc"
cache=.git/majordomus/index.json
median() { # label, then command...; prints the median wall ms of RUNS runs
  local label=$1; shift; local t=() s e
  for _ in $(seq 1 "$RUNS"); do
    if [[ $label == *cold* ]]; then rm -f "$cache"; fi
    s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N)
    t+=($(( (e - s) / 1000 )))
  done
  printf '%-24s %s\n' "$label" "$(printf '%s\n' "${t[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.1f ms (median of %d)", a[int((NR+1)/2)]/1000, NR}')"
}
publish() {
  printf '# Objective\nBench %s.\n# Current State\nx\n# Next Action\ny\n' "$RANDOM$RANDOM" | "$BIN" handover --no-task >/dev/null
  "$BIN" continuity publish
}
median "status cold" "$BIN" continuity status
median "status warm" "$BIN" continuity status
median "verify cold" "$BIN" continuity verify
median "verify warm" "$BIN" continuity verify
median "publish (warm cache)" publish
/usr/bin/time -f "status warm: max RSS %M KiB" "$BIN" continuity status >/dev/null
