// The f32 math library of the webgpu backend (docs/accuracy.md): tfr_<name>_f32
// with the semantics of the C functions src/cpu/scalar_math.h uses (expf,
// log1pf, powf, atan2f, fmodf, ...), special values included, and errors of
// at most 1-2 ulp over the whole f32 range (the bound of each function and
// how it is measured: docs/accuracy.md). WGSL's own exp, log, sin, pow, ...
// are not used: their accuracy is loose (exp 3 + 2|x| ulp, sin/cos 2^-11
// absolute on [-pi, pi] only) and tanh/pow may give NaN where C does not.
//
// Techniques: Cody-Waite argument reductions with constants split so that
// the products are exact; Payne-Hanek reduction in integer arithmetic for
// huge sin/cos/tan arguments; double-f32 (hi + lo) values where a result
// needs more than f32's precision (pow, the final sums of log, ...); minimax
// polynomials fitted by tools/fit_math_f32.py (mpmath). Division and square
// root are correctly rounded by exact integer arithmetic. Nothing relies on
// fma() being fused (it is not on lavapipe: docs/accuracy.md): exact
// products are Dekker's, on halves split by masking bits, whose partial
// products are exact, so a compiler that contracts a * b + c into an fma
// changes nothing either.
//
// NaN and infinities are recognised on the bits (a shader compiler may
// assume they do not occur), and built from bits (WGSL refuses constant
// expressions that overflow). Subnormal inputs and outputs are handled as
// normal numbers; a device that flushes them to zero flushes them here too.
// Helpers are named tfr_m_*. Needs common/u64.wgsl (64-bit products).

// ---------------------------------------------------------------------------
// Constants (tools/fit_math_f32.py constants): splits into f32 pieces
// ---------------------------------------------------------------------------

const TFR_M_LN2_HI: f32 = bitcast<f32>(0x3f317200u);  // 0.693145751953: ln 2 to 16 bits
const TFR_M_LN2_LO: f32 = bitcast<f32>(0x35bfbe8eu);  // 1.42860676533e-6: ln 2 - TFR_M_LN2_HI
const TFR_M_LOG2E: f32 = bitcast<f32>(0x3fb8aa3bu);  // 1.44269502163: 1 / ln 2
const TFR_M_PIO2_HI: f32 = bitcast<f32>(0x3fc90fdbu);  // 1.57079637051: PIO2 rounded to f32
const TFR_M_PIO2_LO: f32 = bitcast<f32>(0xb33bbd2eu);  // -4.37113882867e-8: PIO2 - TFR_M_PIO2_HI
const TFR_M_PI_HI: f32 = bitcast<f32>(0x40490fdbu);  // 3.14159274101: PI rounded to f32
const TFR_M_PI_LO: f32 = bitcast<f32>(0xb3bbbd2eu);  // -8.74227765735e-8: PI - TFR_M_PI_HI
const TFR_M_PIO4_HI: f32 = bitcast<f32>(0x3f490fdbu);  // 0.785398185253: PIO4 rounded to f32
const TFR_M_PIO4_LO: f32 = bitcast<f32>(0xb2bbbd2eu);  // -2.18556941434e-8: PIO4 - TFR_M_PIO4_HI
const TFR_M_C0_HI: f32 = bitcast<f32>(0x3f906ebbu);  // 1.12837922573: C0 rounded to f32
const TFR_M_C0_LO: f32 = bitcast<f32>(0xb37bd649u);  // -5.86353827714e-8: C0 - TFR_M_C0_HI
const TFR_M_PIO2_1: f32 = bitcast<f32>(0x3fc91000u);  // 1.57080078125: pi/2 piece 1 (15 bits)
const TFR_M_PIO2_2: f32 = bitcast<f32>(0xb6957800u);  // -4.45451587439e-6: pi/2 piece 2 (15 bits)
const TFR_M_PIO2_3: f32 = bitcast<f32>(0x2e85a400u);  // 6.07727201896e-11: pi/2 piece 3 (15 bits)
const TFR_M_PIO2_4: f32 = bitcast<f32>(0xa6f72cedu);  // -1.71512451001e-15: pi/2 - P1 - P2 - P3
const TFR_M_2OPI: f32 = bitcast<f32>(0x3f22f983u);  // 0.636619746685: 2 / pi
const TFR_M_2OPI_BITS = array<u32, 11>(
    0x00000000u, 0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u, 0xdb629599u,
    0x3c439041u, 0xfe5163abu, 0xdebbc561u, 0xb7246e3au, 0x424dd2e0u);

// ---------------------------------------------------------------------------
// Bits and special values
// ---------------------------------------------------------------------------

const TFR_M_INF_BITS: u32 = 0x7f800000u;
const TFR_M_ABS_MASK: u32 = 0x7fffffffu;
const TFR_M_SIGN_MASK: u32 = 0x80000000u;

// Module-scope variables, not constants: WGSL rejects a constant expression
// whose value is infinite or NaN.
var<private> tfr_m_inf_bits: u32 = 0x7f800000u;
var<private> tfr_m_nan_bits: u32 = 0x7fc00000u;

fn tfr_m_inf() -> f32 {
  return bitcast<f32>(tfr_m_inf_bits);
}

fn tfr_m_nan() -> f32 {
  return bitcast<f32>(tfr_m_nan_bits);
}

fn tfr_m_abs_bits(x: f32) -> u32 {
  return bitcast<u32>(x) & TFR_M_ABS_MASK;
}

fn tfr_m_is_nan(x: f32) -> bool {
  return tfr_m_abs_bits(x) > TFR_M_INF_BITS;
}

fn tfr_m_is_inf(x: f32) -> bool {
  return tfr_m_abs_bits(x) == TFR_M_INF_BITS;
}

// Neither NaN nor infinite.
fn tfr_m_is_finite(x: f32) -> bool {
  return tfr_m_abs_bits(x) < TFR_M_INF_BITS;
}

fn tfr_m_is_zero(x: f32) -> bool {
  return tfr_m_abs_bits(x) == 0u;
}

fn tfr_m_sign_bit(x: f32) -> bool {
  return (bitcast<u32>(x) & TFR_M_SIGN_MASK) != 0u;
}

// |m| with the sign of s.
fn tfr_m_copysign(m: f32, s: f32) -> f32 {
  return bitcast<f32>((bitcast<u32>(m) & TFR_M_ABS_MASK) | (bitcast<u32>(s) & TFR_M_SIGN_MASK));
}

fn tfr_m_abs(x: f32) -> f32 {
  return bitcast<f32>(tfr_m_abs_bits(x));
}

// A quiet NaN from one or two operands (propagates a NaN operand as C does;
// the payload is not specified).
fn tfr_m_nan2(x: f32, y: f32) -> f32 {
  if (tfr_m_is_nan(x)) {
    return bitcast<f32>(bitcast<u32>(x) | 0x00400000u);
  }
  if (tfr_m_is_nan(y)) {
    return bitcast<f32>(bitcast<u32>(y) | 0x00400000u);
  }
  return tfr_m_nan();
}

// 2^k for -126 <= k <= 127, exact.
fn tfr_m_pow2i(k: i32) -> f32 {
  return bitcast<f32>(u32(k + 127) << 23u);
}

// m * 2^k with one rounding (only the last multiplication may round, to a
// subnormal or to infinity), for 2^-2 <= |m| < 4 and -300 < k < 300.
fn tfr_m_scale(m: f32, k: i32) -> f32 {
  if (k > 120) {
    return m * tfr_m_pow2i(min(k - 64, 127)) * 0x1p64f;
  }
  if (k < -120) {
    return m * tfr_m_pow2i(max(k + 64, -126)) * 0x1p-64f;
  }
  return m * tfr_m_pow2i(k);
}

// v * 2^k for any finite v, subnormal included, computed from v's bits:
// devices may flush a subnormal operand of a multiplication to zero
// (lavapipe does), so scaling a tiny value up must not multiply it. Exact
// unless the result is subnormal or overflows.
fn tfr_m_scale_exact(v: f32, k: i32) -> f32 {
  if ((bitcast<u32>(v) & TFR_M_ABS_MASK) == 0u) {
    return v;
  }
  let f = tfr_m_frexp(bitcast<f32>(bitcast<u32>(v) & TFR_M_ABS_MASK));
  let r = tfr_m_ldexp(f.f, f.e + k);
  return bitcast<f32>(bitcast<u32>(r) | (bitcast<u32>(v) & 0x80000000u));
}

// v * 2^k for any k in [-600, 600], in up to five exact steps (only the last
// may round, when the result is subnormal; an intermediate overflow is the
// result's). For v whose scaled magnitude is far from the ends of the range.
fn tfr_m_ldexp(v: f32, k: i32) -> f32 {
  var r = v;
  var n = k;
  for (var i = 0; i < 4; i++) {
    let s = clamp(n, -126, 127);
    if (s == n) {
      break;
    }
    r = r * tfr_m_pow2i(s);
    n = n - s;
  }
  return r * tfr_m_pow2i(clamp(n, -126, 127));
}

// (+-inf) * v with IEEE's rules spelled out on the bits (inf * 0 and inf *
// NaN are NaN): a compiler may fold a product with a constant 0 to 0.
fn tfr_m_inf_times(sign_of: f32, v: f32) -> f32 {
  if (tfr_m_is_nan(v) || tfr_m_is_zero(v)) {
    return tfr_m_nan();
  }
  let sb = (bitcast<u32>(sign_of) ^ bitcast<u32>(v)) & TFR_M_SIGN_MASK;
  return bitcast<f32>(sb | TFR_M_INF_BITS);
}

// x = f * 2^e with f in [1, 2) (x finite, non-zero, |x| given): e and the
// bits of f. Subnormals are normalised.
struct TfrMFrexp {
  f: f32,
  e: i32,
}

fn tfr_m_frexp(ax: f32) -> TfrMFrexp {
  var b = bitcast<u32>(ax) & TFR_M_ABS_MASK;
  var e = i32(b >> 23u) - 127;
  if ((b >> 23u) == 0u) {
    // subnormal: b = mantissa; shift its leading one to bit 23
    let lz = countLeadingZeros(b) - 8u;
    b = b << lz;
    e = -126 - i32(lz);
  }
  return TfrMFrexp(bitcast<f32>((b & 0x007fffffu) | 0x3f800000u), e);
}

// ---------------------------------------------------------------------------
// Double-f32 arithmetic: a value hi + lo with |lo| <= ulp(hi) / 2.
//
// The error-free sums below need each rounding to happen as written, but a
// shader compiler may simplify floating-point expressions as if they were
// exact (lavapipe's does: (a + b) - a becomes b, and the error of a sum
// comes out 0; q + c y with q = a y becomes (a + c) y, which rounds a + c
// and loses a Newton correction). tfr_m_opaque hides a rounded value from
// such rewriting: it returns v unchanged (it flips a bit of one NaN pattern
// only), through integer operations no compiler can see through. Corrections
// added to a value they share a factor with go through it.
// ---------------------------------------------------------------------------

fn tfr_m_opaque(v: f32) -> f32 {
  let b = bitcast<u32>(v);
  return bitcast<f32>(b ^ select(0u, 1u, b == 0x7fbadbadu));
}

// a + b = s + e exactly (any a, b).
fn tfr_m_two_sum(a: f32, b: f32) -> vec2<f32> {
  let s = tfr_m_opaque(a + b);
  let bb = s - a;
  let e = (a - (s - bb)) + (b - bb);
  return vec2<f32>(s, e);
}

// a + b = s + e exactly when |a| >= |b| (or a = 0).
fn tfr_m_fast_two_sum(a: f32, b: f32) -> vec2<f32> {
  let s = tfr_m_opaque(a + b);
  return vec2<f32>(s, b - (s - a));
}

// The rounding error of x * x where fma is fused, 0 where it is not (a probe
// for tests/unit/test_webgpu_math.c and bench/webgpu_accuracy.c).
fn tfr_fma_residual_f32(x: f32) -> f32 {
  let p = x * x;
  return fma(x, x, -p);
}

// Probes of the helpers below (tests, bench): the exact errors of 1 + x and
// of x * x.
fn tfr_two_sum_err_f32(x: f32) -> f32 {
  return tfr_m_two_sum(1.0, x).y;
}

fn tfr_two_prod_err_f32(x: f32) -> f32 {
  return tfr_m_two_prod(x, x).y;
}

// a = hi + lo: hi is a rounded to 12 significant bits (on the bits: adding
// half of the dropped part before masking; nothing to contract), lo = a - hi
// (exact) has at most 11 bits and |lo| <= ulp(hi) / 2 -- Veltkamp's split,
// which Dekker's product below needs (a truncated hi would leave lo 12 bits
// and a partial sum of 25).
fn tfr_m_split(a: f32) -> vec2<f32> {
  let b = bitcast<u32>(a);
  let r = (b + 0x800u) & 0xfffff000u;
  // near the largest float the rounding would carry into infinity: truncate
  let h = bitcast<f32>(select(r, b & 0xfffff000u, (r & TFR_M_INF_BITS) == TFR_M_INF_BITS));
  return vec2<f32>(h, a - h);
}

// a * b = p + e exactly (Dekker; no overflow or underflow). Every partial
// product is exact, so the result does not depend on fma contraction.
fn tfr_m_two_prod(a: f32, b: f32) -> vec2<f32> {
  let p = tfr_m_opaque(a * b);
  let x = tfr_m_split(a);
  let y = tfr_m_split(b);
  let e = (((x.x * y.x - p) + x.x * y.y) + x.y * y.x) + x.y * y.y;
  return vec2<f32>(p, e);
}

// a - b c with one rounding when b c is close to a (within a factor 2: the
// leading difference is exact by Sterbenz): the residual of a division,
// square root or reciprocal.
fn tfr_m_residual(a: f32, b: f32, c: f32) -> f32 {
  let p = tfr_m_two_prod(b, c);
  return (a - p.x) - p.y;
}

fn tfr_m_dd_add(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
  let s = tfr_m_two_sum(a.x, b.x);
  return tfr_m_fast_two_sum(s.x, s.y + (a.y + b.y));
}

fn tfr_m_dd_mul(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
  let p = tfr_m_two_prod(a.x, b.x);
  return tfr_m_fast_two_sum(p.x, p.y + (a.x * b.y + a.y * b.x));
}

// 1 / d for a normal d (hi + lo), to ~2^-46.
fn tfr_m_dd_recip(d: vec2<f32>) -> vec2<f32> {
  let y0 = 1.0 / d.x;
  let y = y0 + tfr_m_opaque(y0 * tfr_m_residual(1.0, y0, d.x));  // ~0.5 ulp
  let rho = tfr_m_residual(1.0, y, d.x) - y * d.y;   // 1 - y d
  return tfr_m_fast_two_sum(y, y * rho);
}

// n / d (n, d double-f32, d normal, n / d normal), to ~2^-44.
fn tfr_m_dd_div(n: vec2<f32>, d: vec2<f32>) -> vec2<f32> {
  let y = tfr_m_dd_recip(d);
  let q = n.x * y.x;
  let rho = (tfr_m_residual(n.x, q, d.x) - q * d.y) + n.y;  // n - q d
  return tfr_m_fast_two_sum(q, rho * y.x);
}

// sqrt(a) for a normal a > 0 (hi + lo), to ~2^-46.
fn tfr_m_dd_sqrt(a: vec2<f32>) -> vec2<f32> {
  let s = tfr_sqrt_f32(a.x);
  let rho = tfr_m_residual(a.x, s, s) + a.y;
  return tfr_m_fast_two_sum(s, rho * (0.5 / s));
}

// ---------------------------------------------------------------------------
// Division, square root, remainder: exact integer arithmetic
// ---------------------------------------------------------------------------

// x / y correctly rounded (to nearest even), IEEE special values. WGSL's `/`
// is only accurate to 2.5 ulp.
fn tfr_div_f32(x: f32, y: f32) -> f32 {
  let bx = bitcast<u32>(x);
  let by = bitcast<u32>(y);
  let sign = (bx ^ by) & TFR_M_SIGN_MASK;
  let ax = bx & TFR_M_ABS_MASK;
  let ay = by & TFR_M_ABS_MASK;
  if (ax > TFR_M_INF_BITS || ay > TFR_M_INF_BITS) {
    return tfr_m_nan2(x, y);
  }
  if (ax == TFR_M_INF_BITS) {
    if (ay == TFR_M_INF_BITS) {
      return tfr_m_nan();
    }
    return bitcast<f32>(sign | TFR_M_INF_BITS);
  }
  if (ay == TFR_M_INF_BITS) {
    return bitcast<f32>(sign);
  }
  if (ay == 0u) {
    if (ax == 0u) {
      return tfr_m_nan();
    }
    return bitcast<f32>(sign | TFR_M_INF_BITS);
  }
  if (ax == 0u) {
    return bitcast<f32>(sign);
  }
  // Mantissas with the leading one at bit 23, and exponents.
  var mx = ax & 0x007fffffu;
  var ex = i32(ax >> 23u);
  if (ex == 0) {
    let lz = countLeadingZeros(mx) - 8u;
    mx = mx << lz;
    ex = 1 - i32(lz);
  } else {
    mx = mx | 0x00800000u;
  }
  var my = ay & 0x007fffffu;
  var ey = i32(ay >> 23u);
  if (ey == 0) {
    let lz = countLeadingZeros(my) - 8u;
    my = my << lz;
    ey = 1 - i32(lz);
  } else {
    my = my | 0x00800000u;
  }
  var e = ex - ey;
  if (mx < my) {
    mx = mx << 1u;
    e = e - 1;
  }
  // Quotient mx / my in [1, 2): 25 bits (24 of the result and one guard bit)
  // by long division, 8 bits at a time (r < my < 2^24, so r << 8 fits).
  var q = 1u;
  var r = mx - my;
  for (var i = 0; i < 3; i++) {
    r = r << 8u;
    q = (q << 8u) | (r / my);
    r = r % my;
  }
  let sticky = r != 0u;
  let be = e + 127;
  if (be >= 255) {
    return bitcast<f32>(sign | TFR_M_INF_BITS);
  }
  if (be <= 0) {
    // Subnormal: q * 2^(be - 2) in units of 2^-149.
    let s = u32(min(2 - be, 26));
    let rem = q & ((1u << s) - 1u);
    let half = 1u << (s - 1u);
    var res = q >> s;
    if (rem > half || (rem == half && (sticky || (res & 1u) != 0u))) {
      res = res + 1u;
    }
    return bitcast<f32>(sign | res);
  }
  var mant = q >> 1u;
  if ((q & 1u) != 0u && (sticky || (mant & 1u) != 0u)) {
    mant = mant + 1u;  // may carry into the exponent, up to infinity: correct
  }
  return bitcast<f32>(sign | ((u32(be) << 23u) + (mant - 0x00800000u)));
}

// sqrt(x) correctly rounded: sqrt(-0) = -0, sqrt(x < 0) = NaN, sqrt(inf) = inf.
// WGSL's sqrt is a first guess, corrected by an exact integer test.
fn tfr_sqrt_f32(x: f32) -> f32 {
  let bx = bitcast<u32>(x);
  if (tfr_m_is_nan(x)) {
    return tfr_m_nan2(x, x);
  }
  if ((bx & TFR_M_ABS_MASK) == 0u || bx == TFR_M_INF_BITS) {
    return x;
  }
  if (bx > TFR_M_SIGN_MASK) {
    return tfr_m_nan();
  }
  // x = M * 2^(E - 23), M in [2^23, 2^24).
  var m = bx & 0x007fffffu;
  var e = i32(bx >> 23u) - 127;
  if ((bx >> 23u) == 0u) {
    let lz = countLeadingZeros(m) - 8u;
    m = m << lz;
    e = -126 - i32(lz);
  } else {
    m = m | 0x00800000u;
  }
  let odd = u32(e & 1);          // e - 2 es, es = floor(e / 2)
  let es = (e - i32(odd)) / 2;
  // The result is S * 2^(es - 23), S = round(sqrt(N)), N = M * 2^(23 + odd).
  let g = sqrt(bitcast<f32>((m & 0x007fffffu) | 0x3f800000u) * select(1.0, 2.0, odd == 1u));
  var s = u32(g * 0x1p23f);
  // 4N as a 64-bit value; S is right when (2S - 1)^2 < 4N < (2S + 1)^2
  // (equality cannot occur: the squares are odd).
  let sh = 25u + odd;
  let n4 = vec2<u32>(m << sh, m >> (32u - sh));  // (low word, high word): common/u64.wgsl
  for (var i = 0; i < 4; i++) {
    if (!tfr_u64_lt(n4, tfr_u32_mul_wide(2u * s + 1u, 2u * s + 1u))) {
      s = s + 1u;
    } else if (tfr_u64_lt(n4, tfr_u32_mul_wide(2u * s - 1u, 2u * s - 1u))) {
      s = s - 1u;
    } else {
      break;
    }
  }
  // S may be 2^24 (then the exponent field carries).
  return bitcast<f32>((u32(es + 127) << 23u) + (s - 0x00800000u));
}

// 1 / sqrt(x) (as the cpu backend: 1 / sqrtf(x)): both steps correctly
// rounded, at most 1 ulp from the exact value.
fn tfr_rsqrt_f32(x: f32) -> f32 {
  return tfr_div_f32(1.0, tfr_sqrt_f32(x));
}

// fmodf(x, y): x - n y with n = trunc(x / y), exact; the sign of x.
fn tfr_fmod_f32(x: f32, y: f32) -> f32 {
  let ax = tfr_m_abs_bits(x);
  let ay = tfr_m_abs_bits(y);
  if (ax > TFR_M_INF_BITS || ay > TFR_M_INF_BITS) {
    return tfr_m_nan2(x, y);
  }
  if (ax == TFR_M_INF_BITS || ay == 0u) {
    return tfr_m_nan();
  }
  if (ay == TFR_M_INF_BITS || ax < ay) {
    return x;
  }
  // |x| = mx 2^ex, |y| = my 2^ey with mantissas of 24 bits (unit exponents).
  var mx = ax & 0x007fffffu;
  var ex = i32(ax >> 23u);
  if (ex == 0) {
    let lz = countLeadingZeros(mx) - 8u;
    mx = mx << lz;
    ex = 1 - i32(lz);
  } else {
    mx = mx | 0x00800000u;
  }
  var my = ay & 0x007fffffu;
  var ey = i32(ay >> 23u);
  if (ey == 0) {
    let lz = countLeadingZeros(my) - 8u;
    my = my << lz;
    ey = 1 - i32(lz);
  } else {
    my = my | 0x00800000u;
  }
  // (mx 2^(ex - ey)) mod my, 8 bits of the exponent difference at a time.
  var r = mx % my;
  var d = ex - ey;
  while (d > 0) {
    let s = u32(min(d, 8));
    r = (r << s) % my;
    d = d - i32(s);
  }
  // r 2^(ey - 150) is exact (a multiple of y's unit, below |y|).
  let v = tfr_m_scale(f32(r) * 0x1p-23f, ey - 127);
  return tfr_m_copysign(v, x);
}

// ---------------------------------------------------------------------------
// exp, expm1
// ---------------------------------------------------------------------------

// e^(x + xlo) = (m.x + m.y) 2^k for |x| <= 104 (any xlo much smaller):
// m = e^r, r = x + xlo - k ln 2 in [-0.35, 0.35], m as double-f32 with an
// error of about 2^-30 (that of r^2 Q(r)).
struct TfrMExp {
  m: vec2<f32>,
  k: i32,
}

fn tfr_m_exp_parts(x: f32, xlo: f32) -> TfrMExp {
  let kf = round(x * TFR_M_LOG2E);
  let r1 = fma(-kf, TFR_M_LN2_HI, x);          // exact: kf * LN2_HI has <= 24 bits
  let r = tfr_m_opaque(fma(-kf, TFR_M_LN2_LO, r1));
  let rlo = fma(-kf, TFR_M_LN2_LO, r1 - r) + xlo;  // what r misses
  // e^(r + rlo) - 1 = t: b + rlo (1 + b), b = e^r - 1 = r + r^2 Q(r), with
  // r + (the rest) kept as double-f32 (the rest's rounding is ~2^-24 of it)
  let q = r * r * tfr_m_poly_exp_q(r);
  let b = tfr_m_fast_two_sum(r, q);
  let t = tfr_m_fast_two_sum(b.x, fma(rlo, b.x, rlo) + b.y);
  let m = tfr_m_fast_two_sum(1.0, t.x);
  return TfrMExp(vec2<f32>(m.x, m.y + t.y), i32(kf));
}

// e^x = 2^k e^r, r = x - k ln 2 in [-0.35, 0.35] (two-constant reduction; r
// is within half an ulp of the exact difference), e^r = 1 + r (1 + r Q(r))
// ending in one fma: within 0.89 ulp of e^x over every f32 input whose result
// is normal (exhaustive against double exp; 1.17 ulp where fma is not fused).
// Cheaper than the double-f32 tfr_m_exp_parts, which the functions built on
// exp use: the elementwise exp stays at memory speed on GPUs.
fn tfr_exp_f32(x: f32) -> f32 {
  if (tfr_m_is_nan(x)) {
    return tfr_m_nan2(x, x);
  }
  let xc = clamp(x, -104.0, 89.0);
  let kf = round(xc * TFR_M_LOG2E);
  let r = fma(-kf, TFR_M_LN2_LO, fma(-kf, TFR_M_LN2_HI, xc));  // the inner fma is exact
  let m = fma(r, fma(r, tfr_m_poly_exp_q(r), 1.0), 1.0);
  return tfr_m_scale(m, i32(kf));
}

// e^x - 1, accurate near 0 (no cancellation) and for every x.
fn tfr_expm1_f32(x: f32) -> f32 {
  if (tfr_m_is_nan(x)) {
    return tfr_m_nan2(x, x);
  }
  let ax = tfr_m_abs(x);
  if (ax < 0.3465) {
    // also keeps -0 and tiny x exactly
    if (ax < 0x1p-25f) {
      return x;
    }
    return fma(x * x, tfr_m_poly_exp_q(x), x);
  }
  let xc = clamp(x, -104.0, 89.0);
  let kf = round(xc * TFR_M_LOG2E);
  let k = i32(kf);
  let r1 = fma(-kf, TFR_M_LN2_HI, xc);
  let r = tfr_m_opaque(fma(-kf, TFR_M_LN2_LO, r1));
  let rlo = fma(-kf, TFR_M_LN2_LO, r1 - r);
  // p = e^(r + rlo) - 1 as double-f32: r + (r^2 Q(r) + rlo (1 + r))
  let c = fma(r * r, tfr_m_poly_exp_q(r), fma(rlo, r, rlo));
  let p = tfr_m_fast_two_sum(r, c);
  if (k > 64) {
    return tfr_m_scale(1.0 + p.x, k);
  }
  if (k >= -24) {
    // 2^k (1 + p) - 1 = (2^k - 1) + 2^k p: 2^k - 1 is exact up to k = 24 (beyond,
    // the lost 1 is below a quarter of the result's ulp), 2^k p.x is exact
    let t = tfr_m_pow2i(k);
    let s = tfr_m_two_sum(t - 1.0, t * p.x);
    return s.x + (s.y + t * p.y);
  }
  return tfr_m_scale(1.0 + p.x, k) - 1.0;
}

// ---------------------------------------------------------------------------
// log, log1p
// ---------------------------------------------------------------------------

// e ln 2 + log(1 + f) + c for f in [sqrt(1/2) - 1, sqrt(2) - 1] and a small
// correction c (|c| << |log|), to about 0.55 ulp. log1p(f) = 2s + s z P(z)
// with s = f / (2 + f), z = s^2, written as f - f^2/2 + s (f^2/2 + z P(z)).
fn tfr_m_log_core(e: f32, f: f32, c: f32) -> f32 {
  let s = f / (2.0 + f);
  let z = s * s;
  let hfsq = 0.5 * f * f;
  let rz = z * fma(z, tfr_m_poly_log_t2(z), 0.6666666666666666);
  let t = fma(s, hfsq + rz, fma(e, TFR_M_LN2_LO, c));
  let hi = tfr_m_two_sum(e * TFR_M_LN2_HI, f);  // e LN2_HI is exact
  return hi.x + (hi.y - (hfsq - t));
}

fn tfr_log_f32(x: f32) -> f32 {
  let bx = bitcast<u32>(x);
  if (tfr_m_is_nan(x)) {
    return tfr_m_nan2(x, x);
  }
  if ((bx & TFR_M_ABS_MASK) == 0u) {
    return -tfr_m_inf();
  }
  if (bx > TFR_M_SIGN_MASK) {
    return tfr_m_nan();
  }
  if (bx == TFR_M_INF_BITS) {
    return x;
  }
  let d = tfr_m_frexp(x);
  var f = d.f;
  var e = d.e;
  if (f > 1.41421353816986083984375) {
    f = 0.5 * f;
    e = e + 1;
  }
  return tfr_m_log_core(f32(e), f - 1.0, 0.0);
}

// log(1 + u) for u = hi + lo > -1 (double-f32).
fn tfr_m_log1p_dd(hi: f32, lo: f32) -> f32 {
  if (hi > -0.25 && hi < 0.375) {
    // the argument of the core itself: no rounding of 1 + u
    return tfr_m_log_core(0.0, hi, lo / (1.0 + hi));
  }
  let v = tfr_m_two_sum(1.0, hi);
  let vlo = v.y + lo;
  let d = tfr_m_frexp(v.x);
  var f = d.f;
  var e = d.e;
  if (f > 1.41421353816986083984375) {
    f = 0.5 * f;
    e = e + 1;
  }
  return tfr_m_log_core(f32(e), f - 1.0, vlo / v.x);
}

fn tfr_log1p_f32(x: f32) -> f32 {
  let bx = bitcast<u32>(x);
  if (tfr_m_is_nan(x)) {
    return tfr_m_nan2(x, x);
  }
  if (x == -1.0) {
    return -tfr_m_inf();
  }
  if (x < -1.0) {
    return tfr_m_nan();
  }
  if (bx == TFR_M_INF_BITS) {
    return x;
  }
  if (tfr_m_abs(x) < 0x1p-25f) {
    return x;  // also -0
  }
  return tfr_m_log1p_dd(x, 0.0);
}

// log(x) as double-f32 to about 2^-45 relative (for pow): x finite, > 0.
fn tfr_m_log_dd(x: f32) -> vec2<f32> {
  let d = tfr_m_frexp(x);
  var m = d.f;
  var e = d.e;
  if (m > 1.41421353816986083984375) {
    m = 0.5 * m;
    e = e + 1;
  }
  let f = m - 1.0;                               // exact
  let den = tfr_m_fast_two_sum(2.0, f);          // 2 + f
  let s = tfr_m_dd_div(vec2<f32>(f, 0.0), den);  // f / (2 + f)
  let z = tfr_m_dd_mul(s, s);
  // P(z) = 2/3 + z T2(z) as double-f32
  let pz = tfr_m_dd_add(vec2<f32>(0.6666666865348816, -1.9868215517249155e-8),
                        vec2<f32>(z.x * tfr_m_poly_log_t2(z.x), 0.0));
  let c = tfr_m_dd_mul(tfr_m_dd_mul(s, z), pz);
  let lm = tfr_m_dd_add(vec2<f32>(2.0 * s.x, 2.0 * s.y), c);
  let ef = f32(e);
  let el = tfr_m_two_prod(ef, TFR_M_LN2_LO);
  let eln2 = tfr_m_fast_two_sum(ef * TFR_M_LN2_HI, el.x);
  return tfr_m_dd_add(vec2<f32>(eln2.x, eln2.y + el.y), lm);
}

// ---------------------------------------------------------------------------
// pow
// ---------------------------------------------------------------------------

// 0: y not an integer, 1: odd integer, 2: even integer (y finite).
fn tfr_m_int_kind(y: f32) -> u32 {
  let ay = tfr_m_abs(y);
  if (ay >= 0x1p24f) {
    return 2u;
  }
  if (trunc(ay) != ay) {
    return 0u;
  }
  return select(2u, 1u, (u32(ay) & 1u) == 1u);
}

// powf(x, y) with C99's special cases.
fn tfr_pow_f32(x: f32, y: f32) -> f32 {
  let ax = tfr_m_abs(x);
  let ay = tfr_m_abs(y);
  if (tfr_m_is_zero(y) || x == 1.0) {
    return 1.0;
  }
  if (tfr_m_is_nan(x) || tfr_m_is_nan(y)) {
    return tfr_m_nan2(x, y);
  }
  if (tfr_m_is_inf(y)) {
    if (ax == 1.0) {
      return 1.0;  // (-1)^(+-inf)
    }
    if ((ax < 1.0) == (y > 0.0)) {
      return 0.0;
    }
    return tfr_m_inf();
  }
  let kind = tfr_m_int_kind(y);
  let neg = tfr_m_sign_bit(x) && kind == 1u;  // the result is negative
  if (tfr_m_is_zero(x) || tfr_m_is_inf(x)) {
    // |x|^y is 0 or inf; odd integer y keeps the sign of x
    let big = tfr_m_is_zero(x) == (y < 0.0);
    let v = select(0.0, tfr_m_inf(), big);
    return select(v, -v, neg);
  }
  if (tfr_m_sign_bit(x) && kind == 0u) {
    return tfr_m_nan();
  }
  // |x|^y = e^(y log|x|), the product in double-f32.
  let l = tfr_m_log_dd(ax);
  let p = tfr_m_two_prod(y, l.x);
  let hi = p.x;
  let lo = fma(y, l.y, p.y);
  var v: f32;
  if (hi > 89.0) {
    v = tfr_m_inf();
  } else if (hi < -104.0) {
    v = 0.0;
  } else {
    let s = tfr_m_fast_two_sum(hi, lo);
    let e = tfr_m_exp_parts(s.x, s.y);
    v = tfr_m_scale(e.m.x + e.m.y, e.k);
  }
  return select(v, -v, neg);
}

// ---------------------------------------------------------------------------
// sin, cos, tan: argument reduction
// ---------------------------------------------------------------------------

// x = q pi/2 + r, |r| <= ~pi/4, r = hi + lo (double-f32).
struct TfrMReduced {
  hi: f32,
  lo: f32,
  q: u32,
}

// Payne-Hanek for |x| >= 2^9 (finite): x (2/pi) mod 4 from the bits of 2/pi
// in integer arithmetic. |x| = M 2^E (M of 24 bits); only the bits of 2/pi
// from 2^-(E-1) on matter (earlier ones give multiples of 4). 96 of them, W,
// give P = M W, with x (2/pi) = P 2^-94 mod 4 to within 2^-70.
fn tfr_m_reduce_big(x: f32) -> TfrMReduced {
  let b = bitcast<u32>(x) & TFR_M_ABS_MASK;
  let mant = (b & 0x007fffffu) | 0x00800000u;
  let ee = i32(b >> 23u) - 150;                 // E
  let o = u32(ee - 1 + 31);                       // bit position of bit E-1 in the table
  let n0 = o >> 5u;
  let sh = o & 31u;
  var w: array<u32, 3>;
  for (var i = 0u; i < 3u; i++) {
    let a = TFR_M_2OPI_BITS[n0 + i];
    let c = TFR_M_2OPI_BITS[n0 + i + 1u];
    w[i] = select((a << sh) | (c >> (32u - sh)), a, sh == 0u);
  }
  // P = mant * (w0 2^64 + w1 2^32 + w2): 4 words p3 p2 p1 p0 (p3 most
  // significant; only its low bits matter).
  let t2 = tfr_u32_mul_wide(mant, w[2]);  // (low word, high word)
  let t1 = tfr_u32_mul_wide(mant, w[1]);
  let t0 = tfr_u32_mul_wide(mant, w[0]);
  let p0 = t2.x;
  var p1 = t2.y + t1.x;
  var carry = select(0u, 1u, p1 < t2.y);
  var p2 = t1.y + t0.x;
  let c2 = select(0u, 1u, p2 < t1.y);
  let p2b = p2 + carry;
  carry = c2 + select(0u, 1u, p2b < p2);
  p2 = p2b;
  // Bits 94, 95 (p2 bits 30, 31) are x (2/pi) mod 4; the fraction is bits
  // 0..93: f = (p2 & 0x3fffffff) 2^-30 + p1 2^-62 + p0 2^-94.
  var q = p2 >> 30u;
  var fhi = (p2 << 2u) | (p1 >> 30u);   // fraction bits as a 64-bit fixed point 0.fhi flo
  var flo = (p1 << 2u) | (p0 >> 30u);
  var neg = false;
  if ((fhi & TFR_M_SIGN_MASK) != 0u) {
    // fraction >= 1/2: take f - 1 (negative) and the next quadrant
    q = q + 1u;
    neg = true;
    flo = ~flo + 1u;
    fhi = ~fhi + select(0u, 1u, flo == 0u);
  }
  // Normalise the 64-bit magnitude.
  var shift = 0u;
  if (fhi == 0u) {
    fhi = flo;
    flo = 0u;
    shift = 32u;
  }
  let lz = countLeadingZeros(fhi);
  if (lz > 0u) {
    fhi = (fhi << lz) | (flo >> (32u - lz));
    flo = flo << lz;
  }
  shift = shift + lz;
  // f = (fhi 2^-32 + flo 2^-64) 2^-shift
  let scale = tfr_m_pow2i(-24 - i32(shift));
  let f_hi = f32(fhi >> 8u) * scale;
  let f_lo = (f32(fhi & 0xffu) + f32(flo) * 0x1p-32f) * scale * 0x1p-8f;
  // r = f pi/2
  let ph = tfr_m_two_prod(f_hi, TFR_M_PIO2_HI);
  let plo = ph.y + (f_hi * TFR_M_PIO2_LO + f_lo * TFR_M_PIO2_HI);
  let r = tfr_m_fast_two_sum(ph.x, plo);
  let s = select(1.0, -1.0, neg);
  let sx = select(1.0, -1.0, tfr_m_sign_bit(x));
  // x < 0: r -> -r, q -> -q
  return TfrMReduced(s * sx * r.x, s * sx * r.y, select(q, 0u - q, tfr_m_sign_bit(x)) & 3u);
}

// Reduction of a finite x.
fn tfr_m_reduce(x: f32) -> TfrMReduced {
  let ax = tfr_m_abs(x);
  if (ax <= 0.78539812564849853515625) {
    return TfrMReduced(x, 0.0, 0u);
  }
  if (ax < 512.0) {
    // Cody-Waite: pi/2 = P1 + P2 + P3 + P4 (73 bits); k < 2^9 and P1..P3
    // have 15 bits, so k Pi is exact, and x - k P1 too (Sterbenz).
    let kf = round(x * TFR_M_2OPI);
    let r1 = x - kf * TFR_M_PIO2_1;
    let s2 = tfr_m_two_sum(r1, -kf * TFR_M_PIO2_2);
    let s3 = tfr_m_two_sum(s2.x, -kf * TFR_M_PIO2_3);
    let lo = (s2.y + s3.y) - kf * TFR_M_PIO2_4;
    let r = tfr_m_fast_two_sum(s3.x, lo);
    return TfrMReduced(r.x, r.y, u32(i32(kf)) & 3u);
  }
  return tfr_m_reduce_big(x);
}

// sin(hi + lo), cos(hi + lo) for |hi| <= ~pi/4.
fn tfr_m_sin_kernel(hi: f32, lo: f32) -> f32 {
  let z = hi * hi;
  return hi + fma(tfr_m_opaque(hi * z), tfr_m_poly_sin_s(z), lo * fma(-0.5, z, 1.0));
}

fn tfr_m_cos_kernel(hi: f32, lo: f32) -> f32 {
  let zz = tfr_m_two_prod(hi, hi);
  let z = zz.x;
  let hz = 0.5 * z;
  let w = tfr_m_opaque(1.0 - hz);
  let werr = (1.0 - w) - hz;  // exact: w + werr = 1 - hz
  return w + (werr + (fma(z * z, tfr_m_poly_cos_c(z), -0.5 * zz.y) - hi * lo));
}

fn tfr_sin_f32(x: f32) -> f32 {
  if (!tfr_m_is_finite(x)) {
    return tfr_m_nan2(x, x);
  }
  if (tfr_m_abs(x) < 0x1p-12f) {
    return x;
  }
  let r = tfr_m_reduce(x);
  let s = tfr_m_sin_kernel(r.hi, r.lo);
  let c = tfr_m_cos_kernel(r.hi, r.lo);
  switch (r.q) {
    case 0u: { return s; }
    case 1u: { return c; }
    case 2u: { return -s; }
    default: { return -c; }
  }
}

fn tfr_cos_f32(x: f32) -> f32 {
  if (!tfr_m_is_finite(x)) {
    return tfr_m_nan2(x, x);
  }
  let r = tfr_m_reduce(x);
  let s = tfr_m_sin_kernel(r.hi, r.lo);
  let c = tfr_m_cos_kernel(r.hi, r.lo);
  switch (r.q) {
    case 0u: { return c; }
    case 1u: { return -s; }
    case 2u: { return -c; }
    default: { return s; }
  }
}

fn tfr_tan_f32(x: f32) -> f32 {
  if (!tfr_m_is_finite(x)) {
    return tfr_m_nan2(x, x);
  }
  if (tfr_m_abs(x) < 0x1p-12f) {
    return x;
  }
  let r = tfr_m_reduce(x);
  // t = tan(hi + lo) = hi + hi^3 T(z) + lo (1 + hi^2), double-f32
  let z = r.hi * r.hi;
  let c = fma(r.hi * z, tfr_m_poly_tan_t(z), r.lo * (1.0 + z));
  let t = tfr_m_fast_two_sum(r.hi, c);
  if ((r.q & 1u) == 0u) {
    return t.x + t.y;
  }
  // -1 / t: Newton step on y t = -1 with the double-f32 t
  let y0 = -1.0 / t.x;
  let rho = -tfr_m_residual(-1.0, y0, t.x) + y0 * t.y;  // 1 + y0 t
  return y0 + tfr_m_opaque(y0 * rho);
}

// ---------------------------------------------------------------------------
// Inverse trigonometric functions
// ---------------------------------------------------------------------------

// atan(t) for 0 <= t <= 1 given as t + tlo, as double-f32.
fn tfr_m_atan_dd(t: f32, tlo: f32) -> vec2<f32> {
  let z = t * t;
  let c = fma(t * z, tfr_m_poly_atan_p(z), tlo / (1.0 + z));
  return tfr_m_fast_two_sum(t, c);
}

fn tfr_atan_f32(x: f32) -> f32 {
  if (tfr_m_is_nan(x)) {
    return tfr_m_nan2(x, x);
  }
  let a = tfr_m_abs(x);
  if (a < 0x1p-12f) {
    return x;
  }
  if (a > 0x1p25f) {
    return tfr_m_copysign(TFR_M_PIO2_HI, x);
  }
  if (a <= 1.0) {
    let p = tfr_m_atan_dd(a, 0.0);
    return tfr_m_copysign(p.x + p.y, x);
  }
  // pi/2 - atan(1/a); 1/a = t + tlo
  let t = tfr_div_f32(1.0, a);
  let tlo = tfr_m_residual(1.0, t, a) * t;
  let p = tfr_m_atan_dd(t, tlo);
  // PIO2_HI - p.x is exact (Sterbenz)
  return tfr_m_copysign((TFR_M_PIO2_HI - p.x) + (TFR_M_PIO2_LO - p.y), x);
}

fn tfr_atan2_f32(y: f32, x: f32) -> f32 {
  if (tfr_m_is_nan(x) || tfr_m_is_nan(y)) {
    return tfr_m_nan2(y, x);
  }
  let xneg = tfr_m_sign_bit(x);
  if (tfr_m_is_inf(y)) {
    if (tfr_m_is_inf(x)) {
      return tfr_m_copysign(select(TFR_M_PIO4_HI, 2.35619449615478515625, xneg), y);
    }
    return tfr_m_copysign(TFR_M_PIO2_HI, y);
  }
  if (tfr_m_is_inf(x) || tfr_m_is_zero(y)) {
    // y = +-0 or x infinite: +-0 or +-pi
    return tfr_m_copysign(select(0.0, TFR_M_PI_HI, xneg), y);
  }
  if (tfr_m_is_zero(x)) {
    return tfr_m_copysign(TFR_M_PIO2_HI, y);
  }
  let ax = tfr_m_abs(x);
  let ay = tfr_m_abs(y);
  let swap = ay > ax;
  var num = select(ay, ax, swap);
  var den = select(ax, ay, swap);
  let t = tfr_div_f32(num, den);  // correctly rounded in every range
  // t + tlo = num / den: the residual on copies scaled by a power of two so
  // that the exact product t den neither overflows nor underflows
  if (den > 0x1p60f) {
    num = num * 0x1p-64f;
    den = den * 0x1p-64f;
  } else if (den < 0x1p-60f) {
    num = num * 0x1p64f;
    den = den * 0x1p64f;
  }
  var tlo = 0.0;
  if (num > 0x1p-100f) {
    tlo = tfr_m_residual(num, t, den) / den;
  }
  let p = tfr_m_atan_dd(t, tlo);
  // result = B + s p: B = 0, pi/2, pi; s = +-1
  var bhi = 0.0;
  var blo = 0.0;
  var s = 1.0;
  if (swap) {
    bhi = TFR_M_PIO2_HI;
    blo = TFR_M_PIO2_LO;
    s = select(-1.0, 1.0, xneg);
  } else if (xneg) {
    bhi = TFR_M_PI_HI;
    blo = TFR_M_PI_LO;
    s = -1.0;
  }
  let u = tfr_m_two_sum(bhi, s * p.x);
  let v = u.x + (u.y + (blo + s * p.y));
  return tfr_m_copysign(v, y);
}

// asin(a) for 0 <= a <= 1/2 (a + alo), as double-f32.
fn tfr_m_asin_dd(a: f32, alo: f32) -> vec2<f32> {
  let z = a * a;
  let c = fma(tfr_m_opaque(a * z), tfr_m_poly_asin_p(z), alo * fma(0.5, z, 1.0));
  return tfr_m_fast_two_sum(a, c);
}

// For 1/2 < a <= 1: s + slo = sqrt((1 - a) / 2), and asin(s) (double-f32).
fn tfr_m_asin_far(a: f32) -> vec2<f32> {
  let w = 0.5 * (1.0 - a);  // exact
  let s = tfr_sqrt_f32(w);
  var slo = 0.0;
  if (s > 0.0) {
    slo = tfr_m_residual(w, s, s) / (2.0 * s);
  }
  return tfr_m_asin_dd(s, slo);
}

fn tfr_asin_f32(x: f32) -> f32 {
  if (tfr_m_is_nan(x)) {
    return tfr_m_nan2(x, x);
  }
  let a = tfr_m_abs(x);
  if (a > 1.0) {
    return tfr_m_nan();
  }
  if (a < 0x1p-12f) {
    return x;
  }
  if (a <= 0.5) {
    let p = tfr_m_asin_dd(a, 0.0);
    return tfr_m_copysign(p.x + p.y, x);
  }
  // pi/2 - 2 asin(sqrt((1 - a)/2)); PIO2_HI - 2 p.x is exact (Sterbenz)
  let p = tfr_m_asin_far(a);
  return tfr_m_copysign((TFR_M_PIO2_HI - 2.0 * p.x) + (TFR_M_PIO2_LO - 2.0 * p.y), x);
}

fn tfr_acos_f32(x: f32) -> f32 {
  if (tfr_m_is_nan(x)) {
    return tfr_m_nan2(x, x);
  }
  let a = tfr_m_abs(x);
  if (a > 1.0) {
    return tfr_m_nan();
  }
  if (a <= 0.5) {
    // pi/2 - asin(x)
    let p = tfr_m_asin_dd(a, 0.0);
    let sp = tfr_m_copysign(1.0, x);
    let u = tfr_m_two_sum(TFR_M_PIO2_HI, -sp * p.x);
    return u.x + (u.y + (TFR_M_PIO2_LO - sp * p.y));
  }
  let p = tfr_m_asin_far(a);
  if (x > 0.0) {
    return 2.0 * p.x + 2.0 * p.y;
  }
  let u = tfr_m_two_sum(TFR_M_PI_HI, -2.0 * p.x);
  return u.x + (u.y + (TFR_M_PI_LO - 2.0 * p.y));
}

// ---------------------------------------------------------------------------
// Hyperbolic functions and their inverses
// ---------------------------------------------------------------------------

fn tfr_sinh_f32(x: f32) -> f32 {
  if (!tfr_m_is_finite(x)) {
    return select(x, tfr_m_nan2(x, x), tfr_m_is_nan(x));  // NaN, or +-inf
  }
  let a = tfr_m_abs(x);
  if (a < 0x1p-12f) {
    return x;
  }
  if (a < 1.0) {
    let z = a * a;
    return tfr_m_copysign(fma(tfr_m_opaque(a * z), tfr_m_poly_sinh_p(z), a), x);
  }
  let e = tfr_m_exp_parts(min(a, 90.0), 0.0);
  if (e.k > 24) {
    // e^-a is below 2^-48 of e^a
    return tfr_m_copysign(tfr_m_scale(e.m.x + e.m.y, e.k - 1), x);
  }
  // (E - 1/E) / 2, E = m 2^k
  let big = vec2<f32>(e.m.x * tfr_m_pow2i(e.k), e.m.y * tfr_m_pow2i(e.k));
  let inv = tfr_m_dd_recip(big);
  let d = tfr_m_dd_add(big, -inv);
  return tfr_m_copysign(0.5 * (d.x + d.y), x);
}

fn tfr_cosh_f32(x: f32) -> f32 {
  if (!tfr_m_is_finite(x)) {
    return select(tfr_m_inf(), tfr_m_nan2(x, x), tfr_m_is_nan(x));  // NaN, or +inf
  }
  let a = tfr_m_abs(x);
  if (a < 0x1p-12f) {
    return 1.0;
  }
  let e = tfr_m_exp_parts(min(a, 90.0), 0.0);
  if (e.k > 24) {
    return tfr_m_scale(e.m.x + e.m.y, e.k - 1);
  }
  let big = vec2<f32>(e.m.x * tfr_m_pow2i(e.k), e.m.y * tfr_m_pow2i(e.k));
  let inv = tfr_m_dd_recip(big);
  let d = tfr_m_dd_add(big, inv);
  return 0.5 * (d.x + d.y);
}

fn tfr_tanh_f32(x: f32) -> f32 {
  if (tfr_m_is_nan(x)) {
    return tfr_m_nan2(x, x);
  }
  let a = tfr_m_abs(x);
  if (a < 0x1p-12f) {
    return x;
  }
  if (a < 0.625) {
    let z = a * a;
    return tfr_m_copysign(fma(tfr_m_opaque(a * z), tfr_m_poly_tanh_p(z), a), x);
  }
  if (a > 9.25) {
    return tfr_m_copysign(1.0, x);
  }
  // 1 - 2 / (1 + e^(2a))
  let e = tfr_m_exp_parts(2.0 * a, 0.0);
  let p = tfr_m_pow2i(e.k);
  let d = tfr_m_dd_add(vec2<f32>(1.0, 0.0), vec2<f32>(e.m.x * p, e.m.y * p));
  let q = tfr_m_dd_recip(d);
  let u = tfr_m_two_sum(1.0, -2.0 * q.x);
  return tfr_m_copysign(u.x + (u.y - 2.0 * q.y), x);
}

// log(2a) for a >= 2^12 (finite): e ln 2 + log(m) without forming 2a.
fn tfr_m_log_twice(a: f32) -> f32 {
  let d = tfr_m_frexp(a);
  var f = d.f;
  var e = d.e + 1;
  if (f > 1.41421353816986083984375) {
    f = 0.5 * f;
    e = e + 1;
  }
  return tfr_m_log_core(f32(e), f - 1.0, 0.0);
}

fn tfr_asinh_f32(x: f32) -> f32 {
  if (!tfr_m_is_finite(x)) {
    return select(x, tfr_m_nan2(x, x), tfr_m_is_nan(x));  // NaN, or +-inf
  }
  let a = tfr_m_abs(x);
  if (a < 0x1p-12f) {
    return x;
  }
  if (a <= 0.5) {
    let z = a * a;
    return tfr_m_copysign(fma(tfr_m_opaque(a * z), tfr_m_poly_asinh_p(z), a), x);
  }
  if (a >= 0x1p12f) {
    return tfr_m_copysign(tfr_m_log_twice(a), x);
  }
  // log1p(a + (sqrt(1 + a^2) - 1)) with the argument as double-f32
  let a2 = tfr_m_two_prod(a, a);
  let w = tfr_m_dd_add(vec2<f32>(1.0, 0.0), a2);
  let s = tfr_m_dd_sqrt(w);
  let u = s.x - 1.0;  // exact
  let t = tfr_m_two_sum(a, u);
  return tfr_m_copysign(tfr_m_log1p_dd(t.x, t.y + s.y), x);
}

fn tfr_acosh_f32(x: f32) -> f32 {
  if (tfr_m_is_nan(x)) {
    return tfr_m_nan2(x, x);
  }
  if (x < 1.0) {
    return tfr_m_nan();
  }
  if (tfr_m_is_inf(x)) {
    return x;
  }
  if (x >= 0x1p12f) {
    return tfr_m_log_twice(x);
  }
  // log1p(d + sqrt(d (2 + d))), d = x - 1 (exact)
  let d = x - 1.0;
  let d2 = tfr_m_two_prod(d, d);
  let w = tfr_m_dd_add(d2, vec2<f32>(2.0 * d, 0.0));
  if (w.x == 0.0) {
    return 0.0;
  }
  let s = tfr_m_dd_sqrt(w);
  let t = tfr_m_two_sum(d, s.x);
  return tfr_m_log1p_dd(t.x, t.y + s.y);
}

fn tfr_atanh_f32(x: f32) -> f32 {
  if (tfr_m_is_nan(x)) {
    return tfr_m_nan2(x, x);
  }
  let a = tfr_m_abs(x);
  if (a > 1.0) {
    return tfr_m_nan();
  }
  if (a == 1.0) {
    return tfr_m_copysign(tfr_m_inf(), x);
  }
  if (a < 0x1p-12f) {
    return x;
  }
  if (a <= 0.5) {
    let z = a * a;
    return tfr_m_copysign(fma(tfr_m_opaque(a * z), tfr_m_poly_atanh_p(z), a), x);
  }
  // log1p(2a / (1 - a)) / 2; 1 - a is exact
  let q = tfr_m_dd_div(vec2<f32>(2.0 * a, 0.0), vec2<f32>(1.0 - a, 0.0));
  return tfr_m_copysign(0.5 * tfr_m_log1p_dd(q.x, q.y), x);
}

// ---------------------------------------------------------------------------
// erf, erfc, logistic, cbrt
// ---------------------------------------------------------------------------

// erfc(a) for 0.5 <= a < 10.1: e^(-a^2) G(1/a), G(u) = e^(x^2) erfc(x)
// fitted on four pieces (as double-f32).
fn tfr_m_erfc_far(a: f32) -> f32 {
  let u = tfr_div_f32(1.0, a);
  let ulo = tfr_m_residual(1.0, u, a) * u;  // 1/a = u + ulo
  // G at u (u - c is exact), then + G'(u) ulo with G'(u) = 2 a^2 (1/sqrt(pi) - a G)
  var g: vec2<f32>;
  if (a >= 4.0) {
    g = tfr_m_poly_erfc_g0(u - 0.171875);
  } else if (a >= 2.0) {
    g = tfr_m_poly_erfc_g1(u - 0.375);
  } else if (a >= 0.9) {
    g = tfr_m_poly_erfc_g2(u - 0.8125);
  } else {
    g = tfr_m_poly_erfc_g3(u - 1.5);
  }
  let glo = g.y + ulo * (2.0 * a * a) * (0.5641895835 - a * g.x);
  let a2 = tfr_m_two_prod(a, a);
  let e = tfr_m_exp_parts(-a2.x, -a2.y);
  // (m.x + m.y)(g.x + glo) with one rounding of the leading product's sum
  let hi = tfr_m_two_prod(e.m.x, g.x);
  let lo = hi.y + tfr_m_opaque(e.m.x * glo + e.m.y * g.x);
  return tfr_m_scale(hi.x + lo, e.k);
}

fn tfr_erf_f32(x: f32) -> f32 {
  if (tfr_m_is_nan(x)) {
    return tfr_m_nan2(x, x);
  }
  let a = tfr_m_abs(x);
  if (a < 0x1p-60f) {
    return x * TFR_M_C0_HI;  // keeps -0; the correction does not matter
  }
  if (a < 0.9) {
    // x (C0 + z Q(z)), C0 = 2/sqrt(pi) as hi + lo
    let z = a * a;
    let p = tfr_m_two_prod(x, TFR_M_C0_HI);
    return p.x + (p.y + x * fma(z, tfr_m_poly_erf_q(z), TFR_M_C0_LO));
  }
  if (a >= 4.0) {
    return tfr_m_copysign(1.0, x);
  }
  return tfr_m_copysign(1.0 - tfr_m_erfc_far(a), x);
}

fn tfr_erfc_f32(x: f32) -> f32 {
  if (tfr_m_is_nan(x)) {
    return tfr_m_nan2(x, x);
  }
  let a = tfr_m_abs(x);
  if (a < 0.5) {
    // 1 - erf(x): the correction x^3 Q stays below a tenth of the result
    let z = a * a;
    // 1 - x C0_HI exactly as double-f32, then the rest
    let p = tfr_m_two_prod(x, TFR_M_C0_HI);
    let h = tfr_m_two_sum(1.0, -p.x);
    return h.x + ((h.y - p.y) - x * fma(z, tfr_m_poly_erf_q(z), TFR_M_C0_LO));
  }
  if (x < 0.0) {
    if (a >= 4.5) {
      return 2.0;
    }
    return 2.0 - tfr_m_erfc_far(a);
  }
  if (a >= 10.1) {
    return 0.0;
  }
  return tfr_m_erfc_far(a);
}

// 1 / (1 + e^-x), from e^-|x| (no overflow).
fn tfr_logistic_f32(x: f32) -> f32 {
  if (tfr_m_is_nan(x)) {
    return tfr_m_nan2(x, x);
  }
  let a = tfr_m_abs(x);
  if (x < -80.0) {
    return tfr_exp_f32(x);  // e / (1 + e) = e to within 2^-115
  }
  let e = tfr_m_exp_parts(-min(a, 80.0), 0.0);
  let p = tfr_m_pow2i(e.k);
  let ev = vec2<f32>(e.m.x * p, e.m.y * p);
  let d = tfr_m_dd_add(vec2<f32>(1.0, 0.0), ev);
  let y = tfr_m_dd_recip(d);
  if (x >= 0.0) {
    return y.x + y.y;
  }
  // e / (1 + e)
  let q = ev.x * y.x;
  let rho = (tfr_m_residual(ev.x, q, d.x) - q * d.y) + ev.y;
  return q + tfr_m_opaque(rho * y.x);
}

fn tfr_cbrt_f32(x: f32) -> f32 {
  if (!tfr_m_is_finite(x) || tfr_m_is_zero(x)) {
    return select(x, tfr_m_nan2(x, x), tfr_m_is_nan(x));  // NaN, +-inf, +-0
  }
  let d = tfr_m_frexp(tfr_m_abs(x));
  // e = 3 q + r, 0 <= r < 3
  let q = (d.e + 300) / 3 - 100;
  let r = d.e - 3 * q;
  let v = d.f * f32(1 << u32(r));  // in [1, 8), exact
  var y = tfr_m_poly_cbrt_g(v);
  y = y - (y - v / (y * y)) * 0.3333333333333333;
  y = y - (y - v / (y * y)) * 0.3333333333333333;
  // final step with the residual v - y^3 in double-f32
  let y2 = tfr_m_two_prod(y, y);
  let y3 = tfr_m_two_prod(y, y2.x);
  let res = ((v - y3.x) - y3.y) - y * y2.y;
  y = y + res / (3.0 * y2.x);
  return tfr_m_copysign(tfr_m_scale(y, q), x);
}

// ---------------------------------------------------------------------------
// Polynomials: generated by tools/fit_math_f32.py (do not edit by hand)
// ---------------------------------------------------------------------------

// e^r = 1 + r + r^2 Q(r), |r| <= ln2/2 (weight r^2 e^-r)
// max weighted error 0.0525 x 2^-24 (tools/fit_math_f32.py)
fn tfr_m_poly_exp_q(x: f32) -> f32 {
  var p = 0.001382044400088489;
  p = fma(p, x, 0.00836868118494749);
  p = fma(p, x, 0.04166826978325844);
  p = fma(p, x, 0.1666652113199234);
  p = fma(p, x, 0.4999999403953552);
  return p;
}

// log1p(f) = 2s + s z (2/3 + z T2(z)), s = f/(2+f) (weight z^2/2)
// max weighted error 0.0000 x 2^-24 (tools/fit_math_f32.py)
fn tfr_m_poly_log_t2(x: f32) -> f32 {
  var p = 0.19557654857635498;
  p = fma(p, x, 0.22179701924324036);
  p = fma(p, x, 0.28571972250938416);
  p = fma(p, x, 0.3999999761581421);
  return p;
}

// sin r = r + r^3 S(r^2), |r| <= pi/4 (weight r^3 / sin r)
// max weighted error 0.0017 x 2^-24 (tools/fit_math_f32.py)
fn tfr_m_poly_sin_s(x: f32) -> f32 {
  var p = -4.854822464039898e-07;
  p = fma(p, x, 3.458178298387793e-06);
  p = fma(p, x, -0.00019878243620041758);
  p = fma(p, x, 0.008333410136401653);
  p = fma(p, x, -0.1666666716337204);
  return p;
}

// cos r = 1 - r^2/2 + r^4 C(r^2), |r| <= pi/4 (weight r^4 / cos r)
// max weighted error 0.0001 x 2^-24 (tools/fit_math_f32.py)
fn tfr_m_poly_cos_c(x: f32) -> f32 {
  var p = 5.4062848420244336e-08;
  p = fma(p, x, -3.6460897945289616e-07);
  p = fma(p, x, 2.4856173695297912e-05);
  p = fma(p, x, -0.001388902892358601);
  p = fma(p, x, 0.0416666679084301);
  return p;
}

// tan r = r + r^3 T(r^2), |r| <= pi/4 (weight r^3 / tan r)
// max weighted error 0.0008 x 2^-24 (tools/fit_math_f32.py)
fn tfr_m_poly_tan_t(x: f32) -> f32 {
  var p = -0.0025617245119065046;
  p = fma(p, x, 0.008847754448652267);
  p = fma(p, x, -0.010895710438489914);
  p = fma(p, x, 0.009839769452810287);
  p = fma(p, x, -7.599442324135453e-05);
  p = fma(p, x, 0.009848399087786674);
  p = fma(p, x, 0.021710146218538284);
  p = fma(p, x, 0.05398279428482056);
  p = fma(p, x, 0.13333268463611603);
  p = fma(p, x, 0.3333333432674408);
  return p;
}

// atan t = t + t^3 P(t^2), 0 <= t <= 1
// max weighted error 0.0019 x 2^-24 (tools/fit_math_f32.py)
fn tfr_m_poly_atan_p(x: f32) -> f32 {
  var p = -0.0005551715148612857;
  p = fma(p, x, 0.004162359517067671);
  p = fma(p, x, -0.014539390802383423);
  p = fma(p, x, 0.03219267725944519);
  p = fma(p, x, -0.05268504098057747);
  p = fma(p, x, 0.07165662944316864);
  p = fma(p, x, -0.08954835683107376);
  p = fma(p, x, 0.11088348925113678);
  p = fma(p, x, -0.1428345888853073);
  p = fma(p, x, 0.1999988704919815);
  p = fma(p, x, -0.3333333134651184);
  return p;
}

// asin x = x + x^3 P(x^2), 0 <= x <= 1/2
// max weighted error 0.0003 x 2^-24 (tools/fit_math_f32.py)
fn tfr_m_poly_asin_p(x: f32) -> f32 {
  var p = 0.034691981971263885;
  p = fma(p, x, 0.007482048124074936);
  p = fma(p, x, 0.024609530344605446);
  p = fma(p, x, 0.030112558975815773);
  p = fma(p, x, 0.04465988650918007);
  p = fma(p, x, 0.07499949634075165);
  p = fma(p, x, 0.1666666716337204);
  return p;
}

// tanh x = x + x^3 P(x^2), 0 <= x <= 0.625
// max weighted error 0.0011 x 2^-24 (tools/fit_math_f32.py)
fn tfr_m_poly_tanh_p(x: f32) -> f32 {
  var p = -0.0011378959752619267;
  p = fma(p, x, 0.0036857458762824535);
  p = fma(p, x, -0.008996003307402134);
  p = fma(p, x, 0.02191462740302086);
  p = fma(p, x, -0.053975075483322144);
  p = fma(p, x, 0.13333378732204437);
  p = fma(p, x, -0.3333333432674408);
  return p;
}

// sinh x = x + x^3 P(x^2), 0 <= x <= 1
// max weighted error 0.0018 x 2^-24 (tools/fit_math_f32.py)
fn tfr_m_poly_sinh_p(x: f32) -> f32 {
  var p = -2.1018745144374407e-07;
  p = fma(p, x, 6.416003088816069e-07);
  p = fma(p, x, 2.084239440591773e-06);
  p = fma(p, x, 0.0001987441792152822);
  p = fma(p, x, 0.00833326205611229);
  p = fma(p, x, 0.1666666716337204);
  return p;
}

// asinh x = x + x^3 P(x^2), 0 <= x <= 1/2
// max weighted error 0.0003 x 2^-24 (tools/fit_math_f32.py)
fn tfr_m_poly_asinh_p(x: f32) -> f32 {
  var p = 0.034781746566295624;
  p = fma(p, x, -0.04107671231031418);
  p = fma(p, x, 0.02870204858481884);
  p = fma(p, x, -0.02477925270795822);
  p = fma(p, x, 0.030660433694720268);
  p = fma(p, x, -0.044660039246082306);
  p = fma(p, x, 0.07500050216913223);
  p = fma(p, x, -0.1666666716337204);
  return p;
}

// atanh x = x + x^3 P(x^2), 0 <= x <= 1/2
// max weighted error 0.0006 x 2^-24 (tools/fit_math_f32.py)
fn tfr_m_poly_atanh_p(x: f32) -> f32 {
  var p = 0.11012043803930283;
  p = fma(p, x, 0.06718709319829941);
  p = fma(p, x, 0.0680026262998581);
  p = fma(p, x, 0.09382341802120209);
  p = fma(p, x, 0.11069555580615997);
  p = fma(p, x, 0.14288634061813354);
  p = fma(p, x, 0.19999906420707703);
  p = fma(p, x, 0.3333333432674408);
  return p;
}

// erf x = x (2/sqrt(pi) + x^2 Q(x^2)), |x| <= 0.9 (weight x^3/erfc x: erfc = 1 - erf too)
// max weighted error 0.0005 x 2^-24 (tools/fit_math_f32.py)
fn tfr_m_poly_erf_q(x: f32) -> f32 {
  var p = 1.71180709003238e-05;
  p = fma(p, x, -6.574534199899063e-05);
  p = fma(p, x, 9.581667109159753e-05);
  p = fma(p, x, 2.1158710296731442e-05);
  p = fma(p, x, -0.0008020181558094919);
  p = fma(p, x, 0.0052071670070290565);
  p = fma(p, x, -0.026863092556595802);
  p = fma(p, x, 0.11283762753009796);
  p = fma(p, x, -0.37612637877464294);
  return p;
}

// first guess of cbrt on [1, 8]
// max weighted error 87530.0580 x 2^-24 (tools/fit_math_f32.py)
fn tfr_m_poly_cbrt_g(x: f32) -> f32 {
  var p = 0.002312803640961647;
  p = fma(p, x, -0.04330505058169365);
  p = fma(p, x, 0.36451172828674316);
  p = fma(p, x, 0.6816964149475098);
  return p;
}

// e^(x^2) erfc x as a polynomial in v = 1/x - 0.171875, 1/x in [0.0990099, 0.25]
// max weighted error 0.0290 x 2^-24 (tools/fit_math_f32.py)
fn tfr_m_poly_erfc_g0(x: f32) -> vec2<f32> {
  var p = -449.8238220214844;
  p = fma(p, x, 7.86711311340332);
  p = fma(p, x, 6.292797088623047);
  p = fma(p, x, -0.4692075252532959);
  p = fma(p, x, 0.011627434752881527);
  p = fma(p, x, 0.22771908342838287);
  p = fma(p, x, -0.18298423290252686);
  p = fma(p, x, -0.12681008875370026);
  p = fma(p, x, 0.5408667922019958);
  let pv = tfr_m_two_prod(p, x);
  let s = tfr_m_fast_two_sum(0.09559699892997742, pv.x);
  return vec2<f32>(s.x, s.y + (pv.y + -2.571722168553947e-09));
}

// e^(x^2) erfc x as a polynomial in v = 1/x - 0.375, 1/x in [0.25, 0.5]
// max weighted error 0.0042 x 2^-24 (tools/fit_math_f32.py)
fn tfr_m_poly_erfc_g1(x: f32) -> vec2<f32> {
  var p = -1.0786447525024414;
  p = fma(p, x, -0.1877395212650299);
  p = fma(p, x, 0.14779655635356903);
  p = fma(p, x, 0.035376910120248795);
  p = fma(p, x, -0.1310499757528305);
  p = fma(p, x, 0.1336647868156433);
  p = fma(p, x, -0.025561751797795296);
  p = fma(p, x, -0.1861005276441574);
  p = fma(p, x, 0.4740157723426819);
  let pv = tfr_m_two_prod(p, x);
  let s = tfr_m_fast_two_sum(0.19907262921333313, pv.x);
  return vec2<f32>(s.x, s.y + (pv.y + 1.780510849869188e-09));
}

// e^(x^2) erfc x as a polynomial in v = 1/x - 0.8125, 1/x in [0.5, 1.11111]
// max weighted error 0.0098 x 2^-24 (tools/fit_math_f32.py)
fn tfr_m_poly_erfc_g2(x: f32) -> vec2<f32> {
  var p = -0.055101919919252396;
  p = fma(p, x, -0.0003014909743797034);
  p = fma(p, x, 0.014021703973412514);
  p = fma(p, x, 0.007565037813037634);
  p = fma(p, x, -0.015199574641883373);
  p = fma(p, x, 0.01731337420642376);
  p = fma(p, x, -0.014417197555303574);
  p = fma(p, x, -0.0032232278026640415);
  p = fma(p, x, 0.04941888526082039);
  p = fma(p, x, -0.14526785910129547);
  p = fma(p, x, 0.32262930274009705);
  let pv = tfr_m_two_prod(p, x);
  let s = tfr_m_fast_two_sum(0.37187856435775757, pv.x);
  return vec2<f32>(s.x, s.y + (pv.y + 1.2991908882042935e-08));
}

// e^(x^2) erfc x as a polynomial in v = 1/x - 1.5, 1/x in [1.11111, 2]
// max weighted error 0.0016 x 2^-24 (tools/fit_math_f32.py)
fn tfr_m_poly_erfc_g3(x: f32) -> vec2<f32> {
  var p = 0.00099933089222759;
  p = fma(p, x, -0.0009265868575312197);
  p = fma(p, x, -0.00020031571330036968);
  p = fma(p, x, 0.00023986971064005047);
  p = fma(p, x, 0.00023876082559581846);
  p = fma(p, x, -0.0002857905637938529);
  p = fma(p, x, -0.00017343790386803448);
  p = fma(p, x, 0.0019353651441633701);
  p = fma(p, x, -0.007680497132241726);
  p = fma(p, x, 0.024257013574242592);
  p = fma(p, x, -0.06866259127855301);
  p = fma(p, x, 0.1819259077310562);
  let pv = tfr_m_two_prod(p, x);
  let s = tfr_m_fast_two_sum(0.5392844080924988, pv.x);
  return vec2<f32>(s.x, s.y + (pv.y + -1.619342437919613e-10));
}
