// Scalar element functions of the cpu elementwise kernels: one static inline
// function tfr_sm_<op>_<dtype> per (op, dtype) the op table allows
// (src/core/op_registry.def). src/cpu/elementwise.c wraps each in a
// strided loop; the semantics are those of include/tenferro/ops.h.
//
// Dtype tokens: b8 (bool, uint8_t 0/1), i8 i16 i32 i64, u8 u16 u32 u64, f16
// bf16 (uint16_t bit patterns, core/half.h), f32, f64, c64, c128.
// Integer arithmetic runs in an unsigned type of at least 32 bits (8- and
// 16-bit values would otherwise promote to int, where a product can
// overflow), so wrapping is defined behaviour (the conversion back to the
// signed type is modular in every compiler we build with). f16 and bf16 ops
// widen to f32 (exact), run the f32 function and round the result once. Float functions come from libm (f-suffixed
// for f32), complex ones from C99 <complex.h>.
//
// The cheap functions (arithmetic, compare, select, min/max) are written as
// branch-free selects so that the contiguous loops around them vectorise.
#ifndef TENFERRO_SRC_CPU_SCALAR_MATH_H_
#define TENFERRO_SRC_CPU_SCALAR_MATH_H_

#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/half.h"

typedef uint8_t tfr_sm_b8;
typedef float _Complex tfr_sm_c64;
typedef double _Complex tfr_sm_c128;

// Complex values from parts, exact for every input (re + im * I is not: it
// turns an infinite part into NaN through 0 * inf).
static inline tfr_sm_c64 tfr_sm_mk_c64(float re, float im) {
#ifdef CMPLXF
  return CMPLXF(re, im);
#else
  float v[2] = {re, im};
  tfr_sm_c64 z;
  memcpy(&z, v, sizeof z);
  return z;
#endif
}

static inline tfr_sm_c128 tfr_sm_mk_c128(double re, double im) {
#ifdef CMPLX
  return CMPLX(re, im);
#else
  double v[2] = {re, im};
  tfr_sm_c128 z;
  memcpy(&z, v, sizeof z);
  return z;
#endif
}

// ---------------------------------------------------------------------------
// Comparisons and select, every dtype (complex: EQ and NE only). bool is
// compared as unsigned; floats follow IEEE 754 (C's operators already do).
// ---------------------------------------------------------------------------

#define TFR_SM_EQ_NE(dt, T)                                                      \
  static inline tfr_sm_b8 tfr_sm_eq_##dt(T a, T b) { return (tfr_sm_b8)(a == b); } \
  static inline tfr_sm_b8 tfr_sm_ne_##dt(T a, T b) { return (tfr_sm_b8)(a != b); }

#define TFR_SM_ORDERED(dt, T)                                                    \
  TFR_SM_EQ_NE(dt, T)                                                            \
  static inline tfr_sm_b8 tfr_sm_lt_##dt(T a, T b) { return (tfr_sm_b8)(a < b); }  \
  static inline tfr_sm_b8 tfr_sm_le_##dt(T a, T b) { return (tfr_sm_b8)(a <= b); } \
  static inline tfr_sm_b8 tfr_sm_gt_##dt(T a, T b) { return (tfr_sm_b8)(a > b); }  \
  static inline tfr_sm_b8 tfr_sm_ge_##dt(T a, T b) { return (tfr_sm_b8)(a >= b); }

TFR_SM_ORDERED(b8, tfr_sm_b8)
TFR_SM_ORDERED(i8, int8_t)
TFR_SM_ORDERED(i16, int16_t)
TFR_SM_ORDERED(i32, int32_t)
TFR_SM_ORDERED(i64, int64_t)
TFR_SM_ORDERED(u8, uint8_t)
TFR_SM_ORDERED(u16, uint16_t)
TFR_SM_ORDERED(u32, uint32_t)
TFR_SM_ORDERED(u64, uint64_t)
TFR_SM_ORDERED(f32, float)
TFR_SM_ORDERED(f64, double)
TFR_SM_EQ_NE(c64, tfr_sm_c64)
TFR_SM_EQ_NE(c128, tfr_sm_c128)

// select copies one of two values bit for bit.
#define TFR_SM_SELECT(dt, T)                                                   \
  static inline T tfr_sm_select_##dt(tfr_sm_b8 p, T t, T f) { return p ? t : f; }

TFR_SM_SELECT(b8, tfr_sm_b8)
TFR_SM_SELECT(i8, int8_t)
TFR_SM_SELECT(i16, int16_t)
TFR_SM_SELECT(i32, int32_t)
TFR_SM_SELECT(u8, uint8_t)
TFR_SM_SELECT(u16, uint16_t)
TFR_SM_SELECT(u32, uint32_t)
TFR_SM_SELECT(f16, tfr_f16_bits)
TFR_SM_SELECT(bf16, tfr_bf16_bits)
TFR_SM_SELECT(f32, float)
TFR_SM_SELECT(f64, double)
TFR_SM_SELECT(c64, tfr_sm_c64)
TFR_SM_SELECT(c128, tfr_sm_c128)

// gcc cannot vectorise a 64-bit integer select without SSE4 (no 64-bit
// compare to build the mask); a mask made by negating the predicate needs
// none.
static inline int64_t tfr_sm_select_i64(tfr_sm_b8 p, int64_t t, int64_t f) {
  uint64_t m = (uint64_t)0 - (uint64_t)(p != 0);
  return (int64_t)(((uint64_t)t & m) | ((uint64_t)f & ~m));
}
static inline uint64_t tfr_sm_select_u64(tfr_sm_b8 p, uint64_t t, uint64_t f) {
  uint64_t m = (uint64_t)0 - (uint64_t)(p != 0);
  return (t & m) | (f & ~m);
}

// ---------------------------------------------------------------------------
// bool
// ---------------------------------------------------------------------------

static inline tfr_sm_b8 tfr_sm_not_b8(tfr_sm_b8 a) { return (tfr_sm_b8)(a ^ 1u); }
static inline tfr_sm_b8 tfr_sm_and_b8(tfr_sm_b8 a, tfr_sm_b8 b) { return (tfr_sm_b8)(a & b); }
static inline tfr_sm_b8 tfr_sm_or_b8(tfr_sm_b8 a, tfr_sm_b8 b) { return (tfr_sm_b8)(a | b); }
static inline tfr_sm_b8 tfr_sm_xor_b8(tfr_sm_b8 a, tfr_sm_b8 b) { return (tfr_sm_b8)(a ^ b); }
// On 0/1 values maximum is "or" and minimum is "and" (StableHLO).
static inline tfr_sm_b8 tfr_sm_maximum_b8(tfr_sm_b8 a, tfr_sm_b8 b) { return (tfr_sm_b8)(a | b); }
static inline tfr_sm_b8 tfr_sm_minimum_b8(tfr_sm_b8 a, tfr_sm_b8 b) { return (tfr_sm_b8)(a & b); }
static inline tfr_sm_b8 tfr_sm_clamp_b8(tfr_sm_b8 lo, tfr_sm_b8 x, tfr_sm_b8 hi) {
  return (tfr_sm_b8)((x | lo) & hi);
}

// ---------------------------------------------------------------------------
// Integers. T is the type, U the unsigned type the arithmetic runs in (at
// least 32 bits), UN the unsigned type of T's width (bit patterns: popcnt,
// logical shifts, shift counts, which are read as unsigned).
// ---------------------------------------------------------------------------

// What signed and unsigned integers share.
#define TFR_SM_INT_COMMON(dt, T, U, UN, BITS, POPCOUNT)                            \
  static inline T tfr_sm_negate_##dt(T a) { return (T)((U)0 - (U)a); }            \
  static inline T tfr_sm_conj_##dt(T a) { return a; }                              \
  static inline T tfr_sm_not_##dt(T a) { return (T)~(U)a; }                        \
  static inline T tfr_sm_popcnt_##dt(T a) { return (T)POPCOUNT((UN)a); }           \
  static inline T tfr_sm_add_##dt(T a, T b) { return (T)((U)a + (U)b); }           \
  static inline T tfr_sm_subtract_##dt(T a, T b) { return (T)((U)a - (U)b); }      \
  static inline T tfr_sm_multiply_##dt(T a, T b) { return (T)((U)a * (U)b); }      \
  static inline T tfr_sm_maximum_##dt(T a, T b) { return a > b ? a : b; }          \
  static inline T tfr_sm_minimum_##dt(T a, T b) { return a < b ? a : b; }          \
  static inline T tfr_sm_clamp_##dt(T lo, T x, T hi) {                             \
    T r = x > lo ? x : lo;                                                         \
    return r < hi ? r : hi;                                                        \
  }                                                                                \
  /* Squaring with wrapping, for a non-negative exponent. */                       \
  static inline T tfr_sm_power_nonneg_##dt(T a, T b) {                             \
    U r = 1, x = (U)a, e = (U)(UN)b;                                               \
    while (e) {                                                                    \
      if (e & 1u) r *= x;                                                          \
      x *= x;                                                                      \
      e >>= 1;                                                                     \
    }                                                                              \
    return (T)r;                                                                   \
  }                                                                                \
  static inline T tfr_sm_and_##dt(T a, T b) { return (T)((U)a & (U)b); }           \
  static inline T tfr_sm_or_##dt(T a, T b) { return (T)((U)a | (U)b); }            \
  static inline T tfr_sm_xor_##dt(T a, T b) { return (T)((U)a ^ (U)b); }           \
  /* Shift counts are read as unsigned; counts >= BITS give 0 or the sign fill   \
     (C leaves them undefined). */                                                 \
  static inline T tfr_sm_shift_left_##dt(T a, T b) {                               \
    return (UN)b >= (UN)(BITS) ? 0 : (T)((U)a << (UN)b);                           \
  }                                                                                \
  static inline T tfr_sm_shift_right_logical_##dt(T a, T b) {                      \
    return (UN)b >= (UN)(BITS) ? 0 : (T)((UN)a >> (UN)b);                          \
  }

// Signed: U holds a sign-extended T.
#define TFR_SM_INT(dt, T, U, UN, BITS, POPCOUNT)                                   \
  TFR_SM_INT_COMMON(dt, T, U, UN, BITS, POPCOUNT)                                  \
  /* abs(INT_MIN) wraps to INT_MIN (ops.h). */                                     \
  static inline T tfr_sm_abs_##dt(T a) { return a < 0 ? (T)((U)0 - (U)a) : a; }   \
  static inline T tfr_sm_sign_##dt(T a) { return (T)((a > 0) - (a < 0)); }         \
  /* XLA's values: x / 0 = -1, INT_MIN / -1 = INT_MIN (negation wraps). */         \
  static inline T tfr_sm_divide_##dt(T a, T b) {                                   \
    if (b == 0) return (T)-1;                                                      \
    if (b == -1) return (T)((U)0 - (U)a);                                          \
    return (T)(a / b);                                                             \
  }                                                                                \
  /* x % 0 = x; x % -1 = 0 also covers INT_MIN % -1, which C leaves undefined. */ \
  static inline T tfr_sm_remainder_##dt(T a, T b) {                                \
    if (b == 0) return a;                                                          \
    if (b == -1) return 0;                                                         \
    return (T)(a % b);                                                             \
  }                                                                                \
  /* A negative exponent gives 1/a^n truncated: 0 but for |a| = 1. */              \
  static inline T tfr_sm_power_##dt(T a, T b) {                                    \
    if (b < 0) {                                                                   \
      if (a == 1) return 1;                                                        \
      if (a == -1) return ((U)b & 1u) ? (T)-1 : (T)1;                              \
      return 0;                                                                    \
    }                                                                              \
    return tfr_sm_power_nonneg_##dt(a, b);                                         \
  }                                                                                \
  /* Arithmetic shift written on the unsigned pattern (~(~x >> n) for x < 0):    \
     C leaves right shifts of negative values implementation-defined. */           \
  static inline T tfr_sm_shift_right_arithmetic_##dt(T a, T b) {                   \
    U fill = a < 0 ? ~(U)0 : (U)0;                                                 \
    if ((UN)b >= (UN)(BITS)) return (T)fill;                                       \
    return (T)((((U)a ^ fill) >> (UN)b) ^ fill);                                   \
  }

TFR_SM_INT(i8, int8_t, uint32_t, uint8_t, 8, __builtin_popcount)
TFR_SM_INT(i16, int16_t, uint32_t, uint16_t, 16, __builtin_popcount)
TFR_SM_INT(i32, int32_t, uint32_t, uint32_t, 32, __builtin_popcount)
TFR_SM_INT(i64, int64_t, uint64_t, uint64_t, 64, __builtin_popcountll)

// Unsigned (StableHLO: no abs or sign). Division by zero gives all bits set
// and x % 0 = x, as for signed. The arithmetic right shift fills with the
// top bit of the pattern (XLA shifts the bits as its signed twin ST/sdt).
#define TFR_SM_UINT(dt, T, U, BITS, POPCOUNT, sdt, ST)                              \
  TFR_SM_INT_COMMON(dt, T, U, T, BITS, POPCOUNT)                                   \
  static inline T tfr_sm_divide_##dt(T a, T b) { return b == 0 ? (T)~(T)0 : (T)(a / b); } \
  static inline T tfr_sm_remainder_##dt(T a, T b) { return b == 0 ? a : (T)(a % b); } \
  static inline T tfr_sm_power_##dt(T a, T b) { return tfr_sm_power_nonneg_##dt(a, b); } \
  static inline T tfr_sm_shift_right_arithmetic_##dt(T a, T b) {                   \
    return (T)tfr_sm_shift_right_arithmetic_##sdt((ST)a, (ST)b);                   \
  }

TFR_SM_UINT(u8, uint8_t, uint32_t, 8, __builtin_popcount, i8, int8_t)
TFR_SM_UINT(u16, uint16_t, uint32_t, 16, __builtin_popcount, i16, int16_t)
TFR_SM_UINT(u32, uint32_t, uint32_t, 32, __builtin_popcount, i32, int32_t)
TFR_SM_UINT(u64, uint64_t, uint64_t, 64, __builtin_popcountll, i64, int64_t)

// ---------------------------------------------------------------------------
// Real floats: T is float (F = f, the libm suffix) or double (F empty).
// ---------------------------------------------------------------------------

#define TFR_SM_FLOAT(dt, T, F, CT, MK)                                              \
  static inline T tfr_sm_negate_##dt(T a) { return -a; }                            \
  static inline T tfr_sm_abs_##dt(T a) { return fabs##F(a); }                       \
  /* -1/0/1; NaN stays NaN and a zero keeps its sign. */                            \
  static inline T tfr_sm_sign_##dt(T a) {                                           \
    return a != a ? a : a > 0 ? (T)1 : a < 0 ? (T)-1 : a;                           \
  }                                                                                 \
  static inline T tfr_sm_conj_##dt(T a) { return a; }                               \
  static inline T tfr_sm_floor_##dt(T a) { return floor##F(a); }                    \
  static inline T tfr_sm_ceil_##dt(T a) { return ceil##F(a); }                      \
  /* Ties to even without rint: the result must not depend on the caller's       \
     rounding mode (fesetround). a - r is exact, so the tie test is too. */         \
  static inline T tfr_sm_round_nearest_even_##dt(T a) {                             \
    T r = round##F(a);                                                              \
    if (fabs##F(a - r) == (T)0.5) r = (T)2 * round##F((T)0.5 * a);                  \
    return r;                                                                       \
  }                                                                                 \
  static inline T tfr_sm_round_nearest_afz_##dt(T a) { return round##F(a); }        \
  static inline tfr_sm_b8 tfr_sm_is_finite_##dt(T a) { return (tfr_sm_b8)(isfinite(a) != 0); } \
  static inline T tfr_sm_real_##dt(T a) { return a; }                               \
  static inline T tfr_sm_imag_##dt(T a) {                                           \
    (void)a;                                                                        \
    return (T)0;                                                                    \
  }                                                                                 \
  static inline T tfr_sm_exp_##dt(T a) { return exp##F(a); }                        \
  static inline T tfr_sm_log_##dt(T a) { return log##F(a); }                        \
  static inline T tfr_sm_sin_##dt(T a) { return sin##F(a); }                        \
  static inline T tfr_sm_cos_##dt(T a) { return cos##F(a); }                        \
  static inline T tfr_sm_tan_##dt(T a) { return tan##F(a); }                        \
  static inline T tfr_sm_tanh_##dt(T a) { return tanh##F(a); }                      \
  static inline T tfr_sm_sqrt_##dt(T a) { return sqrt##F(a); }                      \
  static inline T tfr_sm_rsqrt_##dt(T a) { return (T)1 / sqrt##F(a); }              \
  static inline T tfr_sm_cbrt_##dt(T a) { return cbrt##F(a); }                      \
  static inline T tfr_sm_expm1_##dt(T a) { return expm1##F(a); }                    \
  static inline T tfr_sm_log1p_##dt(T a) { return log1p##F(a); }                    \
  static inline T tfr_sm_erf_##dt(T a) { return erf##F(a); }                        \
  static inline T tfr_sm_erfc_##dt(T a) { return erfc##F(a); }                      \
  /* exp of a non-positive argument only: no overflow, and for very negative     \
     x the tiny result keeps its relative accuracy (1 - 1/(1+e) would not). */     \
  static inline T tfr_sm_logistic_##dt(T a) {                                      \
    if (a >= 0) return (T)1 / ((T)1 + exp##F(-a));                                  \
    T e = exp##F(a);                                                                \
    return e / ((T)1 + e);                                                          \
  }                                                                                 \
  static inline T tfr_sm_asin_##dt(T a) { return asin##F(a); }                      \
  static inline T tfr_sm_acos_##dt(T a) { return acos##F(a); }                      \
  static inline T tfr_sm_atan_##dt(T a) { return atan##F(a); }                      \
  static inline T tfr_sm_sinh_##dt(T a) { return sinh##F(a); }                      \
  static inline T tfr_sm_cosh_##dt(T a) { return cosh##F(a); }                      \
  static inline T tfr_sm_asinh_##dt(T a) { return asinh##F(a); }                    \
  static inline T tfr_sm_acosh_##dt(T a) { return acosh##F(a); }                    \
  static inline T tfr_sm_atanh_##dt(T a) { return atanh##F(a); }                    \
  static inline T tfr_sm_add_##dt(T a, T b) { return a + b; }                       \
  static inline T tfr_sm_subtract_##dt(T a, T b) { return a - b; }                  \
  static inline T tfr_sm_multiply_##dt(T a, T b) { return a * b; }                  \
  static inline T tfr_sm_divide_##dt(T a, T b) { return a / b; }                    \
  static inline T tfr_sm_remainder_##dt(T a, T b) { return fmod##F(a, b); }         \
  /* IEEE 754-2019 maximum/minimum (as StableHLO): NaN propagates and -0 < +0.   \
     Selects only, with copysign for the sign of zero, so the loop vectorises. */  \
  static inline T tfr_sm_maximum_##dt(T a, T b) {                                   \
    T r = a > b ? a : b;                                                            \
    r = (a == b && copysign##F((T)1, a) > 0) ? a : r;                               \
    r = a != a ? a : r;                                                             \
    return b != b ? b : r;                                                          \
  }                                                                                 \
  static inline T tfr_sm_minimum_##dt(T a, T b) {                                   \
    T r = a < b ? a : b;                                                            \
    r = (a == b && copysign##F((T)1, a) < 0) ? a : r;                               \
    r = a != a ? a : r;                                                             \
    return b != b ? b : r;                                                          \
  }                                                                                 \
  static inline T tfr_sm_clamp_##dt(T lo, T x, T hi) {                              \
    return tfr_sm_minimum_##dt(tfr_sm_maximum_##dt(x, lo), hi);                     \
  }                                                                                 \
  static inline T tfr_sm_power_##dt(T a, T b) { return pow##F(a, b); }              \
  static inline T tfr_sm_atan2_##dt(T a, T b) { return atan2##F(a, b); }            \
  static inline T tfr_sm_next_after_##dt(T a, T b) { return nextafter##F(a, b); }   \
  static inline CT tfr_sm_cplx_##dt(T a, T b) { return MK(a, b); }

TFR_SM_FLOAT(f32, float, f, tfr_sm_c64, tfr_sm_mk_c64)
TFR_SM_FLOAT(f64, double, , tfr_sm_c128, tfr_sm_mk_c128)

// ---------------------------------------------------------------------------
// f16, bf16: T is the 16-bit pattern, TO widens it to f32, FROM rounds an
// f32 once (core/half.h). Sign manipulation stays on the bits (exact, NaN
// payloads kept); next_after steps in the dtype's own bits.
// ---------------------------------------------------------------------------

#define TFR_SM_HALF_UNARY(dt, T, TO, FROM, name) \
  static inline T tfr_sm_##name##_##dt(T a) { return FROM(tfr_sm_##name##_f32(TO(a))); }
#define TFR_SM_HALF_BINARY(dt, T, TO, FROM, name)                            \
  static inline T tfr_sm_##name##_##dt(T a, T b) {                          \
    return FROM(tfr_sm_##name##_f32(TO(a), TO(b)));                         \
  }
#define TFR_SM_HALF_COMPARE(dt, T, TO, name)                                 \
  static inline tfr_sm_b8 tfr_sm_##name##_##dt(T a, T b) {                  \
    return tfr_sm_##name##_f32(TO(a), TO(b));                               \
  }

#define TFR_SM_HALF(dt, T, TO, FROM)                                                  \
  static inline T tfr_sm_negate_##dt(T a) { return (T)(a ^ 0x8000u); }               \
  static inline T tfr_sm_abs_##dt(T a) { return (T)(a & 0x7fffu); }                   \
  static inline T tfr_sm_conj_##dt(T a) { return a; }                                 \
  static inline T tfr_sm_real_##dt(T a) { return a; }                                 \
  static inline T tfr_sm_imag_##dt(T a) {                                             \
    (void)a;                                                                          \
    return 0;                                                                         \
  }                                                                                   \
  static inline tfr_sm_b8 tfr_sm_is_finite_##dt(T a) { return tfr_sm_is_finite_f32(TO(a)); } \
  static inline T tfr_sm_clamp_##dt(T lo, T x, T hi) {                                \
    return FROM(tfr_sm_clamp_f32(TO(lo), TO(x), TO(hi)));                             \
  }                                                                                   \
  /* The neighbour of a toward b in T's own spacing (subnormals included);      \
     NaN in either gives NaN, a == b gives b (so -0 toward +0 is +0). */          \
  static inline T tfr_sm_next_after_##dt(T a, T b) {                                  \
    float x = TO(a), y = TO(b);                                                       \
    if (x != x) return a;                                                             \
    if (y != y) return b;                                                             \
    if (x == y) return b;                                                             \
    if (x == 0) return (T)((b & 0x8000u) | 1u);                                       \
    /* Away from zero is +1 on the magnitude bits, toward zero -1. */               \
    return (T)(((x < y) == (x > 0)) ? a + 1u : a - 1u);                               \
  }                                                                                   \
  TFR_SM_HALF_UNARY(dt, T, TO, FROM, sign)                                            \
  TFR_SM_HALF_UNARY(dt, T, TO, FROM, floor)                                           \
  TFR_SM_HALF_UNARY(dt, T, TO, FROM, ceil)                                            \
  TFR_SM_HALF_UNARY(dt, T, TO, FROM, round_nearest_even)                              \
  TFR_SM_HALF_UNARY(dt, T, TO, FROM, round_nearest_afz)                               \
  TFR_SM_HALF_UNARY(dt, T, TO, FROM, exp)                                             \
  TFR_SM_HALF_UNARY(dt, T, TO, FROM, log)                                             \
  TFR_SM_HALF_UNARY(dt, T, TO, FROM, sin)                                             \
  TFR_SM_HALF_UNARY(dt, T, TO, FROM, cos)                                             \
  TFR_SM_HALF_UNARY(dt, T, TO, FROM, tan)                                             \
  TFR_SM_HALF_UNARY(dt, T, TO, FROM, tanh)                                            \
  TFR_SM_HALF_UNARY(dt, T, TO, FROM, sqrt)                                            \
  TFR_SM_HALF_UNARY(dt, T, TO, FROM, rsqrt)                                           \
  TFR_SM_HALF_UNARY(dt, T, TO, FROM, cbrt)                                            \
  TFR_SM_HALF_UNARY(dt, T, TO, FROM, expm1)                                           \
  TFR_SM_HALF_UNARY(dt, T, TO, FROM, log1p)                                           \
  TFR_SM_HALF_UNARY(dt, T, TO, FROM, erf)                                             \
  TFR_SM_HALF_UNARY(dt, T, TO, FROM, erfc)                                            \
  TFR_SM_HALF_UNARY(dt, T, TO, FROM, logistic)                                        \
  TFR_SM_HALF_UNARY(dt, T, TO, FROM, asin)                                            \
  TFR_SM_HALF_UNARY(dt, T, TO, FROM, acos)                                            \
  TFR_SM_HALF_UNARY(dt, T, TO, FROM, atan)                                            \
  TFR_SM_HALF_UNARY(dt, T, TO, FROM, sinh)                                            \
  TFR_SM_HALF_UNARY(dt, T, TO, FROM, cosh)                                            \
  TFR_SM_HALF_UNARY(dt, T, TO, FROM, asinh)                                           \
  TFR_SM_HALF_UNARY(dt, T, TO, FROM, acosh)                                           \
  TFR_SM_HALF_UNARY(dt, T, TO, FROM, atanh)                                           \
  TFR_SM_HALF_BINARY(dt, T, TO, FROM, add)                                            \
  TFR_SM_HALF_BINARY(dt, T, TO, FROM, subtract)                                       \
  TFR_SM_HALF_BINARY(dt, T, TO, FROM, multiply)                                       \
  TFR_SM_HALF_BINARY(dt, T, TO, FROM, divide)                                         \
  TFR_SM_HALF_BINARY(dt, T, TO, FROM, remainder)                                      \
  TFR_SM_HALF_BINARY(dt, T, TO, FROM, maximum)                                        \
  TFR_SM_HALF_BINARY(dt, T, TO, FROM, minimum)                                        \
  TFR_SM_HALF_BINARY(dt, T, TO, FROM, power)                                          \
  TFR_SM_HALF_BINARY(dt, T, TO, FROM, atan2)                                          \
  TFR_SM_HALF_COMPARE(dt, T, TO, eq)                                                  \
  TFR_SM_HALF_COMPARE(dt, T, TO, ne)                                                  \
  TFR_SM_HALF_COMPARE(dt, T, TO, lt)                                                  \
  TFR_SM_HALF_COMPARE(dt, T, TO, le)                                                  \
  TFR_SM_HALF_COMPARE(dt, T, TO, gt)                                                  \
  TFR_SM_HALF_COMPARE(dt, T, TO, ge)

TFR_SM_HALF(f16, tfr_f16_bits, tfr_f16_to_f32, tfr_f32_to_f16)
TFR_SM_HALF(bf16, tfr_bf16_bits, tfr_bf16_to_f32, tfr_f32_to_bf16)

// ---------------------------------------------------------------------------
// Complex: T is the complex type, R its real part type, F the libm suffix.
// ---------------------------------------------------------------------------

#define TFR_SM_COMPLEX(dt, T, R, F, MK)                                               \
  static inline T tfr_sm_negate_##dt(T a) { return MK(-creal##F(a), -cimag##F(a)); }  \
  static inline R tfr_sm_abs_##dt(T a) { return cabs##F(a); }                         \
  static inline T tfr_sm_conj_##dt(T a) { return MK(creal##F(a), -cimag##F(a)); }     \
  static inline R tfr_sm_real_##dt(T a) { return creal##F(a); }                       \
  static inline R tfr_sm_imag_##dt(T a) { return cimag##F(a); }                       \
  /* z/|z|, 0 at 0 (zeros keep their signs). Infinite parts count as the         \
     limit direction (inf + 1i -> 1), NaN in either part gives NaN. */               \
  static inline T tfr_sm_sign_##dt(T a) {                                             \
    R x = creal##F(a), y = cimag##F(a);                                               \
    if (isnan(x) || isnan(y)) return MK((R)NAN, (R)NAN);                              \
    if (isinf(x) || isinf(y)) {                                                       \
      x = copysign##F(isinf(x) ? (R)1 : (R)0, x);                                     \
      y = copysign##F(isinf(y) ? (R)1 : (R)0, y);                                     \
    }                                                                                 \
    if (x == 0 && y == 0) return a;                                                   \
    R h = hypot##F(x, y);                                                             \
    return MK(x / h, y / h);                                                          \
  }                                                                                   \
  static inline T tfr_sm_exp_##dt(T a) { return cexp##F(a); }                         \
  static inline T tfr_sm_log_##dt(T a) { return clog##F(a); }                         \
  static inline T tfr_sm_sin_##dt(T a) { return csin##F(a); }                         \
  static inline T tfr_sm_cos_##dt(T a) { return ccos##F(a); }                         \
  static inline T tfr_sm_tan_##dt(T a) { return ctan##F(a); }                         \
  static inline T tfr_sm_tanh_##dt(T a) { return ctanh##F(a); }                       \
  static inline T tfr_sm_sqrt_##dt(T a) { return csqrt##F(a); }                       \
  static inline T tfr_sm_rsqrt_##dt(T a) { return (R)1 / csqrt##F(a); }               \
  static inline T tfr_sm_asin_##dt(T a) { return casin##F(a); }                       \
  static inline T tfr_sm_acos_##dt(T a) { return cacos##F(a); }                       \
  static inline T tfr_sm_atan_##dt(T a) { return catan##F(a); }                       \
  static inline T tfr_sm_sinh_##dt(T a) { return csinh##F(a); }                       \
  static inline T tfr_sm_cosh_##dt(T a) { return ccosh##F(a); }                       \
  static inline T tfr_sm_asinh_##dt(T a) { return casinh##F(a); }                     \
  static inline T tfr_sm_acosh_##dt(T a) { return cacosh##F(a); }                     \
  static inline T tfr_sm_atanh_##dt(T a) { return catanh##F(a); }                     \
  /* exp(z) - 1 loses the small real part to cancellation near 0. For |x| < 1:   \
     re = e^x cos y - 1 = expm1(x) cos y - 2 sin^2(y/2), im = e^x sin y, every   \
     term accurate; further out cexp (which scales against overflow) is. */        \
  static inline T tfr_sm_expm1_##dt(T a) {                                            \
    R x = creal##F(a), y = cimag##F(a);                                               \
    if (fabs##F(x) < (R)1 && isfinite(y)) {                                           \
      R s = sin##F((R)0.5 * y);                                                       \
      return MK(expm1##F(x) * cos##F(y) - (R)2 * s * s, exp##F(x) * sin##F(y));       \
    }                                                                                 \
    T e = cexp##F(a);                                                                 \
    return MK(creal##F(e) - (R)1, cimag##F(e));                                       \
  }                                                                                   \
  /* log(1 + z): forming 1 + z rounds small z away. Near 0, re = log|1+z| =       \
     log1p(x (2 + x) + y^2) / 2 and im = atan2(y, 1 + x); elsewhere clog. */        \
  static inline T tfr_sm_log1p_##dt(T a) {                                            \
    R x = creal##F(a), y = cimag##F(a);                                               \
    if (fabs##F(x) < (R)0.5 && fabs##F(y) < (R)0.5)                                   \
      return MK((R)0.5 * log1p##F(x * ((R)2 + x) + y * y), atan2##F(y, (R)1 + x));    \
    return clog##F(MK((R)1 + x, y));                                                  \
  }                                                                                   \
  /* As the real logistic: exp only of an argument with non-positive real part,  \
     so it cannot overflow and small results stay accurate. */                       \
  static inline T tfr_sm_logistic_##dt(T a) {                                         \
    if (creal##F(a) >= 0) return (R)1 / ((R)1 + cexp##F(-a));                         \
    T e = cexp##F(a);                                                                 \
    return e / ((R)1 + e);                                                            \
  }                                                                                   \
  static inline T tfr_sm_add_##dt(T a, T b) { return a + b; }                         \
  static inline T tfr_sm_subtract_##dt(T a, T b) { return a - b; }                    \
  /* The textbook product, as numpy and XLA compute it (C's a * b adds Annex G    \
     infinity recovery through a libgcc call, which does not vectorise). */          \
  static inline T tfr_sm_multiply_##dt(T a, T b) {                                    \
    R ar = creal##F(a), ai = cimag##F(a), br = creal##F(b), bi = cimag##F(b);         \
    return MK(ar * br - ai * bi, ar * bi + ai * br);                                  \
  }                                                                                   \
  /* C's division scales against overflow and handles infinities (Annex G). */      \
  static inline T tfr_sm_divide_##dt(T a, T b) { return a / b; }                      \
  /* Lexicographic on (re, im); a NaN in either part propagates that operand. */    \
  static inline T tfr_sm_maximum_##dt(T a, T b) {                                     \
    R ar = creal##F(a), ai = cimag##F(a), br = creal##F(b), bi = cimag##F(b);         \
    if (ar != ar || ai != ai) return a;                                               \
    if (br != br || bi != bi) return b;                                               \
    if (ar != br) return ar > br ? a : b;                                             \
    return ai >= bi ? a : b;                                                          \
  }                                                                                   \
  static inline T tfr_sm_minimum_##dt(T a, T b) {                                     \
    R ar = creal##F(a), ai = cimag##F(a), br = creal##F(b), bi = cimag##F(b);         \
    if (ar != ar || ai != ai) return a;                                               \
    if (br != br || bi != bi) return b;                                               \
    if (ar != br) return ar < br ? a : b;                                             \
    return ai <= bi ? a : b;                                                          \
  }                                                                                   \
  /* cpow(a, b) = cexp(b clog a), except where clog(0) = -inf would give NaN:     \
     a^0 = 1 for every a (as pow), 0^b = 0 for Re b > 0. */                          \
  static inline T tfr_sm_power_##dt(T a, T b) {                                       \
    if (creal##F(b) == 0 && cimag##F(b) == 0) return MK(1, 0);                        \
    if (creal##F(a) == 0 && cimag##F(a) == 0 && creal##F(b) > 0) return MK(0, 0);     \
    return cpow##F(a, b);                                                             \
  }                                                                                   \
  /* atan2(y, x) = -i log((x + iy) / sqrt(x^2 + y^2)), the definition XLA uses    \
     for complex operands (StableHLO gives no other). Both operands are first     \
     scaled by one power of two (exact; the quotient does not change) so that     \
     the squares neither overflow nor underflow. x^2 + y^2 is formed as           \
     (xr - yi)(xr + yi) + (yr - xi)(yr + xi) + 2i (xr xi + yr yi): it cancels     \
     to ~0 near the singular points x = +-iy, where the plain sum of squares      \
     would keep only rounding noise. */                                           \
  static inline T tfr_sm_atan2_##dt(T a, T b) {                                       \
    R yr = creal##F(a), yi = cimag##F(a), xr = creal##F(b), xi = cimag##F(b);         \
    R m = fmax##F(fmax##F(fabs##F(yr), fabs##F(yi)), fmax##F(fabs##F(xr), fabs##F(xi))); \
    if (isfinite(m) && m > 0) {                                                       \
      int e;                                                                          \
      frexp##F(m, &e);                                                                \
      yr = scalbn##F(yr, -e);                                                         \
      yi = scalbn##F(yi, -e);                                                         \
      xr = scalbn##F(xr, -e);                                                         \
      xi = scalbn##F(xi, -e);                                                         \
    }                                                                                 \
    R sr = (xr - yi) * (xr + yi) + (yr - xi) * (yr + xi);                             \
    R si = (R)2 * (xr * xi + yr * yi);                                                \
    T l = clog##F(MK(xr - yi, xi + yr) / csqrt##F(MK(sr, si)));                       \
    return MK(cimag##F(l), -creal##F(l));                                             \
  }

TFR_SM_COMPLEX(c64, tfr_sm_c64, float, f, tfr_sm_mk_c64)
TFR_SM_COMPLEX(c128, tfr_sm_c128, double, , tfr_sm_mk_c128)

#endif  // TENFERRO_SRC_CPU_SCALAR_MATH_H_
