#!/bin/sh
# The git-majordomus CI step (docs/SYNC.md#the-ci-step), shared by contrib/ci/action.yml (GitHub Actions) and
# contrib/ci/gitlab-ci.yml (GitLab CI). Run it at the root of a clone of the repository:
#
#   contrib/ci/majordomus-ci.sh [<remote>]
#
# 1. fetches refs/majordomus/continuity from <remote> (default: $MAJORDOMUS_REMOTE, else origin)
#    into refs/majordomus/remotes/<remote>/continuity — a clone never brings that ref by itself;
# 2. `continuity verify --remote <remote>`: every record admitted, every signer trusted by the
#    mesh declaration (with --format github under GitHub Actions: one workflow annotation per
#    refused or untrusted record);
# 3. `doctor --json` (the layer's health, as JSON on stdout);
# 4. `history --validate` (every ledger line this clone holds).
#
# Exits 0 when every step passed; 1 when any step answered no (exit 10: a refused or untrusted
# record, a FAIL finding) or could not read the store (exit 13), or anything else went wrong.
# Environment: MAJORDOMUS_BIN (the executable, default git-majordomus on PATH),
# MAJORDOMUS_REMOTE, MAJORDOMUS_FORMAT (text|github; default github when GITHUB_ACTIONS=true).
# Nothing here prints a secret: the commands never echo one.
set -u

remote="${1:-${MAJORDOMUS_REMOTE:-origin}}"
mj="${MAJORDOMUS_BIN:-git-majordomus}"
format="${MAJORDOMUS_FORMAT:-}"
if [ -z "$format" ]; then
  if [ "${GITHUB_ACTIONS:-}" = true ]; then format=github; else format=text; fi
fi

if ! command -v "$mj" >/dev/null 2>&1; then
  echo "majordomus-ci: $mj not found; install git-majordomus first (see contrib/ci/action.yml)" >&2
  exit 1
fi

# CI checkouts are shallow by default (actions/checkout: depth 1; GitLab: GIT_DEPTH); the
# repository's continuity identity comes from its root commits, so the history must be whole.
if [ "$(git rev-parse --is-shallow-repository)" = true ]; then
  if ! GIT_TERMINAL_PROMPT=0 git fetch --quiet --no-tags --unshallow "$remote"; then
    echo "majordomus-ci: cannot unshallow this clone from $remote" >&2
    exit 1
  fi
fi

# The glob refspec exits 0 when the remote has no store yet (nothing to verify is not a failure).
if ! GIT_TERMINAL_PROMPT=0 git fetch --quiet --no-tags "$remote" \
  "+refs/majordomus/continuity*:refs/majordomus/remotes/$remote/continuity*"; then
  echo "majordomus-ci: cannot fetch the continuity records of $remote" >&2
  exit 1
fi

status=0
step() {
  name=$1
  shift
  echo "majordomus-ci: $name"
  "$@"
  code=$?
  case $code in
    0) echo "majordomus-ci: $name: ok" ;;
    10) echo "majordomus-ci: $name: refused (exit 10)"; status=1 ;;
    13) echo "majordomus-ci: $name: the store or a file could not be read (exit 13)"; status=1 ;;
    *) echo "majordomus-ci: $name: failed (exit $code)"; status=1 ;;
  esac
}

step "continuity verify" "$mj" continuity verify --remote "$remote" --format "$format"
step "doctor" "$mj" --json doctor
step "history --validate" "$mj" history --validate

if [ $status -eq 0 ]; then
  echo "majordomus-ci: all checks passed"
else
  echo "majordomus-ci: some checks failed"
fi
exit $status
