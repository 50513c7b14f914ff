// Conversions with tenferro's semantics (DESIGN.md, StableHLO `convert`) where
// WGSL's own differ or leave room. NaN and zero are tested on the bits, so no
// driver's floating-point shortcuts can change the answer.

fn tfr_f32_is_nan(v: f32) -> bool {
  return (bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u;
}

// -> bool is x != 0: true for NaN, false for -0.0.
fn tfr_f32_nonzero(v: f32) -> bool {
  return (bitcast<u32>(v) & 0x7fffffffu) != 0u;
}

// float -> int rounds toward zero and saturates; NaN -> 0.
fn tfr_f32_to_i32(v: f32) -> i32 {
  if (tfr_f32_is_nan(v)) {
    return 0i;
  }
  if (v >= 2147483648.0) {
    return 2147483647i;
  }
  if (v <= -2147483648.0) {
    return -2147483647i - 1i;
  }
  return i32(v);
}

// An integer wrapped to its low w bits (8, 16 or 32), as C's cast to a
// narrower type: sign-extended from bit w - 1 (i8, i16 held as i32) or
// zero-extended (u8, u16, u32 held as u32).
fn tfr_wrap_s(x: i32, w: u32) -> i32 {
  return (x << (32u - w)) >> (32u - w);
}

fn tfr_wrap_u(x: u32, w: u32) -> u32 {
  return x & (0xffffffffu >> (32u - w));
}
