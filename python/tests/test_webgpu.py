"""webgpu Tensors from Python: they report kDLWebGPU (15, 0) as their DLPack
device, leave the device only as a host copy made when asked (__dlpack__ with
copy=True or dl_device=(1, 0); numpy.array(t, copy=True), t.numpy(),
t.download(), asarray(t, backend='cpu')) and refuse every implicit way out
with BufferError. Results are checked against numpy; the webgpu backend
computes in f32."""
import ctypes

import numpy as np
import pytest
import tenferro

from test_tensor import DLManagedTensorVersioned, capsule_pointer

NUMPY2 = int(np.__version__.split(".")[0]) >= 2
# numpy.from_dlpack(x, device=..., copy=...) came with numpy 2.1.
NUMPY_FROM_DLPACK_DEVICE = tuple(int(v) for v in np.__version__.split(".")[:2]) >= (2, 1)


class Producer:
    """Passes the given __dlpack__ arguments to a Tensor (how a consumer that
    asks for a host copy calls it)."""

    def __init__(self, t, **kwargs):
        self.t, self.kwargs = t, kwargs

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        return self.t.__dlpack__(max_version=max_version, **self.kwargs)

    def __dlpack_device__(self):
        return (1, 0)


@pytest.fixture
def gpu_tensor(webgpu, rng):
    a = rng.uniform(-1, 1, size=(3, 5)).astype(np.float32)
    t = tenferro.asarray(a, backend=webgpu)
    return a, t


def test_upload_reports_webgpu(webgpu, gpu_tensor):
    a, t = gpu_tensor
    assert t.backend is webgpu
    assert t.__dlpack_device__() == (15, 0)
    assert (t.shape, t.dtype, t.strides) == ((3, 5), "f32", (5, 1))
    assert "backend='webgpu'" in repr(t)
    # already there: the same Tensor
    assert tenferro.asarray(t, backend=webgpu) is t
    assert tenferro.asarray(t) is t


def test_dlpack_refuses_without_a_copy(gpu_tensor):
    _, t = gpu_tensor
    for kwargs in ({}, {"max_version": (1, 0)}, {"stream": None}):
        with pytest.raises(BufferError, match="only as a host copy"):
            t.__dlpack__(**kwargs)
    with pytest.raises(BufferError, match="copy=False"):
        t.__dlpack__(dl_device=(1, 0), copy=False)
    with pytest.raises(BufferError, match="copy=False"):
        t.__dlpack__(copy=False)
    # no export of device memory, to its own device type or any other
    for device in ((15, 0), (2, 0), (1, 1)):
        with pytest.raises(BufferError, match="cannot export to device"):
            t.__dlpack__(dl_device=device, copy=True)
    with pytest.raises(BufferError):
        tenferro.from_dlpack(Producer(t))  # a consumer asking for no copy


@pytest.mark.parametrize("kwargs", [
    {"copy": True}, {"dl_device": (1, 0)}, {"dl_device": (1, 0), "copy": True},
])
def test_dlpack_host_copy_when_asked(gpu_tensor, kwargs):
    a, t = gpu_tensor
    cap = t.__dlpack__(max_version=(1, 0), **kwargs)
    m = DLManagedTensorVersioned.from_address(capsule_pointer(cap, b"dltensor_versioned"))
    assert (m.dl_tensor.device_type, m.dl_tensor.device_id) == (1, 0)  # host memory
    assert m.flags & 2  # IS_COPIED
    assert [m.dl_tensor.shape[i] for i in range(2)] == [3, 5]
    n = 15
    values = np.ctypeslib.as_array(
        ctypes.cast(m.dl_tensor.data, ctypes.POINTER(ctypes.c_float)), shape=(n,))
    np.testing.assert_array_equal(values.reshape(3, 5), a)
    del values, cap
    # consumed through from_dlpack: a host Tensor of the values
    h = tenferro.from_dlpack(Producer(t, **kwargs))
    assert h.__dlpack_device__() == (1, 0)
    np.testing.assert_array_equal(np.asarray(h), a)
    # the legacy capsule too (no max_version)
    legacy = t.__dlpack__(**kwargs)
    assert capsule_pointer(legacy, b"dltensor")


def test_numpy_conversions_download_explicitly(gpu_tensor):
    a, t = gpu_tensor
    for r in (t.numpy(), t.__array__(copy=True), np.asarray(t.download())):
        assert isinstance(r, np.ndarray) and r.dtype == np.float32
        np.testing.assert_array_equal(r, a)
    h = t.download()
    assert h.backend == "cpu" and h.__dlpack_device__() == (1, 0)
    assert np.from_dlpack(h).ctypes.data == h.data_ptr  # the download shared, no copy
    h2 = tenferro.asarray(t, backend="cpu")
    assert h2.backend == "cpu"
    np.testing.assert_array_equal(np.asarray(h2), a)
    # implicit conversions refuse
    with pytest.raises(BufferError, match="only when asked"):
        np.asarray(t)
    with pytest.raises(BufferError):
        t.__array__()
    with pytest.raises(BufferError):
        memoryview(t)
    with pytest.raises(AttributeError):
        t.__array_interface__
    with pytest.raises(tenferro.WrongBackendError):
        t.data_ptr
    if NUMPY2:  # numpy 2 passes copy=True to __array__
        np.testing.assert_array_equal(np.array(t, copy=True), a)
    else:  # numpy 1.x calls __array__() without it: use t.numpy()
        with pytest.raises(BufferError):
            np.array(t, copy=True)
    if NUMPY_FROM_DLPACK_DEVICE:
        np.testing.assert_array_equal(np.from_dlpack(t, device="cpu"), a)
        np.testing.assert_array_equal(np.from_dlpack(t, copy=True), a)
        with pytest.raises(BufferError):
            np.from_dlpack(t)


def test_einsum_and_ops_on_webgpu(webgpu, rng):
    a = rng.uniform(-1, 1, size=(4, 6)).astype(np.float32)
    b = rng.uniform(-1, 1, size=(6, 3)).astype(np.float32)
    c = tenferro.einsum("ij,jk->ik", a, b, backend=webgpu)  # host operands uploaded
    assert isinstance(c, tenferro.Tensor) and c.__dlpack_device__() == (15, 0)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-5, atol=1e-5)
    # device operands pick the backend; a numpy operand next to one is uploaded
    ta = tenferro.asarray(a, backend="webgpu")
    d = tenferro.einsum("ij,jk->ik", ta, b)
    assert d.backend is ta.backend
    np.testing.assert_allclose(d.numpy(), a @ b, rtol=1e-5, atol=1e-5)
    # a one-operand rearrangement on a device: computed there, no view (and
    # no host memory to view for a numpy operand sent there)
    for t in (tenferro.einsum("ij->ji", ta), tenferro.einsum("ij->ji", a, backend=webgpu)):
        assert t.__dlpack_device__() == (15, 0) and t.shape == (6, 4)
        np.testing.assert_array_equal(t.numpy(), a.T)
    s = tenferro.ops.add(ta, a)
    assert s.__dlpack_device__() == (15, 0)
    np.testing.assert_array_equal(s.numpy(), a + a)
    # a conversion stays on the device
    big = tenferro.asarray(a * 100, backend=webgpu)
    h = tenferro.asarray(big, dtype="i32")
    assert h.backend is big.backend and h.dtype == "i32"
    np.testing.assert_array_equal(h.numpy(), (a * 100).astype(np.int32))  # toward zero


def test_no_library_objects_left(webgpu, rng):
    a = rng.uniform(-1, 1, size=(2, 3)).astype(np.float32)
    t = tenferro.asarray(a, backend=webgpu)
    t.numpy()
    tenferro.from_dlpack(Producer(t, copy=True))
    del t
    import gc
    gc.collect()
    base = tenferro.live_objects()
    for _ in range(50):
        t = tenferro.asarray(a, backend=webgpu)
        t.numpy()
        tenferro.from_dlpack(Producer(t, copy=True))
        t.__dlpack__(dl_device=(1, 0))
        del t
    gc.collect()
    assert tenferro.live_objects() == base
