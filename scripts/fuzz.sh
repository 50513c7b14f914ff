#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/, clang-14, AddressSanitizer +
# UndefinedBehaviorSanitizer), replays each seed corpus through ctest, then
# fuzzes each target for a while on a scratch copy of its corpus. New inputs
# stay in the scratch folder; a crash stops the run with libFuzzer's report
# and the input that caused it (crash-* under the scratch folder).
#
# Environment (all optional):
#   FUZZ_SECONDS   seconds per target (default 60)
#   FUZZ_TARGETS   which targets (default: every fuzz_<name> the build made)
#   BUILD_DIR      build directory (default: build-fuzz)
#   FUZZ_WORK      scratch folder for corpora and findings (default: a new temporary one)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
build_dir="${BUILD_DIR:-build-fuzz}"
seconds="${FUZZ_SECONDS:-60}"
jobs="$(nproc 2>/dev/null || echo 2)"

"$root/scripts/install-deps.sh" --clang
CC=clang-14 cmake -S "$root" -B "$build_dir" -DTFR_FUZZ=ON -DTFR_BUILD_TESTS=OFF \
  -DTFR_BUILD_BENCH=OFF -DTFR_WEBGPU=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTFR_WERROR=ON
cmake --build "$build_dir" --parallel "$jobs"

# allocator_may_return_null=1: the library answers an impossible size with
# TFR_ERR_OUT_OF_MEMORY, which is what the targets test, not ASan's abort.
# max_allocation_size_mb=2048: a larger request fails (NULL) as on a machine
# without the memory, and the library's TFR_ERR_OUT_OF_MEMORY path runs;
# libFuzzer's own limit on one allocation (-malloc_limit_mb, below) is set
# above it, so that such a valid but huge request is not reported as a
# finding (the fuzz_api input oom-89f4d6d72727cca7 asks reduce_max for 16 GiB).
export ASAN_OPTIONS="allocator_may_return_null=1:detect_leaks=1:max_allocation_size_mb=2048${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export OMP_NUM_THREADS=1

echo "fuzz.sh: replaying the seed corpora"
ctest --test-dir "$build_dir" --output-on-failure --no-tests=error

work="${FUZZ_WORK:-$(mktemp -d)}"
targets="${FUZZ_TARGETS:-$(cd "$build_dir/tests/fuzz" && ls fuzz_* | grep -v '\.' | sed 's/^fuzz_//')}"
for t in $targets; do
  mkdir -p "$work/$t"
  cp -n "$root/tests/fuzz/corpus/$t/"* "$work/$t/" 2>/dev/null || true
  echo "fuzz.sh: fuzz_$t for ${seconds} s (corpus $work/$t)"
  # -timeout: one input may take at most 10 s; -rss_limit_mb: 4 GiB;
  # -close_fd_mask=2: the readers' error messages are not shown (libFuzzer
  # and the sanitizers report on a copy of stderr).
  status=0
  "$build_dir/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -malloc_limit_mb=4096 \
    -print_final_stats=1 -artifact_prefix="$work/$t/" -close_fd_mask=2 "$work/$t" \
    >"$work/$t.log" 2>&1 || status=$?
  grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb)' "$work/$t.log" || true
  if [ "$status" -ne 0 ]; then
    tail -n 60 "$work/$t.log"
    echo "fuzz.sh: fuzz_$t found a failure; the input is under $work/$t/ (crash-*, leak-*," \
         "timeout-*, oom-*); rerun it with $build_dir/tests/fuzz/fuzz_$t <file>" >&2
    exit 1
  fi
done
echo "fuzz.sh: every target ran ${seconds} s without a finding"
