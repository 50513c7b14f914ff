#!/usr/bin/env python3
"""Reference data for tests/unit/test_einsum_instances.c: every instance of
examples/instances/ contracted by numpy along its opt_flops path.

Writes into OUTDIR/einsum_instances/:
  cases.txt           one line per case: ID INSTANCE_FILE DTYPE (f64 or c128);
                      every instance runs as f64 (its dtype), four small ones
                      also as complex128 ("NAME@c128")
  ID/in_<iii>.npy     operand i: seeded numpy RNG, uniform in [-1, 1) (complex:
                      both parts), never zero, times a power of two (below)
  ID/out.npy          the result
  ID/stats.txt        seconds taken, log10 of the smallest and largest RMS of
                      the (scaled) intermediates

The reference is numpy alone, one pairwise step of the path at a time (see
contract_pair); numpy.einsum itself takes only 52 ASCII letters, the
instances have up to 415 UTF-8 labels (a single pair never more than 52,
asserted).

Scaling: with unscaled operands the intermediates run to 1e±180 along the
200-step paths, where a relative error says little and f64 may overflow. So
each operand gets a power-of-two scale that keeps the intermediates near 1,
found by running the path once (run_case). Powers of two make the rescaling
exact, so the stored result is what numpy gets from the stored operands
(checked when this was written: bit for bit on every case).

Runs with Debian's python3 + numpy (tests/ref/make_all.sh) in about 16 s on
2 cores, peak memory about 2.4 GB (gm_queen5_5_3.wcsp: 11 s; its largest
intermediate has 3^17 = 1.3e8 elements, 1 GiB). The output is rebuilt only
when this script or an instance file changes (a stamp holds their hash).
"""
import glob
import hashlib
import json
import math
import os
import resource
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
INSTANCES = os.path.normpath(os.path.join(HERE, "..", "..", "examples", "instances"))
LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
# Instances that also run as complex128 (small operands, quick): the
# library's complex path through the same networks.
C128_VARIANTS = ["bin_matmul_256", "bin_batched_matmul_b32_m64_n64_k64",
                 "lm_batch_likelihood_brackets_4_4d", "lm_batch_likelihood_sentence_3_12d"]
SEED = 20261130


def load_instance(path):
    with open(path, encoding="utf-8") as f:
        d = json.load(f)
    lhs, out = d["format_string"].split("->")
    terms = [list(t) for t in lhs.split(",")]
    shapes = [tuple(s) for s in d["shapes"]]
    assert len(terms) == len(shapes), path
    for t, s in zip(terms, shapes):
        assert len(t) == len(s), (path, t, s)
        assert len(set(t)) == len(t), "repeated label in one operand: not handled here"
    extent = {}
    for t, s in zip(terms, shapes):
        for c, e in zip(t, s):
            assert extent.setdefault(c, e) == e, (path, c)
    path_pairs = [tuple(p) for p in d["paths"]["opt_flops"]["path"]]
    return d, terms, list(out), shapes, extent, path_pairs


def walk(terms, out, path_pairs):
    """Replays the path on label lists. Yields (i, j, la, lb, keep) per step
    with positions i, j in the current list; keep = labels of the result."""
    items = [list(t) for t in terms]
    ids = list(range(len(terms)))
    for step, (i, j) in enumerate(path_pairs):
        la, lb = items[i], items[j]
        rest = [items[k] for k in range(len(items)) if k not in (i, j)]
        needed = set(out).union(*map(set, rest))
        union = list(dict.fromkeys(la + lb))
        if len(path_pairs) == step + 1:
            keep = list(out)  # the last step gives the output order directly
        else:
            keep = [c for c in union if c in needed]
        yield step, ids[i], ids[j], la, lb, keep
        for k in sorted((i, j), reverse=True):
            del items[k]
            del ids[k]
        items.append(keep)
        ids.append(len(terms) + step)


def random_operand(rng, shape, complex_):
    def part():
        v = rng.uniform(-1.0, 1.0, size=shape)
        v[v == 0] = 0.5  # never zero
        return v
    return part() + 1j * part() if complex_ else part()


def contract_pair(a, la, b, lb, keep):
    """One step: the result with labels `keep`, by numpy alone.

    A step that sums over nothing is a broadcast multiply. Otherwise labels
    only one operand has and nobody needs are summed first, then the pair
    goes through numpy's BLAS as (batch, M, K) @ (batch, K, N) (a plain
    matrix product without batch labels). np.einsum on the pair's labels
    relabelled to ASCII letters computes the same, but its C loop takes
    minutes on the rank-24 steps of tensornetwork_permutation_light_415;
    steps with K <= 8 and batch labels add K broadcast products instead of
    calling BLAS per tiny batch matrix.
    """
    assert len(set(la) | set(lb)) <= 52, "a pair with more than 52 labels"
    shared = set(la) & set(lb)
    if not (shared - set(keep)):  # multiply: broadcast views in keep's order
        def view(x, lx):  # axes in keep's order, extent 1 where x lacks the label
            ext = dict(zip(lx, x.shape))
            x = x.transpose([lx.index(c) for c in keep if c in lx])
            return x.reshape([ext.get(c, 1) for c in keep])
        s_la = [c for c in la if c not in keep]
        s_lb = [c for c in lb if c not in keep]
        if s_la:
            a = a.sum(axis=tuple(la.index(c) for c in s_la))
            la = [c for c in la if c in keep]
        if s_lb:
            b = b.sum(axis=tuple(lb.index(c) for c in s_lb))
            lb = [c for c in lb if c in keep]
        return view(a, la) * view(b, lb)

    def local_sum(x, lx, other):
        ax = tuple(k for k, c in enumerate(lx) if c not in other and c not in keep)
        if ax:
            x = x.sum(axis=ax)
            lx = [c for k, c in enumerate(lx) if k not in ax]
        return x, lx
    a, la = local_sum(a, la, lb)
    b, lb = local_sum(b, lb, la)
    batch = [c for c in la if c in lb and c in keep]
    con = [c for c in la if c in lb and c not in keep]
    fa = [c for c in la if c not in lb]
    fb = [c for c in lb if c not in la]
    ext = dict(zip(la, a.shape))
    ext.update(zip(lb, b.shape))
    B, M, N, K = (math.prod(ext[c] for c in g) for g in (batch, fa, fb, con))
    A3 = a.transpose([la.index(c) for c in batch + fa + con]).reshape(B, M, K)
    B3 = b.transpose([lb.index(c) for c in batch + con + fb]).reshape(B, K, N)
    if B == 1:
        R = (A3[0] @ B3[0])[None]
    elif K <= 8:
        R = A3[:, :, 0, None] * B3[:, None, 0, :]
        for k in range(1, K):
            R += A3[:, :, k, None] * B3[:, None, k, :]
    else:
        R = np.matmul(A3, B3)
    lab = batch + fa + fb
    R = R.reshape([ext[c] for c in lab])
    return R.transpose([lab.index(c) for c in keep])


def run_case(name, file, dtype, outdir):
    """Contracts one case; returns (seconds, log10 RMS range of the scaled
    intermediates).

    Scaling: the path is run once on the unscaled operands, each result
    stored as N * 2^E with N of RMS in [0.5, 1) (an exact rescaling). An
    operand's scale 2^s is fixed at the step that consumes it: the one that
    brings that step's result, N * 2^(E + the scales of the operands below
    it), to RMS about 1; two leaves share the correction. The operands are
    saved scaled, and the result is N_root * 2^(E_root + sum s), which is
    what contracting the scaled operands gives: scaling by powers of two is
    exact in binary floating point (no value comes near the subnormals).
    """
    d, terms, out, shapes, extent, path_pairs = load_instance(file)
    complex_ = dtype == "c128"
    assert len(path_pairs) == len(terms) - 1
    n = len(terms)
    rng = np.random.default_rng([SEED, int.from_bytes(name.encode(), "little") % (1 << 63)])
    base = [random_operand(rng, s, complex_) for s in shapes]
    t0 = time.perf_counter()
    work = {i: (a, 0) for i, a in enumerate(base)}  # id -> (N, E)
    scale = [0] * n            # log2 of each operand's scale
    below = {i: 0 for i in range(n)}  # id -> sum of the scales of its operands
    rms_log2 = []              # log2 RMS of each scaled intermediate
    for step, ia, ib, la, lb, keep in walk(terms, out, path_pairs):
        (a, ea), (b, eb) = work.pop(ia), work.pop(ib)
        r = contract_pair(a, la, b, lb, keep)
        del a, b  # release as soon as used, as the library does
        flat = r.ravel(order="K")  # a view (memory order): no temporary
        rms = math.sqrt(abs(np.vdot(flat, flat)) / r.size) if r.size else 0.0
        del flat
        k = math.frexp(rms)[1] if rms > 0 else 0
        e = ea + eb + k
        leaves = [x for x in (ia, ib) if x < n]
        s_in = sum(below[x] for x in (ia, ib) if x >= n)
        if leaves:  # bring e + (scales below) to 0
            need = -(e + s_in)
            for j, x in enumerate(leaves):
                scale[x] = need // len(leaves) + (need % len(leaves) if j == 0 else 0)
        below[n + step] = s_in + sum(scale[x] for x in leaves)
        rms_log2.append(math.log2(rms) - k + e + below[n + step] if rms > 0 else 0.0)
        r *= 2.0 ** -k
        work[n + step] = (r, e)
    (res, e_root), = work.values()
    secs = time.perf_counter() - t0
    total = e_root + below[2 * n - 2]
    # np.array, not np.ascontiguousarray: that makes a closed network's scalar 1-d.
    res = np.array(res * 2.0 ** total, order="C") if abs(total) < 1000 else None
    assert res is not None and np.all(np.isfinite(res)), name
    os.makedirs(outdir, exist_ok=True)
    for i, a in enumerate(base):
        np.save(os.path.join(outdir, f"in_{i:03d}.npy"), a * 2.0 ** scale[i])
    np.save(os.path.join(outdir, "out.npy"), res)
    lo, hi = min(rms_log2) * math.log10(2), max(rms_log2) * math.log10(2)
    # Far from 1e±300 either way, or the data is useless (and inexact).
    assert -100 < lo and hi < 100, (name, lo, hi)
    with open(os.path.join(outdir, "stats.txt"), "w") as f:
        f.write(f"seconds {secs:.3f}\nlog10_rms_min {lo:.2f}\nlog10_rms_max {hi:.2f}\n")
    return secs, lo, hi


def main():
    out = os.path.join(sys.argv[1], "einsum_instances")
    files = sorted(glob.glob(os.path.join(INSTANCES, "*.json")))
    h = hashlib.sha256()
    for p in [os.path.abspath(__file__)] + files:
        with open(p, "rb") as f:
            h.update(os.path.basename(p).encode() + b"\0" + f.read())
    stamp = os.path.join(out, "stamp")
    if os.path.exists(stamp) and open(stamp).read().strip() == h.hexdigest():
        return
    if os.path.exists(stamp):
        os.remove(stamp)
    cases = []
    for p in files:
        name = os.path.basename(p)[: -len(".json")]
        cases.append((name, p, "f64"))
        if name in C128_VARIANTS:
            cases.append((name + "@c128", p, "c128"))
    lines = []
    total = time.perf_counter()
    for cid, p, dtype in cases:
        secs, lo, hi = run_case(cid, p, dtype, os.path.join(out, cid))
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"gen_einsum_instances: {cid:44s} {secs:8.2f} s  RMS 1e{lo:+.1f}..1e{hi:+.1f}  "
              f"peak RSS so far {rss:.0f} MiB", file=sys.stderr)
        lines.append(f"{cid} {os.path.basename(p)} {dtype}")
    with open(os.path.join(out, "cases.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    with open(stamp, "w") as f:
        f.write(h.hexdigest() + "\n")
    print(f"gen_einsum_instances: {len(cases)} cases in {time.perf_counter() - total:.1f} s",
          file=sys.stderr)


if __name__ == "__main__":
    main()
