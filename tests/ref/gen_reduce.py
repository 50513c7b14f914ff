#!/usr/bin/env python3
"""Reference reductions for tests/unit/test_cpu_reduce.c.

Usage: python3 gen_reduce.py OUTDIR   (writes OUTDIR/reduce/manifest.txt and
OUTDIR/reduce/data.bin)

Every (combiner, dtype) pair that tfr_reduce accepts is run over a list of
layouts: no axes, some, all, rank 0, empty reduced and empty kept axes,
reversed/transposed/sliced/broadcast views with offsets, reductions long
enough for several tree leaves and for the parallel paths. The expected values
are computed element by element in exact or extended arithmetic (Python
integers with explicit wrapping, math.fsum, long double products), not by
numpy's own reductions, so they do not share the kernel's summation order.

data.bin holds raw little-endian arrays; manifest.txt has one line per case:
  name dtype combiner base_numel base_off view_offset rank shape[rank]
  strides[rank] naxes axes[naxes] has_init init_off out_numel out_off
  abs_tol rel_tol
Offsets are in bytes into data.bin, view_offset and strides in elements of the
base (a 1-D array of base_numel elements). An output element `got` passes when
|got - want| <= abs_tol + rel_tol * |want| (per real component, |want| being
the complex modulus); tolerances of 0 mean bit-exact, with NaN matching NaN.
numpy and the standard library only.
"""
import math
import os
import sys

import numpy as np

import op_registry

DTYPES = {
    "bool": np.dtype("|b1"),
    "i32": np.dtype("<i4"),
    "i64": np.dtype("<i8"),
    "f32": np.dtype("<f4"),
    "f64": np.dtype("<f8"),
    "c64": np.dtype("<c8"),
    "c128": np.dtype("<c16"),
}
# Index = tfr_reduce_combiner value.
COMBINERS = ["add", "multiply", "maximum", "minimum", "and", "or", "xor"]
# The dtypes of each combiner (among those above): the registry's reduce_<body>.
_REG = op_registry.read()
ALLOWED = {c: op_registry.dtypes_of(_REG, "reduce_" + c, DTYPES) for c in COMBINERS}

# (name, logical shape, axes, view kind, with an explicit init value)
CONFIGS = [
    ("none", (3, 4, 5), (), "compact", True),
    ("ax1", (3, 4, 5), (1,), "compact", False),
    ("ax1_init", (3, 4, 5), (1,), "compact", True),
    ("ax02", (3, 4, 5), (0, 2), "compact", False),
    ("ax2", (3, 4, 5), (2,), "compact", False),
    ("all", (3, 4, 5), (0, 1, 2), "compact", False),
    ("all_init", (3, 4, 5), (0, 1, 2), "compact", True),
    ("rank0", (), (), "compact", False),
    ("rank0_init", (), (), "compact", True),
    ("ones", (1, 1, 3), (0, 1), "compact", False),
    ("empty_red", (3, 0, 2), (1,), "compact", False),
    ("empty_red_init", (3, 0, 2), (1,), "compact", True),
    ("empty_out", (3, 0, 2), (0,), "compact", False),
    ("revtrans0", (6, 7), (0,), "revtrans", False),
    ("revtrans1", (6, 7), (1,), "revtrans", True),
    ("revall", (4, 5, 6), (0, 2), "reverse", False),
    ("bcast_red", (4, 5, 6), (1,), "broadcast", False),
    ("bcast_kept", (4, 5, 6), (0, 2), "broadcast", False),
    ("slice1", (5, 8), (1,), "slice", False),
    ("slice0", (5, 8), (0,), "slice", True),
    # Inner layout, two non-mergeable reduced axes, 2000 elements per output:
    # two tree leaves whose boundary falls inside a run.
    ("inner_multi", (50, 3, 40), (0, 2), "compact", False),
    # Lanes layout: several strips (one partial), several row leaves, > 32768
    # elements (parallel over strips).
    ("lanes", (70, 600), (0,), "compact", False),
    # Inner runs shorter than the vector path, every length mod 4, contiguous
    # and strided.
    ("runs17", (6, 17), (1,), "compact", False),
    ("runs18", (6, 18), (1,), "compact", False),
    ("runs19", (6, 19), (1,), "compact", True),
    ("slice_runs11", (5, 11), (1,), "slice", False),
    ("slice_runs9", (9, 10), (0,), "slice", False),
    # Short inner run: lanes layout with strided lanes.
    ("lanes_short", (30, 5), (1,), "compact", False),
    # Few outputs, long reductions, > 32768 elements: the tree is split
    # across threads (inner and lanes layouts).
    ("split_inner", (3, 12000), (1,), "compact", False),
    ("split_lanes", (12000, 3), (0,), "compact", True),
    ("split_all", (40000,), (0,), "reverse", False),
]

EPS = {"f32": 2.0 ** -23, "f64": 2.0 ** -52, "c64": 2.0 ** -23, "c128": 2.0 ** -52}
BITS = {"i32": 32, "i64": 64}


def wrap(v, bits):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >= 1 << (bits - 1) else v


def random_values(rng, dt, comb, n, long_run):
    """n values of dtype dt suited to combiner comb (products stay finite)."""
    if dt == "bool":
        return rng.integers(0, 2, n).astype(bool)
    if dt in BITS:
        info = np.iinfo(DTYPES[dt])

        def bits():
            return rng.integers(info.min, info.max, n, endpoint=True, dtype=DTYPES[dt])

        # Full range: sums and products wrap. Products of odd numbers never
        # collapse to 0; sparse 0 bits (and) or 1 bits (or) keep the result
        # from saturating after a few elements.
        if comb == "multiply":
            return bits() | 1
        if comb == "and":
            return ~(bits() & bits() & bits())
        if comb == "or":
            return bits() & bits() & bits()
        return bits()
    real = dt in ("f32", "f64")
    if comb == "multiply":
        lo, hi = (0.99, 1.01) if long_run else (0.5, 2.0)
        r = rng.uniform(lo, hi, n)
        if real:
            v = r * np.where(rng.integers(0, 2, n) == 1, -1.0, 1.0)
        else:
            v = r * np.exp(1j * rng.uniform(-math.pi, math.pi, n))
    elif comb in ("maximum", "minimum"):
        v = rng.uniform(-100.0, 100.0, n)
    else:
        v = rng.uniform(-2.0, 2.0, n)
        if not real:
            v = v + 1j * rng.uniform(-2.0, 2.0, n)
    return v.astype(DTYPES[dt])


def make_view(base, shape, kind):
    """A numpy view of `base` (1-D) with logical `shape`, of the given kind."""
    n = int(np.prod(shape, dtype=np.int64))
    if kind == "compact":
        return base[:n].reshape(shape)
    if kind == "revtrans":  # transposed, axis 0 reversed, offset 2
        a, b = shape
        return base[2 : 2 + n].reshape(b, a).T[::-1, :]
    if kind == "reverse":  # every axis reversed, offset 1
        v = base[1 : 1 + n].reshape(shape)
        return v[tuple(slice(None, None, -1) for _ in shape)]
    if kind == "broadcast":  # axis 1 has stride 0, offset 3
        s = list(shape)
        s[1] = 1
        m = int(np.prod(s))
        return np.broadcast_to(base[3 : 3 + m].reshape(s), shape)
    if kind == "slice":  # every other row and column, offset 19
        a, b = shape
        u = base[: (2 * a + 1) * (2 * b + 1)].reshape(2 * a + 1, 2 * b + 1)
        return u[1::2, 2::2]
    raise ValueError(kind)


def base_size(shape, kind):
    n = int(np.prod(shape, dtype=np.int64))
    if kind == "revtrans":
        return n + 2
    if kind == "reverse":
        return n + 1
    if kind == "broadcast":
        s = list(shape)
        s[1] = 1
        return int(np.prod(s)) + 3
    if kind == "slice":
        a, b = shape
        return (2 * a + 1) * (2 * b + 1)
    return n


def reduce_row(dt, comb, row, init):
    """init (op) row[0] (op) ... in exact or extended arithmetic."""
    if dt == "bool":
        vals = [bool(x) for x in row] + [bool(init)]
        if comb in ("maximum", "or"):
            return any(vals)
        if comb in ("minimum", "and"):
            return all(vals)
        return sum(vals) % 2 == 1  # xor
    if dt in BITS:
        bits = BITS[dt]
        vals = [int(x) for x in row]
        acc = int(init)
        if comb == "add":
            return wrap(acc + sum(vals), bits)
        if comb == "multiply":
            for v in vals:
                acc = wrap(acc * v, bits)
            return acc
        if comb == "maximum":
            return max(vals + [acc])
        if comb == "minimum":
            return min(vals + [acc])
        for v in vals:
            if comb == "and":
                acc &= v
            elif comb == "or":
                acc |= v
            else:
                acc ^= v
        return wrap(acc, bits)
    cplx = dt in ("c64", "c128")
    if comb == "add":
        if cplx:
            re = math.fsum([float(x.real) for x in row] + [float(init.real)])
            im = math.fsum([float(x.imag) for x in row] + [float(init.imag)])
            return complex(re, im)
        return math.fsum([float(x) for x in row] + [float(init)])
    if comb == "multiply":
        wide = np.clongdouble if cplx else np.longdouble
        acc = wide(init)
        for x in row:
            acc = acc * wide(x)
        return acc
    vals = [float(x) for x in row] + [float(init)]
    if any(math.isnan(v) for v in vals):
        return math.nan
    return max(vals) if comb == "maximum" else min(vals)


def identity(dt, comb):
    if dt == "bool":
        return comb in ("minimum", "and")
    if dt in BITS:
        info = np.iinfo(DTYPES[dt])
        return {"add": 0, "multiply": 1, "maximum": info.min, "minimum": info.max,
                "and": -1, "or": 0, "xor": 0}[comb]
    return {"add": 0.0, "multiply": 1.0, "maximum": -math.inf, "minimum": math.inf}[comb]


def tolerances(dt, comb, x, want, init, m):
    if dt in ("bool", "i32", "i64") or comb in ("maximum", "minimum"):
        return 0.0, 0.0
    eps = EPS[dt]
    if comb == "multiply":
        # m + 1 roundings, each at most eps/2 relative (twice that for complex).
        return 0.0, (2 if dt in ("c64", "c128") else 1) * (m + 4) * eps
    # Sums: a few ulp of the largest magnitude involved, where a random-walk
    # partial sum of m terms reaches about sqrt(m) times the largest term.
    big = max(float(np.max(np.abs(want))) if want.size else 0.0, abs(complex(init)),
              math.sqrt(m) * (float(np.max(np.abs(x))) if x.size else 0.0))
    return 8 * eps * big, 0.0


def main():
    out_dir = os.path.join(sys.argv[1], "reduce")
    os.makedirs(out_dir, exist_ok=True)
    rng = np.random.default_rng(20240611)
    data = bytearray()
    lines = []

    def put(arr):
        off = len(data)
        data.extend(np.ascontiguousarray(arr).tobytes())
        pad = (-len(data)) % 16
        data.extend(b"\0" * pad)
        return off

    cases = [(c, dt, cfg) for c in COMBINERS for dt in ALLOWED[c] for cfg in CONFIGS]
    # NaN propagation: NaN first, last and in the middle of reduced sets, in
    # the inner (contiguous, long enough for the vector path) and lanes layouts.
    for c in ("maximum", "minimum"):
        for dt in ("f32", "f64"):
            cases.append((c, dt, ("nan_inner", (4, 70), (1,), "compact", False)))
            cases.append((c, dt, ("nan_lanes", (70, 4), (0,), "compact", False)))
            cases.append((c, dt, ("nan_all", (70, 4), (0, 1), "compact", False)))
            cases.append((c, dt, ("nan_init", (3, 4), (1,), "compact", True)))

    for comb, dt, (name, shape, axes, kind, has_init) in cases:
        dtype = DTYPES[dt]
        m = 1
        for a in axes:
            m *= shape[a]
        nbase = base_size(shape, kind)
        base = random_values(rng, dt, comb, nbase, m > 64)
        view = make_view(base, shape, kind)
        if name.startswith("nan_") and name != "nan_init":
            view = view.copy()
            flat = view.reshape(-1)
            if name == "nan_inner":  # rows 0 (first), 2 (last), 3 (middle)
                view[0, 0] = view[2, 69] = view[3, 37] = np.nan
            elif name == "nan_lanes":
                view[0, 1] = view[69, 2] = view[40, 3] = np.nan
            else:
                flat[123] = np.nan
            base = view.reshape(-1)
            nbase = base.size
            view = base.reshape(shape)
        if has_init:
            init = random_values(rng, dt, comb, 1, False)[0]
            if name == "nan_init":
                init = dtype.type(np.nan)
        else:
            init = dtype.type(identity(dt, comb))
        # Offset and strides of the view in elements of the base.
        item = dtype.itemsize
        off_bytes = view.__array_interface__["data"][0] - base.__array_interface__["data"][0]
        assert off_bytes % item == 0
        voff = off_bytes // item
        strides = [s // item for s in view.strides]
        x = np.array(view)
        kept = [k for k in range(len(shape)) if k not in axes]
        out_shape = tuple(shape[k] for k in kept)
        rows = np.moveaxis(x, list(axes), list(range(len(kept), len(shape)))).reshape(
            int(np.prod(out_shape, dtype=np.int64)), m)
        want = np.array([reduce_row(dt, comb, r, init) for r in rows]).astype(dtype)
        want = want.reshape(out_shape)
        abs_tol, rel_tol = tolerances(dt, comb, x, want, init, m)

        base_off = put(base)
        init_off = put(np.array([init], dtype=dtype)) if has_init else 0
        out_off = put(want)
        fields = [f"{comb}_{dt}_{name}", dt, str(COMBINERS.index(comb)), str(nbase),
                  str(base_off), str(voff), str(len(shape))]
        fields += [str(s) for s in shape] + [str(s) for s in strides]
        fields += [str(len(axes))] + [str(a) for a in axes]
        fields += ["1" if has_init else "0", str(init_off), str(want.size), str(out_off),
                   repr(abs_tol), repr(rel_tol)]
        lines.append(" ".join(fields))

    with open(os.path.join(out_dir, "data.bin"), "wb") as f:
        f.write(bytes(data))
    with open(os.path.join(out_dir, "manifest.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
