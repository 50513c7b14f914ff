#!/usr/bin/env python3
"""Checks the register-machine tables of src/webgpu/kernels/common/math_f64.wgsl.

The program table TFR_M64_PROG and its segment constants are numbered by hand
(a segment is vec2<u32>(first row, row past the end)). This script reads the
file and checks, without a device:

  * the declared sizes of TFR_M64_PROG and TFR_M64_K match their rows;
  * every segment heading in the table ("// N-M NAME: ...") starts at row N
    and ends at row M, just before the next heading;
  * every segment constant TFR_M64_<NAME> = vec2<u32>(a, b) starts at a
    heading's first row and ends just past a heading's last row (a constant
    named like a heading spans exactly that heading);
  * every instruction writes a register 0-15, has a known opcode (0-7) and
    reads registers 0-15 or entries of TFR_M64_K (16 and up); a Horner
    instruction (op 5) runs over K entries that exist.

usage: check_math_f64_prog.py [math_f64.wgsl]   (exit 0 when all hold)
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT = os.path.join(HERE, "..", "src", "webgpu", "kernels", "common", "math_f64.wgsl")


def table(src, name, elem):
    m = re.search(r"const %s = array<%s, (\d+)>\(\n(.*?)\n\);" % (name, re.escape(elem)), src, re.S)
    if not m:
        raise SystemExit("check_math_f64_prog: no table %s" % name)
    return int(m.group(1)), m.group(2).split("\n")


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else DEFAULT
    src = open(path, encoding="utf-8").read()
    errors = []
    ksize, klines = table(src, "TFR_M64_K", "vec2<u32>")
    krows = sum(1 for l in klines if "vec2<u32>(" in l)
    if krows != ksize:
        errors.append("TFR_M64_K declares %d entries, has %d" % (ksize, krows))
    psize, plines = table(src, "TFR_M64_PROG", "vec4<u32>")
    rows, heads = [], []
    for line in plines:
        h = re.match(r"\s*// (\d+)(?:-(\d+))? ([A-Z0-9_]+)\b", line)
        if h:
            first, last = int(h.group(1)), int(h.group(2) or h.group(1))
            heads.append((h.group(3), first, last, len(rows)))
        m = re.search(r"vec4<u32>\((\w+)u, (\w+)u, (\w+)u, (\w+)u\)", line)
        if m:
            rows.append(tuple(int(v, 0) for v in m.groups()))
    if len(rows) != psize:
        errors.append("TFR_M64_PROG declares %d rows, has %d" % (psize, len(rows)))
    spans = {}
    for i, (name, first, last, at) in enumerate(heads):
        end = heads[i + 1][3] if i + 1 < len(heads) else len(rows)
        if first != at or last != end - 1:
            errors.append("heading %s says rows %d-%d, is at rows %d-%d" % (name, first, last, at,
                                                                          end - 1))
        spans[name] = (at, end)
    starts = {a for a, _ in spans.values()}
    ends = {b for _, b in spans.values()}
    for m in re.finditer(r"const TFR_M64_(\w+) = vec2<u32>\((\d+)u, (\d+)u\);", src):
        name, a, b = m.group(1), int(m.group(2)), int(m.group(3))
        if name == "NONE" or not name.isupper():
            continue
        if name in spans:
            if (a, b) != spans[name]:
                errors.append("TFR_M64_%s = (%d, %d), its heading spans (%d, %d)" %
                              ((name, a, b) + spans[name]))
        elif a not in starts or b not in ends or a >= b:
            # constants that are not segments (exp thresholds and the like)
            # are bit patterns, far larger than the table
            if a < len(rows) and b <= len(rows):
                errors.append("TFR_M64_%s = (%d, %d) does not start and end at headings" %
                              (name, a, b))
    kend = 16 + ksize
    for i, (x, a, b, c) in enumerate(rows):
        op, dst = x >> 8, x & 0xFF
        if dst > 15 or op > 7:
            errors.append("row %d: destination %d or opcode %d out of range" % (i, dst, op))
        reads = [a, b] if op == 5 else [a, b, c]
        for r in reads:
            if r >= kend:
                errors.append("row %d reads operand %d, past TFR_M64_K (16-%d)" % (i, r, kend - 1))
        if op == 7 and c > 15:
            errors.append("row %d: op 7 zeroes operand %d, not a register" % (i, c))
        if op == 5 and not (16 <= a < c < kend):
            errors.append("row %d: Horner over K entries %d..%d" % (i, a, c))
    for e in errors:
        print("check_math_f64_prog: %s: %s" % (os.path.relpath(path), e))
    print("check_math_f64_prog: %d rows, %d segments, %d K entries: %s" %
          (len(rows), len(heads), ksize, "FAILED" if errors else "ok"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
