#!/usr/bin/env python3
"""PyTorch peer on the GPU machine: the numbers tenferro's WebGPU benchmarks
compare against, measured with CUDA events in the same run.

usage: torch_gpu.py [--json FILE]
Prints one line per measurement: name, value, unit.
"""
import argparse
import json
import time

import torch


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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    args = ap.parse_args()
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
    for m in (4096, 8192):
        p = torch.randn(m, m, device=dev)
        q = torch.randn(m, m, device=dev)
        torch.backends.cuda.matmul.allow_tf32 = False
        res[f"matmul_f32_{m}_TFLOPs"] = 2 * m**3 / cuda_time(lambda: p @ q, repeat=10) / 1e12
    for k, v in res.items():
        print(f"{k:40s} {v:12.3f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
