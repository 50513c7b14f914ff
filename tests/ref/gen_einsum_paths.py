#!/usr/bin/env python3
"""Reference paths for tests/unit/test_einsum_paths.c, made with numpy.einsum_path.

Writes into OUTDIR/einsum_paths/cases.txt, one line per case:
  ID EXPR SHAPES PATH
where SHAPES is the operands' shapes ("2x3,3x4,4") and PATH numpy's
optimize="optimal" pair list ("0-1,0-1"). Random networks of 3-7 operands,
ranks 1-3 over 8 letters, extents 2-6, some labels kept in the output;
cases where numpy's search gave up (a step of more than two operands: its
memory limit) are left out. The test checks that our exact optimisers need
no more flops than numpy's path (counted by tenferro).
"""
import os
import sys

import numpy as np

LETTERS = "abcdefgh"


def random_case(rng):
    n = int(rng.integers(3, 8))
    ext = {c: int(rng.integers(2, 7)) for c in LETTERS}
    terms = []
    for _ in range(n):
        r = int(rng.integers(1, 4))
        terms.append("".join(rng.choice(list(LETTERS), size=r, replace=False)))
    counts = {c: sum(t.count(c) for t in terms) for c in LETTERS}
    out = "".join(c for c in LETTERS if counts[c] == 1 and rng.random() < 0.5)
    expr = ",".join(terms) + "->" + out
    shapes = [[ext[c] for c in t] for t in terms]
    return expr, shapes


def main():
    out = os.path.join(sys.argv[1], "einsum_paths")
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(20261201)
    lines = []
    while len(lines) < 80:
        expr, shapes = random_case(rng)
        ops = [np.zeros(s) for s in shapes]
        path, _ = np.einsum_path(expr, *ops, optimize="optimal")
        pairs = path[1:]
        if any(len(p) != 2 for p in pairs):
            continue
        shp = ",".join("x".join(str(d) for d in s) for s in shapes)
        pth = ",".join(f"{a}-{b}" for a, b in pairs)
        lines.append(f"c{len(lines):03d} {expr} {shp} {pth}")
    with open(os.path.join(out, "cases.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
