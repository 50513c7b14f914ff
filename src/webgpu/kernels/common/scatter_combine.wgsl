// The scatter combiners where WGSL has no one-line form, with the cpu
// backend's semantics (src/cpu/gather_scatter.c): maximum/minimum propagate
// NaN (a NaN in the result stays, a NaN update replaces it); complex
// maximum/minimum are lexicographic on (re, im), the result's NaN first.
// NaN is tested on the bits, so no driver shortcut changes the answer. Needs
// common/u64.wgsl, common/f64.wgsl and common/c128.wgsl (the 64-bit dtypes
// and c128).

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

// i64 and u64 as vec2<u32>(low word, high word): add and multiply wrap,
// maximum / minimum compare signed or unsigned (tfr_u64_add, tfr_u64_mul_lo,
// tfr_i64_max ... of common/u64.wgsl).

// f64 (common/f64.wgsl, on the bits): add and multiply are tfr_f64_add and
// tfr_f64_mul; maximum/minimum as f32's (a NaN in the result stays, a NaN
// update replaces it; -0 == +0, so the result keeps its zero).
fn tfr_sc_max_f64(a: vec2<u32>, x: vec2<u32>) -> vec2<u32> {
  return select(a, x, tfr_f64_is_nan(x) || tfr_f64_lt(a, x));
}

fn tfr_sc_min_f64(a: vec2<u32>, x: vec2<u32>) -> vec2<u32> {
  return select(a, x, tfr_f64_is_nan(x) || tfr_f64_lt(x, a));
}

// c128 as vec4<u32>(real part's bits, imaginary part's bits): add and
// multiply are tfr_c128_add and tfr_c128_mul (common/c128.wgsl);
// maximum/minimum lexicographic as c64's, the result's NaN first.
fn tfr_sc_nan_c128(v: vec4<u32>) -> bool {
  return tfr_f64_is_nan(v.xy) || tfr_f64_is_nan(v.zw);
}

fn tfr_sc_max_c128(a: vec4<u32>, x: vec4<u32>) -> vec4<u32> {
  if (tfr_sc_nan_c128(a)) {
    return a;
  }
  if (tfr_sc_nan_c128(x)) {
    return x;
  }
  return select(a, x, tfr_f64_lt(a.xy, x.xy) || (tfr_f64_eq(x.xy, a.xy) && tfr_f64_lt(a.zw, x.zw)));
}

fn tfr_sc_min_c128(a: vec4<u32>, x: vec4<u32>) -> vec4<u32> {
  if (tfr_sc_nan_c128(a)) {
    return a;
  }
  if (tfr_sc_nan_c128(x)) {
    return x;
  }
  return select(a, x, tfr_f64_lt(x.xy, a.xy) || (tfr_f64_eq(x.xy, a.xy) && tfr_f64_lt(x.zw, a.zw)));
}
