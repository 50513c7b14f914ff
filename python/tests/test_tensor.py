"""tenferro.Tensor: numpy round trips for every dtype, strided and
negative-stride views, zero copy in and out, DLPack (versioned and legacy
capsules, bf16), the buffer protocol and errors."""
import ctypes
import gc
import weakref

import numpy as np
import pytest
import tenferro

from conftest import NUMPY_DTYPES, random_array


@pytest.mark.parametrize("np_dtype,name", NUMPY_DTYPES)
def test_round_trip_every_numpy_dtype(rng, np_dtype, name):
    a = random_array(rng, (3, 5), np_dtype)
    t = tenferro.asarray(a)
    assert t.dtype == name
    assert t.shape == (3, 5)
    assert t.strides == (5, 1)
    assert t.itemsize == a.itemsize
    assert t.data_ptr == a.ctypes.data  # no copy in
    for back in (np.asarray(t), t.numpy(), np.from_dlpack(t) if name != "bool" else t.numpy()):
        assert back.dtype == a.dtype
        assert back.ctypes.data == a.ctypes.data  # no copy out
        np.testing.assert_array_equal(back, a)


@pytest.mark.parametrize("np_dtype,name", NUMPY_DTYPES)
def test_from_dlpack_every_numpy_dtype(rng, np_dtype, name):
    a = random_array(rng, (4, 2), np_dtype)
    if name == "bool":
        try:
            a.__dlpack__()
        except BufferError:  # numpy < 1.25
            pytest.skip(f"numpy {np.__version__} exports no bool through DLPack")
    t = tenferro.from_dlpack(a)
    assert t.dtype == name and t.data_ptr == a.ctypes.data
    np.testing.assert_array_equal(np.asarray(t), a)


def test_copy_of_op_result_is_computed(rng):
    a = random_array(rng, (4, 3), np.float64)
    r = tenferro.ops.add(tenferro.asarray(a), tenferro.asarray(a))
    assert isinstance(r, tenferro.Tensor)
    np.testing.assert_array_equal(np.asarray(r), a + a)
    # numpy in, numpy out
    r2 = tenferro.ops.add(a, a)
    assert isinstance(r2, np.ndarray)
    np.testing.assert_array_equal(r2, a + a)


@pytest.mark.parametrize("index", [
    np.s_[::2, 1:], np.s_[::-1, :], np.s_[:, ::-3], np.s_[::-2, ::-1], np.s_[1:3, ::-1],
])
def test_strided_and_negative_views_are_zero_copy(rng, index):
    base = random_array(rng, (6, 7), np.float64)
    v = base[index]
    t = tenferro.asarray(v)
    assert t.data_ptr == v.ctypes.data
    assert t.strides == tuple(s // 8 for s in v.strides)
    np.testing.assert_array_equal(np.asarray(t), v)
    # computes on the view: the library reads the strides
    np.testing.assert_array_equal(np.asarray(tenferro.ops.negate(t)), -v)
    np.testing.assert_allclose(tenferro.einsum("ij->j", v), v.sum(0))


def test_transposed_and_broadcast_views(rng):
    a = random_array(rng, (3, 4), np.float32)
    np.testing.assert_array_equal(np.asarray(tenferro.asarray(a.T)), a.T)
    b = np.broadcast_to(a[0], (5, 4))  # stride 0
    t = tenferro.asarray(b)
    assert t.strides == (0, 1)
    np.testing.assert_array_equal(np.asarray(tenferro.ops.copy(t)), b)


def test_empty_and_rank0(rng):
    e = np.zeros((0, 3))
    t = tenferro.asarray(e)
    assert t.shape == (0, 3) and t.size == 0
    assert np.asarray(t).shape == (0, 3)
    s = np.array(2.5)
    t0 = tenferro.asarray(s)
    assert t0.shape == () and t0.ndim == 0
    assert np.asarray(t0)[()] == 2.5
    assert tenferro.asarray(3.0).dtype == "f64"
    assert tenferro.asarray([1, 2, 3]).shape == (3,)
    with pytest.raises(TypeError):
        len(t0)


def test_nan_passes_through(rng):
    a = np.array([1.0, np.nan, -np.inf])
    np.testing.assert_array_equal(np.asarray(tenferro.ops.negate(a)), -a)


def test_producer_kept_alive_and_released(rng):
    a = random_array(rng, (100,), np.float64)
    ref = weakref.ref(a) if hasattr(a, "__weakref__") else None
    expect = a.copy()
    t = tenferro.asarray(a)
    del a
    gc.collect()
    np.testing.assert_array_equal(np.asarray(t), expect)  # still valid
    if ref is not None:
        assert ref() is not None
        del t
        gc.collect()
        assert ref() is None  # the buffer was given back


class LegacyProducer:
    """A DLPack producer that only knows the unversioned protocol."""

    def __init__(self, arr):
        self.arr = arr

    def __dlpack__(self, stream=None):
        return self.arr.__dlpack__()

    def __dlpack_device__(self):
        return self.arr.__dlpack_device__()


class VersionedProducer:
    """Hands out whatever the wrapped object's versioned export gives."""

    def __init__(self, obj):
        self.obj = obj
        self.asked = None

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        self.asked = max_version
        return self.obj.__dlpack__(max_version=max_version)

    def __dlpack_device__(self):
        return self.obj.__dlpack_device__()


def capsule_pointer(capsule, name):
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return get(capsule, name)


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32),
                ("device_id", ctypes.c_int32), ("ndim", ctypes.c_int32),
                ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32),
                ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p),
                ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


def test_versioned_capsule_layout(rng):
    a = random_array(rng, (2, 3), np.float32)
    t = tenferro.asarray(a)
    cap = t.__dlpack__(max_version=(1, 0))
    p = capsule_pointer(cap, b"dltensor_versioned")
    m = DLManagedTensorVersioned.from_address(p)
    assert (m.major, m.minor) == (1, 0)
    assert m.flags == 0
    dl = m.dl_tensor
    assert dl.data == a.ctypes.data and dl.byte_offset == 0
    assert (dl.device_type, dl.device_id) == (1, 0)
    assert (dl.code, dl.bits, dl.lanes) == (2, 32, 1)
    assert dl.ndim == 2 and [dl.shape[i] for i in range(2)] == [2, 3]
    assert [dl.strides[i] for i in range(2)] == [3, 1]
    del cap  # unconsumed: the destructor runs the deleter (no leak, no crash)
    legacy = t.__dlpack__()
    assert capsule_pointer(legacy, b"dltensor")
    copied = t.__dlpack__(max_version=(1, 0), copy=True)
    mc = DLManagedTensorVersioned.from_address(capsule_pointer(copied, b"dltensor_versioned"))
    assert mc.flags & 2  # IS_COPIED
    assert mc.dl_tensor.data != a.ctypes.data


def test_dlpack_versioned_and_legacy_imports_are_zero_copy(rng):
    a = random_array(rng, (5, 4), np.float64)
    t = tenferro.asarray(a)
    vp = VersionedProducer(t)
    u = tenferro.from_dlpack(vp)
    assert vp.asked == (1, 0)
    assert u.data_ptr == a.ctypes.data
    w = tenferro.from_dlpack(LegacyProducer(a))
    assert w.data_ptr == a.ctypes.data
    np.testing.assert_array_equal(np.asarray(w), a)


def test_bf16_through_dlpack(rng):
    a = random_array(rng, (3, 4), np.float32)
    b = tenferro.asarray(a, dtype="bf16")
    assert b.dtype == "bf16"
    cap = b.__dlpack__(max_version=(1, 0))
    m = DLManagedTensorVersioned.from_address(capsule_pointer(cap, b"dltensor_versioned"))
    assert (m.dl_tensor.code, m.dl_tensor.bits) == (4, 16)
    del cap
    back = tenferro.from_dlpack(VersionedProducer(b))
    assert back.dtype == "bf16" and back.data_ptr == b.data_ptr
    f = np.asarray(tenferro.ops.convert(back, "f32"))
    # bf16 keeps 8 bits of mantissa: relative error <= 2^-8
    np.testing.assert_allclose(f, a, rtol=2.0 ** -8)
    # bf16 bits are the upper half of the f32, rounded to nearest even
    bits = np.asarray(tenferro.ops.bitcast_convert(back, "u16"))
    assert bits.dtype == np.uint16
    u = a.view(np.uint32).astype(np.uint64)
    want = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    np.testing.assert_array_equal(bits, want)
    with pytest.raises(BufferError):
        np.asarray(memoryview(b))
    with pytest.raises(BufferError):
        np.asarray(b)
    with pytest.raises(BufferError):
        b.numpy()
    # numpy in, bf16 out: a Tensor (numpy has no bfloat16)
    assert isinstance(tenferro.ops.convert(a, "bf16"), tenferro.Tensor)
    with pytest.raises(AttributeError):
        b.__array_interface__


class VoidBufferBf16(np.ndarray):
    """2-byte voids through the buffer protocol (a format tenferro has no
    dtype for), bf16 through DLPack: what JAX's bfloat16 arrays offer."""

    def __dlpack__(self, **kwargs):
        bits = tenferro.asarray(self.view(np.uint16).view(np.ndarray))
        return tenferro.ops.bitcast_convert(bits, "bf16").__dlpack__(**kwargs)


def test_operand_through_dlpack_when_its_buffer_is_refused(rng):
    a = random_array(rng, (3, 4), np.float32)
    bits = np.asarray(tenferro.ops.bitcast_convert(tenferro.asarray(a, dtype="bf16"), "u16"))
    obj = bits.view(np.dtype("V2")).view(VoidBufferBf16)
    with pytest.raises(TypeError, match="no dtype for buffer format"):
        tenferro.asarray(bits.view(np.dtype("V2")))  # no DLPack to fall back on
    t = tenferro.asarray(obj)
    assert t.dtype == "bf16" and t.shape == (3, 4)
    want = np.asarray(tenferro.ops.convert(tenferro.asarray(a, dtype="bf16"), "f32"))
    np.testing.assert_array_equal(np.asarray(tenferro.ops.convert(t, "f32")), want)
    got = tenferro.einsum("ij->j", obj)
    np.testing.assert_allclose(np.asarray(tenferro.ops.convert(got, "f32")), want.sum(0),
                               rtol=2.0 ** -7)


def test_dlpack_device_and_requests(rng):
    t = tenferro.asarray(random_array(rng, (2,), np.float64))
    assert t.__dlpack_device__() == (1, 0)
    with pytest.raises(BufferError):
        t.__dlpack__(dl_device=(2, 0))  # CUDA: no
    assert t.__dlpack__(dl_device=(1, 0)) is not None


def test_errors(rng):
    with pytest.raises(TypeError):
        tenferro.from_dlpack(object())
    with pytest.raises(TypeError):
        tenferro.asarray(np.array(["a", "b"]))
    with pytest.raises(TypeError):
        tenferro.asarray(np.zeros(3, dtype=">f8"))  # big endian: no dtype
    with pytest.raises(tenferro.UnsupportedDtypeError) as e:
        tenferro.asarray(np.zeros(3), dtype="f128")
    assert "f128" in str(e.value)
    with pytest.raises(tenferro.Error):
        tenferro.ops.negate(np.array([True]))


def test_dtype_names(rng):
    a = random_array(rng, (2, 2), np.float64)
    assert tenferro.asarray(a, dtype=np.float32).dtype == "f32"
    assert tenferro.asarray(a, dtype=np.dtype("complex64")).dtype == "c64"
    assert tenferro.asarray(a, dtype="bfloat16").dtype == "bf16"
    assert tenferro.asarray(a, dtype=int).dtype == "i64"
