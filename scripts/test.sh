#!/usr/bin/env bash
# The one command that sets up and runs the tests from a fresh clone:
# installs the Debian packages, configures a Release build with warnings as
# errors, builds with all cores and runs ctest.
#
# Environment (all optional):
#   BUILD_DIR    build directory, relative to the repo root or absolute (default: build)
#   CMAKE_ARGS   extra arguments for the configure step, split on whitespace;
#                they come last, so they override the defaults, e.g.
#                BUILD_DIR=build-asan CMAKE_ARGS="-DTFR_SANITIZE=address;undefined -DCMAKE_BUILD_TYPE=RelWithDebInfo"
#   BUILD_TARGETS  build only these targets (split on whitespace; default: all)
#   CTEST_PARALLEL_LEVEL, CTEST_ARGS   passed on to ctest (CTEST_ARGS split on whitespace)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

build_dir="${BUILD_DIR:-build}"
read -r -a extra_args <<<"${CMAKE_ARGS:-}"
read -r -a ctest_args <<<"${CTEST_ARGS:-}"
read -r -a build_targets <<<"${BUILD_TARGETS:-}"
jobs="$(nproc 2>/dev/null || echo 2)"

"$root/scripts/install-deps.sh"
# The WebGPU provider and the lavapipe driver, so the webgpu tests run here
# too (quick when already installed).
"$root/scripts/setup-webgpu.sh"

echo "test.sh: configuring $build_dir ${extra_args[*]:-}"
# The webgpu tests take VK_DRIVER_FILES from the set-up script's env file
# (under TFR_WEBGPU_PREFIX when that is set, as for setup-webgpu.sh).
cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DTFR_WERROR=ON \
  -DTFR_WEBGPU_TEST_ENV_FILE="${TFR_WEBGPU_PREFIX:-/usr/local/lib/tenferro}/webgpu.env" "${extra_args[@]}"

echo "test.sh: building with $jobs jobs"
if [ "${#build_targets[@]}" -gt 0 ]; then
  cmake --build "$build_dir" --parallel "$jobs" --target "${build_targets[@]}"
else
  cmake --build "$build_dir" --parallel "$jobs"
fi

# Read the sanitizer setting back from the cache rather than from CMAKE_ARGS,
# so that a build dir configured earlier with sanitizers still gets the
# runtime options below.
sanitize="$(sed -n 's/^TFR_SANITIZE:[A-Z]*=//p' "$build_dir/CMakeCache.txt")"
if [ -n "$sanitize" ]; then
  # detect_leaks=1: LeakSanitizer is on by default on x86_64 Linux, but say so
  # explicitly. allocator_may_return_null=1: the library promises
  # TFR_ERR_OUT_OF_MEMORY when an allocation fails, and the tests check that
  # with impossible sizes; by default ASan aborts on such a request instead of
  # returning NULL, which would test ASan rather than the library.
  export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
  # The build uses -fno-sanitize-recover=all already; halt_on_error keeps that
  # true for anything built without it, and the stack trace says where.
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
  if [ -f "$root/tests/lsan.supp" ]; then
    export LSAN_OPTIONS="suppressions=$root/tests/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
  fi
  echo "test.sh: sanitizers '$sanitize': ASAN_OPTIONS=$ASAN_OPTIONS UBSAN_OPTIONS=$UBSAN_OPTIONS${LSAN_OPTIONS:+ LSAN_OPTIONS=$LSAN_OPTIONS}"
fi
case "$sanitize" in
  *thread*)
    # ThreadSanitizer with LLVM's OpenMP: Archer (an OMPT tool shipped with
    # libomp) tells TSan about OpenMP's barriers and tasks, and the runtime
    # itself, not instrumented, is left out of the reports. OpenBLAS (not
    # instrumented either) runs single-threaded.
    cc="$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$build_dir/CMakeCache.txt")"
    # (LLVM's lib folder, two levels above clang's resource folder)
    archer="$(cd "$("$cc" -print-resource-dir)/../.." && pwd)/libarcher.so"
    if [ ! -f "$archer" ]; then
      echo "test.sh: ThreadSanitizer needs Archer ($archer): install libomp-14-dev" >&2
      exit 1
    fi
    export OMP_TOOL_LIBRARIES="$archer"
    export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:ignore_noninstrumented_modules=1${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
    export OPENBLAS_NUM_THREADS=1
    echo "test.sh: ThreadSanitizer: TSAN_OPTIONS=$TSAN_OPTIONS OMP_TOOL_LIBRARIES=$archer"
    ;;
esac

# --no-tests=error: a build that registered no test must not pass as green.
echo "test.sh: running ctest in $build_dir"
ctest --test-dir "$build_dir" --output-on-failure --no-tests=error "${ctest_args[@]}"
