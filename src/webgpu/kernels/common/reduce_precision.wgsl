// StableHLO reduce_precision of an f32 given as its bits `x` (f64: below): the mantissa
// rounded to `mbits` bits (to nearest, ties to even), then an exponent beyond
// the reduced range gives a signed infinity and one below the reduced
// format's smallest normal number a signed zero (no subnormals). A NaN stays,
// or becomes +inf when mbits is 0. The cpu's rule (src/core/half.h), on u32.
// Wider widths than f32's own (ebits >= 8, mbits >= 23) change nothing.
fn tfr_reduce_precision_f32(x: u32, ebits: u32, mbits: u32) -> u32 {
  let exp_mask = 0x7f800000u;
  let man_mask = 0x007fffffu;
  if ((x & exp_mask) == exp_mask && (x & man_mask) != 0u) {
    return select(exp_mask, x, mbits > 0u);
  }
  var r = x;
  if (mbits < 23u) {
    let drop = 23u - mbits;
    let last = 1u << drop;
    r = r + ((r & last) >> drop) + (last >> 1u) - 1u;
    r = r & ~(last - 1u);
  }
  if (ebits < 8u) {
    let red_bias = (1u << (ebits - 1u)) - 1u;
    let e = r & exp_mask;
    if (e > ((127u + red_bias) << 23u)) {
      r = (r & 0x80000000u) | exp_mask;
    } else if (e <= ((127u - red_bias) << 23u)) {
      r = r & 0x80000000u;
    }
  }
  return r;
}

// The same rule for an f64 given as its bits (low word, high word): on u64
// words (needs common/u64.wgsl). Widths ebits >= 11, mbits >= 52 change
// nothing.
fn tfr_reduce_precision_f64(x: vec2<u32>, ebits: u32, mbits: u32) -> vec2<u32> {
  let exp_hi = 0x7ff00000u;
  if ((x.y & exp_hi) == exp_hi && ((x.y & 0x000fffffu) | x.x) != 0u) {
    return select(vec2<u32>(0u, exp_hi), x, mbits > 0u);
  }
  var r = x;
  if (mbits < 52u) {
    let drop = 52u - mbits;
    let one = vec2<u32>(1u, 0u);
    let last = tfr_u64_shl(one, drop);
    let odd = tfr_u64_shr(r & last, drop);
    r = tfr_u64_add(r, tfr_u64_add(odd, tfr_u64_sub(tfr_u64_shr(last, 1u), one)));
    r = r & ~tfr_u64_sub(last, one);
  }
  if (ebits < 11u) {
    let red_bias = (1u << (ebits - 1u)) - 1u;
    let e = r.y & exp_hi;
    if (e > ((1023u + red_bias) << 20u)) {
      r = vec2<u32>(0u, (r.y & 0x80000000u) | exp_hi);
    } else if (e <= ((1023u - red_bias) << 20u)) {
      r = vec2<u32>(0u, r.y & 0x80000000u);
    }
  }
  return r;
}

// The same rule for a 16-bit float (f16: 10 stored mantissa bits, bf16: 7)
// given as its bits in the low half of `x`; widths at or beyond the dtype's
// own change nothing.
fn tfr_reduce_precision_h(x: u32, src_mbits: u32, ebits: u32, mbits: u32) -> u32 {
  let src_ebits = 15u - src_mbits;
  let exp_mask = ((1u << src_ebits) - 1u) << src_mbits;
  let man_mask = (1u << src_mbits) - 1u;
  if ((x & exp_mask) == exp_mask && (x & man_mask) != 0u) {
    return select(exp_mask, x, mbits > 0u);
  }
  var r = x;
  if (mbits < src_mbits) {
    let drop = src_mbits - mbits;
    let last = 1u << drop;
    r = r + ((r & last) >> drop) + (last >> 1u) - 1u;
    r = r & ~(last - 1u) & 0xffffu;
  }
  if (ebits < src_ebits) {
    let src_bias = (1u << (src_ebits - 1u)) - 1u;
    let red_bias = (1u << (ebits - 1u)) - 1u;
    let e = r & exp_mask;
    if (e > ((src_bias + red_bias) << src_mbits)) {
      r = (r & 0x8000u) | exp_mask;
    } else if (e <= ((src_bias - red_bias) << src_mbits)) {
      r = r & 0x8000u;
    }
  }
  return r;
}
