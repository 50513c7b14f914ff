#!/usr/bin/env python3
"""Checks with numpy the .npy files that tfr_npy_save wrote (test_npy's
test_written_for_numpy).

Usage: python3 check_npy_written.py DIR

DIR/manifest.txt has one line per file: NAME DESCR SHAPE, SHAPE being
comma-separated extents or '-' for rank 0. For each, DIR/NAME.npy must load
in numpy with that dtype and shape, its elements in C order must equal
DIR/NAME.expect (what tfr_tensor_read returned for the saved tensor), and the
file must be byte for byte what numpy.save writes for the loaded array.
numpy and the standard library only.
"""
import io
import os
import sys

import numpy as np


def main():
    outdir = sys.argv[1]
    with open(os.path.join(outdir, "manifest.txt")) as fh:
        lines = [line.split() for line in fh if line.strip()]
    if not lines:
        sys.exit("check_npy_written: the manifest is empty")
    failures = []
    for name, descr, shape_text in lines:
        shape = () if shape_text == "-" else tuple(int(x) for x in shape_text.split(","))
        path = os.path.join(outdir, name + ".npy")
        with open(path, "rb") as fh:
            data = fh.read()
        # The reader numpy users call, without pickles.
        arr = np.load(path, allow_pickle=False)
        with open(os.path.join(outdir, name + ".expect"), "rb") as fh:
            expect = fh.read()
        if arr.dtype.str != descr:
            failures.append(f"{name}: dtype {arr.dtype.str}, expected {descr}")
            continue
        if arr.shape != shape:
            failures.append(f"{name}: shape {arr.shape}, expected {shape}")
            continue
        if np.ascontiguousarray(arr).tobytes() != expect:
            failures.append(f"{name}: values differ from what tfr_tensor_read returned")
            continue
        ref = io.BytesIO()
        np.save(ref, arr)
        if ref.getvalue() != data:
            failures.append(f"{name}: bytes differ from numpy.save's "
                            f"(header {data[:128]!r} vs {ref.getvalue()[:128]!r})")
            continue
        if (len(data) - arr.nbytes) % 64 != 0:
            failures.append(f"{name}: header length {len(data) - arr.nbytes} is not a "
                            "multiple of 64")
    for f in failures:
        print("FAIL", f)
    print(f"check_npy_written: {len(lines) - len(failures)} of {len(lines)} files OK "
          f"(numpy {np.__version__})")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
