// The c128 analytic functions of the webgpu backend, on the f64 math library
// of common/math_f64.wgsl (its register machine) and common/c128.wgsl (which
// this file needs, with common/u64.wgsl and common/f64.wgsl). They follow the
// C99 complex functions the cpu backend calls (src/cpu/scalar_math.h:
// glibc's cexp and clog), including C11 Annex G's special values (infinite and NaN
// parts, signed zeros); each finite part is within a few ulp of the exact
// value (docs/accuracy.md, "c128 on webgpu"). Not bit for bit the cpu's, NaN
// parts excepted (those are glibc's bits): the f64 functions underneath are
// ours.
//
// As in common/math_f64.wgsl, code size is the constraint on lavapipe: exp
// runs its three programs through one call of tfr_m64_run inside a loop
// (the driver does not unroll it), so that its kernel holds one copy of the
// software fma; log has two (its own call and tfr_atan2_f64's).

// exp(z) = e^x (cos y + i sin y), z = x + iy. For finite x and y: y reduced
// once (tfr_m64_trig_reduce), then three programs through one call site:
// sin y, cos y and the exp core's e^x = 2^k m (x clamped to [-1455, 1455],
// where the core's reduction is still exact and every result has over- or
// underflowed); each part 2^k (m cos y) or 2^k (m sin y), the product
// rounded (sin y first scaled by 2^64 when it is below 2^-959), then the
// scaling (rounded once more for a subnormal result, overflow to infinity:
// no intermediate overflow). Annex G's special values, as glibc's cexp:
//   * y = +-0: e^x + yi (NaN x: NaN + yi; +-inf x: +inf or +0);
//   * x NaN, y not 0: NaN + NaN i;
//   * y infinite or NaN: x = -inf gives 0 + 0i, the imaginary zero with y's
//     sign; x = +inf gives +inf + (y - y) i (a NaN y quieted, x86's default
//     NaN 0xfff8... for an infinite y); else NaN + NaN i;
//   * x = +-inf, y finite and not 0: +inf (cos y + i sin y) or +0 (cos y +
//     i sin y), each part with the sign of cos y or sin y;
//   * every other NaN part is C's NAN (positive, quiet, no payload), as
//     glibc writes it, whatever the operand's NaN was.
const TFR_C128_EXP_CLAMP = vec2<u32>(0u, 0x4096bc00u);  // 1455

fn tfr_exp_c128(z: vec4<u32>) -> vec4<u32> {
  let x = z.xy;
  let y = z.zw;
  let nan2 = tfr_c128(TFR_C128_NAN, TFR_C128_NAN);
  let xnan = tfr_f64_is_nan(x);
  let xinf = tfr_f64_is_inf(x);
  let xneg = (x.y & TFR_F64_SIGN) != 0u;
  if (tfr_f64_is_zero(y)) {
    if (xnan) {
      return tfr_c128(TFR_C128_NAN, y);
    }
    if (xinf) {
      return tfr_c128(select(x, vec2<u32>(0u, 0u), xneg), y);
    }
  } else {
    if (xnan) {
      return nan2;
    }
    if (!tfr_f64_is_finite(y)) {
      if (xinf && xneg) {
        return tfr_c128(vec2<u32>(0u, 0u), vec2<u32>(0u, y.y & TFR_F64_SIGN));
      }
      if (xinf) {
        return tfr_c128(x, select(TFR_F64_DEFAULT_NAN, tfr_f64_quiet(y), tfr_f64_is_nan(y)));
      }
      return nan2;
    }
  }
  // finite y (a zero y runs too: sin 0 = 0 keeps the zero's sign, cos 0 = 1)
  var reg: array<vec2<u32>, 16>;
  let n = tfr_m64_trig_reduce(y, &reg);
  let ra = reg[0];
  let rb = reg[4];
  let xc = tfr_f64_clamp(tfr_f64_neg(TFR_C128_EXP_CLAMP), x, TFR_C128_EXP_CLAMP);
  var part: array<vec2<u32>, 3>;  // sin y, cos y, 2^-k e^x
  for (var i = 0u; i < 3u; i++) {
    var segs = array(TFR_M64_EXP_CORE, TFR_M64_EXP_TAIL, TFR_M64_NONE, TFR_M64_NONE);
    let q = n + i;  // sin: the quadrant n; cos y = sin(|y| + pi/2)
    if (i < 2u) {
      reg[0] = ra;
      reg[4] = rb;
      segs = array(TFR_M64_TRIG_HEAD, TFR_M64_SIN_POLY, TFR_M64_SIN_TAIL, TFR_M64_NONE);
      if ((q & 1u) != 0u) {
        segs = array(TFR_M64_TRIG_HEAD, TFR_M64_COS_POLY, TFR_M64_COS_TAIL, TFR_M64_NONE);
      }
    } else {
      reg[0] = xc;
    }
    tfr_m64_run(&reg, segs, false, false);
    let flip = select(0u, TFR_F64_SIGN, i < 2u && (q & 2u) != 0u) ^
               select(0u, y.y & TFR_F64_SIGN, i == 0u);
    part[i] = vec2<u32>(reg[10].x, reg[10].y ^ flip);
  }
  let s = part[0];
  let c = part[1];
  if (xinf) {  // +inf or +0 times cos y and sin y
    let m = select(x, vec2<u32>(0u, 0u), xneg);
    return tfr_c128(tfr_f64_mul(m, c), tfr_f64_mul(m, s));
  }
  let k = bitcast<i32>(reg[1].x);
  // sin y near the subnormals (y tiny): scaled by 2^64 first, so that the
  // product keeps its bits (cos y is at least about 6e-17)
  let tiny = (s.y & 0x7ff00000u) < 0x04000000u;  // |sin y| < 2^-959
  let sv = select(s, tfr_m64_ldexp(s, 64), tiny);
  let im = tfr_m64_ldexp(tfr_f64_mul(part[2], sv), k - select(0, 64, tiny));
  return tfr_c128(tfr_m64_ldexp(tfr_f64_mul(part[2], c), k), select(im, y, tfr_f64_is_zero(y)));
}

// log(z) = log|z| + i atan2(y, x). log|z| = log(w) / 2 + e ln2 with w = a^2 +
// b^2 as an exact pair (a >= b the parts' magnitudes; CLOG_W), log(w_hi) +
// w_lo / w_hi (LOG_HEAD, LOG_TAIL) and the scaling e (CLOG_TAIL): a and b
// are scaled by 2^-e, a into [1, 2), only where a lies outside [2^-500,
// 2^500] (where |log|z|| > 340: no cancellation), so that near |z| = 1 the
// pair keeps log|z|'s relative accuracy (glibc's clog computes log1p(x^2 +
// y^2 - 1) there). Special values as glibc's clog: log(+-0 +- 0i) = -inf +
// i atan2(y, x); an infinite part gives +inf + i atan2(y, x); a NaN part
// NaN + NaN i, or +inf + NaN i when the other part is infinite (C's NAN:
// positive, quiet, no payload, as glibc writes it).
const TFR_C128_LOG_SCALE_LO = vec2<u32>(0u, 0x20b00000u);  // 2^-500
const TFR_C128_LOG_SCALE_HI = vec2<u32>(0u, 0x5f300000u);  // 2^500

fn tfr_log_c128(z: vec4<u32>) -> vec4<u32> {
  let x = z.xy;
  let y = z.zw;
  let inf = tfr_f64_is_inf(x) || tfr_f64_is_inf(y);
  if (tfr_f64_is_nan(x) || tfr_f64_is_nan(y)) {
    return tfr_c128(select(TFR_C128_NAN, tfr_f64_inf(0u), inf), TFR_C128_NAN);
  }
  let im = tfr_atan2_f64(y, x);
  if (inf) {
    return tfr_c128(tfr_f64_inf(0u), im);
  }
  let ax = tfr_f64_abs(x);
  let ay = tfr_f64_abs(y);
  let swap = tfr_f64_lt(ax, ay);
  var a = select(ax, ay, swap);
  var b = select(ay, ax, swap);
  if (tfr_f64_is_zero(a)) {
    return tfr_c128(tfr_f64_inf(TFR_F64_SIGN), im);
  }
  var e = 0;
  if (tfr_f64_lt(a, TFR_C128_LOG_SCALE_LO) || tfr_f64_lt(TFR_C128_LOG_SCALE_HI, a)) {
    e = tfr_f64_unpack(a).e - 1023;
    a = tfr_m64_ldexp(a, -e);
    b = tfr_m64_ldexp(b, -e);
  }
  var reg: array<vec2<u32>, 16>;
  reg[1] = tfr_f64_from_i32(e);
  reg[8] = a;
  reg[9] = b;
  tfr_m64_run(&reg, array(TFR_M64_CLOG_W, TFR_M64_LOG_HEAD, TFR_M64_LOG_TAIL, TFR_M64_CLOG_TAIL),
              true, false);
  return tfr_c128(reg[10], im);
}
