#!/bin/sh
# Packs tenferro's binaries, with the shared libraries they need that a bare
# GPU machine may lack and the WebGPU provider, into one tar.xz, so that the
# GPU benchmarks run on a machine without a toolchain (bench/README.md).
#   usage: bench/gpu_bundle.sh BUILD_DIR OUT.tar.xz
#   EXTRA  more binaries to pack, relative to BUILD_DIR (e.g. "tests/test_webgpu_math")
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
         bench/tenferro-bench-webgpu-accuracy bench/tenferro-bench-webgpu-gemm \
         bench/tenferro-bench-webgpu-elementwise ${EXTRA:-}; do
  [ -x "$build/$f" ] && cp "$build/$f" "$stage/bin/"
done
# Every non-glibc library the binaries load.
for b in "$stage"/bin/*; do
  ldd "$b" | awk '/=> \//{print $3}'
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
