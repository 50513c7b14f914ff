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
#   FUZZ_FORK      run N fuzzing processes per target (libFuzzer's -fork=N; a
#                  finding still stops the run); default: one process
#   FUZZ_BIN       a folder holding fuzz_<name> binaries built elsewhere (e.g.
#                  bench/gpu_bundle.sh's bin/ with EXTRA="tests/fuzz/fuzz_api ..."):
#                  nothing is installed or built and the corpora are not replayed
#                  first; FUZZ_TARGETS then defaults to those binaries
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
build_dir="${BUILD_DIR:-build-fuzz}"
seconds="${FUZZ_SECONDS:-60}"
jobs="$(nproc 2>/dev/null || echo 2)"
bin="${FUZZ_BIN:-$build_dir/tests/fuzz}"

if [ -z "${FUZZ_BIN:-}" ]; then
  "$root/scripts/install-deps.sh" --clang
  CC=clang-14 cmake -S "$root" -B "$build_dir" -DTFR_FUZZ=ON -DTFR_BUILD_TESTS=OFF \
    -DTFR_BUILD_BENCH=OFF -DTFR_WEBGPU=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTFR_WERROR=ON
  cmake --build "$build_dir" --parallel "$jobs"
fi

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

if [ -z "${FUZZ_BIN:-}" ]; then
  echo "fuzz.sh: replaying the seed corpora"
  ctest --test-dir "$build_dir" --output-on-failure --no-tests=error
fi

work="${FUZZ_WORK:-$(mktemp -d)}"
targets="${FUZZ_TARGETS:-$(cd "$bin" && ls fuzz_* | grep -v '\.' | sed 's/^fuzz_//')}"
# -fork=N: N processes; -ignore_*=0: any finding stops the run, as with one.
fork=()
if [ -n "${FUZZ_FORK:-}" ]; then
  fork=(-fork="$FUZZ_FORK" -ignore_crashes=0 -ignore_ooms=0 -ignore_timeouts=0)
fi
for t in $targets; do
  mkdir -p "$work/$t"
  cp -n "$root/tests/fuzz/corpus/$t/"* "$work/$t/" 2>/dev/null || true
  echo "fuzz.sh: fuzz_$t for ${seconds} s (corpus $work/$t)"
  # -timeout: one input may take at most 10 s; -rss_limit_mb: 4 GiB;
  # -close_fd_mask=2: the readers' error messages are not shown (libFuzzer
  # and the sanitizers report on a copy of stderr).
  status=0
  "$bin/fuzz_$t" ${fork[@]+"${fork[@]}"} -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
    -malloc_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$work/$t/" -close_fd_mask=2 "$work/$t" \
    >"$work/$t.log" 2>&1 || status=$?
  # One process: its final stats; forked: the last progress line (the total).
  grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb)' "$work/$t.log" ||
    grep -E '^#[0-9]+' "$work/$t.log" | tail -n 1 || true
  if [ "$status" -ne 0 ]; then
    tail -n 60 "$work/$t.log"
    echo "fuzz.sh: fuzz_$t found a failure; the input is under $work/$t/ (crash-*, leak-*," \
         "timeout-*, oom-*); rerun it with $bin/fuzz_$t <file>" >&2
    exit 1
  fi
done
echo "fuzz.sh: every target ran ${seconds} s without a finding"
