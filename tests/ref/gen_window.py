#!/usr/bin/env python3
"""Reference data for tests/unit/test_window.c (reduce_window, select_and_scatter).

Usage: python3 gen_window.py OUTDIR   (writes OUTDIR/window/manifest.txt and
OUTDIR/window/<case>.<role>.npy)

Both ops are computed by a direct transcription of the StableHLO specification
in plain Python loops over index spaces, not with numpy's array machinery:
  * reduce_window: for each result index i and each window index j (row-major),
    the padded, base-dilated coordinate is p = i * stride + j * window_dilation;
    q = p - padding_low is an operand element when 0 <= q <= (d - 1) * base
    and q % base == 0 (element q // base), else it is init_value. Elements are
    folded sequentially from init_value, acc = body(acc, x), in row-major window
    order (the order ops.h documents).
  * select_and_scatter: for each window (row-major over the source), the first
    non-padding element is selected and replaced by each later non-padding
    element e unless compare(selected, e); the source element is then folded
    into the result at the selected position, windows in row-major order, the
    result starting at init_value everywhere.
Arithmetic uses numpy scalars of the element dtype (each step rounds like the
C kernels), Python integers with explicit wrapping for i32/i64, NaN-propagating
maximum/minimum, and bool max = or, min = and.

manifest.txt, one line per case (lists comma separated, "-" when empty):
  reduce_window NAME DTYPE COMBINER WD WS BD WDL PAD TOL
  select_and_scatter NAME DTYPE DIRECTION COMBINER WD WS PAD TOL
PAD is the flattened [[low, high], ...]. TOL 0 means bit-exact (NaN matches
NaN); otherwise |got - want| <= TOL * (1 + |want|) per element. Files:
NAME.operand.npy, NAME.init.npy, NAME.expected.npy, and NAME.source.npy for
select_and_scatter. numpy and the standard library only.
"""
import itertools
import math
import os
import random
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
# The dtypes of each combiner (among those above): the registry's reduce_<body>.
_REG = op_registry.read()
ALLOWED = {c: op_registry.dtypes_of(_REG, "reduce_" + c, DTYPES)
           for c in ("add", "multiply", "maximum", "minimum", "and", "or", "xor")}
BITS = {"i32": 32, "i64": 64}


def wrap(v, dt):
    b = BITS[dt]
    v &= (1 << b) - 1
    return v - (1 << b) if v >> (b - 1) else v


def body(name, dt, a, b):
    """body(acc, x) on numpy scalars of dtype dt."""
    if dt == "bool":
        a, b = bool(a), bool(b)
        r = {"add": a or b, "multiply": a and b, "maximum": a or b, "minimum": a and b,
             "and": a and b, "or": a or b, "xor": a != b}[name]
        return np.bool_(r)
    if dt in BITS:
        a, b = int(a), int(b)
        r = {"add": a + b, "multiply": a * b, "maximum": max(a, b), "minimum": min(a, b),
             "and": a & b, "or": a | b, "xor": a ^ b}[name]
        return DTYPES[dt].type(wrap(r, dt))
    t = DTYPES[dt].type
    if name == "add":
        return t(a + b)
    if name == "multiply":
        return t(a * b)
    if math.isnan(a) or math.isnan(b):
        return t(math.nan)
    return t(max(a, b) if name == "maximum" else min(a, b))


def compare(direction, a, b):
    if isinstance(a, np.bool_):
        a, b = int(a), int(b)
    return {"EQ": a == b, "NE": a != b, "LT": a < b, "LE": a <= b, "GT": a > b,
            "GE": a >= b}[direction]


def reduce_window(x, init, comb, wd, ws, bd, wdl, pad):
    dt = dtname(x.dtype)
    r = x.ndim
    shape = []
    for k in range(r):
        d = x.shape[k]
        dil = (d - 1) * bd[k] + 1 if d > 0 else 0
        padded = pad[k][0] + dil + pad[k][1]
        dwin = (wd[k] - 1) * wdl[k] + 1
        shape.append(0 if padded == 0 or dwin > padded else (padded - dwin) // ws[k] + 1)
    out = np.empty(shape, dtype=x.dtype)
    for i in itertools.product(*[range(n) for n in shape]):
        acc = init[()]
        for j in itertools.product(*[range(n) for n in wd]):
            q = []
            for k in range(r):
                p = i[k] * ws[k] + j[k] * wdl[k] - pad[k][0]
                if p < 0 or p > (x.shape[k] - 1) * bd[k] or p % bd[k]:
                    q = None
                    break
                q.append(p // bd[k])
            v = init[()] if q is None else x[tuple(q)]
            acc = body(comb, dt, acc, v)
        out[i] = acc
    return out


def select_and_scatter(x, src, init, direction, comb, wd, ws, pad):
    dt = dtname(x.dtype)
    r = x.ndim
    out = np.full(x.shape, init[()], dtype=x.dtype)
    for s in itertools.product(*[range(n) for n in src.shape]):
        sel = None
        for j in itertools.product(*[range(n) for n in wd]):
            q = tuple(s[k] * ws[k] + j[k] - pad[k][0] for k in range(r))
            if any(q[k] < 0 or q[k] >= x.shape[k] for k in range(r)):
                continue  # padding is never selected
            if sel is None or not compare(direction, x[sel], x[q]):
                sel = q
        if sel is not None:
            out[sel] = body(comb, dt, out[sel], src[s])
    return out


def dtname(npdt):
    for k, v in DTYPES.items():
        if v == npdt:
            return k
    raise ValueError(npdt)


def window_count(shape, wd, ws, pad):
    res = []
    for k, d in enumerate(shape):
        padded = pad[k][0] + d + pad[k][1]
        res.append(0 if padded == 0 or wd[k] > padded else (padded - wd[k]) // ws[k] + 1)
    return res


def values(rng, dt, shape, small=False):
    n = int(np.prod(shape)) if shape else 1
    if dt == "bool":
        v = [rng.random() < 0.5 for _ in range(n)]
    elif dt in BITS:
        lim = 3 if small else 100
        v = [rng.randint(-lim, lim) for _ in range(n)]
    elif dt in ("f32", "f64"):
        v = [float(rng.randint(-3, 3)) if small else rng.uniform(-2, 2) for _ in range(n)]
    else:
        v = [complex(rng.randint(-3, 3), rng.randint(-3, 3)) if small
             else complex(rng.uniform(-2, 2), rng.uniform(-2, 2)) for _ in range(n)]
    return np.array(v, dtype=DTYPES[dt]).reshape(shape)


def scalar(dt, v):
    return np.array(v, dtype=DTYPES[dt])


def fmt(v):
    return ",".join(str(int(a)) for a in v) if len(v) else "-"


def tol(dt, comb):
    # Complex products: numpy's formula and the C kernel's may round apart.
    if comb == "multiply" and dt in ("c64", "c128"):
        return "1e-5" if dt == "c64" else "1e-13"
    return "0"


def main():
    out = os.path.join(sys.argv[1], "window")
    os.makedirs(out, exist_ok=True)
    rng = random.Random(20261130)
    lines = []

    def save(name, role, arr):
        np.save(os.path.join(out, "%s.%s.npy" % (name, role)), arr)

    def rw(name, x, init, comb, wd, ws=None, bd=None, wdl=None, pad=None):
        name = "rw_" + name  # file names are per case: one namespace per op
        r = x.ndim
        ws = ws or [1] * r
        bd = bd or [1] * r
        wdl = wdl or [1] * r
        pad = pad or [[0, 0]] * r
        exp = reduce_window(x, init, comb, wd, ws, bd, wdl, pad)
        dt = dtname(x.dtype)
        for role, a in (("operand", x), ("init", init), ("expected", exp)):
            save(name, role, a)
        lines.append("reduce_window %s %s %s %s %s %s %s %s %s" % (
            name, dt, comb, fmt(wd), fmt(ws), fmt(bd), fmt(wdl),
            fmt([p for pr in pad for p in pr]), tol(dt, comb)))

    def ss(name, x, init, direction, comb, wd, ws=None, pad=None, small_src=False):
        name = "ss_" + name
        r = x.ndim
        ws = ws or [1] * r
        pad = pad or [[0, 0]] * r
        dt = dtname(x.dtype)
        src = values(rng, dt, window_count(x.shape, wd, ws, pad), small_src)
        exp = select_and_scatter(x, src, init, direction, comb, wd, ws, pad)
        for role, a in (("operand", x), ("source", src), ("init", init), ("expected", exp)):
            save(name, role, a)
        lines.append("select_and_scatter %s %s %s %s %s %s %s %s" % (
            name, dt, direction, comb, fmt(wd), fmt(ws),
            fmt([p for pr in pad for p in pr]), tol(dt, comb)))

    # ---- reduce_window ----
    # cumsum / cumprod as XLA writes them: a window as long as the axis,
    # padded low by length - 1.
    rw("cumsum_f32", values(rng, "f32", (7,)), scalar("f32", 0), "add", [7], pad=[[6, 0]])
    rw("cumsum_i32", values(rng, "i32", (7,)), scalar("i32", 0), "add", [7], pad=[[6, 0]])
    rw("cumprod_f64", values(rng, "f64", (5, 3)), scalar("f64", 1), "multiply", [5, 1],
       pad=[[4, 0], [0, 0]])
    rw("maxpool_f64", values(rng, "f64", (6, 7)), scalar("f64", -math.inf), "maximum", [2, 3],
       ws=[2, 2])
    rw("maxpool_pad_i64", values(rng, "i64", (5, 5)), scalar("i64", -(1 << 63)), "maximum",
       [3, 3], ws=[2, 2], pad=[[1, 1], [1, 1]])
    rw("dilations_f64", values(rng, "f64", (5, 4)), scalar("f64", 0.5), "add", [2, 2],
       ws=[1, 2], bd=[2, 1], wdl=[1, 2], pad=[[1, 0], [0, 2]])
    rw("dilations_i32", values(rng, "i32", (4, 6)), scalar("i32", 7), "minimum", [3, 2],
       ws=[2, 1], bd=[3, 2], wdl=[2, 3], pad=[[2, 1], [1, 0]])
    rw("negative_pad_i64", values(rng, "i64", (6,)), scalar("i64", 50), "minimum", [2],
       pad=[[-1, 2]])
    rw("empty_result", values(rng, "f32", (3, 4)), scalar("f32", 0), "add", [4, 1])
    rw("empty_operand", values(rng, "f32", (0, 3)), scalar("f32", 1.5), "add", [1, 1],
       pad=[[2, 0], [0, 0]])
    rw("rank0", values(rng, "f64", ()), scalar("f64", 2.0), "multiply", [])
    nan_x = values(rng, "f32", (6,))
    nan_x[2] = np.nan
    rw("nan_max_f32", nan_x, scalar("f32", -math.inf), "maximum", [3])
    rw("rank3_f32", values(rng, "f32", (3, 4, 5)), scalar("f32", 0), "add", [2, 1, 3],
       ws=[1, 2, 2], pad=[[0, 1], [1, 1], [2, 0]])
    for comb, dts in ALLOWED.items():
        for dt in dts:
            init = values(rng, dt, ())
            rw("all_%s_%s" % (comb, dt), values(rng, dt, (4, 5)), init, comb, [2, 2],
               ws=[1, 2], pad=[[1, 0], [0, 1]])

    # ---- select_and_scatter ----
    # Small integer values make ties: the first in window order must win.
    ss("ge_f32_ties", values(rng, "f32", (4, 6), small=True), scalar("f32", 0), "GE", "add",
       [2, 3], ws=[2, 3])
    ss("le_i32_overlap", values(rng, "i32", (5, 5), small=True), scalar("i32", 0), "LE", "add",
       [3, 3])
    ss("ge_f64_overlap_pad", values(rng, "f64", (4, 5), small=True), scalar("f64", 0), "GE",
       "add", [2, 2], ws=[1, 2], pad=[[1, 1], [0, 1]])
    ss("gt_f64_pad_only_windows", values(rng, "f64", (3, 3)), scalar("f64", -0.0), "GT", "add",
       [2, 2], ws=[2, 2], pad=[[2, 1], [0, 2]])
    ss("bool_or", values(rng, "bool", (2, 4, 6)), scalar("bool", False), "GE", "or",
       [2, 2, 2])
    ss("lt_i64_max", values(rng, "i64", (6, 4), small=True), scalar("i64", 0), "LT", "maximum",
       [2, 2], ws=[1, 1])
    ss("rank0", values(rng, "f32", ()), scalar("f32", 1.25), "GE", "add", [])
    ss("empty_operand", values(rng, "f32", (0, 3)), scalar("f32", 0), "GE", "add", [1, 1])
    ss("no_windows", values(rng, "f32", (2, 3)), scalar("f32", 3.0), "GE", "add", [3, 1])
    for comb, dts in ALLOWED.items():
        for dt in dts:
            direction = "EQ" if dt in ("c64", "c128") else "GE"
            ss("all_%s_%s" % (comb, dt), values(rng, dt, (4, 4), small=True),
               values(rng, dt, ()), direction, comb, [2, 2])

    with open(os.path.join(out, "manifest.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
