#!/bin/sh
# The einsum comparison on the cpu: every instance of examples/instances/
# contracted along its stored opt_flops path by `tenferro contract` and by
# the peers users pick instead: numpy (bench/peers/numpy_einsum.py) and,
# where torch is importable, PyTorch CPU (bench/peers/torch_einsum.py), at
# each thread count, in one run. Prints a markdown table and writes it to
# bench/results/einsum_cpu.md with the date, commit, machine, versions and
# the load average.
#   usage: bench/einsum_cpu.sh [INSTANCE.json ...]   (default: all of them)
# Environment: BUILD_DIR (default build), BIN (a tenferro binary to use
# instead of building one, e.g. from bench/gpu_bundle.sh's bundle), THREADS
# (default "1 2"), PEERS (default: numpy, and torch when importable), PY (the
# python, default /usr/bin/python3 when it has numpy), REPEAT (most timed
# runs per measurement, default 5), BUDGET (seconds one measurement may take
# before it stops repeating, default 30; a run longer than that is timed
# once), OUT (default bench/results/einsum_cpu.md).
#
# Ours: `tenferro contract INSTANCE --path opt_flops --warmup W --repeat N
# --threads T`, its "median" and "peak RSS" lines; a first run of --repeat 1
# sets N and W (untimed runs for at least 0.3 s: a fresh process's first
# runs pay for page faults, thread start-up and OpenBLAS's threads, which spin
# for about 0.1 s after the library loads, whatever their count is set to). Every process sees OMP_NUM_THREADS = OPENBLAS_NUM_THREADS = T;
# ours takes --threads T, torch torch.set_num_threads(T).
set -eu
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
THREADS=${THREADS:-"1 2"}
REPEAT=${REPEAT:-5}
BUDGET=${BUDGET:-30}
OUT=${OUT:-bench/results/einsum_cpu.md}
if [ -n "${BIN:-}" ]; then
  bin=$BIN
else
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$BUILD_DIR" -j"$(nproc)" --target tenferro_cli >/dev/null
  bin="$BUILD_DIR/tenferro"
fi
py=${PY:-python3}
[ -z "${PY:-}" ] && [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import numpy' 2>/dev/null && py=/usr/bin/python3
if [ -z "${PEERS:-}" ]; then
  PEERS=numpy
  "$py" -c 'import torch' 2>/dev/null && PEERS="numpy torch"
fi
[ "$#" -eq 0 ] && set -- examples/instances/*.json

# ours INSTANCE T -> "median_ms rss_mib"
ours() {
  probe=$("$bin" contract "$1" --path opt_flops --repeat 1 --threads "$2" | sed -n 's/^time *median \([0-9.]*\) ms.*/\1/p')
  n=$(awk -v t="$probe" -v b="$BUDGET" -v r="$REPEAT" \
    'BEGIN { n = int(b * 1000 / (t > 0 ? t : 1)); if (n > r) n = r; if (n < 1) n = 1; print n }')
  w=$(awk -v t="$probe" 'BEGIN { w = int(300 / (t > 0 ? t : 1)); if (w > 1000) w = 1000; if (w < 1) w = 1; print w }')
  "$bin" contract "$1" --path opt_flops --warmup "$w" --repeat "$n" --threads "$2" | awk '
    /^time/ { for (i = 1; i <= NF; i++) if ($i == "median") t = $(i + 1) }
    /^memory/ { for (i = 1; i <= NF; i++) if ($i == "RSS") r = $(i + 1) }
    END { print t, r }'
}

# peer NAME INSTANCE T -> "median_ms method" (method: numpy's einsum/pairs, torch's "pairs")
peer() {
  case "$1" in
    numpy) "$py" bench/peers/numpy_einsum.py "$2" --repeat "$REPEAT" --budget "$BUDGET" ;;
    torch) "$py" bench/peers/torch_einsum.py "$2" --threads "$3" --repeat "$REPEAT" --budget "$BUDGET" ;;
  esac | awk -v p="$1" '
    { m = "pairs"; for (i = 1; i <= NF; i++) { if ($i == "method") m = $(i + 1); if ($i == "median") t = $(i + 1) } }
    END { print t, m }'
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
for f in "$@"; do
  name=$(basename "$f" .json)
  for t in $THREADS; do
    export OMP_NUM_THREADS="$t" OPENBLAS_NUM_THREADS="$t"
    o=$(ours "$f" "$t")
    echo "$name $t ours $o" >>"$tmp/rows"
    line="$name threads $t: ours (ms rss) $o"
    for p in $PEERS; do
      r=$(peer "$p" "$f" "$t")
      echo "$name $t $p $r" >>"$tmp/rows"
      line="$line, $p (ms method) $r"
    done
    echo "$line" >&2
  done
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

versions="numpy $("$py" -c 'import numpy; print(numpy.__version__)')"
case " $PEERS " in *" torch "*) versions="$versions, torch $("$py" -c 'import torch; print(torch.__version__)')" ;; esac
{
  echo "# einsum instances on the cpu: tenferro vs $(echo "$PEERS" | sed 's/ / and /g')"
  echo
  echo "$(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'),"\
    "$(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')),"\
    "$versions, BLAS $(update-alternatives --display libblas.so.3-x86_64-linux-gnu 2>/dev/null | sed -n 's/.*link currently points to //p' || echo '?');"\
    "load average $load_start at the start, $load_end at the end."
  echo
  echo "Each instance contracted along its stored opt_flops path, in its own dtype; median of up to"\
    "$REPEAT timed runs (one when a run takes longer than ${BUDGET} s), after warm-up runs (ours: at least 0.3 s of them; the peers: one)."\
    "T = threads (ours: --threads T; torch: set_num_threads(T); every process OMP_NUM_THREADS ="\
    "OPENBLAS_NUM_THREADS = T). numpy: np.einsum(optimize=path) on the whole expression when it"\
    "has at most 52 labels, else one np.einsum per pair; torch: one torch.einsum per pair."\
    "Ratio = ours / peer (< 1: ours faster). Peak RSS: the whole \`tenferro contract\` process,"\
    "operands included."
  echo
  head="| instance |"
  rule="|---|"
  for t in $THREADS; do
    head="$head ours ${t}T ms |"
    rule="$rule---:|"
    for p in $PEERS; do
      head="$head $p ${t}T ms | ours/$p ${t}T |"
      rule="$rule---:|---:|"
    done
  done
  echo "$head peak RSS ours MiB | numpy method |"
  echo "$rule---:|---|"
  for f in "$@"; do
    name=$(basename "$f" .json)
    awk -v n="$name" -v threads="$THREADS" -v peers="$PEERS" '
      $1 == n { v[$2, $3] = $4; if ($3 == "ours" && $5 > rss) rss = $5; if ($3 == "numpy") meth = $5 }
      function cell(x) { return x == "" ? "-" : sprintf(x >= 100 ? "%.0f" : x >= 10 ? "%.1f" : "%.2f", x) }
      function ratio(a, b) { return (a == "" || b == "" || b == 0) ? "-" : sprintf(a / b >= 0.1 ? "%.2f" : "%.2g", a / b) }
      END {
        nt = split(threads, T, " "); np = split(peers, P, " ")
        line = "| " n " |"
        for (i = 1; i <= nt; i++) {
          o = v[T[i], "ours"]; line = line " " cell(o) " |"
          for (j = 1; j <= np; j++) line = line " " cell(v[T[i], P[j]]) " | " ratio(o, v[T[i], P[j]]) " |"
        }
        printf "%s %.0f | %s |\n", line, rss, meth == "" ? "-" : meth
      }' "$tmp/rows"
  done
} >"$tmp/table.md"
mkdir -p "$(dirname "$OUT")"
cp "$tmp/table.md" "$OUT"
cat "$OUT"
