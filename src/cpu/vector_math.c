// Vector libm routines (see vector_math.h): glibc's libmvec, called through
// the x86 vector function ABI from functions compiled for the ISA they need,
// and picked once per process by the CPU.
//
// What is adopted, and why. Measured on glibc 2.36 (x86_64, AMD EPYC with
// AVX-512) with a throwaway harness: 2 million arguments per function, dtype
// and range (16 million for the adopted f64 functions and those at their
// bound), over the unit tests' ranges, every finite number (random bits),
// tiny arguments and each function's own domain, plus ~80 edge values. The
// error is the distance in ulp from the wider-precision result (long double
// for f64, double for f32) rounded: the metric and the bounds of
// tests/unit/test_cpu_elementwise.c (tests/ref/gen_elementwise.py).
//
//   f64, max ulp        AVX-512  AVX2  scalar libm  bound
//   exp                    3       3        1         1    rejected: our own below
//   log                    2       2        1         1    rejected
//   sin / cos / tan      3/3/4   3/3/3      1         1    rejected
//   expm1 / log1p         2/2     3/2       1         1    rejected
//   erf                    3       3        1         1    rejected
//   asin / acos / atan   2/2/3   3/2/3      1         1    rejected
//   atan2                  2       2        1         1    rejected
//   cosh                   2       2        2 (1 on the tests' ranges)  1  rejected
//   tanh                   1       2        2         2    adopted
//   cbrt                   2       3        3         3    adopted
//   erfc                   2       2        4         3    adopted
//   sinh                   2       2        2         2    adopted
//   asinh / acosh / atanh 1/2/1   3/3/3     2         2    adopted for AVX-512 only
//   pow                    1       1        1         1    adopted
//
// f32: libmvec's own float functions are 2-4 ulp for exp, log, sin, cos, tan,
// cbrt, expm1, log1p, erf, asin, acos, atan and atan2 (bound 1). Instead each
// f32 routine widens to double, calls the f64 vector function and rounds
// back: the f64 error (at most 4 ulp of a double, 2^-50 relative) is far below
// half a float ulp, so the result is the correctly rounded float or, when the
// exact value lies within 2^-50 of a rounding boundary, its neighbour.
// Measured: 0 ulp from the reference for all 21 functions at both levels
// (scalar libm's float functions: 1-3). It costs about twice libmvec's
// float call, and is still 2.5-20 times faster than scalar libm's float
// functions with AVX-512 (exp 0.59 ns an element against 1.94, sin 0.52
// against 2.18, tanh 1.06 against 9.6; thread CPU time, 4096 elements in
// cache) and 1.1-7 times with AVX2.
//
// Speed of the adopted f64 functions, same measure: tanh 1.29 ns against
// 9.07, cbrt 0.48 / 13.6, erfc 1.17 / 7.6, sinh 1.06 / 9.7, asinh 1.34 /
// 12.5, acosh 1.34 / 6.7, atanh 0.77 / 8.3, pow 2.9 / 9.7 (positive bases).
//
// Special values, compared bit for bit with scalar libm over the edge values
// (every pair of them for pow and atan2): NaN, infinities, signed zeros,
// overflow and underflow come out the same. The only differences are finite
// results that the vector code rounds better: cbrt of the smallest subnormal,
// erfc at a subnormal result, f32 atan2 of a subnormal and a huge value.
//
// (SSE 'b' variants: not used; CPUs without AVX2 keep scalar libm.)
//
// f64 exp is our own (tfr_vm_exp_f64_*, below): libmvec's is 3 ulp, scalar
// exp 7-8 ns an element. A table of 2^(j/128) with the relative error of each
// entry, a degree-5 polynomial on |r| <= ln2/256, one FMA to finish: at most
// 0.51 ulp from the exact value (so at most 1 ulp from the correctly rounded
// one) over 2e7 arguments measured against expl, 0.9 ns an element.
#include "cpu/vector_math.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>  // also brings <features.h>, for __GLIBC__

// Not with clang: clang 14 passes the __m256d / __m512d arguments of these
// declarations on the stack even with the callers' target attributes, where
// libmvec reads them from ymm / zmm registers (pow(x, z) came back as
// pow(x, x); a one-argument call worked only by chance). gcc passes them in
// registers. Clang builds (the sanitizer and fuzz builds) take the scalar
// path; test_cpu_vector_math, run in the ThreadSanitizer (clang) build too,
// checks the routines against scalar libm.
#if defined(__x86_64__) && defined(__GLIBC__) && !defined(__clang__) && \
    (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
#define TFR_VM_LIBMVEC 1
#endif

#ifdef TFR_VM_LIBMVEC
#include <immintrin.h>

// ---------------------------------------------------------------------------
// What is adopted: X(libm name, op). The f32 lists run the f64 functions.
// ---------------------------------------------------------------------------

#define TFR_VM_F64_UNARY_AVX512(X)                                                   \
  X(tanh, TFR_TANH) X(cbrt, TFR_CBRT) X(erfc, TFR_ERFC) X(sinh, TFR_SINH) X(atanh, TFR_ATANH) \
  X(asinh, TFR_ASINH) X(acosh, TFR_ACOSH)
// Not asinh, acosh, atanh: 3 ulp at this level (bound 2).
#define TFR_VM_F64_UNARY_AVX2(X) \
  X(tanh, TFR_TANH) X(cbrt, TFR_CBRT) X(erfc, TFR_ERFC) X(sinh, TFR_SINH)
// Written out below (tfr_vm_pow_f64_*): the list only fills the tables.
#define TFR_VM_F64_BINARY(X) X(pow, TFR_POWER)

#define TFR_VM_F32_UNARY(X)                                                          \
  X(exp, TFR_EXP) X(log, TFR_LOG) X(sin, TFR_SIN) X(cos, TFR_COS) X(tan, TFR_TAN)    \
  X(tanh, TFR_TANH) X(cbrt, TFR_CBRT) X(expm1, TFR_EXPM1) X(log1p, TFR_LOG1P)        \
  X(erf, TFR_ERF) X(erfc, TFR_ERFC) X(asin, TFR_ASIN) X(acos, TFR_ACOS)              \
  X(atan, TFR_ATAN) X(sinh, TFR_SINH) X(cosh, TFR_COSH) X(asinh, TFR_ASINH)          \
  X(acosh, TFR_ACOSH) X(atanh, TFR_ATANH)
// Not pow: scalar powf is fast already: 3.5 ns an element for positive bases
// against 2.7 through f64 libmvec, but 4.0 against 13.9 for negative bases
// (integer exponents), and 4.6-5.0 against 9.7 for the squares of signed
// numbers.
#define TFR_VM_F32_BINARY(X) X(atan2, TFR_ATAN2)
// Every binary function called.
#define TFR_VM_BINARY_FUNCS(X) X(pow, TFR_POWER) X(atan2, TFR_ATAN2)

// ---------------------------------------------------------------------------
// libmvec entry points (x86 vector function ABI names: _ZGV, ISA letter
// d = AVX2 / e = AVX-512, N = unmasked, lanes, one v per vector argument).
// ---------------------------------------------------------------------------

#define TFR_VM_AVX2_FN __attribute__((target("avx2,fma")))
#define TFR_VM_AVX512_FN __attribute__((target("avx512f,avx512dq")))

// Declared with the target of their callers: the vector arguments are passed
// in ymm/zmm registers only when AVX/AVX-512 is enabled (clang insists).
#define TFR_VM_DECLARE_UNARY(f, OP)                \
  TFR_VM_AVX2_FN __m256d _ZGVdN4v_##f(__m256d);    \
  TFR_VM_AVX512_FN __m512d _ZGVeN8v_##f(__m512d);
#define TFR_VM_DECLARE_BINARY(f, OP)                        \
  TFR_VM_AVX2_FN __m256d _ZGVdN4vv_##f(__m256d, __m256d);   \
  TFR_VM_AVX512_FN __m512d _ZGVeN8vv_##f(__m512d, __m512d);
TFR_VM_F32_UNARY(TFR_VM_DECLARE_UNARY)
TFR_VM_BINARY_FUNCS(TFR_VM_DECLARE_BINARY)

// ---------------------------------------------------------------------------
// One vector: f64 lanes straight through; f32 lanes widened to f64 and
// rounded back (cvtpd_ps rounds to nearest, as a C conversion does).
// ---------------------------------------------------------------------------

#define TFR_VM_F64_E_STEP(f, y, x) _mm512_storeu_pd((y), _ZGVeN8v_##f(_mm512_loadu_pd(x)))
#define TFR_VM_F64_D_STEP(f, y, x) _mm256_storeu_pd((y), _ZGVdN4v_##f(_mm256_loadu_pd(x)))
#define TFR_VM_F32_E_STEP(f, y, x) \
  _mm256_storeu_ps((y), _mm512_cvtpd_ps(_ZGVeN8v_##f(_mm512_cvtps_pd(_mm256_loadu_ps(x)))))
#define TFR_VM_F32_D_STEP(f, y, x) \
  _mm_storeu_ps((y), _mm256_cvtpd_ps(_ZGVdN4v_##f(_mm256_cvtps_pd(_mm_loadu_ps(x)))))
#define TFR_VM_F64_E_STEP2(f, y, x, z) \
  _mm512_storeu_pd((y), _ZGVeN8vv_##f(_mm512_loadu_pd(x), _mm512_loadu_pd(z)))
#define TFR_VM_F64_D_STEP2(f, y, x, z) \
  _mm256_storeu_pd((y), _ZGVdN4vv_##f(_mm256_loadu_pd(x), _mm256_loadu_pd(z)))
#define TFR_VM_F32_E_STEP2(f, y, x, z)                                                   \
  _mm256_storeu_ps((y), _mm512_cvtpd_ps(_ZGVeN8vv_##f(_mm512_cvtps_pd(_mm256_loadu_ps(x)), \
                                                      _mm512_cvtps_pd(_mm256_loadu_ps(z)))))
#define TFR_VM_F32_D_STEP2(f, y, x, z)                                              \
  _mm_storeu_ps((y), _mm256_cvtpd_ps(_ZGVdN4vv_##f(_mm256_cvtps_pd(_mm_loadu_ps(x)), \
                                                   _mm256_cvtps_pd(_mm_loadu_ps(z)))))

// ---------------------------------------------------------------------------
// Routines: full vectors, then the tail. The last r (< W) elements go through
// the same vector code, padded with copies of the first of them (an argument
// that is there anyway: no extra out-of-domain lane, whose scalar fallback is
// slow). So every element gets the value of the same code whatever its
// position, and results cannot depend on where a run or a thread's chunk
// ends (the scalar function may round differently, within the bound).
// ---------------------------------------------------------------------------

static inline void tfr_vm_pad_double(double *buf, const double *x, int64_t r, int w) {
  memcpy(buf, x, (size_t)r * sizeof *x);
  for (int k = (int)r; k < w; k++) buf[k] = x[0];
}
static inline void tfr_vm_pad_float(float *buf, const float *x, int64_t r, int w) {
  memcpy(buf, x, (size_t)r * sizeof *x);
  for (int k = (int)r; k < w; k++) buf[k] = x[0];
}

// tfr_vm_<f>_<SUFFIX>: a run of T, W lanes a vector, STEP(f, y, x[, z]) one
// vector, ATTR its target.
#define TFR_VM_UNARY_ROUTINE(f, SUFFIX, T, W, ATTR, STEP)             \
  ATTR static void tfr_vm_##f##_##SUFFIX(int64_t n, const T *x, T *y) { \
    int64_t i = 0;                                                    \
    for (; i + (W) <= n; i += (W)) STEP(f, y + i, x + i);             \
    if (i < n) {                                                      \
      T xb[W], yb[W];                                                 \
      tfr_vm_pad_##T(xb, x + i, n - i, (W));                          \
      STEP(f, yb, xb);                                                \
      memcpy(y + i, yb, (size_t)(n - i) * sizeof *y);                 \
    }                                                                 \
  }
#define TFR_VM_BINARY_ROUTINE(f, SUFFIX, T, W, ATTR, STEP)                        \
  ATTR static void tfr_vm_##f##_##SUFFIX(int64_t n, const T *x, const T *z, T *y) { \
    int64_t i = 0;                                                                \
    for (; i + (W) <= n; i += (W)) STEP(f, y + i, x + i, z + i);                  \
    if (i < n) {                                                                  \
      T xb[W], zb[W], yb[W];                                                      \
      tfr_vm_pad_##T(xb, x + i, n - i, (W));                                      \
      tfr_vm_pad_##T(zb, z + i, n - i, (W));                                      \
      STEP(f, yb, xb, zb);                                                        \
      memcpy(y + i, yb, (size_t)(n - i) * sizeof *y);                             \
    }                                                                             \
  }

#define TFR_VM_F64_UNARY_E(f, OP) \
  TFR_VM_UNARY_ROUTINE(f, f64_e, double, 8, TFR_VM_AVX512_FN, TFR_VM_F64_E_STEP)
#define TFR_VM_F64_UNARY_D(f, OP) \
  TFR_VM_UNARY_ROUTINE(f, f64_d, double, 4, TFR_VM_AVX2_FN, TFR_VM_F64_D_STEP)
#define TFR_VM_F32_UNARY_E(f, OP) \
  TFR_VM_UNARY_ROUTINE(f, f32_e, float, 8, TFR_VM_AVX512_FN, TFR_VM_F32_E_STEP)
#define TFR_VM_F32_UNARY_D(f, OP) \
  TFR_VM_UNARY_ROUTINE(f, f32_d, float, 4, TFR_VM_AVX2_FN, TFR_VM_F32_D_STEP)
#define TFR_VM_F32_BINARY_E(f, OP) \
  TFR_VM_BINARY_ROUTINE(f, f32_e, float, 8, TFR_VM_AVX512_FN, TFR_VM_F32_E_STEP2)
#define TFR_VM_F32_BINARY_D(f, OP) \
  TFR_VM_BINARY_ROUTINE(f, f32_d, float, 4, TFR_VM_AVX2_FN, TFR_VM_F32_D_STEP2)

// pow: libmvec hands a negative base to scalar code lane by lane, slowly: on
// an array of negative bases with integer exponents 13.9 ns an element
// against 9.4 for scalar pow (positive bases: 2.5 against 9.5). So negative
// bases go to scalar pow directly (their lanes given 1, and no vector call
// when every lane is negative); an element's value still depends on its own
// arguments alone (all-negative arrays: 10.6 ns, signed squares 8.8 against
// 11.4). In place is fine: x and z are read before y is written.
// The tail is padded as above (masked loads on AVX-512: lanes past the end
// are neither read nor written).
TFR_VM_AVX512_FN static void tfr_vm_pow_f64_e(int64_t n, const double *x, const double *z,
                                              double *y) {
  const __m512d one = _mm512_set1_pd(1.0), zero = _mm512_setzero_pd();
  for (int64_t i = 0; i < n; i += 8) {
    int r = n - i < 8 ? (int)(n - i) : 8;
    __mmask8 live = (__mmask8)(0xffu >> (8 - r));
    __m512d a = _mm512_mask_loadu_pd(_mm512_set1_pd(x[i]), live, x + i);
    __m512d b = _mm512_mask_loadu_pd(_mm512_set1_pd(z[i]), live, z + i);
    __mmask8 neg = _mm512_cmp_pd_mask(a, zero, _CMP_LT_OQ);
    __m512d v = zero;
    if ((neg & live) != live) v = _ZGVeN8vv_pow(_mm512_mask_mov_pd(a, neg, one), b);
    if (neg & live) {
      double va[8], vb[8], vy[8];
      _mm512_storeu_pd(va, a);
      _mm512_storeu_pd(vb, b);
      _mm512_storeu_pd(vy, v);
      for (int k = 0; k < r; k++)
        if (neg >> k & 1u) vy[k] = pow(va[k], vb[k]);
      v = _mm512_loadu_pd(vy);
    }
    _mm512_mask_storeu_pd(y + i, live, v);
  }
}

TFR_VM_AVX2_FN static void tfr_vm_pow_f64_d(int64_t n, const double *x, const double *z,
                                            double *y) {
  const __m256d one = _mm256_set1_pd(1.0), zero = _mm256_setzero_pd();
  for (int64_t i = 0; i < n; i += 4) {
    int r = n - i < 4 ? (int)(n - i) : 4;
    double xb[4], zb[4], vy[4];
    const double *xp = x + i, *zp = z + i;
    if (r < 4) {
      tfr_vm_pad_double(xb, xp, r, 4);
      tfr_vm_pad_double(zb, zp, r, 4);
      xp = xb;
      zp = zb;
    }
    __m256d a = _mm256_loadu_pd(xp), b = _mm256_loadu_pd(zp);
    __m256d negv = _mm256_cmp_pd(a, zero, _CMP_LT_OQ);
    int neg = _mm256_movemask_pd(negv);
    __m256d v = zero;
    if ((neg & 15) != 15) v = _ZGVdN4vv_pow(_mm256_blendv_pd(a, one, negv), b);
    if (!neg && r == 4) {
      _mm256_storeu_pd(y + i, v);
      continue;
    }
    _mm256_storeu_pd(vy, v);
    for (int k = 0; k < r; k++)
      if (neg >> k & 1) vy[k] = pow(xp[k], zp[k]);
    memcpy(y + i, vy, (size_t)r * sizeof *y);
  }
}

// ---------------------------------------------------------------------------
// f64 exp, our own. exp(x) = 2^(k/N) exp(r) with k = round(x N / ln2), N = 128,
// r = x - k ln2/N (two FMAs: |r| <= ln2/256, rounding error far below an
// ulp of the result). 2^(k/N) = 2^(k>>7) T[k & 127] is built by adding the
// exponent to T's bits; T's rounding error (tail, relative) joins the
// polynomial exp(r) - 1 = r + r^2/2 + r^3/6 + r^4/24 + r^5/120 (Taylor: the
// next term is below 2^-60 on this interval), and the result is
// scale + scale * (tail + p) with one rounding. Arguments beyond +-708 (the
// result overflows or is subnormal) and NaN go to scalar exp. The body has
// no branch, so the vectorised loop and its scalar remainder give the same
// bits; compiled once per ISA level.
// ---------------------------------------------------------------------------

#define TFR_VM_EXP_BITS 7
#define TFR_VM_EXP_N (1 << TFR_VM_EXP_BITS)
// Bits of round(2^(j/N)) minus j << (52 - BITS), and (2^(j/N) - that) / that.
static uint64_t tfr_vm_exp_bits[TFR_VM_EXP_N];
static double tfr_vm_exp_tail[TFR_VM_EXP_N];
static pthread_once_t tfr_vm_exp_once = PTHREAD_ONCE_INIT;

static void tfr_vm_exp_table(void) {
  for (int j = 0; j < TFR_VM_EXP_N; j++) {
    // exp2l: x87 extended precision, 11 bits beyond a double.
    long double t = exp2l((long double)j / TFR_VM_EXP_N);
    double hi = (double)t;
    uint64_t b;
    memcpy(&b, &hi, sizeof b);
    tfr_vm_exp_bits[j] = b - ((uint64_t)j << (52 - TFR_VM_EXP_BITS));
    tfr_vm_exp_tail[j] = (double)((t - hi) / hi);
  }
}

#define TFR_VM_EXP_BLOCK 256
#define TFR_VM_EXP_ROUTINE(SUFFIX, ATTR)                                                \
  ATTR static void tfr_vm_exp_f64_##SUFFIX(int64_t n, const double *x, double *y) {     \
    pthread_once(&tfr_vm_exp_once, tfr_vm_exp_table);                                  \
    const double inv = 0x1.71547652b82fep0 * TFR_VM_EXP_N;  /* N / ln 2 */             \
    const double ln2hi = 0x1.62e42fefa39efp-1 / TFR_VM_EXP_N;                          \
    const double ln2lo = 0x1.abc9e3b39803fp-56 / TFR_VM_EXP_N;                         \
    const double shift = 0x1.8p52, c3 = 1.0 / 6, c4 = 1.0 / 24, c5 = 1.0 / 120;        \
    double xb[TFR_VM_EXP_BLOCK];  /* the block's arguments: y may be x */              \
    for (int64_t i0 = 0; i0 < n; i0 += TFR_VM_EXP_BLOCK) {                             \
      int m = n - i0 < TFR_VM_EXP_BLOCK ? (int)(n - i0) : TFR_VM_EXP_BLOCK;            \
      memcpy(xb, x + i0, (size_t)m * sizeof *xb);                                      \
      double *yb = y + i0;                                                             \
      _Pragma("omp simd") for (int i = 0; i < m; i++) {                                \
        double kd = xb[i] * inv + shift;                                               \
        uint64_t ki;                                                                   \
        memcpy(&ki, &kd, sizeof ki);                                                   \
        kd -= shift;                                                                   \
        double r = fma(-kd, ln2hi, xb[i]);                                             \
        r = fma(-kd, ln2lo, r);                                                        \
        uint64_t j = ki & (TFR_VM_EXP_N - 1);                                          \
        uint64_t sb = tfr_vm_exp_bits[j] + (ki << (52 - TFR_VM_EXP_BITS));             \
        double scale;                                                                  \
        memcpy(&scale, &sb, sizeof scale);                                             \
        double r2 = r * r;                                                             \
        double p = tfr_vm_exp_tail[j] + r + r2 * (0.5 + r * c3) + r2 * r2 * (c4 + r * c5); \
        yb[i] = fma(scale, p, scale);                                                  \
      }                                                                                \
      for (int i = 0; i < m; i++)                                                      \
        if (!(fabs(xb[i]) <= 708.0)) yb[i] = exp(xb[i]);                               \
    }                                                                                  \
  }
TFR_VM_EXP_ROUTINE(e, TFR_VM_AVX512_FN)
TFR_VM_EXP_ROUTINE(d, TFR_VM_AVX2_FN)

TFR_VM_F64_UNARY_AVX512(TFR_VM_F64_UNARY_E)
TFR_VM_F64_UNARY_AVX2(TFR_VM_F64_UNARY_D)
TFR_VM_F32_UNARY(TFR_VM_F32_UNARY_E)
TFR_VM_F32_UNARY(TFR_VM_F32_UNARY_D)
TFR_VM_F32_BINARY(TFR_VM_F32_BINARY_E)
TFR_VM_F32_BINARY(TFR_VM_F32_BINARY_D)

// Tables [level][op]; NULL (scalar libm) where nothing is adopted.
#define TFR_VM_ENTRY_E(f, OP) [OP] = tfr_vm_##f##_f64_e,
#define TFR_VM_ENTRY_D(f, OP) [OP] = tfr_vm_##f##_f64_d,
#define TFR_VM_ENTRY_E32(f, OP) [OP] = tfr_vm_##f##_f32_e,
#define TFR_VM_ENTRY_D32(f, OP) [OP] = tfr_vm_##f##_f32_d,

static const tfr_vm_unary_f64_fn tfr_vm_unary_f64_table[TFR_VM_LEVEL_COUNT][TFR_UNARY_OP_COUNT] = {
    [TFR_VM_AVX2] = {TFR_VM_F64_UNARY_AVX2(TFR_VM_ENTRY_D)[TFR_EXP] = tfr_vm_exp_f64_d},
    [TFR_VM_AVX512] = {TFR_VM_F64_UNARY_AVX512(TFR_VM_ENTRY_E)[TFR_EXP] = tfr_vm_exp_f64_e},
};
static const tfr_vm_unary_f32_fn tfr_vm_unary_f32_table[TFR_VM_LEVEL_COUNT][TFR_UNARY_OP_COUNT] = {
    [TFR_VM_AVX2] = {TFR_VM_F32_UNARY(TFR_VM_ENTRY_D32)},
    [TFR_VM_AVX512] = {TFR_VM_F32_UNARY(TFR_VM_ENTRY_E32)},
};
static const tfr_vm_binary_f64_fn tfr_vm_binary_f64_table[TFR_VM_LEVEL_COUNT][TFR_BINARY_OP_COUNT] = {
    [TFR_VM_AVX2] = {TFR_VM_F64_BINARY(TFR_VM_ENTRY_D)},
    [TFR_VM_AVX512] = {TFR_VM_F64_BINARY(TFR_VM_ENTRY_E)},
};
static const tfr_vm_binary_f32_fn tfr_vm_binary_f32_table[TFR_VM_LEVEL_COUNT][TFR_BINARY_OP_COUNT] = {
    [TFR_VM_AVX2] = {TFR_VM_F32_BINARY(TFR_VM_ENTRY_D32)},
    [TFR_VM_AVX512] = {TFR_VM_F32_BINARY(TFR_VM_ENTRY_E32)},
};

// The CPU's level. __builtin_cpu_supports reports a feature only when the OS
// also saves its registers (XCR0). The AVX-512 level asks for AVX512DQ too,
// and AVX2 for FMA: that is when libmvec's own dispatch (ifunc) picks the
// implementations measured above (without them it runs other code).
static tfr_vm_level tfr_vm_detect(void) {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq"))
    return TFR_VM_AVX512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return TFR_VM_AVX2;
  return TFR_VM_SCALAR;
}

#else  // !TFR_VM_LIBMVEC: no vector routines

static tfr_vm_level tfr_vm_detect(void) { return TFR_VM_SCALAR; }

#endif  // TFR_VM_LIBMVEC

tfr_vm_level tfr_vm_cpu_level(void) {
  // Detected once; threads racing on the first call store the same value.
  static atomic_int level = -1;
  int l = atomic_load_explicit(&level, memory_order_relaxed);
  if (l < 0) {
    l = (int)tfr_vm_detect();
    atomic_store_explicit(&level, l, memory_order_relaxed);
  }
  return (tfr_vm_level)l;
}

// Entry of `table` for (level, op), with the checks every getter makes.
#ifdef TFR_VM_LIBMVEC
#define TFR_VM_LOOKUP(table, count, level, op)                                  \
  ((unsigned)(level) < TFR_VM_LEVEL_COUNT && (level) <= tfr_vm_cpu_level() &&   \
           (unsigned)(op) < (count)                                             \
       ? table[level][op]                                                       \
       : NULL)
#else
#define TFR_VM_LOOKUP(table, count, level, op) NULL
#endif

tfr_vm_unary_f32_fn tfr_vm_unary_f32_at(tfr_vm_level level, tfr_unary_op op) {
  return TFR_VM_LOOKUP(tfr_vm_unary_f32_table, TFR_UNARY_OP_COUNT, level, op);
}
tfr_vm_unary_f64_fn tfr_vm_unary_f64_at(tfr_vm_level level, tfr_unary_op op) {
  return TFR_VM_LOOKUP(tfr_vm_unary_f64_table, TFR_UNARY_OP_COUNT, level, op);
}
tfr_vm_binary_f32_fn tfr_vm_binary_f32_at(tfr_vm_level level, tfr_binary_op op) {
  return TFR_VM_LOOKUP(tfr_vm_binary_f32_table, TFR_BINARY_OP_COUNT, level, op);
}
tfr_vm_binary_f64_fn tfr_vm_binary_f64_at(tfr_vm_level level, tfr_binary_op op) {
  return TFR_VM_LOOKUP(tfr_vm_binary_f64_table, TFR_BINARY_OP_COUNT, level, op);
}

tfr_vm_unary_f32_fn tfr_vm_unary_f32(tfr_unary_op op) {
  return tfr_vm_unary_f32_at(tfr_vm_cpu_level(), op);
}
tfr_vm_unary_f64_fn tfr_vm_unary_f64(tfr_unary_op op) {
  return tfr_vm_unary_f64_at(tfr_vm_cpu_level(), op);
}
tfr_vm_binary_f32_fn tfr_vm_binary_f32(tfr_binary_op op) {
  return tfr_vm_binary_f32_at(tfr_vm_cpu_level(), op);
}
tfr_vm_binary_f64_fn tfr_vm_binary_f64(tfr_binary_op op) {
  return tfr_vm_binary_f64_at(tfr_vm_cpu_level(), op);
}
