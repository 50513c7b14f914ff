// The f64 analytic functions of the webgpu backend, on the software f64 of
// common/f64.wgsl (needs it and common/u64.wgsl): exp, expm1, log, log1p,
// tanh, sinh, cosh and logistic, each within 1 ulp of the correctly rounded result (docs/accuracy.md), with
// C99 Annex F's special values (the cpu backend's, src/cpu/scalar_math.h).
//
// Code size is the constraint: a driver inlines every call, and one software
// fma is a few hundred u32 instructions, so straight-line code with a dozen
// fmas compiles for minutes on a CPU Vulkan driver (lavapipe). The
// arithmetic of every function is therefore a program for a small register
// machine (tfr_m64_run): a loop whose body has ONE tfr_f64_fma call (and one
// tfr_f64_div, only in the kernels of functions that divide), reading its
// instructions from a constant table (a Horner instruction repeats the same
// fma over a run of coefficients). What the loop leaves out is integer
// work on the bits: the special values, the split of x into 2^k m, and the
// final scaling by 2^k (rounded once, subnormal results included).
//
// The algorithms (constants from tools/fit_math_f64.py):
//   * exp family: x = k ln2 + r (k = round(x / ln2), r = (x - k ln2_d) -
//     k ln2_lo, the first difference exact), expm1(r) = r + r^2 Q(r) with Q
//     the Taylor series to r^13/13!; exp(x) = 2^k (1 + expm1(r)), expm1(x)
//     = 2^k (expm1(r) + (1 - 2^-k)).
//   * log family: x = 2^k (1 + f), 1 + f in [sqrt(1/2), sqrt(2)), s = f /
//     (2 + f), log(1 + f) = 2 atanh(s) = f + s (R - f), R = 2 s^2/3 + 2 s^4/5
//     + ... (10 terms); log(x) = k ln2_d + (f + (s (R - f) + k ln2_lo)).
//     log1p(x) uses f = x itself where 1 + x is in that interval, else
//     u = 1 + x rounded and the exact rounding error c of that sum (fast
//     two-sum) as the correction c / u.
//   * cosh, sinh: (2^k + (2^k expm1(r) +- 1/e)) / 2 for e = e^|x| (1/e
//     rounded, then one Newton step on its exact residual), e^|x| / 2 as
//     2^(k-1) (1 + expm1(r)) above 22; sinh(x) = x + x^3 S(x^2) below 1.
//   * logistic(x) = 1 / (1 + e^-x), the division corrected by one Newton step
//     on its exact residual; e^x below -40, 1 above 40.
//   * tanh(x) = x + x^3 T(x^2) below 0.55 (Taylor), 1 - 2 / (1 + e^(2|x|))
//     (the same division) up to 22, +-1 above.

// Instruction: vec4<u32>(op << 8 | destination register, a, b, c); operands
// 0-15 are registers, 16 and up entries of TFR_M64_K.
//   op 0: d = fma(a, b, c)        op 1: d = a / b
//   op 2: d = 2^-k for k the integer in the low word of a (a = 1.5 2^52 + k),
//         the exponent clamped to [-1022, 1023]
//   op 3: d = m, d + 1 = k (as an f64) for a = 2^k m, m in [sqrt(1/2), sqrt(2))
//         (a positive, finite, non-zero)
//   op 4: d = 2^k, as op 2
//   op 5: Horner: d = fma(K[a], x, K[a + 1]), then d = fma(d, x, K[j]) for
//         j = a + 2 .. c, x = register b
const TFR_M64_K = array<vec2<u32>, 63>(
  vec2<u32>(0x00000000u, 0x00000000u),  // 16: +0
  vec2<u32>(0x00000000u, 0x80000000u),  // 17: -0 (the addend of a product: keeps -0)
  vec2<u32>(0x00000000u, 0x3ff00000u),  // 18: 1
  vec2<u32>(0x00000000u, 0xbff00000u),  // 19: -1
  vec2<u32>(0x00000000u, 0x40000000u),  // 20: 2
  vec2<u32>(0x652b82feu, 0x3ff71547u),  // 21: 1/ln2
  vec2<u32>(0x00000000u, 0x43380000u),  // 22: 1.5 2^52
  vec2<u32>(0x00000000u, 0xc3380000u),  // 23: -1.5 2^52
  vec2<u32>(0xfefa39efu, 0x3fe62e42u),  // 24: ln2_d (ln2 rounded)
  vec2<u32>(0xfefa39efu, 0xbfe62e42u),  // 25: -ln2_d
  vec2<u32>(0x3b39803fu, 0x3c7abc9eu),  // 26: ln2_lo = ln2 - ln2_d
  vec2<u32>(0x3b39803fu, 0xbc7abc9eu),  // 27: -ln2_lo
  // 28-39: exp's Q, 1/13! down to 1/2!
  vec2<u32>(0x13a86d09u, 0x3de61246u),
  vec2<u32>(0xeff8d898u, 0x3e21eed8u),
  vec2<u32>(0x67f544e4u, 0x3e5ae645u),
  vec2<u32>(0xb7789f5cu, 0x3e927e4fu),
  vec2<u32>(0xa556c734u, 0x3ec71de3u),
  vec2<u32>(0x1a01a01au, 0x3efa01a0u),
  vec2<u32>(0x1a01a01au, 0x3f2a01a0u),
  vec2<u32>(0x16c16c17u, 0x3f56c16cu),
  vec2<u32>(0x11111111u, 0x3f811111u),
  vec2<u32>(0x55555555u, 0x3fa55555u),
  vec2<u32>(0x55555555u, 0x3fc55555u),
  vec2<u32>(0x00000000u, 0x3fe00000u),
  // 40-49: log's P, 2/21 down to 2/3
  vec2<u32>(0x18618618u, 0x3fb86186u),
  vec2<u32>(0xbca1af28u, 0x3fbaf286u),
  vec2<u32>(0x1e1e1e1eu, 0x3fbe1e1eu),
  vec2<u32>(0x11111111u, 0x3fc11111u),
  vec2<u32>(0x13b13b14u, 0x3fc3b13bu),
  vec2<u32>(0x745d1746u, 0x3fc745d1u),
  vec2<u32>(0x1c71c71cu, 0x3fcc71c7u),
  vec2<u32>(0x92492492u, 0x3fd24924u),
  vec2<u32>(0x9999999au, 0x3fd99999u),
  vec2<u32>(0x55555555u, 0x3fe55555u),
  vec2<u32>(0x00000000u, 0x3fe00000u),  // 50: 1/2
  vec2<u32>(0x00000000u, 0xc0000000u),  // 51: -2
  // 52-60: sinh's S, 1/19! down to 1/3!
  vec2<u32>(0x46814157u, 0x3c62f49bu),
  vec2<u32>(0x7030ad4au, 0x3ce952c7u),
  vec2<u32>(0xe733b81fu, 0x3d6ae7f3u),
  vec2<u32>(0x13a86d09u, 0x3de61246u),
  vec2<u32>(0x67f544e4u, 0x3e5ae645u),
  vec2<u32>(0xa556c734u, 0x3ec71de3u),
  vec2<u32>(0x1a01a01au, 0x3f2a01a0u),
  vec2<u32>(0x11111111u, 0x3f811111u),
  vec2<u32>(0x55555555u, 0x3fc55555u),
  // 61-78: tanh's T, the coefficient of a^37 down to that of a^3
  vec2<u32>(0xdb3aff1fu, 0x3e72efe8u),
  vec2<u32>(0x6563fed9u, 0xbe875cdeu),
  vec2<u32>(0xde4ae6bbu, 0x3e9cd299u),
  vec2<u32>(0xf95c1c0du, 0xbeb1c77du),
  vec2<u32>(0xa474e5b7u, 0x3ec5ef2du),
  vec2<u32>(0xd3ee24e9u, 0xbedb0f72u),
  vec2<u32>(0xd39a6050u, 0x3ef0b132u),
  vec2<u32>(0xeea25259u, 0xbf0497d8u),
  vec2<u32>(0x8afcafadu, 0x3f1967e1u),
  vec2<u32>(0x734d1664u, 0xbf2f57d7u),
  vec2<u32>(0x48036744u, 0x3f435582u),
  vec2<u32>(0x452b75e3u, 0xbf57da36u),
  vec2<u32>(0x0e157de0u, 0x3f6d6d3du),
  vec2<u32>(0x55e6c23du, 0xbf8226e3u),
  vec2<u32>(0x882c10fau, 0x3f9664f4u),
  vec2<u32>(0x1ba1ba1cu, 0xbfaba1bau),
  vec2<u32>(0x11111111u, 0x3fc11111u),
  vec2<u32>(0x55555555u, 0xbfd55555u),
);

// Registers: 0 the argument. The exp core: 1 t = 1.5 2^52 + k, 2 k, 3 r_hi,
// 4 -r_lo, 5 r, 6 Q(r), 7 r^2, 8 r^2 Q(r) - r_lo, 9 expm1(r); the tails
// leave their result in 10 and use 8 and 10-15 as they say. The log
// programs: 1 u = 1 + x, 2 m, 3 k, 4 u - a, 5 c, 6 c / u, 7 f, 8 2 + f, 9 s,
// 10 z = s^2, 11 P(z), 12 R, 13 R - f, 14 k ln2_lo + c/u, 15 s (R - f) +
// that, 4 f + that, 5 the result; 12 and 13 hold -a and b of log1p's
// two-sum until R and R - f are written. The odd series: 1 z, 2 P(z), 3 a^3.
const TFR_M64_PROG = array<vec4<u32>, 68>(
  // 0-8 EXP_CORE: exp core: leaves expm1(r) in 9, 1.5 2^52 + k in 1
  vec4<u32>(1u, 0u, 21u, 22u),      // t = x / ln2 + 1.5 2^52: k in the low word
  vec4<u32>(2u, 1u, 18u, 23u),      // k = t - 1.5 2^52 (exact)
  vec4<u32>(3u, 2u, 25u, 0u),       // r_hi = x - k ln2_d (exact)
  vec4<u32>(4u, 2u, 27u, 17u),      // -r_lo = -k ln2_lo
  vec4<u32>(5u, 4u, 18u, 3u),       // r = r_hi - r_lo
  vec4<u32>(0x506u, 28u, 5u, 39u),  // Q(r), Horner over 1/13! .. 1/2!
  vec4<u32>(7u, 5u, 5u, 17u),       // r^2
  vec4<u32>(8u, 7u, 6u, 4u),        // r^2 Q(r) - r_lo
  vec4<u32>(9u, 8u, 18u, 3u),       // expm1(r) = r_hi + that
  // 9 EXP_TAIL: exp: 2^-k exp(x) in 10
  vec4<u32>(10u, 9u, 18u, 18u),     // 1 + expm1(r)
  // 10-12 EXPM1_TAIL: expm1: 2^-k expm1(x) in 10
  vec4<u32>(0x20au, 1u, 16u, 16u),  // 2^-k
  vec4<u32>(10u, 10u, 19u, 18u),    // 1 - 2^-k
  vec4<u32>(10u, 9u, 18u, 10u),     // expm1(r) + (1 - 2^-k)
  // 13-14 LOG_HEAD: log: f, k of x
  vec4<u32>(0x302u, 0u, 16u, 16u),  // m, k of x
  vec4<u32>(7u, 2u, 18u, 19u),      // f = m - 1 (exact)
  // 15-20 LOG1P_HEAD: log1p (x outside the interval where f = x): f, k, c/u
  vec4<u32>(1u, 0u, 18u, 18u),      // u = x + 1
  vec4<u32>(0x302u, 1u, 16u, 16u),  // m, k of u
  vec4<u32>(4u, 1u, 18u, 12u),      // u - a (exact)
  vec4<u32>(5u, 4u, 19u, 13u),      // c = b - (u - a) (exact): u + c = 1 + x
  vec4<u32>(0x106u, 5u, 1u, 16u),   // c / u
  vec4<u32>(7u, 2u, 18u, 19u),      // f = m - 1 (exact)
  // 21-30 LOG_TAIL: log(2^k (1 + f)) + c/u in 5
  vec4<u32>(8u, 7u, 18u, 20u),      // 2 + f
  vec4<u32>(0x109u, 7u, 8u, 16u),   // s = f / (2 + f)
  vec4<u32>(10u, 9u, 9u, 17u),      // z = s^2
  vec4<u32>(0x50bu, 40u, 10u, 49u), // P(z), Horner over 2/21 .. 2/3
  vec4<u32>(12u, 10u, 11u, 17u),    // R = z P(z)
  vec4<u32>(13u, 7u, 19u, 12u),     // R - f
  vec4<u32>(14u, 3u, 26u, 6u),      // k ln2_lo + c/u
  vec4<u32>(15u, 9u, 13u, 14u),     // s (R - f) + that
  vec4<u32>(4u, 7u, 18u, 15u),      // f + that
  vec4<u32>(5u, 3u, 24u, 4u),       // k ln2_d + that
  // 31-37 RECIP_HEAD: y0 = 1 / D, D = 1 + 2^k (1 + expm1(r)) = 1 + e^z; -y0 in 8, -y0 2^k in 10
  vec4<u32>(0x40bu, 1u, 16u, 16u),  // 2^k
  vec4<u32>(12u, 11u, 19u, 17u),    // -2^k
  vec4<u32>(13u, 11u, 19u, 19u),    // -(1 + 2^k) (exact for |k| <= 52)
  vec4<u32>(14u, 12u, 9u, 13u),     // -D
  vec4<u32>(0x10fu, 19u, 14u, 16u), // y0 = 1 / D
  vec4<u32>(10u, 15u, 12u, 17u),    // -y0 2^k (exact)
  vec4<u32>(8u, 15u, 19u, 17u),     // -y0
  // 38-41 RECIP_A: 1 / D for z <= -1
  vec4<u32>(11u, 8u, 18u, 18u),     // 1 - y0 (exact: y0 >= 1/2)
  vec4<u32>(11u, 10u, 18u, 11u),    // - y0 2^k
  vec4<u32>(11u, 10u, 9u, 11u),     // residual 1 - y0 D, exact but for its last rounding
  vec4<u32>(10u, 15u, 11u, 15u),    // 1 / D = y0 + y0 residual
  // 42-45 RECIP_B: 1 / D for z >= 1
  vec4<u32>(11u, 10u, 18u, 18u),    // 1 - y0 2^k (exact: y0 2^k >= 1/2)
  vec4<u32>(11u, 8u, 18u, 11u),     // - y0
  vec4<u32>(11u, 10u, 9u, 11u),     // residual 1 - y0 D, exact but for its last rounding
  vec4<u32>(10u, 15u, 11u, 15u),    // 1 / D = y0 + y0 residual
  // 46-48 RECIP_C: 1 / D for |z| < 1
  vec4<u32>(11u, 15u, 13u, 18u),    // 1 - y0 (1 + 2^k)
  vec4<u32>(11u, 10u, 9u, 11u),     // residual 1 - y0 D, exact but for its last rounding
  vec4<u32>(10u, 15u, 11u, 15u),    // 1 / D = y0 + y0 residual
  // 49 TANH_TAIL: tanh(a) = 1 - 2 / (1 + e^(2a)), after RECIP_HEAD, RECIP_B
  vec4<u32>(10u, 10u, 51u, 18u),    // 1 - 2 / D
  // 50-57 HYP_HEAD: e = e^a (rounded), 1/e (Newton-corrected) in 13
  vec4<u32>(0x40bu, 1u, 16u, 16u),  // 2^k
  vec4<u32>(12u, 11u, 9u, 11u),     // e = 2^k (1 + expm1(r))
  vec4<u32>(0x10du, 18u, 12u, 16u), // i0 = 1 / e
  vec4<u32>(15u, 13u, 19u, 17u),    // -i0
  vec4<u32>(14u, 15u, 11u, 17u),    // -i0 2^k (exact)
  vec4<u32>(10u, 14u, 18u, 18u),    // 1 - i0 2^k (exact)
  vec4<u32>(10u, 14u, 9u, 10u),     // residual 1 - i0 2^k (1 + expm1(r))
  vec4<u32>(13u, 13u, 10u, 13u),    // 1/e = i0 + i0 residual
  // 58-59 COSH_TAIL: 2 cosh(a) in 10
  vec4<u32>(14u, 11u, 9u, 13u),     // 2^k expm1(r) + 1/e
  vec4<u32>(10u, 14u, 18u, 11u),    // 2^k + that
  // 60-62 SINH_TAIL: 2 sinh(a) in 10
  vec4<u32>(14u, 13u, 19u, 17u),    // -1/e
  vec4<u32>(14u, 11u, 9u, 14u),     // 2^k expm1(r) - 1/e
  vec4<u32>(10u, 14u, 18u, 11u),    // 2^k + that
  // 63 ODD_HEAD: odd series a + a^3 P(a^2): z
  vec4<u32>(1u, 0u, 0u, 17u),       // z = a^2
  // 64 SINH_SERIES: P = S(z)
  vec4<u32>(0x502u, 52u, 1u, 60u),  // S(z), Horner over 1/19! .. 1/3!
  // 65 TANH_SERIES: P = T(z)
  vec4<u32>(0x502u, 61u, 1u, 78u),  // T(z), Horner over the coefficients of a^37 .. a^3
  // 66-67 ODD_TAIL: a + a^3 P(z) in 10
  vec4<u32>(3u, 0u, 1u, 17u),       // a^3
  vec4<u32>(10u, 3u, 2u, 0u),       // a + a^3 P(z)
);

// Program segments [start, end): a function runs up to four in a row.
const TFR_M64_EXP_CORE = vec2<u32>(0u, 9u);
const TFR_M64_EXP_TAIL = vec2<u32>(9u, 10u);
const TFR_M64_EXPM1_TAIL = vec2<u32>(10u, 13u);
const TFR_M64_LOG_HEAD = vec2<u32>(13u, 15u);
const TFR_M64_LOG1P_HEAD = vec2<u32>(15u, 21u);
const TFR_M64_LOG_TAIL = vec2<u32>(21u, 31u);
const TFR_M64_RECIP_HEAD = vec2<u32>(31u, 38u);
const TFR_M64_RECIP_A = vec2<u32>(38u, 42u);
const TFR_M64_RECIP_B = vec2<u32>(42u, 46u);
const TFR_M64_RECIP_C = vec2<u32>(46u, 49u);
const TFR_M64_TANH_TAIL = vec2<u32>(49u, 50u);
const TFR_M64_HYP_HEAD = vec2<u32>(50u, 58u);
const TFR_M64_COSH_TAIL = vec2<u32>(58u, 60u);
const TFR_M64_SINH_TAIL = vec2<u32>(60u, 63u);
const TFR_M64_ODD_HEAD = vec2<u32>(63u, 64u);
const TFR_M64_SINH_SERIES = vec2<u32>(64u, 65u);
const TFR_M64_TANH_SERIES = vec2<u32>(65u, 66u);
const TFR_M64_ODD_TAIL = vec2<u32>(66u, 68u);
const TFR_M64_NONE = vec2<u32>(0u, 0u);

fn tfr_m64_arg(reg: ptr<function, array<vec2<u32>, 16>>, i: u32) -> vec2<u32> {
  if (i < 16u) {
    return (*reg)[i];
  }
  return TFR_M64_K[i - 16u];
}

// Runs the segments `segs` in order on the registers. The driver cannot
// count the loop's iterations (the jumps between segments, the Horner
// instructions), so it does not unroll it: one copy of fma (and of div where
// `with_div`, a constant false in kernels that need none, which the driver
// then drops).
fn tfr_m64_run(reg: ptr<function, array<vec2<u32>, 16>>, segs: array<vec2<u32>, 4>,
               with_div: bool) {
  var si = 0u;
  var pc = segs[0].x;
  var end = segs[0].y;
  var sub = 0u;  // the Horner step
  loop {
    if (pc >= end) {
      si = si + 1u;
      if (si >= 4u) {
        break;
      }
      pc = segs[si].x;
      end = segs[si].y;
      continue;
    }
    let ins = TFR_M64_PROG[pc];
    let d = ins.x & 15u;
    let op = ins.x >> 8u;
    var ia = ins.y;
    var ic = ins.w;
    var next = pc + 1u;
    if (op == 5u) {
      ic = ins.y + 1u + sub;
      if (sub > 0u) {
        ia = d;
      }
      sub = sub + 1u;
      if (ic < ins.w) {
        next = pc;
      } else {
        sub = 0u;
      }
    }
    let a = tfr_m64_arg(reg, ia);
    var r: vec2<u32>;
    if (op == 0u || op == 5u) {
      r = tfr_f64_fma(a, tfr_m64_arg(reg, ins.z), tfr_m64_arg(reg, ic));
    } else if (with_div && op == 1u) {
      r = tfr_f64_div(a, tfr_m64_arg(reg, ins.z));
    } else if (op == 2u || op == 4u) {
      let k = bitcast<i32>(a.x);
      let e = clamp(select(-k, k, op == 4u), -1022, 1023);
      r = vec2<u32>(0u, u32(1023 + e) << 20u);
    } else {
      let p = tfr_f64_unpack(a);
      // m >= sqrt(2) (0x3ff6a09e667f3bcd): halve it
      let frac = vec2<u32>(p.m.x, p.m.y & 0xfffffu);
      let big = !tfr_u64_lt(frac, vec2<u32>(0x667f3bcdu, 0x6a09eu));
      r = vec2<u32>(frac.x, frac.y | select(0x3ff00000u, 0x3fe00000u, big));
      (*reg)[(d + 1u) & 15u] = tfr_f64_from_i32(p.e - 1023 + select(0, 1, big));
    }
    (*reg)[d] = r;
    pc = next;
  }
}

// v 2^k, rounded once (subnormal results, overflow to infinity).
fn tfr_m64_ldexp(v: vec2<u32>, k: i32) -> vec2<u32> {
  if (tfr_f64_is_zero(v)) {
    return v;
  }
  let p = tfr_f64_unpack(v);
  return tfr_f64_round_pack(v.y & TFR_F64_SIGN, p.e + k, tfr_u64_shl(p.m, 10u));
}

// Above this, exp and expm1 overflow (709.782712893384, the largest x whose
// exp rounds below 2^1024).
const TFR_M64_EXP_MAX = vec2<u32>(0xfefa39efu, 0x40862e42u);
// Below this (-746), exp rounds to +0.
const TFR_M64_EXP_MIN = vec2<u32>(0x00000000u, 0xc0875000u);
// Below this (-40), expm1 rounds to -1.
const TFR_M64_EXPM1_MIN = vec2<u32>(0x00000000u, 0xc0440000u);

// The exp core on a finite x in [-746, 709.79]: leaves 2^-k exp(x) (tail
// EXP_TAIL) or 2^-k expm1(x) (EXPM1_TAIL) in register 10; returns k.
fn tfr_m64_exp_core(x: vec2<u32>, tail: vec2<u32>, reg: ptr<function, array<vec2<u32>, 16>>) -> i32 {
  (*reg)[0] = x;
  tfr_m64_run(reg, array(TFR_M64_EXP_CORE, tail, TFR_M64_NONE, TFR_M64_NONE), false);
  return bitcast<i32>((*reg)[1].x);
}

fn tfr_exp_f64(x: vec2<u32>) -> vec2<u32> {
  if (tfr_f64_is_nan(x)) {
    return tfr_f64_quiet(x);
  }
  if (tfr_f64_lt(TFR_M64_EXP_MAX, x)) {
    return tfr_f64_inf(0u);
  }
  if (tfr_f64_lt(x, TFR_M64_EXP_MIN)) {
    return vec2<u32>(0u, 0u);
  }
  var reg: array<vec2<u32>, 16>;
  let k = tfr_m64_exp_core(x, TFR_M64_EXP_TAIL, &reg);
  return tfr_m64_ldexp(reg[10], k);
}

fn tfr_expm1_f64(x: vec2<u32>) -> vec2<u32> {
  if (tfr_f64_is_nan(x)) {
    return tfr_f64_quiet(x);
  }
  if (tfr_f64_is_zero(x)) {
    return x;
  }
  if (tfr_f64_lt(TFR_M64_EXP_MAX, x)) {
    return tfr_f64_inf(0u);
  }
  if (tfr_f64_lt(x, TFR_M64_EXPM1_MIN)) {
    return vec2<u32>(0u, 0xbff00000u);
  }
  var reg: array<vec2<u32>, 16>;
  let k = tfr_m64_exp_core(x, TFR_M64_EXPM1_TAIL, &reg);
  return tfr_m64_ldexp(reg[10], k);
}

// The log programs on registers set up by the caller; the result.
fn tfr_m64_log_core(head: vec2<u32>, reg: ptr<function, array<vec2<u32>, 16>>) -> vec2<u32> {
  tfr_m64_run(reg, array(head, TFR_M64_LOG_TAIL, TFR_M64_NONE, TFR_M64_NONE), true);
  return (*reg)[5];
}

fn tfr_log_f64(x: vec2<u32>) -> vec2<u32> {
  if (tfr_f64_is_nan(x)) {
    return tfr_f64_quiet(x);
  }
  if (tfr_f64_is_zero(x)) {
    return tfr_f64_inf(TFR_F64_SIGN);
  }
  if ((x.y & TFR_F64_SIGN) != 0u) {
    return TFR_F64_DEFAULT_NAN;
  }
  if (tfr_f64_is_inf(x)) {
    return x;
  }
  var reg: array<vec2<u32>, 16>;
  reg[0] = x;
  return tfr_m64_log_core(TFR_M64_LOG_HEAD, &reg);
}

// sqrt(1/2) - 1 and sqrt(2) - 1 (rounded): between them log1p
// takes f = x exactly.
const TFR_M64_LOG1P_LO = vec2<u32>(0x33018866u, 0xbfd2bec3u);
const TFR_M64_LOG1P_HI = vec2<u32>(0x99fcef34u, 0x3fda8279u);

fn tfr_log1p_f64(x: vec2<u32>) -> vec2<u32> {
  if (tfr_f64_is_nan(x)) {
    return tfr_f64_quiet(x);
  }
  if (tfr_f64_is_zero(x)) {
    return x;
  }
  if (tfr_f64_eq(x, vec2<u32>(0u, 0xbff00000u))) {
    return tfr_f64_inf(TFR_F64_SIGN);
  }
  if (tfr_f64_lt(x, vec2<u32>(0u, 0xbff00000u))) {
    return TFR_F64_DEFAULT_NAN;
  }
  if (tfr_f64_is_inf(x)) {
    return x;
  }
  var reg: array<vec2<u32>, 16>;
  reg[0] = x;
  var head = TFR_M64_LOG1P_HEAD;
  if (tfr_f64_lt(TFR_M64_LOG1P_LO, x) && tfr_f64_lt(x, TFR_M64_LOG1P_HI)) {
    reg[7] = x;  // f = x, k = 0, c/u = 0
    head = TFR_M64_NONE;
  } else if (tfr_f64_lt(TFR_F64_ONE, x)) {
    reg[12] = tfr_f64_neg(x);  // u + c = x + 1 with |x| >= 1
    reg[13] = TFR_F64_ONE;
  } else {
    reg[12] = vec2<u32>(0u, 0xbff00000u);  // u + c = 1 + x with |x| <= 1
    reg[13] = x;
  }
  return tfr_m64_log_core(head, &reg);
}

// ---- the hyperbolic functions and logistic, on the exp core ----

fn tfr_m64_signed(v: vec2<u32>, sign: u32) -> vec2<u32> {
  return vec2<u32>(v.x, v.y | sign);
}

const TFR_M64_2M28 = vec2<u32>(0u, 0x3e300000u);         // 2^-28
const TFR_M64_TANH_SMALL_MAX = vec2<u32>(0x9999999au, 0x3fe19999u);  // 0.55
const TFR_M64_HYP_BIG = vec2<u32>(0u, 0x40360000u);      // 22
const TFR_M64_HYP_MAX = vec2<u32>(0u, 0x40863800u);      // 711: sinh, cosh overflow above
const TFR_M64_40 = vec2<u32>(0u, 0x40440000u);

// sinh(a) = a + a^3 S(a^2) below 1, (e^a - 1/e^a) / 2 up to 22, e^a / 2
// above (2^(k-1) (1 + expm1(r)): no intermediate overflow).
fn tfr_sinh_f64(x: vec2<u32>) -> vec2<u32> {
  if (tfr_f64_is_nan(x)) {
    return tfr_f64_quiet(x);
  }
  let sign = x.y & TFR_F64_SIGN;
  let a = tfr_f64_abs(x);
  if (tfr_f64_lt(a, TFR_M64_2M28)) {
    return x;
  }
  if (tfr_f64_lt(TFR_M64_HYP_MAX, a)) {
    return tfr_f64_inf(sign);
  }
  var reg: array<vec2<u32>, 16>;
  reg[0] = a;
  let small = tfr_f64_lt(a, TFR_F64_ONE);
  let big = tfr_f64_lt(TFR_M64_HYP_BIG, a);
  var segs = array(TFR_M64_EXP_CORE, TFR_M64_HYP_HEAD, TFR_M64_SINH_TAIL, TFR_M64_NONE);
  if (small) {
    segs = array(TFR_M64_ODD_HEAD, TFR_M64_SINH_SERIES, TFR_M64_ODD_TAIL, TFR_M64_NONE);
  } else if (big) {
    segs = array(TFR_M64_EXP_CORE, TFR_M64_EXP_TAIL, TFR_M64_NONE, TFR_M64_NONE);
  }
  tfr_m64_run(&reg, segs, true);
  var k = -1;
  if (small) {
    k = 0;
  } else if (big) {
    k = bitcast<i32>(reg[1].x) - 1;
  }
  return tfr_m64_signed(tfr_m64_ldexp(reg[10], k), sign);
}

// cosh(a) = (e^a + 1/e^a) / 2 up to 22, e^a / 2 above.
fn tfr_cosh_f64(x: vec2<u32>) -> vec2<u32> {
  if (tfr_f64_is_nan(x)) {
    return tfr_f64_quiet(x);
  }
  let a = tfr_f64_abs(x);
  if (tfr_f64_lt(TFR_M64_HYP_MAX, a)) {
    return tfr_f64_inf(0u);
  }
  var reg: array<vec2<u32>, 16>;
  reg[0] = a;
  let big = tfr_f64_lt(TFR_M64_HYP_BIG, a);
  var segs = array(TFR_M64_EXP_CORE, TFR_M64_HYP_HEAD, TFR_M64_COSH_TAIL, TFR_M64_NONE);
  if (big) {
    segs = array(TFR_M64_EXP_CORE, TFR_M64_EXP_TAIL, TFR_M64_NONE, TFR_M64_NONE);
  }
  tfr_m64_run(&reg, segs, true);
  return tfr_m64_ldexp(reg[10], select(-1, bitcast<i32>(reg[1].x) - 1, big));
}

// tanh(a) = a + a^3 T(a^2) below 0.55, 1 - 2 / (1 + e^(2a)) up to 22, 1
// above.
fn tfr_tanh_f64(x: vec2<u32>) -> vec2<u32> {
  if (tfr_f64_is_nan(x)) {
    return tfr_f64_quiet(x);
  }
  let sign = x.y & TFR_F64_SIGN;
  let a = tfr_f64_abs(x);
  if (tfr_f64_lt(a, TFR_M64_2M28)) {
    return x;
  }
  if (tfr_f64_lt(TFR_M64_HYP_BIG, a)) {
    return tfr_m64_signed(TFR_F64_ONE, sign);
  }
  var reg: array<vec2<u32>, 16>;
  let small = tfr_f64_lt(a, TFR_M64_TANH_SMALL_MAX);
  // 2a: a >= 0.55 is normal, one more in the exponent field
  reg[0] = select(vec2<u32>(a.x, a.y + 0x00100000u), a, small);
  var segs = array(TFR_M64_EXP_CORE, TFR_M64_RECIP_HEAD, TFR_M64_RECIP_B, TFR_M64_TANH_TAIL);
  if (small) {
    segs = array(TFR_M64_ODD_HEAD, TFR_M64_TANH_SERIES, TFR_M64_ODD_TAIL, TFR_M64_NONE);
  }
  tfr_m64_run(&reg, segs, true);
  return tfr_m64_signed(reg[10], sign);
}

// The cpu's logistic: 1 / (1 + e^-x) (as 1 / (1 + 2^k (1 + expm1(r))), one
// Newton step on the division with the exact residual), e^x below -40 (the
// rest of e^x / (1 + e^x) is below 2^-57 relative), 1 above 40.
fn tfr_logistic_f64(x: vec2<u32>) -> vec2<u32> {
  if (tfr_f64_is_nan(x)) {
    return tfr_f64_quiet(x);
  }
  if (tfr_f64_lt(TFR_M64_40, x)) {
    return TFR_F64_ONE;
  }
  if (tfr_f64_lt(x, TFR_M64_EXP_MIN)) {
    return vec2<u32>(0u, 0u);
  }
  var reg: array<vec2<u32>, 16>;
  let tiny = tfr_f64_lt(x, tfr_f64_neg(TFR_M64_40));
  let z = tfr_f64_neg(x);
  reg[0] = select(z, x, tiny);
  var segs = array(TFR_M64_EXP_CORE, TFR_M64_RECIP_HEAD, TFR_M64_RECIP_C, TFR_M64_NONE);
  if (tiny) {
    segs = array(TFR_M64_EXP_CORE, TFR_M64_EXP_TAIL, TFR_M64_NONE, TFR_M64_NONE);
  } else if (tfr_f64_lt(z, vec2<u32>(0u, 0xbff00000u))) {
    segs[2] = TFR_M64_RECIP_A;
  } else if (!tfr_f64_lt(z, TFR_F64_ONE)) {
    segs[2] = TFR_M64_RECIP_B;
  }
  tfr_m64_run(&reg, segs, true);
  return tfr_m64_ldexp(reg[10], select(0, bitcast<i32>(reg[1].x), tiny));
}
