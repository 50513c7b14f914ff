// The scatter combiners where WGSL has no one-line form, with the cpu
// backend's semantics (src/cpu/gather_scatter.c): maximum/minimum propagate
// NaN (a NaN in the result stays, a NaN update replaces it); complex
// maximum/minimum are lexicographic on (re, im), the result's NaN first.
// NaN is tested on the bits, so no driver shortcut changes the answer.

fn tfr_sc_nan(v: f32) -> bool {
  return (bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u;
}

fn tfr_sc_max_f32(a: f32, x: f32) -> f32 {
  return select(a, x, x > a || tfr_sc_nan(x));
}

fn tfr_sc_min_f32(a: f32, x: f32) -> f32 {
  return select(a, x, x < a || tfr_sc_nan(x));
}

fn tfr_sc_nan_c64(a: vec2<f32>) -> bool {
  return tfr_sc_nan(a.x) || tfr_sc_nan(a.y);
}

fn tfr_sc_max_c64(a: vec2<f32>, x: vec2<f32>) -> vec2<f32> {
  if (tfr_sc_nan_c64(a)) {
    return a;
  }
  if (tfr_sc_nan_c64(x)) {
    return x;
  }
  return select(a, x, x.x > a.x || (x.x == a.x && x.y > a.y));
}

fn tfr_sc_min_c64(a: vec2<f32>, x: vec2<f32>) -> vec2<f32> {
  if (tfr_sc_nan_c64(a)) {
    return a;
  }
  if (tfr_sc_nan_c64(x)) {
    return x;
  }
  return select(a, x, x.x < a.x || (x.x == a.x && x.y < a.y));
}

fn tfr_sc_mul_c64(a: vec2<f32>, x: vec2<f32>) -> vec2<f32> {
  return vec2<f32>(a.x * x.x - a.y * x.y, a.x * x.y + a.y * x.x);
}

fn tfr_sc_add_i32(a: i32, x: i32) -> i32 {
  return bitcast<i32>(bitcast<u32>(a) + bitcast<u32>(x));
}

fn tfr_sc_mul_i32(a: i32, x: i32) -> i32 {
  return bitcast<i32>(bitcast<u32>(a) * bitcast<u32>(x));
}

// i64 as vec2<u32>(low word, high word): two's complement, wrapping.
fn tfr_sc_add_i64(a: vec2<u32>, x: vec2<u32>) -> vec2<u32> {
  let lo = a.x + x.x;
  return vec2<u32>(lo, a.y + x.y + select(0u, 1u, lo < a.x));
}

// The high word of the 64-bit product of two u32.
fn tfr_sc_mulhi_u32(a: u32, b: u32) -> u32 {
  let a0 = a & 0xffffu;
  let a1 = a >> 16u;
  let b0 = b & 0xffffu;
  let b1 = b >> 16u;
  let p00 = a0 * b0;
  let p01 = a0 * b1;
  let p10 = a1 * b0;
  let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
  return a1 * b1 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u);
}

// The low 64 bits of the product (the same for signed and unsigned).
fn tfr_sc_mul_i64(a: vec2<u32>, x: vec2<u32>) -> vec2<u32> {
  return vec2<u32>(a.x * x.x, tfr_sc_mulhi_u32(a.x, x.x) + a.x * x.y + a.y * x.x);
}

fn tfr_sc_lt_i64(a: vec2<u32>, x: vec2<u32>) -> bool {
  let ah = bitcast<i32>(a.y);
  let xh = bitcast<i32>(x.y);
  return ah < xh || (ah == xh && a.x < x.x);
}

fn tfr_sc_max_i64(a: vec2<u32>, x: vec2<u32>) -> vec2<u32> {
  return select(a, x, tfr_sc_lt_i64(a, x));
}

fn tfr_sc_min_i64(a: vec2<u32>, x: vec2<u32>) -> vec2<u32> {
  return select(a, x, tfr_sc_lt_i64(x, a));
}

// f64 as its bits, vec2<u32>(low word, high word): maximum and minimum only
// (comparisons need no arithmetic).
fn tfr_sc_nan_f64(a: vec2<u32>) -> bool {
  let h = a.y & 0x7fffffffu;
  return h > 0x7ff00000u || (h == 0x7ff00000u && a.x != 0u);
}

// a < x for two non-NaN f64 (-0 == +0).
fn tfr_sc_lt_f64(a: vec2<u32>, x: vec2<u32>) -> bool {
  let ah = a.y & 0x7fffffffu;
  let xh = x.y & 0x7fffffffu;
  if (ah == 0u && a.x == 0u && xh == 0u && x.x == 0u) {
    return false;
  }
  let an = (a.y >> 31u) != 0u;
  let xn = (x.y >> 31u) != 0u;
  if (an != xn) {
    return an;
  }
  let mag_lt = ah < xh || (ah == xh && a.x < x.x);
  let mag_gt = ah > xh || (ah == xh && a.x > x.x);
  return select(mag_lt, mag_gt, an);
}

fn tfr_sc_max_f64(a: vec2<u32>, x: vec2<u32>) -> vec2<u32> {
  let nx = tfr_sc_nan_f64(x);
  return select(a, x, nx || (!tfr_sc_nan_f64(a) && tfr_sc_lt_f64(a, x)));
}

fn tfr_sc_min_f64(a: vec2<u32>, x: vec2<u32>) -> vec2<u32> {
  let nx = tfr_sc_nan_f64(x);
  return select(a, x, nx || (!tfr_sc_nan_f64(a) && tfr_sc_lt_f64(x, a)));
}
