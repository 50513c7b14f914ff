#!/usr/bin/env python3
"""PyTorch CPU peer of `tenferro contract`: times one einsum benchmark
instance (examples/instances/*.json) contracted along its stored opt_flops
path, each step one pairwise torch.einsum (what the tenferro-einsum-benchmark
repository times), in the instance's dtype (f64), on the cpu.

usage: torch_einsum.py INSTANCE.json --threads T [--repeat N] [--budget SECONDS] [--seed N]

Threads: torch.set_num_threads(T) (intra-op) and one inter-op thread.
Operands, repeats, warm-up and budget as bench/peers/numpy_einsum.py (whose
instance reader and pair loop this uses). Prints one line:
  torch INSTANCE version V threads T median M ms over K run(s), peak RSS R MiB
"""
import argparse
import os
import resource
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from numpy_einsum import contract_pairs, load, operands, time_runs  # noqa: E402


def torch_pair(expr, a, b):
    return torch.einsum(expr, a, b)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("instance")
    ap.add_argument("--threads", type=int, required=True)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--budget", type=float, default=30.0)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.set_num_interop_threads(1)
    terms, out, shapes, pairs = load(args.instance)
    ops = [torch.from_numpy(v) for v in operands(shapes, args.seed)]
    with torch.inference_mode():
        times = time_runs(lambda: contract_pairs(terms, out, pairs, ops, torch_pair), args.repeat,
                          args.budget)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    name = os.path.basename(args.instance)
    print(f"torch {name} version {torch.__version__} threads {torch.get_num_threads()} median "
          f"{times[len(times) // 2] * 1e3:.3f} ms over {len(times)} run(s), peak RSS {rss:.1f} MiB")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
