#!/bin/sh
# Packs tenferro's binaries, with the shared libraries they need that a bare
# GPU machine may lack and the WebGPU provider, into one tar.xz, so that the
# GPU benchmarks run on a machine without a toolchain (bench/README.md).
#   usage: bench/gpu_bundle.sh BUILD_DIR OUT.tar.xz
#   EXTRA  more binaries to pack, relative to BUILD_DIR (e.g. "tests/test_webgpu_math")
#   MPI=1  also Debian's Open MPI launcher (bin/mpirun, bin/orted), its components,
#          help texts and configuration, and bin/mpi.env, which points Open MPI at them:
#          . /tmp/t/bin/mpi.env && /tmp/t/bin/mpirun -np 4 /tmp/t/bin/tenferro ...
#          (TFR_BUNDLE names the folder when it is not /tmp/t)
# On the GPU machine:  mkdir -p /tmp/t && tar xJf OUT.tar.xz -C /tmp/t &&
#   export LD_LIBRARY_PATH=/tmp/t/lib TFR_WEBGPU_LIBRARY=/tmp/t/lib/libwebgpu_wrapper.so
# then run /tmp/t/bin/<tool>. The C library, libm and libmvec come from that
# machine (the binaries need glibc >= 2.35 there).
set -eu
build=${1:?usage: gpu_bundle.sh BUILD_DIR OUT.tar.xz}
out=${2:?usage: gpu_bundle.sh BUILD_DIR OUT.tar.xz}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib"
for f in tenferro bench/tenferro-bench bench/tenferro-bench-webgpu-runtime \
         bench/tenferro-bench-webgpu-accuracy bench/tenferro-bench-webgpu-accuracy-f64 \
         bench/tenferro-bench-webgpu-gemm \
         bench/tenferro-bench-webgpu-elementwise ${EXTRA:-}; do
  [ -x "$build/$f" ] && cp "$build/$f" "$stage/bin/"
done
if [ "${MPI:-0}" = 1 ]; then
  # Open MPI finds its parts through its installation directories, which the
  # OPAL_* variables of mpi.env move (ompi_info --path all lists them here).
  ompi=/usr/lib/x86_64-linux-gnu/openmpi/lib
  pmix=/usr/lib/x86_64-linux-gnu/pmix2/lib
  cp -L /usr/bin/orterun "$stage/bin/mpirun"
  cp -L /usr/bin/orted "$stage/bin/"
  mkdir -p "$stage/lib/openmpi3" "$stage/lib/pmix" "$stage/share" "$stage/etc"
  cp -L "$ompi"/openmpi3/*.so "$stage/lib/openmpi3/"
  cp -L "$pmix"/pmix/*.so "$stage/lib/pmix/"
  cp -rL /usr/share/openmpi "$stage/share/openmpi"
  cp -rL /etc/openmpi "$stage/etc/openmpi"
  cat > "$stage/bin/mpi.env" <<'ENV'
t=${TFR_BUNDLE:-/tmp/t}
export OPAL_PREFIX="$t" OPAL_EXEC_PREFIX="$t" OPAL_BINDIR="$t/bin" OPAL_LIBDIR="$t/lib" \
  OPAL_PKGLIBDIR="$t/lib/openmpi3" OPAL_DATAROOTDIR="$t/share" OPAL_DATADIR="$t/share" \
  OPAL_PKGDATADIR="$t/share/openmpi" OPAL_SYSCONFDIR="$t/etc/openmpi" \
  PMIX_MCA_mca_base_component_path="$t/lib/pmix" \
  LD_LIBRARY_PATH="$t/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  OMPI_MCA_btl_vader_single_copy_mechanism=none
ENV
fi
# Every non-glibc library the binaries (and Open MPI's components) load.
for b in "$stage"/bin/* $(find "$stage/lib" -name '*.so' 2>/dev/null); do
  ldd "$b" 2>/dev/null | awk '/=> \//{print $3}'
done | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so.*|libm.so.*|libmvec.so.*|libpthread.so.*|libdl.so.*|ld-linux*) ;;
    *) cp -L "$lib" "$stage/lib/" ;;
  esac
done
provider=${TFR_WEBGPU_LIBRARY:-/usr/local/lib/tenferro/libwebgpu_wrapper.so}
cp -L "$provider" "$stage/lib/libwebgpu_wrapper.so"
tar -C "$stage" -cJf "$out" .
echo "gpu_bundle.sh: $(du -h "$out" | cut -f1) in $out: $(ls "$stage/bin" | tr '\n' ' ')"
