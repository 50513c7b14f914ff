"""tenferro.ops against numpy: elementwise, compare/select/clamp, convert,
structural ops, reductions, dot_general and gather; names from the registry."""
import numpy as np
import pytest
import tenferro
import tenferro.ops as ops

from conftest import random_array


def test_ops_come_from_the_registry():
    names = set(ops.__all__)
    for n in ("add", "exponential", "log_plus_one", "dot_general", "gather", "reduce_add",
              "transpose", "broadcast_in_dim", "slice", "concatenate", "compare", "select"):
        assert n in names, n
        assert callable(getattr(ops, n))
        assert "StableHLO" in getattr(ops, n).__doc__
    assert ops.reduce_sum is ops.reduce_add
    assert "f32" in ops.exponential.__doc__  # the registry's dtypes


UNARY = [("negate", np.negative), ("abs", np.abs), ("exponential", np.exp), ("log", np.log),
         ("sine", np.sin), ("cosine", np.cos), ("tanh", np.tanh), ("sqrt", np.sqrt),
         ("floor", np.floor), ("ceil", np.ceil), ("log_plus_one", np.log1p),
         ("exponential_minus_one", np.expm1), ("cbrt", np.cbrt)]


@pytest.mark.parametrize("name,ref", UNARY)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unary(rng, name, ref, dtype):
    x = np.abs(random_array(rng, (4, 5), dtype)) + 0.1
    got = getattr(ops, name)(x)
    assert got.dtype == dtype
    np.testing.assert_allclose(got, ref(x), rtol=2e-6 if dtype == np.float32 else 1e-14)


BINARY = [("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply),
          ("divide", np.divide), ("maximum", np.maximum), ("minimum", np.minimum),
          ("power", np.power), ("atan2", np.arctan2)]


@pytest.mark.parametrize("name,ref", BINARY)
def test_binary(rng, name, ref):
    x = np.abs(random_array(rng, (3, 4), np.float64))
    y = random_array(rng, (3, 4), np.float64)
    np.testing.assert_allclose(getattr(ops, name)(x, y), ref(x, y), rtol=1e-14)


def test_integer_and_bool_ops(rng):
    a = random_array(rng, (6,), np.int32)
    b = random_array(rng, (6,), np.int32)
    np.testing.assert_array_equal(ops.add(a, b), a + b)
    np.testing.assert_array_equal(ops.xor(a, b), a ^ b)
    np.testing.assert_array_equal(ops.remainder(a, b), np.fmod(a, b))
    p = rng.random(6) < 0.5
    np.testing.assert_array_equal(getattr(ops, "not")(p), ~p)


def test_compare_select_clamp(rng):
    x = random_array(rng, (5,), np.float64)
    y = random_array(rng, (5,), np.float64)
    for d, ref in (("EQ", np.equal), ("LT", np.less), ("GE", np.greater_equal)):
        np.testing.assert_array_equal(ops.compare(x, y, comparison_direction=d), ref(x, y))
    pred = x < y
    np.testing.assert_array_equal(ops.select(pred, x, y), np.where(pred, x, y))
    np.testing.assert_array_equal(ops.clamp(np.array(-0.5), x, np.array(0.5)),
                                  np.clip(x, -0.5, 0.5))
    with pytest.raises(ValueError):
        ops.compare(x, y, comparison_direction="XX")


def test_convert_every_pair_with_numpy(rng):
    x = random_array(rng, (7,), np.float64) * 10
    for dt in (np.float32, np.int32, np.int64, np.uint8, np.complex128, np.float16):
        got = ops.convert(x, dt)
        assert got.dtype == dt
        if np.dtype(dt).kind in "iu":
            want = np.trunc(x)
            want = np.clip(want, np.iinfo(dt).min, np.iinfo(dt).max).astype(dt)
        else:
            want = x.astype(dt)
        np.testing.assert_array_equal(got, want)


def test_structural(rng):
    x = random_array(rng, (2, 3, 4), np.float64)
    np.testing.assert_array_equal(ops.transpose(x, (2, 0, 1)), x.transpose(2, 0, 1))
    np.testing.assert_array_equal(ops.reshape(x, (6, 4)), x.reshape(6, 4))
    np.testing.assert_array_equal(ops.reverse(x, (0, 2)), x[::-1, :, ::-1])
    np.testing.assert_array_equal(ops.slice(x, (0, 1, 0), (2, 3, 4), (1, 1, 2)), x[:, 1:3, ::2])
    np.testing.assert_array_equal(ops.slice(x, (1, 0, 1), (2, 2, 3)), x[1:2, 0:2, 1:3])
    v = x[0, 0]
    np.testing.assert_array_equal(ops.broadcast_in_dim(v, (3, 4), (1,)), np.broadcast_to(v, (3, 4)))
    np.testing.assert_array_equal(ops.concatenate([x, x[:, :1]], 1), np.concatenate([x, x[:, :1]], 1))
    m = x[0]
    np.testing.assert_array_equal(ops.tril(m, 1), np.tril(m, 1))
    np.testing.assert_array_equal(ops.triu(m), np.triu(m))
    np.testing.assert_array_equal(ops.iota((3, 2), 0, "i32"), np.array([[0, 0], [1, 1], [2, 2]], np.int32))
    sq = random_array(rng, (3, 3), np.float64)
    np.testing.assert_array_equal(ops.extract_diagonal(sq), np.diag(sq))
    with pytest.raises(tenferro.InvalidArgumentError):
        ops.transpose(x, (0, 0, 1))
    with pytest.raises(tenferro.InvalidArgumentError):
        ops.transpose(x, (0, 1))
    with pytest.raises(tenferro.InvalidArgumentError):
        ops.slice(x, (0, 0), (1, 1))


def test_reductions(rng):
    x = random_array(rng, (3, 4, 5), np.float64)
    np.testing.assert_allclose(ops.reduce_add(x, (0, 2)), x.sum((0, 2)), rtol=1e-14)
    np.testing.assert_allclose(ops.reduce_sum(x), x.sum(), rtol=1e-14)
    np.testing.assert_allclose(ops.reduce_multiply(x, (1,)), x.prod(1), rtol=1e-14)
    np.testing.assert_array_equal(ops.reduce_maximum(x, (2,)), x.max(2))
    np.testing.assert_array_equal(ops.reduce_minimum(x, (0,)), x.min(0))
    np.testing.assert_allclose(ops.reduce_add(x, (1,), np.array(10.0)), x.sum(1) + 10, rtol=1e-14)
    b = rng.random((4, 6)) < 0.5
    np.testing.assert_array_equal(ops.reduce_and(b, (1,)), b.all(1))
    np.testing.assert_array_equal(ops.reduce_or(b, (0,)), b.any(0))
    np.testing.assert_array_equal(ops.reduce_xor(b, (1,)), np.logical_xor.reduce(b, 1))
    i = random_array(rng, (4, 6), np.int64)
    np.testing.assert_array_equal(ops.reduce_and(i, (1,)), np.bitwise_and.reduce(i, 1))
    with pytest.raises(tenferro.InvalidArgumentError):
        ops.reduce_add(x, (3,))


def test_dot_general(rng):
    a = random_array(rng, (2, 3, 4), np.float64)
    b = random_array(rng, (2, 4, 5), np.float64)
    got = ops.dot_general(a, b, lhs_batching_dimensions=(0,), rhs_batching_dimensions=(0,),
                          lhs_contracting_dimensions=(2,), rhs_contracting_dimensions=(1,))
    np.testing.assert_allclose(got, a @ b, rtol=1e-13)
    c = random_array(rng, (3, 4), np.complex128)
    d = random_array(rng, (3, 4), np.complex128)
    got = ops.dot_general(c, d, lhs_contracting_dimensions=(0, 1),
                          rhs_contracting_dimensions=(0, 1), lhs_conj=True)
    np.testing.assert_allclose(got, np.vdot(c, d), rtol=1e-13)
    with pytest.raises(tenferro.InvalidArgumentError) as e:
        ops.dot_general(a, b, lhs_contracting_dimensions=(1,), rhs_contracting_dimensions=(1,))
    assert "extent" in str(e.value)
    with pytest.raises(ValueError):
        ops.dot_general(a, b, lhs_contracting_dimensions=(1,))


def test_gather(rng):
    x = random_array(rng, (5, 3), np.float64)
    idx = np.array([[4], [0], [2]], dtype=np.int32)
    got = ops.gather(x, idx, offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,),
                     index_vector_dim=1, slice_sizes=(1, 3))
    np.testing.assert_array_equal(got, x[[4, 0, 2]])
    with pytest.raises(tenferro.Error):
        ops.gather(x, idx, offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,),
                   index_vector_dim=1, slice_sizes=(1,))


def test_op_errors_name_op_and_dtype(rng):
    with pytest.raises(tenferro.UnsupportedDtypeError) as e:
        ops.exponential(np.arange(3))
    assert "i64" in str(e.value)
    assert isinstance(e.value, TypeError)
    with pytest.raises(tenferro.InvalidArgumentError):
        ops.add(np.ones(3), np.ones(4))
    with pytest.raises(TypeError):
        ops.add(np.ones(3))


def test_scatter_and_pad(rng):
    x = random_array(rng, (5, 3), np.float64)
    idx = np.array([[4], [0], [4]], dtype=np.int64)
    upd = random_array(rng, (3, 3), np.float64)
    got = ops.scatter(x, idx, upd, update_window_dims=(1,), inserted_window_dims=(0,),
                      scatter_dims_to_operand_dims=(0,), index_vector_dim=1, combiner="add")
    want = x.copy()
    np.add.at(want, [4, 0, 4], upd)
    np.testing.assert_allclose(got, want, rtol=1e-14)
    got = ops.scatter(x, idx[:2], upd[:2], (1,), (0,), (0,), 1)  # replace
    want = x.copy()
    want[[4, 0]] = upd[:2]
    np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError):
        ops.scatter(x, idx, upd, (1,), (0,), (0,), 1, combiner="mean")
    p = ops.pad(x, np.array(-1.0), (1, 0), (0, 2), (1, 0))
    want = np.full((1 + 5 + 4, 3 + 2), -1.0)
    want[1::2, :3] = x
    np.testing.assert_array_equal(p, want)
    with pytest.raises(tenferro.InvalidArgumentError):
        ops.pad(x, np.array(-1.0), (1,), (0, 2))


def test_dynamic_slices_windows_precision(rng):
    x = random_array(rng, (5, 6), np.float64)
    np.testing.assert_array_equal(np.asarray(ops.dynamic_slice(x, [1, 4], (2, 3))), x[1:3, 3:6])
    u = random_array(rng, (2, 2), np.float64)
    want = x.copy()
    want[3:5, 0:2] = u
    np.testing.assert_array_equal(np.asarray(ops.dynamic_update_slice(x, u, [9, -1])), want)
    got = ops.reduce_window(x, np.array(0.0), (2, 3), window_strides=(1, 3))
    want = np.array([[x[i:i + 2, j:j + 3].sum() for j in (0, 3)] for i in range(4)])
    np.testing.assert_allclose(got, want, rtol=1e-14)
    got = ops.reduce_window(x, np.array(-np.inf), (2, 2), padding=[(1, 0), (0, 0)],
                            combiner="maximum")
    padded = np.vstack([np.full((1, 6), -np.inf), x])
    want = np.array([[padded[i:i + 2, j:j + 2].max() for j in range(5)] for i in range(5)])
    np.testing.assert_array_equal(got, want)
    r = ops.reduce_precision(x.astype(np.float32), 8, 7)  # bf16's format
    want = np.asarray(ops.convert(ops.convert(x.astype(np.float32), "bf16"), "f32"))
    np.testing.assert_array_equal(r, want)
    e = ops.embed_diagonal(np.array([1.0, 2.0, 3.0]), 0, 1)
    np.testing.assert_array_equal(e, np.diag([1.0, 2.0, 3.0]))
    with pytest.raises(tenferro.InvalidArgumentError):
        ops.dynamic_slice(x, [1], (2, 3))
    with pytest.raises(ValueError):
        ops.reduce_window(x, np.array(0.0), (2, 2), combiner="mean")


def test_select_and_scatter_is_max_pool_gradient(rng):
    x = random_array(rng, (4, 6), np.float64)
    src = random_array(rng, (2, 3), np.float64)
    got = ops.select_and_scatter(x, src, np.array(0.0), (2, 2), window_strides=(2, 2))
    want = np.zeros_like(x)
    for i in range(2):
        for j in range(3):
            w = x[2 * i:2 * i + 2, 2 * j:2 * j + 2]
            a, b = np.unravel_index(np.argmax(w), w.shape)  # the first maximum
            want[2 * i + a, 2 * j + b] += src[i, j]
    np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError):
        ops.select_and_scatter(x, src, np.array(0.0), (2, 2), select_direction="XX")
    with pytest.raises(tenferro.InvalidArgumentError):
        ops.select_and_scatter(x, src, np.array(0.0), (2, 2))  # source has the wrong shape
