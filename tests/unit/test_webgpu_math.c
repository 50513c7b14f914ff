// The WGSL math library (src/webgpu/kernels/common/math_f32.wgsl,
// math_c64.wgsl) on the device, through the internal entry
// tfr_wgpu_math_eval, against host references:
//   * f32 functions: a few hundred thousand inputs each (random bit patterns
//     over the whole range, dense samples around each function's special
//     regions, every special value) against glibc's double function rounded
//     to f32; the distance in ulps must stay within the bound docs/accuracy.md
//     documents, NaN must match NaN, infinities and signed zeros exactly.
//   * c64 functions: against the cpu backend's c128 element functions
//     (C99 complex, src/cpu/scalar_math.h) per part, relative to the
//     result's magnitude, and special values (infinite / NaN parts) exactly
//     as the cpu backend's c64 functions give them (Annex G).
// A device that flushes subnormals to zero (docs/accuracy.md) is detected
// first; on it, inputs and results in the subnormal range are not compared.
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend_impl.h"
#include "cpu/scalar_math.h"
#include "cpu/special_math.h"
#include "support.h"
#include "webgpu/math_eval.h"

// ---------------------------------------------------------------------------
// Running one function on the device
// ---------------------------------------------------------------------------

// out[i] = fn(x[i] (, y[i])) for n elements (floats, or re/im pairs).
static void eval_on_device(const char *name, const float *x, const float *y, int64_t n,
                           float *out) {
  const tfr_wgpu_math_fn *fn = tfr_wgpu_math_find(name);
  assert_non_null(fn);
  int64_t shape[1] = {n};
  tfr_tensor *hx = tfr_test_tensor(fn->in, 1, shape, x);
  tfr_tensor *hy = y ? tfr_test_tensor(fn->in, 1, shape, y) : NULL;
  tfr_session *s = tfr_test_begin(tfr_test_gpu);
  tfr_tensor *dx = tfr_test_upload(s, hx);
  tfr_tensor *dy = hy ? tfr_test_upload(s, hy) : NULL;
  tfr_tensor *dout = NULL;
  TFR_ASSERT_OK(tfr_tensor_alloc(tfr_test_gpu, fn->out, 1, shape, false, &dout));
  TFR_ASSERT_OK(tfr_wgpu_math_eval(tfr_test_gpu, name, dx, dy, dout));
  tfr_tensor *hout = tfr_test_download(s, dout);
  TFR_ASSERT_OK(tfr_tensor_read(hout, out, (size_t)n * tfr_dtype_size(fn->out)));
  tfr_tensor_release(hout);
  tfr_tensor_release(dout);
  tfr_tensor_release(dy);
  tfr_tensor_release(dx);
  tfr_test_end(s);
  tfr_tensor_release(hy);
  tfr_tensor_release(hx);
}

static float bits_f32(uint32_t b) {
  float f;
  memcpy(&f, &b, 4);
  return f;
}

static bool is_subnormal(double v) {
  return v != 0 && fabs(v) < 0x1p-126;
}

// Whether the device flushes subnormal results of float arithmetic to zero:
// exp(-100) = 3.7e-44 is subnormal.
static int device_ftz = -1;

static bool device_flushes(void) {
  if (device_ftz < 0) {
    float x = -100.0f, out = 0;
    eval_on_device("exp_f32", &x, NULL, 1, &out);
    device_ftz = out == 0.0f;
    if (device_ftz)
      print_message("[  INFO    ] the device flushes subnormals: those inputs and results are "
                    "not compared\n");
  }
  return device_ftz == 1;
}

// Reports whether the device's fma is fused (the library does not rely on
// it; docs/accuracy.md). (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24: the last term is
// the rounding error of the f32 product, which only a fused fma returns.
static void test_fma_probe(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  float x = 1.0f + 0x1p-12f, out = -1.0f;
  eval_on_device("fma_residual_f32", &x, NULL, 1, &out);
  print_message("[  INFO    ] fma on this device: %s (residual %a)\n",
                out == 0x1p-24f ? "fused" : out == 0.0f ? "not fused" : "unexpected", out);
  assert_true(out == 0x1p-24f || out == 0.0f);
  // The library's own exact sum and product must be exact whatever fma does
  // (a compiler that reassociated floating-point sums would break them).
  float a = 0x1p-30f;
  eval_on_device("two_sum_err_f32", &a, NULL, 1, &out);
  assert_true(out == 0x1p-30f);
  eval_on_device("two_prod_err_f32", &x, NULL, 1, &out);
  assert_true(out == 0x1p-24f);
}

// ---------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------

typedef struct inputs {
  float *v;
  int64_t n, cap;
} inputs;

static void push(inputs *in, float v) {
  if (in->n == in->cap) {
    in->cap = in->cap ? 2 * in->cap : 4096;
    in->v = realloc(in->v, (size_t)in->cap * sizeof(float));
    assert_non_null(in->v);
  }
  in->v[in->n++] = v;
}

// Every special value, and neighbours of the usual boundaries.
static void push_specials(inputs *in) {
  static const uint32_t bits[] = {
      0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u,
      0x7f800001u, 0x00000001u, 0x80000001u, 0x007fffffu, 0x807fffffu, 0x00800000u,
      0x80800000u, 0x7f7fffffu, 0xff7fffffu, 0x3f800000u, 0xbf800000u, 0x3f7fffffu,
      0x3f800001u, 0xbf7fffffu, 0xbf800001u, 0x40000000u, 0xc0000000u, 0x3f000000u,
      0xbf000000u, 0x33800000u, 0x34000000u, 0x39800000u, 0x45800000u, 0x4b800000u,
  };
  for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++) push(in, bits_f32(bits[i]));
  static const double vals[] = {0.5,   1.5,   2.0,  3.0,    4.0,  10.0,  88.0,  88.72283935546875,
                                89.0,  89.41, 90.0, -87.33, -103, -104,  -150,  3.14159265,
                                1.5707963, 0.785398, 9.0,  9.25, 10.0, 10.06, 0.9, 0.625, 0.3465,
                                8192.0, 512.0, 4096.0, 1e10, 1e20, 1e30, 1e38};
  for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
    float f = (float)vals[i];
    for (int k = -2; k <= 2; k++) {
      float g = f;
      for (int j = 0; j < abs(k); j++) g = nextafterf(g, k > 0 ? INFINITY : -INFINITY);
      push(in, g);
      push(in, -g);
    }
  }
}

// n values uniform in [lo, hi), both signs when `sym`.
static void push_uniform(inputs *in, uint64_t *st, int64_t n, double lo, double hi) {
  for (int64_t i = 0; i < n; i++) push(in, (float)tfr_test_rand_uniform(st, lo, hi));
}

// n values with log-uniform magnitude in [2^e0, 2^e1), random sign.
static void push_logu(inputs *in, uint64_t *st, int64_t n, double e0, double e1) {
  for (int64_t i = 0; i < n; i++) {
    double m = exp2(tfr_test_rand_uniform(st, e0, e1));
    push(in, (float)((tfr_test_rand_u64(st) & 1) ? -m : m));
  }
}

static void push_bits(inputs *in, uint64_t *st, int64_t n) {
  for (int64_t i = 0; i < n; i++) push(in, bits_f32((uint32_t)tfr_test_rand_u64(st)));
}

// The float nearest to c and 8 neighbours on each side.
static void push_around(inputs *in, double c) {
  float f = (float)c;
  float g = f;
  for (int j = 0; j < 8; j++) g = nextafterf(g, -INFINITY);
  for (int j = 0; j < 17; j++) {
    push(in, g);
    g = nextafterf(g, INFINITY);
  }
}

// ---------------------------------------------------------------------------
// f32 functions
// ---------------------------------------------------------------------------

typedef struct f32_case {
  const char *name;
  int64_t bound;  // ulps from the correctly rounded result (docs/accuracy.md)
} f32_case;

static void push_for(inputs *in, const char *name, uint64_t *st) {
  push_specials(in);
  push_bits(in, st, 1 << 17);
  push_logu(in, st, 1 << 16, -30, 30);
  push_uniform(in, st, 1 << 16, -4, 4);
  push_uniform(in, st, 1 << 15, -100, 100);
  if (!strcmp(name, "sin_f32") || !strcmp(name, "cos_f32") || !strcmp(name, "tan_f32")) {
    // near multiples of pi/2, in the Cody-Waite and the Payne-Hanek ranges
    for (int k = 1; k < 6000; k += 7) push_around(in, k * 1.5707963267948966);
    for (int e = 13; e < 128; e++) push_logu(in, st, 256, e, e + 1);
    push_uniform(in, st, 1 << 15, -8300, 8300);
  } else if (!strcmp(name, "log_f32") || !strcmp(name, "log1p_f32") ||
             !strcmp(name, "acosh_f32")) {
    push_uniform(in, st, 1 << 15, 0.5, 2);
    push_logu(in, st, 1 << 14, -126, -100);
    for (int k = 0; k < 1 << 14; k++)
      push(in, 1.0f + (float)tfr_test_rand_uniform(st, -1e-3, 1e-3));
    push_uniform(in, st, 1 << 14, -1, -0.5);
  } else if (!strcmp(name, "exp_f32") || !strcmp(name, "expm1_f32") ||
             !strcmp(name, "sinh_f32") || !strcmp(name, "cosh_f32") ||
             !strcmp(name, "logistic_f32") || !strcmp(name, "tanh_f32")) {
    push_uniform(in, st, 1 << 15, -105, 90);
    push_uniform(in, st, 1 << 14, -1, 1);
  } else if (!strcmp(name, "erf_f32") || !strcmp(name, "erfc_f32")) {
    push_uniform(in, st, 1 << 15, -6, 11);
    push_uniform(in, st, 1 << 14, 8.5, 10.2);
  } else if (!strcmp(name, "asin_f32") || !strcmp(name, "acos_f32") ||
             !strcmp(name, "atanh_f32")) {
    push_uniform(in, st, 1 << 15, -1, 1);
    push_uniform(in, st, 1 << 14, 0.99, 1);
    push_uniform(in, st, 1 << 14, -1, -0.99);
  }
}

typedef struct f32_stats {
  int64_t max_ulp, over1, over2, mismatch, skipped, n;
  float worst_x, worst_y, worst_got, worst_want;
} f32_stats;

// Compares device results against the reference; counts.
static void compare_f32(const tfr_wgpu_math_fn *fn, const float *x, const float *y,
                        const float *got, int64_t n, f32_stats *s) {
  memset(s, 0, sizeof *s);
  bool ftz = device_flushes();
  for (int64_t i = 0; i < n; i++) {
    double dx = x[i], dy = y ? y[i] : 0.0, ref;
    tfr_wgpu_math_reference(fn, &dx, y ? &dy : NULL, &ref);
    float want = (float)ref;
    if (ftz && (is_subnormal(dx) || is_subnormal(dy) || is_subnormal(ref) ||
                (fabs(ref) < 0x1p-125 && got[i] == 0))) {
      s->skipped++;
      continue;
    }
    s->n++;
    int64_t d = tfr_test_ulp_f32(got[i], want);
    if (d == 0 && got[i] == 0 && signbit(got[i]) != signbit(want)) d = INT64_MAX;
    if (d == INT64_MAX) s->mismatch++;
    if (d > 1 && getenv("TFR_TEST_MATH_VERBOSE") && s->over1 < 20)
      print_message("    %s(%a, %a) = %a, want %a (%.9g vs %.9g)\n", fn->name, x[i],
                    y ? y[i] : 0.0f, got[i], want, got[i], want);
    if (d > 1) s->over1++;
    if (d > 2) s->over2++;
    if (d > s->max_ulp) {
      s->max_ulp = d;
      s->worst_x = x[i];
      s->worst_y = y ? y[i] : 0.0f;
      s->worst_got = got[i];
      s->worst_want = want;
    }
  }
}

// Returns whether the function is within its bound (prints its figures).
static bool check_f32(const f32_case *c, const float *x, const float *y, int64_t n) {
  const tfr_wgpu_math_fn *fn = tfr_wgpu_math_find(c->name);
  float *got = malloc((size_t)n * sizeof(float));
  assert_non_null(got);
  eval_on_device(c->name, x, y, n, got);
  f32_stats s;
  compare_f32(fn, x, y, got, n, &s);
  print_message("[  ULP     ] %-13s n %7lld  max %lld  >1ulp %lld  >2ulp %lld  (bound %lld)\n",
                c->name, (long long)s.n, (long long)(s.max_ulp == INT64_MAX ? -1 : s.max_ulp),
                (long long)s.over1, (long long)s.over2, (long long)c->bound);
  bool ok = s.max_ulp <= c->bound;
  if (!ok)
    print_message("[  FAIL    ] %s: %lld ulp (bound %lld) at x = %a (%.9g)%s%a: got %a (%.9g), "
                  "want %a (%.9g)%s\n",
             c->name, (long long)s.max_ulp, (long long)c->bound, s.worst_x, s.worst_x,
             y ? ", y = " : "", y ? s.worst_y : 0.0f, s.worst_got, s.worst_got, s.worst_want,
             s.worst_want, s.mismatch ? " (special value mismatch)" : "");
  free(got);
  return ok;
}

// Bounds in ulp from the correctly rounded result. asin and atan: 1 on
// lavapipe, 2 on the H200, whose compiler fuses a * b + c into fma (measured:
// 271 and 13 of ~3e5 arguments at 2 ulp; docs/accuracy.md).
static const f32_case unary_cases[] = {
    {"exp_f32", 1},   {"expm1_f32", 1}, {"log_f32", 1},      {"log1p_f32", 1},
    {"sin_f32", 1},   {"cos_f32", 1},   {"tan_f32", 1},      {"tanh_f32", 1},
    {"sinh_f32", 1},  {"cosh_f32", 1},  {"asin_f32", 2},     {"acos_f32", 1},
    {"atan_f32", 2},  {"asinh_f32", 1}, {"acosh_f32", 1},    {"atanh_f32", 1},
    {"sqrt_f32", 0},  {"rsqrt_f32", 1}, {"cbrt_f32", 1},     {"erf_f32", 1},
    {"erfc_f32", 1},  {"logistic_f32", 1},
};

static void test_unary_f32(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  const char *only = getenv("TFR_TEST_MATH_ONLY");
  int failed = 0;
  for (size_t k = 0; k < sizeof unary_cases / sizeof unary_cases[0]; k++) {
    const f32_case *c = &unary_cases[k];
    if (only && !strstr(c->name, only)) continue;
    uint64_t st = 0x9e3779b97f4a7c15ull + k;
    inputs in = {0};
    push_for(&in, c->name, &st);
    if (!check_f32(c, in.v, NULL, in.n)) failed++;
    free(in.v);
  }
  if (failed) fail_msg("%d function(s) beyond their bound", failed);
}

// Binary functions: random pairs from a mixed pool (specials, random bits,
// log-uniform and small values, integers) and function-specific regions.
static const f32_case binary_cases[] = {
    {"div_f32", 0}, {"fmod_f32", 0}, {"atan2_f32", 1}, {"pow_f32", 1},
};

static void test_binary_f32(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  const char *only = getenv("TFR_TEST_MATH_ONLY");
  int failed = 0;
  for (size_t k = 0; k < sizeof binary_cases / sizeof binary_cases[0]; k++) {
    const f32_case *c = &binary_cases[k];
    if (only && !strstr(c->name, only)) continue;
    uint64_t st = 0x51ed2701ull + k;
    inputs pool = {0};
    push_specials(&pool);
    push_bits(&pool, &st, 4096);
    push_logu(&pool, &st, 4096, -30, 30);
    push_uniform(&pool, &st, 2048, -4, 4);
    for (int i = -40; i <= 40; i++) push(&pool, (float)i);
    for (int i = 1; i <= 16; i++) push(&pool, (float)i + 0.5f);
    inputs xs = {0}, ys = {0};
    // every special value against every special value
    int64_t nsp = 0;
    {
      inputs sp = {0};
      push_specials(&sp);
      nsp = sp.n;
      for (int64_t i = 0; i < nsp; i++)
        for (int64_t j = 0; j < nsp; j++) {
          push(&xs, sp.v[i]);
          push(&ys, sp.v[j]);
        }
      free(sp.v);
    }
    for (int64_t i = 0; i < 200000; i++) {
      push(&xs, pool.v[tfr_test_rand_u64(&st) % (uint64_t)pool.n]);
      push(&ys, pool.v[tfr_test_rand_u64(&st) % (uint64_t)pool.n]);
    }
    if (!strcmp(c->name, "pow_f32")) {
      // results across the whole range: x in (0, 4), y such that |y log x| <= 110
      for (int64_t i = 0; i < 100000; i++) {
        double x = exp2(tfr_test_rand_uniform(&st, -20, 20));
        double y = tfr_test_rand_uniform(&st, -110, 110) / log(x);
        push(&xs, (float)x);
        push(&ys, (float)y);
      }
      for (int64_t i = 0; i < 20000; i++) {
        push(&xs, -(float)tfr_test_rand_uniform(&st, 0.5, 3));
        push(&ys, (float)(int)tfr_test_rand_uniform(&st, -60, 60));
      }
    } else if (!strcmp(c->name, "fmod_f32")) {
      for (int64_t i = 0; i < 50000; i++) {
        push(&xs, bits_f32((uint32_t)tfr_test_rand_u64(&st)));
        push(&ys, (float)tfr_test_rand_uniform(&st, -10, 10));
      }
    }
    if (!check_f32(c, xs.v, ys.v, xs.n)) failed++;
    free(xs.v);
    free(ys.v);
    free(pool.v);
  }
  if (failed) fail_msg("%d function(s) beyond their bound", failed);
}

// ---------------------------------------------------------------------------
// Special functions (common/math_special_f32.wgsl)
// ---------------------------------------------------------------------------

// Bound: ulps from the f64 reference (src/cpu/special_math.h) rounded to f32
// (lavapipe: at most 2, erf_inv 1; one more allowed for devices that fuse
// fma, as asin/atan needed on the H200).
// For x < 0, lgamma and digamma are ill-conditioned near their poles and the
// zeros between them; there a result also passes within `neg` f32 ulps of
// the largest term of the reflection formula (tfr_sm_<fn>_neg_scale_f64: an
// absolute bound, docs/accuracy.md).
typedef struct special_case {
  const char *name;
  int64_t bound;
  double neg;
  double (*scale)(double);
} special_case;

static const special_case special_cases[] = {
    {"lgamma_f32", 3, 5, tfr_sm_lgamma_neg_scale_f64},
    {"digamma_f32", 3, 5, tfr_sm_digamma_neg_scale_f64},
    {"erf_inv_f32", 2, 0, NULL},
    {"bessel_i1e_f32", 3, 0, NULL},
};

static void push_special_inputs(inputs *in, const char *name, uint64_t *st) {
  // TFR_TEST_SPECIAL_STEP=N adds every N-th f32 bit pattern (the sweep of
  // docs/accuracy.md; not in the default run)
  const char *step = getenv("TFR_TEST_SPECIAL_STEP");
  if (step && atoi(step) > 0)
    for (uint64_t b = 0; b <= 0xffffffffull; b += (uint64_t)atoi(step)) push(in, bits_f32((uint32_t)b));
  push_specials(in);
  push_bits(in, st, 1 << 15);
  push_logu(in, st, 1 << 14, -30, 30);
  // both sides of each boundary between methods (math_special_f32.wgsl)
  static const double edges[] = {0.25, -0.25, 0.75, -0.75, 1.25, 1.75, 2.75, 8, 10, -1,
                                 0.5,  -0.5,  0x1p-12, 0x1p-30, 0x1p30, 0x1p100};
  for (size_t e = 0; e < sizeof edges / sizeof edges[0]; e++) push_around(in, edges[e]);
  if (!strcmp(name, "lgamma_f32") || !strcmp(name, "digamma_f32")) {
    push_uniform(in, st, 1 << 16, -20, 20);
    push_uniform(in, st, 1 << 14, 0, 3);
    push_logu(in, st, 1 << 12, 30, 127);
    for (int n = 0; n <= 12; n++) {  // around the poles
      push_around(in, -n);
      for (int k = 0; k < 256; k++) push(in, (float)(-n + tfr_test_rand_uniform(st, -0.01, 0.01)));
    }
    static const double zeros[] = {1.0, 2.0, 1.4616321449683622};  // lgamma's, digamma's
    for (size_t z = 0; z < sizeof zeros / sizeof zeros[0]; z++) {
      push_around(in, zeros[z]);
      for (int k = 0; k < 4096; k++)
        push(in, (float)(zeros[z] + tfr_test_rand_uniform(st, -1e-3, 1e-3)));
    }
    push_uniform(in, st, 1 << 12, 4.0e36, 4.1e36);  // lgamma's overflow
  } else if (!strcmp(name, "erf_inv_f32")) {
    push_uniform(in, st, 1 << 16, -1, 1);
    for (int k = 0; k < 1 << 14; k++) {
      float v = (float)(1 - exp2(-tfr_test_rand_uniform(st, 1, 24)));
      push(in, (k & 1) ? v : -v);
    }
    for (int k = 1; k <= 64; k++) {
      push(in, 1.0f - (float)k * 0x1p-24f);
      push(in, -1.0f + (float)k * 0x1p-24f);
    }
    push_logu(in, st, 1 << 14, -149, -1);
  } else {
    push_uniform(in, st, 1 << 16, -30, 30);
    push_uniform(in, st, 1 << 14, 9, 11);  // the two methods meet at 10
  }
}

static void test_special_f32(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  const char *only = getenv("TFR_TEST_MATH_ONLY");
  int failed = 0;
  for (size_t k = 0; k < sizeof special_cases / sizeof special_cases[0]; k++) {
    const special_case *c = &special_cases[k];
    if (only && !strstr(c->name, only)) continue;
    const tfr_wgpu_math_fn *fn = tfr_wgpu_math_find(c->name);
    assert_non_null(fn);
    uint64_t st = 0x5bec1a1ull + k;
    inputs in = {0};
    push_special_inputs(&in, c->name, &st);
    float *got = malloc((size_t)in.n * sizeof(float));
    assert_non_null(got);
    eval_on_device(c->name, in.v, NULL, in.n, got);
    bool ftz = device_flushes();
    int64_t max_ulp = 0, over2 = 0, n = 0, bad = 0, printed = 0;
    double max_neg = 0;
    for (int64_t i = 0; i < in.n; i++) {
      double x = in.v[i], ref;
      tfr_wgpu_math_reference(fn, &x, NULL, &ref);
      float want = (float)ref;
      if (ftz && (is_subnormal(x) || is_subnormal(ref) || (fabs(ref) < 0x1p-125 && got[i] == 0)))
        continue;
      n++;
      int64_t d = tfr_test_ulp_f32(got[i], want);
      if (d == 0 && got[i] == 0 && signbit(got[i]) != signbit(want)) d = INT64_MAX;
      bool ok = d <= c->bound;
      if (d > 2 && d != INT64_MAX && getenv("TFR_TEST_MATH_VERBOSE") && (x > 0 || !c->scale) &&
          printed++ < 40)
        print_message("    %s(%.9g) = %.9g, want %.9g (%lld ulp)\n", c->name, x, got[i], want,
                      (long long)d);
      if (c->scale && x < 0 && d != INT64_MAX && isfinite(got[i])) {
        double s = c->scale(x), unit = ldexp(1.0, ilogb(s) - 23);
        double e = fabs((double)got[i] - ref) / unit;
        if (e > max_neg) max_neg = e;
        ok = ok || e <= c->neg;
      } else {
        if (d > max_ulp) max_ulp = d;
        if (d > 2) over2++;
      }
      if (!ok && bad++ < 10)
        print_message("[  FAIL    ] %s(%a = %.9g) = %.9g, want %.9g (%lld ulp)\n", c->name, x,
                      x, got[i], want, d == INT64_MAX ? -1LL : (long long)d);
    }
    print_message("[  ULP     ] %-14s n %7lld  max %lld  >2ulp %lld  (bound %lld)", c->name,
                  (long long)n, max_ulp == INT64_MAX ? -1LL : (long long)max_ulp,
                  (long long)over2, (long long)c->bound);
    if (c->scale)
      print_message("  (x >= 0); x < 0: %.2f ulps of the largest term (bound %g)", max_neg, c->neg);
    print_message("\n");
    if (bad) failed++;
    free(got);
    free(in.v);
  }
  if (failed) fail_msg("%d special function(s) beyond their bound", failed);
}

// ---------------------------------------------------------------------------
// c64 functions
// ---------------------------------------------------------------------------

typedef tfr_sm_c64 (*c64_unary_fn)(tfr_sm_c64);
typedef tfr_sm_c64 (*c64_binary_fn)(tfr_sm_c64, tfr_sm_c64);

static tfr_sm_c64 cpu_abs_c64(tfr_sm_c64 a) { return tfr_sm_mk_c64(tfr_sm_abs_c64(a), 0.0f); }

typedef struct c64_case {
  const char *name;
  c64_unary_fn cpu1;   // the cpu backend's element function (special values)
  c64_binary_fn cpu2;
  double tol;          // error of each part / |result|, in units of 2^-24
} c64_case;

static const c64_case c64_cases[] = {
    {"exp_c64", tfr_sm_exp_c64, NULL, 8},       {"expm1_c64", tfr_sm_expm1_c64, NULL, 8},
    {"log_c64", tfr_sm_log_c64, NULL, 8},       {"log1p_c64", tfr_sm_log1p_c64, NULL, 8},
    {"sin_c64", tfr_sm_sin_c64, NULL, 8},       {"cos_c64", tfr_sm_cos_c64, NULL, 8},
    {"tan_c64", tfr_sm_tan_c64, NULL, 8},       {"tanh_c64", tfr_sm_tanh_c64, NULL, 8},
    {"sinh_c64", tfr_sm_sinh_c64, NULL, 8},     {"cosh_c64", tfr_sm_cosh_c64, NULL, 8},
    {"asin_c64", tfr_sm_asin_c64, NULL, 8},     {"acos_c64", tfr_sm_acos_c64, NULL, 8},
    {"atan_c64", tfr_sm_atan_c64, NULL, 8},     {"asinh_c64", tfr_sm_asinh_c64, NULL, 8},
    {"acosh_c64", tfr_sm_acosh_c64, NULL, 8},   {"atanh_c64", tfr_sm_atanh_c64, NULL, 8},
    {"sqrt_c64", tfr_sm_sqrt_c64, NULL, 8},     {"rsqrt_c64", tfr_sm_rsqrt_c64, NULL, 8},
    {"logistic_c64", tfr_sm_logistic_c64, NULL, 8}, {"sign_c64", tfr_sm_sign_c64, NULL, 8},
    {"abs_c64", cpu_abs_c64, NULL, 2},          {"mul_c64", NULL, tfr_sm_multiply_c64, 8},
    {"div_c64", NULL, tfr_sm_divide_c64, 8},    {"pow_c64", NULL, tfr_sm_power_c64, 8},
};

// One part of a finite random input: mixed magnitudes, zeros of both signs.
static float c64_part(uint64_t *st) {
  uint64_t k = tfr_test_rand_u64(st) % 8;
  double sign = (tfr_test_rand_u64(st) & 1) ? -1.0 : 1.0;
  switch (k) {
    case 0: return (float)tfr_test_rand_uniform(st, -2, 2);
    case 1: return (float)tfr_test_rand_uniform(st, -10, 10);
    case 2: return (float)(sign * exp2(tfr_test_rand_uniform(st, -20, 20)));
    case 3: return (float)(sign * exp2(tfr_test_rand_uniform(st, -126, 127)));
    case 4: return (float)(sign * 0.0);
    case 5: return (float)(sign * (1.0 + tfr_test_rand_uniform(st, -1e-3, 1e-3)));
    case 6: return (float)tfr_test_rand_uniform(st, -100, 100);
    default: return (float)tfr_test_rand_uniform(st, -0.1, 0.1);
  }
}

static const float c64_special_parts[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -2.0f, 1e30f, -1e-30f,
                                          INFINITY, -INFINITY, NAN, 3.0f};

typedef enum { K_FINITE, K_PINF, K_NINF, K_NAN } kind_t;

static kind_t kind_of(double v) {
  if (isnan(v)) return K_NAN;
  if (isinf(v)) return v > 0 ? K_PINF : K_NINF;
  return K_FINITE;
}

// The reference's sensitivity to its input: the largest change of the result
// (c128) when a part of an operand moves by 2^-24 of its operand's magnitude.
// An f32 algorithm's intermediate roundings act like such perturbations, so
// the tolerance below allows a few of them (ill-conditioned points: near the
// poles of tan/logistic, sin of a large argument, ...).
static double c64_sensitivity(const tfr_wgpu_math_fn *fn, const double *x, const double *y,
                              const double *ref) {
  double worst = 0;
  for (int which = 0; which < (y ? 2 : 1); which++) {
    const double *v = which ? y : x;
    double h = hypot(v[0], v[1]) * 0x1p-24;
    if (h == 0) h = 0x1p-149;
    for (int k = 0; k < 4; k++) {
      double p[2] = {v[0], v[1]}, out[2];
      p[k / 2] += (k & 1) ? -h : h;
      if (which)
        tfr_wgpu_math_reference(fn, x, p, out);
      else
        tfr_wgpu_math_reference(fn, p, y, out);
      double d = hypot(out[0] - ref[0], out[1] - ref[1]);
      if (!(d <= worst)) worst = d;  // NaN/inf propagate
    }
  }
  return worst;
}

// Checks one c64 result; returns 1 if it matches, 0 on a mismatch (printed),
// -1 when the point is too ill-conditioned to judge.
// `special`: an operand has an infinite or NaN part: the kinds of the parts
// (finite, +inf, -inf, NaN) must be those of the cpu backend's c64 result
// (Annex G), except that an infinity's sign is not compared where the other
// part is NaN (Annex G leaves it unspecified there: "+-inf + i NaN").
static int check_c64_one(const c64_case *c, const tfr_wgpu_math_fn *fn, const float *a,
                         const float *b, const float *got, bool special, double *worst) {
  double x[2] = {a[0], a[1]}, y[2] = {b ? b[0] : 0, b ? b[1] : 0}, ref[2] = {0, 0};
  tfr_wgpu_math_reference(fn, x, b ? y : NULL, ref);
  int nparts = fn->out == TFR_F32 ? 1 : 2;
  float want[2] = {(float)ref[0], nparts == 2 ? (float)ref[1] : 0.0f};
  if (special) {
    tfr_sm_c64 za = tfr_sm_mk_c64(a[0], a[1]);
    tfr_sm_c64 r = c->cpu1 ? c->cpu1(za) : c->cpu2(za, tfr_sm_mk_c64(b[0], b[1]));
    want[0] = crealf(r);
    want[1] = nparts == 2 ? cimagf(r) : 0.0f;
  }
  double sens = 0;
  if (!special) {
    sens = c64_sensitivity(fn, x, b ? y : NULL, ref);
    double mag = hypot(ref[0], ref[1]);
    // results beyond f32's range or at a singularity: not judged when the
    // input's own rounding moves them by more than 1/64 of their size
    if (!(sens <= mag / 64) && !(isfinite(want[0]) && isfinite(want[1]))) return -1;
    if (!isfinite(sens)) return -1;
  }
  bool ok = true;
  for (int k = 0; k < nparts; k++) {
    kind_t g = kind_of(got[k]), w = kind_of(want[k]);
    bool partner_nan = nparts == 2 && isnan(want[1 - k]);
    if (partner_nan && (g == K_PINF || g == K_NINF) && (w == K_PINF || w == K_NINF)) continue;
    if (g != w) ok = false;
  }
  if (ok) {
    double mag = special ? hypot(want[0], want[1]) : hypot(ref[0], nparts == 2 ? ref[1] : 0.0);
    for (int k = 0; k < nparts; k++) {
      if (kind_of(got[k]) != K_FINITE || kind_of(want[k]) != K_FINITE) continue;
      double r = special ? want[k] : ref[k];
      double err = fabs(got[k] - r);
      // A device that flushes subnormals loses up to 2^-126 (absolute) in
      // each intermediate that falls below the normal range.
      double floor_abs = device_flushes() ? 0x1p-126 : 0x1p-148 / c->tol;
      double allowed = c->tol * (0x1p-24 * mag + sens + floor_abs);
      if (err > allowed) ok = false;
      double unit = 0x1p-24 * mag + sens + floor_abs;
      if (isfinite(mag) && err / unit > *worst) *worst = err / unit;
    }
  }
  if (!ok) {
    if (b)
      print_message("[  FAIL    ] %s(%a%+ai, %a%+ai) = %a%+ai, want %a%+ai%s\n", c->name, a[0],
                    a[1], b[0], b[1], got[0], got[1], want[0], want[1],
                    special ? " (special value, cpu backend's c64)" : "");
    else
      print_message("[  FAIL    ] %s(%a%+ai) = %a%+ai, want %a%+ai%s\n", c->name, a[0], a[1],
                    got[0], nparts == 2 ? got[1] : 0.0f, want[0], want[1],
                    special ? " (special value, cpu backend's c64)" : "");
  }
  return ok ? 1 : 0;
}

static void test_c64(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  const char *only = getenv("TFR_TEST_MATH_ONLY");
  int failed_fns = 0;
  for (size_t k = 0; k < sizeof c64_cases / sizeof c64_cases[0]; k++) {
    const c64_case *c = &c64_cases[k];
    if (only && !strstr(c->name, only)) continue;
    const tfr_wgpu_math_fn *fn = tfr_wgpu_math_find(c->name);
    assert_non_null(fn);
    bool binary = fn->arity == 2;
    uint64_t st = 0xc64c64ull + k;
    const int nsp = (int)(sizeof c64_special_parts / sizeof c64_special_parts[0]);
    // special grid: every pair of parts (binary: against a few second operands)
    int64_t nspecial = binary ? (int64_t)nsp * nsp * 16 : (int64_t)nsp * nsp;
    int64_t nrand = 40000, n = nspecial + nrand;
    float *a = malloc((size_t)n * 2 * sizeof(float)), *b = malloc((size_t)n * 2 * sizeof(float));
    float *got = malloc((size_t)n * 2 * sizeof(float));
    assert_true(a && b && got);
    for (int64_t i = 0; i < nspecial; i++) {
      int64_t j = binary ? i / 16 : i;
      a[2 * i] = c64_special_parts[j / nsp];
      a[2 * i + 1] = c64_special_parts[j % nsp];
      b[2 * i] = c64_special_parts[(i % 16) % nsp];
      b[2 * i + 1] = c64_special_parts[(i * 7 + 3) % nsp];
    }
    for (int64_t i = nspecial; i < n; i++) {
      a[2 * i] = c64_part(&st);
      a[2 * i + 1] = c64_part(&st);
      b[2 * i] = c64_part(&st);
      b[2 * i + 1] = c64_part(&st);
      if (!strcmp(c->name, "pow_c64")) {  // keep |b log a| moderate
        b[2 * i] = (float)tfr_test_rand_uniform(&st, -4, 4);
        b[2 * i + 1] = (float)tfr_test_rand_uniform(&st, -4, 4);
      }
    }
    float *out = got;
    float *tmp = NULL;
    if (fn->out == TFR_F32) tmp = malloc((size_t)n * sizeof(float)), out = tmp;
    eval_on_device(c->name, a, binary ? b : NULL, n, out);
    if (tmp) {
      for (int64_t i = 0; i < n; i++) got[2 * i] = tmp[i], got[2 * i + 1] = 0;
      free(tmp);
    }
    int64_t bad = 0, unjudged = 0;
    double worst = 0;
    bool ftz = device_flushes();
    for (int64_t i = 0; i < n; i++) {
      bool special = !isfinite(a[2 * i]) || !isfinite(a[2 * i + 1]) ||
                     (binary && (!isfinite(b[2 * i]) || !isfinite(b[2 * i + 1])));
      if (ftz && (is_subnormal(a[2 * i]) || is_subnormal(a[2 * i + 1]))) continue;
      int r = check_c64_one(c, fn, &a[2 * i], binary ? &b[2 * i] : NULL, &got[2 * i], special,
                            &worst);
      if (r < 0) unjudged++;
      if (r == 0 && ++bad > 10) break;
    }
    print_message("[  C64     ] %-13s n %7lld  worst part error %.2f x (2^-24 |w| + "
                  "sensitivity)  (tolerance %g; %lld ill-conditioned not judged)%s\n",
                  c->name, (long long)n, worst, c->tol, (long long)unjudged,
                  bad ? "  FAILED" : "");
    if (bad) failed_fns++;
    free(a);
    free(b);
    free(got);
  }
  if (failed_fns) fail_msg("%d c64 function(s) failed", failed_fns);
}

// The internal entry refuses what it cannot run, naming the function.
static void test_eval_errors(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  int64_t shape[1] = {4};
  float v[4] = {1, 2, 3, 4};
  tfr_tensor *h = tfr_test_tensor(TFR_F32, 1, shape, v);
  tfr_session *s = tfr_test_begin(tfr_test_gpu);
  tfr_tensor *d = tfr_test_upload(s, h), *out = NULL, *c = NULL;
  TFR_ASSERT_OK(tfr_tensor_alloc(tfr_test_gpu, TFR_F32, 1, shape, false, &out));
  TFR_ASSERT_OK(tfr_tensor_alloc(tfr_test_gpu, TFR_C64, 1, shape, false, &c));
  TFR_ASSERT_ERROR(tfr_wgpu_math_eval(tfr_test_gpu, "nope_f32", d, NULL, out),
                   TFR_ERR_INVALID_ARGUMENT, "nope_f32");
  TFR_ASSERT_ERROR(tfr_wgpu_math_eval(tfr_test_gpu, "pow_f32", d, NULL, out),
                   TFR_ERR_INVALID_ARGUMENT, "pow_f32", "2 operand");
  TFR_ASSERT_ERROR(tfr_wgpu_math_eval(tfr_test_gpu, "exp_c64", d, NULL, c),
                   TFR_ERR_INVALID_ARGUMENT, "exp_c64", "c64");
  TFR_ASSERT_ERROR(tfr_wgpu_math_eval(tfr_test_cpu, "exp_f32", d, NULL, out),
                   TFR_ERR_INVALID_ARGUMENT, "not a webgpu backend");
  TFR_ASSERT_ERROR(tfr_wgpu_math_eval(tfr_test_gpu, "exp_f32", h, NULL, out),
                   TFR_ERR_INVALID_ARGUMENT, "device tensors");
  // and runs what it can: exp(1..4) within 1 ulp
  TFR_ASSERT_OK(tfr_wgpu_math_eval(tfr_test_gpu, "exp_f32", d, NULL, out));
  tfr_tensor *r = tfr_test_download(s, out);
  float got[4];
  TFR_ASSERT_OK(tfr_tensor_read(r, got, sizeof got));
  for (int i = 0; i < 4; i++) assert_true(tfr_test_ulp_f32(got[i], (float)exp(v[i])) <= 1);
  tfr_tensor_release(r);
  tfr_tensor_release(c);
  tfr_tensor_release(out);
  tfr_tensor_release(d);
  tfr_test_end(s);
  tfr_tensor_release(h);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_eval_errors, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_fma_probe, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_unary_f32, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_binary_f32, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_special_f32, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_c64, tfr_test_teardown_session),
  };
  return TFR_TEST_RUN_WEBGPU(tests);
}
