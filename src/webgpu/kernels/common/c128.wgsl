// c128 in software: a value is vec4<u32>(real part's bits, imaginary part's
// bits), each part an f64 as common/f64.wgsl holds it (low word first), so
// stored elements are used as they are. Needs common/u64.wgsl and
// common/f64.wgsl; every result is computed by their correctly rounded f64
// operations, in the order the cpu backend computes it
// (src/cpu/scalar_math.h on an x86-64 host built without FMA contraction),
// so that the bits are the cpu's:
//   * add, subtract: part by part; multiply: the textbook product
//     (ar br - ai bi, ar bi + ai br), each product and sum rounded once;
//   * divide: C's a / b, which gcc lowers to libgcc's __divdc3 (gcc 12 and
//     later): Smith's method, with the operands scaled by powers of two when
//     the divisor is near overflow or the parts near underflow, the
//     alternative order of operations when the ratio is subnormal, and C99
//     Annex G's recovery of infinities and zeros from a NaN + NaN i result;
//   * abs: glibc's hypot (2.35 and later, the build without FMA): a square
//     root of ax^2 + ay^2 corrected by one Newton-like step computed from
//     the exact error terms, inputs scaled by 2^-600 / 2^600 near overflow
//     / underflow, ax + ay when ay is below ax 2^-54;
//   * sign: z / |z| as the cpu (infinite parts as the limit direction);
//   * sqrt: glibc's csqrt (special values of C99 Annex G, scaling near
//     overflow and underflow, the identity 2 Re Im = Im z against
//     cancellation); rsqrt: 1 / csqrt(z), a complex division of 1 + 0i;
//   * eq / ne on both parts (IEEE), maximum / minimum lexicographic on
//     (re, im) with a NaN part propagating its operand, negate, conj, real,
//     imag on the bits.
// add, subtract, multiply, negate, conj, eq/ne, maximum/minimum are here;
// divide, abs, sign, sqrt and rsqrt, each dozens of f64 operations, are
// steps of one loop in common/c128_steps.wgsl (on this file), so that a
// kernel holds one copy of each f64 operation: lavapipe, whose compiler
// inlines every call, took minutes for straight-line versions (abs alone,
// one square root and a dozen multiplies and adds, was still compiling
// after 4 minutes). The analytic functions are in common/math_c128.wgsl
// (exp, log; pow, sin, ... not yet), on the f64 math library.

// Constants (f64 bits).
const TFR_C128_HALF = vec2<u32>(0u, 0x3fe00000u);
const TFR_C128_TWO = vec2<u32>(0u, 0x40000000u);
const TFR_C128_FOUR = vec2<u32>(0u, 0x40100000u);
const TFR_C128_ZERO = vec2<u32>(0u, 0u);
const TFR_C128_INF = vec2<u32>(0u, 0x7ff00000u);
// C's NAN (a positive quiet NaN), what the cpu's sign writes.
const TFR_C128_NAN = vec2<u32>(0u, 0x7ff80000u);
const TFR_C128_DBL_MIN = vec2<u32>(0u, 0x00100000u);

fn tfr_c128(re: vec2<u32>, im: vec2<u32>) -> vec4<u32> {
  return vec4<u32>(re, im);
}

// copysign(x, s): x's magnitude with s's sign bit.
fn tfr_c128_copysign(x: vec2<u32>, s: vec2<u32>) -> vec2<u32> {
  return vec2<u32>(x.x, (x.y & 0x7fffffffu) | (s.y & TFR_F64_SIGN));
}

// ---- on the bits ----

fn tfr_c128_neg(a: vec4<u32>) -> vec4<u32> {
  return a ^ vec4<u32>(0u, TFR_F64_SIGN, 0u, TFR_F64_SIGN);
}

fn tfr_c128_conj(a: vec4<u32>) -> vec4<u32> {
  return a ^ vec4<u32>(0u, 0u, 0u, TFR_F64_SIGN);
}

fn tfr_c128_is_nan(a: vec4<u32>) -> bool {
  return tfr_f64_is_nan(a.xy) || tfr_f64_is_nan(a.zw);
}

fn tfr_c128_eq(a: vec4<u32>, b: vec4<u32>) -> bool {
  return tfr_f64_eq(a.xy, b.xy) && tfr_f64_eq(a.zw, b.zw);
}

// Lexicographic on (re, im); a NaN part propagates its operand (a's first).
fn tfr_c128_max(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
  if (tfr_c128_is_nan(a)) {
    return a;
  }
  if (tfr_c128_is_nan(b)) {
    return b;
  }
  if (!tfr_f64_eq(a.xy, b.xy)) {
    return select(b, a, tfr_f64_lt(b.xy, a.xy));
  }
  return select(b, a, tfr_f64_le(b.zw, a.zw));
}

fn tfr_c128_min(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
  if (tfr_c128_is_nan(a)) {
    return a;
  }
  if (tfr_c128_is_nan(b)) {
    return b;
  }
  if (!tfr_f64_eq(a.xy, b.xy)) {
    return select(b, a, tfr_f64_lt(a.xy, b.xy));
  }
  return select(b, a, tfr_f64_le(a.zw, b.zw));
}

// ---- arithmetic ----

fn tfr_c128_add(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
  return vec4<u32>(tfr_f64_add(a.xy, b.xy), tfr_f64_add(a.zw, b.zw));
}

fn tfr_c128_sub(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
  return vec4<u32>(tfr_f64_sub(a.xy, b.xy), tfr_f64_sub(a.zw, b.zw));
}

fn tfr_c128_mul(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
  let re = tfr_f64_sub(tfr_f64_mul(a.xy, b.xy), tfr_f64_mul(a.zw, b.zw));
  let im = tfr_f64_add(tfr_f64_mul(a.xy, b.zw), tfr_f64_mul(a.zw, b.xy));
  return vec4<u32>(re, im);
}

// acc + a * b as the cpu's dot_general accumulates (src/cpu/dot.c):
// acc.re + (ar br - ai bi), acc.im + (ar bi + ai br), each step rounded.
fn tfr_c128_mul_add(a: vec4<u32>, b: vec4<u32>, acc: vec4<u32>) -> vec4<u32> {
  return tfr_c128_add(acc, tfr_c128_mul(a, b));
}

// a, or its conjugate when `conj`.
fn tfr_c128_conj_if(a: vec4<u32>, conj: bool) -> vec4<u32> {
  return select(a, tfr_c128_conj(a), conj);
}
