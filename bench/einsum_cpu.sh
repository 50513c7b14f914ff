#!/bin/sh
# The einsum comparison on the cpu: every instance of examples/instances/
# contracted along its opt_flops path by `tenferro contract` and by numpy
# (bench/peers/numpy_einsum.py), with 1 and then 2 threads, in one run.
# Prints a markdown table and writes it to bench/results/einsum_cpu.md with
# the date, commit, machine, numpy version and the load average.
#   usage: bench/einsum_cpu.sh [INSTANCE.json ...]   (default: all of them)
# Environment: BUILD_DIR (default build), THREADS (default "1 2"), REPEAT
# (most timed runs per measurement, default 5), BUDGET (seconds one
# measurement may take before it stops repeating, default 30; a run longer
# than that is timed once), OUT (default bench/results/einsum_cpu.md).
#
# Ours: `tenferro contract INSTANCE --repeat N --threads T`, its "median"
# and "peak RSS" lines; a first run of --repeat 1 is the warm-up and sets N.
# numpy's BLAS threads and ours follow OMP_NUM_THREADS / OPENBLAS_NUM_THREADS
# = T (set for both), our OpenMP pool --threads T.
set -eu
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
THREADS=${THREADS:-"1 2"}
REPEAT=${REPEAT:-5}
BUDGET=${BUDGET:-30}
OUT=${OUT:-bench/results/einsum_cpu.md}
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)" --target tenferro_cli >/dev/null
bin="$BUILD_DIR/tenferro"
py=python3
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import numpy' 2>/dev/null && py=/usr/bin/python3
[ "$#" -eq 0 ] && set -- examples/instances/*.json

# Published single-thread times of the Rust tenferro-einsum on an Apple M4
# (ms): another machine, for scale only.
m4() {
  case "$1" in
    bin_matmul_256) echo 0.59 ;;
    bin_batched_matmul_b32_m64_n64_k64) echo 1.12 ;;
    bin_outer_product_4096) echo 3.46 ;;
    bin_elementwise_mul_2048x2048) echo 1.68 ;;
    gm_queen5_5_3.wcsp) echo 1223 ;;
    lm_batch_likelihood_brackets_4_4d) echo 9.3 ;;
    lm_batch_likelihood_sentence_3_12d) echo 33.2 ;;
    str_matrix_chain_multiplication_100) echo 8.1 ;;
    str_mps_varying_inner_product_200) echo 7.0 ;;
    str_nw_mera_closed_120) echo 843 ;;
    tensornetwork_permutation_light_415) echo 182 ;;
    *) echo "-" ;;
  esac
}

# ours INSTANCE T -> "median_ms rss_mib"
ours() {
  probe=$("$bin" contract "$1" --repeat 1 --threads "$2" | sed -n 's/^time *median \([0-9.]*\) ms.*/\1/p')
  n=$(awk -v t="$probe" -v b="$BUDGET" -v r="$REPEAT" \
    'BEGIN { n = int(b * 1000 / (t > 0 ? t : 1)); if (n > r) n = r; if (n < 1) n = 1; print n }')
  "$bin" contract "$1" --repeat "$n" --threads "$2" | awk -v n="$n" '
    /^time/ { for (i = 1; i <= NF; i++) if ($i == "median") t = $(i + 1) }
    /^memory/ { for (i = 1; i <= NF; i++) if ($i == "RSS") r = $(i + 1) }
    END { print t, r, n }'
}

# theirs INSTANCE T -> "median_ms method runs"
theirs() {
  "$py" bench/peers/numpy_einsum.py "$1" --repeat "$REPEAT" --budget "$BUDGET" | awk '
    { for (i = 1; i <= NF; i++) { if ($i == "method") m = $(i + 1); if ($i == "median") t = $(i + 1);
                                  if ($i == "over") k = $(i + 1) } }
    END { print t, m, k }'
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
for f in "$@"; do
  name=$(basename "$f" .json)
  for t in $THREADS; do
    export OMP_NUM_THREADS="$t" OPENBLAS_NUM_THREADS="$t"
    o=$(ours "$f" "$t")
    p=$(theirs "$f" "$t")
    echo "$name $t $o $p" >>"$tmp/rows"
    echo "$name threads $t: ours (ms rss runs) $o, numpy (ms method runs) $p" >&2
  done
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

{
  echo "# einsum instances on the cpu: tenferro vs numpy"
  echo
  echo "$(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet HEAD -- src/einsum 2>/dev/null || echo ' (src/einsum modified)'),"\
    "$(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')),"\
    "numpy $("$py" -c 'import numpy; print(numpy.__version__)'),"\
    "BLAS $(update-alternatives --display libblas.so.3-x86_64-linux-gnu 2>/dev/null | sed -n 's/.*link currently points to //p' || echo '?');"\
    "load average $load_start at the start, $load_end at the end."
  echo
  echo "Each instance contracted along its opt_flops path; median of up to $REPEAT timed runs"\
    "after a warm-up (one run when a run takes longer than ${BUDGET} s). numpy method: \`einsum\` ="\
    "np.einsum(optimize=path) on the whole expression (at most 52 labels), \`pairs\` = the same"\
    "steps one np.einsum per pair (bench/peers/numpy_einsum.py). Ratio = ours / numpy (< 1: ours"\
    "faster). Peak RSS: the whole \`tenferro contract\` process, operands included. M4: the"\
    "published single-thread times of the Rust tenferro-einsum on an Apple M4, another machine,"\
    "for scale only."
  echo
  printf '| instance | ours 1T ms | numpy 1T ms | ratio 1T | ours 2T ms | numpy 2T ms | ratio 2T | peak RSS ours MiB | numpy method | M4 Rust 1T ms |\n'
  printf '|---|---:|---:|---:|---:|---:|---:|---:|---|---:|\n'
  for f in "$@"; do
    name=$(basename "$f" .json)
    awk -v n="$name" -v m4="$(m4 "$name")" '
      $1 == n { t[$2] = $3; r[$2] = $4; np[$2] = $6; meth = $7; if ($4 > rss) rss = $4 }
      function cell(x) { return x == "" ? "-" : sprintf(x >= 100 ? "%.0f" : x >= 10 ? "%.1f" : "%.2f", x) }
      function ratio(a, b) { return (a == "" || b == "" || b == 0) ? "-" : sprintf(a / b >= 0.1 ? "%.2f" : "%.2g", a / b) }
      END { printf "| %s | %s | %s | %s | %s | %s | %s | %.0f | %s | %s |\n", n, cell(t[1]), cell(np[1]),
              ratio(t[1], np[1]), cell(t[2]), cell(np[2]), ratio(t[2], np[2]), rss, meth, m4 }' "$tmp/rows"
  done
} >"$tmp/table.md"
mkdir -p "$(dirname "$OUT")"
cp "$tmp/table.md" "$OUT"
cat "$OUT"
