#!/usr/bin/env bash
# Installs what the test suite needs beyond the Rust toolchain and git, when it is missing:
# - minisign (the stock CLI): the cross-machine tests check that an exported record verifies
#   with it (src/continuity/signing.rs, stock_minisign_verifies_the_export).
# - python3 (standard library only): the smart-HTTP remote of the sync tests
#   (tests/support/git_http_server.py, tests/cli/test_remotes.rs).
set -euo pipefail
missing=()
command -v minisign >/dev/null 2>&1 || missing+=(minisign)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "test-deps: ${missing[*]} missing and apt-get is not available; install by hand" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
echo "test-deps: installing ${missing[*]} with apt-get" >&2
$sudo apt-get install -y -q "${missing[@]}" >/dev/null 2>&1 || { $sudo apt-get update -q >/dev/null && $sudo apt-get install -y -q "${missing[@]}" >/dev/null; }
for m in "${missing[@]}"; do command -v "$m" >/dev/null; done
