#!/usr/bin/env python3
"""numpy peer of `tenferro contract`: times one einsum benchmark instance
(examples/instances/*.json) contracted along its stored opt_flops path.

usage: numpy_einsum.py INSTANCE.json [--repeat N] [--budget SECONDS] [--seed N]

How numpy contracts it (printed as `method`):
  einsum      np.einsum(expr, *operands, optimize=["einsum_path", *pairs]) when
              the instance has at most 52 labels (numpy takes only ASCII
              letters: the labels are renamed to a-zA-Z);
  pairs       otherwise the same algorithm one pair at a time: each step is
              np.einsum(optimize=True) on the two operands with their labels
              renamed to letters (a pair never has more than 52). That is
              what np.einsum does internally for each step of a given path
              (tensordot, i.e. BLAS, when the pair has no batch label, its C
              loop otherwise), so both methods time numpy's einsum.
Operands: uniform in [-1, 1) from a seeded numpy RNG (the values do not
matter for the time; none is subnormal along these paths). Threads: numpy's
BLAS reads OMP_NUM_THREADS / OPENBLAS_NUM_THREADS at import, so the caller
sets them (bench/einsum_cpu.sh).

Runs until `repeat` timed runs are done or `budget` seconds are spent (at
least one run), after one untimed warm-up run when that run took less than
a tenth of the budget. Prints one line:
  numpy INSTANCE method M median T ms over K run(s), peak RSS R MiB
"""
import argparse
import json
import os
import resource
import sys
import time

import numpy as np

LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def load(path):
    with open(path, encoding="utf-8") as f:
        d = json.load(f)
    lhs, out = d["format_string"].split("->")
    terms = [list(t) for t in lhs.split(",")]
    pairs = [tuple(p) for p in d["paths"]["opt_flops"]["path"]]
    return terms, list(out), [tuple(s) for s in d["shapes"]], pairs


def contract_whole(terms, out, pairs, ops):
    names = {c: LETTERS[i] for i, c in enumerate(dict.fromkeys(c for t in terms for c in t))}
    expr = ",".join("".join(names[c] for c in t) for t in terms) + "->" + \
        "".join(names[c] for c in out)
    return np.einsum(expr, *ops, optimize=["einsum_path"] + pairs)


def numpy_pair(expr, a, b):
    return np.einsum(expr, a, b, optimize=True)


def contract_pairs(terms, out, pairs, ops, pair=numpy_pair):
    """Contracts along `pairs`, one pair(expr, a, b) per step, the labels of
    each step renamed to letters (also used by torch_einsum.py)."""
    items = list(zip(ops, terms))
    for step, (i, j) in enumerate(pairs):
        (a, la), (b, lb) = items[i], items[j]
        rest = [items[k][1] for k in range(len(items)) if k not in (i, j)]
        if step == len(pairs) - 1:
            keep = out
        else:
            needed = set(out).union(*map(set, rest))
            keep = [c for c in dict.fromkeys(la + lb) if c in needed]
        names = {c: LETTERS[k] for k, c in enumerate(dict.fromkeys(la + lb))}
        expr = "".join(names[c] for c in la) + "," + "".join(names[c] for c in lb) + "->" + \
            "".join(names[c] for c in keep)
        r = pair(expr, a, b)
        for k in sorted((i, j), reverse=True):
            del items[k]
        items.append((r, keep))
    return items[0][0]


def operands(shapes, seed):
    """Seeded operands, uniform in [-1, 1), never zero (also torch_einsum.py)."""
    rng = np.random.default_rng(seed)
    ops = []
    for s in shapes:
        v = rng.uniform(-1.0, 1.0, size=s)
        v[v == 0] = 0.5
        ops.append(v)
    return ops


def time_runs(run, repeat, budget):
    """Sorted times (s) of up to `repeat` calls of run() within `budget`
    seconds (at least one), after one untimed warm-up call when that call
    took less than a tenth of the budget (also used by torch_einsum.py)."""
    times = []
    warm_up = True
    start = time.perf_counter()
    while len(times) < repeat and (not times or time.perf_counter() - start < budget):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
        if warm_up and times[0] < budget / 10:
            times.clear()  # that was the warm-up run
        warm_up = False
    return sorted(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("instance")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--budget", type=float, default=30.0)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    terms, out, shapes, pairs = load(args.instance)
    labels = set(c for t in terms for c in t)
    method = "einsum" if len(labels) <= len(LETTERS) else "pairs"
    fn = contract_whole if method == "einsum" else contract_pairs
    ops = operands(shapes, args.seed)
    times = time_runs(lambda: fn(terms, out, pairs, ops), args.repeat, args.budget)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    name = os.path.basename(args.instance)
    print(f"numpy {name} method {method} median {times[len(times) // 2] * 1e3:.3f} ms over "
          f"{len(times)} run(s), peak RSS {rss:.1f} MiB")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
