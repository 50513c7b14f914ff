#!/usr/bin/env python3
"""Reference data for tests/unit/test_einsum.c, made with numpy.einsum.

Writes into OUTDIR/einsum/:
  cases.txt        one line per case: ID DTYPE N EXPR_ASCII EXPR_UNICODE
                   (the Unicode expression maps every letter to another
                   character, so the library's UTF-8 parsing is exercised while
                   numpy, which only takes ASCII letters, sees the ASCII one)
  ID_in<k>.npy     operand k
  ID_out.npy       numpy.einsum(EXPR_ASCII, *operands)
Random expressions: 1-4 operands, ranks 0-4, extents 1-4 (size-1 broadcast
dims included), shared, free, repeated (diagonal) and summed labels,
ellipses, implicit and explicit outputs; every dtype the library has.
"""
import os
import sys

import numpy as np

LETTERS = "abcdefghij"
# Letter -> a non-ASCII label of 2, 3 or 4 UTF-8 bytes, in increasing code
# point order like the letters, so implicit outputs (sorted labels) agree.
UNICODE = dict(zip(LETTERS, ["Á", "ĉ", "Ƶ", "α", "β", "ж", "ℓ", "⊗", "中", "𝛼"]))
DTYPES = ["f64", "c128", "f32", "c64", "i32", "i64"]
NP = {"f64": np.float64, "c128": np.complex128, "f32": np.float32, "c64": np.complex64,
      "i32": np.int32, "i64": np.int64}


def random_operand(rng, dtype, shape):
    if dtype in ("i32", "i64"):
        v = rng.integers(-5, 6, size=shape)
        v[v == 0] = 1
        return v.astype(NP[dtype])
    v = rng.uniform(-1, 1, size=shape)
    if dtype in ("c64", "c128"):
        v = v + 1j * rng.uniform(-1, 1, size=shape)
    return v.astype(NP[dtype])


def random_case(rng):
    n = int(rng.integers(1, 5))
    nlab = int(rng.integers(1, 7))
    labels = LETTERS[:nlab]
    extent = {c: int(rng.integers(1, 5)) for c in labels}
    use_ellipsis = rng.random() < 0.25
    ell_dims = [int(rng.integers(1, 4)) for _ in range(int(rng.integers(0, 3)))] if use_ellipsis else []
    terms, shapes = [], []
    for _ in range(n):
        r = int(rng.integers(0, 5))
        term = "".join(rng.choice(list(labels), size=r)) if r else ""
        shape = []
        for c in term:
            # size-1 broadcast of a labelled dim, now and then
            shape.append(1 if rng.random() < 0.1 else extent[c])
        if use_ellipsis:
            k = int(rng.integers(0, len(ell_dims) + 1))
            dims = ell_dims[len(ell_dims) - k:]
            pos = int(rng.integers(0, len(term) + 1))
            term = term[:pos] + "..." + term[pos:]
            shape = shape[:pos] + dims + shape[pos:]
        terms.append(term)
        shapes.append(tuple(shape))
    seen = sorted(set("".join(t.replace(".", "") for t in terms)))
    if rng.random() < 0.3:
        expr = ",".join(terms)  # implicit output
    else:
        out = [c for c in seen if rng.random() < 0.5]
        rng.shuffle(out)
        out = "".join(out)
        if use_ellipsis:
            pos = int(rng.integers(0, len(out) + 1))
            out = out[:pos] + "..." + out[pos:]
        expr = ",".join(terms) + "->" + out
    return expr, shapes


def main():
    out = os.path.join(sys.argv[1], "einsum")
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(20261130)
    lines = []
    case = 0
    while case < 300:
        expr, shapes = random_case(rng)
        dtype = DTYPES[case % len(DTYPES)]
        ops = [random_operand(rng, dtype, s) for s in shapes]
        try:
            res = np.einsum(expr, *ops)
        except ValueError:
            continue  # e.g. a size-1 dim numpy will not broadcast here
        res = np.asarray(res, dtype=NP[dtype])
        uexpr = "".join(UNICODE.get(c, c) for c in expr)
        cid = f"e{case:03d}"
        for k, a in enumerate(ops):
            np.save(os.path.join(out, f"{cid}_in{k}.npy"), a)
        np.save(os.path.join(out, f"{cid}_out.npy"), res)
        lines.append(f"{cid} {dtype} {len(ops)} {expr if expr else '-'} {uexpr if uexpr else '-'}")
        case += 1
    with open(os.path.join(out, "cases.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
