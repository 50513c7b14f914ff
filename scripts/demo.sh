#!/usr/bin/env bash
# The one command that sets up and runs the main job: installs the Debian
# packages, builds tenferro in BUILD_DIR (default build/), then runs the CLI's
# `info` (version, backends, threads) and `demo`. Arguments are passed on to
# `tenferro demo`.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
build_dir="${BUILD_DIR:-build}"

"$root/scripts/install-deps.sh"

# Same configuration as scripts/test.sh, so that running one after the other
# reuses the build instead of rebuilding everything.
cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DTFR_WERROR=ON
cmake --build "$build_dir" --parallel "$(nproc 2>/dev/null || echo 2)" --target tenferro_cli

echo
echo "== tenferro info"
"$build_dir/tenferro" info
echo
echo "== tenferro demo${*:+ $*}"
"$build_dir/tenferro" demo "$@"
