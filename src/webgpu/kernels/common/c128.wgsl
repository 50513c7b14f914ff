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
// Wired into the op table (ew_table.c), reduce, scatter and dot_general:
// add, subtract, multiply, negate, conj, eq/ne, maximum/minimum. divide
// (checked bit for bit against the cpu on all pairs of edge values and
// random pairs), abs, sign, sqrt and rsqrt (each a transcription of the
// algorithm named above, which a C prototype of it reproduced bit for bit
// on 2e7 random and edge inputs; the WGSL not yet run against the cpu) are
// not wired: lavapipe, whose compiler inlines every call, takes minutes to
// compile a kernel with a dozen inlined f64 divisions and square roots (abs
// alone, one square root and a dozen f64 multiplies and adds, was still
// compiling after 4 minutes on 2026-12-06; sign and sqrt with it, after 10,
// at 3.8 GB). They need restructuring so that each f64 primitive appears once (the steps as
// iterations of one loop) before the op table can list them.
// The analytic functions (exp, log, sin, pow, ...) need an f64 math library
// and are not here; they would go below, under their own heading.

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

fn tfr_c128_is_snan(a: vec2<u32>) -> bool {
  return tfr_f64_is_nan(a) && (a.y & 0x00080000u) == 0u;
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

// Multiplies every part of the four by s (a power of two: exact but where
// the result leaves the normal range, where it rounds as a division would).
fn tfr_c128_scale4(v: array<vec2<u32>, 4>, s: vec2<u32>) -> array<vec2<u32>, 4> {
  return array<vec2<u32>, 4>(tfr_f64_mul(v[0], s), tfr_f64_mul(v[1], s), tfr_f64_mul(v[2], s),
                             tfr_f64_mul(v[3], s));
}

// (a + bi) / (c + di), __divdc3's steps (see the header).
fn tfr_c128_div_parts(a0: vec2<u32>, b0: vec2<u32>, c0: vec2<u32>, d0: vec2<u32>) -> vec4<u32> {
  let rbig = vec2<u32>(0xffffffffu, 0x7fdfffffu);      // DBL_MAX / 2
  let rmin2 = vec2<u32>(0u, 0x3cb00000u);              // DBL_EPSILON
  let rminscal = vec2<u32>(0u, 0x43300000u);           // 1 / DBL_EPSILON
  let rmax2 = vec2<u32>(0xffffffffu, 0x7c9fffffu);     // rbig * rmin2
  var v = array<vec2<u32>, 4>(a0, b0, c0, d0);
  // The larger divisor part (by magnitude) is p, the other q; when d is the
  // larger one the roles of c and d swap and so do the formulas below.
  let dlarger = tfr_f64_lt(tfr_f64_abs(c0), tfr_f64_abs(d0));
  var big = select(c0, d0, dlarger);
  if (tfr_f64_le(rbig, tfr_f64_abs(big))) {
    v = tfr_c128_scale4(v, TFR_C128_HALF);
  }
  big = select(v[2], v[3], dlarger);
  let aa = tfr_f64_abs(v[0]);
  let ab = tfr_f64_abs(v[1]);
  let abig = tfr_f64_abs(big);
  if (tfr_f64_lt(abig, rmin2)) {
    v = tfr_c128_scale4(v, rminscal);
  } else if ((tfr_f64_lt(aa, TFR_C128_DBL_MIN) && tfr_f64_lt(ab, rmax2) && tfr_f64_lt(abig, rmax2)) ||
             (tfr_f64_lt(ab, TFR_C128_DBL_MIN) && tfr_f64_lt(aa, rmax2) && tfr_f64_lt(abig, rmax2))) {
    v = tfr_c128_scale4(v, rminscal);
  }
  let a = v[0];
  let b = v[1];
  let c = v[2];
  let d = v[3];
  var x: vec2<u32>;
  var y: vec2<u32>;
  if (dlarger) {
    let ratio = tfr_f64_div(c, d);
    let denom = tfr_f64_add(tfr_f64_mul(c, ratio), d);
    if (tfr_f64_lt(TFR_C128_DBL_MIN, tfr_f64_abs(ratio))) {
      x = tfr_f64_div(tfr_f64_add(tfr_f64_mul(a, ratio), b), denom);
      y = tfr_f64_div(tfr_f64_sub(tfr_f64_mul(b, ratio), a), denom);
    } else {
      x = tfr_f64_div(tfr_f64_add(tfr_f64_mul(c, tfr_f64_div(a, d)), b), denom);
      y = tfr_f64_div(tfr_f64_sub(tfr_f64_mul(c, tfr_f64_div(b, d)), a), denom);
    }
  } else {
    let ratio = tfr_f64_div(d, c);
    let denom = tfr_f64_add(tfr_f64_mul(d, ratio), c);
    if (tfr_f64_lt(TFR_C128_DBL_MIN, tfr_f64_abs(ratio))) {
      x = tfr_f64_div(tfr_f64_add(tfr_f64_mul(b, ratio), a), denom);
      y = tfr_f64_div(tfr_f64_sub(b, tfr_f64_mul(a, ratio)), denom);
    } else {
      x = tfr_f64_div(tfr_f64_add(a, tfr_f64_mul(d, tfr_f64_div(b, c))), denom);
      y = tfr_f64_div(tfr_f64_sub(b, tfr_f64_mul(d, tfr_f64_div(a, c))), denom);
    }
  }
  // Annex G: NaN + NaN i from nonzero / zero, infinite / finite or finite /
  // infinite becomes the infinity or zero it stands for.
  if (tfr_f64_is_nan(x) && tfr_f64_is_nan(y)) {
    let one = TFR_F64_ONE;
    if (tfr_f64_is_zero(c) && tfr_f64_is_zero(d) && (!tfr_f64_is_nan(a) || !tfr_f64_is_nan(b))) {
      let inf = tfr_c128_copysign(TFR_C128_INF, c);
      x = tfr_f64_mul(inf, a);
      y = tfr_f64_mul(inf, b);
    } else if ((tfr_f64_is_inf(a) || tfr_f64_is_inf(b)) && tfr_f64_is_finite(c) &&
               tfr_f64_is_finite(d)) {
      let a1 = tfr_c128_copysign(select(TFR_C128_ZERO, one, tfr_f64_is_inf(a)), a);
      let b1 = tfr_c128_copysign(select(TFR_C128_ZERO, one, tfr_f64_is_inf(b)), b);
      x = tfr_f64_mul(TFR_C128_INF, tfr_f64_add(tfr_f64_mul(a1, c), tfr_f64_mul(b1, d)));
      y = tfr_f64_mul(TFR_C128_INF, tfr_f64_sub(tfr_f64_mul(b1, c), tfr_f64_mul(a1, d)));
    } else if ((tfr_f64_is_inf(c) || tfr_f64_is_inf(d)) && tfr_f64_is_finite(a) &&
               tfr_f64_is_finite(b)) {
      let c1 = tfr_c128_copysign(select(TFR_C128_ZERO, one, tfr_f64_is_inf(c)), c);
      let d1 = tfr_c128_copysign(select(TFR_C128_ZERO, one, tfr_f64_is_inf(d)), d);
      x = tfr_f64_mul(TFR_C128_ZERO, tfr_f64_add(tfr_f64_mul(a, c1), tfr_f64_mul(b, d1)));
      y = tfr_f64_mul(TFR_C128_ZERO, tfr_f64_sub(tfr_f64_mul(b, c1), tfr_f64_mul(a, d1)));
    }
  }
  return vec4<u32>(x, y);
}

fn tfr_c128_div(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
  return tfr_c128_div_parts(a.xy, a.zw, b.xy, b.zw);
}

// ---- hypot, abs, sign ----

// sqrt(ax^2 + ay^2) for ax >= ay >= 0 whose squares and (ax - ay)^2 stay in
// range, corrected by the error of the rounded root (glibc's kernel).
fn tfr_c128_hypot_kernel(ax: vec2<u32>, ay: vec2<u32>) -> vec2<u32> {
  var h = tfr_f64_sqrt(tfr_f64_add(tfr_f64_mul(ax, ax), tfr_f64_mul(ay, ay)));
  var t1: vec2<u32>;
  var t2: vec2<u32>;
  if (tfr_f64_le(h, tfr_f64_mul(TFR_C128_TWO, ay))) {
    let delta = tfr_f64_sub(h, ay);
    t1 = tfr_f64_mul(ax, tfr_f64_sub(tfr_f64_mul(TFR_C128_TWO, delta), ax));
    t2 = tfr_f64_mul(tfr_f64_sub(delta, tfr_f64_mul(TFR_C128_TWO, tfr_f64_sub(ax, ay))), delta);
  } else {
    let delta = tfr_f64_sub(h, ax);
    t1 = tfr_f64_mul(tfr_f64_mul(TFR_C128_TWO, delta), tfr_f64_sub(ax, tfr_f64_mul(TFR_C128_TWO, ay)));
    t2 = tfr_f64_add(tfr_f64_mul(tfr_f64_sub(tfr_f64_mul(TFR_C128_FOUR, delta), ay), ay),
                     tfr_f64_mul(delta, delta));
  }
  return tfr_f64_sub(h, tfr_f64_div(tfr_f64_add(t1, t2), tfr_f64_mul(TFR_C128_TWO, h)));
}

fn tfr_c128_hypot(x: vec2<u32>, y: vec2<u32>) -> vec2<u32> {
  let scale = vec2<u32>(0u, 0x1a700000u);      // 2^-600
  let unscale = vec2<u32>(0u, 0x65700000u);    // 2^600
  let large = vec2<u32>(0u, 0x5fe00000u);      // 2^511
  let tiny = vec2<u32>(0u, 0x20000000u);       // 2^-511
  let eps = vec2<u32>(0u, 0x3c900000u);        // 2^-54
  let uneps = vec2<u32>(0u, 0x43500000u);      // 2^54
  if (!tfr_f64_is_finite(x) || !tfr_f64_is_finite(y)) {
    if ((tfr_f64_is_inf(x) || tfr_f64_is_inf(y)) && !tfr_c128_is_snan(x) && !tfr_c128_is_snan(y)) {
      return TFR_C128_INF;
    }
    return tfr_f64_add(x, y);
  }
  let fx = tfr_f64_abs(x);
  let fy = tfr_f64_abs(y);
  let xlt = tfr_f64_lt(fx, fy);
  let ax = select(fx, fy, xlt);
  let ay = select(fy, fx, xlt);
  if (tfr_f64_lt(large, ax)) {
    if (tfr_f64_le(ay, tfr_f64_mul(ax, eps))) {
      return tfr_f64_add(ax, ay);
    }
    return tfr_f64_mul(tfr_c128_hypot_kernel(tfr_f64_mul(ax, scale), tfr_f64_mul(ay, scale)),
                       unscale);
  }
  if (tfr_f64_lt(ay, tiny)) {
    if (tfr_f64_le(tfr_f64_mul(ay, uneps), ax)) {
      return tfr_f64_add(ax, ay);
    }
    return tfr_f64_mul(tfr_c128_hypot_kernel(tfr_f64_mul(ax, unscale), tfr_f64_mul(ay, unscale)),
                       scale);
  }
  if (tfr_f64_le(ay, tfr_f64_mul(ax, eps))) {
    return tfr_f64_add(ax, ay);
  }
  return tfr_c128_hypot_kernel(ax, ay);
}

fn tfr_c128_abs(a: vec4<u32>) -> vec2<u32> {
  return tfr_c128_hypot(a.xy, a.zw);
}

// z / |z|, zeros as they are; an infinite part counts as the direction of
// its limit, a NaN part gives NaN + NaN i.
fn tfr_c128_sign(a: vec4<u32>) -> vec4<u32> {
  var x = a.xy;
  var y = a.zw;
  if (tfr_f64_is_nan(x) || tfr_f64_is_nan(y)) {
    return vec4<u32>(TFR_C128_NAN, TFR_C128_NAN);
  }
  if (tfr_f64_is_inf(x) || tfr_f64_is_inf(y)) {
    x = tfr_c128_copysign(select(TFR_C128_ZERO, TFR_F64_ONE, tfr_f64_is_inf(x)), x);
    y = tfr_c128_copysign(select(TFR_C128_ZERO, TFR_F64_ONE, tfr_f64_is_inf(y)), y);
  }
  if (tfr_f64_is_zero(x) && tfr_f64_is_zero(y)) {
    return a;
  }
  let h = tfr_c128_hypot(x, y);
  return vec4<u32>(tfr_f64_div(x, h), tfr_f64_div(y, h));
}

// ---- square root ----

fn tfr_c128_sqrt(z: vec4<u32>) -> vec4<u32> {
  var re = z.xy;
  var im = z.zw;
  let rspecial = !tfr_f64_is_finite(re);
  let ispecial = !tfr_f64_is_finite(im);
  if (rspecial || ispecial) {
    if (tfr_f64_is_inf(im)) {
      return vec4<u32>(TFR_C128_INF, im);
    }
    if (tfr_f64_is_inf(re)) {
      let inan = tfr_f64_is_nan(im);
      if ((re.y & TFR_F64_SIGN) != 0u) {
        return vec4<u32>(select(TFR_C128_ZERO, TFR_C128_NAN, inan),
                         tfr_c128_copysign(TFR_C128_INF, im));
      }
      return vec4<u32>(re, select(tfr_c128_copysign(TFR_C128_ZERO, im), TFR_C128_NAN, inan));
    }
    return vec4<u32>(TFR_C128_NAN, TFR_C128_NAN);
  }
  if (tfr_f64_is_zero(im)) {
    if ((re.y & TFR_F64_SIGN) != 0u && !tfr_f64_is_zero(re)) {
      return vec4<u32>(TFR_C128_ZERO, tfr_c128_copysign(tfr_f64_sqrt(tfr_f64_neg(re)), im));
    }
    return vec4<u32>(tfr_f64_abs(tfr_f64_sqrt(re)), tfr_c128_copysign(TFR_C128_ZERO, im));
  }
  let two_min = vec2<u32>(0u, 0x00200000u);   // 2 DBL_MIN
  if (tfr_f64_is_zero(re)) {
    let ai = tfr_f64_abs(im);
    var r: vec2<u32>;
    if (tfr_f64_le(two_min, ai)) {
      r = tfr_f64_sqrt(tfr_f64_mul(TFR_C128_HALF, ai));
    } else {
      r = tfr_f64_mul(TFR_C128_HALF, tfr_f64_sqrt(tfr_f64_mul(TFR_C128_TWO, ai)));
    }
    return vec4<u32>(r, tfr_c128_copysign(r, im));
  }
  let quarter_max = vec2<u32>(0xffffffffu, 0x7fcfffffu);  // DBL_MAX / 4
  let quarter = vec2<u32>(0u, 0x3fd00000u);
  var scale = 0;
  if (tfr_f64_lt(quarter_max, tfr_f64_abs(re))) {
    scale = 1;
    re = tfr_f64_mul(re, quarter);
    im = tfr_f64_mul(im, quarter);
  } else if (tfr_f64_lt(quarter_max, tfr_f64_abs(im))) {
    scale = 1;
    if (tfr_f64_le(vec2<u32>(0u, 0x00300000u), tfr_f64_abs(re))) {  // 4 DBL_MIN
      re = tfr_f64_mul(re, quarter);
    } else {
      re = TFR_C128_ZERO;
    }
    im = tfr_f64_mul(im, quarter);
  } else if (tfr_f64_lt(tfr_f64_abs(re), two_min) && tfr_f64_lt(tfr_f64_abs(im), two_min)) {
    scale = -27;  // -(53 + 1) / 2
    let up = vec2<u32>(0u, 0x43500000u);  // 2^54
    re = tfr_f64_mul(re, up);
    im = tfr_f64_mul(im, up);
  }
  let d = tfr_c128_hypot(re, im);
  var r: vec2<u32>;
  var s: vec2<u32>;
  let small_im = tfr_f64_lt(tfr_f64_abs(im), TFR_F64_ONE);
  if (tfr_f64_lt(TFR_C128_ZERO, re)) {
    r = tfr_f64_sqrt(tfr_f64_mul(TFR_C128_HALF, tfr_f64_add(d, re)));
    if (scale == 1 && small_im) {
      s = tfr_f64_div(im, r);
      r = tfr_f64_mul(r, TFR_C128_TWO);
      scale = 0;
    } else {
      s = tfr_f64_mul(TFR_C128_HALF, tfr_f64_div(im, r));
    }
  } else {
    s = tfr_f64_sqrt(tfr_f64_mul(TFR_C128_HALF, tfr_f64_sub(d, re)));
    if (scale == 1 && small_im) {
      r = tfr_f64_abs(tfr_f64_div(im, s));
      s = tfr_f64_mul(s, TFR_C128_TWO);
      scale = 0;
    } else {
      r = tfr_f64_abs(tfr_f64_mul(TFR_C128_HALF, tfr_f64_div(im, s)));
    }
  }
  if (scale == 1) {
    r = tfr_f64_mul(r, TFR_C128_TWO);
    s = tfr_f64_mul(s, TFR_C128_TWO);
  } else if (scale != 0) {
    let down = vec2<u32>(0u, 0x3e400000u);  // 2^-27
    r = tfr_f64_mul(r, down);
    s = tfr_f64_mul(s, down);
  }
  return vec4<u32>(r, tfr_c128_copysign(s, im));
}

fn tfr_c128_rsqrt(a: vec4<u32>) -> vec4<u32> {
  let q = tfr_c128_sqrt(a);
  return tfr_c128_div_parts(TFR_F64_ONE, TFR_C128_ZERO, q.xy, q.zw);
}
