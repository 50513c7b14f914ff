#!/bin/sh
# Slicing to a memory budget (docs/paths.md, "Slicing"): the joint search of
# the tree and its sliced labels (`--max-memory` with a searched path)
# against slicing afterwards (`tfr_einsum_plan_slice_to_fit`) the auto tree
# found without a limit, and the instance's stored opt_flops path. Per
# instance and limit: log10 of the sliced flops, their ratio to the least
# unsliced flops known (the auto tree's without a limit or the stored
# opt_flops path's: the overhead of slicing), the slices and the planning
# time (`tenferro contract --plan-only`, ms; "then slice_to_fit": the
# unlimited search plus slicing). Prints a markdown table.
#   usage: bench/slicing_search.sh
# Environment: BUILD_DIR (default build), SEED (default 0).
set -eu
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
SEED=${SEED:-0}
bin="$BUILD_DIR/tenferro"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# plan INSTANCE SAVE ARGS...: "ms" (the path saved to SAVE).
plan() {
  f=$1
  save=$2
  shift 2
  "$bin" contract "$f" --plan-only --seed "$SEED" --save-path "$save" "$@" |
    awk '/^operands/ { for (i = 1; i <= NF; i++) if ($i == "in") print $(i + 1) }'
}

# row INSTANCE LIMIT METHOD MS SAVED FLAT STORED: one table row.
row() {
  python3 - "$@" <<'EOF'
import json, math, sys
inst, limit, method, ms, saved, flat, stored = sys.argv[1:]
d = json.load(open(saved))
best = min(json.load(open(flat))["flops"], json.load(open(stored))["flops"])
print(f"| {inst} | {limit} | {method} | {math.log10(d['sliced_flops']):.4f} | "
      f"{d['sliced_flops'] / best:.3f} | {d['num_slices']} | {len(d['sliced'])} | "
      f"{float(ms):.0f} |")
EOF
}

echo "| instance | --max-memory | method | log10 sliced flops | x least unsliced | slices | labels | plan ms |"
echo "|---|---|---|---:|---:|---:|---:|---:|"
for spec in gm_queen5_5_3.wcsp:1G gm_queen5_5_3.wcsp:256M gm_queen5_5_3.wcsp:64M \
            lm_batch_likelihood_sentence_3_12d:16M lm_batch_likelihood_sentence_3_12d:4M; do
  name=${spec%%:*}
  limit=${spec##*:}
  f=examples/instances/$name.json
  # The auto tree without a limit (1 TiB), then sliced to fit by slice_to_fit.
  ms=$(plan "$f" "$tmp/flat.json" --max-memory 1T)
  plan "$f" "$tmp/stored-flat.json" --path opt_flops --max-memory 1T >/dev/null
  ms2=$(plan "$f" "$tmp/before.json" --path-file "$tmp/flat.json" --max-memory "$limit")
  set -- "$tmp/flat.json" "$tmp/stored-flat.json"
  row "$name" "$limit" "auto, then slice_to_fit" "$(echo "$ms + $ms2" | bc)" "$tmp/before.json" "$@"
  ms=$(plan "$f" "$tmp/stored.json" --path opt_flops --max-memory "$limit")
  row "$name" "$limit" "opt_flops, then slice_to_fit" "$ms" "$tmp/stored.json" "$@"
  ms=$(plan "$f" "$tmp/after.json" --max-memory "$limit")
  row "$name" "$limit" "auto, joint search" "$ms" "$tmp/after.json" "$@"
done
