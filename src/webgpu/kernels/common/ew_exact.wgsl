// The exact elementwise functions of src/webgpu/ew_table.c: the same
// results as the cpu backend (src/cpu/scalar_math.h) bit for bit, whatever
// shortcuts a driver takes with floating point. NaN, zero and signs are
// decided on the bits (tfr_f32_is_nan of common/convert.wgsl), integer
// arithmetic runs on u32 so that it wraps, and every case WGSL defines
// differently from tenferro (division by zero, shift counts >= 32) is
// spelled out. bool values are the stored bytes (0/1) as u32.

// ---- i32 ----

fn tfr_ew_neg_i32(a: i32) -> i32 {
  return bitcast<i32>(0u - bitcast<u32>(a));
}

// abs(INT_MIN) wraps to INT_MIN.
fn tfr_ew_abs_i32(a: i32) -> i32 {
  return select(a, tfr_ew_neg_i32(a), a < 0i);
}

fn tfr_ew_sign_i32(a: i32) -> i32 {
  return select(select(0i, -1i, a < 0i), 1i, a > 0i);
}

fn tfr_ew_add_i32(a: i32, b: i32) -> i32 {
  return bitcast<i32>(bitcast<u32>(a) + bitcast<u32>(b));
}

fn tfr_ew_sub_i32(a: i32, b: i32) -> i32 {
  return bitcast<i32>(bitcast<u32>(a) - bitcast<u32>(b));
}

fn tfr_ew_mul_i32(a: i32, b: i32) -> i32 {
  return bitcast<i32>(bitcast<u32>(a) * bitcast<u32>(b));
}

// XLA's values: x / 0 = -1, INT_MIN / -1 = INT_MIN (the negation wraps).
fn tfr_ew_div_i32(a: i32, b: i32) -> i32 {
  if (b == 0i) {
    return -1i;
  }
  if (b == -1i) {
    return tfr_ew_neg_i32(a);
  }
  return a / b;
}

// x % 0 = x; x % -1 = 0 (also INT_MIN % -1). Otherwise truncated: the sign of
// the dividend, as C and WGSL.
fn tfr_ew_rem_i32(a: i32, b: i32) -> i32 {
  if (b == 0i) {
    return a;
  }
  if (b == -1i) {
    return 0i;
  }
  return a % b;
}

// Squaring with wrapping; a negative exponent gives 1/a^n truncated: 0 but
// for |a| = 1.
fn tfr_ew_pow_i32(a: i32, b: i32) -> i32 {
  if (b < 0i) {
    if (a == 1i) {
      return 1i;
    }
    if (a == -1i) {
      return select(1i, -1i, (b & 1i) != 0i);
    }
    return 0i;
  }
  return bitcast<i32>(tfr_ew_pow_nonneg(bitcast<u32>(a), bitcast<u32>(b)));
}

// a^e by squaring, wrapping modulo 2^32.
fn tfr_ew_pow_nonneg(a: u32, e_: u32) -> u32 {
  var r = 1u;
  var x = a;
  var e = e_;
  while (e != 0u) {
    if ((e & 1u) != 0u) {
      r = r * x;
    }
    x = x * x;
    e = e >> 1u;
  }
  return r;
}

// Shift counts are read as unsigned; counts >= 32 give 0 or the sign fill
// (WGSL would use the count modulo 32).
fn tfr_ew_shl_i32(a: i32, b: i32) -> i32 {
  let n = bitcast<u32>(b);
  return select(bitcast<i32>(bitcast<u32>(a) << (n & 31u)), 0i, n >= 32u);
}

fn tfr_ew_shr_logical_i32(a: i32, b: i32) -> i32 {
  let n = bitcast<u32>(b);
  return select(bitcast<i32>(bitcast<u32>(a) >> (n & 31u)), 0i, n >= 32u);
}

fn tfr_ew_shr_arithmetic_i32(a: i32, b: i32) -> i32 {
  let n = bitcast<u32>(b);
  return select(a >> (n & 31u), select(0i, -1i, a < 0i), n >= 32u);
}

fn tfr_ew_clamp_i32(lo: i32, x: i32, hi: i32) -> i32 {
  let r = select(lo, x, x > lo);
  return select(hi, r, r < hi);
}

// ---- u32 and the narrow integers ----
// i8 and i16 compute as sign-extended i32, u8 and u16 as zero-extended u32
// (wgsl_types.h); a result that may leave the range is wrapped back to the
// width w (8, 16 or 32 bits), which is what the cpu's cast to the narrow
// type does (common/convert.wgsl's tfr_wrap_s / tfr_wrap_u). Where the
// width matters beyond that (shift counts, the bits of a negative value)
// the functions take w.

// x / 0 = all bits set, x % 0 = x (as the signed ones).
fn tfr_ew_div_u32(a: u32, b: u32) -> u32 {
  if (b == 0u) {
    return 0xffffffffu;
  }
  return a / b;
}

fn tfr_ew_rem_u32(a: u32, b: u32) -> u32 {
  if (b == 0u) {
    return a;
  }
  return a % b;
}

fn tfr_ew_clamp_u32(lo: u32, x: u32, hi: u32) -> u32 {
  return min(max(x, lo), hi);
}

fn tfr_ew_popcnt_s(a: i32, w: u32) -> i32 {
  return bitcast<i32>(countOneBits(tfr_wrap_u(bitcast<u32>(a), w)));
}

// Shifts: the count is read as a w-bit unsigned number; counts >= w give 0
// or the sign fill. A logical right shift works on the w-bit pattern; an
// arithmetic one of an unsigned value on the pattern read as signed (XLA).
fn tfr_ew_shift_count(b: u32, w: u32) -> u32 {
  return tfr_wrap_u(b, w);
}

fn tfr_ew_shl_s(a: i32, b: i32, w: u32) -> i32 {
  let n = tfr_ew_shift_count(bitcast<u32>(b), w);
  return select(tfr_wrap_s(a << (n & 31u), w), 0i, n >= w);
}

fn tfr_ew_shr_logical_s(a: i32, b: i32, w: u32) -> i32 {
  let n = tfr_ew_shift_count(bitcast<u32>(b), w);
  let r = bitcast<i32>(tfr_wrap_u(bitcast<u32>(a), w) >> (n & 31u));
  return select(tfr_wrap_s(r, w), 0i, n >= w);
}

fn tfr_ew_shr_arithmetic_s(a: i32, b: i32, w: u32) -> i32 {
  let n = tfr_ew_shift_count(bitcast<u32>(b), w);
  return select(a >> (n & 31u), a >> 31u, n >= w);
}

fn tfr_ew_shl_u(a: u32, b: u32, w: u32) -> u32 {
  let n = tfr_ew_shift_count(b, w);
  return select(tfr_wrap_u(a << (n & 31u), w), 0u, n >= w);
}

fn tfr_ew_shr_logical_u(a: u32, b: u32, w: u32) -> u32 {
  let n = tfr_ew_shift_count(b, w);
  return select(a >> (n & 31u), 0u, n >= w);
}

fn tfr_ew_shr_arithmetic_u(a: u32, b: u32, w: u32) -> u32 {
  let s = tfr_wrap_s(bitcast<i32>(a), w);
  return tfr_wrap_u(bitcast<u32>(tfr_ew_shr_arithmetic_s(s, bitcast<i32>(b), w)), w);
}

// ---- f32 ----

fn tfr_ew_neg_f32(a: f32) -> f32 {
  return bitcast<f32>(bitcast<u32>(a) ^ 0x80000000u);
}

fn tfr_ew_abs_f32(a: f32) -> f32 {
  return bitcast<f32>(bitcast<u32>(a) & 0x7fffffffu);
}

fn tfr_ew_is_zero_f32(a: f32) -> bool {
  return (bitcast<u32>(a) & 0x7fffffffu) == 0u;
}

// -1/0/1; NaN stays NaN and a zero keeps its sign.
fn tfr_ew_sign_f32(a: f32) -> f32 {
  if (tfr_f32_is_nan(a) || tfr_ew_is_zero_f32(a)) {
    return a;
  }
  return select(1.0, -1.0, (bitcast<u32>(a) & 0x80000000u) != 0u);
}

// Halves away from zero. a - trunc(a) is exact, so is the tie test.
fn tfr_ew_round_afz_f32(a: f32) -> f32 {
  let t = trunc(a);
  if (abs(a - t) >= 0.5) {
    return t + select(1.0, -1.0, (bitcast<u32>(a) & 0x80000000u) != 0u);
  }
  return t;
}

fn tfr_ew_is_finite_f32(a: f32) -> bool {
  return (bitcast<u32>(a) & 0x7f800000u) != 0x7f800000u;
}

// Neither operand is NaN: the ordered comparisons may hold.
fn tfr_ew_ordered_f32(a: f32, b: f32) -> bool {
  return !tfr_f32_is_nan(a) && !tfr_f32_is_nan(b);
}

// IEEE 754-2019 maximum/minimum (as StableHLO and the cpu backend): NaN
// propagates (b's when both are NaN) and -0 < +0.
fn tfr_ew_max_f32(a: f32, b: f32) -> f32 {
  var r = select(b, a, a > b);
  if (a == b && (bitcast<u32>(a) & 0x80000000u) == 0u) {
    r = a;
  }
  if (tfr_f32_is_nan(a)) {
    r = a;
  }
  if (tfr_f32_is_nan(b)) {
    r = b;
  }
  return r;
}

fn tfr_ew_min_f32(a: f32, b: f32) -> f32 {
  var r = select(b, a, a < b);
  if (a == b && (bitcast<u32>(a) & 0x80000000u) != 0u) {
    r = a;
  }
  if (tfr_f32_is_nan(a)) {
    r = a;
  }
  if (tfr_f32_is_nan(b)) {
    r = b;
  }
  return r;
}

fn tfr_ew_clamp_f32(lo: f32, x: f32, hi: f32) -> f32 {
  return tfr_ew_min_f32(tfr_ew_max_f32(x, lo), hi);
}

// A key that orders non-NaN floats as their values (-0 just below +0), from
// the bits only: comparisons that a flushing device cannot get wrong.
fn tfr_ew_order_key(u: u32) -> u32 {
  return select(u | 0x80000000u, ~u, (u & 0x80000000u) != 0u);
}

// nextafter(a, b): the neighbour of a towards b, on the bits (subnormals and
// signed zeros included, also on devices that flush subnormal arithmetic).
fn tfr_ew_next_after_f32(a: f32, b: f32) -> f32 {
  let ua = bitcast<u32>(a);
  let ub = bitcast<u32>(b);
  if (tfr_f32_is_nan(a)) {
    return bitcast<f32>(ua | 0x00400000u);
  }
  if (tfr_f32_is_nan(b)) {
    return bitcast<f32>(ub | 0x00400000u);
  }
  let za = (ua & 0x7fffffffu) == 0u;
  if (ua == ub || (za && (ub & 0x7fffffffu) == 0u)) {
    return b;
  }
  if (za) {
    return bitcast<f32>((ub & 0x80000000u) | 1u);
  }
  let up = (tfr_ew_order_key(ua) < tfr_ew_order_key(ub)) == ((ua & 0x80000000u) == 0u);
  return bitcast<f32>(select(ua - 1u, ua + 1u, up));
}

// ---- c64 (vec2<f32>: re, im) ----

fn tfr_ew_neg_c64(a: vec2<f32>) -> vec2<f32> {
  return vec2<f32>(tfr_ew_neg_f32(a.x), tfr_ew_neg_f32(a.y));
}

fn tfr_ew_conj_c64(a: vec2<f32>) -> vec2<f32> {
  return vec2<f32>(a.x, tfr_ew_neg_f32(a.y));
}

fn tfr_ew_has_nan_c64(a: vec2<f32>) -> bool {
  return tfr_f32_is_nan(a.x) || tfr_f32_is_nan(a.y);
}

fn tfr_ew_eq_c64(a: vec2<f32>, b: vec2<f32>) -> bool {
  return tfr_ew_ordered_f32(a.x, b.x) && tfr_ew_ordered_f32(a.y, b.y) && a.x == b.x &&
         a.y == b.y;
}

// Keys that order the non-NaN parts of a as their values, -0 equal to +0
// (as the cpu's float comparisons), from the bits: the comparisons below are
// integer ones, which neither a flushing device nor a compiler turning a
// float compare-and-select into a min/max instruction (NVIDIA's orders -0
// below +0) can change.
fn tfr_ew_value_key(a: vec2<f32>) -> vec2<u32> {
  let u = bitcast<vec2<u32>>(a);
  let z = (u & vec2<u32>(0x7fffffffu)) == vec2<u32>(0u);
  return vec2<u32>(tfr_ew_order_key(select(u.x, 0u, z.x)), tfr_ew_order_key(select(u.y, 0u, z.y)));
}

// Lexicographic on (re, im); a NaN in either part propagates that operand.
fn tfr_ew_max_c64(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
  if (tfr_ew_has_nan_c64(a)) {
    return a;
  }
  if (tfr_ew_has_nan_c64(b)) {
    return b;
  }
  let ka = tfr_ew_value_key(a);
  let kb = tfr_ew_value_key(b);
  if (ka.x != kb.x) {
    return select(b, a, ka.x > kb.x);
  }
  return select(b, a, ka.y >= kb.y);
}

fn tfr_ew_min_c64(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
  if (tfr_ew_has_nan_c64(a)) {
    return a;
  }
  if (tfr_ew_has_nan_c64(b)) {
    return b;
  }
  let ka = tfr_ew_value_key(a);
  let kb = tfr_ew_value_key(b);
  if (ka.x != kb.x) {
    return select(b, a, ka.x < kb.x);
  }
  return select(b, a, ka.y <= kb.y);
}
