"""PyTorch through DLPack, where torch is importable (skipped otherwise):
CPU tensors in without a copy (contiguous, strided, broadcast, bf16; torch has
no negative strides), tenferro Tensors out to torch.from_dlpack without a copy,
zero copy shown by equal data addresses (Tensor.data_ptr against
torch.Tensor.data_ptr()), and einsum on torch operands against torch.einsum.
Device memory (CUDA tensors) is refused, not read as host memory."""
import numpy as np
import pytest
import tenferro

torch = pytest.importorskip("torch")
import torch.utils.dlpack  # noqa: E402 (after the skip)

# torch dtypes that DLPack carries, with their tenferro names.
DTYPES = [
    (torch.bool, "bool"), (torch.int8, "i8"), (torch.int16, "i16"), (torch.int32, "i32"),
    (torch.int64, "i64"), (torch.uint8, "u8"), (torch.float16, "f16"),
    (torch.bfloat16, "bf16"), (torch.float32, "f32"), (torch.float64, "f64"),
    (torch.complex64, "c64"), (torch.complex128, "c128"),
]


def random_tensor(shape, dtype, seed=0):
    """Random non-zero values of `dtype` on the CPU (bool: both values)."""
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.rand(shape, generator=g) < 0.5
    if not (dtype.is_floating_point or dtype.is_complex):
        return torch.randint(1, 100, shape, generator=g).to(dtype)
    re = torch.rand(shape, generator=g, dtype=torch.float64) * 1.5 + 0.5
    if dtype.is_complex:
        return torch.complex(re, torch.rand(shape, generator=g, dtype=torch.float64)).to(dtype)
    return re.to(dtype)


def exports(dtype):
    """Whether this torch exports `dtype` through DLPack (bool only from torch 2)."""
    try:
        torch.utils.dlpack.to_dlpack(torch.zeros(1, dtype=dtype))
        return True
    except RuntimeError:
        return False


def host_values(t):
    """The elements of a host Tensor as a numpy array (bf16 widened to f32)."""
    if t.dtype == "bf16":
        t = tenferro.ops.convert(t, "f32")
    return np.asarray(t)


def torch_values(x):
    return (x.float() if x.dtype == torch.bfloat16 else x).numpy()


@pytest.mark.parametrize("dtype,name", DTYPES, ids=[n for _, n in DTYPES])
def test_torch_in_zero_copy(dtype, name):
    if not exports(dtype):
        pytest.skip(f"torch {torch.__version__} exports no {dtype} through DLPack")
    x = random_tensor((3, 5), dtype)
    for t in (tenferro.from_dlpack(x), tenferro.asarray(x), tenferro.Tensor(x)):
        assert t.dtype == name and t.shape == (3, 5) and t.strides == (5, 1)
        assert t.data_ptr == x.data_ptr()  # no copy in
        np.testing.assert_array_equal(host_values(t), torch_values(x))


@pytest.mark.parametrize("dtype,name", DTYPES, ids=[n for _, n in DTYPES])
def test_torch_out_zero_copy(dtype, name):
    if not exports(dtype):
        pytest.skip(f"torch {torch.__version__} exports no {dtype} through DLPack")
    x = random_tensor((4, 3), dtype, seed=1)
    t = tenferro.from_dlpack(x)
    y = torch.from_dlpack(t)  # back through tenferro's own capsule
    assert y.dtype == dtype and tuple(y.shape) == (4, 3)
    assert y.data_ptr() == t.data_ptr == x.data_ptr()
    assert torch.equal(y, x)


@pytest.mark.parametrize("view", ["cols", "transpose", "block", "broadcast", "rows"])
def test_torch_strided_views_in(view):
    base = random_tensor((6, 8), torch.float64, seed=2)
    x = {"cols": base[:, 1::3], "transpose": base.t(), "block": base[1:5, 2:7],
         "broadcast": base[0].expand(4, 8), "rows": base[::2]}[view]
    t = tenferro.from_dlpack(x)
    assert t.strides == tuple(x.stride())  # both in elements
    assert t.data_ptr == x.data_ptr()
    np.testing.assert_array_equal(np.asarray(t), x.numpy())
    # the library computes on the strides it was given
    np.testing.assert_array_equal(np.asarray(tenferro.ops.negate(t)), (-x).numpy())
    y = torch.from_dlpack(t)
    assert y.data_ptr() == x.data_ptr() and y.stride() == x.stride()
    assert torch.equal(y, x)


def test_tenferro_memory_out_to_torch():
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    t = tenferro.asarray(a)
    y = torch.from_dlpack(t)
    assert y.data_ptr() == a.ctypes.data
    a[0, 0] = 42.0  # one memory: numpy's write shows in torch
    assert y[0, 0].item() == 42.0
    v = tenferro.asarray(a[::2, 1:])  # a strided view, still numpy's memory
    yv = torch.from_dlpack(v)
    assert yv.data_ptr() == v.data_ptr and yv.stride() == v.strides
    np.testing.assert_array_equal(yv.numpy(), a[::2, 1:])
    # a library result (its own buffer), and bf16, which numpy lacks
    r = tenferro.einsum("ij,kj->ik", t, t)
    yr = torch.from_dlpack(r)
    assert yr.data_ptr() == r.data_ptr
    torch.testing.assert_close(yr, y @ y.T, rtol=1e-6, atol=1e-6)
    b = tenferro.asarray(a, dtype="bf16")
    yb = torch.from_dlpack(b)
    assert yb.dtype == torch.bfloat16 and yb.data_ptr() == b.data_ptr
    assert torch.equal(yb, torch.from_numpy(a).to(torch.bfloat16))  # both round to nearest even


@pytest.mark.parametrize("dtype,rtol", [(torch.float64, 1e-12), (torch.float32, 2e-5),
                                        (torch.complex128, 1e-12)])
def test_einsum_on_torch_operands(dtype, rtol):
    x = random_tensor((5, 6), dtype, 3)
    y = random_tensor((6, 7), dtype, 4)
    z = random_tensor((7, 3), dtype, 5)
    b1 = random_tensor((4, 3, 5), dtype, 6)
    b2 = random_tensor((4, 5, 2), dtype, 7)
    cases = [
        ("ij,jk,kl->il", (x, y, z)),
        ("ji,jk->ik", (x.t(), y)),  # a transposed (strided) operand
        ("bij,bjk->bik", (b1, b2)),
        ("ij->", (x,)),
        ("ii->i", (random_tensor((4, 4), dtype, 8),)),
        ("ij,ij->ij", (x, x * 2)),
    ]
    for eq, ops in cases:
        got = tenferro.einsum(eq, *ops)
        assert isinstance(got, tenferro.Tensor)
        want = torch.einsum(eq, *ops)
        torch.testing.assert_close(torch.from_dlpack(got), want, rtol=rtol, atol=rtol)
    # torch and numpy operands together
    got = tenferro.einsum("ij,jk->ik", x, y.numpy())
    torch.testing.assert_close(torch.from_dlpack(got), x @ y, rtol=rtol, atol=rtol)


def test_einsum_one_operand_rearrangement_is_a_view_of_torch_memory():
    # As for every non-numpy operand: a Tensor view over the memory torch
    # shares through DLPack (torch.einsum returns a view too), no copy.
    x = random_tensor((3, 4), torch.float64, 9)
    v = tenferro.einsum("ij->ji", x)
    assert isinstance(v, tenferro.Tensor)
    assert v.data_ptr == x.data_ptr() and v.strides == x.t().stride()
    d = tenferro.einsum("ii->i", x[:, :3])
    assert d.data_ptr == x.data_ptr() and d.strides == (5,)
    torch.testing.assert_close(torch.from_dlpack(d), torch.einsum("ii->i", x[:, :3]))
    x[1, 1] = 42.0  # one memory
    assert torch.from_dlpack(v)[1, 1].item() == 42.0 and torch.from_dlpack(d)[1].item() == 42.0


def test_torch_device_memory_refused():
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device for torch")
    x = torch.ones(3, device="cuda")
    with pytest.raises(BufferError, match="not host memory"):
        tenferro.from_dlpack(x)
    with pytest.raises(BufferError):
        tenferro.einsum("i->", x)
