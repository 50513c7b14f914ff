// IEEE 754 binary64 in software, on the bits: an f64 is vec2<u32>(low word,
// high word) (the host's layout, so stored elements are used as they are),
// and every operation is integer arithmetic on u32 words (common/u64.wgsl),
// so no driver's floating-point behaviour (flushed subnormals, fused or
// reordered f32 arithmetic) can change a result. Needs common/u64.wgsl.
//
// The exact operations are bit for bit those of the cpu backend
// (src/cpu/scalar_math.h, an x86-64 host with SSE2 arithmetic):
//   * add, sub, mul, div, sqrt and fma correctly rounded, to nearest even,
//     with subnormals, signed zeros, overflow to infinity and underflow;
//   * an invalid operation (inf - inf, 0 * inf, 0 / 0, inf / inf,
//     sqrt(x < 0), fma's 0 * inf + c) gives x86's default NaN
//     0xfff8000000000000; a NaN operand is returned quieted (bit 51 set),
//     the first NaN operand when several are (x86's rule for its first
//     source, which a compiler may swap for commutative ops: the tests let
//     any NaN match any NaN);
//   * comparisons IEEE (NaN unordered, -0 == +0), maximum/minimum propagate
//     NaN and order -0 below +0, floor/ceil/round/sign/is_finite/next_after
//     on the bits, conversions from and to f32, i32, u32 and bool with the
//     cpu's rounding and saturation.
//
// Internal form: a finite non-zero value is a sign, an exponent e and a
// significand m of 53 bits with its leading bit at bit 52 (subnormals are
// normalised, so e may be < 1): the value is m * 2^(e - 1075), and e is the
// biased exponent of a normal number. Results are rounded from a 64-bit
// significand with the leading bit at bit 62 (value sig * 2^(e - 1085)),
// whose low 10 bits are round bits with anything lost below them jammed
// into bit 0 (tfr_f64_round_pack).

const TFR_F64_SIGN: u32 = 0x80000000u;
// x86's default NaN, the result of every invalid operation on the cpu.
const TFR_F64_DEFAULT_NAN = vec2<u32>(0u, 0xfff80000u);
const TFR_F64_ONE = vec2<u32>(0u, 0x3ff00000u);

struct tfr_f64_parts {
  e: i32,
  m: vec2<u32>,
}

fn tfr_f64_is_nan(a: vec2<u32>) -> bool {
  let h = a.y & 0x7fffffffu;
  return h > 0x7ff00000u || (h == 0x7ff00000u && a.x != 0u);
}

fn tfr_f64_is_inf(a: vec2<u32>) -> bool {
  return (a.y & 0x7fffffffu) == 0x7ff00000u && a.x == 0u;
}

fn tfr_f64_is_zero(a: vec2<u32>) -> bool {
  return ((a.y & 0x7fffffffu) | a.x) == 0u;
}

fn tfr_f64_is_finite(a: vec2<u32>) -> bool {
  return (a.y & 0x7ff00000u) != 0x7ff00000u;
}

// A NaN with its quiet bit clear (signalling).
fn tfr_f64_is_snan(a: vec2<u32>) -> bool {
  return tfr_f64_is_nan(a) && (a.y & 0x00080000u) == 0u;
}

// The NaN with its quiet bit set.
fn tfr_f64_quiet(a: vec2<u32>) -> vec2<u32> {
  return vec2<u32>(a.x, a.y | 0x00080000u);
}

fn tfr_f64_neg(a: vec2<u32>) -> vec2<u32> {
  return vec2<u32>(a.x, a.y ^ TFR_F64_SIGN);
}

fn tfr_f64_abs(a: vec2<u32>) -> vec2<u32> {
  return vec2<u32>(a.x, a.y & 0x7fffffffu);
}

fn tfr_f64_inf(sign: u32) -> vec2<u32> {
  return vec2<u32>(0u, sign | 0x7ff00000u);
}

// Exponent and normalised significand of a finite non-zero value.
fn tfr_f64_unpack(a: vec2<u32>) -> tfr_f64_parts {
  let ef = i32((a.y >> 20u) & 0x7ffu);
  let m = vec2<u32>(a.x, a.y & 0xfffffu);
  if (ef == 0) {  // subnormal: leading bit to bit 52
    let s = tfr_u64_clz(m) - 11u;
    return tfr_f64_parts(1 - i32(s), tfr_u64_shl(m, s));
  }
  return tfr_f64_parts(ef, vec2<u32>(m.x, m.y | 0x00100000u));
}

// The value sig * 2^(e - 1085) (sig < 2^63, its leading bit at 62 unless the
// value is below the normal range), rounded to nearest even, with sign
// `sign` (0 or TFR_F64_SIGN): subnormal results are shifted (jamming) to the
// minimum exponent before rounding, overflow gives infinity.
fn tfr_f64_round_pack(sign: u32, e_in: i32, sig: vec2<u32>) -> vec2<u32> {
  if (e_in >= 0x7ff) {
    return tfr_f64_inf(sign);
  }
  var e = e_in;
  var x = sig;
  if (e < 1) {
    x = tfr_u64_shr_jam(x, u32(1 - e));
    e = 1;
  }
  let rb = x.x & 0x3ffu;
  var m = tfr_u64_shr(tfr_u64_add(x, vec2<u32>(0x200u, 0u)), 10u);
  m.x = m.x & ~select(0u, 1u, rb == 0x200u);  // a tie: to even
  // The leading bit (bit 52) adds one to the exponent field: e - 1 + 1 for a
  // normal result, 0 + 0 for a subnormal one, e + 1 when rounding carried.
  let bits = tfr_u64_add(vec2<u32>(0u, u32(e - 1) << 20u), m);
  if (bits.y >= 0x7ff00000u) {
    return tfr_f64_inf(sign);
  }
  return vec2<u32>(bits.x, bits.y | sign);
}

// ---- arithmetic ----

// Whether both exponent fields are of normal numbers (not 0, not 0x7ff): the
// special values and subnormals are tested for only when not.
fn tfr_f64_both_normal(a: vec2<u32>, b: vec2<u32>) -> bool {
  let ea = (a.y & 0x7ff00000u) - 0x00100000u;
  let eb = (b.y & 0x7ff00000u) - 0x00100000u;
  return max(ea, eb) < 0x7fe00000u;
}

fn tfr_f64_add(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  if (!tfr_f64_both_normal(a, b)) {
    let na = tfr_f64_is_nan(a);
    if (na || tfr_f64_is_nan(b)) {
      return tfr_f64_quiet(select(b, a, na));
    }
    let ia = tfr_f64_is_inf(a);
    let ib = tfr_f64_is_inf(b);
    if (ia || ib) {
      if (ia && ib && ((a.y ^ b.y) & TFR_F64_SIGN) != 0u) {
        return TFR_F64_DEFAULT_NAN;
      }
      return select(b, a, ia);
    }
    let za = tfr_f64_is_zero(a);
    let zb = tfr_f64_is_zero(b);
    if (za || zb) {
      if (za && zb) {  // -0 only for -0 + -0
        return vec2<u32>(0u, a.y & b.y);
      }
      return select(a, b, za);
    }
  }
  // x: the operand of larger magnitude, y the other. Past the special
  // values the path has no branch that depends on the values (the lanes of
  // a SIMD group differ in signs and exponent gaps): both sums are formed
  // and one is selected.
  let swap = tfr_u64_lt(tfr_f64_abs(a), tfr_f64_abs(b));
  let x = select(a, b, swap);
  let y = select(b, a, swap);
  // Significands with the leading bit at 61 (value sig * 2^(e - 1084)),
  // read from the bits without normalising: a subnormal has exponent 1 and
  // no implicit bit, which the normalisation below absorbs (a subnormal x
  // makes y subnormal too, and their sum exact).
  let fx = (x.y >> 20u) & 0x7ffu;
  let fy = (y.y >> 20u) & 0x7ffu;
  let ex = max(i32(fx), 1);
  let ey = max(i32(fy), 1);
  let hx = (x.y & 0xfffffu) | select(0u, 0x100000u, fx != 0u);
  let hy = (y.y & 0xfffffu) | select(0u, 0x100000u, fy != 0u);
  let sx = vec2<u32>(x.x << 9u, (hx << 9u) | (x.x >> 23u));
  // A gap of 63 or more leaves only the jammed bit of y.
  let sy = tfr_u64_shr_jam_any(vec2<u32>(y.x << 9u, (hy << 9u) | (y.x >> 23u)),
                               min(u32(ex - ey), 63u));
  // Same signs: sx + sy < 2^63 (no carry out). Opposite: sx - sy, exact
  // below a gap of 2; beyond, at most one bit cancels and the jammed bit
  // stays below the round bits.
  let same = ((x.y ^ y.y) & TFR_F64_SIGN) == 0u;
  let s = select(tfr_u64_sub(sx, sy), tfr_u64_add(sx, sy), same);
  if (tfr_u64_is_zero(s)) {
    return vec2<u32>(0u, 0u);  // x - x = +0
  }
  // Leading bit to 62: c - 1 left (c >= 1).
  let c = tfr_u64_clz(s);
  return tfr_f64_round_pack(x.y & TFR_F64_SIGN, ex + 2 - i32(c), tfr_u64_shl_any(s, c - 1u));
}

fn tfr_f64_sub(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  let na = tfr_f64_is_nan(a);
  if (na || tfr_f64_is_nan(b)) {  // the NaN keeps its sign
    return tfr_f64_quiet(select(b, a, na));
  }
  return tfr_f64_add(a, tfr_f64_neg(b));
}

// The exact product of two finite non-zero values as a 128-bit significand
// with its leading bit at bit 126 (value p * 2^(e - 1149)).
struct tfr_f64_wide {
  e: i32,
  p: vec4<u32>,
}

fn tfr_f64_mul_exact(pa: tfr_f64_parts, pb: tfr_f64_parts) -> tfr_f64_wide {
  // (m_a << 10) (m_b << 11): the leading bit at 125 or 126.
  // (A select, not a branch: lanes differ in which.)
  let p = tfr_u64_mul_wide(tfr_u64_shl(pa.m, 10u), tfr_u64_shl(pb.m, 11u));
  let low = p.w < 0x40000000u;
  let p1 = vec4<u32>(p.x << 1u, (p.y << 1u) | (p.x >> 31u), (p.z << 1u) | (p.y >> 31u),
                     (p.w << 1u) | (p.z >> 31u));
  return tfr_f64_wide(pa.e + pb.e - 1022 - select(0, 1, low), select(p, p1, low));
}

// The 128-bit significand (leading bit at 126) as a 64-bit one with the
// lower half jammed.
fn tfr_f64_narrow(p: vec4<u32>) -> vec2<u32> {
  return vec2<u32>(p.z | select(0u, 1u, !tfr_u64_is_zero(p.xy)), p.w);
}

fn tfr_f64_mul(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  let sign = (a.y ^ b.y) & TFR_F64_SIGN;
  if (!tfr_f64_both_normal(a, b)) {
    let na = tfr_f64_is_nan(a);
    if (na || tfr_f64_is_nan(b)) {
      return tfr_f64_quiet(select(b, a, na));
    }
    let za = tfr_f64_is_zero(a);
    let zb = tfr_f64_is_zero(b);
    if (tfr_f64_is_inf(a) || tfr_f64_is_inf(b)) {
      if (za || zb) {
        return TFR_F64_DEFAULT_NAN;
      }
      return tfr_f64_inf(sign);
    }
    if (za || zb) {
      return vec2<u32>(0u, sign);
    }
  }
  let w = tfr_f64_mul_exact(tfr_f64_unpack(a), tfr_f64_unpack(b));
  return tfr_f64_round_pack(sign, w.e, tfr_f64_narrow(w.p));
}

// Long division, one quotient bit per step: 55 bits and a sticky remainder.
fn tfr_f64_div(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  let na = tfr_f64_is_nan(a);
  if (na || tfr_f64_is_nan(b)) {
    return tfr_f64_quiet(select(b, a, na));
  }
  let sign = (a.y ^ b.y) & TFR_F64_SIGN;
  let ia = tfr_f64_is_inf(a);
  let ib = tfr_f64_is_inf(b);
  if (ia || ib) {
    if (ia && ib) {
      return TFR_F64_DEFAULT_NAN;
    }
    return select(vec2<u32>(0u, sign), tfr_f64_inf(sign), ia);
  }
  let za = tfr_f64_is_zero(a);
  let zb = tfr_f64_is_zero(b);
  if (za || zb) {
    if (za && zb) {
      return TFR_F64_DEFAULT_NAN;
    }
    return select(vec2<u32>(0u, sign), tfr_f64_inf(sign), zb);
  }
  let pa = tfr_f64_unpack(a);
  let pb = tfr_f64_unpack(b);
  var e = pa.e - pb.e + 1023;
  var r = pa.m;
  if (tfr_u64_lt(r, pb.m)) {  // quotient in [1, 2)
    r = tfr_u64_shl(r, 1u);
    e -= 1;
  }
  var q = vec2<u32>(0u, 0u);
  for (var i = 0u; i < 55u; i++) {
    q = tfr_u64_shl(q, 1u);
    if (!tfr_u64_lt(r, pb.m)) {
      r = tfr_u64_sub(r, pb.m);
      q.x |= 1u;
    }
    r = tfr_u64_shl(r, 1u);
  }
  var sig = tfr_u64_shl(q, 8u);
  sig.x |= select(0u, 1u, !tfr_u64_is_zero(r));
  return tfr_f64_round_pack(sign, e, sig);
}

// Digit-by-digit square root: 55 bits of sqrt(m * 2^56) and a sticky
// remainder (a square root is never exactly halfway).
fn tfr_f64_sqrt(a: vec2<u32>) -> vec2<u32> {
  if (tfr_f64_is_nan(a)) {
    return tfr_f64_quiet(a);
  }
  if (tfr_f64_is_zero(a)) {
    return a;  // sqrt(-0) = -0
  }
  if ((a.y & TFR_F64_SIGN) != 0u) {
    return TFR_F64_DEFAULT_NAN;
  }
  if (tfr_f64_is_inf(a)) {
    return a;
  }
  let p = tfr_f64_unpack(a);
  var m = p.m;
  var t = p.e - 1075;  // a = m * 2^t
  if ((t & 1) != 0) {
    m = tfr_u64_shl(m, 1u);
    t -= 1;
  }
  var q = vec2<u32>(0u, 0u);
  var r = vec2<u32>(0u, 0u);
  for (var i = 0u; i < 55u; i++) {
    r = tfr_u64_shl(r, 2u);
    if (i < 27u) {  // the next two bits of m * 2^56 (m has 54 bits at most)
      r.x |= tfr_u64_shr(m, 52u - 2u * i).x & 3u;
    }
    var trial = tfr_u64_shl(q, 2u);
    trial.x |= 1u;
    q = tfr_u64_shl(q, 1u);
    if (!tfr_u64_lt(r, trial)) {
      r = tfr_u64_sub(r, trial);
      q.x |= 1u;
    }
  }
  var sig = tfr_u64_shl(q, 8u);
  sig.x |= select(0u, 1u, !tfr_u64_is_zero(r));
  return tfr_f64_round_pack(0u, t / 2 + 1049, sig);
}

// a * b + c rounded once: the exact 106-bit product and c aligned in 128
// bits (the smaller magnitude shifted right, jamming), added or subtracted,
// normalised and rounded: tfr_f64_add's steps on 128 bits. (WGSL has no
// generics, and add keeps its 64-bit form: it is the op that must run at
// memory speed, fma only feeds dot_general.)
fn tfr_f64_fma(a: vec2<u32>, b: vec2<u32>, c: vec2<u32>) -> vec2<u32> {
  let na = tfr_f64_is_nan(a);
  let nb = tfr_f64_is_nan(b);
  if (na || nb || tfr_f64_is_nan(c)) {
    return tfr_f64_quiet(select(select(c, b, nb), a, na));
  }
  let sp = (a.y ^ b.y) & TFR_F64_SIGN;
  let sc = c.y & TFR_F64_SIGN;
  let za = tfr_f64_is_zero(a);
  let zb = tfr_f64_is_zero(b);
  let ic = tfr_f64_is_inf(c);
  if (tfr_f64_is_inf(a) || tfr_f64_is_inf(b)) {
    if (za || zb || (ic && sc != sp)) {
      return TFR_F64_DEFAULT_NAN;
    }
    return tfr_f64_inf(sp);
  }
  if (ic) {
    return c;
  }
  let zc = tfr_f64_is_zero(c);
  if (za || zb) {  // an exact zero product
    if (zc) {
      return vec2<u32>(0u, sp & sc);
    }
    return c;
  }
  if (zc) {
    return tfr_f64_mul(a, b);
  }
  let w = tfr_f64_mul_exact(tfr_f64_unpack(a), tfr_f64_unpack(b));
  let pc = tfr_f64_unpack(c);
  let cc = vec4<u32>(0u, 0u, tfr_u64_shl(pc.m, 10u));  // leading bit at 126
  var big = w.p;
  var small = cc;
  var eb = w.e;
  var es = pc.e;
  var sign = sp;
  if (pc.e > w.e || (pc.e == w.e && tfr_u128_lt(w.p, cc))) {
    big = cc;
    small = w.p;
    eb = pc.e;
    es = w.e;
    sign = sc;
  }
  let sm = tfr_u128_shr_jam(small, u32(eb - es));
  var e = eb;
  var s: vec4<u32>;
  if (sp == sc) {
    s = tfr_u128_add(big, sm);
    if (s.w >= 0x80000000u) {
      s = tfr_u128_shr_jam(s, 1u);
      e += 1;
    }
  } else {
    s = tfr_u128_sub(big, sm);
    if (tfr_u128_is_zero(s)) {
      return vec2<u32>(0u, 0u);
    }
    let n = tfr_u128_clz(s) - 1u;
    s = tfr_u128_shl(s, n);
    e -= i32(n);
  }
  return tfr_f64_round_pack(sign, e, tfr_f64_narrow(s));
}

// fmod(a, b): the exact remainder of truncated division, sign of a.
fn tfr_f64_fmod(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  let na = tfr_f64_is_nan(a);
  if (na || tfr_f64_is_nan(b)) {
    return tfr_f64_quiet(select(b, a, na));
  }
  if (tfr_f64_is_inf(a) || tfr_f64_is_zero(b)) {
    return TFR_F64_DEFAULT_NAN;
  }
  if (tfr_f64_is_inf(b) || tfr_f64_is_zero(a) ||
      tfr_u64_lt(tfr_f64_abs(a), tfr_f64_abs(b))) {
    return a;
  }
  let pa = tfr_f64_unpack(a);
  let pb = tfr_f64_unpack(b);
  var r = pa.m;
  for (var d = pa.e - pb.e; d > 0; d--) {
    if (!tfr_u64_lt(r, pb.m)) {
      r = tfr_u64_sub(r, pb.m);
    }
    r = tfr_u64_shl(r, 1u);
  }
  if (!tfr_u64_lt(r, pb.m)) {
    r = tfr_u64_sub(r, pb.m);
  }
  let sign = a.y & TFR_F64_SIGN;
  if (tfr_u64_is_zero(r)) {
    return vec2<u32>(0u, sign);
  }
  // r * 2^(e_b - 1075), exact (also where it is subnormal).
  let n = tfr_u64_clz(r) - 11u;
  return tfr_f64_round_pack(sign, pb.e - i32(n), tfr_u64_shl(r, n + 10u));
}

// 1 / sqrt(a), rounded twice as on the cpu ((T)1 / sqrt(a)).
fn tfr_f64_rsqrt(a: vec2<u32>) -> vec2<u32> {
  return tfr_f64_div(TFR_F64_ONE, tfr_f64_sqrt(a));
}

// ---- comparisons ----

// A key that orders non-NaN values as the values, -0 equal to +0.
fn tfr_f64_order_key(a: vec2<u32>) -> vec2<u32> {
  if (tfr_f64_is_zero(a)) {
    return vec2<u32>(0u, 0x80000000u);
  }
  if ((a.y & TFR_F64_SIGN) != 0u) {
    return ~a;
  }
  return vec2<u32>(a.x, a.y | 0x80000000u);
}

fn tfr_f64_ordered(a: vec2<u32>, b: vec2<u32>) -> bool {
  return !tfr_f64_is_nan(a) && !tfr_f64_is_nan(b);
}

fn tfr_f64_eq(a: vec2<u32>, b: vec2<u32>) -> bool {
  return tfr_f64_ordered(a, b) && all(tfr_f64_order_key(a) == tfr_f64_order_key(b));
}

fn tfr_f64_lt(a: vec2<u32>, b: vec2<u32>) -> bool {
  return tfr_f64_ordered(a, b) && tfr_u64_lt(tfr_f64_order_key(a), tfr_f64_order_key(b));
}

fn tfr_f64_le(a: vec2<u32>, b: vec2<u32>) -> bool {
  return tfr_f64_ordered(a, b) && !tfr_u64_lt(tfr_f64_order_key(b), tfr_f64_order_key(a));
}

// IEEE 754-2019 maximum/minimum as the cpu's: NaN propagates (b's when both
// are NaN), -0 < +0.
fn tfr_f64_max(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  var r = select(b, a, tfr_f64_lt(b, a));
  if (tfr_f64_eq(a, b) && (a.y & TFR_F64_SIGN) == 0u) {
    r = a;
  }
  if (tfr_f64_is_nan(a)) {
    r = a;
  }
  if (tfr_f64_is_nan(b)) {
    r = b;
  }
  return r;
}

fn tfr_f64_min(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  var r = select(b, a, tfr_f64_lt(a, b));
  if (tfr_f64_eq(a, b) && (a.y & TFR_F64_SIGN) != 0u) {
    r = a;
  }
  if (tfr_f64_is_nan(a)) {
    r = a;
  }
  if (tfr_f64_is_nan(b)) {
    r = b;
  }
  return r;
}

fn tfr_f64_clamp(lo: vec2<u32>, x: vec2<u32>, hi: vec2<u32>) -> vec2<u32> {
  return tfr_f64_min(tfr_f64_max(x, lo), hi);
}

// ---- on the bits ----

// -1/0/1; NaN stays NaN (its bits) and a zero keeps its sign.
fn tfr_f64_sign(a: vec2<u32>) -> vec2<u32> {
  if (tfr_f64_is_nan(a) || tfr_f64_is_zero(a)) {
    return a;
  }
  return vec2<u32>(0u, (a.y & TFR_F64_SIGN) | 0x3ff00000u);
}

// The mask of the fraction bits of a value with biased exponent e in
// [1023, 1074]: its bits below the units bit.
fn tfr_f64_frac_mask(e: u32) -> vec2<u32> {
  return tfr_u64_sub(tfr_u64_shl(vec2<u32>(1u, 0u), 1075u - e), vec2<u32>(1u, 0u));
}

// Rounding to an integer: mode 0 floor, 1 ceil, 2 halves away from zero,
// 3 halves to even. NaN comes back quieted, infinities and integers as they
// are, zeros keep their sign.
fn tfr_f64_round_mode(a: vec2<u32>, mode: u32) -> vec2<u32> {
  if (tfr_f64_is_nan(a)) {
    return tfr_f64_quiet(a);
  }
  let e = (a.y >> 20u) & 0x7ffu;
  if (e >= 1075u || tfr_f64_is_zero(a)) {
    return a;
  }
  let sign = a.y & TFR_F64_SIGN;
  let neg = sign != 0u;
  let zero = vec2<u32>(0u, sign);
  let one = vec2<u32>(0u, sign | 0x3ff00000u);
  if (e < 1023u) {  // 0 < |a| < 1
    switch (mode) {
      case 0u: {
        return select(zero, one, neg);
      }
      case 1u: {
        return select(one, zero, neg);
      }
      case 2u: {
        return select(zero, one, e == 1022u);
      }
      default: {  // above one half: 1; one half exactly: 0
        let half = e == 1022u && (a.x | (a.y & 0xfffffu)) == 0u;
        return select(zero, one, e == 1022u && !half);
      }
    }
  }
  let mask = tfr_f64_frac_mask(e);
  let frac = a & mask;
  if (tfr_u64_is_zero(frac)) {
    return a;
  }
  let unit = tfr_u64_add(mask, vec2<u32>(1u, 0u));  // one unit of the integer part
  let t = a & ~mask;
  var up = false;  // add one unit to the truncated magnitude
  switch (mode) {
    case 0u: {
      up = neg;
    }
    case 1u: {
      up = !neg;
    }
    case 2u: {
      up = !tfr_u64_lt(frac, tfr_u64_shr(unit, 1u));
    }
    default: {
      let half = tfr_u64_shr(unit, 1u);
      // The integer part is odd: its units bit (the leading bit for e = 1023).
      let odd = e == 1023u || !tfr_u64_is_zero(t & unit);
      up = tfr_u64_lt(half, frac) || (all(frac == half) && odd);
    }
  }
  // A carry out of the fraction field raises the exponent: still exact.
  return select(t, tfr_u64_add(t, unit), up);
}

fn tfr_f64_floor(a: vec2<u32>) -> vec2<u32> {
  return tfr_f64_round_mode(a, 0u);
}

fn tfr_f64_ceil(a: vec2<u32>) -> vec2<u32> {
  return tfr_f64_round_mode(a, 1u);
}

fn tfr_f64_round_afz(a: vec2<u32>) -> vec2<u32> {
  return tfr_f64_round_mode(a, 2u);
}

fn tfr_f64_round_even(a: vec2<u32>) -> vec2<u32> {
  return tfr_f64_round_mode(a, 3u);
}

// nextafter(a, b): the neighbour of a towards b.
fn tfr_f64_next_after(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  let na = tfr_f64_is_nan(a);
  if (na || tfr_f64_is_nan(b)) {
    return tfr_f64_quiet(select(b, a, na));
  }
  if (tfr_f64_eq(a, b)) {
    return b;
  }
  if (tfr_f64_is_zero(a)) {
    return vec2<u32>(1u, b.y & TFR_F64_SIGN);
  }
  // Away from zero is +1 on the magnitude bits, toward zero -1.
  let away = tfr_f64_lt(a, b) == ((a.y & TFR_F64_SIGN) == 0u);
  return select(tfr_u64_sub(a, vec2<u32>(1u, 0u)), tfr_u64_add(a, vec2<u32>(1u, 0u)), away);
}

// ---- conversions ----

// f32 -> f64, exact, from the f32's bits (subnormals included, whatever the
// device does with f32 subnormal arithmetic); a NaN is quieted.
fn tfr_f64_from_f32(v: f32) -> vec2<u32> {
  let u = bitcast<u32>(v);
  let sign = u & TFR_F64_SIGN;
  let e = (u >> 23u) & 0xffu;
  var f = u & 0x7fffffu;
  if (e == 0xffu) {
    if (f == 0u) {
      return tfr_f64_inf(sign);
    }
    return vec2<u32>(f << 29u, sign | 0x7ff80000u | (f >> 3u));
  }
  var ef = e + 896u;  // 1023 - 127
  if (e == 0u) {
    if (f == 0u) {
      return vec2<u32>(0u, sign);
    }
    let s = countLeadingZeros(f) - 8u;  // leading bit to bit 23
    f = (f << s) & 0x7fffffu;
    ef = 897u - s;
  }
  return vec2<u32>(f << 29u, sign | (ef << 20u) | (f >> 3u));
}

// f64 -> the bits of the nearest f32 (ties to even), subnormal f32 results
// and overflow to infinity included; a NaN keeps its sign and the top of its
// payload, quieted (x86's cvtsd2ss).
fn tfr_f64_to_f32_bits(a: vec2<u32>) -> u32 {
  let sign = a.y & TFR_F64_SIGN;
  if (tfr_f64_is_nan(a)) {
    return sign | 0x7fc00000u | ((a.y & 0xfffffu) << 3u) | (a.x >> 29u);
  }
  if (tfr_f64_is_inf(a)) {
    return sign | 0x7f800000u;
  }
  if (tfr_f64_is_zero(a)) {
    return sign;
  }
  let p = tfr_f64_unpack(a);
  // 31 bits with the leading one at bit 30 and 7 round bits: value
  // sig * 2^(e - 157) in f32 terms.
  var sig = tfr_u64_shr_jam(p.m, 22u).x;
  var e = p.e - 896;
  if (e >= 0xff) {
    return sign | 0x7f800000u;
  }
  if (e < 1) {
    let n = u32(1 - e);
    if (n >= 31u) {
      sig = select(0u, 1u, sig != 0u);
    } else {
      sig = (sig >> n) | select(0u, 1u, (sig << (32u - n)) != 0u);
    }
    e = 1;
  }
  let rb = sig & 0x7fu;
  var m = (sig + 0x40u) >> 7u;
  if (rb == 0x40u) {
    m = m & ~1u;
  }
  let bits = (u32(e - 1) << 23u) + m;
  if (bits >= 0x7f800000u) {
    return sign | 0x7f800000u;
  }
  return sign | bits;
}

fn tfr_f64_to_f32(a: vec2<u32>) -> f32 {
  return bitcast<f32>(tfr_f64_to_f32_bits(a));
}

// The magnitude of an integer in [1, 2^32) as an f64 (exact).
fn tfr_f64_from_magnitude(u: u32, sign: u32) -> vec2<u32> {
  if (u == 0u) {
    return vec2<u32>(0u, 0u);
  }
  let p = 31u - countLeadingZeros(u);  // leading bit
  let m = tfr_u64_shl(vec2<u32>(u, 0u), 52u - p);
  return vec2<u32>(m.x, sign | ((1023u + p) << 20u) | (m.y & 0xfffffu));
}

fn tfr_f64_from_i32(v: i32) -> vec2<u32> {
  let u = bitcast<u32>(v);
  let neg = v < 0i;
  return tfr_f64_from_magnitude(select(u, 0u - u, neg), select(0u, TFR_F64_SIGN, neg));
}

fn tfr_f64_from_u32(v: u32) -> vec2<u32> {
  return tfr_f64_from_magnitude(v, 0u);
}

// bool (a 0/1 byte as u32) -> 0.0 or 1.0.
fn tfr_f64_from_bool(v: u32) -> vec2<u32> {
  return select(vec2<u32>(0u, 0u), TFR_F64_ONE, v != 0u);
}

// The integer part of |a| for 1 <= |a| < 2^32.
fn tfr_f64_trunc_magnitude(a: vec2<u32>) -> u32 {
  let e = (a.y >> 20u) & 0x7ffu;
  let m = vec2<u32>(a.x, (a.y & 0xfffffu) | 0x00100000u);
  return tfr_u64_shr(m, 1075u - e).x;
}

// Toward zero, saturating, NaN -> 0 (the cpu's tfr_sat_i32).
fn tfr_f64_to_i32(a: vec2<u32>) -> i32 {
  if (tfr_f64_is_nan(a)) {
    return 0i;
  }
  let neg = (a.y & TFR_F64_SIGN) != 0u;
  let e = (a.y >> 20u) & 0x7ffu;
  if (e < 1023u) {
    return 0i;
  }
  if (e >= 1054u) {  // |a| >= 2^31
    return select(2147483647i, -2147483647i - 1i, neg);
  }
  let u = tfr_f64_trunc_magnitude(a);
  return select(bitcast<i32>(u), bitcast<i32>(0u - u), neg);
}

// Toward zero, saturating; NaN, negatives and zeros -> 0 (tfr_sat_u32).
fn tfr_f64_to_u32(a: vec2<u32>) -> u32 {
  if (tfr_f64_is_nan(a) || (a.y & TFR_F64_SIGN) != 0u) {
    return 0u;
  }
  let e = (a.y >> 20u) & 0x7ffu;
  if (e < 1023u) {
    return 0u;
  }
  if (e >= 1055u) {  // a >= 2^32
    return 0xffffffffu;
  }
  return tfr_f64_trunc_magnitude(a);
}

// i64 / u64 -> f64, rounded to nearest even (exact below 2^53): a nonzero
// magnitude m with its leading bit moved to bit 62 (jamming the one bit lost
// at 2^63 and above), then tfr_f64_round_pack.
fn tfr_f64_from_u64_magnitude(m: vec2<u32>, sign: u32) -> vec2<u32> {
  if (tfr_u64_is_zero(m)) {
    return vec2<u32>(0u, 0u);
  }
  let p = 63u - tfr_u64_clz(m);
  var sig = tfr_u64_shr_jam(m, 1u);
  if (p < 63u) {
    sig = tfr_u64_shl(m, 62u - p);
  }
  return tfr_f64_round_pack(sign, i32(p) + 1023, sig);
}

fn tfr_f64_from_u64(v: vec2<u32>) -> vec2<u32> {
  return tfr_f64_from_u64_magnitude(v, 0u);
}

fn tfr_f64_from_i64(v: vec2<u32>) -> vec2<u32> {
  let neg = tfr_i64_is_neg(v);
  return tfr_f64_from_u64_magnitude(select(v, tfr_u64_neg(v), neg), select(0u, TFR_F64_SIGN, neg));
}

// The integer part of |a| for 1 <= |a| < 2^64.
fn tfr_f64_trunc_magnitude64(a: vec2<u32>) -> vec2<u32> {
  let e = (a.y >> 20u) & 0x7ffu;
  let m = vec2<u32>(a.x, (a.y & 0xfffffu) | 0x00100000u);
  if (e >= 1075u) {
    return tfr_u64_shl(m, e - 1075u);
  }
  return tfr_u64_shr(m, 1075u - e);
}

// Toward zero, saturating, NaN -> 0 (the cpu's tfr_sat_i64).
fn tfr_f64_to_i64(a: vec2<u32>) -> vec2<u32> {
  if (tfr_f64_is_nan(a)) {
    return vec2<u32>(0u, 0u);
  }
  let neg = (a.y & TFR_F64_SIGN) != 0u;
  let e = (a.y >> 20u) & 0x7ffu;
  if (e < 1023u) {
    return vec2<u32>(0u, 0u);
  }
  if (e >= 1086u) {  // |a| >= 2^63
    return select(vec2<u32>(0xffffffffu, 0x7fffffffu), TFR_I64_FLIP, neg);
  }
  let u = tfr_f64_trunc_magnitude64(a);
  return select(u, tfr_u64_neg(u), neg);
}

// Toward zero, saturating; NaN, negatives and zeros -> 0 (tfr_sat_u64).
fn tfr_f64_to_u64(a: vec2<u32>) -> vec2<u32> {
  if (tfr_f64_is_nan(a) || (a.y & TFR_F64_SIGN) != 0u) {
    return vec2<u32>(0u, 0u);
  }
  let e = (a.y >> 20u) & 0x7ffu;
  if (e < 1023u) {
    return vec2<u32>(0u, 0u);
  }
  if (e >= 1087u) {  // a >= 2^64
    return TFR_U64_ONES;
  }
  return tfr_f64_trunc_magnitude64(a);
}

// -> bool is a != 0: true for NaN, false for -0.
fn tfr_f64_nonzero(a: vec2<u32>) -> bool {
  return !tfr_f64_is_zero(a);
}

// f64 -> f32 rounded to odd: the f32 nearer zero of the two around a, its last
// bit set when a lies strictly between them (NaN quieted as above). Rounding
// that to f16/bf16 (common/half.wgsl) gives a's correctly rounded value.
fn tfr_f64_to_f32_odd(a: vec2<u32>) -> f32 {
  let r = tfr_f64_to_f32_bits(a);
  let back = tfr_f64_from_f32(bitcast<f32>(r));
  if (tfr_f64_is_nan(a) || (back.x == a.x && back.y == a.y) || (r & 1u) != 0u) {
    return bitcast<f32>(r);
  }
  // r is the even neighbour: the odd one lies toward a.
  let beyond = tfr_f64_lt(tfr_f64_abs(a), tfr_f64_abs(back));
  return bitcast<f32>(select(r + 1u, r - 1u, beyond));
}
