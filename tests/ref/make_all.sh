#!/bin/sh
# Runs every tests/ref/gen_*.py with numpy, writing reference data into $1.
# Debian's python3 (with python3-numpy) is used: /usr/bin/python3 first,
# then whatever python3 is on PATH.
set -eu
out="$1"
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$out"
py=python3
if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import numpy' 2>/dev/null; then py=/usr/bin/python3; fi
for g in "$here"/gen_*.py; do
  [ -e "$g" ] || continue
  "$py" "$g" "$out"
done
