"""Sessions, backends and threads: sessions as context managers, several
Python threads contracting at once, and the GIL released while the library
computes."""
import threading
import time

import numpy as np
import pytest
import tenferro


def test_session_context_manager(rng=None):
    a = np.random.default_rng(3).random((4, 4))
    with tenferro.Session() as s:
        assert s.active
        assert s.backend.name == "cpu"
        r = tenferro.einsum("ij,jk->ik", a, a)
        r2 = tenferro.ops.multiply(a, a)
        with pytest.raises(tenferro.SessionReenteredError):
            with tenferro.Session():
                pass
        s.synchronize()
    assert not s.active
    np.testing.assert_allclose(r, a @ a, rtol=1e-14)
    np.testing.assert_array_equal(r2, a * a)


def test_backend_context_manager():
    a = np.random.default_rng(4).random((8, 8))
    with tenferro.Backend("cpu", num_threads=1) as b:
        assert repr(b) == "tenferro.Backend('cpu')"
        np.testing.assert_allclose(tenferro.einsum("ij,jk->ik", a, a), a @ a, rtol=1e-13)
        with b.session():
            np.testing.assert_allclose(tenferro.einsum("ij,jk->ik", a, a, backend=b), a @ a,
                                       rtol=1e-13)
            with pytest.raises(ValueError):  # another backend inside this session
                tenferro.einsum("ij,jk->ik", a, a, backend=tenferro.Backend("cpu"))
    with pytest.raises(ValueError):
        tenferro.Backend("tpu")


def test_webgpu_unavailable_is_an_exception():
    if "webgpu" in tenferro.backends_compiled():
        pytest.skip("webgpu compiled in: covered by the webgpu tests")
    with pytest.raises(tenferro.BackendUnavailableError) as e:
        tenferro.einsum("i->", np.ones(3), backend="webgpu")
    assert str(e.value)


def test_many_threads_contract_at_once():
    rng = np.random.default_rng(5)
    errors = []

    def worker(seed, use_session):
        r = np.random.default_rng(seed)
        try:
            for _ in range(100):
                a, b, c = r.random((5, 6)), r.random((6, 7)), r.random((7, 3))
                if use_session:
                    with tenferro.Session():
                        got = tenferro.einsum("ij,jk,kl->il", a, b, c)
                else:
                    got = tenferro.einsum("ij,jk,kl->il", a, b, c)
                np.testing.assert_allclose(got, a @ b @ c, rtol=1e-12)
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(int(rng.integers(1 << 30)), k % 2 == 0))
               for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_gil_released_during_a_contraction():
    n = 1600
    a = np.random.default_rng(6).random((n, n))
    done = threading.Event()
    calls = []

    def big():
        start = time.perf_counter()
        while time.perf_counter() - start < 0.8 or len(calls) < 3:
            t0 = time.perf_counter()
            tenferro.einsum("ij,jk,kl->il", a, a, a)
            calls.append(time.perf_counter() - t0)
        done.set()

    th = threading.Thread(target=big)
    gaps, last = [], time.perf_counter()
    th.start()
    while not done.is_set():
        now = time.perf_counter()
        gaps.append(now - last)
        last = now
        time.sleep(0.001)
    th.join()
    shortest = min(calls)
    if shortest < 0.05:
        pytest.skip(f"a contraction takes {shortest:.3f} s here: too quick to tell")
    # A contraction holding the GIL would stall this loop for a whole call;
    # with the GIL released its pauses are the scheduler's (other tests may
    # share the cores), far below a call.
    assert max(gaps) < 0.6 * shortest, (max(gaps), shortest)
