#!/usr/bin/env bash
# Measures the read paths and the start hook on checkouts with many records
# (median wall time of RUNS whole-process runs). Usage: bench/run.sh [path/to/git-majordomus]
set -euo pipefail
BIN=${1:-$(cd "$(dirname "$0")/.." && pwd)/target/release/git-majordomus}
N=${N:-1000}            # handovers, and as many checkpoints
LEDGER=${LEDGER:-20000} # ledger lines in all
RUNS=${RUNS:-21}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME=$work/home GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 LC_ALL=C TZ=UTC
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
mkdir -p "$HOME"

median() { # command... → median wall ms over RUNS runs
  local t=() s e
  for _ in $(seq 1 "$RUNS"); do
    s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N)
    t+=($(( (e - s) / 1000 )))
  done
  printf '%s\n' "${t[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.1f ms", a[int((NR+1)/2)]/1000}'
}
start_hook() { "$BIN" hook claude-code start <<<'{"session_id":"bench","source":"startup"}'; }

new_repo() {
  rm -rf "$1"; mkdir -p "$1/lib"; cd "$1"
  git init -q -b main
  "$BIN" init >/dev/null
  echo x > lib/a && git add -A && git commit -qm layer
}

# An empty layer.
new_repo "$work/empty"
echo "empty layer: start hook $(median start_hook)"

# A big checkout.
new_repo "$work/big"
"$BIN" start "bench task" --scope lib >/dev/null
body=$'# Objective\nMeasure.\n\n# Current State\nMany records.\n\n# Next Action\nRead them.\n'
base=$(date -u -d 2026-09-01T00:00:00Z +%s)
for i in $(seq 1 "$N"); do
  export MAJORDOMUS_NOW=$(date -u -d "@$((base + i * 60))" +%FT%TZ)
  "$BIN" handover <<<"$body" >/dev/null
  "$BIN" checkpoint <<<"step $i" >/dev/null
  if (( i % 100 == 0 )); then git commit -q --allow-empty -m "step $i"; fi
done
have=$(wc -l < .ai/local/state/ledger.jsonl)
head=$(git rev-parse HEAD)
python3 - "$((LEDGER - have))" "$head" >> .ai/local/state/ledger.jsonl <<'PY'
import json, sys
n, head = int(sys.argv[1]), sys.argv[2]
for i in range(max(n, 0)):
    print(json.dumps({"ts": "2026-08-01T00:00:00Z", "event": "decision.recorded", "head": head, "branch": "main",
                      "by": "git-majordomus/bench", "task_id": "none", "decision": f"filler {i}"}, separators=(",", ":")))
PY
export MAJORDOMUS_NOW=$(date -u -d "@$((base + (N + 1) * 60))" +%FT%TZ)
echo "checkout: $N handovers, $N checkpoints, $(wc -l < .ai/local/state/ledger.jsonl) ledger lines, $(git rev-list --count HEAD) commits"
echo "start hook         : $(median start_hook)"
echo "handover --resolve : $(median "$BIN" handover --resolve)"
echo "context            : $(median "$BIN" context)"
echo "checkpoint --show  : $(median "$BIN" checkpoint --show)"
echo "handover --list    : $(median "$BIN" handover --list)"
echo "doctor             : $(median "$BIN" doctor)"
