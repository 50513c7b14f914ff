#!/usr/bin/env python3
"""`mpirun -np N tenferro contract` against one process (issue #23).

Random networks written as instance files (open and closed outputs, several
dtypes), sliced with --slices, contracted:
  * with --deterministic on 1 (no mpirun), 2 and 4 ranks: the same bytes;
  * with the static and the dynamic schedule on 2 and 3 ranks: the result of
    one process without MPI within rounding (exactly for integers);
and the failures: a missing instance and a bad option under mpirun end every
rank with a non-zero status and the tool's message printed once. With
`webgpu`: each rank on its own webgpu backend (--deterministic on 1 and 2
ranks: the same bytes; against the cpu within rounding), and an adapter that
does not exist.

usage: check_mpi.py TENFERRO MPIEXEC [webgpu]
"""
import json
import os
import random
import subprocess
import sys
import tempfile

import numpy as np

TOOL, MPIEXEC = sys.argv[1], sys.argv[2]
WEBGPU = sys.argv[3:] == ["webgpu"]
FAILED = []


def mpirun(n, args, **kw):
    cmd = [MPIEXEC, "--allow-run-as-root", "--oversubscribe", "-np", str(n), TOOL, "contract"] + args
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, **kw)


def plain(args):
    return subprocess.run([TOOL, "contract"] + args, capture_output=True, text=True, timeout=300)


def check(cond, what):
    if not cond:
        FAILED.append(what)
        print("FAILED:", what, file=sys.stderr)


def network(rng, n, open_labels):
    """n operands over labels a.. (extents 2-4), each label on 2-3 operands."""
    labels = "abcdefghijkl"
    ext = {c: rng.randint(2, 4) for c in labels}
    ops = [set() for _ in range(n)]
    for c in labels:
        for i in rng.sample(range(n), rng.randint(2, 3)):
            if len(ops[i]) < 4:
                ops[i].add(c)
    ops = ["".join(sorted(o)) or "a" for o in ops]
    used = sorted(set("".join(ops)))
    out = "".join(used[:open_labels])
    return ",".join(ops) + "->" + out, [[ext[c] for c in o] for o in ops]


def main():
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        cases = [(6, 0, "float64"), (7, 2, "float64"), (6, 1, "complex64"), (5, 2, "int32"),
                 (7, 0, "float32")]
        for t, (n, nopen, dtype) in enumerate(cases):
            eq, shapes = network(rng, n, nopen)
            inst = os.path.join(tmp, f"net{t}.json")
            with open(inst, "w") as f:
                json.dump({"format_string": eq, "shapes": shapes, "dtype": dtype}, f)
            base = [inst, "--path", "greedy", "--slices", "6", "--threads", "1", "--quiet"]
            outs = {}
            # Deterministic: one process (MPI started alone), 2 and 4 ranks.
            for ranks in (1, 2, 4):
                o = os.path.join(tmp, f"det{t}_{ranks}.npy")
                r = (plain if ranks == 1 else lambda a: mpirun(ranks, a))(
                    base + ["--deterministic", "-o", o])
                check(r.returncode == 0, f"{eq} {dtype}: --deterministic on {ranks}: {r.stderr}")
                if r.returncode == 0:
                    check(("ranks     %d" % ranks) in r.stdout, f"{eq}: report on {ranks}: {r.stdout}")
                    outs[ranks] = open(o, "rb").read()
            if len(outs) == 3:
                check(outs[1] == outs[2] == outs[4], f"{eq} {dtype}: deterministic bytes differ")
            # Plain single process, no MPI at all.
            ref_path = os.path.join(tmp, f"ref{t}.npy")
            r = plain(base + ["-o", ref_path])
            check(r.returncode == 0 and "ranks" not in r.stdout, f"{eq}: plain run: {r.stderr}")
            ref = np.load(ref_path)
            for ranks, sched in ((2, "static"), (3, "dynamic")):
                o = os.path.join(tmp, f"{sched}{t}.npy")
                r = mpirun(ranks, base + ["--schedule", sched, "-o", o])
                check(r.returncode == 0, f"{eq}: {sched} on {ranks}: {r.stderr}")
                if r.returncode != 0:
                    continue
                got = np.load(o)
                check(got.shape == ref.shape and got.dtype == ref.dtype, f"{eq}: {sched} shape/dtype")
                if np.issubdtype(ref.dtype, np.integer):
                    check(np.array_equal(got, ref), f"{eq}: {sched} on {ranks}: integers differ")
                else:
                    tol = 1e-4 if ref.dtype in (np.float32, np.complex64) else 1e-10
                    scale = max(1.0, float(np.max(np.abs(ref))) if ref.size else 1.0)
                    check(np.max(np.abs(got - ref), initial=0) <= tol * scale,
                          f"{eq}: {sched} on {ranks}: off by {np.max(np.abs(got - ref), initial=0)}")
        if WEBGPU:
            eq, shapes = network(rng, 6, 2)
            inst = os.path.join(tmp, "gpu.json")
            with open(inst, "w") as f:
                json.dump({"format_string": eq, "shapes": shapes, "dtype": "float32"}, f)
            base = [inst, "--path", "greedy", "--slices", "6", "--quiet"]
            gpu = base + ["--backend", "webgpu", "--deterministic"]
            outs = []
            for ranks in (1, 2):
                o = os.path.join(tmp, f"gpu{ranks}.npy")
                r = (plain if ranks == 1 else lambda a: mpirun(ranks, a))(gpu + ["-o", o])
                check(r.returncode == 0 and "device" in r.stdout,
                      f"{eq}: webgpu --deterministic on {ranks}: {r.stderr}")
                if r.returncode == 0:
                    outs.append(open(o, "rb").read())
            check(len(outs) == 2 and outs[0] == outs[1], f"{eq}: webgpu deterministic bytes differ")
            cpu = os.path.join(tmp, "gpu_cpu.npy")
            r = plain(base + ["--threads", "1", "-o", cpu])
            if r.returncode == 0 and outs:
                ref, got = np.load(cpu), np.load(os.path.join(tmp, "gpu2.npy"))
                scale = max(1.0, float(np.max(np.abs(ref))))
                check(np.max(np.abs(got - ref)) <= 1e-4 * scale, f"{eq}: webgpu ranks against the cpu")
            r = mpirun(2, gpu + ["--adapter", "9"])
            check(r.returncode != 0 and "adapter_index 9 is beyond" in r.stderr,
                  f"--adapter 9 under mpirun: {r.returncode} {r.stderr}")
        # Failures: one message, every rank ends, a non-zero status.
        r = mpirun(2, [os.path.join(tmp, "missing.json")])
        check(r.returncode != 0, "missing instance: status 0")
        check((r.stdout + r.stderr).count("missing.json: No such file") == 1,
              f"missing instance: message not once: {r.stderr}")
        r = mpirun(2, [os.path.join(tmp, "net0.json"), "--schedule", "sideways"])
        check(r.returncode != 0, "bad --schedule: status 0")
        check(r.stderr.count("--schedule 'sideways'") == 1, f"bad --schedule: message not once: {r.stderr}")
        r = mpirun(2, [os.path.join(tmp, "net0.json"), "--profile"])
        check(r.returncode != 0 and r.stderr.count("--profile runs in one process") >= 1,
              f"--profile under mpirun: {r.stderr}")
    if FAILED:
        print(f"check_mpi: {len(FAILED)} failed", file=sys.stderr)
        return 1
    print("check_mpi: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
