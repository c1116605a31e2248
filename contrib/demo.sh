#!/usr/bin/env bash
# The everyday lifecycle of git-majordomus, end to end, in a scratch repository.
#
#   make demo                      builds the release binary and runs this script
#   contrib/demo.sh                uses target/release/git-majordomus (build it first)
#   MAJORDOMUS_BIN_DIR=<dir> contrib/demo.sh
#
# Everything happens under a temporary directory that is removed on exit, with its own HOME and
# no global or system git configuration. The tool is called as `git majordomus`, so git's
# extension mechanism (git-majordomus on PATH) is exercised too. Every step must succeed: the
# script stops at the first failure and exits non-zero.
set -Eeuo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin_dir=${MAJORDOMUS_BIN_DIR:-$here/../target/release}
if [[ ! -x $bin_dir/git-majordomus ]]; then
  echo "demo: no git-majordomus in $bin_dir; run 'make demo' (or 'cargo build --release') first" >&2
  exit 2
fi
bin_dir=$(cd "$bin_dir" && pwd)

work=$(mktemp -d "${TMPDIR:-/tmp}/majordomus-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT

# A hermetic world: our HOME, no git configuration, a fixed identity, nothing inherited from a
# surrounding git command or agent session.
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY GIT_CEILING_DIRECTORIES
unset MAJORDOMUS_NOW MAJORDOMUS_SESSION_KEY MAJORDOMUS_PROVIDER_SESSION CLAUDE_CODE_SESSION_ID
export HOME=$work/home XDG_STATE_HOME=$work/home/.local/state
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_TERMINAL_PROMPT=0
export GIT_AUTHOR_NAME="Ada Demo" GIT_AUTHOR_EMAIL=ada@example.com
export GIT_COMMITTER_NAME="Ada Demo" GIT_COMMITTER_EMAIL=ada@example.com
export USER=ada TZ=UTC LC_ALL=C
export PATH=$bin_dir:$PATH
mkdir -p "$HOME" "$work/repo"
cd "$work/repo"

if [[ -t 1 ]]; then bold=$'\e[1m' dim=$'\e[2m' off=$'\e[0m'; else bold='' dim='' off=''; fi
n=0
current=''
# step <title>: a numbered heading before each step.
step() {
  n=$((n + 1))
  current=$1
  printf '\n%s%d. %s%s\n' "$bold" "$n" "$1" "$off"
}
# quoted <words...>: the words as a person would type them.
quoted() {
  local w out=()
  for w in "$@"; do
    if [[ $w =~ ^[A-Za-z0-9_./:=,@%+-]+$ ]]; then out+=("$w"); else out+=("\"${w//\"/\\\"}\""); fi
  done
  printf '%s' "${out[*]}"
}
# show <command...>: print the command, then run it.
show() {
  printf '%s$ %s%s\n' "$dim" "$(quoted "$@")" "$off"
  "$@"
}
# show_in <body> <command...>: the same, with <body> on stdin.
show_in() {
  local body=$1
  shift
  printf '%s$ %s <<EOF%s\n' "$dim" "$(quoted "$@")" "$off"
  printf '%s%sEOF%s\n' "$dim" "$body" "$off"
  printf '%s' "$body" | "$@"
}
trap 'status=$?; echo "demo: step $n ($current) failed with exit $status" >&2; exit $status' ERR

printf '%sgit-majordomus demo%s — scratch repository %s\n' "$bold" "$off" "$work/repo"
printf 'using %s (%s)\n' "$(command -v git-majordomus)" "$(git-majordomus --version)"

step "A repository with some history"
git init -q -b main
mkdir -p lib/auth
printf '# demo app\n' > README.md
printf 'pub fn login() {}\n' > lib/auth/login.rs
git add -A
git commit -q -m "Initial import"
git log --oneline

step "init: create the .ai/ layer, then commit .ai/repo/ and .gitignore (as its next: line says)"
show git majordomus init
show git add .ai/repo .gitignore
show git commit -q -m "Add the majordomus layer"

step "start: open a task with a scope"
show git majordomus start "Fix the OAuth callback" --scope lib/auth

step "checkpoint: a short progress note (body on stdin)"
show_in "The callback drops the state parameter; reproducing with a stub provider.
" git majordomus checkpoint

step "decision add: record why, not just what"
show git majordomus decision add "Validate the OAuth state before exchanging the code" \
  --why "An unchecked state lets a forged callback log a victim in" \
  --rejected "Trusting the provider's redirect"

step "question add: a blocker is state, not a chat message"
show git majordomus question add "Should an expired state redirect to login or show an error?"
show git majordomus question list

step "question resolve: answer it (it would refuse finish --outcome completed)"
show git majordomus question resolve 1 --answer "Redirect to login with a notice"

step "commit the fix"
cat > lib/auth/callback.rs <<'EOF'
pub fn callback(state: &str, expected: &str) -> Result<(), &'static str> {
    if state != expected {
        return Err("state mismatch: redirecting to login");
    }
    Ok(())
}
EOF
git add lib/auth/callback.rs
git commit -q -m "auth: validate the OAuth state in the callback"
git log --oneline -1

step "handover --close: the deliberate continuation package"
show_in "# Objective
Fix the OAuth callback so a forged or expired state cannot log anyone in.

# Current State
lib/auth/callback.rs validates the state; an expired state redirects to login.

# Next Action
Add a regression test for the expired-state redirect.
" git majordomus handover --close

step "a later commit (someone carried on after the handover)"
cat > lib/auth/callback_test.rs <<'EOF'
#[test]
fn expired_state_redirects() {}
EOF
git add lib/auth/callback_test.rs
git commit -q -m "auth: regression test for the expired-state redirect"
git log --oneline -1

step "handover --resolve: what the next session reads first"
printf '%s$ git majordomus handover --resolve%s\n' "$dim" "$off"
resolved=$(git majordomus handover --resolve)
printf '%s\n' "$resolved"
if ! grep -q '^Git state: advanced' <<<"$resolved"; then
  echo "demo: expected 'Git state: advanced' (the branch moved on since the handover)" >&2
  false
fi

step "context: the bounded briefing, built from records and git"
show git majordomus context

step "finish: close the task against its contract"
show git majordomus finish --outcome completed --verify-command "test -f lib/auth/callback.rs"


# ---- A simulated agent session: what Claude Code's hooks run -------------------------------
printf '\n%sAn agent session, driven by its hooks%s\n' "$bold" "$off"

step "hooks install --claude-code: merge the hook entries into .claude/settings.json"
show git majordomus hooks install --claude-code
hook_cmd() { # the exact command written for a Claude Code event
  python3 -c 'import json,sys; s=json.load(open(".claude/settings.json")); print(next(h["command"] for g in s["hooks"][sys.argv[1]] for h in g["hooks"] if "majordomus" in h["command"]))' "$1"
}
payload() { printf '{"session_id":"demo-window-1","transcript_path":"/dev/null","cwd":"%s","hook_event_name":"%s"%s}' "$PWD" "$1" "$2"; }
run_hook() { # run_hook <event> <extra payload json>
  local cmd
  cmd=$(hook_cmd "$1")
  printf '%s$ %s <<< %s%s\n' "$dim" "$cmd" "$(payload "$1" "$2")" "$off"
  payload "$1" "$2" | sh -c "$cmd"
}

step "SessionStart: the episode opens and the briefing goes to the agent (stdout)"
run_hook SessionStart ',"source":"startup"'
git majordomus start "Harden the login rate limit" --scope lib/auth >/dev/null
MAJORDOMUS_SESSION_KEY=demo-window-1 git majordomus decision add "Limit login attempts per account, not per IP" --why "Shared NATs make per-IP limits lock out whole offices" >/dev/null

step "PreCompact: a derived checkpoint (and knowledge) before the conversation is compacted"
run_hook PreCompact ',"trigger":"auto"'

step "SessionEnd: final checkpoint, derived handover, the episode closes into .ai/repo/sessions/"
run_hook SessionEnd ',"reason":"prompt_input_exit"'
show git majordomus session list

step "the next SessionStart: its briefing quotes the derived handover"
next_briefing=$(payload SessionStart ',"source":"startup"' | sed 's/demo-window-1/demo-window-2/' | sh -c "$(hook_cmd SessionStart)")
printf '%s\n' "$next_briefing"
grep -q '^Its Next Action:' <<<"$next_briefing" || { echo "demo: the briefing did not quote the handover's Next Action" >&2; false; }

# ---- Laptop to desktop: a signed handover over a plain git remote ---------------------------
printf '\n%sFrom a laptop to a desktop, through a git remote%s\n' "$bold" "$off"
git add -A && git commit -q -m "Session records" || true

step "a bare remote; this clone is the laptop"
git init -q --bare "$work/remote.git"
git -C "$work/remote.git" config receive.denyNonFastForwards true
git remote add origin "$work/remote.git"
git push -q origin main
show git majordomus continuity device --label laptop

step "laptop: write a handover, publish it (offline), sync it"
show_in "# Objective
Ship the login rate limit.

# Current State
Per-account limit designed; not yet implemented.

# Next Action
Implement the per-account counter in lib/auth/limit.rs.
" git majordomus handover --no-task
show git majordomus continuity publish --issue '#42'
show git majordomus continuity sync

step "desktop: a second clone with its own device"
git clone -q -b main "$work/remote.git" "$work/desktop"
cd "$work/desktop"
export XDG_STATE_HOME=$work/desktop-home/.local/state
show git majordomus continuity status
show git majordomus continuity sync

step "desktop: plan (writes nothing), then resume"
show git majordomus continuity plan
show git majordomus continuity resume

step "desktop: handover --resolve shows the laptop's handover as this checkout's record"
resolved=$(git majordomus handover --resolve)
printf '%s\n' "$resolved"
grep -q 'Implement the per-account counter' <<<"$resolved" || { echo "demo: the resumed handover did not resolve on the desktop" >&2; false; }

# ---- The read surfaces: state, and the cockpit in a browser tab ------------------------------
printf '\n%sThe same state, read from elsewhere%s\n' "$bold" "$off"

step "state: the continuity.state read model (what MCP and HTTP serve too)"
show git majordomus state

step "serve ensure: one detached cockpit server for this checkout"
printf '%s$ git majordomus serve ensure%s\n' "$dim" "$off"
ready=$(git majordomus serve ensure)
printf '%s\n' "$ready"
url=$(sed -n 's/^Shared server: ready \(http:[^ ]*\) pid .*/\1/p' <<<"$ready")
[[ -n $url ]] || { echo "demo: serve ensure printed no URL" >&2; false; }
printf 'The cockpit is at %s — open it in a browser while the demo runs.\n' "$url"

step "fetch the cockpit page once"
python3 - "$url" <<'PY'
import sys, urllib.request
page = urllib.request.urlopen(sys.argv[1], timeout=10).read().decode()
assert "Continuity cockpit" in page and "Handover" in page, page[:400]
print(f"GET {sys.argv[1]} -> {len(page)} bytes of server-rendered HTML")
PY

step "serve stop: no process is left behind"
show git majordomus serve stop

printf '\n%sdone%s — every step succeeded; the scratch repository is removed on exit.\n' "$bold" "$off"
