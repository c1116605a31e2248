#!/usr/bin/env bash
# Measures the read paths on a checkout with many records (median of RUNS runs, whole process).
# Usage: bench/run.sh [path/to/git-majordomus]   (default: target/release/git-majordomus)
set -euo pipefail
BIN=${1:-$(cd "$(dirname "$0")/.." && pwd)/target/release/git-majordomus}
N=${N:-1000}
RUNS=${RUNS:-21}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME=$work/home GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 LC_ALL=C TZ=UTC
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
mkdir -p "$HOME" "$work/repo"
cd "$work/repo"
git init -q -b main
"$BIN" init >/dev/null
mkdir -p lib && echo x > lib/a && git add -A && git commit -qm layer
"$BIN" start "bench task" --scope lib >/dev/null
body=$'# Objective\nMeasure.\n\n# Current State\nMany records.\n\n# Next Action\nRead them.\n'
base=$(date -u -d 2026-09-01T00:00:00Z +%s)
for i in $(seq 1 "$N"); do
  MAJORDOMUS_NOW=$(date -u -d "@$((base + i * 60))" +%FT%TZ) "$BIN" handover <<<"$body" >/dev/null
  if (( i % 100 == 0 )); then git commit -q --allow-empty -m "step $i"; fi
done
export MAJORDOMUS_NOW=$(date -u -d "@$((base + (N + 1) * 60))" +%FT%TZ)
median() { # command... → median wall ms over RUNS runs
  local t=() s e
  for _ in $(seq 1 "$RUNS"); do
    s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N)
    t+=($(( (e - s) / 1000 )))
  done
  printf '%s\n' "${t[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.1f ms", a[int((NR+1)/2)]/1000}'
}
echo "checkout: $N handovers, $(wc -l < .ai/local/state/ledger.jsonl) ledger lines, $(git rev-list --count HEAD) commits"
echo "handover --resolve : $(median "$BIN" handover --resolve)"
echo "context            : $(median "$BIN" context)"
echo "checkpoint --show  : $(median "$BIN" checkpoint --show)"
echo "handover --list    : $(median "$BIN" handover --list)"
echo "doctor             : $(median "$BIN" doctor)"
