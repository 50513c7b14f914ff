"""No growth over 10^5 calls, three ways: the operands' Python reference
counts, tracemalloc's traced memory, and the library's live-object count
(tenferro.live_objects(): tensors, storages, sessions and plans, counted by the
C library as they are made and freed), for einsum and contract_expression, the
ops, DLPack and numpy round trips, contract_path and error paths. A first test
shows that the count sees what is held, so the no-growth tests can fail."""
import gc
import sys
import tracemalloc

import numpy as np
import pytest
import tenferro

N = 100_000
TRACED_SLACK = 64 * 1024  # bytes: tracemalloc's own bookkeeping, interned strings


def live():
    gc.collect()
    return tenferro.live_objects()


def grown(before, after):
    """The kinds whose count changed, {kind: (before, after)}."""
    return {k: (before[k], after[k]) for k in before if after[k] != before[k]}


def assert_no_growth(body, calls_per_round, operands, warm_rounds=200):
    """Runs body once warm (plan caches, pools, interned strings), then for
    N calls under tracemalloc: no reference, traced byte or library object
    may stay behind."""
    body(warm_rounds)
    base = live()
    refs = [sys.getrefcount(x) for x in operands]
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    body(N // calls_per_round)
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert [sys.getrefcount(x) for x in operands] == refs
    assert after - before < TRACED_SLACK, f"traced memory grew by {after - before} bytes"
    end = live()
    assert end == base, f"library objects left behind: {grown(base, end)}"


@pytest.fixture
def ab():
    rng = np.random.default_rng(1)
    return rng.random((3, 4)), rng.random((4, 2))


def test_live_objects_count_what_is_held(ab):
    a, b = ab
    kinds = {"tensor", "storage", "session", "einsum_plan", "dot_plan", "fusion_plan"}
    tenferro.einsum("ij,jk->ik", a, b)  # its plan cached before the count is taken
    base = live()
    assert set(base) == kinds and all(v >= 0 for v in base.values())
    held = [tenferro.asarray(a) for _ in range(10)]  # one tensor over one storage each
    now = live()
    assert now["tensor"] == base["tensor"] + 10
    assert now["storage"] == base["storage"] + 10
    held.append(tenferro.ops.add(held[0], held[1]))  # a result: one more of each
    held.append(tenferro.einsum("ij,jk->ik", held[0], b))
    now = live()
    assert (now["tensor"], now["storage"]) == (base["tensor"] + 12, base["storage"] + 12)
    expr = tenferro.contract_expression("ij,jk->ik", a.shape, b.shape)
    assert live()["einsum_plan"] == base["einsum_plan"] + 1
    with tenferro.Session():
        assert tenferro.live_objects()["session"] == base["session"] + 1
    del held, expr
    assert live() == base


def test_einsum_no_growth(ab):
    a, b = ab
    ta, tb = tenferro.asarray(a), tenferro.asarray(b)
    out = np.empty((3, 2))
    expr = tenferro.contract_expression("ij,jk,kl->il", a.shape, b.shape, b.T.shape)

    def body(rounds):
        for _ in range(rounds):
            tenferro.einsum("ij,jk->ik", a, b)              # numpy in, numpy out
            tenferro.einsum("ij,jk->ik", ta, tb)            # Tensors
            tenferro.einsum("ij,jk->ik", a, b, out=out)
            tenferro.einsum("ij->", a, optimize="greedy")   # a numpy scalar
            expr(a, b, b.T)

    assert_no_growth(body, 5, [a, b, ta, tb, out])


def test_one_operand_views_no_growth(ab):
    a, _ = ab
    sq = np.ones((3, 3))
    ro = np.ones((3, 3))
    ro.flags.writeable = False
    t = tenferro.asarray(sq)
    tr = tenferro.asarray(sq[::-1])
    rank0 = np.array(2.0)

    def body(rounds):
        for _ in range(rounds):
            tenferro.einsum("ij->ji", a)                  # a numpy view of the operand
            tenferro.einsum("ii->i", sq)                  # a diagonal
            tenferro.einsum("ii->i", ro)                  # read-only
            tenferro.einsum("...->...", rank0)            # a numpy scalar
            tenferro.einsum("ij->ji", t)                  # a Tensor view
            tenferro.einsum("ii->i", tr)                  # negative strides
            tenferro.einsum("ij->ji", memoryview(a))      # a Tensor over a buffer
            np.asarray(tenferro.einsum("ji", t))          # a numpy array over a Tensor view
            tenferro.einsum("ij->j", a)                   # a sum: the plan runs

    assert_no_growth(body, 9, [a, sq, ro, t, tr, rank0])


def test_one_operand_view_holds_its_operand_while_alive():
    a = np.ones((3, 4))
    refs = sys.getrefcount(a)
    v = tenferro.einsum("ij->ji", a)
    assert sys.getrefcount(a) == refs + 1  # the view's base
    del v
    assert sys.getrefcount(a) == refs
    t = tenferro.asarray(np.arange(9.0).reshape(3, 3))
    base = live()
    d = tenferro.einsum("ii->i", t)
    now = live()
    assert (now["tensor"], now["storage"]) == (base["tensor"] + 1, base["storage"])  # shared
    del t  # the view keeps the storage, and numpy's array under it
    np.testing.assert_array_equal(np.asarray(d), [0.0, 4.0, 8.0])
    del d
    now = live()
    assert (now["tensor"], now["storage"]) == (base["tensor"] - 1, base["storage"] - 1)


def test_ops_no_growth(ab):
    a, b = ab
    t = tenferro.asarray(a)

    def body(rounds):
        for _ in range(rounds):
            tenferro.ops.add(t, t)
            tenferro.ops.multiply(a, a)
            tenferro.ops.transpose(t, (1, 0))
            tenferro.ops.reduce_sum(a, (0,))
            tenferro.ops.dot_general(a, b, lhs_contracting_dimensions=(1,),
                                     rhs_contracting_dimensions=(0,))

    assert_no_growth(body, 5, [a, b, t])


class Producer:
    """Hands out the wrapped object's capsules (from_dlpack of a Tensor itself
    returns it without a capsule)."""

    def __init__(self, obj):
        self.obj = obj

    def __dlpack__(self, **kwargs):
        return self.obj.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.obj.__dlpack_device__()


def test_dlpack_and_numpy_round_trips_no_growth(ab):
    a, _ = ab
    t = tenferro.asarray(a)

    def body(rounds):
        for _ in range(rounds):
            u = tenferro.asarray(a)                        # numpy -> Tensor
            np.asarray(u)                                  # Tensor -> numpy
            tenferro.from_dlpack(a)                        # numpy's capsule in
            np.from_dlpack(t)                              # a capsule out, legacy
            t.__dlpack__(max_version=(1, 0))               # versioned, never consumed
            tenferro.from_dlpack(Producer(t))              # tenferro's capsule, consumed
            t.__dlpack__(max_version=(1, 0), copy=True)    # a copy, dropped unconsumed
            t.numpy()
            tenferro.asarray(a, dtype="f32")               # a converted copy
            memoryview(t)                                  # the buffer protocol

    assert_no_growth(body, 10, [a, t])


def test_paths_and_errors_no_growth(ab):
    a, b = ab

    def body(rounds):
        for _ in range(rounds):
            path, info = tenferro.contract_path("ij,jk,kl->il", a, b, b.T, optimize="greedy")
            str(info)
            expr = tenferro.contract_expression("...j,jk", a.shape, b.shape)
            expr(a, b)
            expr.info
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
            try:
                tenferro.from_dlpack(object())
            except TypeError:
                pass

    assert_no_growth(body, 10, [a, b])


def test_result_keeps_no_extra_references():
    a = np.ones((2, 2))
    r = tenferro.einsum("ij->ji", a)
    assert sys.getrefcount(r) == 2  # the name and the call's argument
    t = tenferro.asarray(a)
    base = sys.getrefcount(a)
    del t
    gc.collect()
    assert sys.getrefcount(a) == base - 1  # the Tensor let its producer go
