#!/usr/bin/env python3
"""The inputs of the first attack on the `tenferro` command (issue #22), each
a regression test of what it found.

usage: check_attacks.py TENFERRO_BINARY

* an instance in every dtype the library has (by short and numpy name): the
  result equals numpy.einsum on the saved operands exactly (integers, bool)
  or to the dtype's rounding (floats), and the checksum line is the
  result's sum (it wrote past a heap buffer for any dtype but f32, f64, c64
  and c128);
* a FIFO as an instance, an .npy operand, a path file and a conformance file:
  refused at once as "not a regular file" (it blocked forever);
* memory: a 128-byte .npy of shape (2^28, 0) reduced over its empty axis
  needs a 2 GiB output, refused under --max-memory before anything is
  allocated; a conformance case's unused 2^30-element iota is not computed
  and a used one that does not fit fails before it allocates;
* "ii->i" on shape (1, 3) is refused as numpy refuses it, and extent 1
  still broadcasts across operands ("ii,i->i" on (3, 3) and (1,));
* writes: under a file-size limit (SIGXFSZ) the write fails with "File too
  large", leaving neither the output nor a temporary file; SIGTERM at many
  moments of a run that writes a 128 MiB result never leaves a temporary file
  or a partial output (a signal during the write is held until the file is
  complete, then ends the process);
* a third attack (third_findings): outputs checked before the run, headers
  before data, NUL and repeated keys in JSON, --max-memory values.
Exits 0 when every check passes; prints each failure.
"""
import json
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np

FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print(f"FAIL: {what}")


def run(binary, *args, timeout=600, **kw):
    p = subprocess.run([binary, *args], capture_output=True, text=True, timeout=timeout, **kw)
    return p.returncode, p.stdout, p.stderr


def leftovers(d):
    return [f for f in os.listdir(d) if ".tmp" in f]


# (name given in the instance, numpy dtype or None for bf16)
DTYPES = [("f64", "float64"), ("float32", "float32"), ("c64", "complex64"),
          ("complex128", "complex128"), ("f16", "float16"), ("bfloat16", None),
          ("int8", "int8"), ("i16", "int16"), ("int32", "int32"), ("i64", "int64"),
          ("uint8", "uint8"), ("u16", "uint16"), ("uint32", "uint32"), ("u64", "uint64"),
          ("bool", "bool")]


def every_dtype(binary, tmp):
    # Diagonal, batch, contraction and a sum in one network.
    inst = {"format_string": "abc,cd,dbe,aa->be", "shapes": [[3, 4, 5], [5, 6], [6, 4, 2], [3, 3]],
            "num_tensors": 4}
    for name, np_name in DTYPES:
        path = os.path.join(tmp, f"inst-{name}.json")
        json.dump({**inst, "dtype": name}, open(path, "w"))
        d = os.path.join(tmp, f"ops-{name}")
        out = os.path.join(tmp, f"res-{name}.npy")
        args = ["contract", path, "--path", "greedy", "--seed", "5"]
        if np_name:  # .npy has no bf16
            args += ["--save-inputs", d, "-o", out]
        rc, so, se = run(binary, *args)
        check(rc == 0, f"instance dtype {name}: exit {rc}: {se.strip()}")
        if rc != 0 or not np_name:
            continue
        ops = [np.load(os.path.join(d, f"operand_{i:03d}.npy")) for i in range(4)]
        got = np.load(out)
        check(all(o.dtype == np.dtype(np_name) for o in ops) and got.dtype == np.dtype(np_name),
              f"instance dtype {name}: operands {[o.dtype for o in ops]}, result {got.dtype}")
        kind = np.dtype(np_name).kind
        if kind in "fc":
            check(all(np.all(o != 0) for o in ops), f"instance dtype {name}: a zero operand value")
            want = np.einsum(inst["format_string"], *[o.astype(np.complex128 if kind == "c" else
                                                                 np.float64) for o in ops])
            eps = float(np.finfo(np_name).eps)
            err = float(np.max(np.abs(got.astype(want.dtype) - want)) / max(np.max(np.abs(want)),
                                                                              1e-300))
            check(err <= 64 * eps, f"instance dtype {name}: relative error {err:.3g}")
        else:
            want = np.einsum(inst["format_string"], *ops)
            check(np.array_equal(got, want), f"instance dtype {name}: result differs from numpy")
            lo, hi = (0, 1) if kind == "b" else ((1, 3) if kind == "u" else (-3, 3))
            check(all(o.min() >= lo and o.max() <= hi for o in ops) and
                  (kind == "b" or all(np.all(o != 0) for o in ops)),
                  f"instance dtype {name}: operand values outside {lo}..{hi} or zero")
        line = [l for l in so.splitlines() if l.startswith("result")]
        wide = got.astype(np.complex128)
        m = re.search(r"checksum sum (\S+?),? .*sum\|x\| (\S+)", line[0]) if line else None
        check(m is not None and
              abs(float(m.group(1)) - np.sum(wide).real) <= 1e-12 * np.sum(np.abs(wide)) and
              abs(float(m.group(2)) - np.sum(np.abs(wide))) <= 1e-12 * np.sum(np.abs(wide)),
              f"instance dtype {name}: checksum line {line} vs sum {np.sum(wide)}")
    rc, _, se = run(binary, "contract", os.path.join(tmp, "inst-f64.json"), "--dtype", "q8")
    check(rc == 2 and "'q8' is no dtype" in se, f"--dtype q8: exit {rc}: {se!r}")
    bad = os.path.join(tmp, "inst-bad.json")
    json.dump({**inst, "dtype": "float128"}, open(bad, "w"))
    rc, _, se = run(binary, "contract", bad)
    check(rc != 0 and "unknown \"dtype\"" in se, f"dtype float128: exit {rc}: {se!r}")


def fifos(binary, tmp):
    fifo = os.path.join(tmp, "fifo")
    os.mkfifo(fifo)
    a = os.path.join(tmp, "a.npy")
    np.save(a, np.ones((2, 3)))
    out = os.path.join(tmp, "fifo-out.npy")
    for args, what in ((["contract", fifo], "instance"),
                       (["einsum", "ij->i", fifo, "-o", out], ".npy operand"),
                       (["einsum", "ij->i", a, "-o", out, "--path-file", fifo], "--path-file"),
                       (["einsum", "ij->i", a, "-o", out, "--path", fifo], "--path FILE"),
                       (["conformance", fifo], "conformance file")):
        try:
            rc, _, se = run(binary, *args, timeout=20)
        except subprocess.TimeoutExpired:
            check(False, f"FIFO as {what}: still blocked after 20 s")
            continue
        check(rc != 0 and "not a regular file" in se, f"FIFO as {what}: exit {rc}: {se!r}")
        check(not os.path.exists(out), f"FIFO as {what}: an output was written")


def memory(binary, tmp):
    e = os.path.join(tmp, "empty-axis.npy")
    np.save(e, np.zeros((2 ** 28, 0)))
    check(os.path.getsize(e) == 128, f"the (2^28, 0) .npy is {os.path.getsize(e)} bytes")
    out = os.path.join(tmp, "big.npy")
    for extra in (["--path", "greedy"], ["--path-file", os.path.join(tmp, "one.json")]):
        json.dump([], open(os.path.join(tmp, "one.json"), "w"))
        rc, _, se = run(binary, "einsum", "ij->i", e, "-o", out, "--max-memory", "1G", *extra)
        check(rc != 0 and "the operands and the output alone" in se,
              f"einsum over an empty axis into 2 GiB {extra}: exit {rc}: {se!r}")
        check(not os.path.exists(out), "einsum over an empty axis: an output was written")
    # The output's 2^28 elements within the budget: contracted as before.
    small = os.path.join(tmp, "empty-small.npy")
    np.save(small, np.zeros((1000, 0)))
    rc, _, se = run(binary, "einsum", "ij->i", small, "-o", out, "--max-memory", "1M")
    check(rc == 0 and np.array_equal(np.load(out), np.zeros(1000)) if rc == 0 else False,
          f"einsum over an empty axis within the budget: exit {rc}: {se!r}")

    iota = {"op": "iota", "operands": [], "iota_dimension": 0}
    unused = {"name": "unused_iota", "source_op": "iota", "inputs": [],
              "program": [{**iota, "result": {"dtype": "u8", "shape": [2, 3]}},
                          {**iota, "result": {"dtype": "f32", "shape": [2 ** 30]}}],
              "output": 0, "check": "eq",
              "expected": {"dtype": "u8", "shape": [2, 3], "hex": "000000010101"}}
    used = {"name": "used_iota", "source_op": "iota", "inputs": [],
            "program": [{**iota, "result": {"dtype": "u8", "shape": [2 ** 30]}},
                        {"op": "slice", "operands": [0], "result": {"dtype": "u8", "shape": [1]},
                         "start_indices": [0], "limit_indices": [1], "strides": [1]}],
            "output": 1, "check": "eq", "expected": {"dtype": "u8", "shape": [1], "hex": "00"}}
    cases = os.path.join(tmp, "attack.jsonl")
    with open(cases, "w") as f:
        f.write(json.dumps(unused) + "\n" + json.dumps(used) + "\n")
    rc, so, se = run(binary, "conformance", cases, "--max-memory", "64M", "-v")
    check(rc == 1 and "1 passed, 1 failed" in so and "FAIL used_iota" in so and
          "more than --max-memory" in so and "FAIL unused_iota" not in so,
          f"conformance memory budget: exit {rc}:\n{so}{se}")
    rc, _, se = run(binary, "conformance", cases, "--max-memory", "lots")
    check(rc == 2 and "--max-memory" in se, f"conformance --max-memory lots: exit {rc}: {se!r}")


def diagonals(binary, tmp):
    a = os.path.join(tmp, "row.npy")
    np.save(a, np.arange(1.0, 4.0).reshape(1, 3))
    out = os.path.join(tmp, "diag.npy")
    rc, _, se = run(binary, "einsum", "ii->i", a, "-o", out)
    check(rc != 0 and "axes 0 and 1" in se and "(1 and 3)" in se and not os.path.exists(out),
          f"ii->i on (1, 3): exit {rc}: {se!r}")
    sq, one = os.path.join(tmp, "sq.npy"), os.path.join(tmp, "one.npy")
    m = np.arange(1.0, 10.0).reshape(3, 3)
    np.save(sq, m)
    np.save(one, np.array([2.5]))
    rc, _, se = run(binary, "einsum", "ii,i->i", sq, one, "-o", out)
    check(rc == 0 and np.array_equal(np.load(out), np.einsum("ii,i->i", m, np.array([2.5]))),
          f"ii,i->i on (3, 3) and (1,): exit {rc}: {se!r}")


def writes(binary, tmp):
    d = os.path.join(tmp, "writes")
    os.mkdir(d)
    a = os.path.join(tmp, "big-in.npy")
    rng = np.random.default_rng(7)
    x = rng.standard_normal((4096, 4096))
    np.save(a, x)
    out = os.path.join(d, "t.npy")

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))

    rc, _, se = run(binary, "einsum", "ij->ji", a, "-o", out, "--path", "greedy",
                    preexec_fn=limit)
    check(rc == 1 and "File too large" in se, f"file-size limit: exit {rc}: {se!r}")
    check(not os.path.exists(out) and not leftovers(d),
          f"file-size limit: left {os.listdir(d)}")
    # --save-inputs and --save-path under the same limit: same promise.
    inst = os.path.join(tmp, "inst-f64.json")
    rc, _, se = run(binary, "contract", inst, "--path", "greedy", "--save-path",
                    os.path.join(d, "p.json"), "--save-inputs", d, preexec_fn=limit)
    check(rc == 0 and not leftovers(d), f"small writes under the limit: exit {rc}: {se!r}")

    # SIGTERM at spread-out moments of a run whose write is a good part of
    # it: never a temporary file, never a partial output.
    want = x.T
    t0 = time.monotonic()
    rc, _, se = run(binary, "einsum", "ij->ji", a, "-o", out, "--path", "greedy", "-q")
    full = time.monotonic() - t0
    check(rc == 0 and np.array_equal(np.load(out), want), f"the 128 MiB transpose: exit {rc}: {se}")
    held = 0
    for k in range(12):
        if os.path.exists(out):
            os.remove(out)
        p = subprocess.Popen([binary, "einsum", "ij->ji", a, "-o", out, "--path", "greedy", "-q"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(full * (0.3 + 0.06 * k))
        p.send_signal(signal.SIGTERM)
        rc = p.wait(timeout=600)
        check(not leftovers(d), f"SIGTERM trial {k}: left {leftovers(d)}")
        if os.path.exists(out):
            check(np.array_equal(np.load(out), want), f"SIGTERM trial {k}: a partial output")
            held += rc == -signal.SIGTERM
        check(rc in (0, -signal.SIGTERM), f"SIGTERM trial {k}: exit {rc}")
    print(f"SIGTERM: {held} of 12 trials arrived while the output was written (held, then ended)")


def later_findings(binary, tmp):
    """A second attack (a fresh user's): --save-path replaced FIFOs and
    symbolic links with a regular file and forced mode 0644; an instance of
    200000 shapes was read in quadratic time."""
    d = os.path.join(tmp, "later")
    os.mkdir(d)
    a, b = os.path.join(d, "a.npy"), os.path.join(d, "b.npy")
    np.save(a, np.ones((2, 3)))
    np.save(b, np.ones((3, 4)))
    out = os.path.join(d, "out.npy")
    fifo, link = os.path.join(d, "fifo"), os.path.join(d, "link")
    os.mkfifo(fifo)
    os.symlink(os.path.join(d, "target.json"), link)
    for target, kind in ((fifo, "a FIFO"), (link, "a symbolic link")):
        rc, _, se = run(binary, "einsum", "ij,jk->ik", a, b, "-o", out, "--save-path", target,
                        "-q")
        check(rc != 0 and "not a regular file" in se, f"--save-path to {kind}: exit {rc}: {se!r}")
        check(not os.path.isfile(target) or os.path.islink(target),
              f"--save-path to {kind}: replaced by a regular file")
    check(not os.path.exists(os.path.join(d, "target.json")), "--save-path followed the link")
    priv = os.path.join(d, "priv.json")
    open(priv, "w").write("{}")
    os.chmod(priv, 0o600)
    rc, _, se = run(binary, "einsum", "ij,jk->ik", a, b, "-o", out, "--save-path", priv, "-q")
    check(rc == 0 and (os.stat(priv).st_mode & 0o777) == 0o600 and
          json.load(open(priv)).get("path") == [[0, 1]],
          f"--save-path over a 0600 file: exit {rc}, mode {oct(os.stat(priv).st_mode & 0o777)}: {se}")
    fresh = os.path.join(d, "fresh.json")
    rc, _, se = run(binary, "einsum", "ij,jk->ik", a, b, "-o", out, "--save-path", fresh, "-q",
                    preexec_fn=lambda: os.umask(0o077))
    check(rc == 0 and (os.stat(fresh).st_mode & 0o777) == 0o600,
          f"--save-path under umask 077: exit {rc}, mode {oct(os.stat(fresh).st_mode & 0o777)}")
    many = os.path.join(d, "many.json")
    json.dump({"format_string": "i->", "shapes": [[1]] * 200000, "dtype": "f64"}, open(many, "w"))
    rc, _, se = run(binary, "contract", many, "--path", "greedy", timeout=300)
    check(rc != 0 and "200000" in se, f"200000 shapes for one term: exit {rc}: {se!r}")
    lying = os.path.join(d, "lying.json")
    json.dump({"format_string": "ij,jk->ik", "shapes": [[2, 3], [3, 4]], "dtype": "f64",
               "paths": {"opt_flops": {"path": [[0, 1]] * 200000}}}, open(lying, "w"))
    rc, _, se = run(binary, "contract", lying, "--path", "opt_flops", timeout=300)
    check(rc != 0 and "200000 steps" in se, f"a stored path of 200000 steps: exit {rc}: {se!r}")


def peak_rss_kib(binary, *args):
    """Runs the tool in a fresh child and returns (exit, stdout and stderr,
    its peak RSS in KiB): the children's maximum of this process would include earlier
    runs."""
    code = ("import resource, subprocess, sys\n"
            "p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
            "sys.stderr.write(p.stdout + p.stderr)\n"
            "print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
    p = subprocess.run([sys.executable, "-c", code, binary, *args], capture_output=True,
                       text=True, timeout=600)
    rc, rss = p.stdout.split()[-2:]
    return int(rc), p.stderr, int(rss)


def third_findings(binary, tmp):
    """A third attack: a run failing late (-o into a missing folder) had
    already written --save-inputs and --save-path; a NUL inside an instance's
    string was read up to the NUL; einsum read its .npy operands whole
    before the memory check; --max-memory took 0x10 and 1e-300 and refused
    1GB; a missing conformance path gave two messages."""
    d = os.path.join(tmp, "third")
    os.mkdir(d)
    inst = os.path.join(d, "inst.json")
    json.dump({"format_string": "ab,bc->ac", "shapes": [[2, 3], [3, 4]], "dtype": "f64"},
              open(inst, "w"))
    a, b = os.path.join(d, "a.npy"), os.path.join(d, "b.npy")
    np.save(a, np.ones((2, 3)))
    np.save(b, np.ones((3, 4)))
    os.mkdir(os.path.join(d, "folder"))
    os.mkfifo(os.path.join(d, "fifo"))
    saved, spath = os.path.join(d, "saved"), os.path.join(d, "p.json")
    out = os.path.join(d, "out.npy")
    files = [(os.path.join(d, "none", "out.npy"), "No such file"),
             (os.path.join(d, "folder"), "not a regular file"),
             (os.path.join(d, "folder") + "/", "names a folder"),
             (os.path.join(d, "fifo"), "not a regular file"),
             (os.path.join(a, "out.npy"), "Not a directory")]
    folders = [(os.path.join(d, "none", "saved"), "No such file"),
               (os.path.join(d, "fifo"), "is not a folder"),
               (a, "is not a folder")]
    runs = []
    for target, why in files:
        runs += [(["contract", inst, "--save-inputs", saved, "--save-path", spath, "-o", target],
                  why),
                 (["contract", inst, "--save-inputs", saved, "--save-path", target, "-o", out],
                  why),
                 (["einsum", "ab,bc->ac", a, b, "--save-path", spath, "-o", target], why),
                 (["einsum", "ab,bc->ac", a, b, "--save-path", target, "-o", out], why)]
    for target, why in folders:
        runs.append((["contract", inst, "--save-inputs", target, "--save-path", spath, "-o", out],
                     why))
    for args, why in runs:
        rc, _, se = run(binary, *args, "--path", "greedy", "-q")
        check(rc == 1 and why in se and se.count("\n") == 1,
              f"{args[0]} {args[-4:]}: exit {rc}: {se!r}")
        left = sorted(set(os.listdir(d)) - {"inst.json", "a.npy", "b.npy", "folder", "fifo"})
        check(not left and not os.listdir(os.path.join(d, "folder")),
              f"{args[0]} {args[-4:]}: left {left}")
    # --save-inputs into a folder whose entries cannot be replaced.
    os.mkdir(saved)
    os.mkdir(os.path.join(saved, "operand_001.npy"))
    rc, _, se = run(binary, "contract", inst, "--save-inputs", saved, "-q")
    check(rc == 1 and "operand_001.npy" in se and os.listdir(saved) == ["operand_001.npy"],
          f"--save-inputs over a folder entry: exit {rc}: {se!r}, {os.listdir(saved)}")
    os.rmdir(os.path.join(saved, "operand_001.npy"))
    os.rmdir(saved)
    # A run that fails after planning (operands of two dtypes) writes nothing.
    np.save(os.path.join(d, "b32.npy"), np.ones((3, 4), dtype=np.float32))
    rc, _, se = run(binary, "einsum", "ab,bc->ac", a, os.path.join(d, "b32.npy"), "--save-path",
                    spath, "-o", out, "-q")
    check(rc == 1 and not os.path.exists(spath) and not os.path.exists(out),
          f"einsum failing after planning: exit {rc}, left {os.listdir(d)}: {se!r}")
    os.remove(os.path.join(d, "b32.npy"))
    # --plan-only still writes --save-path.
    rc, _, se = run(binary, "contract", inst, "--plan-only", "--save-path", spath)
    check(rc == 0 and json.load(open(spath)).get("path") == [[0, 1]],
          f"--plan-only --save-path: exit {rc}: {se!r}")
    os.remove(spath)

    # NUL in a string, and repeated keys: refused, naming the field.
    for text, why in (('{"format_string": "ab\\u0000->a", "shapes": [[2, 3]], "dtype": "f64"}',
                       'the value of "format_string" holds a NUL'),
                      ('{"format_string": "ab->a", "shapes": [[2, 3]], "dtype": "f\\u000064"}',
                       'the value of "dtype" holds a NUL'),
                      ('{"format_string": "ab->a", "shapes": [[2, 3]], "dtype": "f64", '
                       '"dtype": "i8"}', 'the key "dtype" appears twice')):
        bad = os.path.join(d, "bad.json")
        open(bad, "w").write(text)
        rc, _, se = run(binary, "contract", bad, "--plan-only")
        check(rc == 1 and why in se, f"instance {text}: exit {rc}: {se!r}")
    # An escaped backslash before u0000 is no NUL.
    open(os.path.join(d, "bs.json"), "w").write(
        '{"format_string": "ab\\\\u0000->a", "shapes": [[2, 3]], "dtype": "f64"}')
    rc, _, se = run(binary, "contract", os.path.join(d, "bs.json"), "--plan-only")
    check(rc == 1 and "NUL" not in se and "label" in se, f"escaped backslash: exit {rc}: {se!r}")
    pf = os.path.join(d, "pf.json")
    open(pf, "w").write('{"path": [[0, 1]], "subscripts": "ab,bc->ac\\u0000x"}')
    rc, _, se = run(binary, "einsum", "ab,bc->ac", a, b, "-o", os.path.join(d, "out.npy"),
                    "--path-file", pf)
    check(rc == 1 and 'the value of "subscripts" holds a NUL' in se,
          f"path file with a NUL: exit {rc}: {se!r}")
    cases = os.path.join(d, "nul.jsonl")
    open(cases, "w").write('{"name": "n", "source_op": "add", "inputs": [], "program": [], '
                           '"output": 0, "check": "e\\u0000q"}\n')
    rc, so, se = run(binary, "conformance", cases, "-v")
    check(rc == 1 and 'the value of "check" holds a NUL' in so + se,
          f"conformance line with a NUL: exit {rc}: {so}{se}")
    for f in ("bad.json", "bs.json", "pf.json", "nul.jsonl", "out.npy"):
        if os.path.exists(os.path.join(d, f)):
            os.remove(os.path.join(d, f))

    # einsum plans from the .npy headers: a 1 GiB operand (a sparse file)
    # refused under --max-memory 100M is never read.
    big = os.path.join(d, "big.npy")
    with open(big, "wb") as f:
        np.lib.format.write_array_header_1_0(
            f, {"descr": "<f8", "fortran_order": False, "shape": (2 ** 14, 2 ** 13)})
        off = f.tell()
    os.truncate(big, off + 2 ** 30)
    rc, se, rss = peak_rss_kib(binary, "einsum", "ij->i", big, "-o", os.path.join(d, "o.npy"),
                               "--max-memory", "100M")
    check(rc == 1 and "the operands and the output alone" in se and rss < 100 * 1024,
          f"einsum on a 1 GiB .npy under 100M: exit {rc}, peak RSS {rss} KiB: {se!r}")
    os.remove(big)

    # --max-memory: binary units with or without B / iB; no hex, no sign,
    # nothing below one byte.
    for v in ("1GB", "1GiB", "1G", "512m", "1e9", "4096"):
        rc, _, se = run(binary, "einsum", "ab,bc->ac", a, b, "-o", out, "--max-memory", v)
        check(rc == 0, f"--max-memory {v}: exit {rc}: {se!r}")
    for v in ("0x10", "1e-300", "0.5", "inf", "nan", "-5", "1Gb", "3Q", "1 G", ""):
        for cmd in (["einsum", "ab,bc->ac", a, b, "-o", out], ["conformance", d]):
            rc, _, se = run(binary, *cmd, "--max-memory", v)
            check(rc == 2 and f"--max-memory '{v}' is not a number of bytes" in se,
                  f"{cmd[0]} --max-memory {v!r}: exit {rc}: {se!r}")
    # The default budget is named as such, not as --max-memory.
    huge = {"name": "huge", "source_op": "iota", "inputs": [],
            "program": [{"op": "iota", "operands": [], "iota_dimension": 0,
                         "result": {"dtype": "u8", "shape": [2 ** 50]}},
                        {"op": "slice", "operands": [0], "result": {"dtype": "u8", "shape": [1]},
                         "start_indices": [0], "limit_indices": [1], "strides": [1]}],
            "output": 1, "check": "eq", "expected": {"dtype": "u8", "shape": [1], "hex": "00"}}
    open(cases, "w").write(json.dumps(huge) + "\n")
    rc, so, _ = run(binary, "conformance", cases, "-v")
    check(rc == 1 and "more than the default budget (half of available memory)" in so,
          f"conformance over the default budget: exit {rc}: {so}")
    # Conformance cases whose attributes imply a larger result than they
    # declare: refused from the library's `_shape` form before the op runs
    # (a pad of 2^30 declared as one element allocated 4 GiB; an outer
    # product of two 2^14 vectors 1 GiB, a concatenation of one 8 MiB
    # operand with itself 64 times 512 MiB).
    f32 = {"dtype": "f32", "shape": [1], "hex": "0000803f"}
    vec = {"dtype": "f32", "shape": [2 ** 14], "hex": "00" * 4 * 2 ** 14}
    big = {"dtype": "u8", "shape": [2 ** 23], "hex": "00" * 2 ** 23}
    implied = [
        ("pad_2e30", [f32, {"dtype": "f32", "shape": [], "hex": "00000000"}],
         {"op": "pad", "operands": [0, 1], "edge_padding_low": [2 ** 30],
          "edge_padding_high": [0], "interior_padding": [0]}, f32),
        ("outer_2e28", [vec, vec],
         {"op": "dot_general", "operands": [0, 1], "lhs_batching_dims": [],
          "rhs_batching_dims": [], "lhs_contracting_dims": [], "rhs_contracting_dims": []},
         {"dtype": "f32", "shape": [2 ** 14], "hex": "00" * 4 * 2 ** 14}),
        ("concat_64", [big], {"op": "concatenate", "operands": [0] * 64, "dimension": 0}, big),
    ]
    for name, inputs, op, result in implied:
        case = {"name": name, "source_op": op["op"], "inputs": inputs,
                "program": [{**op, "result": {"dtype": result["dtype"], "shape": result["shape"]}}],
                "output": len(inputs), "check": "eq", "expected": result}
        open(cases, "w").write(json.dumps(case) + "\n")
        rc, so, rss = peak_rss_kib(binary, "conformance", cases, "-v", "--max-memory", "1G")
        check(rc == 1 and "refused before it is computed" in so and rss < 200 * 1024,
              f"conformance {name}: exit {rc}, peak RSS {rss} KiB")
    # reduce_window with a base dilation holds its padded, dilated operand
    # while it runs: 4 f32 elements dilated by 2^26 (805 MB) for a 4-element
    # result are refused under --max-memory 64M before the op runs (found by
    # fuzz_conformance: 6 GiB under its 16 MiB budget).
    four = {"dtype": "f32", "shape": [4], "hex": "0000803f" * 4}
    case = {"name": "reduce_window_dilated", "source_op": "reduce_window_add", "inputs": [four],
            "program": [
                {"op": "constant", "operands": [], "result": {"dtype": "f32", "shape": []},
                 "value": {"dtype": "f32", "shape": [], "hex": "00000000"}},
                {"op": "reduce_window", "operands": [0, 1], "result": {"dtype": "f32", "shape": [4]},
                 "window_dimensions": [1], "window_strides": [2 ** 26],
                 "base_dilations": [2 ** 26], "window_dilations": [1], "padding": [[0, 0]],
                 "reducer": "add"}],
            "output": 2, "check": "eq", "expected": four}
    open(cases, "w").write(json.dumps(case) + "\n")
    rc, so, rss = peak_rss_kib(binary, "conformance", cases, "-v", "--max-memory", "64M")
    check(rc == 1 and "reduce_window's padded operand" in so and rss < 200 * 1024,
          f"conformance reduce_window's padded operand: exit {rc}, peak RSS {rss} KiB: {so}")
    # A missing conformance path: one line, nothing on stdout.
    rc, so, se = run(binary, "conformance", os.path.join(d, "missing.jsonl"))
    check(rc == 2 and se.count("\n") == 1 and "No such file" in se and so == "",
          f"conformance on a missing path: exit {rc}: {so!r} {se!r}")


def main():
    binary = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        every_dtype(binary, tmp)
        fifos(binary, tmp)
        memory(binary, tmp)
        diagonals(binary, tmp)
        writes(binary, tmp)
        later_findings(binary, tmp)
        third_findings(binary, tmp)
    if FAILURES:
        print(f"{len(FAILURES)} check(s) failed")
        return 1
    print("all attack regressions passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
