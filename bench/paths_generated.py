#!/usr/bin/env python3
"""Contraction paths on generated networks (bench/networks.py): ours against
numpy's einsum_path (and opt_einsum's, from path files made where it is
installed, bench/peers/opt_einsum_paths.py).

Every flops figure is counted by `tenferro contract NET --plan-only` itself,
along our optimisers' paths (--path NAME) and along the peers' paths (written
as path files, --path-file), so both sides are counted the same way (2 flops
per multiply-add, docs/paths.md). numpy's einsum_path takes only letters as
labels, so it runs on the networks of at most 52 labels: 'greedy' on those,
'optimal' (exhaustive) on those of at most 8 operands, both without numpy's
default memory limit (which would merge every operand left into one step).

usage: bench/paths_generated.py [--build DIR] [--peer-paths DIR] [--out FILE]
                                [--optimize-time S]
  --peer-paths DIR  DIR/<network>.<optimiser>.json path files and
                    DIR/times.json ({"<network>.<optimiser>": seconds, null when the
                    peer was stopped at its time limit}) from
                    bench/peers/opt_einsum_paths.py
Prints a markdown table and writes it (default bench/results/paths_generated.md).
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import networks  # noqa: E402

OURS = [("greedy", ["--path", "greedy"]),
        ("random-greedy", ["--path", "random-greedy"]),
        ("partition", ["--path", "partition"]),
        ("treesa", ["--path", "treesa"]),
        ("auto", ["--path", "auto"])]


def plan(binary, net_file, args):
    """(log10 flops, log2 largest, plan ms) or None when refused."""
    t0 = time.perf_counter()
    # No memory limit: each optimiser's own tree, not one the slicing search
    # re-optimised to fit the machine.
    p = subprocess.run([binary, "contract", net_file, "--plan-only", "--quiet",
                        "--max-memory", "1000000T"] + args,
                       capture_output=True, text=True)
    wall = (time.perf_counter() - t0) * 1e3
    if p.returncode != 0:
        return None, p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "failed"
    flops = size = ms = None
    for line in p.stdout.splitlines():
        w = line.replace(",", " ").replace("(", " ").replace(")", " ").split()
        if line.startswith("operands") and "in" in w:
            ms = float(w[w.index("in") + 1])
        if line.startswith("path ") and "log10" in line:
            flops = float(w[3])
            size = float(w[7])
    return (flops, size, ms if ms is not None else wall), None


def path_file(net_file, path, out):
    doc = json.load(open(net_file))
    json.dump({"subscripts": doc["format_string"], "shapes": doc["shapes"],
               "path": [list(map(int, p)) for p in path]}, open(out, "w"))


def numpy_paths(net_file, tmp, name):
    """{optimiser: (path file, seconds)} of numpy's einsum_path."""
    doc = json.load(open(net_file))
    labels = sorted({c for c in doc["format_string"] if c not in ",->"})
    if len(labels) > 52:
        return {}
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    tr = {c: letters[i] for i, c in enumerate(labels)}
    eq = "".join(tr.get(c, c) for c in doc["format_string"])
    ops = [np.empty(s, dtype=np.float64) for s in doc["shapes"]]
    out = {}
    kinds = ["greedy"] + (["optimal"] if len(ops) <= 8 else [])
    for kind in kinds:
        t0 = time.perf_counter()
        # numpy's default memory limit (the largest operand) would make one
        # step of all the operands that do not fit under it: no limit here.
        path, _ = np.einsum_path(eq, *ops, optimize=(kind, 1e30))
        dt = time.perf_counter() - t0
        f = os.path.join(tmp, f"{name}.numpy-{kind}.json")
        path_file(net_file, path[1:], f)
        out[f"numpy {kind}"] = (f, dt)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.environ.get("BUILD_DIR", "build"))
    ap.add_argument("--peer-paths")
    ap.add_argument("--out", default="bench/results/paths_generated.md")
    ap.add_argument("--optimize-time", default="3")
    a = ap.parse_args()
    binary = os.path.join(a.build, "tenferro")
    peer_times = {}
    if a.peer_paths and os.path.exists(os.path.join(a.peer_paths, "times.json")):
        peer_times = json.load(open(os.path.join(a.peer_paths, "times.json")))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, net in networks.networks():
            nf = os.path.join(tmp, name + ".json")
            net.write(nf)
            n = len(net.terms)
            res = {}
            for label, args in OURS:
                extra = ["--optimize-time", a.optimize_time] if label == "auto" else []
                res[label] = plan(binary, nf, args + extra)
            peers = numpy_paths(nf, tmp, name)
            if a.peer_paths:
                for k in sorted(peer_times):
                    if k.startswith(name + "."):
                        opt = k[len(name) + 1:]
                        peers[f"opt_einsum {opt}"] = (os.path.join(a.peer_paths, k + ".json"),
                                                      peer_times[k])
            over = [k for k, v in peers.items() if v[1] is None]
            for label in over:  # the peer was stopped at its time limit
                del peers[label]
                res[label] = (None, "over the time limit")
            for label, (f, dt) in peers.items():
                r, err = plan(binary, nf, ["--path-file", f])
                res[label] = ((r[0], r[1], dt * 1e3), None) if r else (None, err)
            greedy = res["greedy"][0]
            for label, (r, err) in res.items():
                if r is None:
                    what = "no path in 30 s" if err == "over the time limit" else "refused"
                    rows.append(f"| {name} | {n} | {label} | {what} | | | |")
                    continue
                vs = 10 ** (r[0] - greedy[0]) if greedy else float("nan")
                rows.append(f"| {name} | {n} | {label} | {r[0]:.3f} | {vs:.3g} | {r[1]:.1f} | "
                            f"{r[2]:.1f} |")
            print("\n".join(rows[-len(res):]), flush=True)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                if l.startswith("model name")), platform.machine())
    head = [
        "# Contraction paths on generated networks",
        "",
        f"{time.strftime('%Y-%m-%d', time.gmtime())}, commit {commit}, {os.cpu_count()} cores "
        f"({cpu}), numpy {np.__version__}.",
        "",
        "Reproduce: `python3 bench/paths_generated.py --build BUILD_DIR"
        + (" --peer-paths DIR" if a.peer_paths else "") + "` (networks: bench/networks.py; "
        "opt_einsum's path files: bench/peers/opt_einsum_paths.py on a machine that has it). "
        "Every flops figure is counted by `tenferro contract --plan-only`, ours with `--path NAME`, "
        "the peers' through `--path-file`. vs greedy = flops over our greedy's (< 1: better). "
        f"auto has `--optimize-time {a.optimize_time}`; treesa 8 runs, random-greedy 64 trials "
        "(ours; opt_einsum's random-greedy its default 32 repeats). time = search time (ours: "
        "the plan time the tool reports; peers: their own call). refused: the path has an "
        "intermediate of more than 2^50 elements.",
        "",
        "| network | operands | optimiser | log10 flops | vs greedy | log2 largest | time ms |",
        "|---|---:|---|---:|---:|---:|---:|",
    ]
    with open(a.out, "w") as f:
        f.write("\n".join(head + rows) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
