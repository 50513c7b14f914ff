"""tenferro.einsum, contract_path and contract_expression against numpy:
the 300 random expressions of tests/ref/gen_einsum.py, the instances of
examples/instances (numpy's pairwise reference of
tests/ref/gen_einsum_instances.py), opt_einsum's PathInfo fields derived by
hand, optimize / memory_limit / out / progress, error paths, and the views
a one-operand rearrangement returns, as numpy.einsum's."""
import glob
import itertools
import os

import numpy as np
import pytest
import tenferro

from conftest import NUMPY_DTYPES, REPO, load_ref_script, random_array

GEN = load_ref_script("gen_einsum")
INST = load_ref_script("gen_einsum_instances")

TOL = {"f64": 1e-12, "c128": 1e-12, "f32": 2e-5, "c64": 2e-5, "i32": 0, "i64": 0}


def einsum_cases():
    """The 300 cases of tests/ref/gen_einsum.py: same seed, same order."""
    rng = np.random.default_rng(20261130)
    cases = []
    while len(cases) < 300:
        expr, shapes = GEN.random_case(rng)
        dtype = GEN.DTYPES[len(cases) % len(GEN.DTYPES)]
        ops = [GEN.random_operand(rng, dtype, s) for s in shapes]
        try:
            want = np.einsum(expr, *ops)
        except ValueError:
            continue
        cases.append((expr, dtype, ops, np.asarray(want, dtype=GEN.NP[dtype])))
    return cases


CASES = einsum_cases()


def check(got, want, dtype):
    got = np.asarray(got)
    assert got.shape == want.shape
    assert got.dtype == want.dtype
    tol = TOL[dtype]
    if tol == 0:
        np.testing.assert_array_equal(got, want)
    else:
        scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale)


@pytest.mark.parametrize("k", range(300))
def test_300_expressions(k):
    expr, dtype, ops, want = CASES[k]
    got = tenferro.einsum(expr, *ops)
    assert isinstance(got, (np.ndarray, np.generic))  # numpy in, numpy out
    check(got, want, dtype)


def test_300_expressions_with_unicode_labels():
    # Every letter mapped to a non-ASCII label (2 to 4 UTF-8 bytes), in the
    # same code point order, as tests/ref/gen_einsum.py's second expression.
    for expr, dtype, ops, want in CASES:
        uexpr = "".join(GEN.UNICODE.get(c, c) for c in expr)
        check(tenferro.einsum(uexpr, *ops), want, dtype)


def test_300_expressions_other_optimisers_and_tensors():
    for k, (expr, dtype, ops, want) in enumerate(CASES[:60]):
        tens = [tenferro.asarray(a) for a in ops]
        for opt in ("greedy", "optimal", "dp", False):
            got = tenferro.einsum(expr, *tens, optimize=opt)
            assert isinstance(got, tenferro.Tensor)
            check(got, want, dtype)


INSTANCES = sorted(glob.glob(os.path.join(REPO, "examples", "instances", "*.json")))
# The two largest (a 1 GiB intermediate, a rank-24 network) are left to the
# C test test_einsum_instances; the rest run here in seconds.
SMALL = [p for p in INSTANCES
         if not any(s in p for s in ("gm_queen5_5_3", "tensornetwork_permutation_light_415"))]


@pytest.mark.parametrize("path", SMALL, ids=[os.path.basename(p)[:-5] for p in SMALL])
def test_instances_against_numpy(path):
    d, terms, out, shapes, extent, path_pairs = INST.load_instance(path)
    rng = np.random.default_rng(7)
    ops = [INST.random_operand(rng, s, False) for s in shapes]
    # numpy's reference: the instance's opt_flops path, one pair at a time
    work = dict(enumerate(ops))
    n = len(ops)
    for step, ia, ib, la, lb, keep in INST.walk(terms, out, path_pairs):
        work[n + step] = INST.contract_pair(work.pop(ia), la, work.pop(ib), lb, keep)
    (want,) = work.values()
    got = tenferro.einsum(d["format_string"], *ops, optimize="greedy")
    scale = max(1e-300, float(np.max(np.abs(want))))
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-9, atol=1e-9 * scale)
    # the instance's own path, given explicitly
    got2 = tenferro.einsum(d["format_string"], *ops, optimize=path_pairs)
    np.testing.assert_allclose(np.asarray(got2), want, rtol=1e-9, atol=1e-9 * scale)


def test_contract_path_fields_by_hand():
    # ij,jk,kl->il with i=2, j=3, k=4, l=5, path ((1, 2), (0, 1)) given:
    # step 1: jk,kl->jl spans j,k,l: 3*4*5 = 60 * 2 (sums k) = 120, result 15
    # step 2: ij,jl->il spans i,j,l: 2*3*5 = 30 * 2 = 60, result 10
    # naive: i,j,k,l = 120 elements * (max(1, 3 - 1) + 1) = 360
    path, info = tenferro.contract_path("ij,jk,kl->il", (2, 3), (3, 4), (4, 5),
                                        optimize=[(1, 2), (0, 1)], shapes=True)
    assert path == [(1, 2), (0, 1)]
    assert info.path == path
    assert info.input_subscripts == "ij,jk,kl"
    assert info.output_subscript == "il"
    assert info.eq == "ij,jk,kl->il"
    assert info.indices == set("ijkl")
    assert info.size_dict == {"i": 2, "j": 3, "k": 4, "l": 5}
    assert info.naive_cost == 360
    assert info.opt_cost == 180
    assert info.speedup == pytest.approx(2.0)
    assert info.size_list == [15, 10]
    assert info.scale_list == [3, 3]
    assert info.largest_intermediate == 15
    (i1, rm1, s1, rest1, blas1), (i2, rm2, s2, rest2, blas2) = info.contraction_list
    assert i1 == (2, 1) and rm1 == {"k"} and s1 == "jk,kl->jl" and rest1 == ["ij", "jl"]
    assert blas1 == "GEMM"
    assert i2 == (1, 0) and rm2 == {"j"} and s2 == "ij,jl->il" and rest2 == ["il"]
    text = str(info)
    assert "Complete contraction:  ij,jk,kl->il" in text
    assert "Naive FLOP count:  3.600e+02" in text
    assert "Optimized FLOP count:  1.800e+02" in text
    assert "jk,kl->jl" in text


def test_contract_path_implicit_output_and_ellipsis():
    a, b = np.ones((2, 3, 4)), np.ones((4, 5))
    path, info = tenferro.contract_path("...ij,jk", a, b)
    # implicit output: the ellipsis axis first, then i and k (seen once)
    assert info.output_subscript.endswith("ik")
    assert len(info.output_subscript) == 3
    assert info.size_dict[info.output_subscript[0]] == 2
    assert len(path) == 1
    # arrays or shapes: the same answer
    path2, info2 = tenferro.contract_path("...ij,jk", (2, 3, 4), (4, 5))
    assert path2 == path and info2.opt_cost == info.opt_cost
    # one operand: opt_einsum's [(0,)]
    p1, i1 = tenferro.contract_path("ii->", (3, 3), shapes=True)
    assert p1 == [(0,)] and i1.opt_cost == 2 * 3


def test_contract_path_optimisers_agree_on_cost_floor():
    shapes = [(8, 8), (8, 8), (8, 8), (8, 8), (8, 8)]
    eq = "ab,bc,cd,de,ef->af"
    costs = {}
    for opt in ("greedy", "optimal", "dp", "auto", "random-greedy"):
        _, info = tenferro.contract_path(eq, *shapes, shapes=True, optimize=opt)
        costs[opt] = info.opt_cost
    assert costs["optimal"] <= min(costs.values())
    assert costs["dp"] == costs["optimal"]


def test_contract_expression_reuses_the_plan(rng):
    expr = tenferro.contract_expression("ab,bc,cd->ad", (3, 4), (4, 5), (5, 2))
    assert len(expr.path) == 2
    for _ in range(3):
        ops = [random_array(rng, s, np.float64) for s in ((3, 4), (4, 5), (5, 2))]
        np.testing.assert_allclose(expr(*ops), ops[0] @ ops[1] @ ops[2], rtol=1e-12)
    with pytest.raises(tenferro.InvalidArgumentError):
        expr(np.ones((3, 4)), np.ones((4, 6)), np.ones((6, 2)))
    with pytest.raises(ValueError):
        expr(np.ones((3, 4)))
    assert isinstance(expr.info, tenferro.PathInfo)


def test_memory_limit_slices_and_agrees(rng):
    a, b, c = (random_array(rng, s, np.float64) for s in ((16, 32), (32, 32), (32, 16)))
    want = a @ b @ c
    got = tenferro.einsum("ij,jk,kl->il", a, b, c, memory_limit=2600)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    expr = tenferro.contract_expression("ij,jk,kl->il", a.shape, b.shape, c.shape,
                                        memory_limit=2600)
    assert expr.num_slices > 1
    np.testing.assert_allclose(expr(a, b, c), want, rtol=1e-12)
    # 'max_input': no intermediate above the largest operand (1024 elements)
    _, info = tenferro.contract_path("ij,jk,kl->il", a, b, c, memory_limit="max_input")
    assert info.largest_intermediate <= 1024
    np.testing.assert_allclose(tenferro.einsum("ij,jk,kl->il", a, b, c,
                                               memory_limit="max_input"), want, rtol=1e-12)
    with pytest.raises(tenferro.InvalidArgumentError):
        tenferro.einsum("i,j->ij", np.ones(4), np.ones(4), memory_limit="max_input")
    with pytest.raises(tenferro.InvalidArgumentError):
        tenferro.einsum("ij,jk,kl->il", a, b, c, memory_limit=10)  # operands alone exceed it


def test_out_and_progress(rng):
    a, b = random_array(rng, (4, 5), np.float64), random_array(rng, (5, 6), np.float64)
    out = np.empty((4, 6))
    r = tenferro.einsum("ij,jk->ik", a, b, out=out)
    assert r is out
    np.testing.assert_allclose(out, a @ b, rtol=1e-12)
    calls = []
    c = random_array(rng, (6, 3), np.float64)
    tenferro.einsum("ij,jk,kl->il", a, b, c, progress=lambda *x: calls.append(x))
    assert [x[:2] for x in calls] == [(1, 2), (2, 2)]
    assert calls[-1][2] > 0

    def boom(*x):
        raise KeyError("stop")
    with pytest.raises(KeyError):
        tenferro.einsum("ij,jk,kl->il", a, b, c, progress=boom)
    with pytest.raises(ValueError):
        tenferro.einsum("ij,jk->ik", a, b, out=np.empty((4, 5)))


def test_dtype_promotion_like_numpy(rng):
    a = random_array(rng, (3, 4), np.float32)
    b = random_array(rng, (4, 2), np.int64)
    got = tenferro.einsum("ij,jk->ik", a, b)
    want = np.einsum("ij,jk->ik", a, b)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_bool_and_empty_and_rank0(rng):
    x = rng.random((3, 4)) < 0.5
    y = rng.random((4, 5)) < 0.5
    np.testing.assert_array_equal(tenferro.einsum("ij,jk->ik", x, y), np.einsum("ij,jk->ik", x, y))
    e = np.zeros((3, 0))
    np.testing.assert_array_equal(tenferro.einsum("ij,jk->ik", e, np.zeros((0, 2))), np.zeros((3, 2)))
    s = tenferro.einsum(",->", np.array(2.0), np.array(3.0))
    assert isinstance(s, np.float64) and s == 6.0  # a numpy scalar, as numpy.einsum gives
    assert type(tenferro.einsum("i,i", np.ones(3), np.ones(3))) is type(np.einsum("i,i", np.ones(3), np.ones(3)))
    n = tenferro.einsum("i,i->", np.array([1.0, np.nan]), np.array([1.0, 1.0]))
    assert np.isnan(n)


@pytest.mark.parametrize("bad,exc", [
    (("ij,jk->ik", np.ones((2, 3)), np.ones((4, 5))), tenferro.InvalidArgumentError),
    (("ij,jk->iz", np.ones((2, 3)), np.ones((3, 5))), tenferro.InvalidArgumentError),
    (("ij->", np.ones(3)), tenferro.InvalidArgumentError),
    (("i-j", np.ones(3)), tenferro.InvalidArgumentError),
    (("ij,jk", np.ones((2, 3))), tenferro.InvalidArgumentError),
])
def test_errors_carry_the_library_message(bad, exc):
    with pytest.raises(exc) as e:
        tenferro.einsum(*bad)
    assert str(e.value)  # the library's message
    assert e.value.status == "TFR_ERR_INVALID_ARGUMENT"
    assert isinstance(e.value, ValueError)


def test_bad_options():
    a = np.ones((2, 2))
    with pytest.raises(tenferro.InvalidArgumentError) as e:
        tenferro.einsum("ij,jk", a, a, optimize="fastest")
    assert "greedy" in str(e.value)  # the message lists the known optimisers
    with pytest.raises(TypeError):
        tenferro.einsum("ij,jk", a, a, optimize=3)
    with pytest.raises(ValueError):
        tenferro.einsum("ij,jk", a, a, optimize=[(0, 1, 2)])
    with pytest.raises(ValueError):
        tenferro.einsum("ij,jk,kl", a, a, a, optimize=[(0, 1), (0, -1)])
    with pytest.raises(TypeError):
        tenferro.einsum("ij,jk,kl", a, a, a, optimize=[(0, 1), 5])
    with pytest.raises(tenferro.InvalidArgumentError):
        tenferro.einsum("ij,jk", a, a, optimize=[(0, 0)])
    with pytest.raises(ValueError):
        tenferro.einsum("ij,jk", a, a, memory_limit=-1)
    with pytest.raises(TypeError):
        tenferro.einsum("ij,jk", a, a, bogus=1)
    with pytest.raises(TypeError):
        tenferro.einsum(3, a)
    with pytest.raises(ValueError):
        tenferro.einsum("ij,jk", a, a, backend="tpu")
    with pytest.raises(TypeError):
        tenferro.einsum("ij,jk", a, a, progress=5)


def test_numpy_einsum_path_format():
    a = np.ones((2, 3))
    b = np.ones((3, 4))
    path = ["einsum_path", (0, 1)]
    np.testing.assert_allclose(tenferro.einsum("ij,jk->ik", a, b, optimize=path), a @ b)


def test_contract_expression_progress_and_out(rng):
    calls = []
    expr = tenferro.contract_expression("ab,bc,cd->ad", (3, 4), (4, 5), (5, 2),
                                        progress=lambda *x: calls.append(x[:2]))
    ops = [random_array(rng, s, np.float64) for s in ((3, 4), (4, 5), (5, 2))]
    out = np.zeros((3, 2))
    assert expr(*ops, out=out) is out
    np.testing.assert_allclose(out, ops[0] @ ops[1] @ ops[2], rtol=1e-12)
    assert calls == [(1, 2), (2, 2)]
    t = expr(*[tenferro.asarray(a) for a in ops])
    assert isinstance(t, tenferro.Tensor) and t.shape == (3, 2)


def test_strided_out_and_views_in(rng):
    a = random_array(rng, (6, 8), np.float64)
    out = np.zeros((8, 6))
    tenferro.einsum("ij->ij", a.T[:, ::-1], out=out)
    np.testing.assert_array_equal(out, a.T[:, ::-1])
    big = np.zeros((6, 10))
    tenferro.einsum("ij,jk->ik", a, np.eye(8)[:, :5], out=big[:, ::2])
    np.testing.assert_allclose(big[:, ::2], a[:, :5], rtol=1e-14)
    assert not big[:, 1::2].any()


# ---------------------------------------------------------------------------
# One operand, no label summed, no out=: a view of the operand, as numpy.einsum
# returns one (numpy >= 1.10: a transpose, a diagonal; writeable when the
# operand is). Every assertion of np.shares_memory fails if einsum copies.
# ---------------------------------------------------------------------------
def assert_numpy_view(eq, a, np_eq=None):
    """tenferro.einsum(eq, a) is a view of `a` with the shape, strides, base,
    flags and values of numpy.einsum(np_eq or eq, a)."""
    want = np.einsum(np_eq or eq, a)
    got = tenferro.einsum(eq, a)
    assert type(got) is np.ndarray and got.dtype == a.dtype
    assert got.shape == want.shape and got.strides == want.strides
    assert got.base is want.base  # numpy's chain, collapsed to the memory's owner
    assert got.flags.writeable == want.flags.writeable == a.flags.writeable
    if a.size:
        assert np.shares_memory(got, a)
        assert got.ctypes.data == want.ctypes.data
    np.testing.assert_array_equal(got, want)
    return got


def permutations_eqs(rank):
    labels = "abcd"[:rank]
    return [labels + "->" + "".join(p) for p in itertools.permutations(labels)]


@pytest.mark.parametrize("rank", [1, 2, 3, 4])
def test_one_operand_transposes_are_views(rng, rank):
    a = random_array(rng, (2, 3, 4, 5)[:rank], np.float64)
    for eq in permutations_eqs(rank):
        assert_numpy_view(eq, a)


def test_one_operand_rank0_is_a_scalar_as_numpy():
    a = np.array(2.5)
    for eq in ("->", "", "...->...", "..."):
        got = tenferro.einsum(eq, a)
        assert type(got) is type(np.einsum(eq, a)) is np.float64 and got == 2.5
    got = tenferro.einsum("->", np.float32(1.5))  # a numpy scalar operand
    assert type(got) is np.float32 and got == 1.5


@pytest.mark.parametrize("eq,shape", [
    ("ii->i", (4, 4)), ("iij->ji", (3, 3, 2)), ("iij->ij", (3, 3, 2)),
    ("ijji->ij", (2, 3, 3, 2)), ("ijij->ji", (2, 3, 2, 3)), ("iii->i", (3, 3, 3)),
    ("jii->ij", (2, 4, 4)),
    ("ba", (3, 4)), ("cab", (2, 3, 4)), ("ij", (3, 4)),  # implicit: code-point order
    ("...ij->...ji", (2, 3, 4)), ("i...->...i", (2, 3, 4)), ("...ii->...i", (2, 3, 3)),
    ("...ii->i...", (2, 3, 3)), ("...", (2, 3)), ("...->...", (2, 3)), ("j...i", (2, 3, 4)),
    ("\u03b1\u03b2->\u03b2\u03b1", (2, 3)), ("\u03b1\u03b1->\u03b1", (3, 3)),
    ("\u03b2\U0001d400", (2, 3)),  # implicit: U+03B2 before U+1D400
])
def test_one_operand_diagonals_and_ellipses_are_views(rng, eq, shape):
    a = random_array(rng, shape, np.float64)
    # numpy 1.24 takes letters only: the same string in ASCII letters
    ascii_eq = eq.replace("\u03b1", "i").replace("\u03b2", "j").replace("\U0001d400", "k")
    assert_numpy_view(eq, a, ascii_eq)


def test_one_operand_white_space_as_the_library_parses_it(rng):
    a = random_array(rng, (3, 4), np.float64)
    got = tenferro.einsum(" i j -> j i ", a)
    assert np.shares_memory(got, a) and got.strides == a.T.strides
    np.testing.assert_array_equal(got, a.T)


@pytest.mark.parametrize("make", [
    lambda a: a[::-1],                 # a negative stride
    lambda a: a[:, ::-2],
    lambda a: a[::-1, ::-1],
    lambda a: a.T,                     # Fortran order
    lambda a: a[1:, 1::2],             # an offset and a step
    lambda a: np.lib.stride_tricks.as_strided(a, (4, 4), (0, 8)),  # a zero stride
], ids=["rev0", "step-2", "rev01", "T", "slice", "stride0"])
def test_one_operand_views_of_strided_operands(rng, make):
    base = random_array(rng, (6, 6), np.float64)
    a = make(base)
    assert np.shares_memory(assert_numpy_view("ij->ji", a), base)
    if a.shape[0] == a.shape[1]:
        assert np.shares_memory(assert_numpy_view("ii->i", a), base)


def test_one_operand_views_of_strided_rank3_operands(rng):
    base = random_array(rng, (6, 6, 6), np.float64)
    for b in (base[::-1, :, ::-2], base.transpose(2, 0, 1)[1:], base[:, ::-1, ::-1]):
        assert_numpy_view("ijk->kij", b)
        assert_numpy_view("ijj->ji", b[:, :3, :3])
        assert_numpy_view("iji->ij", b[:3, :, :3])


@pytest.mark.parametrize("eq,shape", [
    ("ij->ji", (0, 3)), ("ij->ji", (3, 0)), ("ii->i", (0, 0)), ("iji->ji", (3, 0, 3)),
    ("ijk->kji", (2, 0, 4)), ("...ii->i...", (0, 2, 2)),
])
def test_one_operand_views_of_empty_operands(eq, shape):
    a = np.zeros(shape)
    got = assert_numpy_view(eq, a)
    assert got.size == 0
    t = tenferro.einsum(eq, tenferro.asarray(a))
    assert isinstance(t, tenferro.Tensor) and t.shape == got.shape


@pytest.mark.parametrize("dtype,name", NUMPY_DTYPES, ids=[n for _, n in NUMPY_DTYPES])
def test_one_operand_views_of_every_dtype(rng, dtype, name):
    a = random_array(rng, (3, 3, 2), dtype)
    for eq in ("ijk->kji", "iik->ki", "...k->k..."):
        assert_numpy_view(eq, a)
    t = tenferro.asarray(a)
    v = tenferro.einsum("iik->ki", t)
    assert isinstance(v, tenferro.Tensor) and v.dtype == name
    np.testing.assert_array_equal(np.asarray(v), np.einsum("iik->ki", a))


def test_one_operand_views_write_through_and_keep_read_only(rng):
    a = random_array(rng, (3, 4), np.float64)
    v = tenferro.einsum("ij->ji", a)
    v[2, 1] = 42.0
    assert a[1, 2] == 42.0  # one memory
    sq = np.zeros((3, 3))
    d = tenferro.einsum("ii->i", sq)
    d[:] = [1, 2, 3]
    np.testing.assert_array_equal(sq, np.diag([1.0, 2.0, 3.0]))
    a[0, 0] = -1.0  # and the other way
    assert v[0, 0] == -1.0
    ro = random_array(rng, (3, 3), np.float64)
    ro.flags.writeable = False
    r = tenferro.einsum("ii->i", ro)
    assert np.shares_memory(r, ro) and not r.flags.writeable  # as numpy's
    with pytest.raises(ValueError):
        r[0] = 1.0


def test_one_operand_view_keeps_its_operand_alive(rng):
    v = tenferro.einsum("ij->ji", np.arange(12.0).reshape(3, 4))  # the operand dropped
    np.testing.assert_array_equal(v, np.arange(12.0).reshape(3, 4).T)
    t = tenferro.einsum("ii->i", tenferro.asarray(np.arange(9.0).reshape(3, 3)))
    import gc
    gc.collect()
    np.testing.assert_array_equal(np.asarray(t), [0.0, 4.0, 8.0])


@pytest.mark.parametrize("eq,shape", [
    ("ij->ji", (3, 4)), ("ii->i", (4, 4)), ("iij->ji", (3, 3, 2)), ("ijji->ij", (2, 3, 3, 2)),
    ("...ij->j...i", (2, 3, 4)), ("ab->ab", (2, 3)), ("->", ()),
])
@pytest.mark.parametrize("reverse", [False, True], ids=["compact", "reversed"])
def test_one_operand_tensor_views(rng, eq, shape, reverse):
    a = random_array(rng, shape, np.float64)
    if reverse and a.ndim:
        a = a[::-1]
    t = tenferro.asarray(a)
    v = tenferro.einsum(eq, t)
    want = np.einsum(eq, a)
    assert isinstance(v, tenferro.Tensor) and v.backend == "cpu"
    assert v.shape == np.shape(want)
    assert v.data_ptr == t.data_ptr  # element 0 where the operand's is: no copy
    if np.ndim(want):
        assert v.strides == tuple(s // a.itemsize for s in want.strides)
        assert np.shares_memory(np.asarray(v), a)
    np.testing.assert_array_equal(np.asarray(v), want)


def test_one_operand_other_operands_give_tensor_views(rng):
    a = random_array(rng, (3, 4), np.float64)
    m = memoryview(a)  # the buffer protocol, not a numpy.ndarray: a Tensor, as before
    v = tenferro.einsum("ij->ji", m)
    assert isinstance(v, tenferro.Tensor) and v.data_ptr == a.ctypes.data
    np.testing.assert_array_equal(np.asarray(v), a.T)
    lst = tenferro.einsum("ii->i", [[1.0, 2.0], [3.0, 4.0]])  # numpy.asarray's copy, viewed
    assert isinstance(lst, tenferro.Tensor)
    np.testing.assert_array_equal(np.asarray(lst), [1.0, 4.0])


def test_one_operand_sums_out_and_several_operands_still_copy(rng):
    a = random_array(rng, (3, 4), np.float64)
    sq = random_array(rng, (3, 3), np.float64)
    for eq, x in (("ij->i", a), ("ij->", a), ("ii", sq), ("ii->", sq), ("iij->j", sq[:, :, None]),
                  ("...j->j", a), ("...ij->ji", a[None]), ("ij->j", a)):
        got = tenferro.einsum(eq, x)
        assert not np.shares_memory(got, x), eq
        # numpy 1.24 refuses an ellipsis summed away: the same sum in letters
        np_eq = {"...j->j": "ij->j", "...ij->ji": "kij->ji"}.get(eq, eq)
        np.testing.assert_allclose(got, np.einsum(np_eq, x), rtol=1e-12)
    out = np.zeros((4, 3))
    r = tenferro.einsum("ij->ji", a, out=out)  # out=: written, a copy
    assert r is out and not np.shares_memory(out, a)
    np.testing.assert_array_equal(out, a.T)
    d = tenferro.einsum("ij,jk->ik", a, np.eye(4))  # several operands: a new array
    assert not np.shares_memory(d, a)
    e = tenferro.einsum("ij,->ji", a, np.array(1.0))  # a rearrangement of two operands
    assert not np.shares_memory(e, a)
    np.testing.assert_array_equal(e, a.T)
    t = tenferro.asarray(a)
    c = tenferro.einsum("ij->i", t)
    assert c.data_ptr != t.data_ptr
    ct = tenferro.contract_expression("ij->ji", a.shape)(a)  # contract_expression: a copy
    assert not np.shares_memory(ct, a)
    np.testing.assert_array_equal(ct, a.T)


def test_one_operand_view_errors_as_before():
    with pytest.raises(tenferro.InvalidArgumentError):
        tenferro.einsum("ii->i", np.ones((2, 3)))  # a diagonal of unequal extents
    with pytest.raises(tenferro.InvalidArgumentError):
        tenferro.einsum("ij->jj", np.ones((2, 2)))
    with pytest.raises(tenferro.InvalidArgumentError):
        tenferro.einsum("ijk->kji", np.ones((2, 2)))
