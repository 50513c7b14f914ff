#!/usr/bin/env bash
# The one command that sets up and runs the main job: installs the Debian
# packages and the WebGPU provider, builds tenferro in BUILD_DIR (default
# build/), prints `tenferro info`, then contracts a real tensor network from
# examples/instances/ with `tenferro contract` (path statistics, median time,
# GFLOP/s, peak memory, checksum).
#   usage: scripts/run.sh [INSTANCE.json] [contract options...]
#   default instance: examples/instances/lm_batch_likelihood_sentence_3_12d.json
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
build_dir="${BUILD_DIR:-build}"

"$root/scripts/install-deps.sh"
"$root/scripts/setup-webgpu.sh"

# Same configuration as scripts/test.sh, so running one after the other
# reuses the build.
cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DTFR_WERROR=ON
cmake --build "$build_dir" --parallel "$(nproc 2>/dev/null || echo 2)" --target tenferro_cli

instance="examples/instances/lm_batch_likelihood_sentence_3_12d.json"
if [ "$#" -gt 0 ] && [ "${1#-}" = "$1" ]; then
  instance="$1"
  shift
fi

# The library never picks a Vulkan driver itself; on a machine without a GPU
# the set-up script's lavapipe is the one to use.
webgpu_env="${TFR_WEBGPU_PREFIX:-/usr/local/lib/tenferro}/webgpu.env"
if [ -z "${VK_DRIVER_FILES:-}" ] && [ -f "$webgpu_env" ]; then
  # shellcheck disable=SC1090
  . "$webgpu_env"
fi

echo
echo "== tenferro info"
"$build_dir/tenferro" info
echo
echo "== tenferro contract $instance --repeat 3 $*"
"$build_dir/tenferro" contract "$instance" --repeat 3 "$@"
