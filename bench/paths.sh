#!/bin/sh
# Contraction-path search on every instance of examples/instances/: per
# optimiser, the flops of its path over those of the instance's stored
# opt_flops path, its largest intermediate over that of the stored opt_size
# path (both counted by `tenferro contract` itself, docs/paths.md), and the
# planning time (search plus the statistics replay). No memory limit
# (--max-memory 1000000T): each optimiser's own tree, not one re-optimised
# by the slicing search (docs/paths.md, "Slicing"). Then generated networks
# (2-D lattices, a random 3-regular graph) of up to 5,000 operands, which have
# no stored path: log10 flops, log2 largest intermediate and time.
# Prints a markdown table and writes it to bench/results/paths.md with the
# date, commit and machine.
#   usage: bench/paths.sh [INSTANCE.json ...]   (default: all of them)
# Environment: BUILD_DIR (default build), SEED (default 0), TRIALS
# (random-greedy trials, default 64), TREESA_RUNS (treesa runs, default 8),
# PARTITION_TRIALS (partition trials, default 16), OUT (default
# bench/results/paths.md).
set -eu
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
SEED=${SEED:-0}
TRIALS=${TRIALS:-64}
TREESA_RUNS=${TREESA_RUNS:-8}
PARTITION_TRIALS=${PARTITION_TRIALS:-16}
OUT=${OUT:-bench/results/paths.md}
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD_DIR" -j2 --target tenferro_cli >/dev/null
bin="$BUILD_DIR/tenferro"
[ "$#" -eq 0 ] && set -- examples/instances/*.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# plan FILE ARGS...: "log10flops log2size ms operands" of the path, or "refused".
plan() {
  f=$1
  shift
  if o=$("$bin" contract "$f" --plan-only --max-memory 1000000T --seed "$SEED" "$@" 2>/dev/null); then
    echo "$o" | awk '/^operands/ { n = $2; sub(",", "", n)
                                   for (i = 1; i <= NF; i++) if ($i == "in") ms = $(i + 1) }
                     /^path / { gsub(",", ""); print $3, $6, ms, n }'
  else
    echo refused
  fi
}

# The rows per instance: a label and the optimiser's arguments.
rows() {
  cat <<ROWS
auto|--path auto
auto, 10 s|--path auto --optimize-time 10
auto, size|--path auto --minimize size
greedy|--path greedy
random-greedy|--path random-greedy --trials $TRIALS
random-greedy, size|--path random-greedy --trials $TRIALS --minimize size
dp|--path dp
dp, size|--path dp --minimize size
optimal|--path optimal
greedy + subtree|--path greedy --subtree 8
treesa|--path treesa --trials $TREESA_RUNS
treesa, size|--path treesa --trials $TREESA_RUNS --minimize size
partition|--path partition --trials $PARTITION_TRIALS
partition, size|--path partition --trials $PARTITION_TRIALS --minimize size
ROWS
}

{
  echo "# Contraction paths on the example instances"
  echo
  echo "$(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src include tools || echo ' (modified)'), $(nproc) cores ($(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)); load average $(cut -d' ' -f1-3 /proc/loadavg) at the start."
  echo
  echo "Reproduce: \`BUILD_DIR=$BUILD_DIR SEED=$SEED TRIALS=$TRIALS TREESA_RUNS=$TREESA_RUNS PARTITION_TRIALS=$PARTITION_TRIALS bench/paths.sh\`. Every number comes from \`tenferro contract INSTANCE --plan-only --path NAME\`: flops ratio = our path's flops over those of the instance's stored opt_flops path, size ratio = our largest intermediate over that of the stored opt_size path (< 1: better than the stored path; both counted by tenferro, 2 flops per multiply-add), time = planning (search and statistics, ms). \"refused\": the optimiser does not take the network (optimal: more than 12 operands; dp: a connected component of more than 64). \", size\": run with \`--minimize size\`; \"greedy + subtree\": greedy's tree refined by subtree reconfiguration of 8 leaves (\`--subtree 8\`); treesa runs $TREESA_RUNS annealing runs (refined with subtree size 8); partition builds $PARTITION_TRIALS trees by recursive METIS bisection (refined with subtree size 8)."
  echo
  echo "| instance | operands | optimiser | flops ratio | size ratio | time ms |"
  echo "|---|---:|---|---:|---:|---:|"
} >"$tmp/table"

for f in "$@"; do
  name=$(basename "$f" .json)
  rf=$(plan "$f" --path opt_flops | cut -d' ' -f1)
  rs=$(plan "$f" --path opt_size | cut -d' ' -f2)
  rows | while IFS='|' read -r label args; do
    # shellcheck disable=SC2086  # args are words
    r=$(plan "$f" $args)
    if [ "$r" = refused ]; then
      echo "| $name | | $label | refused | | |"
    else
      echo "$r" | awk -v nm="$name" -v lb="$label" -v rf="$rf" -v rs="$rs" \
        '{ printf "| %s | %s | %s | %.3g | %.3g | %.1f |\n", nm, $4, lb, 10 ^ ($1 - rf), 2 ^ ($2 - rs), $3 }'
    fi
  done >>"$tmp/table"
done

# Generated networks: closed 2-D lattices and a random 3-regular graph
# (seeded), every bond a label of extent 2, as instance files.
python3 - "$tmp" <<'PY'
import random, sys
sys.path.insert(0, "bench")
import networks  # the generators of bench/networks.py
tmp = sys.argv[1]
networks.lattice2d(10, 100).write(f"{tmp}/lattice_10x100.json")
networks.lattice2d(20, 250).write(f"{tmp}/lattice_20x250.json")
# One shuffle of the configuration model, self-loops dropped (not
# networks.rrg3, which redraws until simple: this table keeps its graph).
rng = random.Random(1)
n = 200
stubs = [v for v in range(n) for _ in range(3)]
rng.shuffle(stubs)
networks.graph_net(n, [(stubs[i], stubs[i + 1]) for i in range(0, len(stubs), 2)
                       if stubs[i] != stubs[i + 1]]).write(f"{tmp}/regular3_200.json")
PY
{
  echo
  echo "Generated networks (written by bench/paths.sh: closed 2-D lattices and a random 3-regular graph of seed 1, every bond of extent 2). No stored path: absolute numbers."
  echo
  echo "| network | operands | optimiser | log10 flops | log2 largest | time ms |"
  echo "|---|---:|---|---:|---:|---:|"
} >>"$tmp/table"
for net in lattice_10x100 lattice_20x250 regular3_200; do
  for label in greedy random-greedy treesa partition; do
    case $label in
      treesa) trials=$TREESA_RUNS ;;
      partition) trials=$PARTITION_TRIALS ;;
      *) trials=$TRIALS ;;
    esac
    r=$(plan "$tmp/$net.json" --path "$label" --trials "$trials")
    if [ "$r" = refused ]; then
      echo "| $net | | $label | refused | | |"
    else
      echo "$r" | awk -v nm="$net" -v lb="$label" \
        '{ printf "| %s | %s | %s | %.3f | %.1f | %.1f |\n", nm, $4, lb, $1, $2, $3 }'
    fi
  done >>"$tmp/table"
done
cat "$tmp/table"
cp "$tmp/table" "$OUT"
