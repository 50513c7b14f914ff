#!/bin/sh
# One command for the GPU comparison (run it on the GPU machine): runs
# tenferro-bench on the webgpu backend and the PyTorch peer on the same cases
# in the same run, prints the side-by-side table and writes it to
# bench/results/gpu.md (with device, commit and versions).
#   usage: bench/run_gpu.sh [CASE ...]          (default: the suite below)
#   TENFERRO_BENCH  a tenferro-bench binary to use (default: build it in
#                   $BUILD_DIR, which needs the toolchain)
#   OUT             where the table goes (default bench/results/gpu.md)
#   TENFERRO_BENCH_FLAGS  more tenferro-bench options (e.g. --stats)
set -eu
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
OUT=${OUT:-bench/results/gpu.md}
bench=${TENFERRO_BENCH:-}
if [ -z "$bench" ]; then
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DTFR_BUILD_BENCH=ON >/dev/null
  cmake --build "$BUILD_DIR" -j"$(nproc)" --target tenferro-bench >/dev/null
  bench="$BUILD_DIR/bench/tenferro-bench"
fi
if [ "$#" -eq 0 ]; then
  set -- add:f32:268435456 multiply:f32:268435456 exp:f32:268435456 \
    sum_all:f32:268435456 max_all:f32:268435456 sum_axis0:f32:16384x16384 \
    sum_last:f32:16384x16384 transpose:f32:8192x8192 compare_select:f32:67108864 \
    add:f32:1024 exp:f32:1024 \
    chain5_unfused:f32:67108864 chain5_fused:f32:67108864 \
    matmul:f32:1024x1024 matmul:f32:4096x4096 matmul:f32:8192x8192 matmul:c64:4096x4096 \
    matmul_lhsT:f32:4096x4096 bmm:f32:64x256x256 rank4:f32:64x64x64x64 gemv:f32:8192x8192 \
    gather_rows:f32:1048576x64 scatter_add_rows:f32:1048576x64
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bench" --backend webgpu ${TENFERRO_BENCH_FLAGS:-} --json "$tmp/ours.json" "$@" || true
python3 bench/peers/torch_gpu.py --cases --json "$tmp/torch.json" "$@"
where=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["where"])' "$tmp/ours.json" 2>/dev/null || echo '?')
peer=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("PyTorch", d["torch"], "on", d["device"])' "$tmp/torch.json")
commit=${TENFERRO_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo "?")}
title="GPU: tenferro $commit, $where, vs $peer (TF32 off), $(date -u +%Y-%m-%d). Time per op over batches of back-to-back ops (both sides)."
mkdir -p "$(dirname "$OUT")"
python3 bench/compare.py "$tmp/ours.json" "$tmp/torch.json" --peer-name torch --title "$title" --out "$OUT"
