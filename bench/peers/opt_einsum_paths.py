#!/usr/bin/env python3
"""opt_einsum's paths on the generated networks (bench/networks.py), written
as tenferro path files, for bench/paths_generated.py to count.

Runs where opt_einsum is installed (the GPU machine): for each network,
opt_einsum.contract_path with optimize = 'greedy', 'random-greedy' (its
RandomGreedy, default 32 repeats; trial r draws from random.seed(r), so
it is deterministic), 'dp' (networks of at most 64
operands) and 'auto-hq', each call in its own process (up to JOBS at once,
default 8), killed after LIMIT seconds (default 30); writes
OUTDIR/<network>.<optimiser>.json (subscripts, shapes, path) and
OUTDIR/times.json (seconds per call; null: killed at the limit).

usage: python3 bench/peers/opt_einsum_paths.py OUTDIR [JOBS] [LIMIT]
"""
import json
import multiprocessing as mp
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import networks  # noqa: E402


def one(doc, kind, out_file):
    import opt_einsum as oe
    shapes = [tuple(s) for s in doc["shapes"]]
    opt = oe.RandomGreedy() if kind == "random-greedy" else kind
    t0 = time.perf_counter()
    path, _ = oe.contract_path(doc["format_string"], *shapes, shapes=True, optimize=opt)
    dt = time.perf_counter() - t0
    with open(out_file, "w") as f:
        json.dump({"subscripts": doc["format_string"], "shapes": doc["shapes"],
                   "path": [list(map(int, p)) for p in path], "seconds": dt}, f)


def main():
    out = sys.argv[1]
    jobs = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    limit = float(sys.argv[3]) if len(sys.argv) > 3 else 30.0
    os.makedirs(out, exist_ok=True)
    tasks = []
    for name, net in networks.networks():
        f = os.path.join(out, name + ".net")
        net.write(f)
        doc = json.load(open(f))
        os.remove(f)
        kinds = ["greedy", "random-greedy", "auto-hq"] + (["dp"] if len(net.terms) <= 64 else [])
        tasks += [(name, k, doc) for k in kinds]
    running, times = [], {}
    while tasks or running:
        while tasks and len(running) < jobs:
            name, kind, doc = tasks.pop(0)
            f = os.path.join(out, f"{name}.{kind}.json")
            p = mp.Process(target=one, args=(doc, kind, f))
            p.start()
            running.append((p, time.monotonic(), name, kind, f))
        time.sleep(0.05)
        for r in list(running):
            p, t0, name, kind, f = r
            if p.is_alive() and time.monotonic() - t0 < limit:
                continue
            if p.is_alive():
                p.kill()
                print(name, kind, f"over {limit:.0f} s", flush=True)
                times[f"{name}.{kind}"] = None  # no path within the limit
            p.join()
            running.remove(r)
            if p.exitcode == 0 and os.path.exists(f):
                times[f"{name}.{kind}"] = json.load(open(f))["seconds"]
                print(name, kind, f"{times[name + '.' + kind]:.3f} s", flush=True)
            elif p.exitcode not in (0, None) and not os.path.exists(f):
                print(name, kind, "failed", flush=True)
    json.dump(times, open(os.path.join(out, "times.json"), "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
