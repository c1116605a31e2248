#!/usr/bin/env bash
# Installs the four agent host CLIs the real-host tests run (tests/cli/test_real_hosts.rs) —
# Claude Code, Codex, Gemini CLI and Copilot CLI, pinned by contrib/hosts/package-lock.json —
# under target/hosts/node_modules, with the machine's Node.js and npm (installed from Debian's
# packages when missing). Cached: nothing is fetched while target/hosts holds the lockfile's
# install. The packages take about 1 GB (each host ships a native binary).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
dest="$here/target/hosts"
lock="$here/contrib/hosts/package-lock.json"

if ! command -v npm >/dev/null 2>&1; then
  sudo=""
  if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
  echo "host-deps: installing nodejs and npm with apt-get" >&2
  $sudo apt-get install -y -q --no-install-recommends nodejs npm >/dev/null 2>&1 \
    || { $sudo apt-get update -q >/dev/null && $sudo apt-get install -y -q --no-install-recommends nodejs npm >/dev/null; }
fi

want="$(sha256sum "$lock" | cut -d' ' -f1)"
if [ -f "$dest/.installed" ] && [ "$(cat "$dest/.installed")" = "$want" ]; then
  exit 0
fi
echo "host-deps: installing the host CLIs of contrib/hosts/package-lock.json under target/hosts" >&2
rm -rf "$dest"
mkdir -p "$dest"
cp "$here/contrib/hosts/package.json" "$lock" "$dest/"
(cd "$dest" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
echo "$want" > "$dest/.installed"
