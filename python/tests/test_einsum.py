"""tenferro.einsum, contract_path and contract_expression against numpy:
the 300 random expressions of tests/ref/gen_einsum.py, the instances of
examples/instances (numpy's pairwise reference of
tests/ref/gen_einsum_instances.py), opt_einsum's PathInfo fields derived by
hand, optimize / memory_limit / out / progress, and error paths."""
import glob
import os

import numpy as np
import pytest
import tenferro

from conftest import REPO, load_ref_script, random_array

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
