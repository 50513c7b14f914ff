#!/bin/sh
# The einsum comparison on a GPU: every instance of examples/instances/
# contracted along its stored opt_flops path by `tenferro contract --backend
# webgpu` and by PyTorch on CUDA (bench/peers/torch_einsum.py --device cuda:
# one torch.einsum per pair, TF32 off), in one dtype (default f32: the
# webgpu backend computes f32 and c64; a complex instance would take c64).
# Prints a markdown table and writes it to bench/results/einsum_gpu.md with
# the date, commit, device, versions.
#   usage: bench/einsum_gpu.sh [INSTANCE.json ...]   (default: all of them)
# Environment: BIN (the tenferro binary, e.g. from bench/gpu_bundle.sh's
# bundle; default: build it in BUILD_DIR, default build), PY (python with
# torch, default python3), DTYPE (default f32), REPEAT (timed runs, default
# 20), OUT (default bench/results/einsum_gpu.md).
#
# Both sides run for at least 1 s untimed before timing (ours: --warmup N
# from a first run's time; torch: its own 0.3 s plus one run): an H200 left
# idle lowers its clock and raises it only under sustained load, and with 3
# warm-up runs str_nw_mera_closed_120 measured 20 ms once instead of 6.
# `result` is our result's checksum (sum of the elements): 0, inf or nan
# there means the instance's result is not representable in DTYPE (its f64
# value underflows or overflows), which the issue's goal leaves out.
set -eu
cd "$(dirname "$0")/.."
DTYPE=${DTYPE:-f32}
REPEAT=${REPEAT:-20}
OUT=${OUT:-bench/results/einsum_gpu.md}
if [ -n "${BIN:-}" ]; then
  bin=$BIN
else
  BUILD_DIR=${BUILD_DIR:-build}
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$BUILD_DIR" -j"$(nproc)" --target tenferro_cli >/dev/null
  bin="$BUILD_DIR/tenferro"
fi
py=${PY:-python3}
[ "$#" -eq 0 ] && set -- examples/instances/*.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in "$@"; do
  name=$(basename "$f" .json)
  c="$bin contract $f --backend webgpu --dtype $DTYPE --path opt_flops"
  $c --repeat 1 >"$tmp/probe"
  probe=$(sed -n 's/^time *median \([0-9.]*\) ms.*/\1/p' "$tmp/probe")
  [ -s "$tmp/device" ] || sed -n 's/^device *//p' "$tmp/probe" >"$tmp/device"
  w=$(awk -v t="$probe" 'BEGIN { w = int(1000 / (t > 0 ? t : 1)); if (w > 2000) w = 2000; if (w < 3) w = 3; print w }')
  o=$($c --warmup "$w" --repeat "$REPEAT" | awk '
    /^time/ { for (i = 1; i <= NF; i++) if ($i == "median") t = $(i + 1) }
    /^result/ { for (i = 1; i <= NF; i++) if ($i == "sum") { s = $(i + 1); gsub(",", "", s) } }
    END { print t, s }')
  p=$("$py" bench/peers/torch_einsum.py "$f" --threads 1 --device cuda --dtype "$DTYPE" \
        --repeat "$REPEAT" --budget 30 | sed -n 's/.* median \([0-9.]*\) ms.*/\1/p')
  echo "$name $o $p" >>"$tmp/rows"
  echo "$name: ours (ms checksum) $o, torch $p ms" >&2
done
dev=$(cat "$tmp/device" 2>/dev/null || true)
{
  echo "# einsum instances on the GPU: tenferro (webgpu) vs PyTorch (CUDA)"
  echo
  echo "$(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), device ${dev:-?},"\
    "torch $("$py" -c 'import torch; print(torch.__version__)'), dtype $DTYPE."
  echo
  echo "Each instance contracted along its stored opt_flops path in $DTYPE (operands: seeded"\
    "uniform values in [-1, 1), each side its own). ours: \`tenferro contract --backend"\
    "webgpu --dtype $DTYPE --path opt_flops\`, median of $REPEAT runs after at least 1 s of warm-up"\
    "runs, each run ending when its result is on the device (tfr_session_synchronize); torch:"\
    "one torch.einsum per pair on CUDA, TF32 off, median of $REPEAT runs, each ending with"\
    "torch.cuda.synchronize(), after its warm-up. Ratio = ours / torch (< 1: ours faster)."\
    "result: our checksum (0, inf or nan: the $DTYPE result is not representable)."
  echo
  echo "| instance | ours ms | torch ms | ours / torch | result |"
  echo "|---|---:|---:|---:|---:|"
  awk '{ r = ($4 > 0) ? sprintf("%.2f", $2 / $4) : "-"
         printf "| %s | %.3f | %.3f | %s | %s |\n", $1, $2, $4, r, $3 }' "$tmp/rows"
} >"$tmp/table.md"
mkdir -p "$(dirname "$OUT")"
cp "$tmp/table.md" "$OUT"
cat "$OUT"
