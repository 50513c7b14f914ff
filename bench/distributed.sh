#!/bin/sh
# Strong scaling of the sliced contraction over MPI ranks (issue #23,
# docs/distributed.md): on C cores, 1, 2, 4, ... C ranks with C / ranks
# threads each, against one process on one core and one process on C threads.
#   usage: bench/distributed.sh INSTANCE MAX_MEMORY SLICES [INSTANCE MAX_MEMORY SLICES ...]
#   TENFERRO  the tool (default build/tenferro); MPIRUN the launcher (default mpirun)
#   CORES     the cores to fill (default: nproc); REPEAT timed repeats (default 3)
#   WARMUP    untimed runs before them (default 1)
#   SCHEDULE  the ranks' --schedule, static (default) or dynamic
# The path is searched once (--save-path) and read by every run (--path-file),
# so every run contracts the same slices of the same plan. Each run reports the
# median of REPEAT timed repeats after WARMUP untimed ones. Printed per instance:
#   ranks x threads | time | speed-up over 1 core | efficiency = speed-up / C
#   | against 1 rank x C threads | slices per rank | load balance | communication
set -eu
tf=${TENFERRO:-build/tenferro}
mpirun=${MPIRUN:-mpirun}
cores=${CORES:-$(nproc)}
repeat=${REPEAT:-3}
warmup=${WARMUP:-1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ $# -ge 3 ] || { echo "usage: bench/distributed.sh INSTANCE MAX_MEMORY SLICES ..." >&2; exit 2; }
ms() { sed -n 's/^time *median \([0-9.]*\) ms.*/\1/p' "$1"; }
echo "cores $cores, $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p'), $("$mpirun" --version 2>&1 | head -1)"
while [ $# -ge 3 ]; do
  inst=$1 mem=$2 slices=$3
  shift 3
  name=$(basename "$inst" .json)
  path="$work/$name.path.json"
  common="--max-memory $mem --slices $slices --repeat $repeat --warmup $warmup"
  "$tf" contract "$inst" --plan-only --max-memory "$mem" --slices "$slices" \
      --save-path "$path" > "$work/plan.txt"
  echo
  echo "## $name, --max-memory $mem --slices $slices"
  grep -E '^(path|slices) ' "$work/plan.txt"
  "$tf" contract "$inst" --path-file "$path" $common --threads 1 > "$work/one.txt"
  t1=$(ms "$work/one.txt")
  "$tf" contract "$inst" --path-file "$path" $common --threads "$cores" > "$work/all.txt"
  tc=$(ms "$work/all.txt")
  grep -E '^memory ' "$work/one.txt"
  echo "1 process: 1 thread $t1 ms, $cores threads $tc ms"
  echo
  echo "| ranks x threads | ms | speed-up over 1 core | efficiency | vs 1 x $cores | slices per rank | load balance | communication ms |"
  echo "|---|---:|---:|---:|---:|---|---:|---:|"
  n=1
  while [ "$n" -le "$cores" ]; do
    t=$((cores / n))
    "$mpirun" --bind-to none --oversubscribe -np "$n" "$tf" contract "$inst" --path-file "$path" \
        $common --threads "$t" --schedule "${SCHEDULE:-static}" > "$work/mpi.txt" 2>&1 || { cat "$work/mpi.txt"; exit 1; }
    tn=$(ms "$work/mpi.txt")
    r=$(grep '^ranks ' "$work/mpi.txt")
    per=$(echo "$r" | sed -n 's/.*slices per rank \([0-9-]* of [0-9]*\).*/\1/p')
    bal=$(echo "$r" | sed -n 's/.*load balance \([0-9.]*\).*/\1/p')
    comm=$(echo "$r" | sed -n 's/.*communication max \([0-9.]*\) ms.*/\1/p')
    awk -v n="$n" -v t="$t" -v tn="$tn" -v t1="$t1" -v tc="$tc" -v c="$cores" -v per="$per" \
        -v bal="$bal" -v comm="$comm" 'BEGIN {
      printf "| %d x %d | %.1f | %.2f | %.0f%% | %.2f | %s | %s | %s |\n",
             n, t, tn, t1 / tn, 100 * t1 / tn / c, tc / tn, per, bal, comm }'
    n=$((n * 2))
  done
done
