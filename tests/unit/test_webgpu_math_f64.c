// The f64 analytic functions of the webgpu backend
// (src/webgpu/kernels/common/exp_f64.wgsl, math_f64.wgsl, math_f64_erf.wgsl,
// math_f64_pow.wgsl; c128 exp and log of math_c128.wgsl) through the public elementwise
// ops, against glibc's long double functions rounded to double (a reference
// within a small fraction of an ulp of the correctly rounded result).
//
// Per function a few thousand inputs: special values (NaN, +-inf, +-0,
// subnormals, the overflow and underflow thresholds, 1 +- tiny, tiny x),
// random bit patterns over the whole range, and dense ranges where the
// function's reduction changes. Every finite result must be within
// F64M_MAX_ULP of the reference; NaN must match NaN (atan2, pow and the
// c128 functions: bit for bit glibc's double function), infinities and the
// sign of a zero exactly. The measured maximum is printed with the time of
// the first call (the kernel's compilation included), and that of the f64
// divide kernel for comparison.
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "support.h"

#define F64M_MAX_ULP 1
#define F64M_NRANDOM 1500  // random bit patterns per function
#define F64M_NDENSE 1500   // inputs on the function's dense ranges

static double f64m_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

// The cpu's logistic (src/cpu/scalar_math.h) in long double.
static long double f64m_logisticl(long double x) {
  if (x >= 0) return 1.0L / (1.0L + expl(-x));
  long double e = expl(x);
  return e / (1.0L + e);
}

typedef struct f64m_fn {
  const char *name;
  tfr_unary_op op;
  long double (*ref)(long double);
  double dense_lo[3], dense_hi[3];  // three dense ranges
} f64m_fn;

static const f64m_fn f64m_fns[] = {
    {"exp", TFR_EXP, expl, {-1.0, -745.2, 700.0}, {1.0, -700.0, 709.8}},
    {"expm1", TFR_EXPM1, expm1l, {-1e-5, 0.3466, -40.0}, {1e-5, 0.40, 40.0}},
    {"log", TFR_LOG, logl, {0.5, 1.0 - 1e-6, 1e-300}, {2.0, 1.0 + 1e-6, 1e300}},
    {"log1p", TFR_LOG1P, log1pl, {-1e-5, -1.0, -0.3}, {1e-5, 1.0, 0.5}},
    {"tanh", TFR_TANH, tanhl, {-0.6, -3.0, 0.5}, {0.6, 3.0, 23.0}},
    {"sinh", TFR_SINH, sinhl, {-1.1, -30.0, 700.0}, {1.1, 30.0, 711.0}},
    {"cosh", TFR_COSH, coshl, {-1.1, -30.0, 700.0}, {1.1, 30.0, 711.0}},
    {"logistic", TFR_LOGISTIC, f64m_logisticl, {-2.0, -45.0, -750.0}, {2.0, 45.0, -700.0}},
    {"cbrt", TFR_CBRT, cbrtl, {-10.0, 0.999, 1e-310}, {10.0, 8.001, 1e-300}},
    {"asin", TFR_ASIN, asinl, {-0.5, 0.69, 0.999999}, {0.5, 0.73, 1.0}},
    {"acos", TFR_ACOS, acosl, {-1.0, 0.69, -0.73}, {-0.999999, 0.73, -0.69}},
    {"atan", TFR_ATAN, atanl, {-0.3, 0.9, 7.0}, {0.3, 1.2, 9.0}},
    {"asinh", TFR_ASINH, asinhl, {-1.0, 0.3, 2.6e8}, {1.0, 3.0, 2.8e8}},
    {"acosh", TFR_ACOSH, acoshl, {1.0, 1.0, 2.6e8}, {1.000001, 30.0, 2.8e8}},
    {"atanh", TFR_ATANH, atanhl, {-0.5, 0.3, 0.999999}, {0.5, 0.37, 1.0}},
    {"erf", TFR_ERF, erfl, {-1.5, 0.95, 5.5}, {1.5, 1.05, 6.2}},
    {"erfc", TFR_ERFC, erfcl, {-6.5, 0.45, 25.0}, {0.6, 3.0, 28.5}},
    {"sin", TFR_SIN, sinl, {-4.0, 1e6, -1e22}, {4.0, 1e6 + 50.0, -1.0001e22}},
    {"cos", TFR_COS, cosl, {-4.0, 1e6, 1e300}, {4.0, 1e6 + 50.0, 1.0001e300}},
    {"tan", TFR_TAN, tanl, {-1.6, 1e6, 1e15}, {1.6, 1e6 + 50.0, 1e15 + 50.0}},
};
#define F64M_NFNS ((int)(sizeof f64m_fns / sizeof f64m_fns[0]))

static const uint64_t f64m_specials[] = {
    UINT64_C(0x7ff8000000000000), UINT64_C(0xfff8000000000000), UINT64_C(0x7ff0000000000001),
    UINT64_C(0x7ff8000000000123), UINT64_C(0xfff8000000000456),  // NaNs with payloads
    UINT64_C(0xfff0000000000789),                                // a negative signalling one
    UINT64_C(0x7ff0000000000000), UINT64_C(0xfff0000000000000), UINT64_C(0x0000000000000000),
    UINT64_C(0x8000000000000000), UINT64_C(0x0000000000000001), UINT64_C(0x8000000000000001),
    UINT64_C(0x000fffffffffffff), UINT64_C(0x0010000000000000), UINT64_C(0x7fefffffffffffff),
    UINT64_C(0xffefffffffffffff), UINT64_C(0x3ff0000000000000), UINT64_C(0xbff0000000000000),
    UINT64_C(0x3fefffffffffffff), UINT64_C(0x3ff0000000000001), UINT64_C(0xbfefffffffffffff),
    UINT64_C(0xbff0000000000001), UINT64_C(0x3c90000000000000), UINT64_C(0xbc90000000000000),
    UINT64_C(0x3ca0000000000000), UINT64_C(0x3e50000000000000), UINT64_C(0xbe50000000000000),
    UINT64_C(0x40862e42fefa39ef),  // 709.782712893384: exp's largest finite
    UINT64_C(0x40862e42fefa39f0),  // overflows
    UINT64_C(0xc086232bdd7abcd2),  // -708.396...: exp's smallest normal result
    UINT64_C(0xc0874385446d71c3),  // -745.1332191019411: exp's smallest subnormal
    UINT64_C(0xc0874385446d71c4),  // rounds to 0
    UINT64_C(0xc087500000000000), UINT64_C(0xc044000000000000),  // -746, -40
    UINT64_C(0xc043800000000000), UINT64_C(0x3fe62e42fefa39ef),  // ln2
    UINT64_C(0x3fd62e42fefa39ef), UINT64_C(0xbfd62e42fefa39ef),  // +-ln2/2
    UINT64_C(0x3ff6a09e667f3bcd), UINT64_C(0x3fe6a09e667f3bcd),  // sqrt2, sqrt(1/2)
    UINT64_C(0x3fda827999fcef34), UINT64_C(0xbfd2bec333018866),  // sqrt2 - 1, sqrt(1/2) - 1
    UINT64_C(0x4000000000000000), UINT64_C(0x4340000000000000), UINT64_C(0x4330000000000001),
    UINT64_C(0xbfe0000000000000), UINT64_C(0xbfeffffffffffffe), UINT64_C(0x3fe0000000000000),
    UINT64_C(0x4024000000000000), UINT64_C(0xc024000000000000),
    UINT64_C(0x3fe921fb54442d18), UINT64_C(0x3fe921fb54442d19),  // pi/4 and above
    UINT64_C(0x3ff921fb54442d18), UINT64_C(0x400921fb54442d18),  // pi/2, pi
    UINT64_C(0x401921fb54442d18), UINT64_C(0xc00921fb54442d18),  // 2 pi, -pi
    UINT64_C(0x3e40000000000000), UINT64_C(0x3e3fffffffffffff),  // 2^-27 and below
    UINT64_C(0x7506ac5b262ca1ff),  // 6381956970095103 2^797: the double nearest a multiple of pi/2
    UINT64_C(0x7fe921fb54442d18), UINT64_C(0x4330000000000000),  // pi/4 2^1023, 2^52
    UINT64_C(0x4018000000000000), UINT64_C(0x4017ffffffffffff),  // 6 and below (erf's +-1)
    UINT64_C(0xc018000000000000), UINT64_C(0xc017ffffffffffff),
    UINT64_C(0x403c000000000000), UINT64_C(0x403bffffffffffff),  // 28 and below
    UINT64_C(0x403b63aeeca30bd6), UINT64_C(0x403b63aeeca30bd5),  // erfc's last nonzero
    UINT64_C(0x3fdfffffffffffff), UINT64_C(0xbfdfffffffffffff),  // below +-1/2
    UINT64_C(0x3fe8000000000000), UINT64_C(0x3ffc000000000000),  // 0.75, 1.75: interval edges
    UINT64_C(0x4039ffffffffffff), UINT64_C(0x4026000000000000),  // below 26, 11
};
#define F64M_NSPECIAL ((int)(sizeof f64m_specials / sizeof f64m_specials[0]))

// The reference, rounded once from long double (64-bit significand) to
// double.
static double f64m_ref(const f64m_fn *f, double x) { return (double)f->ref((long double)x); }

// One finite or special result against the reference: within F64M_MAX_ULP,
// NaN for NaN, zeros bit for bit, and an infinity only for an infinity or
// within F64M_MAX_ULP of it (the largest finite double). Returns the ulp
// distance (0 for the exact cases) or -1 when wrong.
static int64_t f64m_compare_within(double want, double got, int64_t bound) {
  if (isnan(want) || isnan(got)) return isnan(want) && isnan(got) ? 0 : -1;
  if (want == 0 || got == 0) return tfr_test_f64_bits(want) == tfr_test_f64_bits(got) ? 0 : -1;
  int64_t u = tfr_test_ulp_f64(want, got);
  return u <= bound ? u : -1;
}

static int64_t f64m_compare(double want, double got) {
  return f64m_compare_within(want, got, F64M_MAX_ULP);
}

// Runs a unary op (b NULL) or a binary one on n elements of dtype dt (a and
// b hold their f64 parts) on webgpu; returns the downloaded result (for the
// caller to release) and the call's time with compilation in *secs.
static tfr_tensor *f64m_device(tfr_dtype dt, int op, const double *a, const double *b, int64_t n,
                               double *secs) {
  tfr_tensor *ha = tfr_test_tensor(dt, 1, &n, a);
  tfr_tensor *hb = b ? tfr_test_tensor(dt, 1, &n, b) : NULL;
  tfr_session *s = tfr_test_begin(tfr_test_gpu);
  tfr_tensor *da = tfr_test_upload(s, ha), *db = hb ? tfr_test_upload(s, hb) : NULL, *dr = NULL;
  double t0 = f64m_now();
  if (db) TFR_ASSERT_OK(tfr_binary(s, (tfr_binary_op)op, da, db, &dr));
  else TFR_ASSERT_OK(tfr_unary(s, (tfr_unary_op)op, da, &dr));
  tfr_tensor *hr = tfr_test_download(s, dr);
  *secs = f64m_now() - t0;
  tfr_test_end(s);
  tfr_tensor_release(ha);
  tfr_tensor_release(hb);
  tfr_tensor_release(da);
  tfr_tensor_release(db);
  tfr_tensor_release(dr);
  return hr;
}

// Checks one function on n inputs; returns its maximum ulp distance over
// finite results.
// With `strided`, the function also runs on a reversed view of the inputs
// (the strided kernel), which must give the same bits.
static int64_t f64m_check(const f64m_fn *f, const double *x, int64_t n, bool strided,
                          int *failures) {
  tfr_tensor *hx = tfr_test_tensor(TFR_F64, 1, &n, x), *dy = NULL, *dr = NULL, *hr = NULL;
  tfr_session *s = tfr_test_begin(tfr_test_gpu);
  tfr_tensor *dx = tfr_test_upload(s, hx);
  double t0 = f64m_now();
  TFR_ASSERT_OK(tfr_unary(s, f->op, dx, &dy));
  tfr_tensor *hy = tfr_test_download(s, dy);
  double secs = f64m_now() - t0;
  if (strided) {
    tfr_tensor *rev = NULL;
    const int64_t dims[1] = {0};
    TFR_ASSERT_OK(tfr_tensor_view_reverse(dx, 1, dims, &rev));
    TFR_ASSERT_OK(tfr_unary(s, f->op, rev, &dr));
    hr = tfr_test_download(s, dr);
    tfr_tensor_release(rev);
  }
  tfr_test_end(s);
  void *yp = NULL;
  TFR_ASSERT_OK(tfr_tensor_host_data(hy, &yp));
  const double *y = yp;
  if (hr) {
    void *rp = NULL;
    TFR_ASSERT_OK(tfr_tensor_host_data(hr, &rp));
    const double *yr = rp;
    for (int64_t i = 0; i < n; i++)
      if (tfr_test_f64_bits(yr[n - 1 - i]) != tfr_test_f64_bits(y[i]) && !(isnan(y[i]) && isnan(yr[n - 1 - i])) &&
          (*failures)++ < 20)
        print_error("MISMATCH %s, reversed view: element %lld: 0x%016llx, compact 0x%016llx\n",
                    f->name, (long long)i, (unsigned long long)tfr_test_f64_bits(yr[n - 1 - i]),
                    (unsigned long long)tfr_test_f64_bits(y[i]));
  }
  int64_t max_ulp = 0, off = 0;
  double worst = 0;
  for (int64_t i = 0; i < n; i++) {
    double want = f64m_ref(f, x[i]), got = y[i];
    int64_t u = f64m_compare(want, got);
    bool ok = u >= 0;
    off += u > 0;
    if (!isnan(want) && !isinf(want) && u > max_ulp) {
      max_ulp = u;
      worst = x[i];
    }
    if (!ok && (*failures)++ < 20)
      print_error("MISMATCH %s(%.17g = 0x%016llx): got %.17g (0x%016llx), want %.17g (0x%016llx)\n",
                  f->name, x[i], (unsigned long long)tfr_test_f64_bits(x[i]), got,
                  (unsigned long long)tfr_test_f64_bits(got), want, (unsigned long long)tfr_test_f64_bits(want));
  }
  printf("f64 %-8s %5lld inputs: max %lld ulp (at %.17g), %lld not correctly rounded, %.1f s "
         "with compilation\n",
         f->name, (long long)n, (long long)max_ulp, worst, (long long)off, secs);
  tfr_tensor_release(hx);
  tfr_tensor_release(hy);
  tfr_tensor_release(dx);
  tfr_tensor_release(dy);
  tfr_tensor_release(hr);
  tfr_tensor_release(dr);
  return max_ulp;
}

// The f64 divide kernel, the yardstick of the functions' compile times
// (printed only).
static void f64m_time_divide(const double *x, int64_t n) {
  tfr_tensor *hx = tfr_test_tensor(TFR_F64, 1, &n, x), *dy = NULL;
  tfr_session *s = tfr_test_begin(tfr_test_gpu);
  tfr_tensor *dx = tfr_test_upload(s, hx);
  double t0 = f64m_now();
  TFR_ASSERT_OK(tfr_divide(s, dx, dx, &dy));
  tfr_tensor *hy = tfr_test_download(s, dy);
  tfr_test_end(s);
  printf("f64 divide   %5lld inputs: %.1f s with compilation (the baseline)\n", (long long)n,
         f64m_now() - t0);
  tfr_tensor_release(hx);
  tfr_tensor_release(hy);
  tfr_tensor_release(dx);
  tfr_tensor_release(dy);
}

// A binary function on doubles: the long double reference rounded to double,
// or the C library's double function (whose NaN bits the cpu returns).
typedef double (*f64m_ref2)(double, double);

static double f64m_atan2_ref(double y, double x) {
  return (double)atan2l((long double)y, (long double)x);
}

// pow's special values are the cpu's (glibc's pow: pow(sNaN, 0) is NaN,
// where powl sees the NaN quieted by the conversion and gives 1).
static double f64m_pow_ref(double x, double y) {
  if (isnan(x) || isnan(y)) return pow(x, y);
  return (double)powl((long double)x, (long double)y);
}

// Runs `op` on the n pairs (a[k], b[k]) and compares each result with
// ref(a[k], b[k]) (f64m_compare), a NaN result bit for bit with cpu(a[k],
// b[k]) (the C library's double function, what the cpu backend returns:
// sign and payload); prints the maximum ulp distance and the time of the
// call with compilation, frees a and b (malloc'ed by the caller), and fails
// the test on any mismatch.
static void f64m_check_binary(const char *name, tfr_binary_op op, f64m_ref2 ref, f64m_ref2 cpu,
                              double *a, double *b, int64_t n) {
  double secs = 0;
  tfr_tensor *hr = f64m_device(TFR_F64, (int)op, a, b, n, &secs);
  void *rp = NULL;
  TFR_ASSERT_OK(tfr_tensor_host_data(hr, &rp));
  const double *got = rp;
  int failures = 0;
  int64_t max_ulp = 0, off = 0;
  for (int64_t k = 0; k < n; k++) {
    double want = ref(a[k], b[k]);
    int64_t u = f64m_compare(want, got[k]);
    if (u == 0 && isnan(want)) {
      want = cpu(a[k], b[k]);
      if (tfr_test_f64_bits(want) != tfr_test_f64_bits(got[k])) u = -1;
    }
    off += u != 0;
    if (u > max_ulp) max_ulp = u;
    if (u < 0 && failures++ < 20)
      print_error("MISMATCH %s(%.17g, %.17g): got %.17g (0x%016llx), want %.17g (0x%016llx)\n",
                  name, a[k], b[k], got[k], (unsigned long long)tfr_test_f64_bits(got[k]), want,
                  (unsigned long long)tfr_test_f64_bits(want));
  }
  printf("f64 %-8s %5lld inputs: max %lld ulp, %lld not correctly rounded, %.1f s with "
         "compilation\n",
         name, (long long)n, (long long)max_ulp, (long long)off, secs);
  tfr_tensor_release(hr);
  free(a);
  free(b);
  assert_int_equal(failures, 0);
}

// Fills (a[i * stride], b[i * stride]) with every pair of the special values,
// then F64M_NRANDOM random bit patterns, every other pair with exponents
// within 2^+-(span_a / 2) and 2^+-(span_b / 2); returns how many pairs.
static int64_t f64m_fill_pairs(double *a, double *b, int64_t stride, uint64_t seed, int span_a,
                               int span_b) {
  int64_t i = 0;
  for (int64_t j = 0; j < F64M_NSPECIAL; j++)
    for (int64_t k = 0; k < F64M_NSPECIAL; k++, i++) {
      a[i * stride] = tfr_test_f64_of(f64m_specials[j]);
      b[i * stride] = tfr_test_f64_of(f64m_specials[k]);
    }
  uint64_t st = seed;
  for (int k = 0; k < F64M_NRANDOM; k++, i++) {
    uint64_t ra = tfr_test_rand_u64(&st), rb = tfr_test_rand_u64(&st);
    if (k & 1) {
      int e = 1023 + (int)(tfr_test_rand_u64(&st) % (uint64_t)span_a) - span_a / 2;
      ra = (ra & UINT64_C(0x800fffffffffffff)) | ((uint64_t)e << 52);
      e = 1023 + (int)(tfr_test_rand_u64(&st) % (uint64_t)span_b) - span_b / 2;
      rb = (rb & UINT64_C(0x800fffffffffffff)) | ((uint64_t)e << 52);
    }
    a[i * stride] = tfr_test_f64_of(ra);
    b[i * stride] = tfr_test_f64_of(rb);
  }
  return i;
}

// atan2(y, x) on every pair of the special values (signed zeros,
// infinities, NaN, subnormals, the extremes: C99 Annex F's cases), random bit
// patterns of both (exponents half raw, half within 2^+-40 of each other),
// and pairs near the breakpoints j/8 of y/x, against atan2l.
static void test_atan2(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  const int64_t ns = F64M_NSPECIAL, n = ns * ns + F64M_NRANDOM + F64M_NDENSE;
  double *y = malloc((size_t)n * sizeof *y), *x = malloc((size_t)n * sizeof *x);
  assert_true(y && x);
  int64_t i = f64m_fill_pairs(y, x, 1, 0xa7a2, 80, 80);
  uint64_t st = 0xa7a3;
  for (int k = 0; k < F64M_NDENSE; k++, i++) {
    // y / x within 1/16 of j/8 (the reduction's boundaries), any signs
    double j = (double)(k % 9), r = j / 8 + tfr_test_rand_uniform(&st, -0.07, 0.07);
    double xs = tfr_test_rand_uniform(&st, 0.5, 4.0);
    x[i] = (k & 1) ? -xs : xs;
    y[i] = ((k & 2) ? -r : r) * xs;
    if (k & 4) {  // |y| > |x|: the swapped half
      double t = x[i];
      x[i] = y[i];
      y[i] = t;
    }
  }
  f64m_check_binary("atan2", TFR_ATAN2, f64m_atan2_ref, atan2, y, x, n);
}

// pow(x, y) on every pair of the special values (C99 Annex F's cases:
// signed zeros, infinities, NaN (signalling too), +-1, integers odd and
// even, subnormals), random bit patterns (x raw or near 1, y within 2^+-20,
// rounded to an integer for a negative x),
// and dense sets: results near overflow, near and below the normal range,
// x within 2^-40 of 1 with y up to 2^50 (log x near 0 must keep its relative
// accuracy), negative x with integer y, x on every 1/256 step of [1/2, 3/2]
// (the table's grid points and midpoints), against glibc's powl.
static void test_pow(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  const int64_t ns = F64M_NSPECIAL, n = ns * ns + F64M_NRANDOM + 3 * F64M_NDENSE;
  double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
  assert_true(y && x);
  int64_t i = 0;
  for (int64_t a = 0; a < ns; a++)
    for (int64_t b = 0; b < ns; b++, i++) {
      x[i] = tfr_test_f64_of(f64m_specials[a]);
      y[i] = tfr_test_f64_of(f64m_specials[b]);
    }
  uint64_t st = 0x90e5;
  for (int k = 0; k < F64M_NRANDOM; k++, i++) {
    uint64_t rx = tfr_test_rand_u64(&st), ry = tfr_test_rand_u64(&st);
    if (k & 1)  // x within 2^-1 .. 2^1 of 1
      rx = (rx & UINT64_C(0x800fffffffffffff)) | ((uint64_t)(1022 + (k & 2) / 2) << 52);
    int e = 1023 + (int)(tfr_test_rand_u64(&st) % 40) - 20;
    ry = (ry & UINT64_C(0x800fffffffffffff)) | ((uint64_t)e << 52);
    x[i] = tfr_test_f64_of(rx);
    y[i] = tfr_test_f64_of(ry);
    if (rx >> 63) {  // a negative x with a non-integer y is only NaN: a nonzero integer y
      double t = rint(y[i]);
      y[i] = t != 0 ? t : copysign((double)(1 + (ry >> 40) % 64), y[i]);
    }
  }
  for (int k = 0; k < 3 * F64M_NDENSE; k++, i++) {
    double xs = tfr_test_rand_uniform(&st, 1.01, 100.0), l = log(xs);
    switch (k % 6) {
      case 0:  // near overflow
        x[i] = xs;
        y[i] = 709.78 / l * tfr_test_rand_uniform(&st, 0.999, 1.001);
        break;
      case 1:  // near the normal range's end and in the subnormals
        x[i] = xs;
        y[i] = tfr_test_rand_uniform(&st, -745.2, -700.0) / l;
        break;
      case 2: {  // x near 1, y large: y log x in about [-700, 700]
        double eps = ldexp(tfr_test_rand_uniform(&st, -1.0, 1.0), -(int)(k % 40) - 1);
        x[i] = 1.0 + eps;
        y[i] = tfr_test_rand_uniform(&st, -700.0, 700.0) / (eps != 0 ? eps : 1.0);
        break;
      }
      case 3:  // negative x, integer y
        x[i] = -tfr_test_rand_uniform(&st, 0.3, 3.0);
        y[i] = floor(tfr_test_rand_uniform(&st, -300.0, 300.0));
        break;
      case 4:  // every grid point and midpoint of the table
        x[i] = (64.0 + (double)((k / 6) % 257) / 2) / 128;
        y[i] = tfr_test_rand_uniform(&st, -50.0, 50.0);
        break;
      default:  // moderate x and y
        x[i] = ldexp(tfr_test_rand_uniform(&st, 0.5, 1.0), (int)(k % 200) - 100);
        y[i] = tfr_test_rand_uniform(&st, -5.0, 5.0);
        break;
    }
  }
  f64m_check_binary("pow", TFR_POWER, f64m_pow_ref, pow, x, y, n);
}

// A c128 function against glibc's long double one, each part rounded to
// double: every part within F64M_C128_MAX_ULP (the f64 functions' 1 ulp and
// the roundings that combine them), zeros and infinities with their signs
// (C11 Annex G), a NaN part bit for bit the one of cpu (glibc's double
// function, the cpu backend's: sign and payload). z holds n values as (re,
// im) pairs; frees z and fails the test on any mismatch.
#define F64M_C128_MAX_ULP 3
typedef long double complex (*f64m_cref)(long double complex);
typedef double complex (*f64m_cpu_c128)(double complex);

static void f64m_check_c128(const char *name, tfr_unary_op op, f64m_cref ref, f64m_cpu_c128 cpu,
                            double *z, int64_t n) {
  double secs = 0;
  tfr_tensor *hr = f64m_device(TFR_C128, (int)op, z, NULL, n, &secs);
  void *rp = NULL;
  TFR_ASSERT_OK(tfr_tensor_host_data(hr, &rp));
  const double *got = rp;
  int failures = 0;
  int64_t max_ulp = 0, off = 0;
  for (int64_t k = 0; k < n; k++) {
    long double complex w = ref(CMPLXL((long double)z[2 * k], (long double)z[2 * k + 1]));
    double want[2] = {(double)creall(w), (double)cimagl(w)};
    for (int p = 0; p < 2; p++) {
      double g = got[2 * k + p];
      int64_t u = f64m_compare_within(want[p], g, F64M_C128_MAX_ULP);
      if (u == 0 && isnan(want[p])) {
        double complex c = cpu(CMPLX(z[2 * k], z[2 * k + 1]));
        want[p] = p == 0 ? creal(c) : cimag(c);
        if (tfr_test_f64_bits(want[p]) != tfr_test_f64_bits(g)) u = -1;
      }
      off += u != 0;
      if (u > max_ulp) max_ulp = u;
      if (u < 0 && failures++ < 20)
        print_error("MISMATCH %s(%.17g + %.17gi) part %d: got %.17g (0x%016llx), want %.17g "
                    "(0x%016llx)\n",
                    name, z[2 * k], z[2 * k + 1], p, g, (unsigned long long)tfr_test_f64_bits(g),
                    want[p], (unsigned long long)tfr_test_f64_bits(want[p]));
    }
  }
  printf("c128 %-7s %5lld inputs: max %lld ulp per part, %lld parts not correctly rounded, "
         "%.1f s with compilation\n",
         name, (long long)n, (long long)max_ulp, (long long)off, secs);
  tfr_tensor_release(hr);
  free(z);
  assert_int_equal(failures, 0);
}

// n c128 values (re, im) for the test of a c128 function: every pair of the
// special values and random ones (f64m_fill_pairs), the rest, from *filled
// on, for the caller's dense sets. The caller frees the array.
static double *f64m_c128_inputs(int64_t n, uint64_t seed, int span_re, int span_im,
                                int64_t *filled) {
  double *z = malloc((size_t)n * 2 * sizeof *z);
  assert_non_null(z);
  *filled = f64m_fill_pairs(z, z + 1, 2, seed, span_re, span_im);
  return z;
}

// c128 exp (common/math_c128.wgsl) against cexpl. Inputs: every pair of the
// special values as (re, im), random bit patterns (exponents of re within
// 2^+-10, of im within 2^+-40, half of them), and dense sets: re over [-760,
// 1460] (underflow, subnormal parts, overflow, the scaling past 709.78), im
// near multiples of pi/2 (a part near 0) and large im.
static void test_exp_c128(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  const int64_t ns = F64M_NSPECIAL, n = ns * ns + F64M_NRANDOM + F64M_NDENSE;
  int64_t i = 0;
  double *z = f64m_c128_inputs(n, 0xc128e, 20, 80, &i);
  uint64_t st = 0xc128f;
  for (int k = 0; k < F64M_NDENSE; k++, i++) {
    z[2 * i] = tfr_test_rand_uniform(&st, -760.0, 1460.0);
    double q = (double)(k % 13 - 6) * 1.5707963267948966;
    z[2 * i + 1] = (k & 1) ? q + tfr_test_rand_uniform(&st, -1e-6, 1e-6)
                           : tfr_test_rand_uniform(&st, -1e7, 1e7);
  }
  f64m_check_c128("exp", TFR_EXP, cexpl, cexp, z, n);
}

// c128 log against clogl. Inputs: every pair of the special values, random
// bit patterns (half with exponents within 2^+-40), and dense sets: |z|
// within 2^-20 .. 2^-52 of 1 in every direction (log|z| near 0), parts
// beyond 2^+-500 (the scaled path) and near the axes.
static void test_log_c128(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  const int64_t ns = F64M_NSPECIAL, n = ns * ns + F64M_NRANDOM + F64M_NDENSE;
  int64_t i = 0;
  double *z = f64m_c128_inputs(n, 0x10c128, 80, 80, &i);
  uint64_t st = 0x10c129;
  for (int k = 0; k < F64M_NDENSE; k++, i++) {
    double t = tfr_test_rand_uniform(&st, -3.2, 3.2);
    double r = 1.0 + ldexp(tfr_test_rand_uniform(&st, -1.0, 1.0), -20 - (k % 33));
    switch (k % 3) {
      case 0:  // |z| near 1
        z[2 * i] = r * cos(t);
        z[2 * i + 1] = r * sin(t);
        break;
      case 1:  // the scaled path: |z| beyond 2^+-500
        z[2 * i] = ldexp(cos(t), (k & 4) ? 900 : -1000);
        z[2 * i + 1] = ldexp(sin(t), (k & 4) ? 900 : -1000);
        break;
      default:  // near the real axis, either side
        z[2 * i] = r * ((k & 8) ? -1.0 : 1.0);
        z[2 * i + 1] = ldexp(t, -30 - (k % 20));
        break;
    }
  }
  f64m_check_c128("log", TFR_LOG, clogl, clog, z, n);
}

static void test_functions(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  const int64_t n = F64M_NSPECIAL + F64M_NRANDOM + F64M_NDENSE;
  double *x = malloc((size_t)n * sizeof *x);
  assert_non_null(x);
  int failures = 0;
  for (int fi = 0; fi < F64M_NFNS; fi++) {
    const f64m_fn *f = &f64m_fns[fi];
    uint64_t st = 0x5eed + (uint64_t)fi;
    int64_t i = 0;
    for (int k = 0; k < F64M_NSPECIAL; k++) x[i++] = tfr_test_f64_of(f64m_specials[k]);
    for (int k = 0; k < F64M_NRANDOM; k++) {
      uint64_t r = tfr_test_rand_u64(&st);
      // half raw patterns, half with an exponent near the interesting range
      if (k & 1) {
        int e = 1023 + (int)(tfr_test_rand_u64(&st) % 80) - 60;
        r = (r & UINT64_C(0x800fffffffffffff)) | ((uint64_t)e << 52);
      }
      x[i++] = tfr_test_f64_of(r);
    }
    for (int k = 0; k < F64M_NDENSE; k++) {
      int d = k % 3;
      x[i++] = tfr_test_rand_uniform(&st, f->dense_lo[d], f->dense_hi[d]);
    }
    if (fi == 0) f64m_time_divide(x, n);
    // the strided kernel for one function (test_backend_ops runs the compact
    // one only on f64's functions)
    int64_t m = f64m_check(f, x, n, fi == F64M_NFNS - 1, &failures);
    assert_true(m <= F64M_MAX_ULP || failures > 0);
  }
  free(x);
  assert_int_equal(failures, 0);
}

// exp (common/exp_f64.wgsl, fixed-point) on 2^20 inputs where its
// reduction x = k ln2/256 + r is at its edges: x near the ties of k's
// rounding (k from an f32 copy of x may round either way), x just past a
// tie with the bits an f32 copy drops all ones (k furthest from x 256/ln2,
// |r| at its largest), r near 0, every table entry, the
// subnormal results, the neighbours of each branch's threshold (|x| = 2^-60,
// 709.78, -746), tiny and huge magnitudes of both signs.
static void test_exp_dense(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  const int64_t n = INT64_C(1) << 20;
  double *x = malloc((size_t)n * sizeof *x);
  assert_non_null(x);
  const double step = 0.69314718055994530942 / 256;
  const double edges[] = {0x1p-60, 0x1.0000000000001p-60, 0x1.fffffffffffffp-61, 0x1p-53,
                          0x1p-54, 709.782712893384, 709.78271289338409, 709.78271289338388,
                          -746.0, -745.99999999999989, -746.00000000000011,
                          -745.13321910194111, -745.13321910194122, -708.39641853226408,
                          -708.39641853226419, 0x1p-7, 0x1.0p-9, 1.0, -1.0, 0.5};
  uint64_t st = 0xe4b;
  int64_t i = 0;
  for (size_t k = 0; k < sizeof edges / sizeof edges[0]; k++) {
    x[i++] = edges[k];
    x[i++] = -edges[k];
  }
  while (i < n) {
    uint64_t r = tfr_test_rand_u64(&st);
    double v;
    switch (i % 7) {
      case 0:  // the ties of k's rounding, some ulps either side
      case 1: {
        double j = (double)((int64_t)(r % 550000) - 275000) + 0.5;
        v = j * step;
        int64_t d = (int64_t)((r >> 40) % 65) - 32;
        v = tfr_test_f64_of(tfr_test_f64_bits(v) + (uint64_t)d);
        break;
      }
      case 2: {  // r near 0: the nearest doubles to k ln2/256
        double j = (double)((int64_t)(r % 550000) - 275000);
        v = tfr_test_f64_of(tfr_test_f64_bits(j * step) + (r >> 60) - 8);
        break;
      }
      case 3:  // subnormal and near-subnormal results
        v = tfr_test_rand_uniform(&st, -746.0, -700.0);
        break;
      case 4:  // log-uniform magnitudes 2^-62 .. 2^9.5, both signs
        v = ldexp(1.0 + (double)(r >> 12) * 0x1p-52, (int)((r >> 2) % 72) - 62);
        if (r & 1) v = -v;
        break;
      case 5: {  // |x| 256/ln2 up to 0.07 past a tie, its low 29 bits set
        double j = (double)((int64_t)(r % 550000) - 275000);
        double frac = 0.5 + (double)((r >> 40) % 1000) * 0.00007;
        v = (j + (j < 0 ? -frac : frac)) * step;
        v = tfr_test_f64_of(tfr_test_f64_bits(v) | 0x1fffffffu);
        break;
      }
      default:
        v = tfr_test_rand_uniform(&st, -746.0, 709.8);
        break;
    }
    x[i++] = v;
  }
  int failures = 0;
  int64_t m = f64m_check(&f64m_fns[0], x, n, true, &failures);
  free(x);
  assert_int_equal(failures, 0);
  assert_true(m <= F64M_MAX_ULP);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_functions, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_exp_dense, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_atan2, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_pow, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_exp_c128, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_log_c128, tfr_test_teardown_session),
  };
  return TFR_TEST_RUN_WEBGPU(tests);
}
