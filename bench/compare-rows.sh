#!/usr/bin/env bash
# Every `make bench` row for two binaries: whole bench runs alternating (old, new, old, new, …),
# then per row the median of each binary's medians and new/old. Answers "is every row within
# ±5 % of the starting commit's" (issue 44). The fixtures are `make bench`'s (built on the first
# run when absent); the reports are kept under target/bench/compare-rows/.
#
#   bench/compare-rows.sh OLD_BINARY NEW_BINARY [ROUNDS=2]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
OUT=$root/target/bench/compare-rows
[[ ${COMPARE_ONLY:-0} == 1 ]] || { rm -rf "$OUT"; mkdir -p "$OUT/old" "$OUT/new"; }
# Each under its own name: the peak-RSS column finds the process by the name git-majordomus.
cp "$1" "$OUT/old/git-majordomus"; cp "$2" "$OUT/new/git-majordomus"
OLD=$OUT/old/git-majordomus NEW=$OUT/new/git-majordomus ROUNDS=${3:-2}
export GEN=${GEN:-$root/target/release/examples/bench_fixture}
# COMPARE_ONLY=1: the summary of the reports a previous run left.
for ((i = 1; i <= ROUNDS && ${COMPARE_ONLY:-0} != 1; i++)); do
  for side in old new; do
    bin=$OLD; [[ $side == new ]] && bin=$NEW
    echo "round $i: $side" >&2
    "$root/bench/bench.sh" "$bin" >/dev/null
    cp "$root/target/bench/report.md" "$OUT/$side-$i.md"
  done
done
# The command table's rows: `| label | median | …`, the tiny fixture's figure cut from labels.
# The growth curve's rows (`| records | cat-file ms | cold status ms | …`) are keyed by their
# size and column: cold status, warm status, plan, records --json.
rows() {
  awk -F'|' '
    /^\| records / { curve = 1; next }
    curve && /^\| [0-9]/ { n = $2; gsub(/ /, "", n)
      print "curve " n ": cold status\t" $4; print "curve " n ": warm status\t" $7
      print "curve " n ": plan\t" $9; print "curve " n ": records --json\t" $11; next }
    !curve && /^\| / && $3 ~ /[0-9]/ { l = $2; sub(/ \(tiny: [^)]*\)/, "", l); gsub(/^ +| +$/, "", l); m = $3; gsub(/ /, "", m); print l "\t" m }' "$@"
}
{
  for f in "$OUT"/old-*.md; do rows "$f" | sed 's/^/old\t/'; done
  for f in "$OUT"/new-*.md; do rows "$f" | sed 's/^/new\t/'; done
} | awk -F'\t' '
  { v[$2, $1] = v[$2, $1] " " $3; if (!($2 in seen)) { seen[$2] = ++n; order[n] = $2 } }
  function median(s,   a, k, i, j, t) {
    k = split(s, a, " ")
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
  }
  END {
    printf "| row | old ms | new ms | new/old |\n|---|---:|---:|---:|\n"
    for (i = 1; i <= n; i++) {
      r = order[i]; o = median(v[r, "old"]); w = median(v[r, "new"])
      printf "| %s | %.1f | %.1f | %s |\n", r, o, w, (o > 0 ? sprintf("%.3f", w / o) : "-")
    }
  }' | tee "$OUT/compare.md"
