"""No growth over 10^5 calls: Python reference counts, tracemalloc's traced
memory and the process's resident memory (the library keeps no live-object
count; its buffer pool is bounded, so a leaked tensor per call shows as RSS)."""
import gc
import sys
import tracemalloc

import numpy as np
import tenferro

N = 100_000


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def run_calls(a, b, n):
    for _ in range(n):
        tenferro.einsum("ij,jk->ik", a, b)
        t = tenferro.asarray(a)
        np.asarray(t)
        t.__dlpack__(max_version=(1, 0))
        tenferro.from_dlpack(t)
        tenferro.ops.add(t, t)


def run_paths(a, b, n):
    for _ in range(n):
        path, info = tenferro.contract_path("ij,jk,kl->il", a, b, b.T, optimize="greedy")
        str(info)
        expr = tenferro.contract_expression("...j,jk", a.shape, b.shape)
        expr(a, b)
        expr.info


def run_errors(a, n):
    for _ in range(n):
        try:
            tenferro.einsum("ij,jk->ik", a, a[:, :1].T)
        except tenferro.InvalidArgumentError:
            pass
        try:  # a path read partly, then refused
            tenferro.contract_path("ij,jk,kl", a, a.T, a, optimize=[(0, 1), (0, -1)])
        except ValueError:
            pass
        try:
            tenferro.ops.exponential(np.arange(3))
        except tenferro.UnsupportedDtypeError:
            pass


def test_no_growth_over_many_calls():
    a = np.random.default_rng(1).random((3, 4))
    b = np.random.default_rng(2).random((4, 2))
    run_calls(a, b, 2000)  # warm: plan cache, pools, interned strings
    run_paths(a, b, 200)
    run_errors(a, 200)
    gc.collect()
    refs = (sys.getrefcount(a), sys.getrefcount(b))
    rss0 = rss_bytes()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    run_calls(a, b, N // 5)  # 5 calls per iteration: 10^5 calls
    run_paths(a, b, 5_000)
    run_errors(a, 10_000)
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert (sys.getrefcount(a), sys.getrefcount(b)) == refs
    assert after - before < 64 * 1024, f"traced memory grew by {after - before} bytes"
    grown = rss_bytes() - rss0
    assert grown < 16 * 1024 * 1024, f"resident memory grew by {grown} bytes"


def test_result_keeps_no_extra_references():
    a = np.ones((2, 2))
    r = tenferro.einsum("ij->ji", a)
    assert sys.getrefcount(r) == 2  # the name and the call's argument
    t = tenferro.asarray(a)
    base = sys.getrefcount(a)
    del t
    gc.collect()
    assert sys.getrefcount(a) == base - 1  # the Tensor let its producer go
