// Special functions of the CHLO op set for the cpu backend: lgamma, digamma,
// erf_inv, bessel_i1e (XLA's semantics), one static inline function
// tfr_sm_<op>_<dtype> per real float dtype, named as those of
// src/cpu/scalar_math.h so that the elementwise kernels can wrap them in the
// same strided loops:
//
//   double tfr_sm_lgamma_f64(double)       float tfr_sm_lgamma_f32(float)
//   double tfr_sm_digamma_f64(double)      float tfr_sm_digamma_f32(float)
//   double tfr_sm_erf_inv_f64(double)      float tfr_sm_erf_inv_f32(float)
//   double tfr_sm_bessel_i1e_f64(double)   float tfr_sm_bessel_i1e_f32(float)
//   tfr_f16_bits / tfr_bf16_bits tfr_sm_<op>_f16 / _bf16(bits)
//
// Semantics (the StableHLO conformance corpus, i.e. XLA, is the authority):
//   lgamma(x)     = log|Gamma(x)|; +inf at 0, at the negative integers and at
//                   +-inf; NaN for NaN; overflows to +inf beyond 2.55e305.
//   digamma(x)    = psi(x); NaN at 0 (either sign), at the negative integers
//                   and at -inf; +inf at +inf; -1/x (to -inf) for tiny x > 0.
//   erf_inv(x)    = the inverse of erf; +-inf at +-1, NaN for |x| > 1 and NaN;
//                   keeps the sign of zero.
//   bessel_i1e(x) = exp(-|x|) I1(x), odd; +-0 at +-0 and at +-inf.
//
// Algorithms (our own; the constants are series coefficients computed from
// their definitions by tools/fit_special_math.py, no fitted polynomials):
//   lgamma: the Taylor series of lgamma(1 + t) (|t| <= 1/4) and of
//     lgamma(2 + t) (|t| <= 3/4, radius 2) about the zeros 1 and 2, with t
//     exact, and about the minimum x0 = 1.46163... on [1.25, 1.75) (the same
//     point as digamma's root); the recurrence Gamma(x + 1) = x Gamma(x) onto
//     [1.75, 2.75) below
//     12; Stirling's series from 12 on; the reflection formula
//     Gamma(x) Gamma(1 - x) = pi / sin(pi x) for x <= -3/4, with sin(pi x)
//     from an exact reduction of x.
//   digamma: the Taylor series about the positive root x0 = 1.46163... on
//     [1, 1.75] (t = x - x0 with x0 as a double-double, so the root is
//     accurate relative to the result) and about 2 on [1.75, 2.75),
//     psi(x) = psi(x + 1) - 1/x below 1, the recurrence onto [1.75, 2.75)
//     above, the asymptotic series from 10 on, and the
//     reflection psi(x) = psi(1 - x) - pi cot(pi x) for x < 0.
//   erf_inv: Winitzki's closed-form first guess (relative error < 2e-3),
//     then three Halley steps on erf(y) = x (|x| < 1/2) or on
//     erfc(y) = 1 - |x| (|x| >= 1/2, 1 - |x| exact), with libm's erf/erfc (the
//     functions the cpu backend's erf and erfc ops use).
//   bessel_i1e: the power series of I1 times exp(-|x|) for |x| <= 20, the
//     asymptotic series of exp(-x) I1(x) beyond (its remainder e^(-2x) is
//     below 2^-57 there).
//
// f32 is computed by the f64 function and rounded once (the f64 error, a few
// ulps of a double, is far below half an f32 ulp), f16 and bf16 by the f32
// function rounded once (core/half.h), as every other function of the cpu
// backend. Measured accuracy: docs/accuracy.md ("Special functions"); the
// test is tests/unit/test_special_math.c. Thread-safe (libm's lgamma is not:
// it writes signgam).
#ifndef TENFERRO_SRC_CPU_SPECIAL_MATH_H_
#define TENFERRO_SRC_CPU_SPECIAL_MATH_H_

#include <math.h>
#include <stdint.h>

#include "core/half.h"

// ---------------------------------------------------------------------------
// Series coefficients (python3 tools/fit_special_math.py c)
// ---------------------------------------------------------------------------

// x0, the positive root of digamma, as hi + lo.
#define TFR_SM_PSI_X0_HI 1.4616321449683622
#define TFR_SM_PSI_X0_LO 9.549995429965697e-17
// lgamma(1 + t) = sum_{k>=1} l1[k-1] t^k
static const double tfr_sm_l1_f64[30] = {-0.5772156649015329, 0.8224670334241132, -0.40068563438653143, 0.27058080842778454, -0.20738555102867398, 0.1695571769974082, -0.1440498967688461, 0.12550966952474304, -0.11133426586956469, 0.1000994575127818, -0.09095401714582904, 0.083353840546109, -0.0769325164113522, 0.07143294629536133, -0.06666870588242046, 0.06250095514121304, -0.058823978658684585, 0.055555767627403614, -0.05263167937961666, 0.05000004769810169, -0.047619070330142226, 0.04545455629320467, -0.04347826605304026, 0.04166666915034121, -0.04000000119214014, 0.03846153903467518, -0.037037037312989324, 0.035714285847333355, -0.034482758684919304, 0.03333333336437758};
// lgamma(2 + t) = sum_{k>=1} l2[k-1] t^k
static const double tfr_sm_l2_f64[42] = {0.42278433509846713, 0.3224670334241132, -0.0673523010531981, 0.020580808427784546, -0.007385551028673986, 0.0028905103307415234, -0.001192753911703261, 0.0005096695247430425, -0.00022315475845357939, 9.945751278180853e-05, -4.492623673813314e-05, 2.050721277567069e-05, -9.439488275268397e-06, 4.374866789907488e-06, -2.039215753801366e-06, 9.55141213040742e-07, -4.492469198764566e-07, 2.1207184805554665e-07, -1.0043224823968099e-07, 4.7698101693639804e-08, -2.2711094608943164e-08, 1.0838659214896955e-08, -5.183475041970047e-09, 2.4836745438024785e-09, -1.1921401405860912e-09, 5.731367241678862e-10, -2.7595228851242334e-10, 1.330476437424449e-10, -6.4229645638381e-11, 3.1044247747322276e-11, -1.5021384080754142e-11, 7.275974480239079e-12, -3.527742476575915e-12, 1.711991790559618e-12, -8.315385841420285e-13, 4.04220052528944e-13, -1.9664756310966165e-13, 9.573630387838556e-14, -4.6640760264283744e-14, 2.2737369600659724e-14, -1.1091399470834522e-14, 5.413659156725363e-15};
// digamma(x0 + t) = sum_{k>=1} psi[k-1] t^k
static const double tfr_sm_psi_f64[40] = {0.9676722454476212, -0.4427631689835921, 0.258499760955651, -0.16394270544240652, 0.10782405069126237, -0.07219956125645471, 0.04880428816414311, -0.03316112647484736, 0.022597648232218104, -0.01542476590494896, 0.010538791616612175, -0.007204534386356869, 0.004926781395729853, -0.003369801655439328, 0.002305126326734928, -0.0015769367714301972, 0.0010788252019162967, -0.0007380709389960052, 0.000504953265834602, -0.0003454680251063077, 0.00023635601564027053, -0.00016170622091974803, 0.0001106337276874741, -7.569179582195066e-05, 5.178575795222081e-05, -3.5430070947659604e-05, 2.424006611860132e-05, -1.6584242271854135e-05, 1.134638458466385e-05, -7.762817668462094e-06, 5.3110609208898636e-06, -3.6336507898010456e-06, 2.486022733129538e-06, -1.7008538854332607e-06, 1.1636675363548843e-06, -7.96142543124197e-07, 5.446941930669446e-07, -3.7266161283438227e-07, 2.549626552021554e-07, -1.7443695117727745e-07};
// lgamma(x0 + t) = LGM + sum_{k>=0} lm[k] t^(k+2) (lgamma is smallest at x0)
#define TFR_SM_LGM_HI -0.12148629053584961
#define TFR_SM_LGM_LO 3.364991468473138e-18
static const double tfr_sm_lm_f64[34] = {0.4838361227238106, -0.1475877229945307, 0.06462494023891276, -0.0327885410884813, 0.017970675115210395, -0.010314223036636387, 0.006100536020517889, -0.0036845696083163734, 0.0022597648232218106, -0.001402251445904451, 0.0008782326347176812, -0.0005541949527966822, 0.00035191295683784665, -0.0002246534436959552, 0.000144070395420933, -9.276098655471749e-05, 5.9934733439794256e-05, -3.884583889452658e-05, 2.52476632917301e-05, -1.6450858338395606e-05, 1.0743455256375933e-05, -7.030705257380349e-06, 4.609738653644754e-06, -3.0276718328780264e-06, 1.9917599212392617e-06, -1.3122248499133187e-06, 8.657166470929042e-07, -5.718704231673839e-07, 3.78212819488795e-07, -2.504134731761966e-07, 1.6597065377780824e-07, -1.1011062999397108e-07, 7.311831568028053e-08, -4.859582529809316e-08};
// digamma(2 + t) = sum_{k>=0} d2[k] t^k
static const double tfr_sm_d2_f64[42] = {0.42278433509846713, 0.6449340668482264, -0.2020569031595943, 0.08232323371113819, -0.03692775514336993, 0.01734306198444914, -0.008349277381922827, 0.00407735619794434, -0.0020083928260822143, 0.0009945751278180853, -0.0004941886041194645, 0.0002460865533080483, -0.00012271334757848915, 6.124813505870483e-05, -3.058823630702049e-05, 1.528225940865187e-05, -7.637197637899763e-06, 3.81729326499984e-06, -1.908212716553939e-06, 9.539620338727962e-07, -4.769329867878064e-07, 2.38450502727733e-07, -1.1921992596531106e-07, 5.960818905125948e-08, -2.980350351465228e-08, 1.4901554828365043e-08, -7.45071178983543e-09, 3.725334024788457e-09, -1.862659723513049e-09, 9.313274324196682e-10, -4.656629065033784e-10, 2.3283118336765053e-10, -1.164155017270052e-10, 5.820772087902701e-11, -2.9103850444971e-11, 1.4551921891041985e-11, -7.275959835057482e-12, 3.637979547378651e-12, -1.818989650307066e-12, 9.094947840263888e-13, -4.547473783042154e-13, 2.2737368458246524e-13};
// Stirling: lgamma(x) = (x - 1/2) log x - x + log(2 pi)/2 + sum stir[k] x^-(2k+1)
static const double tfr_sm_stir_f64[9] = {0.08333333333333333, -0.002777777777777778, 0.0007936507936507937, -0.0005952380952380953, 0.0008417508417508417, -0.0019175269175269176, 0.00641025641025641, -0.029550653594771242, 0.17964437236883057};
// digamma(x) = log x - 1/(2x) - sum psia[k] x^-(2k+2)
static const double tfr_sm_psia_f64[9] = {0.08333333333333333, -0.008333333333333333, 0.003968253968253968, -0.004166666666666667, 0.007575757575757576, -0.021092796092796094, 0.08333333333333333, -0.4432598039215686, 3.0539543302701198};

#define TFR_SM_PI 3.14159265358979323846
#define TFR_SM_LOG_PI 1.1447298858494002
#define TFR_SM_HALF_LOG_2PI 0.91893853320467274178

// sum_{k=1..n} c[k-1] t^k (Horner).
static inline double tfr_sm__series_f64(const double *c, int n, double t) {
  double p = c[n - 1];
  for (int k = n - 2; k >= 0; k--) p = p * t + c[k];
  return p * t;
}

// |sin(pi x)| for finite x: x reduced exactly to r in [0, 1/2] with
// |sin(pi x)| = sin(pi r).
static inline double tfr_sm__abs_sinpi_f64(double x) {
  double r = fmod(fabs(x), 1.0);  // exact; |sin(pi x)| has period 1
  if (r > 0.5) r = 1.0 - r;       // exact (Sterbenz)
  return sin(TFR_SM_PI * r);
}

// pi cot(pi x) for finite non-integer x, from an exact reduction.
static inline double tfr_sm__pi_cotpi_f64(double x) {
  double s = x < 0 ? -1.0 : 1.0;
  double r = fmod(fabs(x), 1.0);  // exact; cot(pi x) has period 1
  double v;
  if (r <= 0.25) v = TFR_SM_PI / tan(TFR_SM_PI * r);
  else if (r < 0.75) v = TFR_SM_PI * tan(TFR_SM_PI * (0.5 - r));  // 0.5 - r exact
  else v = -TFR_SM_PI / tan(TFR_SM_PI * (1.0 - r));                // 1 - r exact
  return s * v;
}

// ---------------------------------------------------------------------------
// lgamma
// ---------------------------------------------------------------------------

// lgamma(x0 + t) for |t| <= 0.3 (x0 - t exact by the caller): the minimum
// plus t^2 P(t), without the cancellation of the series about 1 or 2 there.
static inline double tfr_sm__lgamma_min_f64(double t) {
  double p = tfr_sm_lm_f64[33];
  for (int k = 32; k >= 0; k--) p = p * t + tfr_sm_lm_f64[k];
  return TFR_SM_LGM_HI + (t * t * p + TFR_SM_LGM_LO);
}

// lgamma(x) for x >= 3/4 (finite).
static inline double tfr_sm__lgamma_pos_f64(double x) {
  // x - 1, x - 2 exact; + 0 makes lgamma(1) = lgamma(2) = +0, not -0
  if (x < 1.25) return tfr_sm__series_f64(tfr_sm_l1_f64, 30, x - 1.0) + 0.0;
  if (x < 1.75) return tfr_sm__lgamma_min_f64((x - TFR_SM_PSI_X0_HI) - TFR_SM_PSI_X0_LO);
  if (x < 2.75) return tfr_sm__series_f64(tfr_sm_l2_f64, 42, x - 2.0) + 0.0;
  if (x < 12.0) {
    // Gamma(y + n) = Gamma(y) y (y + 1) ... (y + n - 1), y in [1.75, 2.75)
    int n = (int)(x - 1.75);
    double y = x - n;  // exact
    double p = y;
    for (int j = 1; j < n; j++) p *= y + j;  // y + j exact
    return tfr_sm__series_f64(tfr_sm_l2_f64, 42, y - 2.0) + log(p);
  }
  double l = log(x);
  if (x >= 0x1p60) return x * (l - 1.0);  // the rest is below 2^-60 of it; inf beyond 2.55e305
  double z = 1.0 / x, z2 = z * z;
  double s = tfr_sm_stir_f64[8];
  for (int k = 7; k >= 0; k--) s = s * z2 + tfr_sm_stir_f64[k];
  return (x - 0.5) * (l - 1.0) + ((TFR_SM_HALF_LOG_2PI - 0.5) + s * z);
}

static inline double tfr_sm_lgamma_f64(double x) {
  if (isnan(x)) return x + x;
  if (isinf(x)) return INFINITY;
  double ax = fabs(x);
  if (ax <= 0.25) {
    if (x == 0) return INFINITY;
    // Gamma(x) = Gamma(1 + x) / x
    return tfr_sm__series_f64(tfr_sm_l1_f64, 30, x) - log(ax);
  }
  if (x > 0) {
    // Gamma(x) = Gamma(x + 1) / x, x + 1 - x0 = x - (x0_hi - 1) - x0_lo (exact)
    if (x < 0.75)
      return tfr_sm__lgamma_min_f64((x - (TFR_SM_PSI_X0_HI - 1.0)) - TFR_SM_PSI_X0_LO) - log(x);
    return tfr_sm__lgamma_pos_f64(x);
  }
  if (x > -0.75) {
    // Gamma(x) = Gamma(x + 2) / (x (x + 1)); log(x + 1) as log1p(x)
    return tfr_sm__series_f64(tfr_sm_l2_f64, 42, x) - log(ax) - log1p(x);
  }
  if (x == floor(x)) return INFINITY;  // the poles (every |x| >= 2^52 is one)
  // Gamma(x) Gamma(1 - x) = pi / sin(pi x) with Gamma(1 - x) = -x Gamma(-x)
  // (-x is exact, 1 - x would round):
  // log|Gamma(x)| = log pi - log|sin(pi x)| - log|x| - lgamma(-x)
  return ((TFR_SM_LOG_PI - log(tfr_sm__abs_sinpi_f64(x))) - log(ax)) -
         tfr_sm__lgamma_pos_f64(ax);
}

// ---------------------------------------------------------------------------
// digamma
// ---------------------------------------------------------------------------

// digamma(x) for x > 0 (finite).
static inline double tfr_sm__digamma_pos_f64(double x) {
  if (x < 1.0) {
    // psi(x) = psi(x + 1) - 1/x, x + 1 - x0 = (x - (x0_hi - 1)) - x0_lo
    double t = (x - (TFR_SM_PSI_X0_HI - 1.0)) - TFR_SM_PSI_X0_LO;
    return tfr_sm__series_f64(tfr_sm_psi_f64, 40, t) - 1.0 / x;
  }
  if (x <= 1.75) {
    double t = (x - TFR_SM_PSI_X0_HI) - TFR_SM_PSI_X0_LO;  // x - x0_hi exact
    return tfr_sm__series_f64(tfr_sm_psi_f64, 40, t);
  }
  if (x < 10.0) {
    // psi(x) = psi(y) + sum_{j<n} 1/(y + j), y = x - n in [1.75, 2.75), where
    // psi(y) = psi(2 + t) > 0.24: the terms do not cancel
    int n = (int)(x - 1.75);
    double y = x - n;  // exact, as every y + j below
    double s = 0;
    for (int j = n - 1; j >= 0; j--) s += 1.0 / (y + j);
    double t = y - 2.0, p = tfr_sm_d2_f64[41];
    for (int k = 40; k >= 0; k--) p = p * t + tfr_sm_d2_f64[k];
    return p + s;
  }
  double l = log(x);
  if (x >= 0x1p60) return l;  // -1/(2x) is below 2^-66 of it
  double z = 1.0 / x, z2 = z * z;
  double s = tfr_sm_psia_f64[8];
  for (int k = 7; k >= 0; k--) s = s * z2 + tfr_sm_psia_f64[k];
  return l - (0.5 * z + s * z2);
}

static inline double tfr_sm_digamma_f64(double x) {
  if (isnan(x)) return x + x;
  if (x > 0) return isinf(x) ? x : tfr_sm__digamma_pos_f64(x);
  if (x == floor(x)) return NAN;  // 0, -0, the negative integers, -inf
  // psi(x) = psi(1 - x) - pi cot(pi x); for x <= -1 with
  // psi(1 - x) = psi(-x) - 1/x (-x is exact, 1 - x would round)
  if (x > -1.0) return tfr_sm__digamma_pos_f64(1.0 - x) - tfr_sm__pi_cotpi_f64(x);
  return (tfr_sm__digamma_pos_f64(-x) - 1.0 / x) - tfr_sm__pi_cotpi_f64(x);
}

// ---------------------------------------------------------------------------
// erf_inv
// ---------------------------------------------------------------------------

static inline double tfr_sm_erf_inv_f64(double x) {
  if (isnan(x)) return x + x;
  double ax = fabs(x);
  if (ax > 1.0) return NAN;
  if (ax == 1.0) return copysign(INFINITY, x);
  if (ax == 0.0) return x;
  const double c_hi = 0.886226925452758, c_lo = -3.8332932499128993e-17;  // sqrt(pi)/2
  if (ax < 0x1p-20) {
    // y = c x (1 + pi x^2 / 12 + ...): the next term is below 2^-80 of y
    return fma(x, c_hi, x * (c_lo + c_hi * 0.26179938779914946 * (x * x)));
  }
  // Winitzki's guess: y^2 = sqrt((b + L/2)^2 - L/a) - (b + L/2),
  // L = log(1 - x^2), a = 0.147, b = 2 / (pi a)
  double q = 1.0 - ax;  // exact for ax >= 1/2
  double L = ax < 0.5 ? log1p(-ax * ax) : log(q * (1.0 + ax));
  const double a = 0.147, b = 4.330746750799873;
  double h = b + 0.5 * L;
  double y = sqrt(sqrt(h * h - L / a) - h);
  for (int i = 0; i < 3; i++) {
    // Halley on f(y) = erf(y) - ax = 0: f'' / f' = -2y, so
    // y -= u / (1 + y u) with u = f / f'
    double f = ax < 0.5 ? erf(y) - ax : q - erfc(y);
    double u = f / (1.1283791670955126 * exp(-y * y));
    y -= u / (1.0 + y * u);
  }
  return copysign(y, x);
}

// ---------------------------------------------------------------------------
// bessel_i1e
// ---------------------------------------------------------------------------

static inline double tfr_sm_bessel_i1e_f64(double x) {
  if (isnan(x)) return x + x;
  double ax = fabs(x);
  if (ax <= 20.0) {
    // I1(a) = (a/2) sum_k (a^2/4)^k / (k! (k+1)!); the terms are positive.
    // Each term is carried as a double-double (hi + lo), from z = a^2/4 and
    // the ratios z / (k (k+1)) as exact pairs, and summed as a double-double:
    // the result's error is that of exp and of the last roundings.
    double z = 0.25 * ax * ax, dz = 0.25 * fma(ax, ax, -ax * ax);
    double th = 1.0, tl = 0.0, s = 1.0, sl = 0.0;
    for (int k = 1; k < 64 && th > 0x1p-60; k++) {
      double d = (double)k * (double)(k + 1);
      double ch = z / d, cl = (fma(-ch, d, z) + dz) / d;  // z/d = ch + cl
      double p = th * ch;
      tl = fma(th, ch, -p) + (th * cl + tl * ch);
      th = p;
      // s + sl += th + tl, keeping the error of the sum
      double t = s + th, b = t - s;
      sl += ((s - (t - b)) + (th - b)) + tl;
      s = t;
    }
    // (a/2) (s + sl) e^-a with one rounding of a tiny (subnormal) a's product
    double e = exp(-ax), p = s * e;
    return copysign(ax * (0.5 * (p + (fma(s, e, -p) + sl * e))), x);
  }
  if (isinf(ax)) return copysign(0.0, x);
  // e^-a I1(a) ~ (2 pi a)^-1/2 sum_k (-1)^k c_k a^-k,
  // c_k = c_{k-1} (4 - (2k - 1)^2) / (8k): stop at the smallest term (the
  // terms after the first summed apart, 1 added last)
  double r = 1.0 / ax, term = 1.0, s = 0.0;
  for (int k = 1; k < 80; k++) {
    double next = -term * r * (4.0 - (2.0 * k - 1.0) * (2.0 * k - 1.0)) / (8.0 * k);
    if (fabs(next) >= fabs(term) || fabs(next) < 0x1p-60) break;
    term = next;
    s += term;
  }
  s += 1.0;
  if (ax > 0x1p1000) return copysign(0.3989422804014327 / sqrt(ax), x);  // 2 pi a overflows
  return copysign(s / sqrt(2.0 * TFR_SM_PI * ax), x);
}

// ---------------------------------------------------------------------------
// Error scales for x < 0 (tests, docs/accuracy.md)
// ---------------------------------------------------------------------------

// For x < 0, lgamma and digamma are sums of terms that cancel (the
// reflection formulas above): near the poles, and near each of the zeros
// between them, the functions are ill-conditioned, and any evaluation in the
// format's precision errs by some ulps of the largest term. These return
// that term's magnitude, the unit of the documented bounds for x < 0:
//   lgamma:  max(log pi, |log|sin(pi x)||, |log|x||, lgamma(|x|))
//   digamma: max(|psi(1 + |x|)|, 1/|x|, |pi cot(pi x)|)
static inline double tfr_sm_lgamma_neg_scale_f64(double x) {
  double ax = fabs(x);
  return fmax(fmax(TFR_SM_LOG_PI, fabs(log(tfr_sm__abs_sinpi_f64(x)))),
              fmax(fabs(log(ax)), fabs(tfr_sm__lgamma_pos_f64(fmax(ax, 0.75)))));
}

static inline double tfr_sm_digamma_neg_scale_f64(double x) {
  double ax = fabs(x);
  return fmax(fmax(fabs(tfr_sm__digamma_pos_f64(1.0 + ax)), 1.0 / ax),
              fabs(tfr_sm__pi_cotpi_f64(x)));
}

// ---------------------------------------------------------------------------
// f32 (through f64, one rounding), f16 and bf16 (through f32, one rounding)
// ---------------------------------------------------------------------------

#define TFR_SM_SPECIAL_DTYPES(name)                                                       \
  static inline float tfr_sm_##name##_f32(float a) {                                    \
    return (float)tfr_sm_##name##_f64((double)a);                                       \
  }                                                                                     \
  static inline tfr_f16_bits tfr_sm_##name##_f16(tfr_f16_bits a) {                      \
    return tfr_f32_to_f16(tfr_sm_##name##_f32(tfr_f16_to_f32(a)));                      \
  }                                                                                     \
  static inline tfr_bf16_bits tfr_sm_##name##_bf16(tfr_bf16_bits a) {                   \
    return tfr_f32_to_bf16(tfr_sm_##name##_f32(tfr_bf16_to_f32(a)));                    \
  }

TFR_SM_SPECIAL_DTYPES(lgamma)
TFR_SM_SPECIAL_DTYPES(digamma)
TFR_SM_SPECIAL_DTYPES(erf_inv)
TFR_SM_SPECIAL_DTYPES(bessel_i1e)

#endif  // TENFERRO_SRC_CPU_SPECIAL_MATH_H_
