#!/usr/bin/env bash
# The cost of the installed pre-push hook on a `git push` when no continuity record is pending
# (issue 10: at most 10 ms more than the same push without the hook). Two identical clones of one
# bare remote, one with `hooks install`, each pushing a fresh commit per run; measured with
# hyperfine when it is installed (Debian package `hyperfine`), else with a median of RUNS runs.
# Usage: bench/pre-push.sh [path/to/git-majordomus]
set -euo pipefail
BIN=${1:-$(cd "$(dirname "$0")/.." && pwd)/target/release/git-majordomus}
RUNS=${RUNS:-30}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME=$work/home GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 LC_ALL=C TZ=UTC XDG_STATE_HOME=$work/state
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
export PATH="$(dirname "$BIN"):$PATH"
mkdir -p "$HOME"

git init -q --bare -b main "$work/remote.git"
git clone -q "$work/remote.git" "$work/seed" 2>/dev/null
cd "$work/seed"
git symbolic-ref HEAD refs/heads/main
"$BIN" init >/dev/null
git add -A && git commit -qm layer && git push -q origin main
printf '# Objective\nBench.\n\n# Current State\nOne record.\n\n# Next Action\nPush.\n' | "$BIN" handover --no-task >/dev/null
"$BIN" continuity publish >/dev/null
"$BIN" continuity sync >/dev/null

for side in with without; do
  git clone -q "$work/remote.git" "$work/$side"
  (cd "$work/$side" && git checkout -q -b "bench-$side" && git push -q origin "bench-$side")
done
(cd "$work/with" && "$BIN" hooks install --git --fetch-refspec >/dev/null && git fetch -q origin && "$BIN" continuity sync >/dev/null)
state=$(cd "$work/with" && "$BIN" --json continuity status | sed -n 's/.*"sync": "\([a-z_]*\)".*/\1/p' | head -n 1)
echo "pre-push hook installed; store sync state: $state (nothing pending)"

push() { cd "$work/$1" && git commit -q --allow-empty -m run && git push -q origin "bench-$1" 2>/dev/null; }
export -f push
export work
if command -v hyperfine >/dev/null 2>&1; then
  hyperfine -N --warmup 3 --runs "$RUNS" --export-json "$work/h.json" \
    -n without "bash -c 'push without'" -n with "bash -c 'push with'" >/dev/null 2>&1 || hyperfine --warmup 3 --runs "$RUNS" --export-json "$work/h.json" -n without "push without" -n with "push with" >/dev/null
  python3 - "$work/h.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
w, wo = r["with"], r["without"]
print(f"git push, no hook:              median {wo['median']*1000:.1f} ms (mean {wo['mean']*1000:.1f} ± {wo['stddev']*1000:.1f})")
print(f"git push, hook, none pending:   median {w['median']*1000:.1f} ms (mean {w['mean']*1000:.1f} ± {w['stddev']*1000:.1f})")
print(f"pre-push hook cost:             {(w['median']-wo['median'])*1000:+.1f} ms (budget 10 ms)")
PY
  # The hook alone, as git runs it (the difference above is noisy on a busy machine).
  hyperfine -N --warmup 5 --runs $((RUNS * 3)) --export-json "$work/hook.json" \
    -n hook "$work/with/.git/hooks/pre-push origin $work/remote.git" >/dev/null
  python3 - "$work/hook.json" <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))["results"][0]
print(f"the hook alone, none pending:   median {h['median']*1000:.1f} ms (mean {h['mean']*1000:.1f} ± {h['stddev']*1000:.1f}, min {h['min']*1000:.1f}); CPU user+system {(h['user']+h['system'])*1000:.1f} ms")
PY
else
  median() {
    local t=() s e
    for _ in $(seq 1 "$RUNS"); do s=$(date +%s%N); push "$1"; e=$(date +%s%N); t+=($(((e - s) / 1000))); done
    printf '%s\n' "${t[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
  }
  wo=$(median without); w=$(median with)
  awk -v w="$w" -v wo="$wo" 'BEGIN { printf "git push, no hook: %.1f ms; hook, none pending: %.1f ms; cost %+.1f ms (budget 10 ms)\n", wo/1000, w/1000, (w-wo)/1000 }'
fi
