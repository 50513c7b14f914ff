// The cpu backend's special functions (src/cpu/special_math.h): lgamma,
// digamma, erf_inv, bessel_i1e in f64, f32, f16 and bf16.
//   * against mpmath (tests/ref/special_math.ref, made by
//     tests/ref/mpmath_special_math.py: about 2000 inputs per function, dense
//     sweeps plus each function's own regions), in ulps of the exact value;
//   * special values: NaN, +-inf, +-0, subnormals, poles, huge arguments,
//     overflow, exact results;
//   * the StableHLO conformance corpus' cases of the four ops (the rows of
//     tests/conformance/stablehlo/{lgamma,digamma,erf_inv,bessel_i1e}.jsonl,
//     copied into the .ref file; Apache-2.0, tests/conformance/LICENSE) with
//     the comparison tests/conformance/FORMAT.md recommends.
// The bounds are those docs/accuracy.md documents ("Special functions").
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/special_math.h"
#include "support.h"

typedef double (*f64_fn)(double);
typedef float (*f32_fn)(float);
typedef tfr_f16_bits (*f16_fn)(tfr_f16_bits);
typedef tfr_bf16_bits (*bf16_fn)(tfr_bf16_bits);

typedef struct special_fn {
  const char *name;
  f64_fn f64;
  f32_fn f32;
  f16_fn f16;
  bf16_fn bf16;
  double bound64;      // ulps of the exact value, f64, x > 0 (all x: erf_inv, bessel_i1e)
  double bound64_neg;  // x < 0 (lgamma, digamma): ulps of the largest term of the
                       // reflection formula (tfr_sm_<fn>_neg_scale_f64)
} special_fn;

#define FNS(n) tfr_sm_##n##_f64, tfr_sm_##n##_f32, tfr_sm_##n##_f16, tfr_sm_##n##_bf16
static const special_fn fns[] = {
    {"lgamma", FNS(lgamma), 2, 4},
    {"digamma", FNS(digamma), 2, 4},
    {"erf_inv", FNS(erf_inv), 2, 2},
    {"bessel_i1e", FNS(bessel_i1e), 2, 2},
};
#define NFNS ((int)(sizeof fns / sizeof fns[0]))

static double ulp64(double v) {
  v = fabs(v);
  if (!(v >= 0x1p-1022)) return 0x1p-1074;
  return ldexp(1.0, ilogb(v) - 52);
}

static double ulp32(double v) {
  v = fabs(v);
  if (!(v >= 0x1p-126)) return 0x1p-149;
  return ldexp(1.0, ilogb(v) - 23);
}

// ---------------------------------------------------------------------------
// The reference file
// ---------------------------------------------------------------------------

typedef struct ref_line {
  int fn;
  bool conf;
  double x, hi, lo;                 // ref
  char dtype[8], check[16];         // conf
  uint64_t xbits, ebits;            // conf
} ref_line;

static ref_line *refs;
static int nrefs;

static int fn_index(const char *name) {
  for (int i = 0; i < NFNS; i++)
    if (!strcmp(fns[i].name, name)) return i;
  return -1;
}

static int load_refs(void **state) {
  (void)state;
  const char *path = TFR_TEST_SOURCE_DIR "/ref/special_math.ref";
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    return -1;
  }
  int cap = 16384;
  refs = malloc((size_t)cap * sizeof *refs);
  char line[256];
  while (refs && fgets(line, sizeof line, f)) {
    char kind[8], name[32];
    ref_line r;
    memset(&r, 0, sizeof r);
    unsigned long long a, b, c;
    if (sscanf(line, "%7s %31s", kind, name) != 2 || kind[0] == '#') continue;
    r.fn = fn_index(name);
    if (r.fn < 0) continue;
    if (!strcmp(kind, "ref") && sscanf(line, "%*s %*s %llx %llx %llx", &a, &b, &c) == 3) {
      r.x = tfr_f64_from_bits(a);
      r.hi = tfr_f64_from_bits(b);
      r.lo = tfr_f64_from_bits(c);
    } else if (!strcmp(kind, "conf") &&
               sscanf(line, "%*s %*s %7s %15s %llx %llx", r.dtype, r.check, &a, &b) == 4) {
      r.conf = true;
      r.xbits = a;
      r.ebits = b;
    } else {
      continue;
    }
    if (nrefs == cap) {
      cap *= 2;
      ref_line *g = realloc(refs, (size_t)cap * sizeof *refs);
      if (!g) break;
      refs = g;
    }
    refs[nrefs++] = r;
  }
  fclose(f);
  return refs && nrefs > 1000 ? 0 : -1;
}

static int free_refs(void **state) {
  (void)state;
  free(refs);
  return 0;
}

// ---------------------------------------------------------------------------
// Against mpmath
// ---------------------------------------------------------------------------

static void test_f64_against_mpmath(void **state) {
  (void)state;
  int failed = 0;
  for (int k = 0; k < NFNS; k++) {
    const special_fn *fn = &fns[k];
    double worst = 0, worst_neg = 0, wx = 0, wxn = 0;
    int n = 0;
    for (int i = 0; i < nrefs; i++) {
      const ref_line *r = &refs[i];
      if (r->conf || r->fn != k) continue;
      n++;
      double got = fn->f64(r->x);
      double err = fabs((got - r->hi) - r->lo);
      if (!(err == err)) err = INFINITY;
      bool neg = r->x < 0 && (k == 0 || k == 1);
      double scale = k == 0 ? tfr_sm_lgamma_neg_scale_f64(r->x) : tfr_sm_digamma_neg_scale_f64(r->x);
      double e = err / ulp64(neg ? scale : r->hi);
      double bound = neg ? fn->bound64_neg : fn->bound64;
      if (!(e <= bound)) {
        if (failed++ < 20)
          print_message("[  FAIL    ] %s(%.17g) = %.17g, want %.17g: %.2f ulp%s (bound %g)\n",
                        fn->name, r->x, got, r->hi, e, neg ? " of the largest term" : "",
                        bound);
      }
      if (neg && e > worst_neg) worst_neg = e, wxn = r->x;
      if (!neg && e > worst) worst = e, wx = r->x;
    }
    assert_true(n > 1000);
    print_message("[  ULP     ] %-10s f64 n %d  max %.3f ulp (at %.17g)", fn->name, n, worst, wx);
    if (k < 2) print_message("  x < 0: %.3f ulp of the largest term (at %.17g)", worst_neg, wxn);
    print_message("\n");
  }
  if (failed) fail_msg("%d f64 result(s) beyond their bound", failed);
}

// f32 results (through f64, rounded once) are the correctly rounded value or
// its neighbour: at most 1 ulp from it, at most 0.5 + 2^-20 ulps from the
// exact value.
static void test_f32_against_mpmath(void **state) {
  (void)state;
  int failed = 0;
  for (int k = 0; k < NFNS; k++) {
    const special_fn *fn = &fns[k];
    double worst = 0, wx = 0;
    int n = 0;
    for (int i = 0; i < nrefs; i++) {
      const ref_line *r = &refs[i];
      if (r->conf || r->fn != k || (double)(float)r->x != r->x) continue;
      float want = (float)(r->hi + r->lo);
      if (!isfinite(want)) continue;
      n++;
      float got = fn->f32((float)r->x);
      double e = fabs(((double)got - r->hi) - r->lo) / ulp32(want);
      if (!(e <= 0.5 + 0x1p-20) && tfr_test_ulp_f32(got, want) > 0) {
        if (failed++ < 20)
          print_message("[  FAIL    ] %s_f32(%.9g) = %.9g, want %.9g (%.3f ulp)\n", fn->name,
                        r->x, got, want, e);
      }
      if (e > worst) worst = e, wx = r->x;
    }
    assert_true(n > 300);
    print_message("[  ULP     ] %-10s f32 n %d  max %.4f ulp of the exact value (at %.9g)\n",
                  fn->name, n, worst, wx);
  }
  if (failed) fail_msg("%d f32 result(s) not within 1 ulp of the correctly rounded value", failed);
}

// ---------------------------------------------------------------------------
// Special values
// ---------------------------------------------------------------------------

// got is want bit for bit (any NaN for a NaN).
static void expect_same(const char *what, double x, double got, double want) {
  bool ok = (isnan(want) && isnan(got)) ||
            (got == want && signbit(got) == signbit(want));
  if (!ok) fail_msg("%s(%a) = %a, want %a", what, x, got, want);
}

static void expect_same32(const char *what, float x, float got, float want) {
  expect_same(what, x, got, want);
}

static void test_special_values(void **state) {
  (void)state;
  const double inf = INFINITY, nan = NAN, tiny = 0x1p-1074, dmax = 0x1.fffffffffffffp1023;
  // lgamma: poles and infinities give +inf, NaN stays NaN
  static const double lg_inf[] = {0.0, -0.0, -1.0, -2.0, -3.0, -100.0, -0x1p52, -0x1p60,
                                  -0x1.fffffffffffffp1023, INFINITY, -INFINITY,
                                  2.6e305, 0x1.fffffffffffffp1023};
  for (size_t i = 0; i < sizeof lg_inf / sizeof lg_inf[0]; i++) {
    expect_same("lgamma", lg_inf[i], tfr_sm_lgamma_f64(lg_inf[i]), inf);
    expect_same32("lgamma_f32", (float)lg_inf[i], tfr_sm_lgamma_f32((float)lg_inf[i]),
                  INFINITY);
  }
  expect_same("lgamma", nan, tfr_sm_lgamma_f64(nan), nan);
  expect_same("lgamma", 1.0, tfr_sm_lgamma_f64(1.0), 0.0);
  expect_same("lgamma", 2.0, tfr_sm_lgamma_f64(2.0), 0.0);
  expect_same32("lgamma_f32", 1.0f, tfr_sm_lgamma_f32(1.0f), 0.0f);
  expect_same32("lgamma_f32", 2.0f, tfr_sm_lgamma_f32(2.0f), 0.0f);
  assert_true(tfr_test_ulp_f64(tfr_sm_lgamma_f64(3.0), log(2.0)) <= 1);
  assert_true(tfr_test_ulp_f64(tfr_sm_lgamma_f64(0.5), 0.5723649429247001) <= 1);  // log sqrt(pi)
  assert_true(tfr_test_ulp_f64(tfr_sm_lgamma_f64(-0.5), 1.2655121234846454) <= 1);  // log 2 sqrt(pi)
  // tiny arguments: -log|x| (subnormals included); huge finite results
  assert_true(tfr_test_ulp_f64(tfr_sm_lgamma_f64(tiny), -log(tiny)) <= 1);
  assert_true(tfr_test_ulp_f64(tfr_sm_lgamma_f64(-tiny), -log(tiny)) <= 1);
  assert_true(tfr_test_ulp_f64(tfr_sm_lgamma_f64(0x1p-1030), -log(0x1p-1030)) <= 1);
  assert_true(tfr_test_ulp_f32(tfr_sm_lgamma_f32(0x1p-149f), (float)-log(0x1p-149)) == 0);
  assert_true(isfinite(tfr_sm_lgamma_f64(2.5e305)) && tfr_sm_lgamma_f64(2.5e305) > 1e308);
  assert_true(isinf(tfr_sm_lgamma_f32(4.1e36f)) && isfinite(tfr_sm_lgamma_f32(4.0e36f)));
  assert_true(isfinite(tfr_sm_lgamma_f64(-0x1.fffffffffffffp51)));  // -(2^52 - 0.5)

  // digamma: NaN at the poles (either zero), at -inf and for NaN; +inf at +inf
  static const double dg_nan[] = {0.0, -0.0, -1.0, -2.0, -7.0, -0x1p52, -0x1p60, -dmax,
                                  -INFINITY, NAN};
  for (size_t i = 0; i < sizeof dg_nan / sizeof dg_nan[0]; i++) {
    expect_same("digamma", dg_nan[i], tfr_sm_digamma_f64(dg_nan[i]), nan);
    expect_same32("digamma_f32", (float)dg_nan[i], tfr_sm_digamma_f32((float)dg_nan[i]),
                  NAN);
  }
  expect_same("digamma", inf, tfr_sm_digamma_f64(inf), inf);
  assert_true(tfr_test_ulp_f64(tfr_sm_digamma_f64(1.0), -0.5772156649015329) <= 1);
  assert_true(tfr_test_ulp_f64(tfr_sm_digamma_f64(dmax), log(dmax)) <= 1);
  assert_true(tfr_test_ulp_f64(tfr_sm_digamma_f64(1e-300), -1e300) <= 1);
  expect_same("digamma", tiny, tfr_sm_digamma_f64(tiny), -inf);  // -1/x overflows
  expect_same32("digamma_f32", 0x1p-149f, tfr_sm_digamma_f32(0x1p-149f), -INFINITY);
  expect_same("digamma", -tiny, tfr_sm_digamma_f64(-tiny), inf);
  assert_true(tfr_test_ulp_f64(tfr_sm_digamma_f64(-0x1p-1000), 0x1p1000) <= 1);
  assert_true(fabs(tfr_sm_digamma_f64(TFR_SM_PSI_X0_HI)) < 1e-16);

  // erf_inv
  expect_same("erf_inv", 1.0, tfr_sm_erf_inv_f64(1.0), inf);
  expect_same("erf_inv", -1.0, tfr_sm_erf_inv_f64(-1.0), -inf);
  expect_same("erf_inv", 0.0, tfr_sm_erf_inv_f64(0.0), 0.0);
  expect_same("erf_inv", -0.0, tfr_sm_erf_inv_f64(-0.0), -0.0);
  static const double ei_nan[] = {1.0000000000000002, -1.0000000000000002, 2.0, -2.0, dmax,
                                  INFINITY, -INFINITY, NAN};
  for (size_t i = 0; i < sizeof ei_nan / sizeof ei_nan[0]; i++) {
    expect_same("erf_inv", ei_nan[i], tfr_sm_erf_inv_f64(ei_nan[i]), nan);
    float fv = (float)ei_nan[i];
    if (fabsf(fv) == 1.0f) fv = nextafterf(fv, 2 * fv);  // the f32 neighbour beyond +-1
    expect_same32("erf_inv_f32", fv, tfr_sm_erf_inv_f32(fv), NAN);
  }
  expect_same32("erf_inv_f32", 1.0f, tfr_sm_erf_inv_f32(1.0f), INFINITY);
  expect_same32("erf_inv_f32", -1.0f, tfr_sm_erf_inv_f32(-1.0f), -INFINITY);
  expect_same32("erf_inv_f32", -0.0f, tfr_sm_erf_inv_f32(-0.0f), -0.0f);
  // subnormals: sqrt(pi)/2 x
  expect_same("erf_inv", tiny, tfr_sm_erf_inv_f64(tiny), tiny);
  expect_same("erf_inv", -0x1p-1070, tfr_sm_erf_inv_f64(-0x1p-1070), -0x1.c5bf891b4ef6ap-1071);
  assert_true(tfr_test_ulp_f32(tfr_sm_erf_inv_f32(0x1p-140f), 0x1.c5bf89p-141f) == 0);
  // the largest argument below 1 (5.8636, mpmath), round trips
  assert_true(tfr_test_ulp_f64(tfr_sm_erf_inv_f64(1 - 0x1p-53), 5.8635847487551679) <= 2);
  for (double v = -0.999; v < 1; v += 0.00731)
    assert_true(fabs(erf(tfr_sm_erf_inv_f64(v)) - v) <= 2 * ulp64(v) + 0x1p-60);

  // bessel_i1e: odd, 0 at 0 and at infinity
  expect_same("bessel_i1e", 0.0, tfr_sm_bessel_i1e_f64(0.0), 0.0);
  expect_same("bessel_i1e", -0.0, tfr_sm_bessel_i1e_f64(-0.0), -0.0);
  expect_same("bessel_i1e", inf, tfr_sm_bessel_i1e_f64(inf), 0.0);
  expect_same("bessel_i1e", -inf, tfr_sm_bessel_i1e_f64(-inf), -0.0);
  expect_same("bessel_i1e", nan, tfr_sm_bessel_i1e_f64(nan), nan);
  expect_same32("bessel_i1e_f32", -INFINITY, tfr_sm_bessel_i1e_f32(-INFINITY), -0.0f);
  expect_same32("bessel_i1e_f32", -0.0f, tfr_sm_bessel_i1e_f32(-0.0f), -0.0f);
  // x/2 for tiny x, correctly rounded (subnormal halving included)
  expect_same("bessel_i1e", tiny, tfr_sm_bessel_i1e_f64(tiny), 0.0);  // tie to even
  expect_same("bessel_i1e", 3 * tiny, tfr_sm_bessel_i1e_f64(3 * tiny), 2 * tiny);
  expect_same("bessel_i1e", -0x1p-1000, tfr_sm_bessel_i1e_f64(-0x1p-1000), -0x1p-1001);
  expect_same32("bessel_i1e_f32", 0x1p-140f, tfr_sm_bessel_i1e_f32(0x1p-140f), 0x1p-141f);
  // 1/sqrt(2 pi x) for huge x
  assert_true(tfr_test_ulp_f64(tfr_sm_bessel_i1e_f64(1e300), 1 / sqrt(2 * 3.141592653589793 * 1e300)) <= 2);
  assert_true(tfr_test_ulp_f64(tfr_sm_bessel_i1e_f64(-dmax), -1 / sqrt(2 * 3.141592653589793) / sqrt(dmax)) <= 2);
  for (double v = -40; v < 40; v += 0.173)
    assert_true(tfr_sm_bessel_i1e_f64(-v) == -tfr_sm_bessel_i1e_f64(v));

  // f16 / bf16: through f32, special values kept
  assert_true(tfr_sm_lgamma_f16(0x0000) == 0x7c00);           // lgamma(0) = inf
  assert_true(tfr_sm_lgamma_bf16(0xc040) == 0x7f80);          // lgamma(-3) = inf
  assert_true((tfr_sm_digamma_f16(0xc000) & 0x7c00) == 0x7c00 &&
              (tfr_sm_digamma_f16(0xc000) & 0x3ff) != 0);     // digamma(-2) = NaN
  assert_true(tfr_sm_erf_inv_bf16(0xbf80) == 0xff80);         // erf_inv(-1) = -inf
  assert_true(tfr_sm_bessel_i1e_f16(0x8000) == 0x8000);       // -0
  assert_true(tfr_sm_erf_inv_f16(0x3800) == tfr_f32_to_f16(0.4769362762044699f));  // erf_inv(0.5)
}

// ---------------------------------------------------------------------------
// The conformance corpus' cases
// ---------------------------------------------------------------------------

static double conf_value(const char *dtype, uint64_t bits) {
  if (!strcmp(dtype, "f64")) return tfr_f64_from_bits(bits);
  if (!strcmp(dtype, "f32")) return tfr_f32_from_bits((uint32_t)bits);
  if (!strcmp(dtype, "f16")) return tfr_f16_to_f32((tfr_f16_bits)bits);
  return tfr_bf16_to_f32((tfr_bf16_bits)bits);
}

static uint64_t conf_apply(const special_fn *fn, const char *dtype, uint64_t bits) {
  if (!strcmp(dtype, "f64")) return tfr_f64_bits(fn->f64(tfr_f64_from_bits(bits)));
  if (!strcmp(dtype, "f32")) return tfr_f32_bits(fn->f32(tfr_f32_from_bits((uint32_t)bits)));
  if (!strcmp(dtype, "f16")) return fn->f16((tfr_f16_bits)bits);
  return fn->bf16((tfr_bf16_bits)bits);
}

// ULP distance of FORMAT.md: bit patterns with the sign cleared; finite
// values of different signs add; NaN/NaN 0; anything else with a NaN or an
// infinity: infinite (-1 here).
static int64_t conf_ulp(const char *dtype, uint64_t a, uint64_t e) {
  int bits = !strcmp(dtype, "f64") ? 64 : !strcmp(dtype, "f32") ? 32 : 16;
  uint64_t sign = (uint64_t)1 << (bits - 1), mag = sign - 1;
  double av = conf_value(dtype, a), ev = conf_value(dtype, e);
  if (a == e) return 0;
  if (isnan(av) && isnan(ev)) return 0;
  if (!isfinite(av) || !isfinite(ev)) return -1;
  uint64_t A = a & mag, E = e & mag;
  if ((a & sign) == (e & sign)) return (int64_t)(A > E ? A - E : E - A);
  return (int64_t)(A + E);
}

// Recommended check of FORMAT.md for elementwise functions: bit-equal, both
// NaN, ULP distance <= N (4 f64, 8 f32, 2 f16/bf16), |a - e| <= eps M (M the
// largest finite |expected| of the case), and for almost_eq |a - e| <= 1e-3.
static void test_conformance_cases(void **state) {
  (void)state;
  int cases = 0, failed = 0;
  for (int i = 0; i < nrefs;) {
    if (!refs[i].conf) {
      i++;
      continue;
    }
    int j = i;
    double m = 0;
    while (j < nrefs && refs[j].conf && refs[j].fn == refs[i].fn &&
           !strcmp(refs[j].dtype, refs[i].dtype)) {
      double e = fabs(conf_value(refs[j].dtype, refs[j].ebits));
      if (isfinite(e) && e > m) m = e;
      j++;
    }
    const char *dt = refs[i].dtype;
    const special_fn *fn = &fns[refs[i].fn];
    int64_t n = !strcmp(dt, "f64") ? 4 : !strcmp(dt, "f32") ? 8 : 2;
    double eps = !strcmp(dt, "f64") ? 0x1p-52 : !strcmp(dt, "f32") ? 0x1p-23
                 : !strcmp(dt, "f16") ? 0x1p-10 : 0x1p-7;
    int64_t worst = 0, bad = 0;
    for (int k = i; k < j; k++) {
      uint64_t got = conf_apply(fn, dt, refs[k].xbits);
      int64_t d = conf_ulp(dt, got, refs[k].ebits);
      double g = conf_value(dt, got), e = conf_value(dt, refs[k].ebits);
      bool ok = d >= 0 && (d <= n || fabs(g - e) <= eps * m ||
                           (!strcmp(refs[k].check, "almost_eq") && fabs(g - e) <= 1e-3));
      if (d > worst || d < 0) worst = d < 0 ? INT64_MAX : d;
      if (!ok && bad++ < 5)
        print_message("[  FAIL    ] %s %s(%.17g) = %.17g, corpus %.17g (%lld ulp)\n", dt,
                      fn->name, conf_value(dt, refs[k].xbits), g, e, (long long)d);
    }
    print_message("[  CONF    ] %-10s %-4s %s: %d elements, max %lld ulp from the corpus%s\n",
                  fn->name, dt, refs[i].check, j - i, (long long)worst, bad ? "  FAILED" : "");
    cases++;
    if (bad) failed++;
    i = j;
  }
  assert_int_equal(cases, 13);
  if (failed) fail_msg("%d conformance case(s) failed", failed);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_f64_against_mpmath),
      cmocka_unit_test(test_f32_against_mpmath),
      cmocka_unit_test(test_special_values),
      cmocka_unit_test(test_conformance_cases),
  };
  return cmocka_run_group_tests(tests, load_refs, free_refs);
}
