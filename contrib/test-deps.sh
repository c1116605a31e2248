#!/usr/bin/env bash
# Installs what the test suite needs beyond the Rust toolchain and git, when it is missing:
# - minisign (the stock CLI): the cross-machine tests check that an exported record verifies
#   with it (crates/continuity/src/signing.rs, stock_minisign_verifies_the_export).
# - python3 (standard library only): the smart-HTTP remote of the sync tests
#   (tests/support/git_http_server.py, tests/cli/test_remotes.rs).
# - chromium (Debian's): the cockpit is loaded headless (tests/cli/test_surfaces.rs).
# - a C++ compiler (g++): libfuzzer-sys builds libFuzzer's runtime for the bounded fuzz run
#   (contrib/fuzz-smoke.sh).
# - a Python virtual environment under target/surfaces-venv with the official MCP SDK (`mcp`),
#   `schemathesis` and `jsonschema`: the real peers of the read surfaces (docs/REFERENCE.md#surfaces).
# - the agent host CLIs under target/hosts (contrib/host-deps.sh): the real-host tests.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"

apt_install() {
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "test-deps: $* missing and apt-get is not available; install it by hand" >&2
    exit 1
  fi
  local sudo=""
  if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
  echo "test-deps: installing $* with apt-get" >&2
  $sudo apt-get install -y -q --no-install-recommends "$@" >/dev/null 2>&1 \
    || { $sudo apt-get update -q >/dev/null && $sudo apt-get install -y -q --no-install-recommends "$@" >/dev/null; }
}

command -v minisign >/dev/null 2>&1 || apt_install minisign
command -v python3 >/dev/null 2>&1 || apt_install python3
command -v python3 >/dev/null
command -v minisign >/dev/null
command -v chromium >/dev/null 2>&1 || apt_install chromium
command -v chromium >/dev/null
command -v c++ >/dev/null 2>&1 || apt_install g++
command -v c++ >/dev/null

venv="$here/target/surfaces-venv"
if ! "$venv/bin/python" -c 'import mcp, jsonschema, schemathesis' >/dev/null 2>&1; then
  if ! python3 -m venv --help >/dev/null 2>&1; then apt_install python3-venv; fi
  echo "test-deps: creating $venv with mcp, schemathesis and jsonschema" >&2
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check 'mcp>=2,<3' 'schemathesis>=4,<5' jsonschema
fi
"$venv/bin/python" -c 'import mcp, jsonschema, schemathesis'

# The four agent host CLIs the real-host tests run (tests/cli/test_real_hosts.rs).
"$here/contrib/host-deps.sh"
