#!/usr/bin/env python3
"""PyTorch peer of bench/webgpu_gemm.c: fp32 and complex64 matmul on the GPU,
TF32 off, the same shapes (M x N x K, batch, 't' = lhs stored transposed),
timed with CUDA events (median of 20 after 3 warm-ups).

usage: torch_gemm.py [--dtype f32|c64|all] [SHAPE ...]
Prints: shape, dtype, TFLOP/s (8 M N K per complex product, like the C bench).
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_gpu import cuda_time  # noqa: E402 - the one event timer of the peers

SWEEP = [
    "64x64x64", "128x128x128", "256x256x256", "512x512x512", "1024x1024x1024",
    "2048x2048x2048", "4096x4096x4096", "8192x8192x8192", "4096x4096x4096t",
    "8192x1024x8192", "1024x8192x8192", "8192x8192x1024", "4096x4096x256", "256x256x8192",
    "8192x64x4096", "1000x1000x1000", "3000x2000x1500", "256x256x256x64", "128x128x128x256",
    "64x64x64x1024", "1024x1024x1024x16", "8192x1x8192", "1x8192x8192",
]


def parse(s):
    t = s.endswith("t")
    parts = [int(x) for x in s.rstrip("t").split("x")]
    m, n, k = parts[:3]
    b = parts[3] if len(parts) > 3 else 1
    return m, n, k, b, t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dtype", default="all")
    ap.add_argument("shapes", nargs="*")
    args = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = torch.device("cuda")
    print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, {torch.cuda.get_device_name(0)}")
    dtypes = {"f32": torch.float32, "c64": torch.complex64}
    names = ["f32", "c64"] if args.dtype == "all" else [args.dtype]
    for dn in names:
        dt = dtypes[dn]
        print(f"\n{'shape':22s} {'dtype':5s} {'TFLOP/s':>10s}")
        for s in args.shapes or SWEEP:
            m, n, k, b, t = parse(s)
            a = torch.randn(b, k, m, device=dev, dtype=dt).transpose(1, 2) if t else \
                torch.randn(b, m, k, device=dev, dtype=dt)
            c = torch.randn(b, k, n, device=dev, dtype=dt)
            if b == 1:
                a, c = a[0], c[0]
            fn = (lambda: torch.bmm(a, c)) if b > 1 else (lambda: a @ c)
            sec = cuda_time(fn)
            flop = (8 if dt == torch.complex64 else 2) * m * n * k * b
            print(f"{s:22s} {dn:5s} {flop / sec / 1e12:10.3f}", flush=True)
            del a, c
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
