#!/usr/bin/env python3
"""numpy peer of tenferro-bench: the same cases (NAME:DTYPE:SHAPE), timed the
same way (warm-up, repeats, median/min/max), written as JSON.

usage: numpy_cpu.py [--repeat R] [--warmup W] [--json FILE] CASE...
"""
import argparse
import json
import os
import sys
import time

import numpy as np

DTYPES = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i64": np.int64,
          "c64": np.complex64, "c128": np.complex128, "bool": np.bool_}

OPS = {
    "add": (2, lambda a, b: np.add(a, b)),
    "multiply": (2, lambda a, b: np.multiply(a, b)),
    "exp": (1, lambda a: np.exp(a)),
    "divide": (2, lambda a, b: np.divide(a, b)),
    "sqrt": (1, lambda a: np.sqrt(a)),
    "sum_all": (1, lambda a: a.sum()),
    "sum_axis0": (1, lambda a: a.sum(axis=0)),
    "sum_last": (1, lambda a: a.sum(axis=-1)),
    "max_all": (1, lambda a: a.max()),
    "transpose": (1, lambda a: np.ascontiguousarray(a.T)),
    "convert_f32": (1, lambda a: a.astype(np.float32)),
    "compare_select": (2, lambda a, b: np.where(a > b, a, b)),
    "chain5_unfused": (3, lambda a, b, c: np.exp(a * b + c) * a - b),
    "chain5_fused": (3, lambda a, b, c: np.exp(a * b + c) * a - b),
    "matmul": (2, lambda a, b: np.matmul(a, b)),
    "matmul_lhsT": (2, lambda a, b: np.matmul(a.T, b)),
    "bmm": (2, lambda a, b: np.matmul(a, b)),
    "rank4": (2, lambda a, b: np.tensordot(a, b, ([2, 3], [0, 1]))),
    "gemv": (2, lambda a, b: a @ b[0]),
    "gather_rows": (2, lambda a, idx: a[idx]),
    "scatter_add_rows": (3, lambda a, idx, b: np.add.at(a.copy(), idx, b)),
}

# Ops whose input 1 is an index vector of shape[0] rows in [0, shape[0]).
INDEX_OPS = {"gather_rows", "scatter_add_rows"}


def make_index(shape):
    rng = np.random.default_rng(1)
    return rng.integers(0, shape[0], size=shape[0], dtype=np.int32)


def make_input(k, dtype, shape):
    # Same generator as tenferro-bench (an LCG), so both time the same values.
    n = int(np.prod(shape))
    st = np.uint64(0x9e3779b97f4a7c15) * np.uint64(k + 1)
    a = np.arange(1, n + 1, dtype=np.uint64)
    # Values only need to be alike in distribution, not bit-identical: a
    # vectorised stand-in for the C loop.
    with np.errstate(over="ignore"):
        x = (a * np.uint64(6364136223846793005) + st) >> np.uint64(11)
    v = x.astype(np.float64) * 2.0**-53 * 1.98 - 0.99
    v[v == 0] = 0.5
    if dtype in (np.complex64, np.complex128):
        v = v - 1j * v
    elif dtype in (np.int32, np.int64):
        v = v * 1000
    elif dtype == np.bool_:
        v = v > 0
    return v.astype(dtype).reshape(shape)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--json")
    ap.add_argument("cases", nargs="+")
    args = ap.parse_args()
    results = []
    for spec in args.cases:
        name, dt, shape_s = spec.split(":")
        shape = tuple(int(s) for s in shape_s.split("x"))
        nin, fn = OPS[name]
        ins = [make_index(shape) if (k == 1 and name in INDEX_OPS) else
               make_input(k, DTYPES[dt], shape) for k in range(nin)]
        times = []
        for r in range(args.warmup + args.repeat):
            t0 = time.perf_counter()
            fn(*ins)
            t1 = time.perf_counter()
            if r >= args.warmup:
                times.append(t1 - t0)
        times.sort()
        results.append({"case": spec, "median_s": times[len(times) // 2],
                        "min_s": times[0], "max_s": times[-1]})
        print(f"numpy {spec:32s} {times[len(times)//2]*1e3:10.3f} ms", file=sys.stderr)
    info = {"numpy": np.__version__, "threads_env": os.environ.get("OMP_NUM_THREADS", ""),
            "results": results}
    out = json.dumps(info, indent=1)
    if args.json:
        with open(args.json, "w") as f:
            f.write(out)
    else:
        print(out)


if __name__ == "__main__":
    main()
