#!/usr/bin/env python3
"""Reference dot_general results computed by numpy, for tests/unit/test_cpu_dot.c.

Usage: python3 gen_dot.py OUTDIR   (writes OUTDIR/dot/)

Every case is one line of OUTDIR/dot/manifest.txt, `key=value` tokens separated
by spaces (lists comma-separated, "-" for an empty list):

  name dtype          case name; tenferro dtype name (i32 i64 f32 f64 c64 c128)
  lb rb lc rc         batching / contracting dims of lhs and rhs (config order)
  lconj rconj         0/1
  acc                 0: out = dot_general(lhs, rhs); 1: the accumulating form
  alpha beta          acc only: "re,im" (real dtypes: re only; ints as integers)
  X in l r o:         operand X (o: acc only) is a view of a raw base buffer:
    Xbase Xnum        file of Xnum elements (raw little-endian, complex as re,im)
    Xshape Xstrides Xoff   the view's extents, strides (elements) and offset
  expect enum         plain: the compact row-major result (enum elements);
                      acc: the whole out base buffer after the call (elements
                      outside the view unchanged)
  tol                 absolute tolerance per element (|complex difference|);
                      0 means exact (integers)

Tolerances follow the issue: f64/c128 1e-12 and f32/c64 1e-5, relative to
max|lhs| * max|rhs| * K (plus |beta| * max|out| for the accumulating form).
The reference itself is computed in float64 / complex128 (floats) or with
wrapping uint64 arithmetic (integers: two's complement wrap, then narrowed).
numpy and the standard library only.
"""
import os
import sys

import numpy as np

DT = {
    "i32": np.dtype("<i4"),
    "i64": np.dtype("<i8"),
    "f32": np.dtype("<f4"),
    "f64": np.dtype("<f8"),
    "c64": np.dtype("<c8"),
    "c128": np.dtype("<c16"),
}
REL = {"f32": 1e-5, "c64": 1e-5, "f64": 1e-12, "c128": 1e-12}

rng = np.random.default_rng(20240611)
out_dir = None
lines = []
names = set()


def values(dtype, n, big=False, nan=False):
    dt = DT[dtype]
    if nan and dt.kind in "fc":
        return np.full(n, np.nan, dtype=dt)
    if dt.kind == "i":
        if big:
            hi = 2**30 if dt.itemsize == 4 else 2**62
            return rng.integers(-hi, hi, size=n, dtype=np.int64).astype(dt)
        return rng.integers(-50, 51, size=n).astype(dt)
    if dt.kind == "f":
        return rng.uniform(-1, 1, size=n).astype(dt)
    v = rng.uniform(-1, 1, size=n) + 1j * rng.uniform(-1, 1, size=n)
    return v.astype(dt)


def compact_strides(shape):
    st, acc = [], 1
    for e in reversed(shape):
        st.append(acc)
        acc *= max(e, 1)
    return list(reversed(st))


def make_view(dtype, shape, layout, big=False, nan=False):
    """A base buffer and a view of logical `shape` laid out as `layout`:
    c compact, t all axes reversed in memory (a transposed view), s2 every
    axis with step 2, neg every axis reversed, b<k> axis k broadcast
    (stride 0), p<perm> memory order given by a permutation string (e.g.
    p102: axis 1 outermost), st a transposed and step-2 view."""
    r = len(shape)
    if layout == "c":
        bshape, strides, off = list(shape), compact_strides(shape), 0
    elif layout in ("t", "st"):
        step = 2 if layout == "st" else 1
        bshape = [e * step for e in reversed(shape)]
        cs = compact_strides(bshape)
        strides = [c * step for c in reversed(cs)]
        off = 0
    elif layout == "s2":
        bshape = [2 * e for e in shape]
        strides = [2 * c for c in compact_strides(bshape)]
        off = 0
    elif layout == "neg":
        bshape = list(shape)
        cs = compact_strides(bshape)
        strides = [-c for c in cs]
        off = sum((e - 1) * c for e, c in zip(shape, cs) if e > 0)
    elif layout.startswith("b"):
        k = int(layout[1:])
        bshape = list(shape)
        bshape[k] = 1
        strides = compact_strides(bshape)
        strides[k] = 0
        off = 0
    elif layout.startswith("p"):
        perm = [int(ch) for ch in layout[1:]]
        assert sorted(perm) == list(range(r))
        bshape = [shape[p] for p in perm]
        cs = compact_strides(bshape)
        strides = [0] * r
        for pos, p in enumerate(perm):
            strides[p] = cs[pos]
        off = 0
    else:
        raise ValueError(layout)
    n = int(np.prod(bshape, dtype=np.int64)) if bshape else 1
    base = values(dtype, n, big=big, nan=nan)
    es = DT[dtype].itemsize
    if n == 0 or 0 in shape:
        view = np.zeros(shape, dtype=DT[dtype])
    else:
        # Starts at element `off`; negative strides reach back into `base`.
        view = np.lib.stride_tricks.as_strided(base[off:], shape=shape,
                                               strides=[s * es for s in strides])
    return base, list(shape), strides, off, np.array(view, copy=True)


def reference(dtype, L, R, lb, rb, lc, rc, lconj, rconj):
    lf = [a for a in range(L.ndim) if a not in lb and a not in lc]
    rf = [a for a in range(R.ndim) if a not in rb and a not in rc]
    bshape = [L.shape[a] for a in lb]
    lfs = [L.shape[a] for a in lf]
    rfs = [R.shape[a] for a in rf]
    B = int(np.prod(bshape, dtype=np.int64))
    M = int(np.prod(lfs, dtype=np.int64))
    N = int(np.prod(rfs, dtype=np.int64))
    K = int(np.prod([L.shape[a] for a in lc], dtype=np.int64))
    Lt = np.transpose(L, lb + lf + lc).reshape(B, M, K)
    Rt = np.transpose(R, rb + rc + rf).reshape(B, K, N)
    kind = DT[dtype].kind
    if kind == "i":
        res = np.matmul(Lt.astype(np.int64).astype(np.uint64),
                        Rt.astype(np.int64).astype(np.uint64)).view(np.int64)
    else:
        wide = np.complex128 if kind == "c" else np.float64
        Lw, Rw = Lt.astype(wide), Rt.astype(wide)
        if lconj:
            Lw = np.conj(Lw)
        if rconj:
            Rw = np.conj(Rw)
        res = np.matmul(Lw, Rw)
    return res.reshape(bshape + lfs + rfs), K


def maxabs(a):
    a = np.asarray(a)
    if a.size == 0:
        return 0.0
    return float(np.max(np.abs(a.astype(np.complex128))))


def lst(v):
    return ",".join(str(int(x)) for x in v) if len(v) else "-"


def scalar_text(dtype, v):
    kind = DT[dtype].kind
    if kind == "i":
        return str(int(v))
    if kind == "f":
        return repr(float(v))
    return "%r,%r" % (float(complex(v).real), float(complex(v).imag))


def write(name, suffix, arr, dtype):
    fn = "%s.%s.bin" % (name, suffix)
    np.ascontiguousarray(arr, dtype=DT[dtype]).tofile(os.path.join(out_dir, fn))
    return fn


def case(name, dtype, lshape, rshape, lb=(), rb=(), lc=(), rc=(), llay="c", rlay="c",
         lconj=0, rconj=0, acc=None, big=False):
    """acc: None (plain) or (alpha, beta, out layout, nan-filled out)."""
    assert name not in names, name
    names.add(name)
    lb, rb, lc, rc = list(lb), list(rb), list(lc), list(rc)
    lbase, lsh, lst_, loff, L = make_view(dtype, lshape, llay, big=big)
    rbase, rsh, rst, roff, R = make_view(dtype, rshape, rlay, big=big)
    res, K = reference(dtype, L, R, lb, rb, lc, rc, lconj, rconj)
    kind = DT[dtype].kind
    toks = ["name=" + name, "dtype=" + dtype, "lb=" + lst(lb), "rb=" + lst(rb),
            "lc=" + lst(lc), "rc=" + lst(rc), "lconj=%d" % lconj, "rconj=%d" % rconj]
    toks += ["lbase=" + write(name, "l", lbase, dtype), "lnum=%d" % lbase.size,
             "lshape=" + lst(lsh), "lstrides=" + lst(lst_), "loff=%d" % loff]
    toks += ["rbase=" + write(name, "r", rbase, dtype), "rnum=%d" % rbase.size,
             "rshape=" + lst(rsh), "rstrides=" + lst(rst), "roff=%d" % roff]
    scale = maxabs(L) * maxabs(R) * max(K, 1)
    if acc is None:
        toks.append("acc=0")
        if kind == "i":
            expect = res.astype(DT[dtype])
        else:
            expect = res.astype(DT[dtype])
    else:
        alpha, beta, olay, nan = acc
        oshape = list(res.shape)
        obase, osh, ost, ooff, O = make_view(dtype, oshape, olay, nan=nan)
        toks += ["acc=1", "alpha=" + scalar_text(dtype, alpha),
                 "beta=" + scalar_text(dtype, beta)]
        toks += ["obase=" + write(name, "o", obase, dtype), "onum=%d" % obase.size,
                 "oshape=" + lst(osh), "ostrides=" + lst(ost), "ooff=%d" % ooff]
        if kind == "i":
            a = np.array(alpha, dtype=np.int64).view(np.uint64)
            b = np.array(beta, dtype=np.int64).view(np.uint64)
            with np.errstate(over="ignore"):  # rank-0 results are numpy scalars
                val = a * res.view(np.uint64) + b * O.astype(np.int64).view(np.uint64)
            val = np.asarray(val).view(np.int64)
        else:
            val = alpha * res
            if beta != 0:
                val = val + beta * O
        expect = obase.copy()
        es = DT[dtype].itemsize
        if expect.size and 0 not in oshape:
            ev = np.lib.stride_tricks.as_strided(expect[ooff:], shape=oshape,
                                                 strides=[s * es for s in ost])
            ev[...] = np.asarray(val).astype(DT[dtype])
        scale = abs(alpha) * scale + abs(beta) * (0.0 if beta == 0 else maxabs(O))
    tol = 0.0 if kind == "i" else REL[dtype] * max(scale, 1e-300)
    toks += ["expect=" + write(name, "e", expect, dtype), "enum=%d" % expect.size,
             "tol=%r" % tol]
    lines.append(" ".join(toks))


ALL = ["i32", "i64", "f32", "f64", "c64", "c128"]
FLOAT = ["f32", "f64", "c64", "c128"]
COMPLEX = ["c64", "c128"]
# Sizes below and above the cpu kernel's small-problem cutoff (128
# multiply-adds per batch element): the strided loop and BLAS / the
# integer blocked kernel.
SIZES = {"s": (3, 4, 5), "m": (17, 19, 23)}


def alpha_beta(dtype, beta_zero):
    kind = DT[dtype].kind
    if kind == "i":
        return 3, (0 if beta_zero else -2)
    if kind == "f":
        return 1.5, (0.0 if beta_zero else -0.75)
    return complex(0.5, -1.25), (0j if beta_zero else complex(0.25, 0.5))


def gen():
    for dt in ALL:
        for sz, (M, N, K) in SIZES.items():
            p = "%s_%s_" % (dt, sz)
            mm = dict(lc=[1], rc=[0])
            case(p + "mm", dt, [M, K], [K, N], **mm)
            case(p + "mm_rt", dt, [M, K], [K, N], rlay="t", **mm)
            case(p + "mm_lt", dt, [M, K], [K, N], llay="t", **mm)
            case(p + "mm_tt", dt, [M, K], [K, N], llay="t", rlay="t", **mm)
            case(p + "mm_s2", dt, [M, K], [K, N], llay="s2", rlay="st", **mm)
            case(p + "mm_neg", dt, [M, K], [K, N], llay="neg", rlay="neg", **mm)
            case(p + "mm_b0", dt, [M, K], [K, N], llay="b0", rlay="b1", **mm)
            case(p + "mm_b1", dt, [M, K], [K, N], llay="b1", rlay="b0", **mm)
            # rhs as [N, K]: contracting its last axis.
            case(p + "nt", dt, [M, K], [N, K], lc=[1], rc=[1])
            # Batch dims not leading, on both sides, in another order.
            case(p + "batch_mid", dt, [M, 3, K], [K, N, 3], lb=[1], rb=[2], lc=[2], rc=[0])
            case(p + "batch_mid_t", dt, [M, 3, K], [K, N, 3], lb=[1], rb=[2], lc=[2],
                 rc=[0], llay="t", rlay="p201")
            # Two batch dims paired in swapped order.
            case(p + "batch2", dt, [2, 3, M, K], [3, 2, K, N], lb=[0, 1], rb=[1, 0],
                 lc=[3], rc=[2])
            case(p + "batch2_s2", dt, [2, 3, M, K], [3, 2, K, N], lb=[0, 1], rb=[1, 0],
                 lc=[3], rc=[2], llay="s2", rlay="neg")
            # Several contracting dims, listed in different orders.
            k1, k2 = 2, K
            case(p + "multi_c", dt, [M, k1, k2], [k2, N, k1], lc=[2, 1], rc=[0, 2])
            case(p + "multi_c_t", dt, [M, k1, k2], [k2, N, k1], lc=[2, 1], rc=[0, 2],
                 llay="t", rlay="t")
            case(p + "multi_c_p", dt, [k1, M, k2], [N, k2, k1], lc=[0, 2], rc=[2, 1],
                 llay="p021", rlay="p210")
            # Several free dims on both sides.
            case(p + "multi_f", dt, [2, M, K], [K, 3, N], lc=[2], rc=[0])
            case(p + "multi_f_s2", dt, [2, M, K], [K, 3, N], lc=[2], rc=[0], llay="s2",
                 rlay="t")
            # Everything at once: batch, several free and contracting dims.
            case(p + "mixed", dt, [3, 2, K, M], [K, 2, N, 3, 2], lb=[1, 0], rb=[4, 3],
                 lc=[2], rc=[0], llay="p2301", rlay="neg")
            # Matrix-vector, vector-matrix, inner and outer products.
            case(p + "mv", dt, [M * N, K], [K], lc=[1], rc=[0])
            case(p + "mv_t", dt, [M * N, K], [K], lc=[1], rc=[0], llay="t", rlay="s2")
            case(p + "vm", dt, [K], [K, N * M], lc=[0], rc=[0], rlay="t")
            case(p + "inner", dt, [K * M * N], [K * M * N], lc=[0], rc=[0])
            case(p + "inner_neg", dt, [K * M * N], [K * M * N], lc=[0], rc=[0], llay="neg",
                 rlay="s2")
            case(p + "outer", dt, [M, 2], [N], llay="t")
            case(p + "batched_outer", dt, [4, M, 2], [N, 4], lb=[0], rb=[1])
            # Pure batch (Hadamard-like), stride-0 batch.
            case(p + "hadamard", dt, [M, N], [M, N], lb=[0, 1], rb=[0, 1])
            case(p + "batch_b0", dt, [3, M, K], [3, K, N], lb=[0], rb=[0], lc=[2], rc=[1],
                 llay="b0")
            # Accumulating form: beta zero with NaN in out, beta nonzero, strided outs.
            for bz in (True, False):
                a, b = alpha_beta(dt, bz)
                tag = "b0" if bz else "b1"
                case(p + "acc_%s" % tag, dt, [M, K], [K, N], **mm, acc=(a, b, "c", bz))
                case(p + "acc_%s_tout" % tag, dt, [M, K], [K, N], rlay="t", **mm,
                     acc=(a, b, "t", bz))
                case(p + "acc_%s_s2out" % tag, dt, [M, K], [K, N], llay="t", **mm,
                     acc=(a, b, "s2", bz))
                case(p + "acc_%s_negout" % tag, dt, [2, M, K], [2, K, N], lb=[0], rb=[0],
                     lc=[2], rc=[1], acc=(a, b, "neg", bz))
                case(p + "acc_%s_pout" % tag, dt, [2, M, K], [K, 3, N], lc=[2], rc=[0],
                     acc=(a, b, "p1203", bz))
                case(p + "acc_%s_inner" % tag, dt, [K * M * N], [K * M * N], lc=[0], rc=[0],
                     acc=(a, b, "c", bz))
            a, b = alpha_beta(dt, False)
            case(p + "acc_alpha1", dt, [M, K], [K, N], **mm,
                 acc=(1 if DT[dt].kind == "i" else 1.0, b, "c", False))
        # Conjugation flags (identity for real dtypes).
        for sz, (M, N, K) in SIZES.items():
            p = "%s_%s_" % (dt, sz)
            for lcj, rcj in ((1, 0), (0, 1), (1, 1)):
                for lay in (("c", "c"), ("t", "t"), ("s2", "c"), ("c", "neg")):
                    case(p + "conj%d%d_%s%s" % (lcj, rcj, lay[0], lay[1]), dt, [M, K], [K, N],
                         lc=[1], rc=[0], llay=lay[0], rlay=lay[1], lconj=lcj, rconj=rcj)
            a, b = alpha_beta(dt, False)
            case(p + "conj11_acc_tout", dt, [2, M, K], [2, N, K], lb=[0], rb=[0], lc=[2],
                 rc=[2], lconj=1, rconj=1, acc=(a, b, "t", False))
        # Zero-size contractions and empty results.
        case(dt + "_k0", dt, [4, 0], [0, 5], lc=[1], rc=[0])
        case(dt + "_k0_batch", dt, [2, 4, 0, 3], [3, 0, 5, 2], lb=[0, 3], rb=[3, 0], lc=[2],
             rc=[1])
        a, b = alpha_beta(dt, False)
        case(dt + "_k0_acc", dt, [4, 0], [0, 5], lc=[1], rc=[0], acc=(a, b, "t", False))
        a0, b0 = alpha_beta(dt, True)
        case(dt + "_k0_acc_b0", dt, [4, 0], [0, 5], lc=[1], rc=[0], acc=(a0, b0, "c", True))
        case(dt + "_m0", dt, [0, 7], [7, 5], lc=[1], rc=[0])
        case(dt + "_n0", dt, [6, 7], [7, 0], lc=[1], rc=[0])
        case(dt + "_b0", dt, [0, 3, 4], [0, 4, 2], lb=[0], rb=[0], lc=[2], rc=[1])
        case(dt + "_n0_acc", dt, [6, 7], [7, 0], lc=[1], rc=[0], acc=(a, b, "c", False))
        # Alpha zero: out = beta * out, operands not read.
        zero = 0 if DT[dt].kind == "i" else 0.0
        case(dt + "_alpha0", dt, [30, 40], [40, 20], lc=[1], rc=[0], acc=(zero, b, "t", False))
        # Scalars: rank-0 operands (no contraction at all).
        case(dt + "_scalar", dt, [], [], acc=None)
        case(dt + "_scalar_vec", dt, [], [5])

    # Large-ish shapes for the BLAS paths (and the integer kernel's blocking).
    for dt in FLOAT:
        case(dt + "_big", dt, [300, 250], [250, 200], lc=[1], rc=[0])
        case(dt + "_big_tt", dt, [300, 250], [250, 200], lc=[1], rc=[0], llay="t", rlay="t")
        case(dt + "_big_s2", dt, [300, 250], [250, 200], lc=[1], rc=[0], llay="s2")
        a, b = alpha_beta(dt, False)
        case(dt + "_big_acc_tout", dt, [300, 250], [250, 200], lc=[1], rc=[0],
             acc=(a, b, "t", False))
        case(dt + "_big_batch", dt, [6, 70, 60], [6, 60, 50], lb=[0], rb=[0], lc=[2], rc=[1])
        case(dt + "_big_batch_t", dt, [6, 70, 60], [6, 60, 50], lb=[0], rb=[0], lc=[2],
             rc=[1], llay="t", rlay="p021")
    # Many tiny products: the strided loop spread over threads.
    for dt in ALL:
        case(dt + "_hadamard_big", dt, [300, 200], [300, 200], lb=[0, 1], rb=[0, 1],
             llay="t")
        cj = 1 if dt in COMPLEX else 0
        case(dt + "_tiny_batched", dt, [500, 3, 4], [4, 500, 5], lb=[0], rb=[1], lc=[2],
             rc=[0], lconj=cj, rconj=cj)
        a, b = alpha_beta(dt, False)
        case(dt + "_tiny_batched_acc", dt, [500, 3, 4], [500, 4, 5], lb=[0], rb=[0], lc=[2],
             rc=[1], acc=(a, b, "neg", False))
    for dt in COMPLEX:
        case(dt + "_big_conj", dt, [120, 130], [130, 110], lc=[1], rc=[0], llay="t",
             lconj=1, rconj=1)
    for dt in ("i32", "i64"):
        case(dt + "_big", dt, [130, 300], [300, 70], lc=[1], rc=[0])
        case(dt + "_big_t", dt, [130, 300], [300, 70], lc=[1], rc=[0], llay="t", rlay="t")
        a, b = alpha_beta(dt, False)
        case(dt + "_big_acc_s2", dt, [130, 300], [300, 70], lc=[1], rc=[0],
             acc=(a, b, "s2", False))
        # Products and sums that overflow: the result wraps (two's complement).
        case(dt + "_overflow_s", dt, [3, 9], [9, 4], lc=[1], rc=[0], big=True)
        case(dt + "_overflow_m", dt, [20, 40], [40, 30], lc=[1], rc=[0], big=True)
        case(dt + "_overflow_acc", dt, [20, 40], [40, 30], lc=[1], rc=[0], big=True,
             acc=(7, -3, "c", False))


def main():
    global out_dir
    if len(sys.argv) != 2:
        sys.exit("usage: gen_dot.py OUTDIR")
    out_dir = os.path.join(sys.argv[1], "dot")
    os.makedirs(out_dir, exist_ok=True)
    gen()
    with open(os.path.join(out_dir, "manifest.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
