#!/usr/bin/env bash
# Installs what the test suite needs beyond the Rust toolchain and git, when it is missing:
# - minisign (the stock CLI): the cross-machine tests check that an exported record verifies
#   with it (src/continuity/signing.rs, stock_minisign_verifies_the_export).
set -euo pipefail
if command -v minisign >/dev/null 2>&1; then exit 0; fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "test-deps: minisign is missing and apt-get is not available; install minisign by hand" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
echo "test-deps: installing minisign with apt-get" >&2
$sudo apt-get install -y -q minisign >/dev/null 2>&1 || { $sudo apt-get update -q >/dev/null && $sudo apt-get install -y -q minisign >/dev/null; }
command -v minisign >/dev/null
