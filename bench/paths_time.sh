#!/bin/sh
# Contraction time on the cpu along our path against the time along the
# instance's stored opt_flops path, per instance of examples/instances/: our
# path is searched once (`--path auto`, saved with --save-path) and then
# contracted with --path-file, so that neither timing includes a search.
# Both contract the same seeded operands; the two are run alternately, ROUNDS
# times each (default 3, each with --repeat REPEAT, default 3), and the
# median of the medians is reported, with the ratio ours / stored (< 1: ours
# is faster) and whether the two results' checksums agree.
# Prints a markdown table and writes it to bench/results/paths_time.md.
#   usage: bench/paths_time.sh [INSTANCE.json ...]   (default: all of them)
# Environment: BUILD_DIR (default build), THREADS (default: all cores),
# ROUNDS, REPEAT, MAX_MEMORY (passed as --max-memory when set), MINIMIZE
# (passed to the search as --minimize when set),
# OUT (default bench/results/paths_time.md).
set -eu
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
THREADS=${THREADS:-$(nproc)}
ROUNDS=${ROUNDS:-3}
REPEAT=${REPEAT:-3}
OUT=${OUT:-bench/results/paths_time.md}
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD_DIR" -j2 --target tenferro_cli >/dev/null
bin="$BUILD_DIR/tenferro"
[ "$#" -eq 0 ] && set -- examples/instances/*.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mem=""
[ -n "${MAX_MEMORY:-}" ] && mem="--max-memory $MAX_MEMORY"

# run FILE ARGS...: "ms checksum log10flops" of one contraction.
run() {
  f=$1
  shift
  # shellcheck disable=SC2086  # mem is words
  "$bin" contract "$f" --quiet --threads "$THREADS" --warmup 1 --repeat "$REPEAT" $mem "$@" |
    awk '/^path / { gsub(",", ""); fl = $3 }
         /^time / { ms = $3 }
         /^result/ { for (i = 1; i <= NF; i++) if ($i == "sum") { cs = $(i + 1); gsub(",", "", cs) } }
         END { print ms, cs, fl }'
}
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

{
  echo "# Contraction time along our path and along the stored path (cpu)"
  echo
  echo "$(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src include tools || echo ' (modified)'), $(nproc) cores ($(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)), $THREADS threads; load average $(cut -d' ' -f1-3 /proc/loadavg) at the start."
  echo
  echo "Reproduce: \`BUILD_DIR=$BUILD_DIR THREADS=$THREADS ROUNDS=$ROUNDS REPEAT=$REPEAT${MAX_MEMORY:+ MAX_MEMORY=$MAX_MEMORY}${MINIMIZE:+ MINIMIZE=$MINIMIZE} bench/paths_time.sh\`. ours = \`--path auto${MINIMIZE:+ --minimize $MINIMIZE}\` (default budget), searched once and contracted from its path file; stored = the instance's opt_flops path. Times: median over $ROUNDS alternating rounds of the median of $REPEAT repeats after one warm-up run (ms, the instance's dtype). flops: log10 of each path's flops. same: the results' checksums (sum of the elements) agree to 1e-6 relative."
  echo
  echo "| instance | ours ms | stored ms | ours / stored | log10 flops ours | stored | same |"
  echo "|---|---:|---:|---:|---:|---:|---|"
} >"$tmp/table"

for f in "$@"; do
  name=$(basename "$f" .json)
  # shellcheck disable=SC2086
  "$bin" contract "$f" --plan-only --quiet $mem ${MINIMIZE:+--minimize "$MINIMIZE"} \
    --save-path "$tmp/$name.path.json" >/dev/null
  : >"$tmp/ours"
  : >"$tmp/stored"
  r=0
  while [ "$r" -lt "$ROUNDS" ]; do
    run "$f" --path-file "$tmp/$name.path.json" >>"$tmp/ours"
    run "$f" --path opt_flops >>"$tmp/stored"
    r=$((r + 1))
  done
  mo=$(cut -d' ' -f1 "$tmp/ours" | median)
  ms=$(cut -d' ' -f1 "$tmp/stored" | median)
  co=$(head -1 "$tmp/ours" | cut -d' ' -f2)
  cs=$(head -1 "$tmp/stored" | cut -d' ' -f2)
  fo=$(head -1 "$tmp/ours" | cut -d' ' -f3)
  fs=$(head -1 "$tmp/stored" | cut -d' ' -f3)
  awk -v nm="$name" -v mo="$mo" -v ms="$ms" -v co="$co" -v cs="$cs" -v fo="$fo" -v fs="$fs" 'BEGIN {
    d = co - cs; if (d < 0) d = -d; s = cs < 0 ? -cs : cs
    printf "| %s | %.3f | %.3f | %.2f | %.3f | %.3f | %s |\n", nm, mo, ms, mo / ms, fo, fs,
           (d <= 1e-6 * s + 1e-300) ? "yes" : "no" }' >>"$tmp/table"
  tail -1 "$tmp/table"
done
cp "$tmp/table" "$OUT"
