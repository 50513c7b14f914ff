// Special functions of the CHLO op set in f32 for the webgpu backend:
//   tfr_lgamma_f32(x)      log|Gamma(x)|
//   tfr_digamma_f32(x)     psi(x)
//   tfr_erf_inv_f32(x)     the inverse of erf
//   tfr_bessel_i1e_f32(x)  exp(-|x|) I1(x)
// with the semantics of the cpu backend's src/cpu/special_math.h (XLA's:
// lgamma +inf at the poles and at +-inf; digamma NaN at 0, at the negative
// integers and at -inf, +inf at +inf; erf_inv +-inf at +-1, NaN beyond;
// bessel_i1e odd, +-0 at +-inf) and the same algorithms, with f32 series
// (tools/fit_special_math.py wgsl) and double-f32 where a result needs it.
// Needs common/math_f32.wgsl in the same module (its tfr_m_* helpers and
// tfr_log_f32, tfr_exp_f32, tfr_sin_f32, tfr_tan_f32, tfr_erf_f32, ...);
// follows its conventions: special values recognised on the bits, exact
// differences kept from the compiler's rewriting with tfr_m_opaque, divisions
// whose rounding reaches the result by tfr_div_f32, subnormals as the device
// gives them. Helpers are named tfr_ms_*. Accuracy: docs/accuracy.md
// ("Special functions"), asserted by tests/unit/test_webgpu_math.c.

const TFR_MS_PSI_X0_HI: f32 = 1.46163213;
const TFR_MS_PSI_X0_LO: f32 = 1.24381501e-08;
const TFR_MS_L1 = array<f32, 14>(-0.577215672, 0.822467029, -0.400685638, 0.270580798, -0.207385555, 0.169557184, -0.144049898, 0.125509664, -0.111334264, 0.100099459, -0.0909540206, 0.0833538398, -0.0769325197, 0.0714329481);
const TFR_MS_L2 = array<f32, 20>(0.422784328, 0.322467029, -0.0673523024, 0.0205808077, -0.007385551, 0.00289051025, -0.0011927539, 0.000509669539, -0.000223154755, 9.94575094e-05, -4.4926237e-05, 2.0507212e-05, -9.43948817e-06, 4.37486688e-06, -2.03921581e-06, 9.55141218e-07, -4.49246926e-07, 2.12071853e-07, -1.00432246e-07, 4.76981015e-08);
const TFR_MS_PSI = array<f32, 18>(0.967672229, -0.44276318, 0.258499771, -0.16394271, 0.10782405, -0.0721995607, 0.0488042869, -0.0331611261, 0.0225976482, -0.0154247656, 0.0105387913, -0.00720453449, 0.00492678117, -0.00336980168, 0.00230512628, -0.0015769368, 0.00107882521, -0.000738070928);
const TFR_MS_LGM_HI: f32 = -0.121486291;
const TFR_MS_LGM_LO: f32 = 7.53479945e-10;
const TFR_MS_LM = array<f32, 14>(0.483836114, -0.147587717, 0.0646249428, -0.0327885412, 0.0179706756, -0.0103142234, 0.00610053586, -0.00368456962, 0.00225976482, -0.00140225142, 0.000878232648, -0.000554194965, 0.000351912953, -0.000224653442);
const TFR_MS_D2 = array<f32, 20>(0.422784328, 0.644934058, -0.2020569, 0.0823232308, -0.0369277559, 0.0173430629, -0.00834927708, 0.00407735631, -0.00200839294, 0.000994575094, -0.000494188629, 0.000246086565, -0.000122713347, 6.12481381e-05, -3.05882349e-05, 1.52822595e-05, -7.637198e-06, 3.81729342e-06, -1.90821265e-06, 9.53962058e-07);
const TFR_MS_STIR = array<f32, 4>(0.0833333358, -0.00277777785, 0.000793650805, -0.000595238118);
const TFR_MS_PSIA = array<f32, 4>(0.0833333358, -0.00833333377, 0.0039682542, -0.00416666688);

const TFR_MS_PI: f32 = 3.14159274;
const TFR_MS_LOG_PI: f32 = 1.14472985;
// log(2 pi)/2 - 1/2 as hi + lo
const TFR_MS_STIR_C_HI: f32 = 0.418938547;
const TFR_MS_STIR_C_LO: f32 = -1.41681449e-08;

// lgamma(1 + t) for |t| <= 1/4
fn tfr_ms_l1(t: f32) -> f32 {
  var p = TFR_MS_L1[13];
  for (var k = 12; k >= 0; k--) {
    p = fma(p, t, TFR_MS_L1[k]);
  }
  return p * t;
}

// lgamma(2 + t) for |t| <= 3/4
fn tfr_ms_l2(t: f32) -> f32 {
  var p = TFR_MS_L2[19];
  for (var k = 18; k >= 0; k--) {
    p = fma(p, t, TFR_MS_L2[k]);
  }
  return p * t;
}

// digamma(x0 + t) for -0.47 < t <= 0.54
fn tfr_ms_psi_series(t: f32) -> f32 {
  var p = TFR_MS_PSI[17];
  for (var k = 16; k >= 0; k--) {
    p = fma(p, t, TFR_MS_PSI[k]);
  }
  return p * t;
}

// lgamma(x0 + t) for |t| <= 0.3: the minimum plus t^2 P(t)
fn tfr_ms_lgamma_min(t: f32) -> f32 {
  var p = TFR_MS_LM[13];
  for (var k = 12; k >= 0; k--) {
    p = fma(p, t, TFR_MS_LM[k]);
  }
  return TFR_MS_LGM_HI + fma(t * t, p, TFR_MS_LGM_LO);
}

// digamma(2 + t) for |t| <= 3/4
fn tfr_ms_d2(t: f32) -> f32 {
  var p = TFR_MS_D2[19];
  for (var k = 18; k >= 0; k--) {
    p = fma(p, t, TFR_MS_D2[k]);
  }
  return p;
}

// |sin(pi x)| for finite x: x reduced exactly to r in [0, 1/2].
fn tfr_ms_abs_sinpi(x: f32) -> f32 {
  var r = fract(tfr_m_abs(x));  // exact
  if (r > 0.5) {
    r = 1.0 - r;  // exact
  }
  return tfr_sin_f32(TFR_MS_PI * r);
}

// pi cot(pi x) for finite non-integer x.
fn tfr_ms_pi_cotpi(x: f32) -> f32 {
  let r = fract(tfr_m_abs(x));  // exact
  var v: f32;
  if (r <= 0.25) {
    v = tfr_div_f32(TFR_MS_PI, tfr_tan_f32(TFR_MS_PI * r));
  } else if (r < 0.75) {
    v = TFR_MS_PI * tfr_tan_f32(TFR_MS_PI * (0.5 - r));  // 0.5 - r exact
  } else {
    v = -tfr_div_f32(TFR_MS_PI, tfr_tan_f32(TFR_MS_PI * (1.0 - r)));  // 1 - r exact
  }
  return select(v, -v, x < 0.0);  // cot is odd
}

// ---------------------------------------------------------------------------
// lgamma
// ---------------------------------------------------------------------------

// lgamma(x) for finite x >= 3/4.
fn tfr_ms_lgamma_pos(x: f32) -> f32 {
  if (x < 1.25) {
    if (x == 1.0) {
      return 0.0;  // +0
    }
    return tfr_ms_l1(x - 1.0);
  }
  if (x < 1.75) {
    return tfr_ms_lgamma_min(tfr_m_opaque(x - TFR_MS_PSI_X0_HI) - TFR_MS_PSI_X0_LO);
  }
  if (x < 2.75) {
    if (x == 2.0) {
      return 0.0;
    }
    return tfr_ms_l2(x - 2.0);
  }
  if (x < 8.0) {
    // Gamma(y + n) = Gamma(y) y (y + 1) ... (y + n - 1), y in [1.75, 2.75);
    // the product as double-f32
    let n = i32(x - 1.75);
    let y = x - f32(n);  // exact, as every y + j
    var p = vec2<f32>(y, 0.0);
    for (var j = 1; j < n; j++) {
      let yj = y + f32(j);
      let q = tfr_m_two_prod(p.x, yj);
      p = tfr_m_fast_two_sum(q.x, q.y + p.y * yj);
    }
    return tfr_ms_l2(y - 2.0) + (tfr_log_f32(p.x) + tfr_div_f32(p.y, p.x));
  }
  let l = tfr_m_log_dd(x);
  if (x >= 0x1p30) {
    return x * ((l.x - 1.0) + l.y);  // the rest is below 2^-30 of it; inf beyond 4.08e36
  }
  // (x - 1/2)(log x - 1) + log(2 pi)/2 - 1/2 + S(1/x), as double-f32
  let z = tfr_div_f32(1.0, x);
  let z2 = z * z;
  var s = TFR_MS_STIR[3];
  for (var k = 2; k >= 0; k--) {
    s = fma(s, z2, TFR_MS_STIR[k]);
  }
  let lm1 = tfr_m_dd_add(l, vec2<f32>(-1.0, 0.0));
  let prod = tfr_m_dd_mul(vec2<f32>(x, -0.5), lm1);
  let r = tfr_m_dd_add(prod, vec2<f32>(TFR_MS_STIR_C_HI, TFR_MS_STIR_C_LO + s * z));
  return r.x + r.y;
}

fn tfr_lgamma_f32(x: f32) -> f32 {
  if (tfr_m_is_nan(x)) {
    return tfr_m_nan2(x, x);
  }
  if (tfr_m_is_inf(x)) {
    return tfr_m_inf();
  }
  let ax = tfr_m_abs(x);
  if (ax <= 0.25) {
    if (tfr_m_is_zero(x)) {
      return tfr_m_inf();
    }
    // Gamma(x) = Gamma(1 + x) / x
    return tfr_ms_l1(x) - tfr_log_f32(ax);
  }
  if (x > 0.0) {
    if (x < 0.75) {
      // Gamma(x) = Gamma(x + 1) / x, x + 1 - x0 = x - (x0_hi - 1) - x0_lo (exact)
      let t = tfr_m_opaque(x - (TFR_MS_PSI_X0_HI - 1.0)) - TFR_MS_PSI_X0_LO;
      return tfr_ms_lgamma_min(t) - tfr_log_f32(x);
    }
    return tfr_ms_lgamma_pos(x);
  }
  if (x > -0.75) {
    // Gamma(x) = Gamma(x + 2) / (x (x + 1))
    return (tfr_ms_l2(x) - tfr_log_f32(ax)) - tfr_log1p_f32(x);
  }
  if (x == floor(x)) {
    return tfr_m_inf();  // the poles (every |x| >= 2^23 is one)
  }
  // log|Gamma(x)| = log pi - log|sin(pi x)| - log|x| - lgamma(-x)
  return ((TFR_MS_LOG_PI - tfr_log_f32(tfr_ms_abs_sinpi(x))) - tfr_log_f32(ax)) -
         tfr_ms_lgamma_pos(ax);
}

// ---------------------------------------------------------------------------
// digamma
// ---------------------------------------------------------------------------

// digamma(x) for finite x > 0.
fn tfr_ms_digamma_pos(x: f32) -> f32 {
  if (x < 1.0) {
    // psi(x) = psi(x + 1) - 1/x, x + 1 - x0 = (x - (x0_hi - 1)) - x0_lo
    let t = tfr_m_opaque(x - (TFR_MS_PSI_X0_HI - 1.0)) - TFR_MS_PSI_X0_LO;
    return tfr_ms_psi_series(t) - tfr_div_f32(1.0, x);
  }
  if (x <= 1.75) {
    let t = tfr_m_opaque(x - TFR_MS_PSI_X0_HI) - TFR_MS_PSI_X0_LO;  // x - x0_hi exact
    return tfr_ms_psi_series(t);
  }
  if (x < 8.0) {
    // psi(x) = psi(y) + sum_{j<n} 1/(y + j), y = x - n in [1.75, 2.75), where
    // psi(y) > 0.24: the terms do not cancel
    let n = i32(x - 1.75);
    let y = x - f32(n);  // exact, as every y + j
    var s = 0.0;
    for (var j = n - 1; j >= 0; j--) {
      s += tfr_div_f32(1.0, y + f32(j));
    }
    return tfr_ms_d2(y - 2.0) + s;
  }
  let l = tfr_log_f32(x);
  if (x >= 0x1p30) {
    return l;
  }
  let z = tfr_div_f32(1.0, x);
  let z2 = z * z;
  var s = TFR_MS_PSIA[3];
  for (var k = 2; k >= 0; k--) {
    s = fma(s, z2, TFR_MS_PSIA[k]);
  }
  return l - (0.5 * z + s * z2);
}

fn tfr_digamma_f32(x: f32) -> f32 {
  if (tfr_m_is_nan(x)) {
    return tfr_m_nan2(x, x);
  }
  if (tfr_m_is_inf(x)) {
    return select(tfr_m_nan(), tfr_m_inf(), x > 0.0);
  }
  if (x > 0.0) {
    return tfr_ms_digamma_pos(x);
  }
  if (x == floor(x)) {
    return tfr_m_nan();  // 0, -0 and the negative integers
  }
  // psi(x) = psi(1 - x) - pi cot(pi x); for x <= -1 with
  // psi(1 - x) = psi(-x) - 1/x (-x is exact, 1 - x would round)
  if (x > -1.0) {
    return tfr_ms_digamma_pos(1.0 - x) - tfr_ms_pi_cotpi(x);
  }
  return (tfr_ms_digamma_pos(-x) - tfr_div_f32(1.0, x)) - tfr_ms_pi_cotpi(x);
}

// ---------------------------------------------------------------------------
// erf_inv
// ---------------------------------------------------------------------------

fn tfr_erf_inv_f32(x: f32) -> f32 {
  if (tfr_m_is_nan(x)) {
    return tfr_m_nan2(x, x);
  }
  let ax = tfr_m_abs(x);
  if (ax > 1.0) {
    return tfr_m_nan();
  }
  if (ax == 1.0) {
    return tfr_m_copysign(tfr_m_inf(), x);
  }
  if (tfr_m_is_zero(x)) {
    return x;
  }
  let c = 0.886226952;  // sqrt(pi)/2
  let x2 = ax * ax;
  if (ax < 0x1p-12) {
    // c x (1 + pi x^2 / 12): the next term is below 2^-48 of it
    return x * fma(c * 0.261799395, x2, c);
  }
  let q = 1.0 - ax;  // exact for ax >= 1/2
  var y: f32;
  if (ax < 0.5) {
    // the series c x (1 + pi x^2/12 + 7 pi^2 x^4/480), within 1% of erf_inv
    y = ax * c * fma(fma(0.143931732, x2, 0.261799395), x2, 1.0);
  } else {
    // Winitzki: y^2 = sqrt((b + L/2)^2 - L/a) - (b + L/2), L = log(1 - x^2),
    // a = 0.147, b = 2 / (pi a): within 2e-3 of erf_inv
    let L = tfr_log_f32(q * (1.0 + ax));
    let h = 4.33074665 + 0.5 * L;
    y = tfr_sqrt_f32(tfr_sqrt_f32(h * h - L * 6.80272102) - h);
  }
  for (var i = 0; i < 3; i++) {
    // Halley on erf(y) = ax (ax < 1/2) or erfc(y) = 1 - ax: f''/f' = -2y,
    // y -= u / (1 + y u) with u = f / f'
    var f: f32;
    if (ax < 0.5) {
      f = tfr_erf_f32(y) - ax;
    } else {
      f = q - tfr_erfc_f32(y);
    }
    let u = f / (1.12837923 * tfr_exp_f32(-y * y));
    y = y - u / fma(y, u, 1.0);
  }
  return tfr_m_copysign(y, x);
}

// ---------------------------------------------------------------------------
// bessel_i1e
// ---------------------------------------------------------------------------

fn tfr_bessel_i1e_f32(x: f32) -> f32 {
  if (tfr_m_is_nan(x)) {
    return tfr_m_nan2(x, x);
  }
  let ax = tfr_m_abs(x);
  if (tfr_m_is_inf(x)) {
    return tfr_m_copysign(0.0, x);
  }
  if (ax <= 10.0) {
    // I1(a) = (a/2) sum_k (a^2/4)^k / (k! (k+1)!), positive terms; each term
    // and the sum as double-f32 (z = a^2/4 and the ratios z / (k (k+1))
    // exact pairs)
    var zz = vec2<f32>(0.0, 0.0);
    if (ax >= 0x1p-30) {
      let a2 = tfr_m_two_prod(ax, ax);
      zz = vec2<f32>(0.25 * a2.x, 0.25 * a2.y);
    }
    var t = vec2<f32>(1.0, 0.0);
    var s = vec2<f32>(1.0, 0.0);
    for (var k = 1; k < 32; k++) {
      if (t.x <= 0x1p-28) {
        break;
      }
      let d = f32(k * (k + 1));
      let ch = tfr_div_f32(zz.x, d);
      let cl = (tfr_m_residual(zz.x, ch, d) + zz.y) / d;  // zz / d = ch + cl
      let p = tfr_m_two_prod(t.x, ch);
      t = tfr_m_fast_two_sum(p.x, p.y + (t.x * cl + t.y * ch));
      s = tfr_m_dd_add(s, t);
    }
    // (a/2) s e^-a; a/2 last, so that a tiny a is halved once
    let e = tfr_exp_f32(-ax);
    let se = tfr_m_two_prod(s.x, e);
    return tfr_m_copysign(ax * (0.5 * (se.x + (se.y + s.y * e))), x);
  }
  // e^-a I1(a) ~ (2 pi a)^-1/2 sum_k (-1)^k c_k a^-k,
  // c_k = c_{k-1} (4 - (2k - 1)^2) / (8k): to the smallest term
  // (the terms after the first summed apart, 1 added last)
  let r = tfr_div_f32(1.0, ax);
  var term = 1.0;
  var s = 0.0;
  for (var k = 1; k < 40; k++) {
    let m = f32(2 * k - 1);
    let next = -term * r * (4.0 - m * m) / (8.0 * f32(k));
    if (tfr_m_abs(next) >= tfr_m_abs(term) || tfr_m_abs(next) < 0x1p-28) {
      break;
    }
    term = next;
    s += term;
  }
  if (ax > 0x1p100) {
    return tfr_m_copysign(0.398942292 * tfr_rsqrt_f32(ax), x);  // 2 pi a could overflow
  }
  // y = (2 pi a)^-1/2 to ~2^-40: v = 2 pi a as double-f32, one Newton step
  // y (1 + (1 - v y^2) / 2) with the residual 1 - v y^2 formed exactly
  let vh = tfr_m_two_prod(6.28318548, ax);
  let v = vec2<f32>(vh.x, vh.y + -1.7484556e-07 * ax);
  let y = tfr_rsqrt_f32(v.x);
  let y2 = tfr_m_two_prod(y, y);
  let vy2 = tfr_m_two_prod(v.x, y2.x);
  let rho = (tfr_m_opaque(1.0 - vy2.x) - vy2.y) - (v.x * y2.y + v.y * y2.x);
  let ylo = 0.5 * y * rho;
  // (y + ylo)(1 + s)
  let p = tfr_m_fast_two_sum(y, ylo);
  return tfr_m_copysign(p.x + tfr_m_opaque(p.y + p.x * s), x);
}
