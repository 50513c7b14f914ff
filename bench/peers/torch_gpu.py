#!/usr/bin/env python3
"""PyTorch peer on the GPU machine, timed with CUDA events in the same run
as tenferro's WebGPU benchmarks.

usage: torch_gpu.py [--json FILE]                  runtime figures (transfers,
                                                   bandwidth, matmul, per-op cost)
       torch_gpu.py --cases [--repeat R] [--warmup W] [--warmup-ms MS] [--json FILE] CASE...
                                                   the peer of `tenferro-bench
                                                   --backend webgpu CASE...`

A CASE is NAME:DTYPE:SHAPE as in tenferro-bench. Each repeat is a batch of k
back-to-back ops between two CUDA events (k chosen from the warm-up so that a
batch lasts about 20 ms, 1..1000), as tenferro-bench times a device: the time
per op is device time plus whatever host time the device does not hide.
TF32 is off, so matmul is true fp32.
"""
import argparse
import json
import sys
import time

import torch

DTYPES = {"f32": torch.float32, "f64": torch.float64, "i32": torch.int32, "i64": torch.int64,
          "c64": torch.complex64, "c128": torch.complex128, "bool": torch.bool}


def chain5(a, b, c):
    return torch.exp(a * b + c) * a - b


OPS = {
    "add": (2, lambda a, b: torch.add(a, b)),
    "multiply": (2, lambda a, b: torch.mul(a, b)),
    "exp": (1, lambda a: torch.exp(a)),
    "divide": (2, lambda a, b: torch.div(a, b)),
    "sqrt": (1, lambda a: torch.sqrt(a)),
    "sum_all": (1, lambda a: a.sum()),
    "sum_axis0": (1, lambda a: a.sum(dim=0)),
    "sum_last": (1, lambda a: a.sum(dim=-1)),
    "max_all": (1, lambda a: a.max()),
    "transpose": (1, lambda a: a.t().contiguous()),
    "convert_f32": (1, lambda a: a.to(torch.float32)),
    "compare_select": (2, lambda a, b: torch.where(a > b, a, b)),
    "chain5_unfused": (3, chain5),
    # tenferro's fused chain against torch.compile's (one generated kernel),
    # when torch.compile works here; the unfused chain against eager.
    "chain5_fused": (3, None),
    "matmul": (2, lambda a, b: a @ b),
    "matmul_lhsT": (2, lambda a, b: a.t() @ b),
    "bmm": (2, lambda a, b: torch.bmm(a, b)),
    "rank4": (2, lambda a, b: torch.tensordot(a, b, dims=([2, 3], [0, 1]))),
    "gemv": (2, lambda a, b: a @ b[0]),
    "gather_rows": (2, lambda a, idx: a[idx]),
    "scatter_add_rows": (3, lambda a, idx, b: a.index_add(0, idx, b)),
}
INDEX_OPS = {"gather_rows", "scatter_add_rows"}


def make_input(k, dtype, shape, dev):
    g = torch.Generator(device="cpu").manual_seed(k + 1)
    v = torch.rand(shape, generator=g, dtype=torch.float64) * 1.98 - 0.99
    v[v == 0] = 0.5
    if dtype.is_complex:
        v = torch.complex(v, -v)
    elif dtype in (torch.int32, torch.int64):
        v = v * 1000
    elif dtype == torch.bool:
        v = v > 0
    return v.to(dtype).to(dev)


def batch_time(fn, k):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(k):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / 1e3 / k


def run_cases(args):
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = torch.device("cuda")
    results = []
    for spec in args.cases:
        name, dt, shape_s = spec.split(":")
        shape = tuple(int(s) for s in shape_s.split("x"))
        nin, fn = OPS[name]
        dtype = DTYPES[dt]
        ins = []
        for k in range(nin):
            if k == 1 and name in INDEX_OPS:
                g = torch.Generator(device="cpu").manual_seed(7)
                ins.append(torch.randint(0, shape[0], (shape[0],), generator=g).to(dev))
            else:
                ins.append(make_input(k, dtype, shape, dev))
        if fn is None:
            fn = torch.compile(chain5)
        try:
            call = lambda: fn(*ins)  # noqa: E731
            t = 0.0
            for _ in range(args.warmup):
                t = batch_time(call, 1)
            k = max(1, min(1000, int(0.02 / max(t, 1e-9))))
            # Sustained load before timing, as tenferro-bench --warmup-ms does
            # (the GPU raises its clocks only under load).
            t0 = time.perf_counter()
            while time.perf_counter() - t0 < args.warmup_ms * 1e-3:
                batch_time(call, k)
            times = sorted(batch_time(call, k) for _ in range(args.repeat))
        except Exception as e:  # noqa: BLE001 - report and go on
            print(f"torch {spec}: {e}", file=sys.stderr)
            continue
        results.append({"case": spec, "median_s": times[len(times) // 2], "min_s": times[0],
                        "max_s": times[-1], "batch": k})
        print(f"torch {spec:32s} {times[len(times)//2]*1e3:10.4f} ms  (k={k})", file=sys.stderr)
    return {"torch": torch.__version__, "device": torch.cuda.get_device_name(0),
            "results": results}


def cuda_time(fn, repeat=20, warmup=3):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(repeat):
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    times.sort()
    return times[len(times) // 2]


def run_runtime():
    dev = torch.device("cuda")
    out = {"torch": torch.__version__, "device": torch.cuda.get_device_name(0), "results": {}}
    res = out["results"]
    for mib in (64, 256):
        n = mib << 20
        host = torch.empty(n, dtype=torch.uint8).pin_memory()
        pageable = torch.empty(n, dtype=torch.uint8)
        d = torch.empty(n, dtype=torch.uint8, device=dev)
        res[f"upload_pinned_{mib}MiB_GBps"] = n / cuda_time(lambda: d.copy_(host)) / 1e9
        res[f"download_pinned_{mib}MiB_GBps"] = n / cuda_time(lambda: host.copy_(d)) / 1e9
        res[f"upload_pageable_{mib}MiB_GBps"] = n / cuda_time(lambda: d.copy_(pageable)) / 1e9
        res[f"download_pageable_{mib}MiB_GBps"] = n / cuda_time(lambda: pageable.copy_(d)) / 1e9
    x = torch.randn(8192, 8192, device=dev)
    t = cuda_time(lambda: x.t().contiguous())
    res["transpose_8192sq_f32_TBps"] = 2 * x.numel() * 4 / t / 1e12
    n = 1 << 28
    a = torch.randn(n, device=dev)
    b = torch.randn(n, device=dev)
    res["add_2^28_f32_TBps"] = 3 * n * 4 / cuda_time(lambda: a + b) / 1e12
    res["mul_2^28_f32_TBps"] = 3 * n * 4 / cuda_time(lambda: a * b) / 1e12
    res["exp_2^28_f32_TBps"] = 2 * n * 4 / cuda_time(lambda: torch.exp(a)) / 1e12
    res["sum_2^28_f32_TBps"] = n * 4 / cuda_time(lambda: a.sum()) / 1e12
    res["max_2^28_f32_TBps"] = n * 4 / cuda_time(lambda: a.max()) / 1e12
    # Host time per small eager op in a loop of 1000 (queueing included).
    s = torch.randn(1024, device=dev)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    y = s
    for _ in range(1000):
        y = y + s
    torch.cuda.synchronize()
    res["small_add_eager_us_per_op"] = (time.perf_counter() - t0) / 1000 * 1e6
    torch.backends.cuda.matmul.allow_tf32 = False
    for m in (4096, 8192):
        p = torch.randn(m, m, device=dev)
        q = torch.randn(m, m, device=dev)
        res[f"matmul_f32_{m}_TFLOPs"] = 2 * m**3 / cuda_time(lambda: p @ q, repeat=10) / 1e12
    for k, v in res.items():
        print(f"{k:40s} {v:12.3f}")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--cases", action="store_true")
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--warmup-ms", type=float, default=300.0,
                    help="batches run this long before timing (as tenferro-bench)")
    ap.add_argument("case", nargs="*")
    args = ap.parse_args()
    if args.cases:
        args.cases = args.case
        out = run_cases(args)
    else:
        out = run_runtime()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
