"""JAX through DLPack, where jax is importable (skipped otherwise): arrays on
JAX's CPU device in without a copy (bf16 included), tenferro Tensors out to
jax.dlpack.from_dlpack without a copy, zero copy shown by equal data addresses
(Tensor.data_ptr against jax.Array.unsafe_buffer_pointer()), and einsum on jax
operands against numpy. Arrays on an accelerator are refused, not read as
host memory. JAX's default is 32-bit (no jax_enable_x64): f64 and i64 are not
used."""
import numpy as np
import pytest
import tenferro

jax = pytest.importorskip("jax")
import jax.dlpack  # noqa: E402 (after the skip)
import jax.numpy as jnp  # noqa: E402

# JAX's host device; the default device may be a GPU where JAX has one.
CPU = jax.devices("cpu")[0]

DTYPES = [
    (jnp.int8, "i8"), (jnp.int16, "i16"), (jnp.int32, "i32"), (jnp.uint8, "u8"),
    (jnp.uint32, "u32"), (jnp.float16, "f16"), (jnp.bfloat16, "bf16"),
    (jnp.float32, "f32"), (jnp.complex64, "c64"),
]


def on_cpu(values, dtype):
    """A jax array of `values` (numpy) converted to `dtype` on JAX's CPU device."""
    x = jax.device_put(values, CPU).astype(dtype)
    assert x.devices() == {CPU}
    return x.block_until_ready()


def random_values(shape, seed):
    rng = np.random.default_rng(seed)
    return (rng.uniform(0.5, 2.0, size=shape) * rng.choice([-1, 1], size=shape)).astype(np.float32)


def host_values(t):
    """A host Tensor's elements as numpy (bf16 widened to f32)."""
    if t.dtype == "bf16":
        t = tenferro.ops.convert(t, "f32")
    return np.asarray(t)


def jax_values(x):
    return np.asarray(x.astype(jnp.float32) if x.dtype == jnp.bfloat16 else x)


@pytest.mark.parametrize("dtype,name", DTYPES, ids=[n for _, n in DTYPES])
def test_jax_in_zero_copy(dtype, name):
    values = random_values((3, 5), 1)
    if jnp.issubdtype(dtype, jnp.unsignedinteger):
        values = np.abs(values) * 50
    elif jnp.issubdtype(dtype, jnp.integer):
        values = values * 50
    x = on_cpu(values, dtype)
    for t in (tenferro.from_dlpack(x), tenferro.asarray(x)):
        assert t.dtype == name and t.shape == (3, 5)
        assert t.data_ptr == x.unsafe_buffer_pointer()  # no copy in
        np.testing.assert_array_equal(host_values(t), jax_values(x))


def test_tenferro_result_out_to_jax():
    a = tenferro.asarray(random_values((4, 6), 2))
    b = tenferro.asarray(random_values((6, 3), 3))
    r = tenferro.einsum("ij,jk->ik", a, b)  # a library buffer, 64-byte aligned
    assert r.is_contiguous
    y = jax.dlpack.from_dlpack(r)
    assert y.devices() == {CPU}
    assert y.dtype == jnp.float32 and y.shape == (4, 3)
    assert y.unsafe_buffer_pointer() == r.data_ptr  # no copy out
    np.testing.assert_array_equal(np.asarray(y), np.asarray(r))
    np.testing.assert_allclose(np.asarray(y), np.asarray(a) @ np.asarray(b), rtol=2e-5,
                               atol=2e-5)
    # bf16, which numpy lacks, and a round trip jax -> tenferro -> jax
    rb = tenferro.ops.convert(r, "bf16")
    yb = jax.dlpack.from_dlpack(rb)
    assert yb.dtype == jnp.bfloat16 and yb.unsafe_buffer_pointer() == rb.data_ptr
    np.testing.assert_array_equal(np.asarray(yb.astype(jnp.float32)), host_values(rb))
    x = on_cpu(random_values((2, 8), 4), jnp.float32)
    back = jax.dlpack.from_dlpack(tenferro.from_dlpack(x))
    assert back.unsafe_buffer_pointer() == x.unsafe_buffer_pointer()
    np.testing.assert_array_equal(np.asarray(back), np.asarray(x))


@pytest.mark.parametrize("dtype,rtol", [(jnp.float32, 2e-5), (jnp.complex64, 2e-5)])
def test_einsum_on_jax_operands(dtype, rtol):
    x = on_cpu(random_values((5, 6), 5), dtype)
    y = on_cpu(random_values((6, 7), 6), dtype)
    z = on_cpu(random_values((7, 3), 7), dtype)
    b1 = on_cpu(random_values((4, 3, 5), 8), dtype)
    b2 = on_cpu(random_values((4, 5, 2), 9), dtype)
    cases = [
        ("ij,jk,kl->il", (x, y, z)),
        ("bij,bjk->bik", (b1, b2)),
        ("ij->", (x,)),
        ("ij,ij->ij", (x, x)),
    ]
    for eq, ops in cases:
        got = tenferro.einsum(eq, *ops)
        assert isinstance(got, tenferro.Tensor)
        want = np.einsum(eq, *[np.asarray(o) for o in ops])
        scale = max(1.0, float(np.max(np.abs(want))))
        np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=rtol * scale)
        # and jax's own einsum, on its CPU device
        want_jax = jnp.einsum(eq, *ops)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want_jax), rtol=rtol,
                                   atol=rtol * scale)
    # jax and numpy operands together
    got = tenferro.einsum("ij,jk->ik", x, np.asarray(y))
    np.testing.assert_allclose(np.asarray(got), np.asarray(x) @ np.asarray(y), rtol=rtol,
                               atol=rtol * 10)


def test_jax_accelerator_memory_refused():
    accel = [d for d in jax.devices() if d.platform != "cpu"]
    if not accel:
        pytest.skip("JAX has no accelerator here")
    x = jax.device_put(np.ones(3, np.float32), accel[0])
    with pytest.raises(BufferError, match="not host memory"):
        tenferro.from_dlpack(x)
