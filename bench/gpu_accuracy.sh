#!/bin/sh
# The WGSL math accuracy sweep on a GPU machine (docs/accuracy.md): every f32
# bit pattern of each unary function and the dense grids of the binary ones,
# one function per process so that a time limit cuts the list short rather
# than losing it. Appends each function's table to OUT_LOG and its JSON to
# OUT_JSON.
#   usage: bench/gpu_accuracy.sh BENCH_BINARY OUT_LOG OUT_JSON [--step N] [function ...]
set -u
bin=$1 log=$2 json=$3
shift 3
step=1
if [ "${1:-}" = "--step" ]; then step=$2; shift 2; fi
[ "$#" -gt 0 ] || set -- exp_f32 expm1_f32 log_f32 log1p_f32 sin_f32 cos_f32 tan_f32 tanh_f32 \
  sinh_f32 cosh_f32 asin_f32 acos_f32 atan_f32 asinh_f32 acosh_f32 atanh_f32 sqrt_f32 \
  rsqrt_f32 cbrt_f32 erf_f32 erfc_f32 logistic_f32 pow_f32 atan2_f32 div_f32 fmod_f32
tmp=$(mktemp)
for f in "$@"; do
  start=$(date +%s)
  "$bin" --step "$step" --only "$f" --json "$tmp" >>"$log" 2>&1
  echo "# $f: exit $?, $(( $(date +%s) - start )) s" >>"$log"
  cat "$tmp" >>"$json" 2>/dev/null
  echo >>"$json"
done
rm -f "$tmp"
