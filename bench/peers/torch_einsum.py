#!/usr/bin/env python3
"""PyTorch peer of `tenferro contract`: times one einsum benchmark instance
(examples/instances/*.json) contracted along its stored opt_flops path, each
step one pairwise torch.einsum (what the tenferro-einsum-benchmark
repository times), on the cpu in the instance's dtype (f64), or on a CUDA
GPU in the dtype asked for (the peer of `tenferro contract --backend webgpu
--dtype f32`).

usage: torch_einsum.py INSTANCE.json --threads T [--repeat N] [--budget SECONDS] [--seed N]
                       [--device cpu|cuda] [--dtype f32|f64|c64|c128]

Threads: torch.set_num_threads(T) (intra-op) and one inter-op thread.
Operands, repeats, warm-up and budget as bench/peers/numpy_einsum.py (whose
instance reader and pair loop this uses). On cuda the operands are on the
GPU before timing, TF32 is off, each timed run ends with
torch.cuda.synchronize(), and runs go on for at least 0.3 s untimed first
(a GPU left idle lowers its clock). Prints one line:
  torch INSTANCE version V threads T [device D dtype DT] median M ms over K run(s), peak RSS R MiB
"""
import argparse
import os
import resource
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from numpy_einsum import contract_pairs, load, operands, time_runs  # noqa: E402


DTYPES = {"f32": torch.float32, "f64": torch.float64, "c64": torch.complex64,
          "c128": torch.complex128}


def torch_pair(expr, a, b):
    return torch.einsum(expr, a, b)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("instance")
    ap.add_argument("--threads", type=int, required=True)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--budget", type=float, default=30.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    ap.add_argument("--dtype", choices=sorted(DTYPES), default=None)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.set_num_interop_threads(1)
    terms, out, shapes, pairs = load(args.instance)
    ops = [torch.from_numpy(v) for v in operands(shapes, args.seed)]
    if args.dtype:
        ops = [v.to(DTYPES[args.dtype]) for v in ops]
    cuda = args.device == "cuda"
    if cuda:
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        ops = [v.cuda() for v in ops]

    def run():
        r = contract_pairs(terms, out, pairs, ops, torch_pair)
        if cuda:
            torch.cuda.synchronize()
        return r

    with torch.inference_mode():
        if cuda:
            start = time.perf_counter()
            while time.perf_counter() - start < 0.3:
                run()
        times = time_runs(run, args.repeat, args.budget)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    name = os.path.basename(args.instance)
    where = f" device {args.device} dtype {args.dtype or 'f64'}" if cuda else ""
    print(f"torch {name} version {torch.__version__} threads {torch.get_num_threads()}{where} "
          f"median {times[len(times) // 2] * 1e3:.3f} ms over {len(times)} run(s), "
          f"peak RSS {rss:.1f} MiB")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
