// Complex atan2 for src/webgpu/ew_table.c, on top of common/math_c64.wgsl:
// atan2(y, x) = -i log((x + iy) / sqrt(x^2 + y^2)), the definition XLA uses
// and the cpu backend follows (src/cpu/scalar_math.h). Both operands are
// first scaled by one power of two (exact; the quotient does not change) so
// that the squares neither overflow nor underflow, and x^2 + y^2 is formed as
// (xr - yi)(xr + yi) + (yr - xi)(yr + xi) + 2i (xr xi + yr yi), which cancels
// to ~0 near the singular points x = +-iy.
fn tfr_ew_atan2_c64(y: vec2<f32>, x: vec2<f32>) -> vec2<f32> {
  var yr = y.x;
  var yi = y.y;
  var xr = x.x;
  var xi = x.y;
  let m = max(max(abs(yr), abs(yi)), max(abs(xr), abs(xi)));
  if (tfr_ew_is_finite_f32(m) && m > 0.0) {
    let e = -frexp(m).exp;
    yr = ldexp(yr, e);
    yi = ldexp(yi, e);
    xr = ldexp(xr, e);
    xi = ldexp(xi, e);
  }
  // Each product rounded on its own, as C computes it (tfr_mul_c64 and
  // tfr_div_c64 likewise): a compiler that fuses a product into the sum
  // (NVIDIA's) turns xr^2 - xi^2 for x = F(1 + i), y = 0 into the rounding
  // error of xi^2 (2^-48) instead of 0; with the quotient's, atan2 came out
  // 2^-49 where C gives 0.
  let sr = tfr_m_opaque((xr - yi) * (xr + yi)) + tfr_m_opaque((yr - xi) * (yr + xi));
  let si = 2.0 * (tfr_m_opaque(xr * xi) + tfr_m_opaque(yr * yi));
  let q = tfr_div_c64(vec2<f32>(xr - yi, xi + yr), tfr_sqrt_c64(vec2<f32>(sr, si)));
  let l = tfr_log_c64(q);
  return vec2<f32>(l.y, tfr_ew_neg_f32(l.x));
}
