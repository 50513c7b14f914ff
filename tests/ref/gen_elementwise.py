#!/usr/bin/env python3
"""Reference data for tests/unit/test_cpu_elementwise.c.

Usage: gen_elementwise.py OUTDIR. Writes OUTDIR/elementwise/data.bin (every
case's arrays, raw little-endian, bool as one byte 0/1) and
OUTDIR/elementwise/manifest.txt, one case per line:

    name kind op dtype out_dtype n tol offset

kind is unary, binary, compare, select or clamp; op the StableHLO name (the
comparison direction for compare, "-" for select and clamp); dtype the
operands' dtype (on_true's for select, whose pred is bool); n the element
count; tol "exact", "ulpN" (real: at most N ulp) or "cplxN" (complex: each
part within N ulp, or within N eps of the larger part); offset the byte
offset in data.bin of the inputs, one after another, then the expected
output.

Expected values come from numpy and the Python standard library, computed in
a wider type than the one tested (float32 in float64, float64 in the x87
long double, complex likewise) and rounded, so that a correctly rounded
result is at most 1 ulp from them. Integer rules (wrapping, division by
zero, shifts) are written out here with Python integers, independently of
the C code. Only numpy and the standard library are used.
"""

import math
import os
import sys

import numpy as np

import op_registry

SEED = 20240611
N_RANDOM = 255  # odd, = 15 * 17: the C test also views it as a 2-D array

# bf16 (no numpy dtype) is held as its uint16 bit patterns: its references
# are computed on the values in f64 (long double inside) and rounded once to
# bf16 by bf16_from_f64 (frexp/rint, ties to even).
NP = {"bool": np.uint8, "i32": np.int32, "i64": np.int64, "f32": np.float32,
      "f64": np.float64, "c64": np.complex64, "c128": np.complex128, "i8": np.int8,
      "i16": np.int16, "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
      "f16": np.float16, "bf16": np.uint16}
# The wider type a reference is computed in.
WIDE = {"f16": np.float64, "f32": np.float64, "f64": np.longdouble, "c64": np.complex128,
        "c128": np.clongdouble}
REAL_OF = {"f16": "f16", "bf16": "bf16", "f32": "f32", "f64": "f64", "c64": "f32",
           "c128": "f64"}
COMPLEX_OF = {"f32": "c64", "f64": "c128"}
BITS = {"i8": 8, "i16": 16, "i32": 32, "i64": 64, "u8": 8, "u16": 16, "u32": 32, "u64": 64}

from op_registry import ALL, CPLX, F3264, FC, FLOAT, HALF, INT, NUM, SINT, UINT  # noqa: E402,F401


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------

def wrap(v, bits):
    """Python int -> two's complement value of `bits` bits."""
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def per_int(fn, dt):
    """Elementwise Python-int function over integer arrays; the result keeps
    the low bits of the dtype (wraps, signed or unsigned)."""
    bits = BITS[dt]

    def run(*arrs):
        out = [fn(*(int(v) for v in vals), bits) % (1 << bits) for vals in zip(*arrs)]
        return np.array(out, dtype=np.uint64).astype(NP[dt])
    return run


BF16_MAX = (2 - 2.0 ** -7) * 2.0 ** 127


def bf16_from_f64(x):
    """float64 values -> bf16 bit patterns, rounded once to nearest even (rint)
    with bf16's subnormals, overflow to inf and NaN kept NaN."""
    x = np.asarray(x, dtype=np.float64)
    a = np.abs(x)
    with np.errstate(all="ignore"):
        _, e = np.frexp(a)
        q = np.maximum(e - 1, -126) - 7  # the quantum's exponent
        r = np.ldexp(np.rint(np.ldexp(a, -q)), q)
        r = np.where(np.isfinite(a) & (r > BF16_MAX), np.inf, r)
        r = np.where(np.isfinite(a), r, a)
    bits = (r.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    bits = np.where(np.isnan(x), np.uint16(0x7fc0), bits)
    return (bits | np.where(np.signbit(x), np.uint16(0x8000), np.uint16(0))).astype(np.uint16)


def bf16_to_f64(b):
    with np.errstate(invalid="ignore"):  # NaN patterns
        return (np.asarray(b, dtype=np.uint16).astype(np.uint32) << 16).view(
            np.float32).astype(np.float64)


# Every bf16 value but NaN (one zero), ascending: next_after's reference.
_BF16_ALL = np.unique(bf16_to_f64(np.arange(0x10000, dtype=np.uint16)))
_BF16_ALL = _BF16_ALL[~np.isnan(_BF16_ALL)]


def bf16_nextafter(a, b):
    """The neighbour of a toward b in the sorted list of bf16 values; a zero
    result keeps a's sign (IEEE nextafter), a == b gives b."""
    x, y = bf16_to_f64(a), bf16_to_f64(b)
    out = np.empty(len(x), dtype=np.uint16)
    for k, (xv, yv) in enumerate(zip(x, y)):
        if math.isnan(xv) or math.isnan(yv) or xv == yv:
            out[k] = (a if math.isnan(xv) else b)[k]
            continue
        i = np.searchsorted(_BF16_ALL, xv)
        if yv > xv:
            v = _BF16_ALL[i + 1] if _BF16_ALL[i] == xv else _BF16_ALL[i]
        else:
            v = _BF16_ALL[i - 1]
        if v == 0:
            v = math.copysign(0.0, xv)
        out[k] = bf16_from_f64(np.array([v]))[0]
    return out


def wide(fn, out_dt=None):
    """Reference computed in the wider type, rounded to out_dt (default the input's)."""
    def run(dt, *arrs):
        with np.errstate(all="ignore"):
            r = fn(*(a.astype(WIDE[dt]) for a in arrs))
        return np.asarray(r).astype(NP[out_dt or dt])
    return run


def same(fn, out_dt=None):
    def run(dt, *arrs):
        with np.errstate(all="ignore"):
            r = fn(*arrs)
        return np.asarray(r).astype(NP[out_dt or dt])
    return run


def per_elem(fn):
    """fn on scalars of the wide type, element by element (complex ops)."""
    def run(dt, *arrs):
        w = [a.astype(WIDE[dt]) for a in arrs]
        with np.errstate(all="ignore"):
            r = [fn(*vals) for vals in zip(*w)]
        return np.array(r, dtype=WIDE[dt]).astype(NP[dt])
    return run


# ---------------------------------------------------------------------------
# Reference semantics (ops.h), written independently of the C code
# ---------------------------------------------------------------------------

def int_divide(a, b, bits):
    if b == 0:
        return -1
    q = abs(a) // abs(b)
    return wrap(-q if (a < 0) != (b < 0) else q, bits)


def int_remainder(a, b, bits):
    if b == 0:
        return a
    r = abs(a) % abs(b)
    return wrap(-r if a < 0 else r, bits)


def int_power(a, b, bits):
    if b < 0:
        if a == 1:
            return 1
        if a == -1:
            return -1 if b % 2 else 1
        return 0
    return wrap(pow(a, b, 1 << bits), bits)


def shift_count(b, bits):
    return b & ((1 << bits) - 1)  # read as unsigned


def shl(a, b, bits):
    n = shift_count(b, bits)
    return 0 if n >= bits else wrap(a << n, bits)


def shr_logical(a, b, bits):
    n = shift_count(b, bits)
    return 0 if n >= bits else wrap((a & ((1 << bits) - 1)) >> n, bits)


def shr_arith(a, b, bits):
    a = wrap(a, bits)  # the pattern's top bit is the sign, unsigned dtypes too
    n = shift_count(b, bits)
    if n >= bits:
        return -1 if a < 0 else 0
    return a >> n  # Python's >> floors: the arithmetic shift


def popcnt(a, bits):
    return bin(a & ((1 << bits) - 1)).count("1")


def float_sign(x):
    return np.where(np.isnan(x), x, np.where(x > 0, 1, np.where(x < 0, -1, x))).astype(x.dtype)


def round_afz(x):
    t = np.trunc(x)
    r = np.where(np.abs(x - t) >= 0.5, t + np.sign(x), t)
    return np.copysign(r, x)


def ieee_max(a, b):
    # numpy propagates NaN; the sign of equal zeros follows IEEE 754-2019.
    r = np.maximum(a, b)
    zeros = (a == 0) & (b == 0)
    both_neg = np.signbit(a) & np.signbit(b)
    return np.where(zeros, np.where(both_neg, -0.0, 0.0).astype(a.dtype), r)


def ieee_min(a, b):
    r = np.minimum(a, b)
    zeros = (a == 0) & (b == 0)
    any_neg = np.signbit(a) | np.signbit(b)
    return np.where(zeros, np.where(any_neg, -0.0, 0.0).astype(a.dtype), r)


def cplx_has_nan(z):
    return math.isnan(z.real) or math.isnan(z.imag)


def cplx_max(a, b):
    if cplx_has_nan(a):
        return a
    if cplx_has_nan(b):
        return b
    return a if (a.real, a.imag) >= (b.real, b.imag) else b


def cplx_min(a, b):
    if cplx_has_nan(a):
        return a
    if cplx_has_nan(b):
        return b
    return a if (a.real, a.imag) <= (b.real, b.imag) else b


def cplx_sign(z):
    x, y = z.real, z.imag
    if math.isnan(x) or math.isnan(y):
        return complex(math.nan, math.nan)
    if math.isinf(x) or math.isinf(y):
        x = math.copysign(1.0 if math.isinf(x) else 0.0, x)
        y = math.copysign(1.0 if math.isinf(y) else 0.0, y)
        z = np.clongdouble(complex(x, y))
    if x == 0 and y == 0:
        return z
    h = np.hypot(np.longdouble(x), np.longdouble(y))
    return complex(float(np.longdouble(x) / h), float(np.longdouble(y) / h))


def cplx_log1p(z):
    # Accurate log(1 + z) in the wide type: numpy's complex log1p forms 1 + z.
    x, y = z.real, z.imag
    re = 0.5 * np.log1p(x * (2 + x) + y * y)
    return re + 1j * np.arctan2(y, 1 + x)


def one_plus(w):
    # 1 + w keeping the sign of a zero imaginary part (numpy's 1 + w adds +0j).
    r = np.empty_like(w)
    r.real = 1 + w.real
    r.imag = w.imag
    return r


def cplx_log1p_ref(dt, a):
    w = a.astype(WIDE[dt])
    small = (np.abs(w.real) < 0.5) & (np.abs(w.imag) < 0.5)
    return np.where(small, cplx_log1p(w), np.log(one_plus(w))).astype(NP[dt])


def cplx_expm1_ref(dt, a):
    # numpy's complex expm1 for finite arguments; for the others exp(z) - 1,
    # whose special values (C99 Annex G, through the long double cexpl) are
    # the limits: expm1(+inf + 0i) = +inf + 0i, not numpy's inf * 0 = NaN.
    w = a.astype(WIDE[dt])
    e = np.exp(w)
    direct = np.empty_like(w)
    direct.real = e.real - 1
    direct.imag = e.imag
    return np.where(np.isfinite(w), np.expm1(w), direct).astype(NP[dt])


def cplx_recip(w):
    # 1 / w with C99's value at infinity (0), where numpy's division gives NaN.
    r = 1 / w
    return np.where(np.isinf(w), 0, r)


def cplx_logistic_ref(dt, a):
    # exp only of arguments with non-positive real part, so that the limits
    # at Re z = +-inf come out as 1 and 0 rather than inf / inf = NaN.
    w = a.astype(WIDE[dt])
    neg = w.real < 0
    e = np.exp(np.where(neg, w, -w))
    r = np.where(neg, e * cplx_recip(one_plus(e)), cplx_recip(one_plus(e)))
    return r.astype(NP[dt])


def cplx_power(a, b):
    if b == 0:
        return np.clongdouble(1)
    if a == 0 and b.real > 0:
        return np.clongdouble(0)
    return np.power(a, b)


def cplx_atan2(y, x):
    # -i log((x + iy) / sqrt(x^2 + y^2)); x^2 + y^2 as a sum of products that
    # does not cancel to noise near x = +-iy (numpy's x * x + y * y does, even
    # in long double).
    xr, xi, yr, yi = x.real, x.imag, y.real, y.imag
    s = np.empty_like(x)
    s.real = (xr - yi) * (xr + yi) + (yr - xi) * (yr + xi)
    s.imag = 2 * (xr * xi + yr * yi)
    u = np.empty_like(x)
    u.real = xr - yi
    u.imag = xi + yr
    return -1j * np.log(u / np.sqrt(s))


def real_logistic(x):
    return 1 / (1 + np.exp(-x))


def erf_ref(fn):
    def run(dt, a):
        return np.array([fn(float(v)) for v in a], dtype=np.float64).astype(NP[dt])
    return run


def imag_of_real(dt, a):
    return np.zeros_like(a)


# ---------------------------------------------------------------------------
# Op tables: name -> (dtypes, result rule, reference, tolerance, input range)
# ---------------------------------------------------------------------------

# Tolerances by dtype group.
EXACT = {d: "exact" for d in ALL}
# f16/bf16: the f32 function's result rounded once lands within 1 ulp of the
# correctly rounded value.
TRANS = {"f16": "ulp1", "bf16": "ulp1", "f32": "ulp1", "f64": "ulp1", "c64": "cplx4",
         "c128": "cplx4"}


def libm(f32, f64):
    """Real functions whose libm (glibc 2.36) result is off by more than 1 ulp:
    the largest error measured over 2e6 arguments against the long double
    function. Newer glibc releases are more accurate."""
    return {**TRANS, "f32": f"ulp{f32}", "f64": f"ulp{f64}"}


def ref_by_group(int_ref=None, float_ref=None, cplx_ref=None, bool_ref=None):
    def run(dt, *arrs):
        if dt == "bool":
            return bool_ref(dt, *arrs)
        if dt in INT:
            return int_ref(dt, *arrs)
        if dt in FLOAT:
            return float_ref(dt, *arrs)
        return cplx_ref(dt, *arrs)
    return run


def ints(fn):
    return lambda dt, *arrs: per_int(fn, dt)(*arrs)


def numpy_ref(fn):
    return same(fn)


# The op registry (src/core/op_registry.def, tests/ref/op_registry.py): each
# op's dtype list and result rule are read from it, not restated here.
REG = op_registry.read()

# Per op: (reference function, tolerance per dtype, input kind); dtypes and
# result rule from REG.
UNARY = {
    "negate": (numpy_ref(np.negative), EXACT, "full"),
    "abs": (ref_by_group(numpy_ref(np.abs), numpy_ref(np.abs),
                                      lambda dt, a: wide(np.abs, REAL_OF[dt])(dt, a)),
            {**EXACT, "c64": "ulp1", "c128": "ulp1"}, "full"),
    "sign": (ref_by_group(numpy_ref(np.sign), same(float_sign),
                                       per_elem(cplx_sign)),
             {**EXACT, "c64": "cplx1", "c128": "cplx1"}, "full"),
    "conj": (numpy_ref(np.conj), EXACT, "full"),
    "not": (ref_by_group(numpy_ref(np.invert), bool_ref=same(lambda a: 1 - a)), EXACT, "full"),
    "floor": (numpy_ref(np.floor), EXACT, "wide"),
    "ceil": (numpy_ref(np.ceil), EXACT, "wide"),
    "round_nearest_even": (numpy_ref(np.rint), EXACT, "halves"),
    "round_nearest_afz": (same(round_afz), EXACT, "halves"),
    "is_finite": (same(np.isfinite, "bool"), EXACT, "unit"),
    "real": (lambda dt, a: same(np.real, REAL_OF[dt])(dt, a), EXACT, "unit"),
    "imag": (lambda dt, a: (imag_of_real(dt, a) if dt in FLOAT
                                         else same(np.imag, REAL_OF[dt])(dt, a)),
             EXACT, "unit"),
    "exponential": (wide(np.exp), TRANS, "exp"),
    "log": (wide(np.log), TRANS, "wide"),
    "sine": (wide(np.sin), TRANS, "trig"),
    "cosine": (wide(np.cos), TRANS, "trig"),
    "tan": (wide(np.tan), TRANS, "trig"),
    "tanh": (wide(np.tanh), libm(2, 2), "exp"),
    "sqrt": (wide(np.sqrt), TRANS, "wide"),
    "rsqrt": (ref_by_group(float_ref=wide(lambda v: 1 / np.sqrt(v)),
                                       cplx_ref=wide(lambda v: cplx_recip(np.sqrt(v)))),
              TRANS, "wide"),
    "cbrt": (wide(np.cbrt), libm(1, 3), "wide"),
    "exponential_minus_one": (ref_by_group(float_ref=wide(np.expm1),
                                                       cplx_ref=cplx_expm1_ref), TRANS, "exp"),
    "log_plus_one": (ref_by_group(float_ref=wide(np.log1p),
                                              cplx_ref=cplx_log1p_ref), TRANS, "wide"),
    "erf": (erf_ref(math.erf), TRANS, "unit"),
    # f32: e / (1 + e) rounds three times; 2 ulp measured (at x = -1.153).
    "logistic": (ref_by_group(float_ref=wide(real_logistic),
                                          cplx_ref=cplx_logistic_ref),
                 {**TRANS, "f32": "ulp2"}, "exp"),
    "asin": (wide(np.arcsin), TRANS, "unit"),
    "acos": (wide(np.arccos), TRANS, "unit"),
    "atan": (wide(np.arctan), TRANS, "wide"),
    "sinh": (wide(np.sinh), libm(2, 2), "exp"),
    "cosh": (wide(np.cosh), libm(2, 1), "exp"),
    "asinh": (wide(np.arcsinh), libm(2, 2), "wide"),
    "acosh": (wide(np.arccosh), libm(2, 2), "wide"),
    "atanh": (wide(np.arctanh), libm(2, 2), "unit"),
    "erfc": (erf_ref(math.erfc), libm(3, 3), "unit"),
    "popcnt": (ints(popcnt), EXACT, "full"),
}

# Ops without a reference in numpy or Python's math module: their reference
# data is mpmath's (tests/ref/special_math.ref, checked by test_special_math)
# and the conformance corpus'; the backends are compared with each other by
# test_backend_ops.
# (Python's math.lgamma is glibc's, 20+ ulp off near lgamma's minimum: no
# reference either.) test_cpu_elementwise reads the list from no_reference.txt.
NO_NUMPY_REFERENCE = {"lgamma", "digamma", "erf_inv", "bessel_i1e"}


def make_complex(dt, a, b):
    out = np.empty(a.shape, dtype=NP[COMPLEX_OF[dt]])
    out.real = a
    out.imag = b
    return out


def minmax_ref(int_fn, float_fn, cplx_fn):
    return ref_by_group(numpy_ref(int_fn), same(float_fn), per_elem(cplx_fn),
                        bool_ref=numpy_ref(int_fn))


BINARY = {
    "add": (numpy_ref(np.add), EXACT, "full"),
    "subtract": (numpy_ref(np.subtract), EXACT, "full"),
    "multiply": (numpy_ref(np.multiply), {**EXACT, "c64": "cplx1", "c128": "cplx1"},
                 "full"),
    "divide": (ref_by_group(ints(int_divide), numpy_ref(np.divide), wide(np.divide)),
               {**EXACT, "c64": "cplx2", "c128": "cplx2"}, "full"),
    "remainder": (ref_by_group(ints(int_remainder), numpy_ref(np.fmod)),
                  EXACT, "full"),
    "maximum": (minmax_ref(np.maximum, ieee_max, cplx_max), EXACT, "full"),
    "minimum": (minmax_ref(np.minimum, ieee_min, cplx_min), EXACT, "full"),
    # cpow = exp(b log a): its error grows with |b log a| (up to ~15 here).
    "power": (ref_by_group(ints(int_power), wide(np.power), per_elem(cplx_power)),
              {**EXACT, "f16": "ulp1", "bf16": "ulp1", "f32": "ulp1", "f64": "ulp1",
               "c64": "cplx32", "c128": "cplx32"}, "power"),
    "and": (numpy_ref(np.bitwise_and), EXACT, "full"),
    "or": (numpy_ref(np.bitwise_or), EXACT, "full"),
    "xor": (numpy_ref(np.bitwise_xor), EXACT, "full"),
    # The complex formula evaluates log near the unit circle, where a small
    # real part of the result has only absolute accuracy.
    "atan2": (ref_by_group(float_ref=wide(np.arctan2), cplx_ref=wide(cplx_atan2)),
              {"f16": "ulp1", "bf16": "ulp1", "f32": "ulp1", "f64": "ulp1", "c64": "cplx16",
               "c128": "cplx16"}, "unit"),
    "shift_left": (ints(shl), EXACT, "shift"),
    "shift_right_arithmetic": (ints(shr_arith), EXACT, "shift"),
    "shift_right_logical": (ints(shr_logical), EXACT, "shift"),
    "next_after": (numpy_ref(np.nextafter), EXACT, "nextafter"),
    # Built from parts: re + 1j * im would turn an infinite part into NaN.
    "complex": (lambda dt, a, b: make_complex(dt, a, b), EXACT, "unit"),
}

# compare: EQ and NE on the registry's dtypes of compare, the orderings on
# those without complex (its attributes in op_registry.def).
ORDERED = [d for d in REG["compare"][1] if d not in CPLX]
COMPARE = {
    "EQ": (REG["compare"][1], np.equal), "NE": (REG["compare"][1], np.not_equal),
    "LT": (ORDERED, np.less), "LE": (ORDERED, np.less_equal),
    "GT": (ORDERED, np.greater), "GE": (ORDERED, np.greater_equal),
}

for _family, _table in (("UNARY", UNARY), ("BINARY", BINARY)):
    _names = [n for n, (fam, _, _) in REG.items()
              if fam == _family and n not in NO_NUMPY_REFERENCE]
    if sorted(_names) != sorted(_table):
        sys.exit(f"gen_elementwise.py: the {_family} ops of op_registry.def "
                 f"{sorted(set(_names) ^ set(_table))} have no reference here (or vice versa)")


def out_dtype(rule, dt):
    return {"same": dt, "real": REAL_OF.get(dt, dt), "bool": "bool",
            "complex": COMPLEX_OF.get(dt, dt)}[rule]


# ---------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------

rng = np.random.default_rng(SEED)


def real_values(rng_kind, n, dt):
    """n nonzero float64 values for `rng_kind`."""
    unit = rng.uniform(-2, 2, n)
    unit = np.where(np.abs(unit) < 0.01, 0.5, unit)
    if rng_kind in ("unit", "full"):
        return unit
    half = n // 2
    if rng_kind == "wide":
        mag = 10.0 ** rng.uniform(-6, 6, n)
        other = mag * rng.choice([-1.0, 1.0], n) * np.where(rng.uniform(0, 1, n) < 0.8, 1, -1)
    elif rng_kind == "exp":
        other = rng.uniform(-30, 30, n)
    elif rng_kind == "trig":
        other = rng.uniform(-20, 20, n)
    elif rng_kind == "halves":
        other = rng.integers(-40, 40, n) * 0.5
    else:
        other = unit
    return np.concatenate([unit[:half], other[half:]])


def random_inputs(dt, rng_kind, nin, op):
    n = N_RANDOM
    if dt == "bool":
        return [rng.integers(0, 2, n).astype(np.uint8) for _ in range(nin)]
    if dt in INT:
        info = np.iinfo(NP[dt])
        if op in ("divide", "remainder"):
            vals = [rng.integers(-100, 101, n) for _ in range(nin)]
            vals = [np.where(v == 0, 7, v) for v in vals]
            vals[0] = np.where(rng.uniform(0, 1, n) < 0.5,
                               rng.integers(info.min, info.max, n, endpoint=True,
                                            dtype=NP[dt]).astype(np.int64), vals[0])
        elif op == "power":
            vals = [rng.integers(-12, 13, n), rng.integers(-3, 41, n)]
        elif rng_kind == "shift":
            vals = [rng.integers(info.min, info.max, n, endpoint=True,
                                 dtype=NP[dt]).astype(np.int64),
                    rng.integers(-2, BITS[dt] + 3, n)]
        elif op == "clamp":
            vals = [rng.integers(-60, 10, n), rng.integers(-100, 101, n), rng.integers(-10, 60, n)]
        else:
            vals = [rng.integers(info.min, info.max, n, endpoint=True,
                                 dtype=NP[dt]).astype(np.int64) for _ in range(nin)]
            vals = [np.where(v == 0, 1, v) for v in vals]
        return [v.astype(NP[dt]) for v in vals]
    rdt = REAL_OF[dt]
    if dt == "bf16":
        return [bf16_from_f64(v) for v in random_inputs("f64", rng_kind, nin, op)]
    if op == "clamp":
        vals = [rng.uniform(-2, 0.5, n), rng.uniform(-3, 3, n), rng.uniform(-0.5, 2, n)]
    elif op == "power" and dt in FLOAT:
        vals = [real_values("wide", n, rdt), rng.uniform(-8, 8, n)]
    elif op == "next_after":
        a = real_values("unit", n, rdt)
        b = np.where(rng.uniform(0, 1, n) < 0.2, a, real_values("unit", n, rdt))
        vals = [a, b]
    else:
        vals = [real_values(rng_kind, n, rdt) for _ in range(nin)]
    if dt in CPLX:
        ims = [real_values("unit" if rng_kind in ("exp", "trig") else rng_kind, n, rdt)
               for _ in range(nin)]
        out = []
        for re, im in zip(vals, ims):
            z = np.empty(n, dtype=NP[dt])
            z.real = re
            z.imag = im
            out.append(z)
        return out
    return [v.astype(NP[dt]) for v in vals]


def float_edges(dt):
    if dt == "bf16":
        nmant, tiny_sub, tiny, fmax = 7, 2.0 ** -133, 2.0 ** -126, BF16_MAX
        below_half = 0.5 - 2.0 ** -9
    else:
        f = np.finfo(NP[dt])
        nmant, tiny, fmax = f.nmant, float(f.tiny), float(f.max)
        tiny_sub = float(np.nextafter(NP[dt](0), NP[dt](1)))
        below_half = float(np.nextafter(NP[dt](0.5), NP[dt](0)))
    exact_int = 2.0 ** nmant + 1  # the first odd integer above 2^mant
    vals = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.0, 0.1,
            math.inf, -math.inf, math.nan, tiny_sub, -tiny_sub, tiny, -tiny,
            fmax, -fmax, 1e-10, -1e-10, exact_int, -exact_int, 100.0,
            -90.0, 20.0, below_half]
    if dt in HALF:
        # Ties of the 16-bit formats (rounding to even), 3 tiny_sub / 2 (a
        # subnormal tie), just below and at the overflow threshold.
        ulp1 = 2.0 ** -nmant
        vals += [1 + ulp1 / 2, 1 + 3 * ulp1 / 2, 1.5 * tiny_sub, fmax * (1 + ulp1 / 4),
                 fmax * (1 + ulp1 / 2), 65520.0, 65519.0]
    if dt == "bf16":
        return bf16_from_f64(vals)
    with np.errstate(all="ignore"):
        return np.array(vals, dtype=np.float64).astype(NP[dt])


def int_edges(dt):
    info = np.iinfo(NP[dt])
    b = BITS[dt]
    vals = [0, 1, -1, 2, -2, 3, -7, b - 1, b, b + 1, 100, -100, int(info.max),
            int(info.min), int(info.min) + 1, int(info.max) - 1, 0x55555555]
    if dt in UINT:
        vals += [1 << (b - 1), (1 << (b - 1)) - 1]  # the top bit alone, and below it
    # The low bits of each (negative values wrap into unsigned dtypes).
    return np.array([v % (1 << b) for v in vals], dtype=np.uint64).astype(NP[dt])


def cplx_edges(dt):
    rdt = REAL_OF[dt]
    parts = [0.0, -0.0, 1.0, -1.5, 1e-10, 0.5, math.inf, -math.inf, math.nan,
             float(np.finfo(NP[rdt]).tiny)]
    out = []
    for re in parts:
        for im in parts:
            out.append((re, im))
    z = np.empty(len(out), dtype=NP[dt])
    z.real = [p[0] for p in out]
    z.imag = [p[1] for p in out]
    return z


def edges(dt):
    if dt == "bool":
        return np.array([0, 1], dtype=np.uint8)
    if dt in INT:
        return int_edges(dt)
    if dt in FLOAT:
        return float_edges(dt)
    return cplx_edges(dt)


def cross(a, b):
    return np.repeat(a, len(b)), np.tile(b, len(a))


# ---------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------

class Writer:
    def __init__(self, outdir):
        self.dir = os.path.join(outdir, "elementwise")
        os.makedirs(self.dir, exist_ok=True)
        self.blob = open(os.path.join(self.dir, "data.bin"), "wb")
        self.lines = []
        self.offset = 0

    def case(self, name, kind, op, dt, odt, inputs, expected, tol):
        n = len(expected)
        in_dts = {"select": ["bool", dt, dt], "clamp": [dt] * 3}.get(
            kind, [dt] * len(inputs))
        for a, adt in zip(inputs, in_dts):
            assert len(a) == n and a.dtype == NP[adt], (name, a.dtype, adt)
        assert expected.dtype == NP[odt], (name, expected.dtype, odt)
        line = f"{name} {kind} {op} {dt} {odt} {n} {tol} {self.offset}"
        for a in list(inputs) + [expected]:
            b = np.ascontiguousarray(a).astype(np.asarray(a).dtype.newbyteorder("<")).tobytes()
            self.blob.write(b)
            self.offset += len(b)
        self.lines.append(line)

    def close(self):
        self.blob.close()
        tmp = os.path.join(self.dir, "manifest.txt.tmp")
        with open(tmp, "w") as f:
            f.write("\n".join(self.lines) + "\n")
        os.replace(tmp, os.path.join(self.dir, "manifest.txt"))
        tmp = os.path.join(self.dir, "no_reference.txt.tmp")
        with open(tmp, "w") as f:
            f.write("".join(f"{name}\n" for name in sorted(NO_NUMPY_REFERENCE)))
        os.replace(tmp, os.path.join(self.dir, "no_reference.txt"))


def as_values(dt, a):
    """bf16 bit patterns as their f64 values; other arrays as they are."""
    return bf16_to_f64(a) if dt == "bf16" else a


def call_ref(ref, dt, *arrs):
    """ref on dt's inputs; bf16 through the f64 reference, rounded once."""
    if dt != "bf16":
        return ref(dt, *arrs)
    r = np.asarray(ref("f64", *(bf16_to_f64(a) for a in arrs)))
    return bf16_from_f64(r) if r.dtype.kind == "f" else r


def main():
    np.seterr(all="ignore")
    if len(sys.argv) != 2:
        sys.exit("usage: gen_elementwise.py OUTDIR")
    w = Writer(sys.argv[1])

    for op, (ref, tol, rng_kind) in UNARY.items():
        _, dts, rule = REG[op]
        for dt in dts:
            odt = out_dtype(rule, dt)
            (x,) = random_inputs(dt, rng_kind, 1, op)
            w.case(f"rnd_{op}_{dt}", "unary", op, dt, odt, [x], call_ref(ref, dt, x), tol[dt])
            x = edges(dt)
            w.case(f"edge_{op}_{dt}", "unary", op, dt, odt, [x], call_ref(ref, dt, x), tol[dt])

    for op, (ref, tol, rng_kind) in BINARY.items():
        _, dts, rule = REG[op]
        for dt in dts:
            odt = out_dtype(rule, dt)
            if dt == "bf16" and op == "next_after":
                ref = lambda dt_, a_, b_: bf16_nextafter(a_, b_)  # noqa: E731
            a, b = random_inputs(dt, rng_kind, 2, op)
            w.case(f"rnd_{op}_{dt}", "binary", op, dt, odt, [a, b], call_ref(ref, dt, a, b)
                   if not (dt == "bf16" and op == "next_after") else ref(dt, a, b), tol[dt])
            e = edges(dt)
            if dt in CPLX and op in ("power", "atan2"):
                # Special values of these complex formulas are not specified
                # (StableHLO defers to the formula); check finite edges only.
                e = e[np.isfinite(e)]
            if dt in CPLX and op == "atan2":
                # Zero parts put results on the branch cut of log, where the
                # sign of a rounded zero picks the side.
                e = e[(e.real != 0) & (e.imag != 0)]
            a, b = cross(e, e)
            tiny = None
            if dt in CPLX and op == "power":
                # cpow = exp(b log a) has an error that grows with |b log a|:
                # bases of tiny modulus (log ~ -700) get their own tolerance.
                small = (a != 0) & (np.abs(a) < 1e-30)
                tiny = (a[small], b[small])
                a, b = a[~small], b[~small]
            if dt in CPLX:
                keep = np.ones(len(a), dtype=bool)
                if op == "divide":
                    # C99 Annex G division (infinities, division by zero) has
                    # no numpy counterpart: finite operands, nonzero divisors.
                    keep = np.isfinite(a) & np.isfinite(b) & (b != 0)
                elif op == "power":
                    # 0^b for Re b <= 0, b != 0 is a pole: cpow's value there
                    # (an infinity or NaN) is not specified.
                    keep = ~((a == 0) & (b.real <= 0) & (b != 0))
                elif op == "atan2":
                    # Not the singular points x^2 + y^2 = 0; and |y| ~ |x|: the
                    # formula goes through log(~1), so a result near 0 (|y| <<
                    # |x|) or near +-pi has absolute, not relative, accuracy.
                    wa, wb = a.astype(WIDE[dt]), b.astype(WIDE[dt])
                    keep = ((wa * wa + wb * wb != 0) & (np.abs(wa) >= 1e-4 * np.abs(wb)) &
                            (np.abs(wb) >= 1e-4 * np.abs(wa)))
                a, b = a[keep], b[keep]
            w.case(f"edge_{op}_{dt}", "binary", op, dt, odt, [a, b], call_ref(ref, dt, a, b)
                   if not (dt == "bf16" and op == "next_after") else ref(dt, a, b), tol[dt])
            if tiny is not None:
                a, b = tiny
                w.case(f"edge_tiny_{op}_{dt}", "binary", op, dt, odt, [a, b], ref(dt, a, b),
                       "cplx2048")

    for direction, (dts, fn) in COMPARE.items():
        for dt in dts:
            if dt == "bool":
                a, b = rng.integers(0, 2, N_RANDOM), rng.integers(0, 2, N_RANDOM)
            elif dt in INT:
                a, b = rng.integers(-3, 4, N_RANDOM), rng.integers(-3, 4, N_RANDOM)
            else:
                pool = np.array([-1.5, -1.0, -0.0, 0.0, 0.5, 1.0, 2.0])
                a, b = rng.choice(pool, N_RANDOM), rng.choice(pool, N_RANDOM)
                if dt in CPLX:
                    a = a + 1j * rng.choice(pool[:3], N_RANDOM)
                    b = b + 1j * rng.choice(pool[:3], N_RANDOM)
            a, b = (bf16_from_f64(a), bf16_from_f64(b)) if dt == "bf16" else (
                a.astype(NP[dt]), b.astype(NP[dt]))
            w.case(f"rnd_cmp{direction}_{dt}", "compare", direction, dt, "bool", [a, b],
                   fn(as_values(dt, a), as_values(dt, b)).astype(np.uint8), "exact")
            a, b = cross(edges(dt), edges(dt))
            w.case(f"edge_cmp{direction}_{dt}", "compare", direction, dt, "bool", [a, b],
                   fn(as_values(dt, a), as_values(dt, b)).astype(np.uint8), "exact")

    for dt in REG["select"][1]:
        p = rng.integers(0, 2, N_RANDOM).astype(np.uint8)
        t, f = random_inputs(dt, "full", 2, "select")
        w.case(f"rnd_select_{dt}", "select", "-", dt, dt, [p, t, f], np.where(p != 0, t, f),
               "exact")
        e = edges(dt)
        t, f = e, e[::-1].copy()
        p = rng.integers(0, 2, len(e)).astype(np.uint8)
        w.case(f"edge_select_{dt}", "select", "-", dt, dt, [p, t, f], np.where(p != 0, t, f),
               "exact")

    for dt in REG["clamp"][1]:
        lo, x, hi = random_inputs(dt, "full", 3, "clamp")
        maxf, minf = (ieee_max, ieee_min) if dt in FLOAT else (np.maximum, np.minimum)

        def clamp_ref(lo, x, hi):
            r = minf(maxf(as_values(dt, x), as_values(dt, lo)), as_values(dt, hi))
            return bf16_from_f64(r) if dt == "bf16" else r

        with np.errstate(all="ignore"):
            w.case(f"rnd_clamp_{dt}", "clamp", "-", dt, dt, [lo, x, hi], clamp_ref(lo, x, hi),
                   "exact")
            e = edges(dt)
            # Every (lo, x, hi) triple of a few edges, NaN and -0 included.
            sub = e[: min(len(e), 16)]
            lo = np.repeat(sub, len(sub) * len(sub))
            x = np.tile(np.repeat(sub, len(sub)), len(sub))
            hi = np.tile(sub, len(sub) * len(sub))
            w.case(f"edge_clamp_{dt}", "clamp", "-", dt, dt, [lo, x, hi], clamp_ref(lo, x, hi),
                   "exact")
    w.close()


if __name__ == "__main__":
    main()
