#!/usr/bin/env python3
"""The `tenferro` command as a user runs it (issue #9's CLI contract).

usage: check_cli.py TENFERRO_BINARY REPO_ROOT [--webgpu]

* `tenferro contract` on example instances with --save-inputs and -o: the
  result must match numpy.einsum on the saved operands along the instance's
  own path (1e-10 relative for f64/c128), and the printed checksum must be
  the result's sum;
* `tenferro einsum` on .npy files against numpy.einsum (diagonal, trace,
  ellipsis, implicit output);
* `tenferro contract --path NAME` with the optimisers found here (greedy,
  random-greedy, dp, auto, treesa, partition): the same result as along the
  instance's own path, and --plan-only prints the path and contracts
  nothing; `tenferro einsum --path partition` on a ring of 16 matrices (METIS
  bisects it) gives numpy's result;
* `tenferro contract --profile` (and `tenferro einsum --profile`): the table of ops by kind (batched GEMM,
  GEMM, outer product, multiply) with their shapes, the totals by kind, the
  30 slowest ops unless --profile=all, a sliced plan's accumulation, and
  the same result as without it;
* path files: `--save-path` then `--path-file` (contract and einsum, a
  sliced path too) gives the same result and the same path statistics, a
  numpy-style plain pair list is accepted, and a path file that does not
  fit the network is refused;
* progress: nothing on stderr when it is not a terminal; under a
  pseudo-terminal the bar appears and is cleared, and --quiet silences it;
* bad input: one-line error on stderr, non-zero exit, and no output file;
* `tenferro info --ops [--json]`: the op x dtype x backend matrix lists
  every op of src/core/op_registry.def, the cpu runs each op on all its
  dtypes, and (with --webgpu) the webgpu column is a subset of them;
* with --webgpu: contractions on the webgpu backend: f64 instances in f64
  (software binary64 there) within 1e-12 relative of numpy's f64 along the
  instance's path, among them one whose values leave f32's range (a chain
  of 200 matrices), --dtype c128 within 1e-12 of numpy's complex128, and
  --dtype f32 at single-precision tolerance; --repeat's host line and a
  repeat after --warmup creating no pipeline, bind group or buffer (replay).
Exits 0 when every check passes; prints each failure.
"""
import json
import os
import platform
import re
import subprocess
import sys
import tempfile

import numpy as np

# The pairwise numpy reference of the einsum instance tests (labels beyond
# numpy's 52 letters, the instance's own path).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ref"))
from gen_einsum_instances import contract_pair, walk  # noqa: E402

FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print(f"FAIL: {what}")


def run(binary, *args):
    p = subprocess.run([binary, *args], capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def rel_err(got, want):
    scale = max(np.max(np.abs(want)), 1e-300)
    return float(np.max(np.abs(got.astype(want.dtype) - want)) / scale)


def contract_case(binary, root, tmp, name, backend, tol, dtype=None):
    inst_path = os.path.join(root, "examples", "instances", name + ".json")
    inst = json.load(open(inst_path))
    tag = f"{name}-{backend}" + (f"-{dtype}" if dtype else "")
    d = os.path.join(tmp, tag)
    out = os.path.join(tmp, tag + ".npy")
    extra = ["--dtype", dtype] if dtype else []
    rc, so, se = run(binary, "contract", inst_path, "--backend", backend, "--save-inputs", d,
                     "-o", out, "--seed", "3", *extra)
    check(rc == 0, f"contract {name} on {backend}: exit {rc}: {se.strip()}")
    if rc != 0:
        return
    # The report names the dtype it computed in (the instance's unless --dtype).
    want_dt = dtype or {"float64": "f64", "float32": "f32", "complex64": "c64",
                        "complex128": "c128"}.get(inst.get("dtype"), "")
    check(f"dtype {want_dt}" in so and "single precision" not in so,
          f"contract {name} on {backend}: the report does not say dtype {want_dt}:\n{so}")
    check("median" in so and "GFLOP/s" in so and "peak RSS" in so,
          f"contract {name}: the report lacks the timing or memory line:\n{so}")
    ops = [np.load(os.path.join(d, f)) for f in sorted(os.listdir(d))]
    check(len(ops) == inst["num_tensors"], f"contract {name}: {len(ops)} operands saved")
    path = [tuple(p) for p in inst["paths"]["opt_flops"]["path"]]
    wide = [o.astype(np.complex128 if np.iscomplexobj(o) else np.float64) for o in ops]
    lhs, out_labels = inst["format_string"].split("->")
    terms = [list(t) for t in lhs.split(",")]
    vals = {i: w for i, w in enumerate(wide)}
    want = None
    for _, i, j, la, lb, keep in walk(terms, list(out_labels), path):
        want = contract_pair(vals.pop(i), la, vals.pop(j), lb, keep)
        vals[len(terms) + _] = want
    got = np.load(out)
    check(got.shape == want.shape, f"contract {name}: shape {got.shape} vs {want.shape}")
    if got.shape == want.shape:
        e = rel_err(got, want)
        check(e <= tol, f"contract {name} on {backend}: relative error {e:.3g} > {tol:g}")
    line = [l for l in so.splitlines() if "checksum sum" in l]
    if line:
        s = float(line[0].split("checksum sum ")[1].split()[0].rstrip(","))
        want_sum = float(np.sum(got.astype(np.complex128)).real)
        check(abs(s - want_sum) <= 1e-6 * max(1.0, float(np.sum(np.abs(got)))),
              f"contract {name}: checksum {s} vs the result's sum {want_sum}")


def memory_bound(binary, root, name):
    """Peak RSS of `tenferro contract` within 1.5x the tensors the path keeps
    alive at once, plus a fixed overhead: the cpu buffer pool's cap (256 MiB
    by default, tfr_cpu_options.pool_cap_bytes) and the program (64 MiB)."""
    inst = os.path.join(root, "examples", "instances", name + ".json")
    rc, so, se = run(binary, "contract", inst, "--threads", "2")
    check(rc == 0, f"contract {name}: exit {rc}: {se.strip()}")
    line = [l for l in so.splitlines() if l.startswith("memory")]
    if rc != 0 or not line:
        return
    rss = float(line[0].split("peak RSS ")[1].split()[0])
    live = float(line[0].split("live peak ")[1].split()[0])
    bound = 1.5 * live + 256 + 64
    print(f"memory {name}: peak RSS {rss:.0f} MiB, path's live peak {live:.0f} MiB, bound {bound:.0f}")
    check(rss <= bound, f"contract {name}: peak RSS {rss} MiB above 1.5 x {live} + 320 MiB")


def einsum_cases(binary, tmp, backend, tol, dt=None):
    rng = np.random.default_rng(5)
    cases = [
        ("ij,jk->ik", [(7, 5), (5, 9)]),
        ("ii->i", [(6, 6)]),
        ("ii", [(6, 6)]),
        ("...ij,...jk", [(3, 4, 5), (3, 5, 2)]),
        ("abc,cd,db->a", [(4, 3, 5), (5, 6), (6, 3)]),
        ("ij,ij->", [(8, 3), (8, 3)]),
    ]
    if dt is None:
        dt = np.float64 if backend == "cpu" else np.float32
    sfx = f"{backend}_{np.dtype(dt).name}"
    for k, (expr, shapes) in enumerate(cases):
        files = []
        arrs = []
        for i, sh in enumerate(shapes):
            a = (rng.uniform(-1, 1, sh) + 0.01).astype(dt)
            f = os.path.join(tmp, f"e{k}_{i}_{sfx}.npy")
            np.save(f, a)
            files.append(f)
            arrs.append(a.astype(np.float64))
        out = os.path.join(tmp, f"e{k}_{sfx}_out.npy")
        rc, _, se = run(binary, "einsum", expr, *files, "-o", out, "--backend", backend)
        check(rc == 0, f"einsum '{expr}' on {backend}: exit {rc}: {se.strip()}")
        if rc == 0:
            want = np.einsum(expr, *arrs)
            got = np.load(out)
            check(got.shape == want.shape, f"einsum '{expr}': shape {got.shape} vs {want.shape}")
            if got.shape == want.shape:
                e = rel_err(got, np.asarray(want))
                check(e <= tol, f"einsum '{expr}' on {backend}: relative error {e:.3g}")


def optimiser_cases(binary, root, tmp):
    """Every optimiser's path gives the result of the stored path (same
    seeded operands), and --plan-only stops after the path."""
    name = "lm_batch_likelihood_sentence_3_12d"
    inst = os.path.join(root, "examples", "instances", name + ".json")
    ref = os.path.join(tmp, "opt-ref.npy")
    rc, _, se = run(binary, "contract", inst, "--seed", "4", "--path", "opt_flops", "-o", ref)
    check(rc == 0, f"contract {name}: exit {rc}: {se.strip()}")
    if rc != 0:
        return
    want = want_stored = np.load(ref)
    for args in (["--path", "greedy"], ["--path", "random-greedy", "--trials", "8"],
                 ["--path", "dp"], ["--path", "dp", "--minimize", "size"]):
        out = os.path.join(tmp, "opt-got.npy")
        rc, so, se = run(binary, "contract", inst, "--seed", "4", "-o", out, *args)
        check(rc == 0, f"contract {name} {' '.join(args)}: exit {rc}: {se.strip()}")
        if rc == 0:
            e = rel_err(np.load(out), want)
            check(e <= 1e-10, f"contract {name} {' '.join(args)}: relative error {e:.3g}")
    rng = np.random.default_rng(8)
    arrs = [rng.uniform(-1, 1, sh) for sh in [(4, 3, 5), (5, 6), (6, 3), (4, 2)]]
    files = []
    for i, a in enumerate(arrs):
        files.append(os.path.join(tmp, f"opt{i}.npy"))
        np.save(files[-1], a)
    want = np.einsum("abc,cd,db,ae->e", *arrs)
    for args in (["--path", "random-greedy", "--seed", "3"], ["--path", "dp", "--minimize", "write"],
                 ["--path", "optimal", "--minimize", "combo"], ["--path", "partition"]):
        out = os.path.join(tmp, "opt-einsum.npy")
        rc, _, se = run(binary, "einsum", "abc,cd,db,ae->e", *files, "-o", out, *args)
        check(rc == 0, f"einsum {' '.join(args)}: exit {rc}: {se.strip()}")
        if rc == 0:
            e = rel_err(np.load(out), want)
            check(e <= 1e-12, f"einsum {' '.join(args)}: relative error {e:.3g}")
    out = os.path.join(tmp, "plan-only.npy")
    rc, so, se = run(binary, "contract", inst, "--path", "random-greedy", "--plan-only", "-o", out)
    check(rc == 0 and "log10(flops)" in so and "median" not in so and not os.path.exists(out),
          f"contract --plan-only: exit {rc}, output {so!r}")
    # auto (the default), treesa and partition give the stored path's result too.
    for args in (["--path", "auto", "--optimize-time", "0.5"], ["--path", "treesa", "--trials", "2"],
                 ["--path", "partition", "--trials", "4"]):
        out = os.path.join(tmp, "opt-got.npy")
        rc, so, se = run(binary, "contract", inst, "--seed", "4", "-o", out, *args)
        check(rc == 0, f"contract {name} {' '.join(args)}: exit {rc}: {se.strip()}")
        if rc == 0:
            e = rel_err(np.load(out), want_stored)
            check(e <= 1e-10, f"contract {name} {' '.join(args)}: relative error {e:.3g}")
    # partition on a ring of 16 matrices with open ends on two of them: more
    # operands than its cutoff, so METIS splits the ring.
    letters = "abcdefghijklmnop"
    terms = [letters[i] + letters[(i + 1) % 16] for i in range(16)]
    terms[0] += "x"
    terms[8] += "y"
    ring = ",".join(terms) + "->xy"
    ring_files = []
    for i, t in enumerate(terms):
        ring_files.append(os.path.join(tmp, f"ring{i}.npy"))
        np.save(ring_files[-1], rng.uniform(-1, 1, (3,) * len(t)))
    want = np.einsum(ring, *[np.load(f) for f in ring_files], optimize="greedy")
    for args in (["--path", "partition"], ["--path", "partition", "--minimize", "size", "--seed", "5"]):
        out = os.path.join(tmp, "ring-got.npy")
        rc, _, se = run(binary, "einsum", ring, *ring_files, "-o", out, *args)
        check(rc == 0, f"einsum ring {' '.join(args)}: exit {rc}: {se.strip()}")
        if rc == 0:
            e = rel_err(np.load(out), want)
            check(e <= 1e-12, f"einsum ring {' '.join(args)}: relative error {e:.3g}")


def profile_cases(binary, root, tmp):
    """--profile: after the timed repeats one more run with every op timed;
    the table names each op's kind and shapes, the totals by kind follow,
    and the result (-o) is the one without --profile. Only the 30 slowest
    ops are listed unless --profile=all."""
    cases = (("bin_batched_matmul_b32_m64_n64_k64", "batched_gemm", r"B=32 M=64 N=64 K=64"),
             ("bin_matmul_256", "gemm", r"M=256 N=256 K=256"),
             ("bin_outer_product_4096", "outer_product", r"8192 -> 16777216"),
             ("bin_elementwise_mul_2048x2048", "multiply", r"8388608 -> 4194304"))
    for name, kind, shape in cases:
        inst = os.path.join(root, "examples", "instances", name + ".json")
        plain, prof = os.path.join(tmp, "prof-plain.npy"), os.path.join(tmp, "prof-got.npy")
        rc1, _, se1 = run(binary, "contract", inst, "--seed", "2", "-o", plain)
        rc, so, se = run(binary, "contract", inst, "--seed", "2", "--repeat", "2", "--profile",
                         "-o", prof)
        check(rc1 == 0 and rc == 0, f"contract {name} --profile: exit {rc1}, {rc}: {se1}{se}")
        if rc != 0 or rc1 != 0:
            continue
        check(np.array_equal(np.load(plain), np.load(prof)),
              f"contract {name} --profile: the result differs from the one without it")
        lines = so.splitlines()
        op = [ln for ln in lines if re.match(r"\s+0\s+" + kind + r"\s", ln)]
        check(len(op) == 1 and re.search(shape, op[0]) and
              re.search(r"(GFLOP/s|GB/s)\s+[0-9.]+$", op[0]),
              f"contract {name} --profile: no line for step 0 ({kind}, {shape}) in\n{so}")
        check(any(re.match(r"by kind\s+kind\s+calls\s+ms", ln) for ln in lines) and
              any(re.match(r"\s+" + kind + r"\s+1\s+[0-9.]+\s+[0-9.]+\s+[0-9.]+ (GFLOP/s|GB/s)$", ln)
                  for ln in lines) and
              re.search(r"total: profiled [0-9.]+ ms, timed median [0-9.]+ ms", so),
              f"contract {name} --profile: no totals by kind in\n{so}")
    # A sliced plan (1100 slices, on 2 threads when not profiled): the slices'
    # ops add up per step, their accumulation is listed, the result the same.
    inst = os.path.join(root, "examples", "instances", "lm_batch_likelihood_sentence_3_12d.json")
    plain, prof = os.path.join(tmp, "prof-plain.npy"), os.path.join(tmp, "prof-got.npy")
    base = ["contract", inst, "--path", "greedy", "--max-memory", "4M", "--threads", "2"]
    rc1, _, se1 = run(binary, *base, "-o", plain)
    rc, so, se = run(binary, *base, "--profile", "-o", prof)
    check(rc1 == 0 and rc == 0 and "slices one after another" in so and
          re.search(r"\n\s+accumulate\s+1100\s", so) and re.search(r"\s1100\s", so),
          f"contract --max-memory 4M --profile: exit {rc1}, {rc}: {se1}{se}\n{so}")
    if rc1 == 0 and rc == 0:
        check(np.array_equal(np.load(plain), np.load(prof)),
              "contract --max-memory 4M --profile: the result differs from the one without it")
    # tenferro einsum --profile: the same table, numpy's result.
    rng = np.random.default_rng(5)
    arrs = [rng.uniform(-1, 1, sh) for sh in [(30, 40), (40, 50), (50, 7)]]
    files = []
    for i, a in enumerate(arrs):
        files.append(os.path.join(tmp, f"prof{i}.npy"))
        np.save(files[-1], a)
    out = os.path.join(tmp, "prof-einsum.npy")
    rc, so, se = run(binary, "einsum", "ij,jk,kl->li", *files, "-o", out, "--path", "greedy",
                     "--profile=all")
    rows = [ln for ln in so.splitlines() if re.match(r"\s+[01]\s+gemm\s+M=\d+ N=\d+ K=(40|50)\s", ln)]
    check(rc == 0 and len(rows) == 2 and re.search(r"total: profiled [0-9.]+ ms\n", so) and
          rel_err(np.load(out), np.einsum("ij,jk,kl->li", *arrs)) <= 1e-12,
          f"einsum --profile=all: exit {rc}: {se.strip()}\n{so}")
    # A tiny network runs in one loop (tfr_einsum_options.follow_path): one
    # sum_of_products record after the steps' place ("end"), M=8 outputs of
    # N=2 operands with K=3 terms each, numpy's result.
    small = [rng.uniform(-1, 1, sh) for sh in [(2, 3), (3, 4)]]
    for i, a in enumerate(small):
        np.save(os.path.join(tmp, f"sop{i}.npy"), a)
    rc, so, se = run(binary, "einsum", "ij,jk->ik", os.path.join(tmp, "sop0.npy"),
                     os.path.join(tmp, "sop1.npy"), "-o", out, "--profile")
    check(rc == 0 and re.search(r"\n\s+end\s+sum_of_products\s+M=8 N=2 K=3\s", so) and
          rel_err(np.load(out), small[0] @ small[1]) <= 1e-15,
          f"einsum --profile on a tiny network: exit {rc}: {se.strip()}\n{so}")
    # 99 steps: the 30 slowest and a line for the rest, or all with =all.
    inst = os.path.join(root, "examples", "instances", "str_matrix_chain_multiplication_100.json")
    rc, so, se = run(binary, "contract", inst, "--profile")
    rows = [ln for ln in so.splitlines() if re.match(r"\s+\d+\s+gemm\s", ln)]
    check(rc == 0 and len(rows) == 30 and re.search(r"\.\.\. 69 more ops, [0-9.]+ ms", so),
          f"contract --profile on 99 steps: exit {rc}, {len(rows)} rows: {se.strip()}")
    rc, so, se = run(binary, "contract", inst, "--profile=all")
    rows = [int(ln.split()[0]) for ln in so.splitlines() if re.match(r"\s+\d+\s+gemm\s", ln)]
    check(rc == 0 and rows == list(range(99)) and "more ops" not in so,
          f"contract --profile=all on 99 steps: exit {rc}, steps {rows[:5]}...: {se.strip()}")
    rc, so, se = run(binary, "contract", inst, "--profile=some")
    check(rc == 2 and "--profile=some" in se, f"contract --profile=some: exit {rc}, {se.strip()!r}")
    rc, so, se = run(binary, "contract", "--help")
    check(rc == 0 and "--profile" in so, "contract --help does not list --profile")


def slicing_cases(binary, root, tmp):
    """--max-memory: a path above the limit is sliced, the result is numpy's,
    a saved path file keeps the sliced labels and reading it slices again;
    an impossible limit and bad values are refused with nothing written."""
    rng = np.random.default_rng(11)
    shapes = [(256, 16), (256, 16), (256, 16), (16, 16, 16)]
    files = []
    for i, sh in enumerate(shapes):
        files.append(os.path.join(tmp, f"sl{i}.npy"))
        np.save(files[-1], rng.uniform(-1, 1, sh))
    expr = "ia,ib,ic,abc->"
    want = np.einsum(expr, *[np.load(f) for f in files])
    # Greedy's tree makes a 256 x 16 x 16 intermediate (512 KiB) from operands
    # of 128 KiB in all: 256 KiB needs slicing.
    got, saved = os.path.join(tmp, "sl-got.npy"), os.path.join(tmp, "sl-path.json")
    rc, _, se = run(binary, "einsum", expr, *files, "-o", got, "--path", "greedy",
                    "--max-memory", "256K", "--save-path", saved)
    check(rc == 0, f"einsum --max-memory 256K: exit {rc}: {se.strip()}")
    if rc == 0:
        e = rel_err(np.load(got), want)
        check(e <= 1e-12, f"einsum --max-memory 256K: relative error {e:.3g}")
        doc = json.load(open(saved))
        check(len(doc["sliced"]) >= 1 and doc["num_slices"] > 1 and
              doc["sliced_flops"] >= doc["flops"],
              f"the saved path lacks the slicing: {doc['sliced']!r}, {doc['num_slices']}")
        os.remove(got)
        rc, _, se = run(binary, "einsum", expr, *files, "-o", got, "--path-file", saved)
        check(rc == 0 and rel_err(np.load(got), want) <= 1e-12,
              f"einsum --path-file of a sliced path: exit {rc}: {se.strip()}")
    os.remove(got) if os.path.exists(got) else None
    rc, _, se = run(binary, "einsum", expr, *files, "-o", got, "--path", "greedy",
                    "--max-memory", "100K")
    check(rc == 1 and "no slicing fits" in se and not os.path.exists(got),
          f"einsum --max-memory 100K (the operands alone need more): exit {rc}, {se.strip()!r}")
    name = "lm_batch_likelihood_sentence_3_12d"
    inst = os.path.join(root, "examples", "instances", name + ".json")
    for bad in ("0", "-5", "12Q", "abc", "nan", "1e400"):
        rc, _, se = run(binary, "contract", inst, "--max-memory", bad, "-o", got)
        check(rc == 2 and "--max-memory" in se and not os.path.exists(got),
              f"--max-memory {bad}: exit {rc}, {se.strip()!r}")
    rc, _, se = run(binary, "contract", inst, "--path", "opt_flops", "--max-memory", "1K", "-o", got)
    check(rc != 0 and "no slicing fits" in se and not os.path.exists(got),
          f"contract --max-memory 1K: exit {rc}, {se.strip()!r}")
    budget_search_cases(binary, inst, tmp, ("16M", "4M"))
    queen = os.path.join(root, "examples", "instances", "gm_queen5_5_3.wcsp.json")
    budget_search_cases(binary, queen, tmp, ("64M",))


def budget_search_cases(binary, inst, tmp, limits):
    """--max-memory with a searched path: the tree and its sliced labels are
    searched together; the plan fits and costs no more sliced flops than the
    same optimiser's tree sliced to fit afterwards (its saved path read
    back with the limit); the saved path keeps the new tree and labels."""
    search = ["--path", "treesa", "--trials", "2", "--seed", "3", "--plan-only"]
    flat = os.path.join(tmp, "budget-flat.json")
    rc, _, se = run(binary, "contract", inst, *search, "--max-memory", "1T", "--save-path", flat)
    check(rc == 0, f"contract {' '.join(search)}: exit {rc}: {se.strip()}")
    for limit in limits:
        ref, cut = os.path.join(tmp, "budget-ref.json"), os.path.join(tmp, "budget-cut.json")
        rc1, _, se1 = run(binary, "contract", inst, "--path-file", flat, "--plan-only",
                          "--max-memory", limit, "--save-path", ref)
        rc2, so2, se2 = run(binary, "contract", inst, *search, "--max-memory", limit,
                            "--save-path", cut)
        check(rc1 == 0 and rc2 == 0, f"--max-memory {limit}: exit {rc1}, {rc2}: {se1}{se2}")
        if rc1 or rc2:
            continue
        a, b = json.load(open(ref)), json.load(open(cut))
        check(b["num_slices"] > 1 and b["sliced_flops"] <= a["sliced_flops"] * (1 + 1e-12),
              f"--max-memory {limit}: the search's sliced flops {b['sliced_flops']:.4g} above "
              f"slice_to_fit's {a['sliced_flops']:.4g}")
        m = re.search(r"one slice's memory ([0-9.]+) MiB \(limit ([0-9.]+) MiB\)", so2)
        check(m is not None and float(m.group(1)) <= float(m.group(2)),
              f"--max-memory {limit}: the plan does not fit: {so2!r}")
        # Read back with the limit: the saved tree and labels, the same figures.
        rc, so3, se = run(binary, "contract", inst, "--path-file", cut, "--plan-only",
                          "--max-memory", limit)
        line = [l for l in so2.splitlines() if l.startswith("slices ")]
        again = [l for l in so3.splitlines() if l.startswith("slices ")]
        check(rc == 0 and line == again,
              f"--max-memory {limit}: the saved sliced path reads back as {again}, not {line}")


def path_line(stdout):
    return [l for l in stdout.splitlines() if l.startswith("path ")]


def path_file_cases(binary, root, tmp):
    """A saved path reloads to the same result and statistics."""
    name = "lm_batch_likelihood_brackets_4_4d"
    inst = os.path.join(root, "examples", "instances", name + ".json")
    saved = os.path.join(tmp, "saved-path.json")
    ref, got = os.path.join(tmp, "pf-ref.npy"), os.path.join(tmp, "pf-got.npy")
    rc, so1, se = run(binary, "contract", inst, "--path", "random-greedy", "--trials", "8",
                      "--seed", "2", "--save-path", saved, "-o", ref)
    check(rc == 0 and os.path.exists(saved), f"contract --save-path: exit {rc}: {se.strip()}")
    if rc != 0:
        return
    doc = json.load(open(saved))
    n = json.load(open(inst))["num_tensors"]
    check(doc["num_operands"] == n and len(doc["path"]) == n - 1 and len(doc["tree"]) == n - 1
          and doc["sliced"] == [] and doc["flops"] > 0 and "tenferro" in doc,
          f"contract --save-path: incomplete file {sorted(doc)}")
    # The SSA tree is the pair list's: replay the positions.
    ids, tree = list(range(n)), []
    for k, (i, j) in enumerate(doc["path"]):
        tree.append(sorted([ids[i], ids[j]]))
        ids = [x for p, x in enumerate(ids) if p not in (i, j)] + [n + k]
    check(tree == [sorted(t) for t in doc["tree"]], "contract --save-path: tree is not the path's")
    rc, so2, se = run(binary, "contract", inst, "--path-file", saved, "--seed", "2", "-o", got)
    check(rc == 0, f"contract --path-file: exit {rc}: {se.strip()}")
    if rc == 0:
        check(path_line(so1) == path_line(so2),
              f"contract --path-file: {path_line(so2)} vs {path_line(so1)}")
        e = rel_err(np.load(got), np.load(ref))
        check(e <= 1e-12, f"contract --path-file: relative error {e:.3g}")
    # A plain pair list (numpy / opt_einsum's einsum_path) is a path file too.
    plain = os.path.join(tmp, "plain-path.json")
    json.dump(doc["path"], open(plain, "w"))
    rc, so3, se = run(binary, "contract", inst, "--path-file", plain, "--plan-only")
    check(rc == 0 and path_line(so3) == path_line(so1),
          f"contract --path-file (plain pair list): exit {rc}: {se.strip()} {path_line(so3)}")
    # einsum on .npy files, then a sliced version of its path.
    rng = np.random.default_rng(9)
    arrs = [rng.uniform(-1, 1, sh) for sh in [(4, 3, 5), (5, 6), (6, 3), (4, 2)]]
    files = []
    for i, a in enumerate(arrs):
        files.append(os.path.join(tmp, f"pf{i}.npy"))
        np.save(files[-1], a)
    expr = "abc,cd,db,ae->e"
    want = np.einsum(expr, *arrs)
    esaved, eagain = os.path.join(tmp, "einsum-path.json"), os.path.join(tmp, "einsum-again.json")
    rc, _, se = run(binary, "einsum", expr, *files, "-o", got, "--path", "dp", "--save-path", esaved)
    check(rc == 0, f"einsum --save-path: exit {rc}: {se.strip()}")
    if rc != 0:
        return
    rc, _, se = run(binary, "einsum", expr, *files, "-o", got, "--path-file", esaved,
                    "--save-path", eagain)
    check(rc == 0, f"einsum --path-file: exit {rc}: {se.strip()}")
    if rc == 0:
        a, b = json.load(open(esaved)), json.load(open(eagain))
        check(a["path"] == b["path"] and a["flops"] == b["flops"] and a["subscripts"] == expr,
              f"einsum --path-file: saved again {b} vs {a}")
        check(rel_err(np.load(got), want) <= 1e-12, "einsum --path-file: wrong result")
    doc = json.load(open(esaved))
    doc["sliced"] = ["b", "d"]
    sliced = os.path.join(tmp, "einsum-sliced.json")
    json.dump(doc, open(sliced, "w"))
    rc, _, se = run(binary, "einsum", expr, *files, "-o", got, "--path-file", sliced,
                    "--save-path", eagain)
    check(rc == 0, f"einsum --path-file (sliced): exit {rc}: {se.strip()}")
    if rc == 0:
        b = json.load(open(eagain))
        check(b["sliced"] == ["b", "d"] and b["num_slices"] == 18,
              f"einsum --path-file (sliced): saved again {b}")
        check(rel_err(np.load(got), want) <= 1e-12, "einsum --path-file (sliced): wrong result")


def run_on_terminal(binary, *args):
    """Runs with stderr on a pseudo-terminal; returns (exit, stdout, what the terminal got)."""
    import pty
    master, slave = pty.openpty()
    p = subprocess.Popen([binary, *args], stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    got = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the terminal closed (EIO)
            break
        if not chunk:
            break
        got += chunk
    out = p.stdout.read().decode()
    p.wait(timeout=600)
    p.stdout.close()
    os.close(master)
    return p.returncode, out, got.decode(errors="replace")


def progress_cases(binary, root, tmp):
    inst = os.path.join(root, "examples", "instances", "lm_batch_likelihood_sentence_3_12d.json")
    rc, so, se = run(binary, "contract", inst)
    check(rc == 0 and se == "", f"contract (stderr not a terminal): exit {rc}, stderr {se!r}")
    rc, so, term = run_on_terminal(binary, "contract", inst)
    check(rc == 0 and "step" in term and "flops" in term and "#" in term,
          f"contract on a terminal: no progress bar: exit {rc}, {term!r}")
    check(term.endswith("\r") and term.rstrip("\r").split("\r")[-1].strip() == "",
          f"contract on a terminal: the bar is not cleared: {term[-200:]!r}")
    check("\r" not in so and "[#" not in so, "contract on a terminal: progress on stdout")
    rc, so, term = run_on_terminal(binary, "contract", inst, "--quiet")
    check(rc == 0 and term == "" and "checksum" in so,
          f"contract --quiet on a terminal: exit {rc}, stderr {term!r}")
    a = os.path.join(tmp, "q.npy")
    np.save(a, np.ones((3, 4)))
    rc, _, term = run_on_terminal(binary, "einsum", "ij->ji", a, "-o", os.path.join(tmp, "qt.npy"),
                                  "-q")
    check(rc == 0 and term == "", f"einsum -q on a terminal: exit {rc}, stderr {term!r}")


def bad_inputs(binary, root, tmp):
    inst = os.path.join(root, "examples", "instances", "bin_matmul_256.json")
    out = os.path.join(tmp, "never.npy")

    def refused(args, want_in_msg, what):
        if os.path.exists(out):
            os.remove(out)
        rc, _, se = run(binary, *args)
        lines = [l for l in se.strip().splitlines() if l]
        check(rc != 0, f"{what}: exit 0")
        check(len(lines) >= 1 and want_in_msg in se, f"{what}: message lacks '{want_in_msg}': {se!r}")
        check(not os.path.exists(out), f"{what}: an output file was written")

    refused(["contract", inst, "--backend", "tpu", "-o", out], "unknown --backend", "unknown backend")
    refused(["contract", inst, "--warmup", "-1", "-o", out], "--warmup", "a negative --warmup")
    refused(["contract", inst, "--warmup", "2x", "-o", out], "--warmup", "a --warmup that is no number")
    # --warmup: untimed runs first; the result is the one without them.
    plain, warm = os.path.join(tmp, "warm-plain.npy"), os.path.join(tmp, "warm-got.npy")
    rc1, _, se1 = run(binary, "contract", inst, "--seed", "3", "-o", plain)
    rc2, so2, se2 = run(binary, "contract", inst, "--seed", "3", "--warmup", "2", "--repeat", "3",
                        "-o", warm)
    check(rc1 == 0 and rc2 == 0 and "over 3 repeat(s)" in so2 and
          np.array_equal(np.load(plain), np.load(warm)),
          f"contract --warmup 2 --repeat 3: exit {rc1}, {rc2}: {se1}{se2}\n{so2}")
    broken = os.path.join(tmp, "broken.json")
    open(broken, "w").write('{"format_string": "ij,jk->ik", "shapes": [[2, 3]')
    refused(["contract", broken, "-o", out], "broken.json", "malformed instance")
    mismatch = os.path.join(tmp, "mismatch.json")
    json.dump({"format_string": "ij,jk->ik", "shapes": [[2, 3], [4, 5]], "dtype": "float64",
               "num_tensors": 2, "paths": {"opt_flops": {"path": [[0, 1]]}}}, open(mismatch, "w"))
    refused(["contract", mismatch, "-o", out], "mismatch.json", "labels and shapes disagree")
    badpath = os.path.join(tmp, "badpath.json")
    json.dump({"format_string": "ij,jk,kl->il", "shapes": [[2, 3], [3, 4], [4, 5]],
               "dtype": "float64", "num_tensors": 3, "paths": {"opt_flops": {"path": [[0, 1]]}}},
              open(badpath, "w"))
    refused(["contract", badpath, "--path", "opt_flops", "-o", out], "path",
            "a path that does not cover every operand")
    huge = os.path.join(tmp, "huge.json")
    json.dump({"format_string": "ab,cd->abcd", "shapes": [[100000, 100000], [1, 1]],
               "dtype": "float64", "num_tensors": 2, "paths": {"opt_flops": {"path": [[0, 1]]}}},
              open(huge, "w"))
    refused(["contract", huge, "-o", out], "bytes", "an intermediate that cannot fit in memory")
    notnpy = os.path.join(tmp, "not.npy")
    open(notnpy, "wb").write(b"this is not an npy file")
    refused(["einsum", "ij->ji", notnpy, "-o", out], "not.npy", "malformed .npy")
    a = os.path.join(tmp, "a23.npy")
    np.save(a, np.ones((2, 3)))
    refused(["einsum", "ij,jk->ik", a, a, "-o", out], "", "shapes that disagree")
    refused(["einsum", "ij->ji", a, "-o", out, "--backend", "nope"], "unknown --backend",
            "unknown backend (einsum)")
    refused(["contract", inst, "--path", "annealing", "-o", out], "unknown --path", "unknown --path")
    refused(["contract", inst, "--path", "dp", "--minimize", "bytes", "-o", out], "--minimize",
            "unknown cost")
    refused(["contract", inst, "--path", "random-greedy", "--trials", "-3", "-o", out], "--trials",
            "negative trials")
    refused(["contract", inst, "--path", "random-greedy", "--optimize-time", "0", "-o", out],
            "--optimize-time", "a zero time budget")
    chain = os.path.join(root, "examples", "instances", "str_matrix_chain_multiplication_100.json")
    refused(["contract", chain, "--path", "dp", "-o", out], "at most 64", "dp on 100 operands")
    refused(["einsum", "ij->ji", a, "-o", out, "--path", "annealing"], "neither an optimiser",
            "unknown --path (einsum)")
    refused(["einsum", "ij->ji", a, "-o", out, "--seed", "-1"], "--seed", "negative seed (einsum)")
    # Path files that do not fit the network: one error naming the file.
    pf = os.path.join(tmp, "pathfile.json")
    good = {"num_operands": 2, "subscripts": "ij,jk->ik", "shapes": [[2, 3], [3, 2]],
            "path": [[0, 1]], "tree": [[0, 1]], "sliced": []}
    np.save(os.path.join(tmp, "a32.npy"), np.ones((3, 2)))
    ein = ["einsum", "ij,jk->ik", a, os.path.join(tmp, "a32.npy"), "-o", out, "--path-file", pf]
    for change, msg, what in (({"path": [[0, 1], [0, 1]]}, "needs 1", "too many steps"),
                              ({"num_operands": 3}, "3 operands", "wrong operand count"),
                              ({"path": [[0, 2]]}, "step 0", "bad position"),
                              ({"shapes": [[2, 3], [3, 5]]}, "operand 1", "shape mismatch"),
                              ({"sliced": ["q"]}, "sliced", "unknown sliced label"),
                              ({"tree": [[0, 5]]}, "tree", "tree that is not the path's")):
        json.dump({**good, **change}, open(pf, "w"))
        refused(ein, "pathfile.json", f"path file: {what}")
    json.dump(good, open(pf, "w"))
    rc, _, se = run(binary, *ein)
    check(rc == 0, f"path file: the good one refused: {se.strip()}")
    open(pf, "w").write('{"path": [[0, 1]')
    refused(ein, "not valid JSON", "path file: garbage JSON")
    json.dump([[0, 1], [0, 1]], open(pf, "w"))
    refused(ein, "pathfile.json", "path file: plain pair list with too many steps")
    os.remove(pf)
    refused(ein, "pathfile.json", "path file: missing")
    refused(["contract", inst, "--path-file", pf, "-o", out], "pathfile.json",
            "path file: missing (contract)")
    json.dump([[0, 1], [0, 1]], open(pf, "w"))
    refused(["contract", inst, "--path-file", pf, "-o", out], "2 steps",
            "path file: wrong operand count (contract)")
    refused(["contract", inst, "--path-file", pf, "--path", "dp", "-o", out], "exclude",
            "--path with --path-file")
    nodir = os.path.join(tmp, "no-such-dir", "p.json")
    refused(["contract", inst, "--save-path", nodir, "-o", out], "no-such-dir",
            "unwritable --save-path")
    check(not os.path.exists(os.path.dirname(nodir)), "unwritable --save-path: a file was written")
    refused(["einsum", "ij->ji", a, "-o", out, "--save-path", nodir], "no-such-dir",
            "unwritable --save-path (einsum)")


def blas_kernels(binary):
    """OpenBLAS's kernel set: with OPENBLAS_CORETYPE unset, a CPU that has
    AVX2 and FMA never runs kernels older than AVX2 (the tool re-executes
    itself with the variable set when OpenBLAS fell back to its generic
    ones); a value the user set stands."""
    import re
    old = {"Prescott", "Core2", "Penryn", "Dunnington", "Nehalem", "Atom", "Sandybridge",
           "Barcelona", "Opteron", "Opteron(SSE3)", "Katmai", "Coppermine", "Northwood", "Banias"}
    flags = set()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                break
    except OSError:
        pass

    def kernels(coretype):
        env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
        if coretype:
            env["OPENBLAS_CORETYPE"] = coretype
        p = subprocess.run([binary, "info"], capture_output=True, text=True, timeout=600, env=env)
        m = re.search(r"BLAS: .*, kernels (\S+)", p.stdout)
        check(p.returncode == 0 and m, f"info (OPENBLAS_CORETYPE={coretype}): no kernels line")
        return m.group(1) if m else None

    got = kernels(None)
    if {"avx2", "fma"} <= flags and platform.machine() == "x86_64":
        check(got not in old, f"info: OpenBLAS runs its pre-AVX2 kernels {got} on an AVX2 CPU")
    check(kernels("Prescott") == "Prescott", "info: OPENBLAS_CORETYPE=Prescott was overridden")


def info_ops(binary, root, webgpu):
    import re
    rows = re.findall(r'^X\(\w+, "([^"]+)",', open(os.path.join(root, "src", "core",
                                                               "op_registry.def")).read(), re.M)
    rc, out, err = run(binary, "info", "--ops", "--json")
    check(rc == 0, f"info --ops --json: exit {rc}: {err!r}")
    try:
        doc = json.loads(out)
    except ValueError as e:
        check(False, f"info --ops --json: not JSON ({e})")
        return
    ops = {o["name"]: o for o in doc["ops"]}
    check(list(ops) == rows, "info --ops --json: the ops are not those of op_registry.def")
    check(doc["backends"][0] == "cpu", "info --ops --json: cpu is not the first backend")
    for o in doc["ops"]:
        check(set(o["dtypes"]) <= set(doc["dtypes"]), f"{o['name']}: unknown dtypes")
        check(o["backends"]["cpu"] == o["dtypes"], f"{o['name']}: cpu does not run all its dtypes")
        if "webgpu" in o["backends"]:
            check(set(o["backends"]["webgpu"]) <= set(o["dtypes"]),
                  f"{o['name']}: webgpu runs a dtype the op is not defined for")
    check("u8" not in ops["abs"]["dtypes"] and "i8" in ops["abs"]["dtypes"],
          "abs: defined for signed integers only")
    check(ops["exponential"]["tolerance"] == "function", "exponential: tolerance class")
    if webgpu:
        check("webgpu" in doc["backends"], "info --ops --json: no webgpu column with an adapter")
        wg = ops["exponential"]["backends"].get("webgpu", [])
        check("f32" in wg and "f64" in wg and "c128" in wg, f"exponential on webgpu: {wg}")
        wg = ops["sine"]["backends"].get("webgpu", [])
        check("f32" in wg and "f64" in wg and "c128" not in wg, f"sine on webgpu: {wg}")
        wg = ops["erf"]["backends"].get("webgpu", [])
        check("f32" in wg and "f64" in wg, f"erf on webgpu: {wg}")
        wg = ops["lgamma"]["backends"].get("webgpu", [])
        check("f32" in wg and "f64" not in wg, f"lgamma on webgpu: {wg}")
        wg = ops["divide"]["backends"].get("webgpu", [])
        check("c128" in wg, f"divide on webgpu: {wg}")
    rc, out, _ = run(binary, "info", "--ops")
    lines = out.splitlines()
    check(rc == 0 and len(lines) == len(rows) + 2, "info --ops: one line per op plus two")
    if len(lines) > 2:
        head = lines[1].split()
        abs_line = next((l.split() for l in lines if l.startswith("abs ")), [])
        check(len(abs_line) == len(head) and abs_line[head.index("u8")] == "." and
              abs_line[head.index("f32")] in ("c", "+"), f"info --ops: abs row {abs_line}")
    rc, out, _ = run(binary, "info", "--help")
    check(rc == 0 and "--ops" in out, "info --help does not document --ops")
    rc, _, err = run(binary, "info", "--json")
    check(rc == 2 and "--json needs --ops" in err, f"info --json without --ops: {rc} {err!r}")


def replay_case(binary, root):
    """contract --backend webgpu --repeat: the host line, and a plan executed
    again (after --warmup) creating no pipeline, bind group or buffer."""
    inst = os.path.join(root, "examples", "instances", "lm_batch_likelihood_brackets_4_4d.json")
    rc, out, err = run(binary, "contract", inst, "--backend", "webgpu", "--dtype", "f32",
                       "--path", "opt_flops", "--repeat", "2", "--warmup", "1")
    check(rc == 0, f"contract --backend webgpu --repeat 2: rc {rc}: {err}")
    host = re.search(r"^host +recording ([0-9.]+) us per step .* over 83 steps", out, re.M)
    check(host is not None and float(host.group(1)) > 0, f"contract webgpu: no host line: {out}")
    rep = re.search(r"^replay +the last repeat created (\d+) pipelines, (\d+) bind groups, "
                    r"(\d+) buffers \((\d+) dispatches, (\d+) bind groups reused", out, re.M)
    check(rep is not None and rep.group(1) == rep.group(2) == rep.group(3) == "0" and
          int(rep.group(4)) >= 83 and rep.group(4) == rep.group(5),
          f"contract webgpu: a repeat created something: {rep and rep.group(0)}")
    rc, out, _ = run(binary, "contract", inst, "--backend", "webgpu", "--dtype", "f32",
                     "--path", "opt_flops")
    check(rc == 0 and "\nhost " in out and "\nreplay " not in out,
          "contract webgpu, one run: a host line and no replay line expected")


def main():
    binary, root = sys.argv[1], sys.argv[2]
    webgpu = "--webgpu" in sys.argv[3:]
    if webgpu:
        _, info, _ = run(binary, "info")
        gpu = info.split("webgpu backend:", 1)[-1]
        if "status:        available" not in gpu:
            if os.environ.get("TFR_REQUIRE_WEBGPU") == "1":
                print("FAIL: no webgpu adapter (and TFR_REQUIRE_WEBGPU=1)")
                return 1
            print("SKIP: no webgpu adapter on this machine")
            return 77
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("bin_matmul_256", "lm_batch_likelihood_brackets_4_4d",
                     "str_mps_varying_inner_product_200", "bin_batched_matmul_b32_m64_n64_k64"):
            contract_case(binary, root, tmp, name, "cpu", 1e-10)
        einsum_cases(binary, tmp, "cpu", 1e-12)
        optimiser_cases(binary, root, tmp)
        profile_cases(binary, root, tmp)
        slicing_cases(binary, root, tmp)
        path_file_cases(binary, root, tmp)
        progress_cases(binary, root, tmp)
        bad_inputs(binary, root, tmp)
        info_ops(binary, root, webgpu)
        blas_kernels(binary)
        # Not under AddressSanitizer: its shadow memory and quarantine inflate
        # the RSS (scripts/test.sh sets ASAN_OPTIONS for sanitizer builds).
        if not webgpu and "ASAN_OPTIONS" not in os.environ:
            for name in ("gm_queen5_5_3.wcsp", "str_nw_mera_closed_120"):
                memory_bound(binary, root, name)
        if webgpu:
            # f64 instances in f64, to 1e-12 of numpy's f64; the chain of 200
            # random matrices leaves f32's range (it overflows in f32 on any
            # backend, numpy's float32 too), f64 keeps it.
            for name in ("bin_matmul_256", "lm_batch_likelihood_brackets_4_4d",
                         "bin_batched_matmul_b32_m64_n64_k64",
                         "str_mps_varying_inner_product_200"):
                contract_case(binary, root, tmp, name, "webgpu", 1e-12)
            # Single precision on request, for instances whose values stay in
            # f32's range.
            for name in ("lm_batch_likelihood_sentence_3_12d", "bin_matmul_256"):
                contract_case(binary, root, tmp, name, "webgpu", 2e-4, "f32")
            # c128 in c128 (pairs of software binary64), to 1e-12 of numpy's.
            contract_case(binary, root, tmp, "lm_batch_likelihood_brackets_4_4d", "webgpu", 1e-12,
                          "c128")
            einsum_cases(binary, tmp, "webgpu", 2e-5)
            einsum_cases(binary, tmp, "webgpu", 1e-12, np.float64)
            replay_case(binary, root)
    if FAILURES:
        print(f"{len(FAILURES)} check(s) failed")
        return 1
    print("all cli checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
