#!/usr/bin/env python3
"""Reference data for tests/unit/test_einsum_grammar.c: the parts of numpy's
einsum grammar beyond tests/ref/gen_einsum.py's numeric cases.

Writes into OUTDIR/einsum_grammar/:
  cases.txt     one line per case: ID DTYPE N EXPR ("-" for the empty string)
  ID_in<k>.npy  operand k
  ID_out.npy    the expected result
Cases:
  * bool operands (numpy's logical einsum: AND of products, OR of sums),
    random expressions of 1-4 operands with shared, free, repeated and summed
    labels, size-1 broadcast axes and ellipses: numpy.einsum's result.
  * an ellipsis in the operands but not in the explicit output (its axes are
    summed): numpy 1.24 refuses the string, so the expected result is
    numpy.einsum with "..." leading the output, then summed (any() for bool)
    over those leading axes.
"""
import os
import sys

import numpy as np

LETTERS = "abcdef"


def operand(rng, dtype, shape):
    if dtype == "bool":
        return rng.random(size=shape) < rng.uniform(0.2, 0.8)
    return rng.uniform(-1, 1, size=shape)


def random_terms(rng, ellipsis):
    """Operand terms, shapes and the broadcast dims of a random expression."""
    n = int(rng.integers(1, 5))
    labels = LETTERS[:int(rng.integers(1, 6))]
    extent = {c: int(rng.integers(1, 5)) for c in labels}
    ell = [int(rng.integers(1, 4)) for _ in range(int(rng.integers(1, 3)))] if ellipsis else []
    terms, shapes = [], []
    for _ in range(n):
        r = int(rng.integers(0, 4))
        term = "".join(rng.choice(list(labels), size=r)) if r else ""
        shape = [extent[c] if rng.random() < 0.85 else 1 for c in term]
        if ellipsis and rng.random() < 0.8:
            k = int(rng.integers(0, len(ell) + 1))
            dims = [d if rng.random() < 0.8 else 1 for d in ell[len(ell) - k:]]
            at = int(rng.integers(0, len(term) + 1))
            term = term[:at] + "..." + term[at:]
            shape = shape[:at] + dims + shape[at:]
        terms.append(term)
        shapes.append(shape)
    return terms, shapes


def ellipsis_dims(terms, shapes):
    return max((len(s) - len(t.replace("...", "")) for t, s in zip(terms, shapes)), default=0)


def main(outdir):
    out = os.path.join(outdir, "einsum_grammar")
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(20261201)
    lines = []

    def emit(cid, dtype, expr, ops, want):
        for k, a in enumerate(ops):
            np.save(os.path.join(out, f"{cid}_in{k}.npy"), a)
        np.save(os.path.join(out, f"{cid}_out.npy"), np.array(want, order="C"))  # C order: the test reads its bytes
        lines.append(f"{cid} {dtype} {len(ops)} {expr or '-'}")

    # Bool operands: numpy's own result.
    made = 0
    while made < 120:
        terms, shapes = random_terms(rng, rng.random() < 0.3)
        used = sorted(set("".join(terms).replace(".", "")))
        if rng.random() < 0.5:
            keep = [c for c in used if rng.random() < 0.5]
            rng.shuffle(keep)
            has_ell = any("..." in t for t in terms)
            expr = ",".join(terms) + "->" + ("..." if has_ell else "") + "".join(keep)
        else:
            expr = ",".join(terms)
        ops = [operand(rng, "bool", s) for s in shapes]
        try:
            want = np.einsum(expr, *ops)
        except ValueError:
            continue
        assert want.dtype == np.bool_
        emit(f"b{made:03d}", "bool", expr, ops, want)
        made += 1

    # The ellipsis dropped from an explicit output.
    made = 0
    while made < 60:
        dtype = "bool" if made % 3 == 0 else "f64"
        terms, shapes = random_terms(rng, True)
        if not any("..." in t for t in terms):
            continue
        used = sorted(set("".join(terms).replace(".", "")))
        keep = [c for c in used if rng.random() < 0.5]
        rng.shuffle(keep)
        ops = [operand(rng, dtype, s) for s in shapes]
        lead = ellipsis_dims(terms, shapes)
        try:
            full = np.einsum(",".join(terms) + "->..." + "".join(keep), *ops)
        except ValueError:
            continue
        axes = tuple(range(lead))
        want = full.any(axis=axes) if dtype == "bool" else full.sum(axis=axes)
        emit(f"e{made:03d}", dtype, ",".join(terms) + "->" + "".join(keep), ops, want)
        made += 1

    with open(os.path.join(out, "cases.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
