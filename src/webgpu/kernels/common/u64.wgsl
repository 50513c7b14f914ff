// 64- and 128-bit unsigned integers on u32 words, for the 64-bit dtypes
// WGSL lacks: a u64 is vec2<u32>(low word, high word), the host's
// little-endian layout of u64, i64 and f64, so stored elements are used as
// they are; a u128 is vec4<u32>, least significant word first. Every
// operation is exact integer arithmetic on u32 (wrapping where noted), so no
// driver's floating-point behaviour can change a result. Shift counts are
// spelled out: WGSL takes them modulo 32.

fn tfr_u64_add(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  let lo = a.x + b.x;
  return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}

fn tfr_u64_sub(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  return vec2<u32>(a.x - b.x, a.y - b.y - select(0u, 1u, a.x < b.x));
}

fn tfr_u64_lt(a: vec2<u32>, b: vec2<u32>) -> bool {
  return a.y < b.y || (a.y == b.y && a.x < b.x);
}

fn tfr_u64_is_zero(a: vec2<u32>) -> bool {
  return (a.x | a.y) == 0u;
}

// a << n for n < 64.
fn tfr_u64_shl(a: vec2<u32>, n: u32) -> vec2<u32> {
  if (n == 0u) {
    return a;
  }
  if (n >= 32u) {
    return vec2<u32>(0u, a.x << (n - 32u));
  }
  return vec2<u32>(a.x << n, (a.y << n) | (a.x >> (32u - n)));
}

// a >> n for n < 64.
fn tfr_u64_shr(a: vec2<u32>, n: u32) -> vec2<u32> {
  if (n == 0u) {
    return a;
  }
  if (n >= 32u) {
    return vec2<u32>(a.y >> (n - 32u), 0u);
  }
  return vec2<u32>((a.x >> n) | (a.y << (32u - n)), a.y >> n);
}

// a >> n for any n, with the bits shifted out ORed into bit 0 ("jammed"):
// the result is inexact exactly when bit 0 was set by them, which is all
// that rounding needs to know about them.
fn tfr_u64_shr_jam(a: vec2<u32>, n: u32) -> vec2<u32> {
  if (n == 0u) {
    return a;
  }
  if (n >= 64u) {
    return vec2<u32>(select(0u, 1u, !tfr_u64_is_zero(a)), 0u);
  }
  // The bits shifted out, moved to the top of a word (nonzero iff any is set).
  var lost = a.x << (32u - n);
  if (n >= 32u) {
    lost = a.x | select(0u, a.y << (64u - n), n > 32u);
  }
  let r = tfr_u64_shr(a, n);
  return vec2<u32>(r.x | select(0u, 1u, lost != 0u), r.y);
}

// Leading zero bits (64 for 0).
// Branch-free forms for counts 0..63 (no early return, so a SIMD group whose
// lanes shift by different counts takes one path): a << n, and a >> n with
// the bits shifted out jammed into bit 0.
fn tfr_u64_shl_any(a: vec2<u32>, n: u32) -> vec2<u32> {
  let s = n & 31u;
  let carry = select(0u, a.x >> ((32u - s) & 31u), s != 0u);
  let r = vec2<u32>(a.x << s, (a.y << s) | carry);
  return select(r, vec2<u32>(0u, r.x), n >= 32u);
}

fn tfr_u64_shr_jam_any(a: vec2<u32>, n: u32) -> vec2<u32> {
  let s = n & 31u;
  let back = (32u - s) & 31u;
  let hi_out = select(0u, a.y << back, s != 0u);  // bits of a.y shifted below it
  let lo_out = select(0u, a.x << back, s != 0u);  // bits of a.x shifted out
  let lo = (a.x >> s) | hi_out;
  let big = n >= 32u;
  let r = select(vec2<u32>(lo, a.y >> s), vec2<u32>(a.y >> s, 0u), big);
  let lost = select(lo_out, a.x | hi_out, big);
  return vec2<u32>(r.x | select(0u, 1u, lost != 0u), r.y);
}

fn tfr_u64_clz(a: vec2<u32>) -> u32 {
  if (a.y != 0u) {
    return countLeadingZeros(a.y);
  }
  return 32u + countLeadingZeros(a.x);
}

// The full 64-bit product of two u32, from 16-bit halves (no partial sum
// overflows).
fn tfr_u32_mul_wide(a: u32, b: u32) -> vec2<u32> {
  let a0 = a & 0xffffu;
  let a1 = a >> 16u;
  let b0 = b & 0xffffu;
  let b1 = b >> 16u;
  let p00 = a0 * b0;
  let mid = a0 * b1 + (p00 >> 16u);
  let mid2 = (mid & 0xffffu) + a1 * b0;
  return vec2<u32>((mid2 << 16u) | (p00 & 0xffffu), a1 * b1 + (mid >> 16u) + (mid2 >> 16u));
}

// The high word of a * b less 0, 1 or 2: the sum of the three partial
// products above the low halves' one, each truncated to whole units of 2^32
// (three multiplies instead of tfr_u32_mul_wide's four, for sums that
// tolerate it).
fn tfr_u32_mul_hi_approx(a: u32, b: u32) -> u32 {
  let a1 = a >> 16u;
  let b1 = b >> 16u;
  return a1 * b1 + ((a1 * (b & 0xffffu)) >> 16u) + (((a & 0xffffu) * b1) >> 16u);
}

// The low 64 bits of a * b (the same for signed and unsigned operands).
fn tfr_u64_mul_lo(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  let p = tfr_u32_mul_wide(a.x, b.x);
  return vec2<u32>(p.x, p.y + a.x * b.y + a.y * b.x);
}

// The full 128-bit product of two u64.
fn tfr_u64_mul_wide(a: vec2<u32>, b: vec2<u32>) -> vec4<u32> {
  let p00 = tfr_u32_mul_wide(a.x, b.x);
  let p01 = tfr_u32_mul_wide(a.x, b.y);
  let p10 = tfr_u32_mul_wide(a.y, b.x);
  let p11 = tfr_u32_mul_wide(a.y, b.y);
  let s1 = p00.y + p01.x;
  var c1 = select(0u, 1u, s1 < p00.y);
  let w1 = s1 + p10.x;
  c1 += select(0u, 1u, w1 < s1);
  let s2 = p11.x + p01.y;
  var c2 = select(0u, 1u, s2 < p11.x);
  let s3 = s2 + p10.y;
  c2 += select(0u, 1u, s3 < s2);
  let w2 = s3 + c1;
  c2 += select(0u, 1u, w2 < s3);
  return vec4<u32>(p00.x, w1, w2, p11.y + c2);
}

// ---- u128 ----

fn tfr_u128_is_zero(a: vec4<u32>) -> bool {
  return (a.x | a.y | a.z | a.w) == 0u;
}

fn tfr_u128_add(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
  let lo = tfr_u64_add(a.xy, b.xy);
  let carry = select(0u, 1u, tfr_u64_lt(lo, a.xy));
  let hi = tfr_u64_add(tfr_u64_add(a.zw, b.zw), vec2<u32>(carry, 0u));
  return vec4<u32>(lo, hi);
}

fn tfr_u128_sub(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
  let borrow = select(0u, 1u, tfr_u64_lt(a.xy, b.xy));
  let hi = tfr_u64_sub(tfr_u64_sub(a.zw, b.zw), vec2<u32>(borrow, 0u));
  return vec4<u32>(tfr_u64_sub(a.xy, b.xy), hi);
}

fn tfr_u128_lt(a: vec4<u32>, b: vec4<u32>) -> bool {
  return tfr_u64_lt(a.zw, b.zw) || (all(a.zw == b.zw) && tfr_u64_lt(a.xy, b.xy));
}

// a << n for n < 128.
fn tfr_u128_shl(a: vec4<u32>, n: u32) -> vec4<u32> {
  var x = a;
  var m = n;
  while (m >= 32u) {
    x = vec4<u32>(0u, x.x, x.y, x.z);
    m -= 32u;
  }
  if (m > 0u) {
    let r = 32u - m;
    x = vec4<u32>(x.x << m, (x.y << m) | (x.x >> r), (x.z << m) | (x.y >> r),
                  (x.w << m) | (x.z >> r));
  }
  return x;
}

// a >> n for any n, the bits shifted out jammed into bit 0 (as tfr_u64_shr_jam).
fn tfr_u128_shr_jam(a: vec4<u32>, n: u32) -> vec4<u32> {
  if (n >= 128u) {
    return vec4<u32>(select(0u, 1u, !tfr_u128_is_zero(a)), 0u, 0u, 0u);
  }
  var x = a;
  var m = n;
  var lost = 0u;
  while (m >= 32u) {
    lost |= x.x;
    x = vec4<u32>(x.y, x.z, x.w, 0u);
    m -= 32u;
  }
  if (m > 0u) {
    let r = 32u - m;
    lost |= x.x << r;
    x = vec4<u32>((x.x >> m) | (x.y << r), (x.y >> m) | (x.z << r), (x.z >> m) | (x.w << r),
                  x.w >> m);
  }
  x.x |= select(0u, 1u, lost != 0u);
  return x;
}

// Leading zero bits (128 for 0).
fn tfr_u128_clz(a: vec4<u32>) -> u32 {
  if (a.w != 0u) {
    return countLeadingZeros(a.w);
  }
  if (a.z != 0u) {
    return 32u + countLeadingZeros(a.z);
  }
  return 64u + tfr_u64_clz(a.xy);
}

// ---- i64 and u64 values ----
// The 64-bit integer dtypes on the same words: two's complement, so add,
// subtract, the low half of a product, the bitwise ops and the shifts are the
// same for both; i64 compares with the sign bits flipped. The semantics are
// the cpu's (src/cpu/scalar_math.h): wrapping arithmetic, x / 0 = all bits set
// (-1), x % 0 = x, INT64_MIN / -1 = INT64_MIN, x % -1 = 0, shift counts read
// as unsigned and >= 64 giving 0 or the sign fill.

const TFR_U64_ONES = vec2<u32>(0xffffffffu, 0xffffffffu);
const TFR_I64_FLIP = vec2<u32>(0u, 0x80000000u);

fn tfr_u64_eq(a: vec2<u32>, b: vec2<u32>) -> bool {
  return all(a == b);
}

fn tfr_u64_le(a: vec2<u32>, b: vec2<u32>) -> bool {
  return !tfr_u64_lt(b, a);
}

fn tfr_i64_lt(a: vec2<u32>, b: vec2<u32>) -> bool {
  return tfr_u64_lt(a ^ TFR_I64_FLIP, b ^ TFR_I64_FLIP);
}

fn tfr_i64_le(a: vec2<u32>, b: vec2<u32>) -> bool {
  return !tfr_i64_lt(b, a);
}

fn tfr_i64_is_neg(a: vec2<u32>) -> bool {
  return (a.y & 0x80000000u) != 0u;
}

fn tfr_u64_neg(a: vec2<u32>) -> vec2<u32> {
  return tfr_u64_sub(vec2<u32>(0u, 0u), a);
}

// abs(INT64_MIN) wraps to INT64_MIN.
fn tfr_i64_abs(a: vec2<u32>) -> vec2<u32> {
  return select(a, tfr_u64_neg(a), tfr_i64_is_neg(a));
}

fn tfr_i64_sign(a: vec2<u32>) -> vec2<u32> {
  if (tfr_i64_is_neg(a)) {
    return TFR_U64_ONES;
  }
  return vec2<u32>(select(0u, 1u, !tfr_u64_is_zero(a)), 0u);
}

fn tfr_i64_max(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  return select(b, a, tfr_i64_lt(b, a));
}

fn tfr_i64_min(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  return select(b, a, tfr_i64_lt(a, b));
}

fn tfr_u64_max(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  return select(b, a, tfr_u64_lt(b, a));
}

fn tfr_u64_min(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  return select(b, a, tfr_u64_lt(a, b));
}

// clamp(lo, x, hi) = minimum(maximum(x, lo), hi).
fn tfr_i64_clamp(lo: vec2<u32>, x: vec2<u32>, hi: vec2<u32>) -> vec2<u32> {
  return tfr_i64_min(tfr_i64_max(x, lo), hi);
}

fn tfr_u64_clamp(lo: vec2<u32>, x: vec2<u32>, hi: vec2<u32>) -> vec2<u32> {
  return tfr_u64_min(tfr_u64_max(x, lo), hi);
}

// a * b + c, wrapping (i64 and u64 alike): dot_general's step.
fn tfr_u64_mul_add(a: vec2<u32>, b: vec2<u32>, c: vec2<u32>) -> vec2<u32> {
  return tfr_u64_add(tfr_u64_mul_lo(a, b), c);
}

fn tfr_u64_popcnt(a: vec2<u32>) -> vec2<u32> {
  return vec2<u32>(countOneBits(a.x) + countOneBits(a.y), 0u);
}

// vec4(a / b, a % b) for b != 0: shift and subtract, one quotient bit per
// step from the highest one possible (u32 division when both fit).
fn tfr_u64_divmod(a: vec2<u32>, b: vec2<u32>) -> vec4<u32> {
  if ((a.y | b.y) == 0u) {
    return vec4<u32>(a.x / b.x, 0u, a.x % b.x, 0u);
  }
  if (tfr_u64_lt(a, b)) {
    return vec4<u32>(0u, 0u, a);
  }
  let n = tfr_u64_clz(b) - tfr_u64_clz(a);  // b << n keeps every bit
  var d = tfr_u64_shl(b, n);
  var r = a;
  var q = vec2<u32>(0u, 0u);
  for (var i = 0u; i <= n; i++) {
    q = tfr_u64_shl(q, 1u);
    if (!tfr_u64_lt(r, d)) {
      r = tfr_u64_sub(r, d);
      q.x = q.x | 1u;
    }
    d = tfr_u64_shr(d, 1u);
  }
  return vec4<u32>(q, r);
}

fn tfr_u64_div(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  if (tfr_u64_is_zero(b)) {
    return TFR_U64_ONES;
  }
  return tfr_u64_divmod(a, b).xy;
}

fn tfr_u64_rem(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  if (tfr_u64_is_zero(b)) {
    return a;
  }
  return tfr_u64_divmod(a, b).zw;
}

// Toward zero on the magnitudes (INT64_MIN's is 2^63 as a u64).
fn tfr_i64_div(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  if (tfr_u64_is_zero(b)) {
    return TFR_U64_ONES;
  }
  if (tfr_u64_eq(b, TFR_U64_ONES)) {
    return tfr_u64_neg(a);
  }
  let na = tfr_i64_is_neg(a);
  let nb = tfr_i64_is_neg(b);
  let q = tfr_u64_divmod(select(a, tfr_u64_neg(a), na), select(b, tfr_u64_neg(b), nb)).xy;
  return select(q, tfr_u64_neg(q), na != nb);
}

// The sign of the dividend.
fn tfr_i64_rem(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  if (tfr_u64_is_zero(b)) {
    return a;
  }
  if (tfr_u64_eq(b, TFR_U64_ONES)) {
    return vec2<u32>(0u, 0u);
  }
  let na = tfr_i64_is_neg(a);
  let nb = tfr_i64_is_neg(b);
  let r = tfr_u64_divmod(select(a, tfr_u64_neg(a), na), select(b, tfr_u64_neg(b), nb)).zw;
  return select(r, tfr_u64_neg(r), na);
}

// a^b by squaring, wrapping, for any b read as unsigned.
fn tfr_u64_pow(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  var r = vec2<u32>(1u, 0u);
  var x = a;
  var e = b;
  while (!tfr_u64_is_zero(e)) {
    if ((e.x & 1u) != 0u) {
      r = tfr_u64_mul_lo(r, x);
    }
    x = tfr_u64_mul_lo(x, x);
    e = tfr_u64_shr(e, 1u);
  }
  return r;
}

// A negative exponent gives 1/a^n truncated: 0 but for |a| = 1.
fn tfr_i64_pow(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  if (tfr_i64_is_neg(b)) {
    if (tfr_u64_eq(a, vec2<u32>(1u, 0u))) {
      return a;
    }
    if (tfr_u64_eq(a, TFR_U64_ONES)) {
      return select(vec2<u32>(1u, 0u), TFR_U64_ONES, (b.x & 1u) != 0u);
    }
    return vec2<u32>(0u, 0u);
  }
  return tfr_u64_pow(a, b);
}

// Shifts by b read as unsigned (i64 and u64 alike): counts >= 64 give 0, or
// the sign fill for the arithmetic shift (u64 shifts as its signed twin).
fn tfr_x64_shift_big(b: vec2<u32>) -> bool {
  return b.y != 0u || b.x >= 64u;
}

fn tfr_x64_shift_left(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  if (tfr_x64_shift_big(b)) {
    return vec2<u32>(0u, 0u);
  }
  return tfr_u64_shl(a, b.x);
}

fn tfr_x64_shift_right_logical(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  if (tfr_x64_shift_big(b)) {
    return vec2<u32>(0u, 0u);
  }
  return tfr_u64_shr(a, b.x);
}

fn tfr_x64_shift_right_arithmetic(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  let fill = select(vec2<u32>(0u, 0u), TFR_U64_ONES, tfr_i64_is_neg(a));
  if (tfr_x64_shift_big(b)) {
    return fill;
  }
  return tfr_u64_shr(a ^ fill, b.x) ^ fill;
}

// ---- conversions of i64 / u64 that need no f64 ----

// i32 -> i64 / u64 (sign extended, as C's casts).
fn tfr_i64_from_i32(v: i32) -> vec2<u32> {
  return vec2<u32>(bitcast<u32>(v), select(0u, 0xffffffffu, v < 0i));
}

// The f32 bits of a nonzero magnitude m, rounded to nearest even (every u64
// is in f32's range).
fn tfr_u64_magnitude_to_f32_bits(m: vec2<u32>) -> u32 {
  let p = 63u - tfr_u64_clz(m);  // the leading bit
  // 31 bits with the leading one at bit 30 and 7 round bits (the rest jammed).
  var sig: u32;
  if (p <= 30u) {
    sig = m.x << (30u - p);
  } else {
    sig = tfr_u64_shr_jam(m, p - 30u).x;
  }
  let rb = sig & 0x7fu;
  var r = (sig + 0x40u) >> 7u;
  if (rb == 0x40u) {
    r = r & ~1u;
  }
  // The leading bit (bit 23, or 24 after a carry) adds into the exponent.
  return ((p + 126u) << 23u) + r;
}

fn tfr_u64_to_f32(a: vec2<u32>) -> f32 {
  if (tfr_u64_is_zero(a)) {
    return 0.0;
  }
  return bitcast<f32>(tfr_u64_magnitude_to_f32_bits(a));
}

fn tfr_i64_to_f32(a: vec2<u32>) -> f32 {
  if (tfr_u64_is_zero(a)) {
    return 0.0;
  }
  let neg = tfr_i64_is_neg(a);
  let bits = tfr_u64_magnitude_to_f32_bits(select(a, tfr_u64_neg(a), neg));
  return bitcast<f32>(bits | select(0u, 0x80000000u, neg));
}
