#!/usr/bin/env python3
"""Reference .npy files written by numpy, for tests/unit/test_npy.c.

Usage: python3 gen_npy.py OUTDIR   (writes OUTDIR/npy/)

For every case NAME that tenferro must load, this writes NAME.npy (by numpy)
and NAME.raw: the expected elements in C (row-major) order, in the host's byte
order, i.e. what tfr_tensor_read returns. Cases that tenferro must refuse
(unsupported dtypes) have no .raw file. Hand-written headers (hv_*) exercise
the header variations numpy's reader accepts; each is checked here to load in
numpy before the C test relies on it. numpy and the standard library only.
"""
import os
import struct
import sys

import numpy as np

FMT = np.lib.format


def values(dtype, shape):
    """Deterministic values with negatives, large magnitudes and, for floats,
    NaN, infinities and -0.0."""
    n = int(np.prod(shape, dtype=np.int64))
    i = np.arange(n, dtype=np.int64)
    kind = np.dtype(dtype).kind
    if kind == "b":
        v = (i % 3) == 1
    elif kind in "iu":
        # Multiplicative hashing that wraps: both signs, all magnitudes.
        info = np.iinfo(dtype)
        if info.bits == 32 and kind == "i":
            v = (i.astype(np.uint32) * np.uint32(2654435761)).view(np.int32)
        else:
            # Wraps modulo 2^64, then keeps the low bits of the dtype.
            v = (i.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)).astype(
                np.dtype(dtype).newbyteorder("="))
        if n > 0:
            v[0] = info.min
        if n > 1:
            v[-1] = info.max
    elif kind == "f":
        v = i.astype(np.float64) * 0.75 - 4.0 + 1.0 / 3.0
        for pos, special in ((1, np.nan), (2, np.inf), (3, -0.0), (4, -np.inf), (5, 1e30)):
            if n > pos:
                v[pos] = special
    elif kind == "c":
        re = i.astype(np.float64) * 0.75 - 4.0 + 1.0 / 3.0
        im = -i.astype(np.float64) * 0.5 + 0.125
        if n > 1:
            re[1] = np.nan
        if n > 2:
            im[2] = -np.inf
        v = np.empty(n, dtype=np.complex128)
        v.real = re
        v.imag = im
    else:
        raise ValueError(dtype)
    with np.errstate(over="ignore"):  # 1e30 is inf in f16
        return np.asarray(v).astype(dtype).reshape(shape)


def raw_bytes(a):
    native = a.dtype.newbyteorder("=")
    return np.ascontiguousarray(a).astype(native).tobytes(order="C")


def save(outdir, name, a, version=None, raw=True):
    with open(os.path.join(outdir, name + ".npy"), "wb") as fh:
        FMT.write_array(fh, a, version=version)
    back = np.load(os.path.join(outdir, name + ".npy"), allow_pickle=True)
    assert back.shape == a.shape and back.dtype == a.dtype, name
    if raw:
        with open(os.path.join(outdir, name + ".raw"), "wb") as fh:
            fh.write(raw_bytes(a))


def save_header_variant(outdir, name, header, data, expect, version=1):
    """A file with a hand-written header, checked to load in numpy as `expect`."""
    hb = header.encode("latin1" if version < 3 else "utf8")
    prefix = FMT.MAGIC_PREFIX + bytes([version, 0])
    prefix += struct.pack("<H" if version == 1 else "<I", len(hb))
    path = os.path.join(outdir, name + ".npy")
    with open(path, "wb") as fh:
        fh.write(prefix + hb + data)
    back = np.load(path)
    assert back.dtype == expect.dtype and back.shape == expect.shape, (name, back)
    assert raw_bytes(back) == raw_bytes(expect), name
    with open(os.path.join(outdir, name + ".raw"), "wb") as fh:
        fh.write(raw_bytes(expect))


def main():
    outdir = os.path.join(sys.argv[1], "npy")
    os.makedirs(outdir, exist_ok=True)
    dtypes = {"b1": "|b1", "i4": "<i4", "i8": "<i8", "f4": "<f4", "f8": "<f8", "c8": "<c8",
              "c16": "<c16", "i1": "|i1", "i2": "<i2", "u1": "|u1", "u2": "<u2", "u4": "<u4",
              "u8": "<u8", "f2": "<f2"}

    for short, descr in dtypes.items():
        a = values(descr, (3, 4))
        save(outdir, "c_" + short, a)
        f = np.asfortranarray(a)
        assert f.flags.f_contiguous and not f.flags.c_contiguous
        save(outdir, "f_" + short, f)
        save(outdir, "f3_" + short, np.asfortranarray(values(descr, (2, 3, 4))))
        if np.dtype(descr).itemsize > 1:
            big = a.astype(np.dtype(descr).newbyteorder(">"))
            assert big.dtype.str.startswith(">")
            save(outdir, "be_" + short, big)

    # A strided view of a Fortran array: neither C- nor F-contiguous, so numpy
    # writes it in C order (format.py: fortran_order only for F-contiguous).
    base = np.asfortranarray(values("<f8", (5, 6, 7)))
    save(outdir, "fnc_f8", base[1:4, ::2, ::-1])
    save(outdir, "be_f3_f8", np.asfortranarray(values(">f8", (2, 3, 4))))

    # Rank 0, rank 1, empty, larger than one read buffer.
    save(outdir, "r0_f8", np.array(3.5))
    save(outdir, "r0_b1", np.array(True))
    save(outdir, "r0_i8", np.array(-7, dtype=np.int64))
    save(outdir, "r0_c8", np.array(1.5 - 2.25j, dtype=np.complex64))
    save(outdir, "v_i4", values("<i4", (5,)))
    save(outdir, "e_f4", np.zeros((0,), dtype=np.float32))
    save(outdir, "e_i8", np.zeros((2, 0, 3), dtype=np.int64))
    save(outdir, "e_c16", np.zeros((0, 0), dtype=np.complex128))
    save(outdir, "big_f8", values("<f8", (300, 301)))

    # Format versions 2.0 and 3.0 (4-byte header length; 3.0 = utf-8 header).
    save(outdir, "v2_f8", values("<f8", (3, 4)), version=(2, 0))
    save(outdir, "v3_c8", values("<c8", (3, 4)), version=(3, 0))
    save(outdir, "v2_f_i8", np.asfortranarray(values("<i8", (3, 4))), version=(2, 0))
    save(outdir, "v3_r0_b1", np.array(False), version=(3, 0))

    # Unsupported dtypes: tenferro refuses them, naming the dtype string.
    # '|V2' is what numpy writes for ml_dtypes' bfloat16 (raw 2-byte voids).
    save(outdir, "u_V2", np.zeros(3, dtype="V2"), raw=False)
    save(outdir, "u_f16", np.zeros(2, dtype=np.longdouble), raw=False)
    save(outdir, "u_U3", np.array(["ab", "cde"]), raw=False)
    save(outdir, "u_O", np.array([1, "x", None], dtype=object), raw=False)
    save(outdir, "u_M8", np.array(["2020-01-01"], dtype="datetime64[ns]"), raw=False)
    save(outdir, "u_struct", np.zeros(2, dtype=[("a", "<f4"), ("b", "<i4")]), raw=False)

    # Header variations numpy accepts, each with the data of a known array.
    a = values("<f8", (2, 3))
    d = a.tobytes()
    save_header_variant(outdir, "hv_order",
                        "{'shape': (2, 3), 'fortran_order': False, 'descr': '<f8'}\n", d, a)
    save_header_variant(outdir, "hv_dquote",
                        '{"descr": "<f8", "fortran_order": False, "shape": (2,3)}', d, a)
    save_header_variant(outdir, "hv_space",
                        "  { 'descr' : '<f8' ,\n\t'fortran_order':False,'shape':( 2 , 3 , ) ,}"
                        + " " * 100 + "\n", d, a)
    save_header_variant(outdir, "hv_py2long",
                        "{'descr': '<f8', 'fortran_order': False, 'shape': (2L, 3L), }\n", d, a)
    save_header_variant(outdir, "hv_noorder",
                        "{'descr': 'f8', 'fortran_order': False, 'shape': (2, 3), }\n", d, a)
    save_header_variant(outdir, "hv_eq",
                        "{'descr': '=f8', 'fortran_order': False, 'shape': (2, 3), }\n", d, a)
    save_header_variant(outdir, "hv_pipe",
                        "{'descr': '|f8', 'fortran_order': False, 'shape': (2, 3), }\n", d, a)
    save_header_variant(outdir, "hv_v3",
                        "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }   \n", d, a,
                        version=3)
    b = values("|b1", (4,))
    save_header_variant(outdir, "hv_qmark",
                        "{'descr': '?', 'fortran_order': False, 'shape': (4,), }\n",
                        b.tobytes(), b)
    save_header_variant(outdir, "hv_gtbool",
                        "{'descr': '>b1', 'fortran_order': False, 'shape': (4,), }\n",
                        b.tobytes(), b)
    save_header_variant(outdir, "hv_plus",
                        "{'descr': '<f8', 'fortran_order': False, 'shape': (+2, 3), }\n", d, a)
    # Fortran order with an empty axis: numpy never writes it (an empty array
    # is also C-contiguous), but reads it.
    save_header_variant(outdir, "hv_f_empty",
                        "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 0, 3), }\n", b"",
                        np.zeros((2, 0, 3), dtype=np.float32))


if __name__ == "__main__":
    main()
