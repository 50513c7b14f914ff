#!/bin/sh
# One command for the cpu comparison: builds, runs tenferro-bench and the
# numpy peer on the same cases in the same run, prints the side-by-side table
# and writes it to bench/results/cpu.md (with machine, commit and versions).
#   usage: bench/run_cpu.sh [CASE ...]     (default: the tenferro-bench suite)
set -eu
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
THREADS=${THREADS:-$(nproc)}
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DTFR_BUILD_BENCH=ON >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)" --target tenferro-bench >/dev/null
py=python3
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import numpy' 2>/dev/null && py=/usr/bin/python3
if [ "$#" -eq 0 ]; then
  set -- add:f64:4096x4096 add:f32:4096x4096 multiply:f64:4096x4096 exp:f64:4096x4096 \
    exp:f32:4096x4096 sum_all:f64:4096x4096 sum_axis0:f64:4096x4096 sum_last:f64:4096x4096 \
    max_all:f64:4096x4096 transpose:f64:4096x4096 convert_f32:f64:4096x4096 \
    compare_select:f64:4096x4096 add:f64:1000 exp:f64:1000 \
    chain5_unfused:f64:10000000 chain5_fused:f64:10000000 \
    matmul:f64:512x512 matmul:f64:2048x2048 matmul:c128:512x512 matmul:c128:2048x2048 \
    matmul_lhsT:f64:2048x2048 bmm:f64:32x64x64 rank4:f64:48x48x48x48 gemv:f64:4096x4096
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# numpy's OpenBLAS/OpenMP pools get the same thread count as ours.
export OMP_NUM_THREADS="$THREADS" OPENBLAS_NUM_THREADS="$THREADS"
"$BUILD_DIR/bench/tenferro-bench" --threads "$THREADS" --json "$tmp/ours.json" "$@"
"$py" bench/peers/numpy_cpu.py --json "$tmp/numpy.json" "$@" 2>/dev/null
blas=$(update-alternatives --display libblas.so.3-x86_64-linux-gnu 2>/dev/null | sed -n 's/.*link currently points to //p')
title="CPU: tenferro $(git rev-parse --short HEAD 2>/dev/null || echo '?') vs numpy $("$py" -c 'import numpy; print(numpy.__version__)'), $(date -u +%Y-%m-%d), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $THREADS threads, numpy BLAS: ${blas:-unknown}"
mkdir -p bench/results
"$py" bench/compare.py "$tmp/ours.json" "$tmp/numpy.json" --title "$title" --out bench/results/cpu.md
