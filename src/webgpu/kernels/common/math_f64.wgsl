// The f64 analytic functions of the webgpu backend, on the software f64 of
// common/f64.wgsl (needs it, common/u64.wgsl and common/exp_f64.wgsl, which
// holds exp itself and its thresholds): expm1, log, log1p,
// tanh, sinh, cosh, logistic, sin, cos, tan, asin, acos, atan, atan2, asinh,
// acosh, atanh and cbrt (and, in common/math_f64_erf.wgsl on these programs,
// erf and erfc), each within 1 ulp of the correctly rounded result
// (docs/accuracy.md), with C99 Annex F's special values (the cpu backend's,
// src/cpu/scalar_math.h).
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
//     the Taylor series to r^13/13!; 2^k (1 + expm1(r)) (sinh, cosh and
//     logistic where they take exp), expm1(x)
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
//   * sin, cos, tan: r = |x| - n pi/2 by a Payne-Hanek reduction in integers
//     (tfr_m64_rem_pio2) as a + b, then sin(r), cos(r) by Taylor series on
//     |r| <= pi/4 with b's first-order term, picked and signed by n mod 4;
//     tan divides the two (as renormalised pairs, one correction step).
//   * atan2(y, x), atan(x) = atan2(x, 1): atan(a / b) for a = min(|x|, |y|),
//     b = max, as atan(j/8) + atan(u), u = (a - c b) / (b + c a) from exact
//     pairs, placed in its octant from pi/2 and pi as pairs. asin(x) =
//     atan2(x, S), acos(x) = atan2(S, x) with S = sqrt(1 - x^2) as a pair.
//   * cbrt(x) = 2^q cbrt(m), x = 2^(3q) m, m in [1, 8): an f32 estimate of
//     cbrt(m), then two Newton steps with the exact residual m - y^3.
//   * asinh(x) = log(|x| + sqrt(x^2 + 1)), acosh(x) = log(x + sqrt(x^2 - 1))
//     with the argument as a pair, log(A_hi) + A_lo / A_hi; atanh(x) =
//     log1p(2|x| / (1 - |x|)) / 2 with the quotient as a pair.

// tools/check_math_f64_prog.py (a ctest entry) checks the table's numbering:
// each "// N-M NAME" heading at row N, each segment constant on headings.
// Instruction: vec4<u32>(op << 8 | destination register, a, b, c); operands
// 0-15 are registers, 16 and up entries of TFR_M64_K.
//   op 0: d = fma(a, b, c)        op 1: d = a / b
//   op 6: d = sqrt(a) (in the kernels of asin and acos only)
//   op 2: d = 2^-k for k the integer in the low word of a (a = 1.5 2^52 + k),
//         the exponent clamped to [-1022, 1023]
//   op 3: d = m, d + 1 = k (as an f64) for a = 2^k m, m in [sqrt(1/2), sqrt(2))
//         (a positive, finite, non-zero)
//   op 4: d = 2^k, as op 2
//   op 5: Horner: d = fma(K[a], x, K[a + 1]), then d = fma(d, x, K[j]) for
//         j = a + 2 .. c, x = register b
//   op 7: d = a clamped to [-750, 712] (exp's argument in pow: beyond,
//         e^a is 0 or infinity all the same), register c = +0 where that
//         moved a
const TFR_M64_K = array<vec2<u32>, 137>(
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
  // 79-87: sin's S, (-1)^9/19! down to -1/3!
  vec2<u32>(0x46814157u, 0xbc62f49bu),
  vec2<u32>(0x7030ad4au, 0x3ce952c7u),
  vec2<u32>(0xe733b81fu, 0xbd6ae7f3u),
  vec2<u32>(0x13a86d09u, 0x3de61246u),
  vec2<u32>(0x67f544e4u, 0xbe5ae645u),
  vec2<u32>(0xa556c734u, 0x3ec71de3u),
  vec2<u32>(0x1a01a01au, 0xbf2a01a0u),
  vec2<u32>(0x11111111u, 0x3f811111u),
  vec2<u32>(0x55555555u, 0xbfc55555u),
  // 88-96: cos's C, (-1)^8/20! down to 1/4!
  vec2<u32>(0xa4020225u, 0x3c1e542bu),
  vec2<u32>(0x63b97d97u, 0xbca68278u),
  vec2<u32>(0xe733b81fu, 0x3d2ae7f3u),
  vec2<u32>(0xa8c07c9du, 0xbda93974u),
  vec2<u32>(0xeff8d898u, 0x3e21eed8u),
  vec2<u32>(0xb7789f5cu, 0xbe927e4fu),
  vec2<u32>(0x1a01a01au, 0x3efa01a0u),
  vec2<u32>(0x16c16c17u, 0xbf56c16cu),
  vec2<u32>(0x55555555u, 0x3fa55555u),
  vec2<u32>(0x00000000u, 0xbfe00000u),  // 97: -1/2  // 98-105: atan's A, 1/17 down to -1/3
  vec2<u32>(0x1e1e1e1eu, 0x3fae1e1eu),
  vec2<u32>(0x11111111u, 0xbfb11111u),
  vec2<u32>(0x13b13b14u, 0x3fb3b13bu),
  vec2<u32>(0x745d1746u, 0xbfb745d1u),
  vec2<u32>(0x1c71c71cu, 0x3fbc71c7u),
  vec2<u32>(0x92492492u, 0xbfc24924u),
  vec2<u32>(0x9999999au, 0x3fc99999u),
  vec2<u32>(0x55555555u, 0xbfd55555u),
  // 106-123: atan(j/8) for j = 0..8, each a double and its remainder
  vec2<u32>(0x00000000u, 0x00000000u),
  vec2<u32>(0x00000000u, 0x00000000u),
  vec2<u32>(0x9aac2f6eu, 0x3fbfd5bau),
  vec2<u32>(0x86760c17u, 0xbc4cd376u),
  vec2<u32>(0xf92c80ddu, 0x3fcf5b75u),
  vec2<u32>(0x3cf7afbdu, 0x3c68ab6eu),
  vec2<u32>(0x41e4def1u, 0x3fd6f619u),
  vec2<u32>(0xe6f6e918u, 0xbc7c63aau),
  vec2<u32>(0x0561bb4fu, 0x3fddac67u),
  vec2<u32>(0x222f65e2u, 0x3c7a2b7fu),
  vec2<u32>(0xabdefeb4u, 0x3fe1e00bu),
  vec2<u32>(0x287a668fu, 0xbc5928dfu),
  vec2<u32>(0xa3269ee1u, 0x3fe4978fu),
  vec2<u32>(0x87f2a458u, 0x3c72419au),
  vec2<u32>(0xc5784634u, 0x3fe700a7u),
  vec2<u32>(0x25aadef6u, 0xbc78c34du),
  vec2<u32>(0x54442d18u, 0x3fe921fbu),
  vec2<u32>(0x33145c07u, 0x3c81a626u),
  // 124-129: 0, pi/2 and pi, each a double and its remainder
  vec2<u32>(0x00000000u, 0x00000000u),
  vec2<u32>(0x00000000u, 0x00000000u),
  vec2<u32>(0x54442d18u, 0x3ff921fbu),
  vec2<u32>(0x33145c07u, 0x3c91a626u),
  vec2<u32>(0x54442d18u, 0x400921fbu),
  vec2<u32>(0x33145c07u, 0x3ca1a626u),
  vec2<u32>(0x00000000u, 0x40080000u),  // 130: 3
  vec2<u32>(0x50429b6du, 0x3ff20dd7u),  // 131: 2/sqrt(pi) (c)
  vec2<u32>(0x914fed80u, 0x3c71ae3au),  // 132: 2/sqrt(pi) - c
  // 133-150: erf's P, c (-1)^n / (n! (2n+1)) for n = 18 down to 1
  vec2<u32>(0x9bc67b8cu, 0x3c55f791u),
  vec2<u32>(0xaf3447f6u, 0xbc9a2007u),
  vec2<u32>(0x537f4765u, 0x3cdd70b3u),
  vec2<u32>(0x71a885cfu, 0xbd1f56f0u),
  vec2<u32>(0xe4a97007u, 0x3d5f683au),
  vec2<u32>(0xcb0c46eau, 0xbd9d8453u),
  vec2<u32>(0x5e55a730u, 0x3dd9e6adu),
  vec2<u32>(0x81c5d36du, 0xbe151d71u),
  vec2<u32>(0x20624c1cu, 0x3e4fcc57u),
  vec2<u32>(0xec43e71au, 0xbe85f742u),
  vec2<u32>(0x9dc651a3u, 0x3ebb9e6cu),
  vec2<u32>(0xc3e0c2ebu, 0xbeef4d25u),
  vec2<u32>(0x6f9b89b7u, 0x3f1f9a32u),
  vec2<u32>(0x40040b86u, 0xbf4c02dbu),
  vec2<u32>(0xd0e6a53fu, 0x3f7565bcu),
  vec2<u32>(0x31288b51u, 0xbf9b82ceu),
  vec2<u32>(0x1a042be2u, 0x3fbce2f2u),
  vec2<u32>(0x6b0379e7u, 0xbfd81274u),
  vec2<u32>(0xfefa3800u, 0x3fe62e42u),  // 151: ln2_hi, ln2 as a multiple of 2^-42 (pow)
  vec2<u32>(0x93c76730u, 0x3d2ef357u),  // 152: ln2_lo = ln2 - ln2_hi
);

// Registers: 0 the argument. The exp core: 1 t = 1.5 2^52 + k, 2 k, 3 r_hi,
// 4 -r_lo, 5 r, 6 Q(r), 7 r^2, 8 r^2 Q(r) - r_lo, 9 expm1(r); the tails
// leave their result in 10 and use 8 and 10-15 as they say. The log
// programs: 1 u = 1 + x, 2 m, 3 k, 4 u - a, 5 c, 6 c / u, 7 f, 8 2 + f, 9 s,
// 10 z = s^2, 11 P(z), 12 R, 13 R - f, 14 k ln2_lo + c/u, 15 s (R - f) +
// that, 4 f + that, 5 the result; 12 and 13 hold -a and b of log1p's
// two-sum until R and R - f are written. The odd series: 1 z, 2 P(z), 3 a^3.
// The trigonometric programs, on r = a + b (0 a, 4 b, |r| <= pi/4): 1 z =
// a^2; sin(r) = a + u with 2 S(z), 3 a^3, 6 w = 1 - z/2, 7 b w, 5 u = a^3 S
// + b w; cos(r) = w + v with 10 C(z), 12 -z, 11 a^2 - z (exact), 13 z/2, 8 w
// = 1 - z/2, 14 the rounding error of w (exact), 15 z^2 then a b, 9 v = z^2
// C + (that error) - (a^2 - z)/2 - a b; the tails leave sin or cos in 10. tan
// renormalises both pairs (12 + 13 the numerator, 14 + 15 the denominator,
// each the rounded sum and its error) and uses 2, 3, 6, 7 (y0, q0, -q0, the
// residual). atan2: 0 a, 1 b (0 < a <= b, b in [1, 2); asin and acos: 3
// and 10 the low parts of a and b, else 0), 2 c = j/8 (j =
// round(8 a / b)), 4 + 5 +-atan(c), 8 + 9 P (0, pi/2 or pi), 11 s = +-1;
// u = (a - c b) / (b + c a) (so that atan(a / b) = atan(c) + atan(u), |u| <=
// 1/16) is formed as two exact pairs (12 + 13, 14 + 15, with 6, 7 on the
// way) and divided as tan's are (u in 10), then atan(u) = u + t (1 z, 2
// A(z), 3 t) and the result (P +- atan(c)) + s (u + t), summed in pairs
// (12-15, 6, 7).
const TFR_M64_PROG = array<vec4<u32>, 282>(
  // 0-2 EXP_CORE_HEAD: exp core (EXP_CORE, 0-8): leaves expm1(r) in 9, 1.5 2^52 + k in 1
  vec4<u32>(1u, 0u, 21u, 22u),      // t = x / ln2 + 1.5 2^52: k in the low word
  vec4<u32>(2u, 1u, 18u, 23u),      // k = t - 1.5 2^52 (exact)
  vec4<u32>(3u, 2u, 25u, 0u),       // r_hi = x - k ln2_d (exact)
  // 3 EXP_CORE_RLO
  vec4<u32>(4u, 2u, 27u, 17u),      // -r_lo = -k ln2_lo
  // 4-8 EXP_CORE_REST
  vec4<u32>(5u, 4u, 18u, 3u),       // r = r_hi - r_lo
  vec4<u32>(0x506u, 28u, 5u, 39u),  // Q(r), Horner over 1/13! .. 1/2!
  vec4<u32>(7u, 5u, 5u, 17u),       // r^2
  vec4<u32>(8u, 7u, 6u, 4u),        // r^2 Q(r) - r_lo
  vec4<u32>(9u, 8u, 18u, 3u),       // expm1(r) = r_hi + that
  // 9 EXP_TAIL: exp: 2^-k exp(x) in 10
  vec4<u32>(10u, 9u, 18u, 18u),     // 1 + expm1(r)
  // 10-16 EXPM1_TAIL: expm1: 2^-k expm1(x) in 10
  vec4<u32>(0x20au, 1u, 16u, 16u),  // 2^-k
  vec4<u32>(10u, 10u, 19u, 18u),    // c = 1 - 2^-k: |c| >= 1/2 >= |r_hi| for k != 0
  vec4<u32>(11u, 3u, 18u, 10u),     // t = r_hi + c
  vec4<u32>(12u, 10u, 19u, 11u),    // t - c (exact)
  vec4<u32>(12u, 12u, 19u, 3u),     // r_hi - (t - c): t's rounding error (fast two-sum)
  vec4<u32>(12u, 12u, 18u, 8u),     // + r^2 Q(r) - r_lo
  vec4<u32>(10u, 12u, 18u, 11u),    // expm1(r) + c = t + that, rounded once
  // 17-18 LOG_HEAD: log: f, k of x
  vec4<u32>(0x302u, 0u, 16u, 16u),  // m, k of x
  vec4<u32>(7u, 2u, 18u, 19u),      // f = m - 1 (exact)
  // 19-25 LOG1P_HEAD: log1p (x outside the interval where f = x): f, k, c/u
  vec4<u32>(1u, 0u, 18u, 18u),      // u = x + 1
  vec4<u32>(0x302u, 1u, 16u, 16u),  // m, k of u
  vec4<u32>(4u, 1u, 18u, 12u),      // u - a (exact)
  vec4<u32>(5u, 4u, 19u, 13u),      // c = b - (u - a) (exact): u + c = 1 + x
  vec4<u32>(5u, 11u, 19u, 5u),      // c - (register 11: 0, or -q_lo for atanh's q)
  vec4<u32>(0x106u, 5u, 1u, 16u),   // c / u
  vec4<u32>(7u, 2u, 18u, 19u),      // f = m - 1 (exact)
  // 26-35 LOG_TAIL: log(2^k (1 + f)) + c/u in 5
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
  // 36-42 RECIP_HEAD: y0 = 1 / D, D = 1 + 2^k (1 + expm1(r)) = 1 + e^z; -y0 in 8, -y0 2^k in 10
  vec4<u32>(0x40bu, 1u, 16u, 16u),  // 2^k
  vec4<u32>(12u, 11u, 19u, 17u),    // -2^k
  vec4<u32>(13u, 11u, 19u, 19u),    // -(1 + 2^k) (exact for |k| <= 52)
  vec4<u32>(14u, 12u, 9u, 13u),     // -D
  vec4<u32>(0x10fu, 19u, 14u, 16u), // y0 = 1 / D
  vec4<u32>(10u, 15u, 12u, 17u),    // -y0 2^k (exact)
  vec4<u32>(8u, 15u, 19u, 17u),     // -y0
  // 43-46 RECIP_A: 1 / D for z <= -1
  vec4<u32>(11u, 8u, 18u, 18u),     // 1 - y0 (exact: y0 >= 1/2)
  vec4<u32>(11u, 10u, 18u, 11u),    // - y0 2^k
  vec4<u32>(11u, 10u, 9u, 11u),     // residual 1 - y0 D, exact but for its last rounding
  vec4<u32>(10u, 15u, 11u, 15u),    // 1 / D = y0 + y0 residual
  // 47-50 RECIP_B: 1 / D for z >= 1
  vec4<u32>(11u, 10u, 18u, 18u),    // 1 - y0 2^k (exact: y0 2^k >= 1/2)
  vec4<u32>(11u, 8u, 18u, 11u),     // - y0
  vec4<u32>(11u, 10u, 9u, 11u),     // residual 1 - y0 D, exact but for its last rounding
  vec4<u32>(10u, 15u, 11u, 15u),    // 1 / D = y0 + y0 residual
  // 51-53 RECIP_C: 1 / D for |z| < 1
  vec4<u32>(11u, 15u, 13u, 18u),    // 1 - y0 (1 + 2^k)
  vec4<u32>(11u, 10u, 9u, 11u),     // residual 1 - y0 D, exact but for its last rounding
  vec4<u32>(10u, 15u, 11u, 15u),    // 1 / D = y0 + y0 residual
  // 54 TANH_TAIL: tanh(a) = 1 - 2 / (1 + e^(2a)), after RECIP_HEAD, RECIP_B
  vec4<u32>(10u, 10u, 51u, 18u),    // 1 - 2 / D
  // 55-62 HYP_HEAD: e = e^a (rounded), 1/e (Newton-corrected) in 13
  vec4<u32>(0x40bu, 1u, 16u, 16u),  // 2^k
  vec4<u32>(12u, 11u, 9u, 11u),     // e = 2^k (1 + expm1(r))
  vec4<u32>(0x10du, 18u, 12u, 16u), // i0 = 1 / e
  vec4<u32>(15u, 13u, 19u, 17u),    // -i0
  vec4<u32>(14u, 15u, 11u, 17u),    // -i0 2^k (exact)
  vec4<u32>(10u, 14u, 18u, 18u),    // 1 - i0 2^k (exact)
  vec4<u32>(10u, 14u, 9u, 10u),     // residual 1 - i0 2^k (1 + expm1(r))
  vec4<u32>(13u, 13u, 10u, 13u),    // 1/e = i0 + i0 residual
  // 63-64 COSH_TAIL: 2 cosh(a) in 10
  vec4<u32>(14u, 11u, 9u, 13u),     // 2^k expm1(r) + 1/e
  vec4<u32>(10u, 14u, 18u, 11u),    // 2^k + that
  // 65-67 SINH_TAIL: 2 sinh(a) in 10
  vec4<u32>(14u, 13u, 19u, 17u),    // -1/e
  vec4<u32>(14u, 11u, 9u, 14u),     // 2^k expm1(r) - 1/e
  vec4<u32>(10u, 14u, 18u, 11u),    // 2^k + that
  // 68 ODD_HEAD: odd series a + a^3 P(a^2): z
  vec4<u32>(1u, 0u, 0u, 17u),       // z = a^2
  // 69 SINH_SERIES: P = S(z)
  vec4<u32>(0x502u, 52u, 1u, 60u),  // S(z), Horner over 1/19! .. 1/3!
  // 70 TANH_SERIES: P = T(z)
  vec4<u32>(0x502u, 61u, 1u, 78u),  // T(z), Horner over the coefficients of a^37 .. a^3
  // 71-72 ODD_TAIL: a + a^3 P(z) in 10
  vec4<u32>(3u, 0u, 1u, 17u),       // a^3
  vec4<u32>(10u, 3u, 2u, 0u),       // a + a^3 P(z)
  // 73 TRIG_HEAD: z
  vec4<u32>(1u, 0u, 0u, 17u),       // z = a^2
  // 74-78 SIN_POLY: sin(r) = a + u, u in 5
  vec4<u32>(0x502u, 79u, 1u, 87u),  // S(z), Horner over -1/19! .. -1/3!
  vec4<u32>(3u, 0u, 1u, 17u),       // a^3
  vec4<u32>(6u, 1u, 97u, 18u),      // w = 1 - z/2 (cos(a), for b's term)
  vec4<u32>(7u, 4u, 6u, 17u),       // b w
  vec4<u32>(5u, 3u, 2u, 7u),        // u = a^3 S(z) + b w
  // 79-90 COS_POLY: cos(r) = w + v, w in 8, v in 9
  vec4<u32>(0x50au, 88u, 1u, 96u),  // C(z), Horner over 1/20! .. 1/4!
  vec4<u32>(12u, 1u, 19u, 17u),     // -z
  vec4<u32>(11u, 0u, 0u, 12u),      // a^2 - z (exact)
  vec4<u32>(13u, 1u, 39u, 17u),     // z/2 (exact)
  vec4<u32>(8u, 13u, 19u, 18u),     // w = 1 - z/2
  vec4<u32>(14u, 8u, 19u, 18u),     // 1 - w (exact)
  vec4<u32>(14u, 13u, 19u, 14u),    // (1 - w) - z/2 (exact)
  vec4<u32>(15u, 1u, 1u, 17u),      // z^2
  vec4<u32>(9u, 15u, 10u, 14u),     // z^2 C(z) + that
  vec4<u32>(9u, 11u, 97u, 9u),      // - (a^2 - z)/2
  vec4<u32>(15u, 0u, 4u, 17u),      // a b
  vec4<u32>(9u, 15u, 19u, 9u),      // v = that - a b
  // 91 SIN_TAIL: sin(r) in 10
  vec4<u32>(10u, 0u, 18u, 5u),      // a + u
  // 92 COS_TAIL: cos(r) in 10
  vec4<u32>(10u, 8u, 18u, 9u),      // w + v
  // 93-98 TAN_NORM_ODD: cot(r): the numerator w + v as 12 + 13, the
  // denominator a + u as 14 + 15, each the rounded sum and its exact error
  vec4<u32>(12u, 8u, 18u, 9u),      // w + v
  vec4<u32>(13u, 12u, 19u, 8u),     // w - that (exact)
  vec4<u32>(13u, 13u, 18u, 9u),     // + v (exact)
  vec4<u32>(14u, 0u, 18u, 5u),      // a + u
  vec4<u32>(15u, 14u, 19u, 0u),     // a - that (exact)
  vec4<u32>(15u, 15u, 18u, 5u),     // + u (exact)
  // 99-104 TAN_NORM_EVEN: tan(r): the numerator a + u as 12 + 13, the
  // denominator w + v as 14 + 15
  vec4<u32>(12u, 0u, 18u, 5u),
  vec4<u32>(13u, 12u, 19u, 0u),
  vec4<u32>(13u, 13u, 18u, 5u),
  vec4<u32>(14u, 8u, 18u, 9u),
  vec4<u32>(15u, 14u, 19u, 8u),
  vec4<u32>(15u, 15u, 18u, 9u),
  // 105-111 TAN_DIV: (12 + 13) / (14 + 15) in 10
  vec4<u32>(0x102u, 18u, 14u, 16u), // y0 = 1 / d_hi
  vec4<u32>(3u, 12u, 2u, 17u),      // q0 = n_hi y0
  vec4<u32>(6u, 3u, 19u, 17u),      // -q0
  vec4<u32>(7u, 6u, 14u, 12u),      // n_hi - q0 d_hi (exact but for its last rounding)
  vec4<u32>(7u, 7u, 18u, 13u),      // + n_lo
  vec4<u32>(7u, 6u, 15u, 7u),       // - q0 d_lo: the residual of n - q0 d
  vec4<u32>(10u, 7u, 2u, 3u),       // q0 + y0 residual
  // 112-135 ATAN_FRAC: u = (a - c b) / (b + c a) as pairs: 12 + 13, 14 + 15 (a + 3, b + 10
  // for pairs a, b)
  vec4<u32>(12u, 2u, 1u, 17u),      // p = c b
  vec4<u32>(13u, 12u, 19u, 17u),    // -p
  vec4<u32>(13u, 2u, 1u, 13u),      // c b - p (exact)
  vec4<u32>(7u, 12u, 19u, 0u),      // x = a - p (exact: p in [a/2, 2a] or c = 0)
  vec4<u32>(6u, 13u, 19u, 17u),     // y = p - c b
  vec4<u32>(12u, 7u, 18u, 6u),      // two-sum of x and y: s = x + y
  vec4<u32>(13u, 7u, 19u, 12u),     // t = s - x
  vec4<u32>(14u, 13u, 19u, 12u),    // s - t
  vec4<u32>(14u, 14u, 19u, 7u),     // x - (s - t)
  vec4<u32>(15u, 13u, 19u, 6u),     // y - t
  vec4<u32>(13u, 14u, 18u, 15u),    // the error of s (exact)
  vec4<u32>(14u, 2u, 0u, 17u),      // q = c a
  vec4<u32>(15u, 14u, 19u, 17u),    // -q
  vec4<u32>(15u, 2u, 0u, 15u),      // c a - q (exact)
  vec4<u32>(6u, 1u, 18u, 14u),      // d = b + q (b >= q)
  vec4<u32>(7u, 6u, 19u, 1u),       // b - d (exact)
  vec4<u32>(7u, 7u, 18u, 14u),      // + q: the error of d (exact)
  vec4<u32>(15u, 7u, 18u, 15u),     // + (c a - q)
  vec4<u32>(14u, 6u, 18u, 16u),     // d
  vec4<u32>(13u, 13u, 18u, 3u),     // the low parts of a and b (asin, acos; else 0)
  vec4<u32>(6u, 2u, 19u, 17u),      // -c
  vec4<u32>(13u, 6u, 10u, 13u),
  vec4<u32>(15u, 10u, 18u, 15u),
  vec4<u32>(15u, 2u, 3u, 15u),
  // 136-139 ATAN_POLY: atan(u) = u + t, t in 3 (after TAN_DIV: u in 10)
  vec4<u32>(1u, 10u, 10u, 17u),     // z = u^2
  vec4<u32>(0x502u, 98u, 1u, 105u), // A(z), Horner over 1/17 .. -1/3
  vec4<u32>(3u, 10u, 1u, 17u),      // u z
  vec4<u32>(3u, 3u, 2u, 17u),       // t = u^3 A(z)
  // 140-152 ATAN_FINAL: (P + A') + s (u + t) in 10, P in 8 + 9, A' in 4 + 5, s in 11
  vec4<u32>(6u, 10u, 11u, 17u),     // s u
  vec4<u32>(7u, 3u, 11u, 17u),      // s t
  vec4<u32>(12u, 8u, 18u, 4u),      // h = P_hi + A'_hi
  vec4<u32>(13u, 12u, 19u, 8u),     // P_hi - h (exact: |P_hi| >= |A'_hi| or P = 0)
  vec4<u32>(13u, 13u, 18u, 4u),     // + A'_hi: the error of h (exact)
  vec4<u32>(14u, 9u, 18u, 5u),      // l = P_lo + A'_lo
  vec4<u32>(14u, 14u, 18u, 13u),    // + the error of h
  vec4<u32>(14u, 14u, 18u, 7u),     // + s t
  vec4<u32>(15u, 12u, 18u, 6u),     // h2 = h + s u (|h| >= |u| or h = 0)
  vec4<u32>(13u, 15u, 19u, 12u),    // h - h2 (exact)
  vec4<u32>(13u, 13u, 18u, 6u),     // + s u: the error of h2 (exact)
  vec4<u32>(14u, 14u, 18u, 13u),    // l + that
  vec4<u32>(10u, 15u, 18u, 14u),    // h2 + l
  // 153 ATAN_TINY: u = a / b, t = 0 (set by the caller), then ATAN_FINAL
  vec4<u32>(0x10au, 0u, 1u, 16u),   // u = a / b
  // 154-166 ASIN_A: S + S_lo = sqrt(1 - x^2) for x in 0, into 1 + 10 (b)
  vec4<u32>(12u, 0u, 0u, 17u),      // p = x^2
  vec4<u32>(13u, 12u, 19u, 17u),    // -p
  vec4<u32>(13u, 0u, 0u, 13u),      // x^2 - p (exact)
  vec4<u32>(14u, 12u, 19u, 18u),    // w = 1 - p
  vec4<u32>(15u, 14u, 19u, 18u),    // 1 - w
  vec4<u32>(15u, 12u, 19u, 15u),    // - p: the error of w (exact)
  vec4<u32>(15u, 13u, 19u, 15u),    // - (x^2 - p): 1 - x^2 = w + that
  vec4<u32>(0x601u, 14u, 16u, 16u), // S = sqrt(w)
  vec4<u32>(6u, 1u, 19u, 17u),      // -S
  vec4<u32>(7u, 6u, 1u, 14u),       // w - S^2 (exact)
  vec4<u32>(7u, 7u, 18u, 15u),      // 1 - x^2 - S^2
  vec4<u32>(6u, 1u, 20u, 17u),      // 2 S
  vec4<u32>(0x10au, 7u, 6u, 16u),   // S_lo = that / (2 S)
  // 167-179 ASIN_B: the same for x in 1, into 0 + 3 (a)
  vec4<u32>(12u, 1u, 1u, 17u),      // p = x^2
  vec4<u32>(13u, 12u, 19u, 17u),    // -p
  vec4<u32>(13u, 1u, 1u, 13u),      // x^2 - p (exact)
  vec4<u32>(14u, 12u, 19u, 18u),    // w = 1 - p
  vec4<u32>(15u, 14u, 19u, 18u),    // 1 - w
  vec4<u32>(15u, 12u, 19u, 15u),    // - p: the error of w (exact)
  vec4<u32>(15u, 13u, 19u, 15u),    // - (x^2 - p): 1 - x^2 = w + that
  vec4<u32>(0x600u, 14u, 16u, 16u), // S = sqrt(w)
  vec4<u32>(6u, 0u, 19u, 17u),      // -S
  vec4<u32>(7u, 6u, 0u, 14u),       // w - S^2 (exact)
  vec4<u32>(7u, 7u, 18u, 15u),      // 1 - x^2 - S^2
  vec4<u32>(6u, 0u, 20u, 17u),      // 2 S
  vec4<u32>(0x103u, 7u, 6u, 16u),   // S_lo = that / (2 S)
  // 180-188 CBRT_STEP: one Newton step y += (m - y^3) / (3 y^2), m in 0, y in 1
  vec4<u32>(2u, 1u, 1u, 17u),       // y2 = y^2
  vec4<u32>(3u, 1u, 19u, 17u),      // -y
  vec4<u32>(4u, 2u, 19u, 17u),      // -y2
  vec4<u32>(4u, 1u, 1u, 4u),        // y^2 - y2 (exact)
  vec4<u32>(5u, 3u, 2u, 0u),        // m - y y2
  vec4<u32>(5u, 3u, 4u, 5u),        // - y (y^2 - y2): m - y^3
  vec4<u32>(6u, 2u, 130u, 17u),     // 3 y2
  vec4<u32>(0x107u, 5u, 6u, 16u),   // the step
  vec4<u32>(1u, 7u, 18u, 1u),       // y + the step,
  // 189-212 AHYP: A = |x| + sqrt(x^2 + s) as a pair, for asinh (s = 1) and
  // acosh (s = -1): |x| in 5, s in 8, -s in 9; A_hi in 0, A_lo / A_hi in 6
  // (then LOG_HEAD and LOG_TAIL: log(A))
  vec4<u32>(12u, 5u, 5u, 17u),      // p = x^2
  vec4<u32>(13u, 12u, 19u, 17u),    // -p
  vec4<u32>(13u, 5u, 5u, 13u),      // x^2 - p (exact)
  vec4<u32>(14u, 12u, 18u, 8u),     // w = p + s
  vec4<u32>(15u, 14u, 18u, 9u),     // w - s
  vec4<u32>(1u, 15u, 19u, 14u),     // w - (w - s)
  vec4<u32>(1u, 1u, 19u, 8u),       // s - that
  vec4<u32>(15u, 15u, 19u, 12u),    // p - (w - s)
  vec4<u32>(15u, 15u, 18u, 1u),     // w's error (exact: Knuth's two-sum, p and s in any order)
  vec4<u32>(15u, 15u, 18u, 13u),    // + (x^2 - p): x^2 + s = w + that
  vec4<u32>(0x601u, 14u, 16u, 16u), // S = sqrt(w)
  vec4<u32>(6u, 1u, 19u, 17u),      // -S
  vec4<u32>(7u, 6u, 1u, 14u),       // w - S^2 (exact)
  vec4<u32>(7u, 7u, 18u, 15u),      // x^2 + s - S^2
  vec4<u32>(6u, 1u, 20u, 17u),      // 2 S
  vec4<u32>(0x107u, 7u, 6u, 16u),   // S_lo = that / (2 S)
  vec4<u32>(0u, 1u, 18u, 5u),       // A_hi = S + |x|
  vec4<u32>(3u, 1u, 19u, 0u),       // A_hi - S
  vec4<u32>(4u, 3u, 19u, 0u),       // A_hi - (A_hi - S)
  vec4<u32>(4u, 4u, 19u, 1u),       // S - that
  vec4<u32>(3u, 3u, 19u, 5u),       // |x| - (A_hi - S)
  vec4<u32>(3u, 3u, 18u, 4u),       // A_hi's error (exact, Knuth's two-sum)
  vec4<u32>(3u, 3u, 18u, 7u),       // A_lo = that + S_lo
  vec4<u32>(0x106u, 3u, 0u, 16u),   // A_lo / A_hi
  // 213-219 ATANH_Q: q = 2|x| / (1 - |x|) as a pair: |x| in 0, 2|x| in 5,
  // -2|x| in 8; q_hi in 0, -q_lo in 11 (then ATANH_AB_*, LOG1P_HEAD, LOG_TAIL)
  vec4<u32>(1u, 0u, 19u, 18u),      // d = 1 - |x|
  vec4<u32>(2u, 1u, 19u, 18u),      // 1 - d (exact)
  vec4<u32>(2u, 0u, 19u, 2u),       // d_lo = (1 - d) - |x|: d + d_lo = 1 - |x| (exact)
  vec4<u32>(0x100u, 5u, 1u, 16u),   // q_hi = 2|x| / d
  vec4<u32>(6u, 0u, 1u, 8u),        // q_hi d - 2|x| (exact)
  vec4<u32>(6u, 0u, 2u, 6u),        // q_hi (d + d_lo) - 2|x|
  vec4<u32>(0x10bu, 6u, 1u, 16u),   // -q_lo = that / d
  // 220-221 ATANH_AB_BIG: LOG1P_HEAD's a = q_hi, b = 1 (q_hi >= 1)
  vec4<u32>(12u, 0u, 19u, 17u),     // -a
  vec4<u32>(13u, 18u, 18u, 17u),    // b
  // 222-223 ATANH_AB_SMALL: a = 1, b = q_hi (q_hi <= 1)
  vec4<u32>(12u, 18u, 19u, 17u),    // -a
  vec4<u32>(13u, 0u, 18u, 17u),     // b
  // 224-227 ERF_HEAD: erf(x) = x c + v for |x| < 1: z, P(z), v in 4
  vec4<u32>(1u, 0u, 0u, 17u),       // z = x^2
  vec4<u32>(0x502u, 133u, 1u, 150u),  // P(z), Horner over erf's P
  vec4<u32>(3u, 1u, 2u, 132u),      // w = z P(z) + (2/sqrt(pi) - c)
  vec4<u32>(4u, 0u, 3u, 17u),       // v = x w
  // 228 ERF_SMALL: erf(x) in 10
  vec4<u32>(10u, 0u, 131u, 4u),     // x c + v
  // 229-237 ERFC_SMALL: erfc(x) = 1 - (x c + v) in 10, for |x| < 1/2
  vec4<u32>(5u, 0u, 131u, 17u),     // p = x c
  vec4<u32>(6u, 5u, 19u, 17u),      // -p
  vec4<u32>(7u, 0u, 131u, 6u),      // p_lo = x c - p (exact)
  vec4<u32>(8u, 5u, 19u, 18u),      // s = 1 - p
  vec4<u32>(9u, 8u, 19u, 18u),      // 1 - s (exact)
  vec4<u32>(9u, 5u, 19u, 9u),       // e = (1 - s) - p (exact: |p| < 1)
  vec4<u32>(7u, 7u, 18u, 4u),       // p_lo + v
  vec4<u32>(9u, 7u, 19u, 9u),       // e - that
  vec4<u32>(10u, 8u, 18u, 9u),      // s + that
  // 238-240 ERFC_SQUARE: -a^2 = -h - l for a in 13, -a in 14: -h into 0 (the
  // exp core's argument), -l in 11 (then EXP_CORE_HEAD, EXP_PAIR_RLO, EXP_CORE_REST)
  vec4<u32>(0u, 13u, 14u, 17u),     // -h = -a^2 rounded
  vec4<u32>(10u, 0u, 19u, 17u),     // h
  vec4<u32>(11u, 13u, 14u, 10u),    // -l = h - a^2 (exact)
  // 241 EXP_PAIR_RLO: the exp core's -r_lo for e^(x + l), l in 11 (erfc: -l)
  vec4<u32>(4u, 2u, 27u, 11u),      // -r_lo = -k ln2_lo + l
  // 242-266 POW_LOG: y log(x) as p_hi + p_lo for 0 y, 1 m, 2 c, 3 k, 4 + 5
  // log(c) (x = 2^k m, c = j/128 next to m): p_hi (clamped to [-750, 712])
  // into 0, p_lo into 11 (then EXP_CORE_HEAD, EXP_PAIR_RLO, EXP_CORE_REST, EXP_TAIL)
  vec4<u32>(6u, 2u, 19u, 1u),       // d = m - c (exact)
  vec4<u32>(7u, 2u, 20u, 6u),       // u_hi = 2c + d
  vec4<u32>(8u, 2u, 51u, 7u),       // u_hi - 2c (exact)
  vec4<u32>(8u, 8u, 19u, 6u),       // u_lo = d - that (exact): u_hi + u_lo = 2c + d = m + c
  vec4<u32>(0x109u, 6u, 7u, 16u),   // s_hi = d / u_hi
  vec4<u32>(10u, 6u, 19u, 16u),     // -d
  vec4<u32>(10u, 9u, 7u, 10u),      // s_hi u_hi - d (exact)
  vec4<u32>(10u, 9u, 8u, 10u),      // s_hi u - d
  vec4<u32>(0x10au, 10u, 7u, 16u),  // -s_lo = that / u_hi: s_hi + s_lo = d / (m + c)
  vec4<u32>(11u, 9u, 9u, 17u),      // z = s_hi^2
  vec4<u32>(0x50cu, 46u, 11u, 49u), // P(z), Horner over 2/9 .. 2/3
  vec4<u32>(12u, 11u, 12u, 17u),    // R = z P(z): log(m / c) = 2 s + s R
  vec4<u32>(13u, 10u, 51u, 5u),     // 2 s_lo + log(c)_lo
  vec4<u32>(13u, 3u, 152u, 13u),    // + k ln2_lo
  vec4<u32>(13u, 9u, 12u, 13u),     // + s_hi R
  vec4<u32>(14u, 3u, 151u, 4u),     // A = k ln2_hi + log(c)_hi (exact)
  vec4<u32>(15u, 9u, 20u, 14u),     // hi = A + 2 s_hi (|A| > |2 s_hi| unless A = 0)
  vec4<u32>(6u, 15u, 19u, 14u),     // A - hi (exact)
  vec4<u32>(6u, 9u, 20u, 6u),       // 2 s_hi + that: hi's rounding error (fast two-sum)
  vec4<u32>(13u, 6u, 18u, 13u),     // lo: log(x) = hi + lo
  vec4<u32>(1u, 0u, 15u, 17u),      // p_hi = y hi
  vec4<u32>(2u, 1u, 19u, 17u),      // -p_hi
  vec4<u32>(2u, 0u, 15u, 2u),       // y hi - p_hi (exact)
  vec4<u32>(11u, 0u, 13u, 2u),      // p_lo = y lo + that
  vec4<u32>(0x700u, 1u, 16u, 11u),  // the exp core's argument: p_hi clamped (p_lo 0 if it moved)
  // 267-278 CLOG_W: w = a^2 + b^2 as a pair for a in 8, b in 9 (a >= b >= 0):
  // w_hi into 0, w_lo / w_hi into 6 (then LOG_HEAD, LOG_TAIL: log(w), and
  // CLOG_TAIL)
  vec4<u32>(10u, 8u, 8u, 17u),      // p = a^2
  vec4<u32>(11u, 10u, 19u, 17u),    // -p
  vec4<u32>(11u, 8u, 8u, 11u),      // a^2 - p (exact unless it underflows)
  vec4<u32>(12u, 9u, 9u, 17u),      // q = b^2
  vec4<u32>(13u, 12u, 19u, 17u),    // -q
  vec4<u32>(13u, 9u, 9u, 13u),      // b^2 - q
  vec4<u32>(0u, 10u, 18u, 12u),     // w_hi = p + q
  vec4<u32>(14u, 10u, 19u, 0u),     // w_hi - p (exact: p >= q)
  vec4<u32>(14u, 14u, 19u, 12u),    // q - that: w_hi's rounding error (fast two-sum)
  vec4<u32>(14u, 14u, 18u, 11u),    // + (a^2 - p)
  vec4<u32>(14u, 14u, 18u, 13u),    // + (b^2 - q): w_lo
  vec4<u32>(0x106u, 14u, 0u, 16u),  // w_lo / w_hi (LOG_TAIL's correction term)
  // 279-281 CLOG_TAIL: log|z| = log(w) / 2 + e ln2 for the scaling e in 1,
  // log(w) in 5: the result in 10
  vec4<u32>(4u, 1u, 26u, 17u),      // e ln2_lo
  vec4<u32>(4u, 5u, 50u, 4u),       // + log(w) / 2
  vec4<u32>(10u, 1u, 24u, 4u),      // + e ln2_d
);

// Program segments [start, end): a function runs up to four in a row.
const TFR_M64_EXP_CORE = vec2<u32>(0u, 9u);
const TFR_M64_EXP_CORE_HEAD = vec2<u32>(0u, 3u);
const TFR_M64_EXP_CORE_REST = vec2<u32>(4u, 9u);
const TFR_M64_EXP_TAIL = vec2<u32>(9u, 10u);
const TFR_M64_EXPM1_TAIL = vec2<u32>(10u, 17u);
const TFR_M64_LOG_HEAD = vec2<u32>(17u, 19u);
const TFR_M64_LOG1P_HEAD = vec2<u32>(19u, 26u);
const TFR_M64_LOG_TAIL = vec2<u32>(26u, 36u);
const TFR_M64_RECIP_HEAD = vec2<u32>(36u, 43u);
const TFR_M64_RECIP_A = vec2<u32>(43u, 47u);
const TFR_M64_RECIP_B = vec2<u32>(47u, 51u);
const TFR_M64_RECIP_C = vec2<u32>(51u, 54u);
const TFR_M64_TANH_TAIL = vec2<u32>(54u, 55u);
const TFR_M64_HYP_HEAD = vec2<u32>(55u, 63u);
const TFR_M64_COSH_TAIL = vec2<u32>(63u, 65u);
const TFR_M64_SINH_TAIL = vec2<u32>(65u, 68u);
const TFR_M64_ODD_HEAD = vec2<u32>(68u, 69u);
const TFR_M64_SINH_SERIES = vec2<u32>(69u, 70u);
const TFR_M64_TANH_SERIES = vec2<u32>(70u, 71u);
const TFR_M64_ODD_TAIL = vec2<u32>(71u, 73u);
const TFR_M64_TRIG_HEAD = vec2<u32>(73u, 74u);
const TFR_M64_SIN_POLY = vec2<u32>(74u, 79u);
const TFR_M64_COS_POLY = vec2<u32>(79u, 91u);
const TFR_M64_SIN_TAIL = vec2<u32>(91u, 92u);
const TFR_M64_COS_TAIL = vec2<u32>(92u, 93u);
const TFR_M64_TRIG_SIN = vec2<u32>(73u, 79u);   // TRIG_HEAD and SIN_POLY
const TFR_M64_TAN_NORM_ODD = vec2<u32>(93u, 99u);
const TFR_M64_TAN_EVEN = vec2<u32>(99u, 112u);  // TAN_NORM_EVEN and TAN_DIV
const TFR_M64_TAN_DIV = vec2<u32>(105u, 112u);
const TFR_M64_ATAN_FRAC = vec2<u32>(112u, 136u);
const TFR_M64_ATAN_TAIL = vec2<u32>(136u, 153u);  // ATAN_POLY and ATAN_FINAL
const TFR_M64_ATAN_FINAL = vec2<u32>(140u, 153u);
const TFR_M64_ATAN_TINY = vec2<u32>(153u, 154u);
const TFR_M64_ASIN_A = vec2<u32>(154u, 167u);
const TFR_M64_ASIN_B = vec2<u32>(167u, 180u);
const TFR_M64_CBRT_STEP = vec2<u32>(180u, 189u);
const TFR_M64_AHYP = vec2<u32>(189u, 213u);
const TFR_M64_ATANH_Q = vec2<u32>(213u, 220u);
const TFR_M64_ATANH_AB_BIG = vec2<u32>(220u, 222u);
const TFR_M64_ATANH_AB_SMALL = vec2<u32>(222u, 224u);
const TFR_M64_ERF_HEAD = vec2<u32>(224u, 228u);
const TFR_M64_ERF_SMALL = vec2<u32>(228u, 229u);
const TFR_M64_ERFC_SMALL = vec2<u32>(229u, 238u);
const TFR_M64_ERFC_SQUARE = vec2<u32>(238u, 241u);
const TFR_M64_EXP_PAIR_RLO = vec2<u32>(241u, 242u);
const TFR_M64_POW_LOG = vec2<u32>(242u, 267u);
const TFR_M64_CLOG_W = vec2<u32>(267u, 279u);
const TFR_M64_CLOG_TAIL = vec2<u32>(279u, 282u);
const TFR_M64_EXP_REST_TAIL = vec2<u32>(4u, 10u);  // EXP_CORE_REST and EXP_TAIL
const TFR_M64_NONE = vec2<u32>(0u, 0u);

// Op 7's bounds.
const TFR_M64_POW_MIN = vec2<u32>(0u, 0xc0877000u);  // -750
const TFR_M64_POW_MAX = vec2<u32>(0u, 0x40864000u);  // 712

struct tfr_m64_split_parts {
  m: vec2<u32>,
  k: i32,
}

// a = 2^k m with m in [sqrt(1/2), sqrt(2)), for a positive, finite and
// non-zero (op 3, and pow's log).
fn tfr_m64_split(a: vec2<u32>) -> tfr_m64_split_parts {
  let p = tfr_f64_unpack(a);
  // m >= sqrt(2) (0x3ff6a09e667f3bcd): halve it
  let frac = vec2<u32>(p.m.x, p.m.y & 0xfffffu);
  let big = !tfr_u64_lt(frac, vec2<u32>(0x667f3bcdu, 0x6a09eu));
  return tfr_m64_split_parts(vec2<u32>(frac.x, frac.y | select(0x3ff00000u, 0x3fe00000u, big)),
                             p.e - 1023 + select(0, 1, big));
}

fn tfr_m64_arg(reg: ptr<function, array<vec2<u32>, 16>>, i: u32) -> vec2<u32> {
  if (i < 16u) {
    return (*reg)[i];
  }
  return TFR_M64_K[i - 16u];
}

// Runs the segments `segs` in order on the registers. The driver cannot
// count the loop's iterations (the jumps between segments, the Horner
// instructions), so it does not unroll it: one copy of fma (and of div where
// `with_div`, of sqrt where `with_sqrt`: constants false in kernels that
// need none, which the driver then drops).
fn tfr_m64_run(reg: ptr<function, array<vec2<u32>, 16>>, segs: array<vec2<u32>, 4>,
               with_div: bool, with_sqrt: bool) {
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
    } else if (with_sqrt && op == 6u) {
      r = tfr_f64_sqrt(a);
    } else if (op == 2u || op == 4u) {
      let k = bitcast<i32>(a.x);
      let e = clamp(select(-k, k, op == 4u), -1022, 1023);
      r = vec2<u32>(0u, u32(1023 + e) << 20u);
    } else if (op == 7u) {
      r = tfr_f64_clamp(TFR_M64_POW_MIN, a, TFR_M64_POW_MAX);
      if (any(r != a)) {
        (*reg)[ic & 15u] = vec2<u32>(0u, 0u);
      }
    } else {
      let sp = tfr_m64_split(a);
      r = sp.m;
      (*reg)[(d + 1u) & 15u] = tfr_f64_from_i32(sp.k);
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

// Below this (-40), expm1 rounds to -1.
const TFR_M64_EXPM1_MIN = vec2<u32>(0x00000000u, 0xc0440000u);

// The exp core on a finite x in [-746, 709.79]: leaves 2^-k exp(x) (tail
// EXP_TAIL) or 2^-k expm1(x) (EXPM1_TAIL) in register 10; returns k.
fn tfr_m64_exp_core(x: vec2<u32>, tail: vec2<u32>, reg: ptr<function, array<vec2<u32>, 16>>) -> i32 {
  (*reg)[0] = x;
  tfr_m64_run(reg, array(TFR_M64_EXP_CORE, tail, TFR_M64_NONE, TFR_M64_NONE), false, false);
  return bitcast<i32>((*reg)[1].x);
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
  tfr_m64_run(reg, array(head, TFR_M64_LOG_TAIL, TFR_M64_NONE, TFR_M64_NONE), true, false);
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
  tfr_m64_run(&reg, segs, true, false);
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
  tfr_m64_run(&reg, segs, true, false);
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
  tfr_m64_run(&reg, segs, true, false);
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
  tfr_m64_run(&reg, segs, true, false);
  return tfr_m64_ldexp(reg[10], select(0, bitcast<i32>(reg[1].x), tiny));
}

// ---- sin, cos and tan ----

// The bits of 2/pi, the most significant word first: word j holds 2^-(32j+1)
// .. 2^-(32j+32) of the fraction (tools/fit_math_f64.py). The window of the
// largest finite argument ends at word 36.
const TFR_M64_TWO_OVER_PI = array<u32, 37>(
  0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u, 0xdb629599u, 0x3c439041u,
  0xfe5163abu, 0xdebbc561u, 0xb7246e3au, 0x424dd2e0u, 0x06492eeau, 0x09d1921cu,
  0xfe1deb1cu, 0xb129a73eu, 0xe88235f5u, 0x2ebb4484u, 0xe99c7026u, 0xb45f7e41u,
  0x3991d639u, 0x835339f4u, 0x9c845f8bu, 0xbdf9283bu, 0x1ff897ffu, 0xde05980fu,
  0xef2f118bu, 0x5a0a6d1fu, 0x6d367ecfu, 0x27cb09b7u, 0x4f463f66u, 0x9e5fea2du,
  0x7527bac7u, 0xebe5f17bu, 0x3d0739f7u, 0x8a5292eau, 0x6bfb5fb1u, 0x1f8d5d08u,
  0x56033046u,
);
// pi/2 2^63, rounded to an integer.
const TFR_M64_PIO2_FIX = vec2<u32>(0x2168c235u, 0xc90fdaa2u);
const TFR_M64_PIO4 = vec2<u32>(0x54442d18u, 0x3fe921fbu);  // pi/4 rounded
const TFR_M64_2M27 = vec2<u32>(0u, 0x3e400000u);          // 2^-27

// Payne-Hanek reduction of a finite x > pi/4, all in integers: x = m 2^q (m
// the 53-bit significand) times a 224-bit window of 2/pi's bits (the bits
// before it contribute multiples of 4, those after it less than 2^-137)
// gives x 2/pi mod 4 with 126 fraction bits; rounded to the nearest integer
// n, its fraction f in [-1/2, 1/2) times pi/2 is r = x - n pi/2, left as a +
// b (registers 0 and 4, a rounded to 53 bits, b the next 11: r to 64 bits,
// relative error about 2^-62 even where r is smallest, near 2^-61 for
// doubles). Returns n mod 4.
fn tfr_m64_rem_pio2(x: vec2<u32>, reg: ptr<function, array<vec2<u32>, 16>>) -> u32 {
  let p = tfr_f64_unpack(x);
  let q = p.e - 1075;
  let s = u32(max(0, (q - 2) >> 5u));
  // z = m W, W the 7 words from s on (little-endian, 9 words and a 0)
  var z: array<u32, 10>;
  for (var k = 0u; k < 7u; k++) {
    let w = TFR_M64_TWO_OVER_PI[s + 6u - k];
    let p0 = tfr_u32_mul_wide(w, p.m.x);
    let p1 = tfr_u32_mul_wide(w, p.m.y);
    let r1 = p0.y + p1.x;
    let r2 = p1.y + select(0u, 1u, r1 < p0.y);  // p1.y < 2^21: no carry out
    let a0 = z[k] + p0.x;
    let t1 = z[k + 1u] + r1;
    let a1 = t1 + select(0u, 1u, a0 < p0.x);
    let c1 = select(0u, 1u, t1 < r1) + select(0u, 1u, a1 < t1);
    let t2 = z[k + 2u] + r2;
    let a2 = t2 + c1;
    z[k] = a0;
    z[k + 1u] = a1;
    z[k + 2u] = a2;
    z[k + 3u] = select(0u, 1u, t2 < r2) + select(0u, 1u, a2 < t2);  // was 0
  }
  // g = x 2/pi mod 4, 2 integer and 126 fraction bits: z's bits from
  // 32 s + 224 - q - 126 (65 to 151) on
  let b0 = u32(i32(32u * s) + 98 - q);
  let wi = b0 >> 5u;
  let sh = b0 & 31u;
  var g: vec4<u32>;
  for (var k = 0u; k < 4u; k++) {
    var v = z[wi + k];
    if (sh != 0u) {
      v = (v >> sh) | (z[wi + k + 1u] << (32u - sh));
    }
    g[k] = v;
  }
  g = tfr_u128_add(g, vec4<u32>(0u, 0u, 0u, 0x20000000u));  // + 1/2: n rounded
  let n = g.w >> 30u;
  let f = vec4<u32>(g.xyz, g.w & 0x3fffffffu);  // f + 1/2, 126 fraction bits
  let pos = f.w >= 0x20000000u;
  let half = vec4<u32>(0u, 0u, 0u, 0x20000000u);
  let mag = select(tfr_u128_sub(half, f), tfr_u128_sub(f, half), pos);
  // |f| = F 2^(-62 - lz) for F its leading 64 bits; |r| = F (pi/2 2^63)
  // 2^(-125 - lz)
  let lz = tfr_u128_clz(mag);
  let prod = tfr_u64_mul_wide(tfr_u128_shl(mag, lz).zw, TFR_M64_PIO2_FIX);
  let top = (prod.w & 0x80000000u) != 0u;
  let sig = select(tfr_u128_shl(prod, 1u).zw, prod.zw, top);
  var ex = select(1, 2, top) - i32(lz);  // the exponent of sig's leading bit
  let lo_e = ex - 63;                     // and of its bit 0
  var hi = tfr_u64_shr(sig, 11u);
  let rest = sig.x & 0x7ffu;
  var lo = i32(rest);
  if (rest >= 0x400u) {
    hi = tfr_u64_add(hi, vec2<u32>(1u, 0u));
    lo = lo - 0x800;
  }
  if (hi.y == 0x00200000u) {
    hi = vec2<u32>(0u, 0x00100000u);
    ex = ex + 1;
  }
  let sign = select(TFR_F64_SIGN, 0u, pos);
  (*reg)[0] = vec2<u32>(hi.x, (hi.y & 0xfffffu) | (u32(ex + 1023) << 20u) | sign);
  var b = vec2<u32>(0u, 0u);
  if (lo != 0) {
    let v = tfr_f64_from_i32(lo);  // |lo| <= 2^10: exact; times 2^lo_e
    b = vec2<u32>(v.x, (v.y + (bitcast<u32>(lo_e) << 20u)) ^ sign);
  }
  (*reg)[4] = b;
  return n;
}

// r = a + b = |x| - n pi/2 in registers 0 and 4; returns n mod 4.
fn tfr_m64_trig_reduce(x: vec2<u32>, reg: ptr<function, array<vec2<u32>, 16>>) -> u32 {
  let a = tfr_f64_abs(x);
  if (tfr_f64_le(a, TFR_M64_PIO4)) {
    (*reg)[0] = a;
    (*reg)[4] = vec2<u32>(0u, 0u);
    return 0u;
  }
  return tfr_m64_rem_pio2(a, reg);
}

// sin(x), or cos(x) = sin(|x| + pi/2): x (1 for cos) below 2^-27, else
// +-sin(r) or +-cos(r) by the quadrant.
fn tfr_m64_sin_cos(x: vec2<u32>, is_cos: bool) -> vec2<u32> {
  if (tfr_f64_is_nan(x)) {
    return tfr_f64_quiet(x);
  }
  if (tfr_f64_is_inf(x)) {
    return TFR_F64_DEFAULT_NAN;
  }
  if (tfr_f64_lt(tfr_f64_abs(x), TFR_M64_2M27)) {
    return select(x, TFR_F64_ONE, is_cos);
  }
  var reg: array<vec2<u32>, 16>;
  let k = tfr_m64_trig_reduce(x, &reg) + select(0u, 1u, is_cos);
  var segs = array(TFR_M64_TRIG_HEAD, TFR_M64_SIN_POLY, TFR_M64_SIN_TAIL, TFR_M64_NONE);
  if ((k & 1u) != 0u) {
    segs = array(TFR_M64_TRIG_HEAD, TFR_M64_COS_POLY, TFR_M64_COS_TAIL, TFR_M64_NONE);
  }
  tfr_m64_run(&reg, segs, false, false);
  let flip = select(0u, TFR_F64_SIGN, (k & 2u) != 0u) ^ select(x.y & TFR_F64_SIGN, 0u, is_cos);
  return vec2<u32>(reg[10].x, reg[10].y ^ flip);
}

fn tfr_sin_f64(x: vec2<u32>) -> vec2<u32> {
  return tfr_m64_sin_cos(x, false);
}

fn tfr_cos_f64(x: vec2<u32>) -> vec2<u32> {
  return tfr_m64_sin_cos(x, true);
}

// tan(x) = x below 2^-27; else sin(r) / cos(r) (n even) or -cos(r) /
// sin(r), each as an unevaluated pair, the quotient corrected once by its
// residual.
fn tfr_tan_f64(x: vec2<u32>) -> vec2<u32> {
  if (tfr_f64_is_nan(x)) {
    return tfr_f64_quiet(x);
  }
  if (tfr_f64_is_inf(x)) {
    return TFR_F64_DEFAULT_NAN;
  }
  if (tfr_f64_lt(tfr_f64_abs(x), TFR_M64_2M27)) {
    return x;
  }
  var reg: array<vec2<u32>, 16>;
  let n = tfr_m64_trig_reduce(x, &reg);
  var segs = array(TFR_M64_TRIG_SIN, TFR_M64_COS_POLY, TFR_M64_TAN_EVEN, TFR_M64_NONE);
  if ((n & 1u) != 0u) {
    segs = array(TFR_M64_TRIG_SIN, TFR_M64_COS_POLY, TFR_M64_TAN_NORM_ODD, TFR_M64_TAN_DIV);
  }
  tfr_m64_run(&reg, segs, true, false);
  let flip = select(0u, TFR_F64_SIGN, (n & 1u) != 0u) ^ (x.y & TFR_F64_SIGN);
  return vec2<u32>(reg[10].x, reg[10].y ^ flip);
}

// ---- atan2 and atan ----

const TFR_M64_ATAN_TAB = 106u;  // operand of atan(0/8); atan(j/8) at + 2j
const TFR_M64_P_TAB = 124u;     // operand of 0; pi/2 at + 2, pi at + 4

fn tfr_m64_k(i: u32) -> vec2<u32> {
  return TFR_M64_K[i - 16u];
}

// The octant of atan2(Y, X) for |Y| > |X| (swap) and X negative (xneg):
// P (0, pi/2 or pi) as the pair in registers 8 and 9, the sign of theta
// (+1 or -1) in register 11; returns that sign's bit, for the table.
fn tfr_m64_atan_octant(reg: ptr<function, array<vec2<u32>, 16>>, swap: bool, xneg: bool) -> u32 {
  let pi = TFR_M64_P_TAB + select(select(0u, 4u, xneg), 2u, swap);
  let flip = select(0u, TFR_F64_SIGN, xneg != swap);
  (*reg)[8] = tfr_m64_k(pi);
  (*reg)[9] = tfr_m64_k(pi + 1u);
  (*reg)[11] = vec2<u32>(0u, 0x3ff00000u | flip);
  return flip;
}

// c = j/8 in register 2 and +-atan(c) as the pair in registers 4 and 5.
fn tfr_m64_atan_base(reg: ptr<function, array<vec2<u32>, 16>>, j: u32, flip: u32) {
  (*reg)[2] = tfr_m64_ldexp(tfr_f64_from_u32(j), -3);
  let t = tfr_m64_k(TFR_M64_ATAN_TAB + 2u * j);
  let tl = tfr_m64_k(TFR_M64_ATAN_TAB + 2u * j + 1u);
  (*reg)[4] = vec2<u32>(t.x, t.y ^ flip);
  (*reg)[5] = vec2<u32>(tl.x, tl.y ^ flip);
}

// atan2(y, x) with C99 Annex F's special values. With a = min(|x|, |y|), b
// = max: theta = atan(a / b) in [0, pi/4], the result +-(P +- theta) for P
// = 0 (|y| <= |x|, x positive), pi (|y| <= |x|, x negative) or pi/2. theta
// = atan(c) + atan(u) for c = j/8 nearest a / b, u = (a - c b) / (b + c a),
// formed from exact pairs (a and b scaled so that b is in [1, 2)); below
// a / b = 2^-62 theta = a / b, one division. A NaN operand gives glibc's
// x + y: x's NaN quieted when both are NaN.
fn tfr_atan2_f64(y: vec2<u32>, x: vec2<u32>) -> vec2<u32> {
  if (tfr_f64_is_nan(x)) {
    return tfr_f64_quiet(x);
  }
  if (tfr_f64_is_nan(y)) {
    return tfr_f64_quiet(y);
  }
  var ay = tfr_f64_abs(y);
  var ax = tfr_f64_abs(x);
  if (tfr_f64_is_inf(ay) || tfr_f64_is_inf(ax)) {  // the limits: as if 1 and 0
    ay = select(vec2<u32>(0u, 0u), TFR_F64_ONE, tfr_f64_is_inf(ay));
    ax = select(vec2<u32>(0u, 0u), TFR_F64_ONE, tfr_f64_is_inf(ax));
  }
  let xneg = (x.y & TFR_F64_SIGN) != 0u;
  let swap = tfr_f64_lt(ax, ay);
  let a = select(ay, ax, swap);
  let b = select(ax, ay, swap);
  var reg: array<vec2<u32>, 16>;
  let flip = tfr_m64_atan_octant(&reg, swap, xneg);
  var segs = array(TFR_M64_ATAN_FINAL, TFR_M64_NONE, TFR_M64_NONE, TFR_M64_NONE);
  // theta = 0 where a = 0: registers 3, 4, 5, 10 stay +0
  if (!tfr_f64_is_zero(a)) {
    let pa = tfr_f64_unpack(a);
    let pb = tfr_f64_unpack(b);
    if (pb.e - pa.e > 62) {
      reg[0] = a;
      reg[1] = b;
      segs[0] = TFR_M64_ATAN_TINY;
      segs[1] = TFR_M64_ATAN_FINAL;
    } else {
      let k = 1023 - pb.e;
      let sa = tfr_m64_ldexp(a, k);  // exact: a 2^k >= 2^-63
      let sb = tfr_m64_ldexp(b, k);
      let j = u32(clamp(round(8.0 * tfr_f64_to_f32(sa) / tfr_f64_to_f32(sb)), 0.0, 8.0));
      reg[0] = sa;
      reg[1] = sb;
      tfr_m64_atan_base(&reg, j, flip);
      segs = array(TFR_M64_ATAN_FRAC, TFR_M64_TAN_DIV, TFR_M64_ATAN_TAIL, TFR_M64_NONE);
    }
  }
  tfr_m64_run(&reg, segs, true, false);
  return vec2<u32>(reg[10].x, reg[10].y ^ (y.y & TFR_F64_SIGN));
}

fn tfr_atan_f64(x: vec2<u32>) -> vec2<u32> {
  return tfr_atan2_f64(x, TFR_F64_ONE);
}

// asin(x) = atan2(x, S), acos(x) = atan2(S, x) for S = sqrt(1 - x^2) >= 0,
// as a pair (1 - x^2 exactly from an fma and a two-sum; S rounded, its
// remainder from the exact residual w - S^2): the smaller of |x| and S is
// a, the larger b (S when |x| <= sqrt(1/2)); j from an f32 estimate. asin(x)
// = x below 2^-27; |x| = 1 from the constants; |x| > 1 is NaN.
const TFR_M64_SQRT_HALF = vec2<u32>(0x667f3bcdu, 0x3fe6a09eu);

fn tfr_m64_asin_acos(x: vec2<u32>, is_acos: bool) -> vec2<u32> {
  if (tfr_f64_is_nan(x)) {
    return tfr_f64_quiet(x);
  }
  let ax = tfr_f64_abs(x);
  if (tfr_f64_lt(TFR_F64_ONE, ax)) {
    return TFR_F64_DEFAULT_NAN;
  }
  if (!is_acos && tfr_f64_lt(ax, TFR_M64_2M27)) {
    return x;
  }
  let xneg = (x.y & TFR_F64_SIGN) != 0u;
  let big = tfr_f64_lt(TFR_M64_SQRT_HALF, ax);  // |x| > S: a = S, b = |x|
  // as atan2(Y, X): asin (x, S), acos (S, x)
  let swap = big != is_acos;                   // |Y| > |X|
  let ysign = select(x.y & TFR_F64_SIGN, 0u, is_acos);
  var reg: array<vec2<u32>, 16>;
  let flip = tfr_m64_atan_octant(&reg, swap, is_acos && xneg);  // X negative
  if (tfr_f64_eq(ax, TFR_F64_ONE)) {  // S = 0: P itself
    return vec2<u32>(reg[8].x, reg[8].y ^ ysign);
  }
  let xf = tfr_f64_to_f32(ax);
  let sf = sqrt(max(0.0, (1.0 - xf) * (1.0 + xf)));
  let j = u32(clamp(round(8.0 * min(xf, sf) / max(xf, sf)), 0.0, 8.0));
  tfr_m64_atan_base(&reg, j, flip);
  var segs = array(TFR_M64_ASIN_A, TFR_M64_ATAN_FRAC, TFR_M64_TAN_DIV, TFR_M64_ATAN_TAIL);
  if (big) {
    reg[1] = ax;
    segs[0] = TFR_M64_ASIN_B;
  } else {
    reg[0] = ax;
  }
  tfr_m64_run(&reg, segs, true, true);
  return vec2<u32>(reg[10].x, reg[10].y ^ ysign);
}

fn tfr_asin_f64(x: vec2<u32>) -> vec2<u32> {
  return tfr_m64_asin_acos(x, false);
}

fn tfr_acos_f64(x: vec2<u32>) -> vec2<u32> {
  return tfr_m64_asin_acos(x, true);
}

// ---- asinh, acosh, atanh, on the log core ----

const TFR_M64_2P28 = vec2<u32>(0u, 0x41b00000u);              // 2^28
const TFR_M64_THIRD = vec2<u32>(0x55555555u, 0x3fd55555u);    // 1/3 rounded down
const TFR_M64_LN2_D = 24u;  // the operand of ln2_d (ln2 rounded) in TFR_M64_K

// log(|x| + sqrt(x^2 + s)) for s = 1 (asinh of |x| >= 2^-28) or s = -1
// (acosh of x > 1): the argument A as a pair (AHYP: the square root of a
// two-sum, its remainder from the exact residual, A's two-sum), then log(A_hi)
// + A_lo / A_hi. Above 2^28 log(|x|) + ln2: the next term, +-1/(4 x^2), is
// below 2^-58 against a result above 20.
fn tfr_m64_asinh_acosh(ax: vec2<u32>, s: vec2<u32>) -> vec2<u32> {
  var reg: array<vec2<u32>, 16>;
  var segs = array(TFR_M64_AHYP, TFR_M64_LOG_HEAD, TFR_M64_LOG_TAIL, TFR_M64_NONE);
  if (tfr_f64_lt(TFR_M64_2P28, ax)) {
    reg[0] = ax;
    reg[6] = tfr_m64_k(TFR_M64_LN2_D);  // in LOG_TAIL's correction term
    segs[0] = TFR_M64_NONE;
  } else {
    reg[5] = ax;
    reg[8] = s;
    reg[9] = tfr_f64_neg(s);
  }
  tfr_m64_run(&reg, segs, true, true);
  return reg[5];
}

// asinh(x) = x below 2^-28 (zeros and subnormals included), +-inf and NaN
// as they are.
fn tfr_asinh_f64(x: vec2<u32>) -> vec2<u32> {
  if (tfr_f64_is_nan(x)) {
    return tfr_f64_quiet(x);
  }
  let ax = tfr_f64_abs(x);
  if (tfr_f64_is_inf(x) || tfr_f64_lt(ax, TFR_M64_2M28)) {
    return x;
  }
  let r = tfr_m64_asinh_acosh(ax, TFR_F64_ONE);
  return tfr_m64_signed(r, x.y & TFR_F64_SIGN);
}

// acosh(x): NaN below 1, +0 at 1, +inf at +inf.
fn tfr_acosh_f64(x: vec2<u32>) -> vec2<u32> {
  if (tfr_f64_is_nan(x)) {
    return tfr_f64_quiet(x);
  }
  if (tfr_f64_lt(x, TFR_F64_ONE)) {
    return TFR_F64_DEFAULT_NAN;
  }
  if (tfr_f64_eq(x, TFR_F64_ONE)) {
    return vec2<u32>(0u, 0u);
  }
  if (tfr_f64_is_inf(x)) {
    return x;
  }
  return tfr_m64_asinh_acosh(x, vec2<u32>(0u, 0xbff00000u));
}

// atanh(x) = +-log1p(q) / 2 for q = 2|x| / (1 - |x|), q as a pair (ATANH_Q)
// and log1p of the pair (LOG1P_HEAD, whose two-sum 1 + q_hi takes the larger
// first: q_hi >= 1 exactly where |x| > 1/3); x below 2^-28; +-inf at +-1,
// NaN beyond.
fn tfr_atanh_f64(x: vec2<u32>) -> vec2<u32> {
  if (tfr_f64_is_nan(x)) {
    return tfr_f64_quiet(x);
  }
  let ax = tfr_f64_abs(x);
  if (tfr_f64_lt(TFR_F64_ONE, ax)) {
    return TFR_F64_DEFAULT_NAN;
  }
  if (tfr_f64_eq(ax, TFR_F64_ONE)) {
    return tfr_f64_inf(x.y & TFR_F64_SIGN);
  }
  if (tfr_f64_lt(ax, TFR_M64_2M28)) {
    return x;
  }
  var reg: array<vec2<u32>, 16>;
  reg[0] = ax;
  reg[5] = tfr_m64_ldexp(ax, 1);  // exact
  reg[8] = tfr_f64_neg(reg[5]);
  let ab = select(TFR_M64_ATANH_AB_SMALL, TFR_M64_ATANH_AB_BIG, tfr_f64_lt(TFR_M64_THIRD, ax));
  tfr_m64_run(&reg, array(TFR_M64_ATANH_Q, ab, TFR_M64_LOG1P_HEAD, TFR_M64_LOG_TAIL), true, false);
  let r = tfr_m64_ldexp(reg[5], -1);
  return tfr_m64_signed(r, x.y & TFR_F64_SIGN);
}

// ---- cbrt ----

// cbrt(x) = +-2^q cbrt(m) for |x| = 2^(3q) m, m in [1, 8) (subnormal x
// normalised first): y0 = m^(1/3) in f32 with one f32 Newton step (about
// 2^-22), then two f64 Newton steps (CBRT_STEP, the residual m - y^3 exact
// from y^2's fma remainder), the last rounded once. +-0, +-inf and NaN
// return x (NaN quieted).
fn tfr_cbrt_f64(x: vec2<u32>) -> vec2<u32> {
  if (tfr_f64_is_nan(x)) {
    return tfr_f64_quiet(x);
  }
  if (tfr_f64_is_zero(x) || tfr_f64_is_inf(x)) {
    return x;
  }
  let p = tfr_f64_unpack(x);
  let e = p.e - 1023;
  let q = select(-((2 - e) / 3), e / 3, e >= 0);  // floor(e / 3)
  let r = u32(e - 3 * q);
  let m = vec2<u32>(p.m.x, (p.m.y & 0xfffffu) | ((1023u + r) << 20u));
  let mf = tfr_f64_to_f32(m);
  var yf = pow(mf, 1.0 / 3.0);
  yf = yf - (yf * yf * yf - mf) / (3.0 * yf * yf);
  var reg: array<vec2<u32>, 16>;
  reg[0] = m;
  reg[1] = tfr_f64_from_f32(yf);
  tfr_m64_run(&reg, array(TFR_M64_CBRT_STEP, TFR_M64_CBRT_STEP, TFR_M64_NONE, TFR_M64_NONE),
              true, false);
  let y = tfr_m64_ldexp(reg[1], q);
  return vec2<u32>(y.x, y.y | (x.y & TFR_F64_SIGN));
}
