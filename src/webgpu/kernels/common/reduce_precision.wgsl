// StableHLO reduce_precision of an f32 given as its bits `x`: the mantissa
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
