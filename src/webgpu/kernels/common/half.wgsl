// f16 and bf16 (wgsl_types.h): values in f32 registers, packed two to a u32
// word in storage. Everything is integer work on the bits, the cpu's rules
// (src/core/half.h), so neither a device without shader-f16 nor one that
// flushes f32 subnormals changes a result:
//   * widening (tfr_f16_to_f32, tfr_bf16_to_f32) is exact, NaN payloads kept;
//   * tfr_f32_to_f16_bits / tfr_f32_to_bf16_bits round an f32 once to nearest
//     even, overflow to infinity, f16 subnormals included, a NaN quieted with
//     the top of its payload kept: the cpu's FROM of every f16/bf16 op;
//   * tfr_round_f16 / tfr_round_bf16: that rounding, widened back (what an
//     op's result is in registers);
//   * tfr_f16_bits / tfr_bf16_bits: the bits of an f32 that is a value of the
//     dtype (a widened element, a rounded result): exact, signalling NaNs
//     kept, for stores;
//   * tfr_u64_to_f32_odd / tfr_f64_to_f32_odd: integers and f64 rounded to
//     f32 "to odd" (the dropped bits ORed into the last kept one), so that
//     rounding that to f16/bf16 gives the correctly rounded result, as the
//     cpu's single rounding from the exact value (24 bits >= 11 + 2 and 8 + 2).

fn tfr_f16_to_f32(h: u32) -> f32 {
  let sign = (h & 0x8000u) << 16u;
  let e = (h >> 10u) & 0x1fu;
  let m = h & 0x3ffu;
  if (e == 0x1fu) {
    return bitcast<f32>(sign | 0x7f800000u | (m << 13u));
  }
  if (e == 0u) {
    if (m == 0u) {
      return bitcast<f32>(sign);
    }
    // m * 2^-24, normal in f32: shift the leading one up to bit 10.
    let p = firstLeadingBit(m);  // 0 .. 9
    let mm = (m << (10u - p)) & 0x3ffu;
    return bitcast<f32>(sign | ((p + 103u) << 23u) | (mm << 13u));
  }
  return bitcast<f32>(sign | ((e + 112u) << 23u) | (m << 13u));
}

fn tfr_bf16_to_f32(h: u32) -> f32 {
  return bitcast<f32>(h << 16u);
}

fn tfr_f32_to_f16_bits(x: f32) -> u32 {
  let b = bitcast<u32>(x);
  let sign = (b >> 16u) & 0x8000u;
  let a = b & 0x7fffffffu;
  if (a >= 0x7f800000u) {
    return sign | 0x7c00u | select(0u, 0x200u | ((a >> 13u) & 0x3ffu), a > 0x7f800000u);
  }
  if (a >= 0x477ff000u) {
    return sign | 0x7c00u;
  }
  if (a >= 0x38800000u) {
    let r = a - 0x38000000u;
    var q = r >> 13u;
    let rem = r & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (q & 1u) != 0u)) {
      q = q + 1u;
    }
    return sign | q;
  }
  if (a < 0x33000000u) {
    return sign;
  }
  let e = a >> 23u;
  let m = (a & 0x7fffffu) | 0x800000u;
  let shift = 126u - e;  // 14 .. 24
  var q = m >> shift;
  let rem = m & ((1u << shift) - 1u);
  let half = 1u << (shift - 1u);
  if (rem > half || (rem == half && (q & 1u) != 0u)) {
    q = q + 1u;
  }
  return sign | q;
}

fn tfr_f32_to_bf16_bits(x: f32) -> u32 {
  let b = bitcast<u32>(x);
  if ((b & 0x7fffffffu) > 0x7f800000u) {
    return (b >> 16u) | 0x40u;
  }
  return (b + 0x7fffu + ((b >> 16u) & 1u)) >> 16u;
}

fn tfr_round_f16(x: f32) -> f32 {
  return tfr_f16_to_f32(tfr_f32_to_f16_bits(x));
}

fn tfr_round_bf16(x: f32) -> f32 {
  return tfr_bf16_to_f32(tfr_f32_to_bf16_bits(x));
}

fn tfr_f16_bits(x: f32) -> u32 {
  let b = bitcast<u32>(x);
  if ((b & 0x7fffffffu) > 0x7f800000u) {
    return ((b >> 16u) & 0x8000u) | 0x7c00u | ((b >> 13u) & 0x3ffu);
  }
  return tfr_f32_to_f16_bits(x);
}

fn tfr_bf16_bits(x: f32) -> u32 {
  return bitcast<u32>(x) >> 16u;
}

// u64 words (low, high) -> f32 rounded to odd (exact below 2^24).
fn tfr_u64_to_f32_odd(a: vec2<u32>) -> f32 {
  if (a.y == 0u && a.x < 0x1000000u) {
    return f32(a.x);
  }
  let p = select(firstLeadingBit(a.x), 32u + firstLeadingBit(a.y), a.y != 0u);  // >= 24
  let s = p - 23u;  // 1 .. 40: keep 24 bits
  var m: u32;
  var lost: bool;
  if (s >= 32u) {
    m = a.y >> (s - 32u);
    lost = a.x != 0u || (a.y & ((1u << (s - 32u)) - 1u)) != 0u;
  } else {
    m = (a.x >> s) | (a.y << (32u - s));
    lost = (a.x & ((1u << s) - 1u)) != 0u;
  }
  m = m | select(0u, 1u, lost);
  return ldexp(f32(m), i32(s));
}

// i64 words -> f32 rounded to odd.
fn tfr_i64_to_f32_odd(a: vec2<u32>) -> f32 {
  if ((a.y & 0x80000000u) == 0u) {
    return tfr_u64_to_f32_odd(a);
  }
  let lo = ~a.x + 1u;
  let hi = ~a.y + select(0u, 1u, lo == 0u);
  return -tfr_u64_to_f32_odd(vec2<u32>(lo, hi));
}

// next_after in the dtype's own spacing (the cpu's): NaN in either gives that
// operand, a == b gives b, from zero the smallest subnormal toward b, else
// one step of the magnitude bits. ha / hb are the operands' bits.
fn tfr_next_after_half(a: f32, b: f32, ha: u32, hb: u32) -> u32 {
  if ((bitcast<u32>(a) & 0x7fffffffu) > 0x7f800000u) {
    return ha;
  }
  if ((bitcast<u32>(b) & 0x7fffffffu) > 0x7f800000u || a == b) {
    return hb;
  }
  if ((ha & 0x7fffu) == 0u) {
    return (hb & 0x8000u) | 1u;
  }
  return select(ha - 1u, ha + 1u, (a < b) == (a > 0.0));
}

fn tfr_next_after_f16(a: f32, b: f32) -> f32 {
  return tfr_f16_to_f32(tfr_next_after_half(a, b, tfr_f16_bits(a), tfr_f16_bits(b)));
}

fn tfr_next_after_bf16(a: f32, b: f32) -> f32 {
  return tfr_bf16_to_f32(tfr_next_after_half(a, b, tfr_bf16_bits(a), tfr_bf16_bits(b)));
}
