#!/usr/bin/env bash
# `make fuzz-smoke` (run by `make test`): a bounded libFuzzer run over every entry of
# crates/fuzzing/src/lib.rs, cheap enough for every test run; `make fuzz` is the long one.
#
# One binary, fuzz/fuzz_targets/every.rs (MAJORDOMUS_FUZZ_TARGET picks the entry), built with
# plain cargo — no cargo-fuzz to install — and the coverage flags cargo-fuzz passes
# (sancov-module, inline 8-bit counters, pc table, trace-compares, stack depth, --cfg fuzzing),
# without a sanitizer, with the fuzz crate's `smoke` profile (optimised, debug assertions and
# overflow checks on) and the library without its `mcp` feature (no tokio, rmcp, schemars),
# into its own target dir ($FUZZ_SMOKE_DIR, default target/fuzz-smoke) so the main build is
# never invalidated. Then every target runs FUZZ_SMOKE_SECONDS (default 3) from its checked-in
# seeds (fuzz/corpus/<target>/, only read); what libFuzzer adds goes to a scratch corpus that
# each run starts afresh. A crash (panic), a timeout (5 s an input) or a resident set over
# 1 GiB fails the run and leaves the input in $FUZZ_SMOKE_DIR/artifacts/<target>/.
#
#   FUZZ_SMOKE_SECONDS=10 make fuzz-smoke
#   FUZZ_SMOKE_TARGETS="http ledger" make fuzz-smoke
set -euo pipefail
# Called again as cargo's RUSTC_WRAPPER (below): the coverage flags go to our own crates only.
if [ -n "${FUZZ_SMOKE_FLAGS:-}" ]; then
  rustc="$1"
  shift
  case " $* " in
    *" --crate-name majordomus "* | *" --crate-name every "*) exec "$rustc" "$@" $FUZZ_SMOKE_FLAGS ;;
    *) exec "$rustc" "$@" ;;
  esac
fi
here="$(cd "$(dirname "$0")/.." && pwd)"
dir="${FUZZ_SMOKE_DIR:-$here/target/fuzz-smoke}"
seconds="${FUZZ_SMOKE_SECONDS:-3}"
# `mcp` needs the library's mcp feature, which this build leaves out; `make fuzz` and
# crates/fuzzing/tests/hostile.rs run it.
skip=" mcp "
if [ -n "${FUZZ_SMOKE_TARGETS:-}" ]; then
  targets="$FUZZ_SMOKE_TARGETS"
else
  targets="$(cd "$here/fuzz/corpus" && for t in *; do case "$skip" in *" $t "*) ;; *) echo "$t";; esac; done)"
fi

host="$(rustc -vV | sed -n 's/^host: //p')"
flags="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4"
flags="$flags -Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table"
flags="$flags -Cllvm-args=-sanitizer-coverage-trace-compares -Cllvm-args=-sanitizer-coverage-stack-depth"
flags="$flags -Cllvm-args=-simplifycfg-branch-fold-threshold=0 --cfg fuzzing"
FUZZ_SMOKE_FLAGS="$flags" RUSTC_WRAPPER="$here/contrib/fuzz-smoke.sh" \
  cargo build --quiet --manifest-path "$here/fuzz/Cargo.toml" \
  --profile smoke --no-default-features --bin every --target "$host" --target-dir "$dir"
bin="$dir/$host/smoke/every"

total=0
for t in $targets; do
  work="$dir/corpus/$t"
  rm -rf "$work"
  mkdir -p "$work" "$dir/artifacts/$t"
  log="$dir/$t.log"
  if ! MAJORDOMUS_FUZZ_TARGET="$t" "$bin" "$work" "$here/fuzz/corpus/$t" \
    -max_total_time="$seconds" -timeout=5 -rss_limit_mb=1024 -max_len=262144 \
    -artifact_prefix="$dir/artifacts/$t/" -print_final_stats=1 >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "fuzz-smoke: $t FAILED; the input is in $dir/artifacts/$t/ (log $log)" >&2
    exit 1
  fi
  runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")"
  echo "fuzz-smoke: $t ${runs:-?} executions in ${seconds}s" >&2
  total=$((total + ${runs:-0}))
done
echo "fuzz-smoke: $(echo "$targets" | wc -w) targets, $total executions, no crash" >&2
