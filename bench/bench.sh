#!/usr/bin/env bash
# `make bench`: every command on a large, a git/git-shaped and a tiny fixture, as whole processes
# (median of RUNS runs, peak RSS of one run), each read-path row with the git floor measured in
# the same run on the same checkout (git status --porcelain; git cat-file --batch of every record
# blob for a cold store) and its ratio, then the continuity growth curve. The table goes to stdout and to target/bench/report.md.
#
#   bench/bench.sh [path/to/git-majordomus]
#   RUNS=11 SLOW_RUNS=3 BENCH_MILLION=1 bench/bench.sh     (1,000,000-record point: optional)
#   BENCH_FIXTURES_ONLY=1 bench/bench.sh                    (the fixtures only, for profiling)
#
# Fixtures are generated deterministically by examples/bench_fixture.rs (history through
# `git fast-import`) and cached under target/bench/fixtures/<key>/, where <key> hashes this
# script, the generator and the sizes: a change to either rebuilds them. Measurements run on
# copies under target/bench/work/, so writes never touch the cached fixtures.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-$root/target/release/git-majordomus}
GEN=${GEN:-$root/target/release/examples/bench_fixture}
OUT=$root/target/bench
RUNS=${RUNS:-11}
SLOW_RUNS=${SLOW_RUNS:-3}
COMMITS=${COMMITS:-100000} BRANCHES=${BRANCHES:-50}
HANDOVERS=${HANDOVERS:-10000} CHECKPOINTS=${CHECKPOINTS:-10000} LEDGER=${LEDGER:-200000}
DECISIONS=${DECISIONS:-1000} QUESTIONS=${QUESTIONS:-200}
RECORDS=${RECORDS:-100000} LINES=${LINES:-500} DEVICES=${DEVICES:-20} EXCHANGE=${EXCHANGE:-1000}
GITLIKE_COMMITS=${GITLIKE_COMMITS:-80000} GITLIKE_FILES=${GITLIKE_FILES:-5000}
CURVE=${CURVE:-"1000 10000 100000"}
[[ ${BENCH_MILLION:-0} == 1 ]] && CURVE="$CURVE 1000000"

sizes="$COMMITS $BRANCHES $HANDOVERS $CHECKPOINTS $LEDGER $DECISIONS $QUESTIONS $RECORDS $LINES $DEVICES $EXCHANGE $GITLIKE_COMMITS $GITLIKE_FILES"
key=$( { cat "$0" "$root/examples/bench_fixture.rs"; echo "$sizes"; } | sha256sum | cut -c1-16)
FIX=$OUT/fixtures/$key
WORK=$OUT/work
mkdir -p "$FIX" "$OUT"

export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 LC_ALL=C TZ=UTC
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
export MAJORDOMUS_NOW=2026-12-01T00:00:00Z
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
# The benchmarking machine's own home (its device key); created once per fixture set.
export HOME=$FIX/home XDG_STATE_HOME=$FIX/home/.local/state
mkdir -p "$HOME"

log() { printf '%s\n' "$*" >&2; }
ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

# ---------------------------------------------------------------------------------------------
# Fixtures

import_store() { # <checkout> <git-dir> <records> <lines> <salt> [<parent>]
  "$GEN" store "$1" "$3" "$4" "$DEVICES" "$5" ${6:-} | git --git-dir="$2" fast-import --quiet
}

# The large and tiny fixtures are generated at the path they are measured at ($WORK/large,
# $WORK/tiny), then moved into the cache: their records name their repository and worktree by
# absolute path, so a checkout measured elsewhere would find every record "about another
# repository" and read every file of the branch instead of resolving.
# history_checkout <dir> <generator args…>: a new repository <dir>/repo (the working directory
# after), its history from the generator, main checked out and the layer committed.
history_checkout() {
  rm -rf "$1"; mkdir -p "$1"
  git init -q -b main "$1/repo"
  cd "$1/repo"
  "$GEN" "${@:2}" | git fast-import --quiet
  git checkout -q main
  "$BIN" init >/dev/null
  git add -A && git commit -qm "majordomus layer"
}

make_large() {
  local d=$WORK/large t
  t=$(date +%s%N)
  history_checkout "$d" history "$COMMITS" "$BRANCHES"
  "$BIN" start "bench task" --scope src >/dev/null
  "$GEN" layer . $((HANDOVERS * 9 / 10)) $((CHECKPOINTS * 9 / 10)) "$LEDGER" "$DECISIONS" "$QUESTIONS"
  git worktree add -q -b side ../wt main
  (cd ../wt && "$GEN" layer . $((HANDOVERS / 10)) $((CHECKPOINTS / 10)) 0 0 0)
  import_store . .git "$RECORDS" "$LINES" a
  git gc -q
  git commit-graph write --reachable
  log "large: history, layer and $RECORDS records in $(ms_since "$t") ms"
  # The sync fixture: a bare file:// remote holding the store plus EXCHANGE records of its own;
  # a copy of the checkout holding EXCHANGE records of its own, last synced at the common tip.
  t=$(date +%s%N)
  local tip; tip=$(git rev-parse refs/majordomus/continuity)
  git init -q --bare "$d/remote.git"
  git push -q "$d/remote.git" refs/majordomus/continuity
  import_store . "$d/remote.git" "$EXCHANGE" 20 remote "$tip"
  "$BIN" continuity status >/dev/null  # the read model, as a previous read left it
  cp -a "$d/repo" "$d/sync-local"
  (cd "$d/sync-local" && git remote add origin "file://$d/remote.git" \
    && git update-ref refs/majordomus/remotes/origin/continuity "$tip" \
    && import_store . .git "$EXCHANGE" 20 local "$tip")
  log "sync fixture in $(ms_since "$t") ms"
  mv "$d" "$FIX/large"
}

make_tiny() {
  local d=$WORK/tiny
  rm -rf "$d"; mkdir -p "$d"
  git init -q -b main "$d/repo"
  cd "$d/repo"
  echo "tiny" > README.md
  "$BIN" init >/dev/null
  git add -A && git commit -qm tiny
  "$BIN" start "tiny task" --scope . >/dev/null
  printf '# Objective\nTiny.\n\n# Current State\nOne handover.\n\n# Next Action\nMeasure.\n' | "$BIN" handover >/dev/null
  mv "$d" "$FIX/tiny"
}

# A checkout shaped like a clone of git/git (issue 45): GITLIKE_COMMITS commits on main, a tree
# of GITLIKE_FILES source files checked out with its index, the layer with a task and one
# handover, as a project that just started using majordomus has.
make_gitlike() {
  local d=$WORK/gitlike t
  t=$(date +%s%N)
  history_checkout "$d" gitlike "$GITLIKE_COMMITS" "$GITLIKE_FILES"
  "$BIN" start "gitlike task" --scope dir-01 >/dev/null
  printf '# Objective\nGit-shaped.\n\n# Current State\nOne handover.\n\n# Next Action\nMeasure.\n' | "$BIN" handover >/dev/null
  git gc -q
  git commit-graph write --reachable
  log "gitlike: $GITLIKE_COMMITS commits, $GITLIKE_FILES files in $(ms_since "$t") ms"
  mv "$d" "$FIX/gitlike"
}

make_curve() { # <records>
  local n=$1 d=$FIX/curve-$1.tmp t
  rm -rf "$d"; mkdir -p "$d"
  t=$(date +%s%N)
  git init -q -b main "$d/repo"
  cd "$d/repo"
  echo "curve" > README.md
  "$BIN" init >/dev/null
  git add -A && git commit -qm curve
  local lines=$(( n / 200 )); (( lines < 5 )) && lines=5
  import_store . .git "$n" "$lines" curve
  git gc -q
  log "curve: $n records in $(ms_since "$t") ms"
  mv "$d" "$FIX/curve-$n"
}

[[ -d $FIX/large ]] || make_large
[[ -d $FIX/tiny ]] || make_tiny
[[ -d $FIX/gitlike ]] || make_gitlike
for n in $CURVE; do
  if [[ $n == "$RECORDS" ]]; then continue; fi
  [[ -d $FIX/curve-$n ]] || make_curve "$n"
done
# BENCH_FIXTURES_ONLY=1: build (or find) the fixtures and stop, for profiling by hand.
if [[ ${BENCH_FIXTURES_ONLY:-0} == 1 ]]; then log "fixtures: $FIX"; exit 0; fi

# ---------------------------------------------------------------------------------------------
# Measuring

# Peak RSS per process: bench/rss.c, preloaded into the measured command and every process it
# starts, writes each one's own peak at exit. git-majordomus's peak is the table's; the largest
# git process's (for sync over file://, the remote's own receive-pack) is shown beside it.
# Without a C compiler, /usr/bin/time's figure (the largest process of the tree) is used.
RSS_SO=$OUT/rss.so
cc -shared -fPIC -O2 -o "$RSS_SO" "$root/bench/rss.c" 2>/dev/null || RSS_SO=

# median <runs> <prep-function> <command...>: median wall ms of whole-process runs; <prep> runs
# (untimed) before each one. Sets MEDIAN, RSS (git-majordomus's peak KiB in one more run) and
# GIT_RSS (the largest git process's peak KiB in that run, 0 when none ran).
median() {
  local runs=$1 prep=$2; shift 2
  local t=() s e i run=("$@")
  for ((i = 0; i < runs; i++)); do
    $prep
    s=$(date +%s%N); "$@" >/dev/null 2>&1 </dev/null || true; e=$(date +%s%N)
    t+=($(( (e - s) / 1000 )))
  done
  MEDIAN=$(printf '%s\n' "${t[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]/1000}')
  $prep
  # A shell function runs under `bash -c`.
  [[ $(type -t "$1") == function ]] && run=(bash -c '"$@"' _ "$@")
  if [[ -n $RSS_SO ]]; then
    rm -rf "$WORK/rss.d"; mkdir -p "$WORK/rss.d"
    BENCH_RSS_DIR=$WORK/rss.d LD_PRELOAD=$RSS_SO "${run[@]}" >/dev/null 2>&1 </dev/null || true
    RSS=$(cat "$WORK"/rss.d/* | awk '$2 == "git-majordomus" && $1 > m {m = $1} END {print m + 0}')
    GIT_RSS=$(cat "$WORK"/rss.d/* | awk '$2 ~ /^git/ && $2 != "git-majordomus" && $1 > m {m = $1} END {print m + 0}')
  else
    /usr/bin/time -f '%M' -o "$WORK/rss" "${run[@]}" >/dev/null 2>&1 </dev/null || true
    RSS=$(tail -1 "$WORK/rss") GIT_RSS=0
  fi
  $prep
}
nothing() { :; }
rows=()
row() { # label floor-label floor-ms
  local ratio
  ratio=$(awk -v a="$MEDIAN" -v b="$3" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
  local ours=- git=-
  (( RSS > 0 )) && ours=$(( RSS / 1024 ))
  (( GIT_RSS > 0 )) && git=$(( GIT_RSS / 1024 ))
  rows+=("| $1 | $MEDIAN | $ours | $git | $2 | $3 | $ratio |")
  log "$1: $MEDIAN ms, $ours MiB, git's largest $git MiB (floor $2 $3 ms, ×$ratio)"
}

rm -rf "$WORK"; mkdir -p "$WORK"
cp -a "$FIX/large" "$WORK/large"
cp -a "$FIX/tiny" "$WORK/tiny"
cp -a "$FIX/gitlike" "$WORK/gitlike"
L=$WORK/large/repo
REF=refs/majordomus/continuity

# The git floor, in the same run on the same checkout.
cd "$L"
git_status() { git status --porcelain >/dev/null; }
ls_tree() { git ls-tree -r $REF >/dev/null; }
cat_all() { git ls-tree -r --object-only $REF | git cat-file --batch >/dev/null; }
# Exported: the peak-RSS run of a shell function runs it under `bash -c`.
export REF
export -f git_status ls_tree cat_all
median "$RUNS" nothing git rev-parse HEAD; F_REV=$MEDIAN; row "git rev-parse HEAD" - 0
median "$RUNS" nothing git_status; F_STATUS=$MEDIAN; row "git status --porcelain" - 0
median "$RUNS" nothing ls_tree; F_LS=$MEDIAN; row "git ls-tree -r $REF" - 0
median "$SLOW_RUNS" nothing cat_all; F_CAT=$MEDIAN; row "every record blob through git cat-file --batch" - 0

start_hook() { "$BIN" hook claude-code start <<<'{"session_id":"bench","source":"startup"}'; }
checkpoint() { "$BIN" checkpoint <<<"bench checkpoint"; }
export BIN
export -f start_hook checkpoint
tiny() { # label, then command: the same command on the tiny fixture
  (cd "$WORK/tiny/repo" && median "$RUNS" nothing "$@" && echo "$MEDIAN")
}
times() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "-" && b > 0) printf "%.2f", a / b; else print "-" }'; }

# The read path of a session's start on the git/git-shaped checkout, against git status there
# (targets: ≤ 1.5× git status, ≤ 64 MiB).
cd "$WORK/gitlike/repo"
median "$RUNS" nothing git_status; F_GITLIKE=$MEDIAN; row "git status --porcelain (git/git-shaped: $GITLIKE_COMMITS commits, $GITLIKE_FILES files)" - 0
median "$RUNS" nothing start_hook; row "hook claude-code start (git/git-shaped)" "status --porcelain" "$F_GITLIKE"
median "$RUNS" nothing "$BIN" handover --resolve; row "handover --resolve (git/git-shaped)" "status --porcelain" "$F_GITLIKE"
median "$RUNS" nothing "$BIN" context; row "context (git/git-shaped)" "status --porcelain" "$F_GITLIKE"

# The same on the large fixture, against git status there and the tiny repository (target:
# ≤ 2× the tiny repository's).
cd "$L"
T=$(tiny start_hook | tail -1); median "$RUNS" nothing start_hook; row "hook claude-code start (tiny: $T ms, ×$(times "$MEDIAN" "$T"))" "status --porcelain" "$F_STATUS"
T=$(tiny "$BIN" handover --resolve | tail -1); median "$RUNS" nothing "$BIN" handover --resolve; row "handover --resolve (tiny: $T ms, ×$(times "$MEDIAN" "$T"))" "status --porcelain" "$F_STATUS"
T=$(tiny "$BIN" context | tail -1); median "$RUNS" nothing "$BIN" context; row "context (tiny: $T ms, ×$(times "$MEDIAN" "$T"))" "status --porcelain" "$F_STATUS"
median "$RUNS" nothing "$BIN" history --limit 20; row "history --limit 20" rev-parse "$F_REV"
median "$SLOW_RUNS" nothing "$BIN" search "Bench handover 4242"; row "search" "status --porcelain" "$F_STATUS"
median "$SLOW_RUNS" nothing "$BIN" doctor; row "doctor" "status --porcelain" "$F_STATUS"
median "$RUNS" nothing checkpoint; row "checkpoint (write)" rev-parse "$F_REV"
# `check` on a checkout with 20,000 untracked files outside the task's scope (issue 41: 40,207
# lines and 12 MB of --json before): every list is bounded, the output ≤ 64 KiB.
U=$WORK/untracked/repo
mkdir -p "$U" && cd "$U"
git init -q -b main . && "$BIN" init >/dev/null && git add -A && git commit -qm layer
"$BIN" start "untracked bench" --scope src >/dev/null
mkdir -p untracked-out && (cd untracked-out && seq 1 20000 | sed 's/^/f/' | xargs touch)
median "$SLOW_RUNS" nothing "$BIN" check; row "check, 20,000 untracked files" "status --porcelain" "$F_STATUS"
# check exits 10 here (files outside the scope): the pipe must not end the script.
CHECK_TEXT=$({ "$BIN" check 2>&1 || true; } | wc -c); CHECK_JSON=$({ "$BIN" --json check 2>/dev/null || true; } | wc -c)
log "check with 20,000 untracked files: $CHECK_TEXT bytes of text, $CHECK_JSON bytes of --json (bound 65536)"
(( CHECK_TEXT <= 65536 && CHECK_JSON <= 65536 )) || { log "check output over 64 KiB"; exit 1; }
cd "$L"

# The end hook closes an episode the (untimed) prep opens: the gap read, a final checkpoint, a
# derived handover, the closed session record. After the readers' rows: its records change
# what they read (derived handovers of the bench task, written in the pinned second).
open_episode() { "$BIN" hook claude-code start <<<'{"session_id":"bench-end","source":"startup"}' >/dev/null 2>&1; }
end_hook() { "$BIN" hook claude-code end <<<'{"session_id":"bench-end","reason":"logout"}'; }
export -f open_episode end_hook
T=$(cd "$WORK/tiny/repo" && median "$RUNS" open_episode end_hook && echo "$MEDIAN"); median "$RUNS" open_episode end_hook; row "hook claude-code end (tiny: $T ms)" rev-parse "$F_REV"

# Issue 22: the start hook after an amend of HEAD, the commit its handover was written at: the
# label is proven from the branch's reflog read from its tail. HEAD is put back afterwards.
X=$(git rev-parse HEAD); B=$(git symbolic-ref -q HEAD)
# The same hook just before the amend, on the same records (the end-hook rows added some).
median "$RUNS" nothing start_hook; row "hook claude-code start, before the amend (same records)" rev-parse "$F_REV"
git -c user.name=bench -c user.email=bench@localhost commit -q --amend --no-edit --allow-empty
log "after the amend: $("$BIN" handover --resolve | grep '^Git state:')"
median "$RUNS" nothing start_hook; row "hook claude-code start, after an amend (label proven by the reflog)" rev-parse "$F_REV"
git update-ref "$B" "$X"

# Issue 43: the start hook when the handover it shows cites 20 files, each labelled from git
# (target: at most 2 ms over the same hook with a handover citing nothing).
cited_body() { printf '# Objective\nBench citations.\n\n# Current State\nBench.\n\n# Next Action\n%s\n' "$1"; }
# Each write changes the handovers directory: the name index answers again only once its time
# has settled (name_index::SETTLED, 2 s), so both rows wait as long before they run.
cited_body "Nothing is cited here." | "$BIN" handover --no-task >/dev/null
sleep 3; start_hook >/dev/null 2>&1
median "$RUNS" nothing start_hook; NO_CITES=$MEDIAN; row "hook claude-code start, its handover citing nothing" rev-parse "$F_REV"
cited_body "Read $(git ls-files | grep -v '^\.ai/' | head -20 | sed 's/.*/`&`/' | tr '\n' ' ')" | "$BIN" handover --no-task >/dev/null
log "citations kept: $("$BIN" handover --resolve | grep '^Citations:')"
sleep 3; start_hook >/dev/null 2>&1
median "$RUNS" nothing start_hook; row "hook claude-code start, its handover citing 20 files" rev-parse "$F_REV"
log "20 citations cost $(awk -v a="$MEDIAN" -v b="$NO_CITES" 'BEGIN {printf "%.1f", a - b}') ms in the start hook (target ≤ 2 ms)"

# A handover on a tree of 20,000 untracked files (issue 21: one status walk that stops at the
# first file of an untracked directory), against git status on that same tree. `--no-task`: the
# copied fixture's task names the checkout it was made in.
untracked_tree() { # the tiny fixture plus node_modules/pkg-<0..199>/dist/m<0..99>.js
  local d=$WORK/untracked p
  rm -rf "$d"; cp -a "$WORK/tiny" "$d"
  for p in $(seq 0 199); do
    mkdir -p "$d/repo/node_modules/pkg-$p/dist"
    (cd "$d/repo/node_modules/pkg-$p/dist" && seq -f "m%g.js" 0 99 | xargs touch)
  done
}
handover_write() { printf '# Objective\nBench.\n\n# Current State\nx\n\n# Next Action\ny\n' | "$BIN" handover --no-task; }
export -f handover_write
untracked_tree
cd "$WORK/untracked/repo"
median "$RUNS" nothing git_status; F_UNTRACKED=$MEDIAN; row "git status --porcelain (20,000 untracked files)" - 0
median "$RUNS" nothing handover_write; row "handover (write, 20,000 untracked files)" "status --porcelain" "$F_UNTRACKED"
cd "$L"

n_pub=0
new_handover() {
  n_pub=$((n_pub + 1))
  printf '# Objective\nBench publication %s.\n\n# Current State\nx\n\n# Next Action\ny\n' "$n_pub" \
    | "$BIN" handover --no-task >/dev/null
}
"$BIN" continuity device --label bench >/dev/null
"$BIN" continuity status >/dev/null  # the read model of the fixture's store
median "$RUNS" new_handover "$BIN" continuity publish; row "continuity publish" rev-parse "$F_REV"
no_cache() { rm -rf "$L/.git/majordomus/readmodel"; }
curve_no_cache() { rm -rf .git/majordomus/readmodel; }
median "$SLOW_RUNS" no_cache "$BIN" continuity status; row "continuity status (cold: no read model)" "cat-file --batch" "$F_CAT"
"$BIN" continuity status >/dev/null
median "$RUNS" nothing "$BIN" continuity status; row "continuity status (warm)" "ls-tree -r" "$F_LS"
median "$RUNS" nothing "$BIN" continuity records --limit 20; row "continuity records --limit 20" "ls-tree -r" "$F_LS"
# Every record, written as it is made (issue 24: at most 64 MiB at 100,000 records).
median "$SLOW_RUNS" nothing "$BIN" --json continuity records; row "continuity records --json (every record)" "ls-tree -r" "$F_LS"
median "$RUNS" nothing "$BIN" continuity plan; row "continuity plan" "ls-tree -r" "$F_LS"
pick=$("$BIN" --json continuity status --all | python3 -c 'import json,sys; r=json.load(sys.stdin)["resumable"]; print(next((x["id"] for x in r if x.get("branch") == "main"), r[0]["id"] if r else ""))')
state=$L/.ai/local/state
cp "$state/continuity.json" "$WORK/continuity.json.saved" 2>/dev/null || echo '{"schema":"majordomus-continuity-local/v1"}' > "$WORK/continuity.json.saved"
cp "$state/decisions.md" "$WORK/decisions.md.saved"
cp "$state/open-questions.md" "$WORK/open-questions.md.saved"
undo_resume() {
  cp "$WORK/continuity.json.saved" "$state/continuity.json"
  cp "$WORK/decisions.md.saved" "$state/decisions.md"
  cp "$WORK/open-questions.md.saved" "$state/open-questions.md"
  rm -f "$state"/handovers/*--continuity--*
}
median "$RUNS" undo_resume "$BIN" continuity resume --record "$pick"; row "continuity resume (a copy)" "ls-tree -r" "$F_LS"
median "$SLOW_RUNS" no_cache "$BIN" continuity verify; row "continuity verify (cold)" "cat-file --batch" "$F_CAT"
fresh_sync() {
  rm -rf "$WORK/sync"; mkdir -p "$WORK/sync"
  cp -a "$FIX/large/sync-local" "$WORK/sync/local"
  cp -a "$FIX/large/remote.git" "$WORK/sync/remote.git"
  git -C "$WORK/sync/local" remote set-url origin "file://$WORK/sync/remote.git"
  # The read model as a previous sync left it (not part of the measurement).
  (cd "$WORK/sync/local" && git update-ref refs/majordomus/remotes/origin/continuity "$(git rev-parse "refs/majordomus/continuity~1")" \
    && "$BIN" continuity status >/dev/null)
  cd "$WORK/sync/local"
}
median "$SLOW_RUNS" fresh_sync "$BIN" continuity sync; row "continuity sync ($EXCHANGE new records each way, file://)" "ls-tree -r" "$F_LS"
cd "$L"

# ---------------------------------------------------------------------------------------------
# Growth curve: as the store grows, a cold status against git reading every record blob (the
# floor, in the same run), warm status, plan and every record as JSON with their peak memory,
# and publish. The cold rows run once at 1,000,000 records (git's floor alone takes minutes).
# This machine's device trusted by name in a new mesh declaration (policy tofu: every other
# signer keeps its standing), committed in the checkout at hand.
trust_self() {
  local key
  key=$("$BIN" --json continuity device | python3 -c 'import json,sys; print(json.load(sys.stdin)["public_key"])')
  mkdir -p .ai/repo/mesh
  printf 'schema: mesh/v1\nkind: mesh-declaration\nid: bench\nenabled: true\ntrust:\n  policy: tofu\n  allow: [%s]\n  revoked: []\n' "$key" > .ai/repo/mesh/bench.yaml
  git add .ai/repo/mesh/bench.yaml && git commit -qm "bench: trust this machine by name"
}
curve=()
for n in $CURVE; do
  if [[ $n == "$RECORDS" ]]; then c=$L; else rm -rf "$WORK/curve"; cp -a "$FIX/curve-$n" "$WORK/curve"; c=$WORK/curve/repo; fi
  cd "$c"
  cold_runs=$SLOW_RUNS; (( n >= 1000000 )) && cold_runs=1
  median "$cold_runs" nothing cat_all; cat=$MEDIAN
  median "$cold_runs" curve_no_cache "$BIN" continuity status; cold=$MEDIAN; cold_rss=$((RSS / 1024))
  "$BIN" continuity status >/dev/null
  median "$RUNS" nothing "$BIN" continuity status; st=$MEDIAN; st_rss=$((RSS / 1024))
  median "$RUNS" nothing "$BIN" continuity plan; plan=$MEDIAN; plan_rss=$((RSS / 1024))
  median "$cold_runs" nothing "$BIN" --json continuity records; recs=$MEDIAN; recs_rss=$((RSS / 1024))
  median "$RUNS" new_handover "$BIN" continuity publish; pub=$MEDIAN
  bytes=$(stat -c %s .git/majordomus/readmodel/refs%majordomus%continuity.bin)
  # A fresh clone's first read with a signed snapshot (issue 45 item 3): this machine trusted by
  # name, one snapshot made, then a cold status reads it (and admits the files after it).
  # (A binary without `continuity snapshot`, compared by bench/compare-rows.sh, leaves them "-".)
  trust_self
  snap=- snap_cold=- snap_rss=-
  s=$(date +%s%N)
  if "$BIN" continuity snapshot >/dev/null 2>&1; then
    snap=$(ms_since "$s")
    median "$cold_runs" curve_no_cache "$BIN" continuity status; snap_cold=$MEDIAN; snap_rss=$((RSS / 1024))
  fi
  curve+=("| $n | $cat | $cold | $(times "$cold" "$cat") | $cold_rss | $st | $st_rss | $plan | $plan_rss | $recs | $recs_rss | $pub | $(( bytes / n )) | $snap | $snap_cold | $(times "$snap_cold" "$cat") | $snap_rss |")
  log "curve $n: cold status $cold ms ($cold_rss MiB; cat-file $cat ms), warm status $st ms ($st_rss MiB), plan $plan ms ($plan_rss MiB), records --json $recs ms ($recs_rss MiB), publish $pub ms, read model $bytes bytes, snapshot $snap ms, cold status with it $snap_cold ms ($snap_rss MiB)"
done

# ---------------------------------------------------------------------------------------------
{
  echo "# make bench — $(date -u +%FT%TZ)"
  echo
  echo "Machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo), $(uname -sr); git $(git --version | cut -d' ' -f3)."
  echo "Large fixture: $COMMITS commits over $BRANCHES branches (commit-graph), $HANDOVERS handovers and"
  echo "$CHECKPOINTS checkpoints (a tenth in a linked worktree), $LEDGER ledger lines, $DECISIONS decisions,"
  echo "$QUESTIONS open questions, $RECORDS continuity records from $DEVICES devices on $LINES lines."
  echo "Medians of $RUNS runs ($SLOW_RUNS for search, doctor, cold status, verify, sync, cat-file); peak RSS of one run:"
  echo "git-majordomus's own, and beside it the largest git process the command started (for sync over"
  echo "file://, the remote's own receive-pack, the server side of the push)."
  echo
  echo "| command | median ms | peak RSS MiB | git's peak MiB | git floor | floor ms | ratio |"
  echo "|---|---:|---:|---:|---|---:|---:|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "## Growth curve"
  echo
  echo "Cold: no read model; floor: every record blob through git cat-file --batch, in the same run."
  echo "With a snapshot: this machine trusted by name, \`continuity snapshot\` once, then a cold status (a fresh clone's first read)."
  echo
  echo "| records | cat-file ms | cold status ms | ×floor | cold MiB | warm status ms | MiB | plan ms | MiB | records --json ms | MiB | publish ms | read model bytes/record | snapshot ms | cold status with a snapshot ms | ×floor | MiB |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  printf '%s\n' "${curve[@]}"
} | tee "$OUT/report.md"
