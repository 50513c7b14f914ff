"""The op registry (src/core/op_registry.def) for the reference generators.

Each X(...) row of the .def gives an op's name, family, dtype group and result
rule; read() returns them with the group as a list of dtype names, in the order
the generators write their cases (their random streams depend on it). Only the
standard library is used.
"""

import os
import re
import sys

SINT = ["i8", "i16", "i32", "i64"]
UINT = ["u8", "u16", "u32", "u64"]
INT = SINT + UINT
F3264 = ["f32", "f64"]
HALF = ["f16", "bf16"]
FLOAT = F3264 + HALF
CPLX = ["c64", "c128"]
FC = FLOAT + CPLX
NUM = INT + FC
ALL = ["bool"] + NUM

# The DTYPES column's groups (TFR_DTG_* in src/core/op_registry.h).
GROUPS = {"BOOL": ["bool"], "INT": INT, "SIGNED": SINT + FC, "FLOAT": FLOAT, "F32_F64": F3264,
          "FC": FC, "IF": INT + FLOAT, "BI": ["bool"] + INT, "BIF": ["bool"] + INT + FLOAT,
          "NUMERIC": NUM, "ALL": ALL}

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "src",
                    "core", "op_registry.def")


def read(path=PATH):
    """name -> (FAMILY, dtype list, result rule in lower case) of every row."""
    row = re.compile(r'^X\((\w+), "([^"]+)", (\w+), (\w+), (-?\d+), (\w+), (\w+),')
    reg = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = row.match(line)
            if m:
                reg[m.group(2)] = (m.group(3), GROUPS[m.group(6)], m.group(7).lower())
    if not reg:
        sys.exit(f"op_registry.py: no op rows in {path}")
    return reg


def dtypes_of(reg, name, among):
    """The dtypes of op `name` that are in `among`, in registry order."""
    return [d for d in reg[name][1] if d in among]
