// The complex64 math library of the webgpu backend (docs/accuracy.md): a
// value is vec2<f32>(re, im). tfr_<name>_c64 follow the C99 complex functions
// src/cpu/scalar_math.h uses (cexpf, clogf, csqrtf, casinhf, ... and its own
// expm1, log1p, logistic, sign and power), including the special values of
// C11 Annex G (infinite and NaN parts, signed zeros). Finite results are
// computed with the f32 library (common/math_f32.wgsl, which must be placed
// before this file's users), scaled where an intermediate could overflow,
// with Kahan's formulas for the inverse functions (no cancellation near the
// branch points). Helpers are named tfr_m_c*.

fn tfr_m_cnan() -> vec2<f32> {
  return vec2<f32>(tfr_m_nan(), tfr_m_nan());
}

// |z| without overflow or underflow (hypot): inf if a part is infinite (even
// with a NaN), else NaN if a part is NaN. Within 1 ulp.
fn tfr_abs_c64(z: vec2<f32>) -> f32 {
  let ax = tfr_m_abs(z.x);
  let ay = tfr_m_abs(z.y);
  if (tfr_m_is_inf(z.x) || tfr_m_is_inf(z.y)) {
    return tfr_m_inf();
  }
  if (tfr_m_is_nan(z.x) || tfr_m_is_nan(z.y)) {
    return tfr_m_nan2(z.x, z.y);
  }
  let m = max(ax, ay);
  if (m == 0.0) {
    return 0.0;
  }
  // scale by 2^-e so that the larger part lies in [1, 2); the exact sum of
  // squares then cannot overflow, and a smaller part that underflows is
  // negligible
  let e = tfr_m_frexp(m).e;
  let xs = tfr_m_scale_exact(ax, -e);
  let ys = tfr_m_scale_exact(ay, -e);
  let sum = tfr_m_dd_add(tfr_m_two_prod(xs, xs), tfr_m_two_prod(ys, ys));
  let r = tfr_m_dd_sqrt(sum);
  return tfr_m_scale(r.x + r.y, e);
}

// log |z| for finite z (not both zero).
fn tfr_m_log_abs(x: f32, y: f32) -> f32 {
  let ax = tfr_m_abs(x);
  let ay = tfr_m_abs(y);
  let m = max(ax, ay);
  if (m > 0x1p-60f && m < 0x1p60f) {
    let s = tfr_m_dd_add(tfr_m_two_prod(ax, ax), tfr_m_two_prod(ay, ay));
    if (s.x > 0.5 && s.x < 2.0) {
      // |z| near 1: log1p(x^2 + y^2 - 1) / 2 without cancellation
      let w = tfr_m_two_sum(s.x, -1.0);
      return 0.5 * tfr_m_log1p_dd(w.x, w.y + s.y);
    }
  }
  let e = tfr_m_frexp(m).e;
  let xs = tfr_m_scale_exact(ax, -e);
  let ys = tfr_m_scale_exact(ay, -e);
  let s = tfr_m_dd_add(tfr_m_two_prod(xs, xs), tfr_m_two_prod(ys, ys));  // in [1, 8)
  let ls = tfr_log_f32(s.x) + s.y / s.x;
  let ef = f32(e);
  return fma(ef, TFR_M_LN2_HI, fma(ef, TFR_M_LN2_LO, 0.5 * ls));
}

// z / |z|, 0 at 0 (zeros keep their signs); an infinite part counts as the
// limit direction (inf + 1i -> 1), NaN in either part gives NaN.
fn tfr_sign_c64(z: vec2<f32>) -> vec2<f32> {
  if (tfr_m_is_nan(z.x) || tfr_m_is_nan(z.y)) {
    return tfr_m_cnan();
  }
  var x = z.x;
  var y = z.y;
  if (tfr_m_is_inf(x) || tfr_m_is_inf(y)) {
    x = tfr_m_copysign(select(0.0, 1.0, tfr_m_is_inf(x)), x);
    y = tfr_m_copysign(select(0.0, 1.0, tfr_m_is_inf(y)), y);
  }
  if (tfr_m_is_zero(x) && tfr_m_is_zero(y)) {
    return z;
  }
  let h = tfr_abs_c64(vec2<f32>(x, y));
  return vec2<f32>(tfr_div_f32(x, h), tfr_div_f32(y, h));
}

// The textbook product (as the cpu backend, numpy and XLA compute it).
fn tfr_mul_c64(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
  // Each product rounded on its own, as C computes it: a compiler that fuses
  // a.x b.x - a.y b.y into one fma (NVIDIA's does) changes special values,
  // e.g. (F - i)(F - inf i) gives -inf instead of NaN in the real part.
  let ac = tfr_m_opaque(a.x * b.x);
  let bd = tfr_m_opaque(a.y * b.y);
  let ad = tfr_m_opaque(a.x * b.y);
  let bc = tfr_m_opaque(a.y * b.x);
  return vec2<f32>(ac - bd, ad + bc);
}

// a / b as C computes it (Annex G): for finite a and finite b != 0, scaled so
// that nothing overflows or underflows needlessly. Otherwise gcc's algorithm
// (Smith's formulas, then C's recovery of infinite and zero quotients when
// both parts come out NaN), with the recovered values spelled out on the
// bits (a compiler may fold inf * 0 when an operand is a constant).
fn tfr_div_c64(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
  let a_fin = tfr_m_is_finite(a.x) && tfr_m_is_finite(a.y);
  let b_fin = tfr_m_is_finite(b.x) && tfr_m_is_finite(b.y);
  let b_zero = tfr_m_is_zero(b.x) && tfr_m_is_zero(b.y);
  if (a_fin && b_fin && !b_zero) {
    // scale b (and the quotient) by one power of two so that b's larger
    // part lies in [1, 2)
    let m = max(tfr_m_abs(b.x), tfr_m_abs(b.y));
    let e = tfr_m_frexp(m).e;
    let c = tfr_m_scale_exact(b.x, -e);
    let d = tfr_m_scale_exact(b.y, -e);
    // Each product rounded on its own (tfr_mul_c64): fused into the sum
    // (NVIDIA), a.y c - a.x d for a = (t, t), b = (s, s) is the rounding
    // error of t s, not 0, and atan2 (ew_complex.wgsl) came out 2^-49
    // where C gives 0.
    let den = tfr_m_opaque(c * c) + tfr_m_opaque(d * d);
    let nr = tfr_m_opaque(a.x * c) + tfr_m_opaque(a.y * d);
    let ni = tfr_m_opaque(a.y * c) - tfr_m_opaque(a.x * d);
    if (tfr_m_is_finite(nr) && tfr_m_is_finite(ni)) {
      return vec2<f32>(tfr_m_ldexp(tfr_div_f32(nr, den), -e),
                       tfr_m_ldexp(tfr_div_f32(ni, den), -e));
    }
    // a huge (so a / 4 is exact): divide first, then multiply, in a quarter
    // of the scale so that a sum of two products below overflow stays finite
    let qc = tfr_div_f32(c, den);
    let qd = tfr_div_f32(d, den);
    let a4 = a * 0.25;
    return vec2<f32>(
        tfr_m_ldexp(tfr_m_opaque(a4.x * qc) + tfr_m_opaque(a4.y * qd), 2 - e),
        tfr_m_ldexp(tfr_m_opaque(a4.y * qc) - tfr_m_opaque(a4.x * qd), 2 - e));
  }
  var x = tfr_m_nan();
  var y = tfr_m_nan();
  if (!b_zero) {
    // The cpu's libgcc computes a float complex quotient in double, where
    // the ratio of b's parts (both finite) does not underflow; here a ratio
    // that underflowed stands in as the smallest normal of its sign, so that
    // an infinite part of a times it stays infinite as in double. (Only an
    // infinite a reaches this branch with a finite b, and then every
    // finite term is dominated.)
    if (tfr_m_abs(b.x) < tfr_m_abs(b.y)) {
      var ratio = b.x / b.y;
      if (b_fin && tfr_m_is_zero(ratio) && !tfr_m_is_zero(b.x)) {
        ratio = tfr_m_copysign(0x1p-126f, ratio);
      }
      let den = b.x * ratio + b.y;
      x = (a.x * ratio + a.y) / den;
      y = (a.y * ratio - a.x) / den;
    } else {
      var ratio = b.y / b.x;
      if (b_fin && tfr_m_is_zero(ratio) && !tfr_m_is_zero(b.y)) {
        ratio = tfr_m_copysign(0x1p-126f, ratio);
      }
      let den = b.y * ratio + b.x;
      x = (a.y * ratio + a.x) / den;
      y = (a.y - a.x * ratio) / den;
    }
  }
  if (!(tfr_m_is_nan(x) && tfr_m_is_nan(y))) {
    return vec2<f32>(x, y);
  }
  let a_inf = tfr_m_is_inf(a.x) || tfr_m_is_inf(a.y);
  let b_inf = tfr_m_is_inf(b.x) || tfr_m_is_inf(b.y);
  // C: a zero denominator and a numerator not wholly NaN give
  // copysign(inf, c) times each part (a NaN part stays NaN).
  if (b_zero && !(tfr_m_is_nan(a.x) && tfr_m_is_nan(a.y))) {
    return vec2<f32>(tfr_m_inf_times(b.x, a.x), tfr_m_inf_times(b.x, a.y));
  }
  if (a_inf && b_fin) {
    // the direction of a (parts 0 or +-1; a NaN part counts 0) times inf
    let p = tfr_m_copysign(select(0.0, 1.0, tfr_m_is_inf(a.x)), a.x);
    let q = tfr_m_copysign(select(0.0, 1.0, tfr_m_is_inf(a.y)), a.y);
    return vec2<f32>(tfr_m_inf_times(1.0, p * b.x + q * b.y),
                     tfr_m_inf_times(1.0, q * b.x - p * b.y));
  }
  if (b_inf && a_fin) {
    // zeros with the signs of the products with b's direction
    let p = tfr_m_copysign(select(0.0, 1.0, tfr_m_is_inf(b.x)), b.x);
    let q = tfr_m_copysign(select(0.0, 1.0, tfr_m_is_inf(b.y)), b.y);
    // C computes 0 * (a.x p + a.y q) in float: NaN when the sum overflows
    let u = a.x * p + a.y * q;
    let v = a.y * p - a.x * q;
    return vec2<f32>(select(tfr_m_copysign(0.0, u), tfr_m_nan(), tfr_m_is_inf(u)),
                     select(tfr_m_copysign(0.0, v), tfr_m_nan(), tfr_m_is_inf(v)));
  }
  return vec2<f32>(x, y);
}

// a * b with C's recovery of infinities (Annex G; the `*` of glibc's cpow):
// when the textbook product is NaN in both parts and an operand is infinite,
// the infinite operand becomes its direction (parts 0 or +-1), the other's
// NaN parts 0, and the product of those times inf is the result.
fn tfr_m_cmul_annexg(a0: vec2<f32>, b0: vec2<f32>) -> vec2<f32> {
  let r = tfr_mul_c64(a0, b0);
  if (!(tfr_m_is_nan(r.x) && tfr_m_is_nan(r.y))) {
    return r;
  }
  var a = a0;
  var b = b0;
  let a_inf = tfr_m_is_inf(a.x) || tfr_m_is_inf(a.y);
  let b_inf = tfr_m_is_inf(b.x) || tfr_m_is_inf(b.y);
  if (!a_inf && !b_inf) {
    // libgcc's third recovery: finite operands whose partial products
    // overflowed (a NaN part met an infinite product): NaN parts become
    // zeros, and the product is recomputed times inf.
    let ov = tfr_m_is_inf(a.x * b.x) || tfr_m_is_inf(a.y * b.y) || tfr_m_is_inf(a.x * b.y) ||
             tfr_m_is_inf(a.y * b.x);
    if (!ov) {
      return r;
    }
    a = vec2<f32>(select(a.x, tfr_m_copysign(0.0, a.x), tfr_m_is_nan(a.x)),
                  select(a.y, tfr_m_copysign(0.0, a.y), tfr_m_is_nan(a.y)));
    b = vec2<f32>(select(b.x, tfr_m_copysign(0.0, b.x), tfr_m_is_nan(b.x)),
                  select(b.y, tfr_m_copysign(0.0, b.y), tfr_m_is_nan(b.y)));
  }
  if (a_inf) {
    a = vec2<f32>(tfr_m_copysign(select(0.0, 1.0, tfr_m_is_inf(a.x)), a.x),
                  tfr_m_copysign(select(0.0, 1.0, tfr_m_is_inf(a.y)), a.y));
    b = vec2<f32>(select(b.x, tfr_m_copysign(0.0, b.x), tfr_m_is_nan(b.x)),
                  select(b.y, tfr_m_copysign(0.0, b.y), tfr_m_is_nan(b.y)));
  }
  if (b_inf) {
    b = vec2<f32>(tfr_m_copysign(select(0.0, 1.0, tfr_m_is_inf(b.x)), b.x),
                  tfr_m_copysign(select(0.0, 1.0, tfr_m_is_inf(b.y)), b.y));
    a = vec2<f32>(select(a.x, tfr_m_copysign(0.0, a.x), tfr_m_is_nan(a.x)),
                  select(a.y, tfr_m_copysign(0.0, a.y), tfr_m_is_nan(a.y)));
  }
  let p = tfr_mul_c64(a, b);
  return vec2<f32>(tfr_m_inf_times(1.0, p.x), tfr_m_inf_times(1.0, p.y));
}

// ---------------------------------------------------------------------------
// exp, log, sqrt and their relatives
// ---------------------------------------------------------------------------

// e^x (cos y + i sin y) for finite x and y, scaled where e^x alone would
// overflow.
fn tfr_m_cis_scaled(x: f32, y: f32) -> vec2<f32> {
  let c = tfr_cos_f32(y);
  let s = tfr_sin_f32(y);
  if (x > 88.0) {
    // e^x overflows before the product: scale
    let e = tfr_m_exp_parts(min(x, 200.0), 0.0);
    let m = e.m.x + e.m.y;
    return vec2<f32>(tfr_m_ldexp(m * c, e.k), tfr_m_ldexp(m * s, e.k));
  }
  let ex = tfr_exp_f32(x);
  return vec2<f32>(ex * c, ex * s);
}

fn tfr_exp_c64(z: vec2<f32>) -> vec2<f32> {
  let x = z.x;
  let y = z.y;
  if (tfr_m_is_zero(y)) {
    // exp of a real: exact imaginary zero (NaN real gives NaN + i y)
    return vec2<f32>(tfr_exp_f32(x), y);
  }
  if (tfr_m_is_nan(x)) {
    return tfr_m_cnan();
  }
  if (!tfr_m_is_finite(y)) {
    // y infinite or NaN
    if (tfr_m_is_inf(x)) {
      if (x < 0.0) {
        return vec2<f32>(0.0, tfr_m_copysign(0.0, y));
      }
      return vec2<f32>(x, tfr_m_nan());
    }
    return tfr_m_cnan();
  }
  if (tfr_m_is_inf(x)) {
    if (x < 0.0) {
      return vec2<f32>(0.0 * tfr_cos_f32(y), 0.0 * tfr_sin_f32(y));
    }
    return vec2<f32>(x * tfr_cos_f32(y), x * tfr_sin_f32(y));
  }
  return tfr_m_cis_scaled(x, y);
}

// exp(z) - 1: near 0, re = expm1(x) cos y - 2 sin^2(y/2), im = e^x sin y.
fn tfr_expm1_c64(z: vec2<f32>) -> vec2<f32> {
  let x = z.x;
  let y = z.y;
  if (tfr_m_abs(x) < 1.0 && tfr_m_is_finite(y)) {
    let s = tfr_sin_f32(0.5 * y);
    return vec2<f32>(tfr_expm1_f32(x) * tfr_cos_f32(y) - 2.0 * s * s,
                     tfr_exp_f32(x) * tfr_sin_f32(y));
  }
  let e = tfr_exp_c64(z);
  return vec2<f32>(e.x - 1.0, e.y);
}

fn tfr_log_c64(z: vec2<f32>) -> vec2<f32> {
  let x = z.x;
  let y = z.y;
  let im = tfr_atan2_f32(y, x);
  if (tfr_m_is_inf(x) || tfr_m_is_inf(y)) {
    return vec2<f32>(tfr_m_inf(), im);
  }
  if (tfr_m_is_nan(x) || tfr_m_is_nan(y)) {
    return tfr_m_cnan();
  }
  if (tfr_m_is_zero(x) && tfr_m_is_zero(y)) {
    return vec2<f32>(-tfr_m_inf(), im);
  }
  return vec2<f32>(tfr_m_log_abs(x, y), im);
}

// log(1 + z): near 0, re = log1p(x (2 + x) + y^2) / 2 (double-f32) and
// im = atan2(y, 1 + x); elsewhere log(1 + x + iy).
fn tfr_log1p_c64(z: vec2<f32>) -> vec2<f32> {
  let x = z.x;
  let y = z.y;
  if (tfr_m_abs(x) < 0.5 && tfr_m_abs(y) < 0.5) {
    if (tfr_m_is_zero(x) && tfr_m_is_zero(y)) {
      return z;
    }
    // x (2 + x) + y^2 = 2x + x^2 + y^2
    let u = tfr_m_dd_add(tfr_m_dd_add(vec2<f32>(2.0 * x, 0.0), tfr_m_two_prod(x, x)),
                         tfr_m_two_prod(y, y));
    return vec2<f32>(0.5 * tfr_m_log1p_dd(u.x, u.y), tfr_atan2_f32(y, 1.0 + x));
  }
  return tfr_log_c64(vec2<f32>(1.0 + x, y));
}

// Principal square root (Kahan): t = sqrt((|x| + |z|) / 2), then
// x >= 0: (t, y / 2t), x < 0: (|y| / 2t, copysign(t, y)).
fn tfr_sqrt_c64(z: vec2<f32>) -> vec2<f32> {
  let x = z.x;
  let y = z.y;
  if (tfr_m_is_inf(y)) {
    return vec2<f32>(tfr_m_inf(), y);
  }
  if (tfr_m_is_nan(x)) {
    return tfr_m_cnan();
  }
  if (tfr_m_is_inf(x)) {
    if (tfr_m_is_nan(y)) {
      if (x > 0.0) {
        return vec2<f32>(x, y);
      }
      return vec2<f32>(y, tfr_m_inf());
    }
    if (x > 0.0) {
      return vec2<f32>(x, tfr_m_copysign(0.0, y));
    }
    return vec2<f32>(0.0, tfr_m_copysign(tfr_m_inf(), y));
  }
  if (tfr_m_is_nan(y)) {
    return tfr_m_cnan();
  }
  if (tfr_m_is_zero(x) && tfr_m_is_zero(y)) {
    return vec2<f32>(0.0, y);
  }
  // scale by an even power of two so that the larger part lies in [1, 4)
  let m = max(tfr_m_abs(x), tfr_m_abs(y));
  var e = tfr_m_frexp(m).e;
  e = e - (e & 1);
  let xs = tfr_m_scale_exact(x, -e);
  let ys = tfr_m_scale_exact(y, -e);
  let h = tfr_abs_c64(vec2<f32>(xs, ys));
  let t = tfr_sqrt_f32(0.5 * (tfr_m_abs(xs) + h));
  let k = e / 2;
  let tt = tfr_m_scale(t, k);
  let q = tfr_m_scale(tfr_div_f32(tfr_m_abs(ys), 2.0 * t), k);
  if (x >= 0.0) {
    return vec2<f32>(tt, tfr_m_copysign(q, y));
  }
  return vec2<f32>(q, tfr_m_copysign(tt, y));
}

// 1 / sqrt(z), as the cpu backend: the complex division 1 / csqrt(z).
fn tfr_rsqrt_c64(z: vec2<f32>) -> vec2<f32> {
  return tfr_div_c64(vec2<f32>(1.0, 0.0), tfr_sqrt_c64(z));
}

// 1 / (1 + e^-z) from e^z with Re <= 0 only (no overflow).
fn tfr_logistic_c64(z: vec2<f32>) -> vec2<f32> {
  if (z.x >= 0.0) {
    let e = tfr_exp_c64(-z);
    return tfr_div_c64(vec2<f32>(1.0, 0.0), vec2<f32>(1.0 + e.x, e.y));
  }
  let e = tfr_exp_c64(z);
  return tfr_div_c64(e, vec2<f32>(1.0 + e.x, e.y));
}

// a^b = exp(b log a), except a^0 = 1 for every a and 0^b = 0 for Re b > 0.
fn tfr_pow_c64(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
  if (tfr_m_is_zero(b.x) && tfr_m_is_zero(b.y)) {
    return vec2<f32>(1.0, 0.0);
  }
  if (tfr_m_is_zero(a.x) && tfr_m_is_zero(a.y) && b.x > 0.0) {
    return vec2<f32>(0.0, 0.0);
  }
  return tfr_exp_c64(tfr_m_cmul_annexg(b, tfr_log_c64(a)));
}

// ---------------------------------------------------------------------------
// Hyperbolic and trigonometric functions
// ---------------------------------------------------------------------------

fn tfr_sinh_c64(z: vec2<f32>) -> vec2<f32> {
  let x = z.x;
  let y = z.y;
  if (tfr_m_is_finite(x) && tfr_m_is_finite(y)) {
    if (tfr_m_is_zero(y)) {
      return vec2<f32>(tfr_sinh_f32(x), y);
    }
    let ax = tfr_m_abs(x);
    if (ax > 88.0) {
      // e^|x| / 2 (cos y + i sin y), scaled
      let e = tfr_m_exp_parts(min(ax, 200.0), 0.0);
      let m = e.m.x + e.m.y;
      let re = tfr_m_ldexp(m * tfr_cos_f32(y), e.k - 1);
      let im = tfr_m_ldexp(m * tfr_sin_f32(y), e.k - 1);
      return vec2<f32>(tfr_m_copysign(1.0, x) * re, im);
    }
    return vec2<f32>(tfr_sinh_f32(x) * tfr_cos_f32(y), tfr_cosh_f32(x) * tfr_sin_f32(y));
  }
  // Annex G: csinh is odd and conj-symmetric
  if (tfr_m_is_zero(x)) {
    // y infinite or NaN
    return vec2<f32>(x, tfr_m_nan2(y, y));
  }
  if (tfr_m_is_inf(x)) {
    if (tfr_m_is_zero(y)) {
      return z;
    }
    if (tfr_m_is_finite(y)) {
      return vec2<f32>(x * tfr_cos_f32(y), tfr_m_inf() * tfr_sin_f32(y));
    }
    return vec2<f32>(x, tfr_m_nan2(y, y));
  }
  if (tfr_m_is_nan(x) && tfr_m_is_zero(y)) {
    return z;
  }
  return tfr_m_cnan();
}

fn tfr_cosh_c64(z: vec2<f32>) -> vec2<f32> {
  let x = z.x;
  let y = z.y;
  if (tfr_m_is_finite(x) && tfr_m_is_finite(y)) {
    if (tfr_m_is_zero(y)) {
      return vec2<f32>(tfr_cosh_f32(x), y * tfr_m_copysign(1.0, x));
    }
    let ax = tfr_m_abs(x);
    if (ax > 88.0) {
      let e = tfr_m_exp_parts(min(ax, 200.0), 0.0);
      let m = e.m.x + e.m.y;
      let re = tfr_m_ldexp(m * tfr_cos_f32(y), e.k - 1);
      let im = tfr_m_ldexp(m * tfr_sin_f32(y), e.k - 1);
      return vec2<f32>(re, tfr_m_copysign(1.0, x) * im);
    }
    return vec2<f32>(tfr_cosh_f32(x) * tfr_cos_f32(y), tfr_sinh_f32(x) * tfr_sin_f32(y));
  }
  if (tfr_m_is_zero(x)) {
    // y infinite or NaN: NaN +- i0
    return vec2<f32>(tfr_m_nan2(y, y), 0.0);
  }
  if (tfr_m_is_inf(x)) {
    if (tfr_m_is_zero(y)) {
      return vec2<f32>(tfr_m_inf(), y * tfr_m_copysign(1.0, x));
    }
    if (tfr_m_is_finite(y)) {
      return vec2<f32>(tfr_m_inf() * tfr_cos_f32(y), x * tfr_sin_f32(y));
    }
    return vec2<f32>(tfr_m_inf(), tfr_m_nan2(y, y));
  }
  if (tfr_m_is_nan(x) && tfr_m_is_zero(y)) {
    return vec2<f32>(x, y);
  }
  return tfr_m_cnan();
}

fn tfr_tanh_c64(z: vec2<f32>) -> vec2<f32> {
  let x = z.x;
  let y = z.y;
  if (tfr_m_is_inf(x)) {
    // 1 + i0 sin(2y) (sign of the zero from sin 2y when y is finite)
    var im = tfr_m_copysign(0.0, y);
    if (tfr_m_is_finite(y)) {
      im = tfr_m_copysign(0.0, tfr_sin_f32(y) * tfr_cos_f32(y));
    }
    return vec2<f32>(tfr_m_copysign(1.0, x), im);
  }
  if (tfr_m_is_nan(x)) {
    if (tfr_m_is_zero(y)) {
      return z;
    }
    return tfr_m_cnan();
  }
  if (!tfr_m_is_finite(y)) {
    // as glibc (and C23): tanh(+-0 + i inf or NaN) = +-0 + i NaN
    if (tfr_m_is_zero(x)) {
      return vec2<f32>(x, tfr_m_nan());
    }
    return tfr_m_cnan();
  }
  if (tfr_m_is_zero(y)) {
    return vec2<f32>(tfr_tanh_f32(x), y);
  }
  let ax = tfr_m_abs(x);
  if (ax > 9.5) {
    // tanh -> +-1; im = 4 sin y cos y e^(-2|x|)
    let e = tfr_m_exp_parts(-2.0 * min(ax, 60.0), 0.0);
    let m = e.m.x + e.m.y;
    let im = tfr_m_ldexp(4.0 * m * tfr_sin_f32(y) * tfr_cos_f32(y), e.k);
    return vec2<f32>(tfr_m_copysign(1.0, x), im);
  }
  // Kahan: t = tan y, b = 1 + t^2, s = sinh x, r = sqrt(1 + s^2):
  // tanh z = (b r s + i t) / (1 + b s^2)
  let t = tfr_tan_f32(y);
  let b = 1.0 + t * t;
  let s = tfr_sinh_f32(x);
  let r = tfr_sqrt_f32(1.0 + s * s);
  let d = 1.0 + b * s * s;
  return vec2<f32>(tfr_div_f32(b * r * s, d), tfr_div_f32(t, d));
}

// sin z = -i sinh(iz), cos z = cosh(iz), tan z = -i tanh(iz).
fn tfr_sin_c64(z: vec2<f32>) -> vec2<f32> {
  let w = tfr_sinh_c64(vec2<f32>(-z.y, z.x));
  return vec2<f32>(w.y, -w.x);
}

fn tfr_cos_c64(z: vec2<f32>) -> vec2<f32> {
  return tfr_cosh_c64(vec2<f32>(-z.y, z.x));
}

fn tfr_tan_c64(z: vec2<f32>) -> vec2<f32> {
  let w = tfr_tanh_c64(vec2<f32>(-z.y, z.x));
  return vec2<f32>(w.y, -w.x);
}

// ---------------------------------------------------------------------------
// Inverse functions (Kahan's formulas with square roots of 1 +- z)
// ---------------------------------------------------------------------------

// a b - c d with one final rounding of the exact products' sum (finite).
fn tfr_m_dot2(a: f32, b: f32, c: f32, d: f32) -> f32 {
  let p = tfr_m_two_prod(a, b);
  let q = tfr_m_two_prod(c, d);
  let s = tfr_m_two_sum(p.x, -q.x);
  return s.x + (s.y + (p.y - q.y));
}

fn tfr_asinh_c64(z: vec2<f32>) -> vec2<f32> {
  // asinh z = -i asin(iz)
  let w = tfr_asin_c64(vec2<f32>(-z.y, z.x));
  return vec2<f32>(w.y, -w.x);
}

// Kahan: re = atan2(x, Re(sqrt(1 - z) sqrt(1 + z))),
// im = asinh(Im(conj(sqrt(1 - z)) sqrt(1 + z))).
fn tfr_asin_c64(z: vec2<f32>) -> vec2<f32> {
  let x = z.x;
  let y = z.y;
  if (!tfr_m_is_finite(x) || !tfr_m_is_finite(y)) {
    // through casinh's Annex G table: casin z = -i casinh(iz)
    let w = tfr_m_casinh_special(vec2<f32>(-y, x));
    return vec2<f32>(w.y, -w.x);
  }
  let ax = tfr_m_abs(x);
  let ay = tfr_m_abs(y);
  if (max(ax, ay) > 0x1p60f) {
    // beyond 2^60, 1 +- z rounds to z: in the first quadrant
    // asin z = pi/2 - arg z + i log|2z| up to O(1/z^2); odd, conj-symmetric
    let l = tfr_log_c64(vec2<f32>(ax, ay));  // log|z| + i arg, first quadrant
    let re = 1.5707963267948966 - l.y;
    return vec2<f32>(tfr_m_copysign(re, x), tfr_m_copysign(l.x + 0.6931471805599453, y));
  }
  let s1 = tfr_sqrt_c64(vec2<f32>(1.0 - x, -y));
  let s2 = tfr_sqrt_c64(vec2<f32>(1.0 + x, y));
  let re = tfr_atan2_f32(x, tfr_m_dot2(s1.x, s2.x, s1.y, s2.y));
  let im = tfr_asinh_f32(tfr_m_dot2(s1.x, s2.y, s1.y, s2.x));
  return vec2<f32>(re, im);
}

fn tfr_acos_c64(z: vec2<f32>) -> vec2<f32> {
  let x = z.x;
  let y = z.y;
  if (!tfr_m_is_finite(x) || !tfr_m_is_finite(y)) {
    return tfr_m_cacos_special(z);
  }
  let ax = tfr_m_abs(x);
  let ay = tfr_m_abs(y);
  if (max(ax, ay) > 0x1p60f) {
    // beyond 2^60: acos z = atan2(|y|, x) - i sign(y) log|2z| + O(1/z^2)
    let l = tfr_log_c64(vec2<f32>(ax, ay));
    let re = tfr_atan2_f32(ay, x);
    return vec2<f32>(re, -tfr_m_copysign(l.x + 0.6931471805599453, y));
  }
  let s1 = tfr_sqrt_c64(vec2<f32>(1.0 - x, -y));
  let s2 = tfr_sqrt_c64(vec2<f32>(1.0 + x, y));
  let re = 2.0 * tfr_atan2_f32(s1.x, s2.x);
  let im = tfr_asinh_f32(tfr_m_dot2(s2.x, s1.y, s2.y, s1.x));
  return vec2<f32>(re, im);
}

fn tfr_acosh_c64(z: vec2<f32>) -> vec2<f32> {
  let x = z.x;
  let y = z.y;
  if (!tfr_m_is_finite(x) || !tfr_m_is_finite(y)) {
    return tfr_m_cacosh_special(z);
  }
  let ax = tfr_m_abs(x);
  let ay = tfr_m_abs(y);
  if (max(ax, ay) > 0x1p60f) {
    let l = tfr_log_c64(vec2<f32>(ax, ay));
    return vec2<f32>(l.x + 0.6931471805599453, tfr_m_copysign(tfr_atan2_f32(ay, x), y));
  }
  let s1 = tfr_sqrt_c64(vec2<f32>(x - 1.0, y));
  let s2 = tfr_sqrt_c64(vec2<f32>(x + 1.0, y));
  let re = tfr_asinh_f32(tfr_m_dot2(s1.x, s2.x, -s1.y, s2.y));
  let im = 2.0 * tfr_atan2_f32(s1.y, s2.x);
  return vec2<f32>(re, im);
}

// atanh z (Kahan): re = log1p(4x / ((1 - x)^2 + y^2)) / 4,
// im = atan2(2y, (1 - x)(1 + x) - y^2) / 2.
fn tfr_atanh_c64(z: vec2<f32>) -> vec2<f32> {
  let x = z.x;
  let y = z.y;
  let ax = tfr_m_abs(x);
  let ay = tfr_m_abs(y);
  if (!tfr_m_is_finite(x) || !tfr_m_is_finite(y)) {
    if (tfr_m_is_inf(x) || tfr_m_is_inf(y)) {
      // +-0 + i pi/2 (NaN imaginary part only for an infinite x with NaN y)
      let im = select(tfr_m_copysign(TFR_M_PIO2_HI, y), y, tfr_m_is_nan(y));
      return vec2<f32>(tfr_m_copysign(0.0, x), im);
    }
    if (tfr_m_is_zero(x)) {
      return vec2<f32>(x, tfr_m_nan2(y, y));
    }
    return tfr_m_cnan();
  }
  if (max(ax, ay) > 0x1p30f) {
    // re = x / |z|^2 (scaled), im = +-pi/2
    let h = tfr_abs_c64(z);
    let re = tfr_div_f32(tfr_div_f32(x, h), h);
    return vec2<f32>(re, tfr_m_copysign(TFR_M_PIO2_HI, y));
  }
  if (ax == 1.0 && ay == 0.0) {
    return vec2<f32>(tfr_m_copysign(tfr_m_inf(), x), y);
  }
  // (1 - x)^2 + y^2 and (1 - x)(1 + x) - y^2 in double-f32
  let omx = tfr_m_two_sum(1.0, -ax);
  let d1 = tfr_m_dd_mul(omx, omx);
  let den = tfr_m_dd_add(d1, tfr_m_two_prod(y, y));
  let q = tfr_m_dd_div(vec2<f32>(4.0 * ax, 0.0), den);
  var re = 0.25 * tfr_m_log1p_dd(q.x, q.y);
  if (den.x < 0x1p-100f) {
    // (1 - x)^2 + y^2 underflows: re = (log|1 + z| - log|1 - z|) / 2, with
    // 1 - |x| exact (|x| is near 1 here)
    re = 0.5 * (tfr_m_log_abs(1.0 + ax, ay) - tfr_m_log_abs(omx.x, ay));
  }
  let opx = tfr_m_two_sum(1.0, ax);
  let p = tfr_m_dd_add(tfr_m_dd_mul(omx, opx), -tfr_m_two_prod(y, y));
  let im = 0.5 * tfr_atan2_f32(2.0 * y, p.x + p.y);
  return vec2<f32>(tfr_m_copysign(re, x), im);
}

// atan z = -i atanh(iz)
fn tfr_atan_c64(z: vec2<f32>) -> vec2<f32> {
  let w = tfr_atanh_c64(vec2<f32>(-z.y, z.x));
  return vec2<f32>(w.y, -w.x);
}

// ---------------------------------------------------------------------------
// Annex G special values of the inverse functions (a part infinite or NaN)
// ---------------------------------------------------------------------------

fn tfr_m_casinh_special(z: vec2<f32>) -> vec2<f32> {
  let x = z.x;
  let y = z.y;
  if (tfr_m_is_inf(x)) {
    if (tfr_m_is_nan(y)) {
      return vec2<f32>(x, y);
    }
    if (tfr_m_is_inf(y)) {
      return vec2<f32>(x, tfr_m_copysign(TFR_M_PIO4_HI, y));
    }
    return vec2<f32>(x, tfr_m_copysign(0.0, y));
  }
  if (tfr_m_is_inf(y)) {
    if (tfr_m_is_nan(x)) {
      return vec2<f32>(tfr_m_inf(), x);
    }
    return vec2<f32>(tfr_m_copysign(tfr_m_inf(), x), tfr_m_copysign(TFR_M_PIO2_HI, y));
  }
  // NaN in x or y, the other finite
  if (tfr_m_is_nan(x) && tfr_m_is_zero(y)) {
    return z;
  }
  return tfr_m_cnan();
}

fn tfr_m_cacos_special(z: vec2<f32>) -> vec2<f32> {
  let x = z.x;
  let y = z.y;
  if (tfr_m_is_inf(x)) {
    if (tfr_m_is_nan(y)) {
      return vec2<f32>(y, tfr_m_inf());
    }
    if (tfr_m_is_inf(y)) {
      return vec2<f32>(select(TFR_M_PIO4_HI, 2.35619449615478515625, x < 0.0),
                       -tfr_m_copysign(tfr_m_inf(), y));
    }
    return vec2<f32>(select(0.0, TFR_M_PI_HI, x < 0.0), -tfr_m_copysign(tfr_m_inf(), y));
  }
  if (tfr_m_is_inf(y)) {
    if (tfr_m_is_nan(x)) {
      return vec2<f32>(x, -y);
    }
    return vec2<f32>(TFR_M_PIO2_HI, -y);
  }
  if (tfr_m_is_zero(x) && tfr_m_is_nan(y)) {
    return vec2<f32>(TFR_M_PIO2_HI, y);
  }
  return tfr_m_cnan();
}

fn tfr_m_cacosh_special(z: vec2<f32>) -> vec2<f32> {
  let x = z.x;
  let y = z.y;
  if (tfr_m_is_zero(x) && tfr_m_is_nan(y)) {
    return vec2<f32>(y, TFR_M_PIO2_HI);  // as glibc
  }
  if (tfr_m_is_inf(x)) {
    if (tfr_m_is_nan(y)) {
      return vec2<f32>(tfr_m_inf(), y);
    }
    if (tfr_m_is_inf(y)) {
      let a = select(TFR_M_PIO4_HI, 2.35619449615478515625, x < 0.0);
      return vec2<f32>(tfr_m_inf(), tfr_m_copysign(a, y));
    }
    return vec2<f32>(tfr_m_inf(), tfr_m_copysign(select(0.0, TFR_M_PI_HI, x < 0.0), y));
  }
  if (tfr_m_is_inf(y)) {
    if (tfr_m_is_nan(x)) {
      return vec2<f32>(tfr_m_inf(), x);
    }
    return vec2<f32>(tfr_m_inf(), tfr_m_copysign(TFR_M_PIO2_HI, y));
  }
  return tfr_m_cnan();
}
