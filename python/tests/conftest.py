"""Shared helpers of the tenferro Python tests (run by ctest as python_pytest:
PYTHONPATH points at the build's module)."""
import importlib.util
import os

import numpy as np
import pytest

REPO = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))


def load_ref_script(name):
    """A reference generator of tests/ref/ as a module (its functions only)."""
    path = os.path.join(REPO, "tests", "ref", name + ".py")
    spec = importlib.util.spec_from_file_location("ref_" + name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# Every numpy dtype tenferro has, with its tenferro name.
NUMPY_DTYPES = [
    (np.bool_, "bool"), (np.int8, "i8"), (np.int16, "i16"), (np.int32, "i32"),
    (np.int64, "i64"), (np.uint8, "u8"), (np.uint16, "u16"), (np.uint32, "u32"),
    (np.uint64, "u64"), (np.float16, "f16"), (np.float32, "f32"), (np.float64, "f64"),
    (np.complex64, "c64"), (np.complex128, "c128"),
]


def random_array(rng, shape, dtype):
    """Random non-zero values of `dtype` (bool: both values)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        v = rng.integers(1, 100, size=shape)
        return v.astype(dtype)
    v = rng.uniform(0.5, 2.0, size=shape) * rng.choice([-1, 1], size=shape)
    if dtype.kind == "c":
        v = v + 1j * rng.uniform(-1, 1, size=shape)
    return v.astype(dtype)


@pytest.fixture
def rng():
    return np.random.default_rng(20261202)


@pytest.fixture(scope="session")
def webgpu():
    """The webgpu backend (lavapipe under ctest: the build passes
    scripts/setup-webgpu.sh's VK_DRIVER_FILES). Without a provider or adapter
    the test skips, or fails with TFR_REQUIRE_WEBGPU=1 (CI), as the C tests do."""
    import tenferro
    if "webgpu" not in tenferro.backends_compiled():
        reason = "the module is built without the webgpu backend"
    else:
        try:
            return tenferro.Backend("webgpu")
        except tenferro.BackendUnavailableError as e:
            reason = f"webgpu backend unavailable: {e}"
    if os.environ.get("TFR_REQUIRE_WEBGPU") == "1":
        pytest.fail(reason + " (and TFR_REQUIRE_WEBGPU=1)")
    pytest.skip(reason)
