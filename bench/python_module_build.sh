#!/bin/sh
# Builds the Python module (python/src) without CMake, against the static
# library and the shared libraries of a bench/gpu_bundle.sh bundle, for the
# python3 of a machine that has gcc and that Python's headers but not our
# build's dependencies (the GPU machine: Python 3.12 with numpy, PyTorch and
# JAX). Used for the runs of bench/python_overhead.py and python/tests there
# (bench/results/python.md).
#   usage: bench/python_module_build.sh LIBTENFERRO_A BUNDLE_LIB_DIR OUT_DIR
#   then:  LD_LIBRARY_PATH=BUNDLE_LIB_DIR PYTHONPATH=OUT_DIR python3 -m pytest python/tests
# LIBTENFERRO_A is build/libtenferro.a of the build the bundle was made from.
set -eu
lib=${1:?usage: python_module_build.sh LIBTENFERRO_A BUNDLE_LIB_DIR OUT_DIR}
blib=${2:?usage: python_module_build.sh LIBTENFERRO_A BUNDLE_LIB_DIR OUT_DIR}
out=${3:?usage: python_module_build.sh LIBTENFERRO_A BUNDLE_LIB_DIR OUT_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
py=${PYTHON:-python3}
pyinc=$("$py" -c "import sysconfig; print(sysconfig.get_paths()['include'])")
ext=$("$py" -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
# numpy's C API when numpy's headers are there (python/CMakeLists.txt does the same).
npflags=$("$py" -c "import numpy, os; i = numpy.get_include(); \
print('-DTFRPY_HAVE_NUMPY_CAPI=1 -I' + i if os.path.exists(i + '/numpy/arrayobject.h') else '')" \
  2>/dev/null || true)
mkdir -p "$out"
# shellcheck disable=SC2086  # npflags is a list of flags
gcc -O2 -std=c11 -shared -fPIC -fvisibility=hidden -DPY_SSIZE_T_CLEAN $npflags \
  -I"$root/include" -I"$pyinc" "$root"/python/src/*.c -o "$out/tenferro$ext" "$lib" \
  "$blib/libopenblas.so.0" "$blib/libmetis.so.5" -fopenmp -lm -lmvec -ldl -lpthread
echo "python_module_build.sh: $out/tenferro$ext"
