#!/usr/bin/env bash
# `make fuzz`: libFuzzer over every target of fuzz/ (crates/fuzzing/src/lib.rs), FUZZ_SECONDS each (default
# 60), starting from the checked-in seeds in fuzz/corpus/<target>/. New inputs libFuzzer finds go
# to target/fuzz-corpus/<target>/ (not checked in); a crash lands in fuzz/artifacts/<target>/ and
# fails the run. Runs on the stable toolchain with RUSTC_BOOTSTRAP=1 (cargo-fuzz passes -Z flags).
#
#   make fuzz                      every target, 60 s each
#   FUZZ_SECONDS=600 make fuzz     longer
#   FUZZ_TARGETS="mcp http" make fuzz
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
"$here/contrib/fuzz-deps.sh"
cd "$here/fuzz"
seconds="${FUZZ_SECONDS:-60}"
# `every` is the one-binary dispatcher of the bounded run in `make test` (contrib/fuzz-smoke.sh).
targets="${FUZZ_TARGETS:-$(RUSTC_BOOTSTRAP=1 cargo fuzz list | grep -vx every)}"
export RUSTC_BOOTSTRAP=1
cargo fuzz build -O
for t in $targets; do
  work="$here/target/fuzz-corpus/$t"
  mkdir -p "$work"
  echo "fuzz: $t for ${seconds}s" >&2
  cargo fuzz run -O "$t" "$work" "corpus/$t" -- \
    -max_total_time="$seconds" -rss_limit_mb=1024 -timeout=5 -max_len=262144 -print_final_stats=1
done
