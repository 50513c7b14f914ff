#!/usr/bin/env python3
"""The Python module's measured goals (issue #21), written to
bench/results/python.md:

1. per-call overhead of tenferro.einsum on tiny operands against
   numpy.einsum (numpy arrays in and out, as a numpy user calls it; and with
   tenferro.Tensor operands);
2. a large contraction from Python against the `tenferro contract` CLI on the
   same instance and path (examples/instances/*.json, the stored opt_flops
   path and the CLI's own operands; rounds alternating the two, each side's median
   per round, the figure the median of the rounds' ratios);
3. bytes copied for host operands in and out: the operands' and the result's
   data addresses compared (0 bytes when the memory is shared).

usage: PYTHONPATH=build/python python3 bench/python_overhead.py
           [--cli build/tenferro] [--repeat 40] [--rounds 7] [--out bench/results/python.md]
Threads: OMP_NUM_THREADS as set by the caller (the CLI gets the same).
OpenBLAS's kernels: when tenferro.blas_coretype_advice() says OpenBLAS picked
old kernels, the script re-executes itself with OPENBLAS_CORETYPE set, as the
CLI does, so both run the same kernels.
"""
import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
import timeit

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

import numpy as np  # noqa: E402
import tenferro  # noqa: E402

TINY = [
    ("ij,jk->ik", [(2, 2), (2, 2)]),
    ("i,i->", [(3,), (3,)]),
    ("ij->ji", [(3, 4)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("bij,bjk->bik", [(2, 2, 2), (2, 2, 2)]),
]
LARGE = ["lm_batch_likelihood_brackets_4_4d", "str_matrix_chain_multiplication_100",
         "bin_matmul_256", "str_mps_varying_inner_product_200"]


TINY_CALLS, TINY_ROUNDS = 2000, 40
WARMUP = 5
ROUND_MS = 300.0


def per_call_us(fns):
    """Each function's best time per call (microseconds) over TINY_ROUNDS
    rounds of TINY_CALLS calls, the functions taking turns within a round: on
    a shared machine the load then weighs on all of them alike, and windows
    of a few milliseconds often run without being preempted."""
    best = [float("inf")] * len(fns)
    for _ in range(TINY_ROUNDS):
        for i, fn in enumerate(fns):
            best[i] = min(best[i], timeit.timeit(fn, number=TINY_CALLS) / TINY_CALLS * 1e6)
    return best


def tiny_rows(rng):
    rows = []
    for eq, shapes in TINY:
        ops = [rng.uniform(-1, 1, size=s) for s in shapes]
        tens = [tenferro.asarray(a) for a in ops]
        np.testing.assert_allclose(tenferro.einsum(eq, *ops), np.einsum(eq, *ops), rtol=1e-12)
        t_np, t_tf, t_tt = per_call_us([lambda: np.einsum(eq, *ops),
                                        lambda: tenferro.einsum(eq, *ops),
                                        lambda: tenferro.einsum(eq, *tens)])
        rows.append((eq, t_np, t_tf, t_tt))
    return rows


def cli_median_ms(cli, path, repeat):
    out = subprocess.run([cli, "contract", path, "--path", "opt_flops", "--repeat", str(repeat),
                          "--warmup", str(WARMUP)], capture_output=True, text=True,
                         check=True).stdout
    return float(re.search(r"median ([0-9.]+) ms", out).group(1))


def cli_operands(cli, path, workdir):
    """The CLI's own seeded operands (`--save-inputs`), so that both sides
    contract the same values."""
    subprocess.run([cli, "contract", path, "--path", "opt_flops", "--save-inputs", workdir],
                   capture_output=True, text=True, check=True)
    files = sorted(f for f in os.listdir(workdir) if f.startswith("operand_"))
    return [np.load(os.path.join(workdir, f)) for f in files]


def python_median_ms(expr, ops, repeat):
    for _ in range(WARMUP):  # as the CLI's --warmup
        expr(*ops)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        expr(*ops)
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def large_row(cli, name, repeat, rounds):
    """Rounds of the CLI's median and Python's median over `repeat` runs
    each, alternating; the figure is the median of the rounds' ratios (the
    two sides see the same load within a round)."""
    path = os.path.join(REPO, "examples", "instances", name + ".json")
    with open(path, encoding="utf-8") as f:
        d = json.load(f)
    with tempfile.TemporaryDirectory() as work:
        ops = cli_operands(cli, path, work)
    pairs = [tuple(p) for p in d["paths"]["opt_flops"]["path"]]
    expr = tenferro.contract_expression(d["format_string"], *[a.shape for a in ops],
                                        optimize=pairs)
    # Short contractions get more runs a round: at least ROUND_MS of each
    # side, so that one preempted run weighs little.
    repeat = max(repeat, int(ROUND_MS / max(cli_median_ms(cli, path, 3), 1e-3)))
    clis, pys = [], []
    for _ in range(rounds):
        clis.append(cli_median_ms(cli, path, repeat))
        pys.append(python_median_ms(expr, ops, repeat))
    ratios = [p / c for p, c in zip(pys, clis)]
    return statistics.median(clis), statistics.median(pys), statistics.median(ratios), \
        min(ratios), max(ratios)


def copied_bytes(rng):
    """Bytes copied in and out for a contraction of numpy operands."""
    a, b = rng.uniform(size=(64, 32)), rng.uniform(size=(32, 16))
    copied = 0
    for x in (a, b):
        if tenferro.asarray(x).data_ptr != x.ctypes.data:
            copied += x.nbytes
    r = tenferro.einsum("ij,jk->ik", a, b)
    owner = r.base.obj if isinstance(r.base, memoryview) else r.base
    if not isinstance(owner, tenferro.Tensor) or owner.data_ptr != r.ctypes.data:
        copied += r.nbytes
    return copied, a.nbytes + b.nbytes, r.nbytes


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=os.path.join(REPO, "build", "tenferro"))
    ap.add_argument("--repeat", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--out", default=os.path.join(HERE, "results", "python.md"))
    args = ap.parse_args()
    advice = tenferro.blas_coretype_advice()
    if advice and os.environ.get("OPENBLAS_CORETYPE") != advice:
        os.environ["OPENBLAS_CORETYPE"] = advice
        os.execv(sys.executable, [sys.executable] + sys.argv)
    rng = np.random.default_rng(20261202)
    load_start = os.getloadavg()[0]
    threads = os.environ.get("OMP_NUM_THREADS", "(OpenMP default)")
    lines = ["# The Python module: overhead and large contractions", "",
             f"Written by `bench/python_overhead.py` on {platform.node() or 'this machine'}: "
             f"{os.cpu_count()} cores, OMP_NUM_THREADS={threads}, Python "
             f"{platform.python_version()}, numpy {np.__version__}, tenferro "
             f"{tenferro.__version__}; {time.strftime('%Y-%m-%d', time.gmtime())}; load average "
             "{load}.", "",
             f"## Per-call time on tiny operands (microseconds, best of {TINY_ROUNDS} x "
             f"{TINY_CALLS} calls, numpy and tenferro taking turns)", "",
             "| expression | numpy.einsum | tenferro.einsum (numpy in/out) | ratio | "
             "tenferro.einsum (Tensors) | ratio |", "|---|---:|---:|---:|---:|---:|"]
    tiny = tiny_rows(rng)
    for eq, t_np, t_tf, t_tt in tiny:
        lines.append(f"| `{eq}` | {t_np:.2f} | {t_tf:.2f} | {t_tf / t_np:.2f} | {t_tt:.2f} | "
                     f"{t_tt / t_np:.2f} |")
        print(lines[-1], flush=True)
    lines += ["", "Ratio: tenferro / numpy, below 1 means tenferro is faster. tenferro's time "
              "includes the plan cache lookup, a session, the contraction and wrapping the "
              "result.", "",
              "## A large contraction: Python against the CLI (the stored opt_flops path, the "
              f"CLI's own operands; {args.rounds} rounds alternating the two, each side's median "
              f"of {args.repeat} runs (more for short ones: at least {ROUND_MS:.0f} ms of them) "
              f"after {WARMUP} warm-ups per round; ms: the median over "
              "rounds; ratio: the median of the rounds' ratios, and their range)", "",
              "| instance | CLI ms | Python (contract_expression) ms | Python / CLI | "
              "rounds' range |", "|---|---:|---:|---:|---|"]
    large = []
    if os.path.exists(args.cli):
        for name in LARGE:
            cli, py, ratio, lo, hi = large_row(args.cli, name, args.repeat, args.rounds)
            large.append(ratio)
            lines.append(f"| {name} | {cli:.2f} | {py:.2f} | {ratio:.3f} | {lo:.3f}-{hi:.3f} |")
            print(lines[-1], flush=True)
    else:
        lines.append(f"| (no CLI at {args.cli}) | | | | |")
    copied, nin, nout = copied_bytes(rng)
    lines += ["", "## Bytes copied for host operands", "",
              f"numpy operands of {nin} bytes in, a result of {nout} bytes out: "
              f"**{copied} bytes copied** (data addresses compared: the operands are wrapped "
              "where they are, the result array is a view of the library's result buffer).", ""]
    at_most = sum(t_tf <= t_np for _, t_np, t_tf, _ in tiny)
    worst = max(t_tf / t_np for _, t_np, t_tf, _ in tiny)
    lines += ["## The goals", "",
              f"* per-call time of tenferro.einsum (numpy in and out) <= numpy.einsum's: "
              f"{at_most} of {len(tiny)} expressions, the worst at {worst:.2f}x numpy's.",
              f"* a large contraction from Python within 2% of the CLI: "
              f"{sum(r <= 1.02 for r in large)} of {len(large)} instances"
              + (f", the worst at {max(large):.3f}x" if large else "") + ".",
              f"* bytes copied for host operands in and out: {copied}.", ""]
    lines[2] = lines[2].replace("{load}", f"{load_start:.2f} at the start and "
                                          f"{os.getloadavg()[0]:.2f} at the end")
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
