#!/usr/bin/env python3
"""Reference data for tests/unit/test_cpu_indexing.c.

Usage: python3 gen_indexing.py OUTDIR   (writes OUTDIR/indexing/manifest.txt
and OUTDIR/indexing/data.bin)

gather and scatter are computed here by a direct transcription of the
StableHLO specification's semantics (openxla.org/stablehlo/spec, sections
gather and scatter, batching dims included), in plain Python loops over
index spaces: result index -> operand index for gather; update index ->
result index for scatter. Two rules are the library's where the spec leaves
room (see tests/conformance/FORMAT.md):
  * scatter skips an update window whole when any of its elements falls out
    of bounds, and applies windows in row-major order of the update scatter
    dims (the "schedule"), each window's elements together;
  * float maximum/minimum propagate NaN; complex maximum/minimum compare
    (re, im) lexicographically; integers wrap.
Arithmetic on elements uses numpy scalars of the element's dtype (so every
float operation rounds like the C kernel's), Python integers with explicit
wrapping for i32/i64, and explicit textbook formulas for complex products.
The spec's own examples for gather and scatter are included with their
expected results typed in from the spec text, and checked against the
transcription before anything is written.

slice, reverse, pad, concatenate, dynamic_slice and dynamic_update_slice are
computed with numpy indexing (independent of the library's view arithmetic).

manifest.txt holds one block per case:
  case NAME OP
  attr KEY v0,v1,...        (integers; "-" for an empty list)
  tensor ROLE DTYPE SHAPE OFFSET NBYTES
  end
SHAPE is comma separated ("-" for rank 0); OFFSET/NBYTES locate the raw
little-endian row-major elements in data.bin. numpy and the standard library
only.
"""
import itertools
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
ALL = list(DTYPES)
COMBINERS = ["replace", "add", "multiply", "maximum", "minimum"]  # tfr_scatter_combiner order
# The dtypes of each combiner (among those above), as the core takes them: the
# registry's scatter row for replace, the binary op of the same name otherwise.
_REG = op_registry.read()
COMBINER_DTYPES = {c: op_registry.dtypes_of(_REG, "scatter" if c == "replace" else c, DTYPES)
                   for c in COMBINERS}


def dtype_name(arr):
    for k, v in DTYPES.items():
        if arr.dtype == v:
            return k
    raise ValueError(arr.dtype)


# ---------------------------------------------------------------------------
# Element arithmetic
# ---------------------------------------------------------------------------

def wrap(v, bits):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >= 1 << (bits - 1) else v


def is_nan(v):
    return v != v


def combine(name, dt, a, x):
    """combiner(a = current result element, x = update element) in dtype dt."""
    if name == "replace":
        return x
    if dt == "bool":
        a, x = bool(a), bool(x)
        if name == "maximum":
            return a or x
        if name == "minimum":
            return a and x
        raise ValueError(name)
    if dt in ("i32", "i64"):
        bits = 32 if dt == "i32" else 64
        a, x = int(a), int(x)
        if name == "add":
            return wrap(a + x, bits)
        if name == "multiply":
            return wrap(a * x, bits)
        if name == "maximum":
            return max(a, x)
        if name == "minimum":
            return min(a, x)
        raise ValueError(name)
    if dt in ("f32", "f64"):
        t = np.float32 if dt == "f32" else np.float64
        a, x = t(a), t(x)
        if name == "add":
            return a + x
        if name == "multiply":
            return a * x
        if is_nan(a):
            return a
        if is_nan(x):
            return x
        if name == "maximum":
            return x if x > a else a
        if name == "minimum":
            return x if x < a else a
        raise ValueError(name)
    # complex: parts in the real dtype of the same precision
    t = np.float32 if dt == "c64" else np.float64
    ar, ai, xr, xi = t(a.real), t(a.imag), t(x.real), t(x.imag)
    if name == "add":
        re, im = ar + xr, ai + xi
    elif name == "multiply":
        re, im = ar * xr - ai * xi, ar * xi + ai * xr
    else:
        if is_nan(ar) or is_nan(ai):
            re, im = ar, ai
        elif is_nan(xr) or is_nan(xi):
            re, im = xr, xi
        else:
            if name == "maximum":
                take = xr > ar or (xr == ar and xi > ai)
            else:
                take = xr < ar or (xr == ar and xi < ai)
            re, im = (xr, xi) if take else (ar, ai)
    c = np.complex64 if dt == "c64" else np.complex128
    out = np.zeros((), dtype=c)
    out.real = re
    out.imag = im
    return out[()]


# ---------------------------------------------------------------------------
# StableHLO gather / scatter, transcribed from the spec
# ---------------------------------------------------------------------------

def index_space(shape):
    return itertools.product(*[range(s) for s in shape])


def clamp(v, lo, hi):
    return min(max(v, lo), hi)


def start_index_of(indices, batch_index, ivd):
    """start_indices[bi0, ..., :, ..., biN] (`:` at index_vector_dim), or
    [start_indices[batch_index]] when index_vector_dim = rank."""
    if ivd < indices.ndim:
        sl = list(batch_index)
        sl.insert(ivd, slice(None))
        return [int(v) for v in indices[tuple(sl)]]
    return [int(indices[tuple(batch_index)])]


def ref_gather(operand, start_indices, offset_dims, collapsed_slice_dims,
               operand_batching_dims, start_indices_batching_dims, start_index_map,
               index_vector_dim, slice_sizes):
    ivd = index_vector_dim
    # (C22) shape(result) = combine(batch_dim_sizes, offset_dim_sizes)
    batch_dim_sizes = [s for k, s in enumerate(start_indices.shape) if k != ivd]
    offset_dim_sizes = [slice_sizes[k] for k in range(operand.ndim)
                        if k not in collapsed_slice_dims and k not in operand_batching_dims]
    rank = len(batch_dim_sizes) + len(offset_dim_sizes)
    batch_dims = [d for d in range(rank) if d not in offset_dims]
    shape = [0] * rank
    for d, s in zip(offset_dims, offset_dim_sizes):
        shape[d] = s
    for d, s in zip(batch_dims, batch_dim_sizes):
        shape[d] = s
    result = np.zeros(shape, dtype=operand.dtype)
    for result_index in index_space(shape):
        batch_index = [result_index[d] for d in batch_dims]
        start_index = start_index_of(start_indices, batch_index, ivd)
        full_start_index = [0] * operand.ndim
        for d_start, d_operand in enumerate(start_index_map):
            full_start_index[d_operand] = clamp(
                start_index[d_start], 0, operand.shape[d_operand] - slice_sizes[d_operand])
        full_batching_index = [0] * operand.ndim
        for i_batching, d_operand in enumerate(operand_batching_dims):
            d_start = start_indices_batching_dims[i_batching]
            full_batching_index[d_operand] = batch_index[d_start - (0 if d_start < ivd else 1)]
        offset_index = [result_index[d] for d in offset_dims]
        full_offset_index = []
        it = iter(offset_index)
        for k in range(operand.ndim):
            if k in collapsed_slice_dims or k in operand_batching_dims:
                full_offset_index.append(0)
            else:
                full_offset_index.append(next(it))
        operand_index = tuple(a + b + c for a, b, c in
                              zip(full_start_index, full_batching_index, full_offset_index))
        result[tuple(result_index)] = operand[operand_index]
    return result


def ref_scatter(inp, scatter_indices, updates, update_window_dims, inserted_window_dims,
                input_batching_dims, scatter_indices_batching_dims,
                scatter_dims_to_operand_dims, index_vector_dim, combiner):
    ivd = index_vector_dim
    dt = dtype_name(inp)
    results = inp.copy()
    update_scatter_dims = [d for d in range(updates.ndim) if d not in update_window_dims]
    scatter_shape = [updates.shape[d] for d in update_scatter_dims]
    window_shape = [updates.shape[d] for d in update_window_dims]
    # The schedule: update scatter indices in row-major order; for each, its
    # window in row-major order.
    for update_scatter_index in index_space(scatter_shape):
        start_index = start_index_of(scatter_indices, update_scatter_index, ivd)
        full_start_index = [0] * inp.ndim
        for d_start, d_input in enumerate(scatter_dims_to_operand_dims):
            full_start_index[d_input] = start_index[d_start]
        full_batching_index = [0] * inp.ndim
        for i_batching, d_input in enumerate(input_batching_dims):
            d_start = scatter_indices_batching_dims[i_batching]
            full_batching_index[d_input] = update_scatter_index[
                d_start - (0 if d_start < ivd else 1)]
        pairs = []
        for update_window_index in index_space(window_shape):
            update_index = [0] * updates.ndim
            for d, v in zip(update_scatter_dims, update_scatter_index):
                update_index[d] = v
            for d, v in zip(update_window_dims, update_window_index):
                update_index[d] = v
            full_window_index = []
            it = iter(update_window_index)
            for k in range(inp.ndim):
                if k in inserted_window_dims or k in input_batching_dims:
                    full_window_index.append(0)
                else:
                    full_window_index.append(next(it))
            result_index = tuple(a + b + c for a, b, c in
                                 zip(full_start_index, full_batching_index, full_window_index))
            pairs.append((result_index, tuple(update_index)))
        in_bounds = all(all(0 <= r < s for r, s in zip(ri, inp.shape)) for ri, _ in pairs)
        if not in_bounds:
            continue  # the whole window is skipped
        for ri, ui in pairs:
            results[ri] = combine(combiner, dt, results[ri], updates[ui])
    return results


# ---------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------

def rand_values(rng, dt, shape, special=False, ints=60):
    n = int(np.prod(shape, dtype=np.int64)) if len(shape) else 1
    if dt == "bool":
        v = np.array([rng.random() < 0.5 for _ in range(n)], dtype=bool)
    elif dt in ("i32", "i64"):
        vals = [rng.randint(-ints, ints) for _ in range(n)]
        if special:
            big = 2**31 - 1 if dt == "i32" else 2**63 - 1
            for i in range(0, n, 5):
                vals[i] = rng.choice([big, -big - 1, big - 3, 1 << 20])
        v = np.array(vals, dtype=DTYPES[dt])
    else:
        def f():
            return rng.randint(-64, 64) / 16.0 + rng.random() / 1024.0
        if dt in ("f32", "f64"):
            vals = [f() for _ in range(n)]
            if special:
                sp = [float("nan"), -0.0, 0.0, float("inf"), -float("inf")]
                for i in range(0, n, 3):
                    vals[i] = sp[(i // 3) % len(sp)]
            v = np.array(vals, dtype=DTYPES[dt])
        else:
            re = [f() for _ in range(n)]
            im = [f() for _ in range(n)]
            if special:
                for i in range(0, n, 4):
                    if (i // 4) % 3 == 0:
                        re[i] = float("nan")
                    elif (i // 4) % 3 == 1:
                        im[i] = float("nan")
                    else:
                        re[i] = re[(i + 1) % n] if n > 1 else re[i]  # equal real parts
            v = np.array([complex(a, b) for a, b in zip(re, im)], dtype=DTYPES[dt])
    return v.reshape(shape)


def as_i64(a):
    return np.array(a, dtype=np.int64)


# ---------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------

class Writer:
    def __init__(self):
        self.lines = []
        self.data = bytearray()
        self.names = set()

    def case(self, name, op, attrs, tensors):
        assert name not in self.names, name
        self.names.add(name)
        self.lines.append("case %s %s" % (name, op))
        for k, v in attrs.items():
            if isinstance(v, (list, tuple)):
                s = ",".join(str(int(x)) for x in v) if len(v) else "-"
            else:
                s = str(int(v))
            self.lines.append("attr %s %s" % (k, s))
        for role, arr in tensors:
            arr = np.asarray(arr)  # (ascontiguousarray would make rank 0 rank 1)
            dt = dtype_name(arr)
            raw = arr.astype(arr.dtype.newbyteorder("<"), copy=False).tobytes()
            while len(self.data) % 16:
                self.data.append(0)
            off = len(self.data)
            self.data += raw
            shape = ",".join(str(s) for s in arr.shape) if arr.ndim else "-"
            self.lines.append("tensor %s %s %s %d %d" % (role, dt, shape, off, len(raw)))
        self.lines.append("end")

    def save(self, outdir):
        d = os.path.join(outdir, "indexing")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "data.bin"), "wb") as f:
            f.write(bytes(self.data))
        with open(os.path.join(d, "manifest.txt"), "w") as f:
            f.write("\n".join(self.lines) + "\n")


GATHER_KEYS = ["offset_dims", "collapsed_slice_dims", "operand_batching_dims",
               "start_indices_batching_dims", "start_index_map", "index_vector_dim",
               "slice_sizes"]
SCATTER_KEYS = ["update_window_dims", "inserted_window_dims", "input_batching_dims",
                "scatter_indices_batching_dims", "scatter_dims_to_operand_dims",
                "index_vector_dim"]


def emit_gather(w, name, operand, indices, cfg, expected=None):
    res = ref_gather(operand, indices, *[cfg[k] for k in GATHER_KEYS])
    if expected is not None:
        assert res.shape == expected.shape and np.array_equal(res, expected), name
    w.case(name, "gather", cfg, [("operand", operand), ("indices", as_i64(indices)),
                                 ("expected", res)])


def emit_scatter(w, name, operand, indices, updates, cfg, combiner, expected=None):
    res = ref_scatter(operand, indices, updates, *[cfg[k] for k in SCATTER_KEYS], combiner)
    if expected is not None:
        assert np.array_equal(res, expected, equal_nan=res.dtype.kind in "fc"), name
    attrs = dict(cfg)
    attrs["combiner"] = COMBINERS.index(combiner)
    w.case(name, "scatter", attrs, [("operand", operand), ("indices", as_i64(indices)),
                                    ("updates", updates), ("expected", res)])


# ---------------------------------------------------------------------------
# The spec's examples and hand-derived cases
# ---------------------------------------------------------------------------

def spec_examples(w):
    operand = np.arange(1, 49, dtype=np.int32).reshape(2, 3, 4, 2)
    start_indices = np.array([[[[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 9]]],
                              [[[0, 0], [2, 1], [2, 2]], [[1, 2], [0, 1], [1, 0]]]])
    expected = np.array([
        [[[[1, 2], [3, 4]], [[3, 4], [5, 6]], [[13, 14], [15, 16]]],
         [[[33, 34], [35, 36]], [[35, 36], [37, 38]], [[41, 42], [43, 44]]]],
        [[[[1, 2], [3, 4]], [[13, 14], [15, 16]], [[21, 22], [23, 24]]],
         [[[43, 44], [45, 46]], [[33, 34], [35, 36]], [[27, 28], [29, 30]]]]], dtype=np.int32)
    cfg = dict(offset_dims=[3, 4], collapsed_slice_dims=[1], operand_batching_dims=[0],
               start_indices_batching_dims=[1], start_index_map=[2, 1], index_vector_dim=3,
               slice_sizes=[1, 1, 2, 2])
    emit_gather(w, "spec_gather_example", operand, start_indices, cfg, expected)

    inp = np.arange(1, 49, dtype=np.int64).reshape(2, 3, 4, 2)
    updates = np.ones((2, 2, 3, 2, 2), dtype=np.int64)
    expected = np.array([
        [[[3, 4], [6, 7], [6, 7], [7, 8]], [[9, 10], [11, 12], [15, 16], [17, 18]],
         [[17, 18], [19, 20], [22, 23], [24, 25]]],
        [[[25, 26], [28, 29], [30, 31], [31, 32]], [[35, 36], [38, 39], [38, 39], [39, 40]],
         [[41, 42], [44, 45], [46, 47], [47, 48]]]], dtype=np.int64)
    cfg = dict(update_window_dims=[3, 4], inserted_window_dims=[1], input_batching_dims=[0],
               scatter_indices_batching_dims=[1], scatter_dims_to_operand_dims=[2, 1],
               index_vector_dim=3)
    emit_scatter(w, "spec_scatter_example", inp, start_indices, updates, cfg, "add", expected)

    # Hand-derived: numpy-style row gather x[[2, 0, 2, -1, 7]] of a 3x2
    # matrix: starts clamp to [0, 2], so -1 -> row 0 and 7 -> row 2.
    x = np.array([[1, 2], [3, 4], [5, 6]], dtype=np.float32)
    cfg = dict(offset_dims=[1], collapsed_slice_dims=[0], operand_batching_dims=[],
               start_indices_batching_dims=[], start_index_map=[0], index_vector_dim=1,
               slice_sizes=[1, 2])
    emit_gather(w, "hand_gather_rows", x, np.array([2, 0, 2, -1, 7]), cfg,
                np.array([[5, 6], [1, 2], [5, 6], [1, 2], [5, 6]], dtype=np.float32))
    # A 2x2 window at starts (1, 1) and (2, 5) of a 3x4 matrix: the second
    # clamps to (1, 2).
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    cfg = dict(offset_dims=[1, 2], collapsed_slice_dims=[], operand_batching_dims=[],
               start_indices_batching_dims=[], start_index_map=[0, 1], index_vector_dim=1,
               slice_sizes=[2, 2])
    emit_gather(w, "hand_gather_windows", x, np.array([[1, 1], [2, 5]]), cfg,
                np.array([[[5, 6], [9, 10]], [[6, 7], [10, 11]]], dtype=np.int32))
    # Scatter-add into a vector with duplicates and out-of-bounds indices:
    # indices 1, 3, 1, -1, 4 with updates 10, 20, 30, 40, 50 into [0, 0, 0, 0].
    cfg = dict(update_window_dims=[], inserted_window_dims=[0], input_batching_dims=[],
               scatter_indices_batching_dims=[], scatter_dims_to_operand_dims=[0],
               index_vector_dim=1)
    emit_scatter(w, "hand_scatter_add_dups", np.zeros(4, dtype=np.int32),
                 np.array([1, 3, 1, -1, 4]), np.array([10, 20, 30, 40, 50], dtype=np.int32),
                 cfg, "add", np.array([0, 40, 0, 20], dtype=np.int32))
    # Replace: the later duplicate wins.
    emit_scatter(w, "hand_scatter_replace_dups", np.zeros(4, dtype=np.int32),
                 np.array([1, 3, 1]), np.array([10, 20, 30], dtype=np.int32), cfg, "replace",
                 np.array([0, 30, 0, 20], dtype=np.int32))
    # Complex maximum/minimum: lexicographic on (re, im), ties on the real
    # part decided by the imaginary part, NaN in either part propagating.
    nan = float("nan")
    for dt in ("c64", "c128"):
        t = DTYPES[dt]
        operand = np.array([1 + 2j, 1 + 2j, 3 + 1j, 2 + 0j], dtype=t)
        upd = np.array([1 + 3j, 1 + 1j, complex(3, nan), 5 - 1j, 2 + 9j], dtype=t)
        idx = np.array([0, 1, 2, 3, 3])
        emit_scatter(w, "hand_scatter_max_%s" % dt, operand, idx, upd, cfg, "maximum",
                     np.array([1 + 3j, 1 + 2j, complex(3, nan), 5 - 1j], dtype=t))
        emit_scatter(w, "hand_scatter_min_%s" % dt, operand, idx, upd, cfg, "minimum",
                     np.array([1 + 2j, 1 + 1j, complex(3, nan), 2 + 0j], dtype=t))
    # Windows of 2 rows into a 3x2 matrix: start 1 fits, start 2 does not (its
    # second row would be row 3): skipped whole, not clipped.
    cfg = dict(update_window_dims=[1, 2], inserted_window_dims=[], input_batching_dims=[],
               scatter_indices_batching_dims=[], scatter_dims_to_operand_dims=[0],
               index_vector_dim=1)
    emit_scatter(w, "hand_scatter_window_skip", np.zeros((3, 2), dtype=np.float64),
                 np.array([[1], [2]]), np.ones((2, 2, 2), dtype=np.float64), cfg, "add",
                 np.array([[0, 0], [1, 1], [1, 1]], dtype=np.float64))


# ---------------------------------------------------------------------------
# Random dimension numbers
# ---------------------------------------------------------------------------

def random_gather(rng, dt, allow_empty):
    r = rng.randint(1, 4)
    roles = [rng.choice("wwwcb") for _ in range(r)]
    ext = [rng.randint(1, 4) for _ in range(r)]
    if allow_empty and rng.random() < 0.3:
        k = rng.randrange(r)
        if roles[k] == "w":
            ext[k] = 0
    collapsed = [k for k in range(r) if roles[k] == "c"]
    obatch = [k for k in range(r) if roles[k] == "b"]
    cand = [k for k in range(r) if roles[k] != "b"]
    sim = rng.sample(cand, rng.randint(0, len(cand)))
    slice_sizes = [1 if roles[k] != "w" else rng.randint(0 if ext[k] == 0 else 1, ext[k])
                   for k in range(r)]
    # index batch axes: the operand batching axes (same extents) and some
    # implicit ones, in random order
    axes = [("b", k, ext[k]) for k in obatch]
    for _ in range(rng.randint(0, 2)):
        axes.append(("x", -1, rng.randint(0 if allow_empty else 1, 3)))
    rng.shuffle(axes)
    if len(sim) == 1 and rng.random() < 0.4:
        ivd = len(axes)  # implicit trailing vector axis
        ishape = [a[2] for a in axes]
    else:
        ivd = rng.randint(0, len(axes))
        ishape = [a[2] for a in axes]
        ishape.insert(ivd, len(sim))
    sibatch = []
    for k in obatch:
        j = [i for i, a in enumerate(axes) if a[0] == "b" and a[1] == k][0]
        sibatch.append(j if j < ivd else j + 1)
    nbatch = len(axes)
    nwin = r - len(collapsed) - len(obatch)
    offset_dims = sorted(rng.sample(range(nbatch + nwin), nwin))
    operand = rand_values(rng, dt, ext)
    hi = [ext[k] - slice_sizes[k] for k in range(r)]
    vals = []
    for pos in index_space(ishape):
        if ivd < len(ishape):
            comp = pos[ivd]
            k = sim[comp]
            vals.append(rng.randint(-2, hi[k] + 2))
        else:
            vals.append(rng.randint(-2, hi[sim[0]] + 2))
    indices = np.array(vals, dtype=np.int64).reshape(ishape)
    cfg = dict(offset_dims=offset_dims, collapsed_slice_dims=collapsed,
               operand_batching_dims=obatch, start_indices_batching_dims=sibatch,
               start_index_map=sim, index_vector_dim=ivd, slice_sizes=slice_sizes)
    return operand, indices, cfg


def random_scatter(rng, dt, combiner, allow_empty, special):
    r = rng.randint(1, 4)
    roles = [rng.choice("wwwib") for _ in range(r)]
    ext = [rng.randint(1, 4) for _ in range(r)]
    if allow_empty and rng.random() < 0.3:
        ext[rng.randrange(r)] = 0
    inserted = [k for k in range(r) if roles[k] == "i"]
    ibatch = [k for k in range(r) if roles[k] == "b"]
    cand = [k for k in range(r) if roles[k] != "b"]
    sdod = rng.sample(cand, rng.randint(0, len(cand)))
    wsize = {k: rng.randint(0 if allow_empty else min(1, ext[k]), ext[k])
             for k in range(r) if roles[k] == "w"}
    axes = [("b", k, ext[k]) for k in ibatch]
    for _ in range(rng.randint(0, 2)):
        axes.append(("x", -1, rng.randint(1, 4)))
    rng.shuffle(axes)
    if len(sdod) == 1 and rng.random() < 0.4:
        ivd = len(axes)
        ishape = [a[2] for a in axes]
    else:
        ivd = rng.randint(0, len(axes))
        ishape = [a[2] for a in axes]
        ishape.insert(ivd, len(sdod))
    sibatch = []
    for k in ibatch:
        j = [i for i, a in enumerate(axes) if a[0] == "b" and a[1] == k][0]
        sibatch.append(j if j < ivd else j + 1)
    nbatch = len(axes)
    wins = [k for k in range(r) if roles[k] == "w"]
    uwd = sorted(rng.sample(range(nbatch + len(wins)), len(wins)))
    ushape = [0] * (nbatch + len(wins))
    for d, k in zip(uwd, wins):
        ushape[d] = wsize[k]
    scat = [d for d in range(len(ushape)) if d not in uwd]
    for d, a in zip(scat, axes):
        ushape[d] = a[2]
    operand = rand_values(rng, dt, ext, special)
    updates = rand_values(rng, dt, ushape, special)
    vals = []
    for pos in index_space(ishape):
        k = sdod[pos[ivd]] if ivd < len(ishape) else sdod[0]
        hi = ext[k] - (wsize[k] if k in wsize else 1)
        # a small range: duplicates are common, and a few starts fall out
        vals.append(rng.randint(-1, max(hi, 0) + 1) if rng.random() < 0.2
                    else rng.randint(0, max(hi, 0)))
    indices = np.array(vals, dtype=np.int64).reshape(ishape)
    cfg = dict(update_window_dims=uwd, inserted_window_dims=inserted, input_batching_dims=ibatch,
               scatter_indices_batching_dims=sibatch, scatter_dims_to_operand_dims=sdod,
               index_vector_dim=ivd)
    return operand, indices, updates, cfg


def gather_cases(w, rng):
    for i in range(84):
        dt = ALL[i % len(ALL)]
        operand, indices, cfg = random_gather(rng, dt, allow_empty=i % 6 == 5)
        emit_gather(w, "gather_rand%d_%s" % (i, dt), operand, indices, cfg)
    # Starts far outside the operand (clamped), beyond i32 (an i64-only case).
    x = rand_values(rng, "f64", [5, 3])
    cfg = dict(offset_dims=[1], collapsed_slice_dims=[0], operand_batching_dims=[],
               start_indices_batching_dims=[], start_index_map=[0], index_vector_dim=1,
               slice_sizes=[1, 3])
    emit_gather(w, "gather_huge_starts", x, np.array([-(2**62), 2**40, 3, -(2**33)]), cfg)
    # An empty index set (no batch positions) and an empty index vector.
    emit_gather(w, "gather_no_indices", x, np.zeros((0,), dtype=np.int64), cfg)
    cfg0 = dict(offset_dims=[1, 2], collapsed_slice_dims=[], operand_batching_dims=[],
                start_indices_batching_dims=[], start_index_map=[], index_vector_dim=1,
                slice_sizes=[2, 2])
    emit_gather(w, "gather_empty_vector", x, np.zeros((3, 0), dtype=np.int64), cfg0)
    # Rank-0 operand-like: a 1-element window from a 1-D operand, rank-0 index.
    cfg1 = dict(offset_dims=[], collapsed_slice_dims=[0], operand_batching_dims=[],
                start_indices_batching_dims=[], start_index_map=[0], index_vector_dim=0,
                slice_sizes=[1])
    emit_gather(w, "gather_scalar_index", rand_values(rng, "c128", [4]), np.array(2), cfg1)
    # Parallel paths: many batch positions; one big window.
    x = rand_values(rng, "f32", [300, 70])
    cfg = dict(offset_dims=[1], collapsed_slice_dims=[0], operand_batching_dims=[],
               start_indices_batching_dims=[], start_index_map=[0], index_vector_dim=1,
               slice_sizes=[1, 70])
    idx = np.array([rng.randint(-5, 305) for _ in range(1000)]).reshape(1000, 1)
    emit_gather(w, "gather_big_many", x, idx, cfg)
    x = rand_values(rng, "i32", [400, 100])
    cfg = dict(offset_dims=[0, 1], collapsed_slice_dims=[], operand_batching_dims=[],
               start_indices_batching_dims=[], start_index_map=[1, 0], index_vector_dim=0,
               slice_sizes=[350, 99])
    emit_gather(w, "gather_big_window", x, np.array([1, 30]), cfg)


def scatter_cases(w, rng):
    n = 0
    for comb in COMBINERS:
        dts = COMBINER_DTYPES[comb]
        for i in range(3 * len(dts)):
            dt = dts[i % len(dts)]
            special = comb in ("maximum", "minimum") and i >= len(dts)
            operand, indices, updates, cfg = random_scatter(
                rng, dt, comb, allow_empty=i % 5 == 4, special=special)
            emit_scatter(w, "scatter_rand%d_%s_%s" % (n, comb, dt), operand, indices, updates,
                         cfg, comb)
            n += 1
        # Duplicate indices for every combiner and dtype: six updates into
        # two rows of a 3x2 matrix, plus one out-of-bounds start.
        for dt in dts:
            cfg = dict(update_window_dims=[1], inserted_window_dims=[0], input_batching_dims=[],
                       scatter_indices_batching_dims=[], scatter_dims_to_operand_dims=[0],
                       index_vector_dim=1)
            operand = rand_values(rng, dt, [3, 2], special=False)
            updates = rand_values(rng, dt, [7, 2], special=comb in ("maximum", "minimum"))
            emit_scatter(w, "scatter_dups_%s_%s" % (comb, dt), operand,
                         np.array([2, 0, 2, 2, 3, 0, 2]), updates, cfg, comb)
    # Integer wrap-around of add and multiply.
    cfg = dict(update_window_dims=[], inserted_window_dims=[0], input_batching_dims=[],
               scatter_indices_batching_dims=[], scatter_dims_to_operand_dims=[0],
               index_vector_dim=1)
    for dt in ("i32", "i64"):
        big = 2**31 - 1 if dt == "i32" else 2**63 - 1
        for comb in ("add", "multiply"):
            emit_scatter(w, "scatter_wrap_%s_%s" % (comb, dt),
                         np.array([big, 3, -big], dtype=DTYPES[dt]), np.array([0, 0, 2, 1, 2]),
                         np.array([big, 5, -7, big, 1 << 20], dtype=DTYPES[dt]), cfg, comb)
    # Starts beyond i32 (skipped), no update positions, empty operand.
    x = rand_values(rng, "f32", [4, 2])
    cfg = dict(update_window_dims=[1], inserted_window_dims=[0], input_batching_dims=[],
               scatter_indices_batching_dims=[], scatter_dims_to_operand_dims=[0],
               index_vector_dim=1)
    emit_scatter(w, "scatter_huge_starts", x, np.array([2**40, 1, -(2**62), 3]),
                 rand_values(rng, "f32", [4, 2]), cfg, "add")
    emit_scatter(w, "scatter_no_indices", x, np.zeros((0,), dtype=np.int64),
                 np.zeros((0, 2), dtype=np.float32), cfg, "multiply")
    emit_scatter(w, "scatter_empty_operand", np.zeros((0, 2), dtype=np.float32),
                 np.array([0, 1]), rand_values(rng, "f32", [2, 2]), cfg, "add")
    # Parallel window path with overlapping big windows (order matters for
    # the float sums).
    x = rand_values(rng, "f32", [400, 100])
    cfg = dict(update_window_dims=[1, 2], inserted_window_dims=[], input_batching_dims=[],
               scatter_indices_batching_dims=[], scatter_dims_to_operand_dims=[0],
               index_vector_dim=1)
    emit_scatter(w, "scatter_big_windows", x, np.array([[0], [10], [0], [51]]),
                 rand_values(rng, "f32", [4, 350, 100]), cfg, "add")


# ---------------------------------------------------------------------------
# slice, reverse, pad, concatenate, dynamic_slice, dynamic_update_slice
# ---------------------------------------------------------------------------

def structural_cases(w, rng):
    for i, dt in enumerate(ALL * 2):
        shape = [rng.randint(1, 5) for _ in range(rng.randint(1, 3))]
        x = rand_values(rng, dt, shape)
        start = [rng.randint(0, s) for s in shape]
        limit = [rng.randint(a, s) for a, s in zip(start, shape)]
        strides = [rng.randint(1, 3) for _ in shape]
        sl = tuple(slice(a, b, c) for a, b, c in zip(start, limit, strides))
        w.case("slice%d_%s" % (i, dt), "slice",
               dict(start=start, limit=limit, strides=strides),
               [("operand", x), ("expected", x[sl])])
        dims = sorted(rng.sample(range(len(shape)), rng.randint(0, len(shape))))
        w.case("reverse%d_%s" % (i, dt), "reverse", dict(dims=dims),
               [("operand", x), ("expected", np.flip(x, axis=tuple(dims)) if dims else x)])
        # dynamic_slice: starts anywhere in [-3, extent + 3], clamped.
        sizes = [rng.randint(0, s) for s in shape]
        starts = [rng.randint(-3, s + 3) for s in shape]
        cl = [min(max(a, 0), s - z) for a, s, z in zip(starts, shape, sizes)]
        ds = x[tuple(slice(a, a + z) for a, z in zip(cl, sizes))]
        w.case("dynamic_slice%d_%s" % (i, dt), "dynamic_slice", dict(sizes=sizes),
               [("operand", x), ("starts", as_i64(starts)), ("expected", ds)])
        usz = [rng.randint(0 if i % 4 == 3 else 1, s) for s in shape]
        upd = rand_values(rng, dt, usz)
        cl = [min(max(a, 0), s - z) for a, s, z in zip(starts, shape, usz)]
        y = x.copy()
        y[tuple(slice(a, a + z) for a, z in zip(cl, usz))] = upd
        w.case("dynamic_update_slice%d_%s" % (i, dt), "dynamic_update_slice", {},
               [("operand", x), ("update", upd), ("starts", as_i64(starts)), ("expected", y)])
    # Rank 0.
    x = rand_values(rng, "f64", [])
    w.case("dynamic_slice_rank0", "dynamic_slice", dict(sizes=[]),
           [("operand", x), ("starts", as_i64([])), ("expected", x)])
    w.case("dynamic_update_slice_rank0", "dynamic_update_slice", {},
           [("operand", x), ("update", np.array(2.5)), ("starts", as_i64([])),
            ("expected", np.array(2.5))])

    def pad_ref(x, pv, lo, hi, interior):
        # Dilate, then pad with non-negative edges, then crop negative ones.
        shape = [d + max(d - 1, 0) * it for d, it in zip(x.shape, interior)]
        y = np.full(shape, pv, dtype=x.dtype)
        y[tuple(slice(None, None, it + 1) for it in interior)] = x
        y = np.pad(y, [(max(l, 0), max(h, 0)) for l, h in zip(lo, hi)], constant_values=pv)
        return y[tuple(slice(max(-l, 0), y.shape[k] - max(-h, 0)) for k, (l, h) in
                       enumerate(zip(lo, hi)))]

    for i, dt in enumerate(ALL * 3):
        r = rng.randint(1, 3)
        shape = [rng.randint(0 if i % 7 == 6 else 1, 4) for _ in range(r)]
        x = rand_values(rng, dt, shape)
        pv = rand_values(rng, dt, [])
        while True:
            lo = [rng.randint(-3, 3) for _ in range(r)]
            hi = [rng.randint(-3, 3) for _ in range(r)]
            it = [rng.randint(0, 2) for _ in range(r)]
            ext = [l + d + max(d - 1, 0) * t + h for l, d, t, h in zip(lo, shape, it, hi)]
            if min(ext) >= 0:
                break
        w.case("pad%d_%s" % (i, dt), "pad", dict(low=lo, high=hi, interior=it),
               [("operand", x), ("padding", pv), ("expected", pad_ref(x, pv, lo, hi, it))])
    # Cropping everything but one interior element; cropping to empty.
    x = np.arange(5, dtype=np.int32)
    w.case("pad_crop_inner", "pad", dict(low=[-4], high=[-4], interior=[1]),
           [("operand", x), ("padding", np.array(-1, dtype=np.int32)),
            ("expected", pad_ref(x, -1, [-4], [-4], [1]))])
    w.case("pad_crop_all", "pad", dict(low=[-5], high=[0], interior=[0]),
           [("operand", x), ("padding", np.array(-1, dtype=np.int32)),
            ("expected", np.zeros(0, dtype=np.int32))])

    for i, dt in enumerate(ALL * 2):
        n = 1 + i % 4
        r = rng.randint(1, 3)
        dim = rng.randrange(r)
        base = [rng.randint(1, 3) for _ in range(r)]
        ins = []
        for j in range(n):
            s = list(base)
            s[dim] = rng.randint(0, 3) if (i + j) % 3 == 0 else rng.randint(1, 3)
            ins.append(rand_values(rng, dt, s))
        w.case("concatenate%d_%s" % (i, dt), "concatenate", dict(dim=dim, n=n),
               [("input%d" % j, a) for j, a in enumerate(ins)] +
               [("expected", np.concatenate(ins, axis=dim))])


# ---------------------------------------------------------------------------
# Cases of the StableHLO conformance corpus (tests/conformance, made by
# JAX/XLA: an implementation independent of both the library and the
# transcription above) whose program is constants plus one indexing op on
# dtypes the library has. Float scatter add/multiply may sum duplicates in
# another order than XLA did: those carry attr tol 1 (the corpus README's
# accumulating-op tolerance); everything else must match bit for bit.
# ---------------------------------------------------------------------------

CONF_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "conformance",
                        "stablehlo")
CONF_OPS = {"gather", "scatter", "pad", "dynamic_slice", "dynamic_update_slice", "concatenate",
            "slice", "reverse"}
CONF_INDEX_DTYPES = {"i32": "<i4", "i64": "<i8", "u32": "<u4", "u8": "u1"}


def conf_tensor(t):
    dt = t["dtype"]
    npdt = DTYPES[dt] if dt in DTYPES else np.dtype(CONF_INDEX_DTYPES[dt])
    a = np.frombuffer(bytes.fromhex(t["hex"]), dtype=npdt).reshape(t["shape"])
    return a.astype(npdt.newbyteorder("="))


def conformance_cases(w):
    import glob
    import json
    files = sorted(glob.glob(os.path.join(CONF_DIR, "*.jsonl")))
    if not files:  # the corpus is part of the repository: its absence is a bug
        raise SystemExit("gen_indexing: no conformance corpus at %s" % CONF_DIR)
    n = 0
    for f in files:
        for line in open(f):
            d = json.loads(line)
            prog = d["program"]
            if not prog or prog[-1]["op"] not in CONF_OPS:
                continue
            if any(i["op"] != "constant" for i in prog[:-1]):
                continue
            ins = prog[-1]
            if d["output"] != len(d["inputs"]) + len(prog) - 1:
                continue
            values = [t for t in d["inputs"]] + [i.get("value") for i in prog[:-1]]
            args = [values[k] for k in ins["operands"]]
            op = ins["op"]
            index_args = {"gather": [1], "scatter": [1], "dynamic_slice": list(range(1, len(args))),
                          "dynamic_update_slice": list(range(2, len(args)))}.get(op, [])
            if any(a["dtype"] not in (CONF_INDEX_DTYPES if k in index_args else DTYPES)
                   for k, a in enumerate(args)):
                continue
            if d["expected"]["dtype"] not in DTYPES:
                continue
            arrs = [conf_tensor(a) for a in args]
            for k in index_args:
                arrs[k] = arrs[k].astype(np.int64)
            exp = conf_tensor(d["expected"])
            name = "conf_" + d["name"]
            if op == "gather":
                cfg = {k: ins[k] for k in GATHER_KEYS}
                w.case(name, op, cfg, [("operand", arrs[0]), ("indices", arrs[1]),
                                       ("expected", exp)])
            elif op == "scatter":
                if ins["combiner"] not in COMBINERS:
                    continue
                attrs = {k: ins[k] for k in SCATTER_KEYS}
                attrs["combiner"] = COMBINERS.index(ins["combiner"])
                if ins["combiner"] in ("add", "multiply") and exp.dtype.kind in "fc":
                    attrs["tol"] = 1
                w.case(name, op, attrs, [("operand", arrs[0]), ("indices", arrs[1]),
                                         ("updates", arrs[2]), ("expected", exp)])
            elif op == "pad":
                w.case(name, op, dict(low=ins["edge_padding_low"], high=ins["edge_padding_high"],
                                      interior=ins["interior_padding"]),
                       [("operand", arrs[0]), ("padding", arrs[1]), ("expected", exp)])
            elif op == "dynamic_slice":
                w.case(name, op, dict(sizes=ins["slice_sizes"]),
                       [("operand", arrs[0]), ("starts", as_i64([int(a) for a in arrs[1:]])),
                        ("expected", exp)])
            elif op == "dynamic_update_slice":
                w.case(name, op, {}, [("operand", arrs[0]), ("update", arrs[1]),
                                      ("starts", as_i64([int(a) for a in arrs[2:]])),
                                      ("expected", exp)])
            elif op == "concatenate":
                if len(arrs) > 4:
                    continue
                w.case(name, op, dict(dim=ins["dimension"], n=len(arrs)),
                       [("input%d" % j, a) for j, a in enumerate(arrs)] + [("expected", exp)])
            elif op == "slice":
                w.case(name, op, dict(start=ins["start_indices"], limit=ins["limit_indices"],
                                      strides=ins["strides"]),
                       [("operand", arrs[0]), ("expected", exp)])
            elif op == "reverse":
                w.case(name, op, dict(dims=ins["dimensions"]),
                       [("operand", arrs[0]), ("expected", exp)])
            n += 1
    sys.stderr.write("gen_indexing: %d conformance cases\n" % n)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gen_indexing.py OUTDIR")
    rng = random.Random(20240611)
    w = Writer()
    with np.errstate(all="ignore"):
        spec_examples(w)
        gather_cases(w, rng)
        scatter_cases(w, rng)
        structural_cases(w, rng)
        conformance_cases(w)
    w.save(sys.argv[1])


if __name__ == "__main__":
    main()
