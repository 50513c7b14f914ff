#!/usr/bin/env bash
# Installs, from Debian 12's own archive and nothing else, everything needed to
# build and test tenferro. Safe to run again: when every package is already
# installed it never touches apt (so it is quick and works offline).
#
# Usage: scripts/install-deps.sh [--clang] [--torch]   (as root, or as a user with sudo)
#   --clang  also clang-14 with its sanitizer, libFuzzer and OpenMP runtimes,
#            for the fuzz targets (scripts/fuzz.sh) and the ThreadSanitizer
#            build (.ci/run)
#   --torch  also Debian's PyTorch (python3-torch, 1.13, CPU; about 200
#            packages), so that the Python module's DLPack tests with torch
#            run rather than skip (.ci/run)
set -euo pipefail

# python3 + python3-numpy: the tests make their reference data with Debian's
# numpy through /usr/bin/python3 (not whatever python3 is first on PATH).
# python3-dev + python3-pytest: the Python module (python/) and its tests.
# libopenblas0-pthread: the threaded OpenBLAS, so that libblas.so.3 (used by
# numpy) and -lopenblas both resolve to it rather than to the reference BLAS.
# libmetis-dev: METIS, the graph partitioner of the `partition` path optimiser.
# libopenmpi-dev, openmpi-bin: Open MPI, for tenferro_mpi and `mpirun ... tenferro
# contract` (slices across ranks) and their tests.
packages=(
  build-essential
  cmake
  pkg-config
  libcmocka-dev
  libcjson-dev
  libopenblas-dev
  libopenblas0-pthread
  libmetis-dev
  python3
  python3-numpy
  libopenmpi-dev
  openmpi-bin
  python3-dev
  python3-pytest
)
# clang-14, libclang-rt-14-dev (libFuzzer, the sanitizer runtimes) and
# libomp-14-dev (LLVM's OpenMP, with Archer, its ThreadSanitizer annotations):
# only the fuzz targets and the ThreadSanitizer build need them.
for arg in "$@"; do
  case "$arg" in
    --clang) packages+=(clang-14 libclang-rt-14-dev libomp-14-dev) ;;
    --torch) packages+=(python3-torch) ;;
    *) echo "install-deps: unknown option '$arg' (--clang, --torch)" >&2; exit 2 ;;
  esac
done

missing=()
for pkg in "${packages[@]}"; do
  # db:Status-Status is "installed" only for a fully configured package; a
  # half-installed or removed-with-config package counts as missing.
  state="$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)"
  if [ "$state" != "installed" ]; then
    missing+=("$pkg")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
else
  echo "install-deps: installing ${missing[*]}"
  # Root needs no sudo (CI and fresh containers have none); a normal user
  # falls back to sudo when it exists.
  as_root=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      as_root=(sudo)
    else
      echo "install-deps: not root and no sudo; install as root: ${missing[*]}" >&2
      exit 1
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  # Package lists of a fresh machine are empty or stale: update once first.
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
  # --no-install-recommends keeps the install small and fast; everything the
  # build needs is a hard dependency of the packages named above.
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
    --no-install-recommends -o Dpkg::Use-Pty=0 "${missing[@]}"
fi

# numpy (through libblas.so.3) should use OpenBLAS too: with the reference BLAS
# the reference-data scripts still work but are much slower. Only a warning,
# since results are correct either way.
multiarch="$(gcc -print-multiarch 2>/dev/null || true)"
[ -n "$multiarch" ] || multiarch="$(uname -m)-linux-gnu"
alt="libblas.so.3-${multiarch}"
if current="$(update-alternatives --display "$alt" 2>/dev/null)"; then
  target="$(printf '%s\n' "$current" | sed -n 's/.*link currently points to //p')"
  case "$target" in
    *openblas*) echo "install-deps: libblas.so.3 -> $target" ;;
    *) echo "install-deps: WARNING: libblas.so.3 points to '${target:-?}', not OpenBLAS" \
            "(fix: update-alternatives --config $alt)" >&2 ;;
  esac
else
  echo "install-deps: WARNING: no alternative $alt; libblas.so.3 may not be OpenBLAS" >&2
fi
