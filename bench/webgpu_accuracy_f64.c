// tenferro-bench-webgpu-accuracy-f64: the accuracy of the webgpu backend's
// software f64 (src/webgpu/kernels/common/f64.wgsl, math_f64.wgsl,
// math_f64_erf.wgsl, math_f64_pow.wgsl; method and
// results in docs/accuracy.md, section "f64 on webgpu").
//
// Every f64 function the webgpu backend computes runs through the public API
// (tfr_unary / tfr_binary on f64 tensors) on N inputs: half of them bit
// patterns spread evenly over all 2^64 (every sign, exponent, subnormals,
// infinities and NaNs), half spaced evenly over three ranges where the
// function is hard (near its zeros, thresholds and reduction boundaries). The
// reference is libquadmath's binary128 function (113-bit significand),
// computed with OpenMP. Printed per function: the largest distance in ulps
// from the correctly rounded result and where, the largest error against the
// binary128 value in (fractional) ulps, how many results are not correctly
// rounded, how many are more than 1 ulp off, and special-value mismatches
// (NaN for a number or the reverse, a zero of the wrong sign).
//
// usage: tenferro-bench-webgpu-accuracy-f64 [--n N] [--only a,b,..] [--json FILE]
//                                           [--adapter I] [--chunk N]
//   --n N      inputs per function (default 2^24)
//   --only L   comma-separated function names (exp, atan2, ...)
//   --json F   writes the table to F
//   --chunk N  elements per device round trip (default 2^21)
#include <inttypes.h>
#include <math.h>
#include <omp.h>
#include <quadmath.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tenferro/tenferro.h"

#define TFR_BENCH_PROG "tenferro-bench-webgpu-accuracy-f64"
#include "bench_util.h"

static __float128 logisticq(__float128 x) {
  if (x >= 0) return 1 / (1 + expq(-x));
  __float128 e = expq(x);
  return e / (1 + e);
}

static __float128 sqrt_q(__float128 x) { return sqrtq(x); }
static __float128 div_q(__float128 y, __float128 x) { return y / x; }
// pow's NaN cases are the cpu's (glibc's pow: pow(sNaN, 0) is NaN, where
// powq would see the NaN quieted by the conversion and give 1).
static __float128 pow_q(__float128 b, __float128 e) {
  if (isnanq(b) || isnanq(e)) return pow((double)b, (double)e);
  return powq(b, e);
}

typedef struct f64a_fn {
  const char *name;
  int arity;
  tfr_unary_op op1;
  tfr_binary_op op2;
  __float128 (*ref1)(__float128);
  __float128 (*ref2)(__float128, __float128);
  double lo[3], hi[3];  // the dense ranges (of y / x for the binary ones)
} f64a_fn;

#define U(n, op, f, l0, h0, l1, h1, l2, h2) {n, 1, op, 0, f, NULL, {l0, l1, l2}, {h0, h1, h2}}
static const f64a_fn f64a_fns[] = {
    U("sqrt", TFR_SQRT, sqrt_q, 0.0, 4.0, 1e-310, 1e-300, 1e300, 1.7e308),
    U("exp", TFR_EXP, expq, -1.0, 1.0, -745.2, -700.0, 700.0, 709.8),
    U("expm1", TFR_EXPM1, expm1q, -1.0, 1.0, 0.3466, 0.40, -40.0, 40.0),
    U("log", TFR_LOG, logq, 0.5, 2.0, 1.0 - 1e-6, 1.0 + 1e-6, 1e-300, 1e300),
    U("log1p", TFR_LOG1P, log1pq, -1e-5, 1e-5, -1.0, 1.0, -0.3, 0.5),
    U("tanh", TFR_TANH, tanhq, -0.6, 0.6, -3.0, 3.0, 0.5, 23.0),
    U("sinh", TFR_SINH, sinhq, -1.1, 1.1, -30.0, 30.0, 700.0, 711.0),
    U("cosh", TFR_COSH, coshq, -1.1, 1.1, -30.0, 30.0, 700.0, 711.0),
    U("logistic", TFR_LOGISTIC, logisticq, -2.0, 2.0, -45.0, 45.0, -750.0, -700.0),
    U("cbrt", TFR_CBRT, cbrtq, -10.0, 10.0, 0.999, 8.001, 1e-310, 1e-300),
    U("asinh", TFR_ASINH, asinhq, -1.0, 1.0, 0.3, 3.0, 2.6e8, 2.8e8),
    U("acosh", TFR_ACOSH, acoshq, 1.0, 1.000001, 1.0, 30.0, 2.6e8, 2.8e8),
    U("atanh", TFR_ATANH, atanhq, -0.5, 0.5, 0.3, 0.37, 0.999999, 1.0),
    U("sin", TFR_SIN, sinq, -4.0, 4.0, 1e6, 1e6 + 50.0, -1e22, -1.0001e22),
    U("cos", TFR_COS, cosq, -4.0, 4.0, 1e6, 1e6 + 50.0, 1e300, 1.0001e300),
    U("tan", TFR_TAN, tanq, -1.6, 1.6, 1e6, 1e6 + 50.0, 1e15, 1e15 + 50.0),
    U("asin", TFR_ASIN, asinq, -0.5, 0.5, 0.69, 0.73, 0.999999, 1.0),
    U("acos", TFR_ACOS, acosq, -1.0, -0.999999, 0.69, 0.73, -0.73, -0.69),
    U("atan", TFR_ATAN, atanq, -0.3, 0.3, 0.9, 1.2, 7.0, 9.0),
    U("erf", TFR_ERF, erfq, -1.5, 1.5, 0.9, 1.1, 5.5, 6.2),
    U("erfc", TFR_ERFC, erfcq, -6.5, 0.6, 0.45, 4.0, 20.0, 28.5),
    {"divide", 2, 0, TFR_DIVIDE, NULL, div_q, {-2.0, 0.9, 1e-300}, {2.0, 1.1, 1e300}},
    {"atan2", 2, 0, TFR_ATAN2, NULL, atan2q, {-1.0, 0.1, 0.99}, {1.0, 0.4, 1.01}},
    // pow's inputs come from pow_input (the ranges: of y log|base|)
    {"pow", 2, 0, TFR_POWER, NULL, pow_q, {-745.2, -745.2, -745.2}, {709.8, 709.8, 709.8}},
};
#undef U
#define F64A_NFNS ((int)(sizeof f64a_fns / sizeof f64a_fns[0]))

// Distance in ulps between two non-NaN doubles (+0 and -0 are 0 apart).
static uint64_t ulp_dist(double a, double b) {
  int64_t ia = (int64_t)tfr_bench_f64_bits(a), ib = (int64_t)tfr_bench_f64_bits(b);
  if (ia < 0) ia = INT64_MIN - ia;
  if (ib < 0) ib = INT64_MIN - ib;
  return ia > ib ? (uint64_t)ia - (uint64_t)ib : (uint64_t)ib - (uint64_t)ia;
}

// The ulp of the binade of |v| (2^-1074 for subnormals and zero).
static __float128 ulp_at(double v) {
  int e;
  frexp(fabs(v), &e);
  return ldexpq(1, (v == 0 || e - 53 < -1074) ? -1074 : e - 53);
}

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

// pow's input i of n, base b and exponent e: the first half a base of every
// bit pattern (as below) with an exponent of random sign and magnitude in
// 2^-20 .. 2^11 (a random exponent would give 0, infinity or NaN nearly
// always); the second half y log|b| spread evenly over f's range (results
// from the subnormals to overflow) for b on three ranges: [1/2, 2], within
// 2^-1 .. 2^-52 of 1 (either side), and 2^-1000 .. 2^1000.
static void pow_input(const f64a_fn *f, int64_t i, int64_t n, double *b, double *e) {
  uint64_t st = (uint64_t)i * 0x2545f4914f6cdd1du + 91;
  int64_t half = n / 2;
  double u = (double)(splitmix(&st) >> 11) * 0x1p-53;
  if (i < half) {
    uint64_t stride = UINT64_MAX / (uint64_t)half;
    *b = tfr_bench_f64_of((uint64_t)i * stride + splitmix(&st) % stride);
    double m = ldexp(1.0 + u, (int)(splitmix(&st) % 32) - 20);
    *e = (splitmix(&st) & 1) ? -m : m;
    return;
  }
  int64_t k = i - half, m = n - half, r = k % 3, per = (m + 2) / 3;
  double t = per > 1 ? (double)(k / 3) / (double)(per - 1) : 0.5;
  double p = f->lo[r] + (f->hi[r] - f->lo[r]) * t;
  double base;
  if (r == 0) {
    base = 0.5 + 1.5 * u;
  } else if (r == 1) {
    double eps = ldexp(1.0 + u, -1 - (int)(splitmix(&st) % 52));
    base = (splitmix(&st) & 1) ? 1.0 + eps : 1.0 - eps / 2;
  } else {
    base = exp2(-1000.0 + 2000.0 * u);
  }
  double l = log(base);
  *b = base;
  *e = l != 0 ? p / l : p;
}

// Input i of n for one function: the first half bit patterns (evenly spaced,
// each jittered within its stride), the second half the dense ranges. For
// the binary functions x is the second operand.
static void input(const f64a_fn *f, int64_t i, int64_t n, double *y, double *x) {
  if (f->arity == 2 && f->op2 == TFR_POWER) {
    pow_input(f, i, n, y, x);
    return;
  }
  uint64_t st = (uint64_t)i * 0x2545f4914f6cdd1du + 77;
  int64_t half = n / 2;
  if (i < half) {
    uint64_t stride = UINT64_MAX / (uint64_t)half;
    *y = tfr_bench_f64_of((uint64_t)i * stride + splitmix(&st) % stride);
    *x = tfr_bench_f64_of(splitmix(&st));
    return;
  }
  int64_t k = i - half, m = n - half, r = k % 3, per = (m + 2) / 3;
  double t = per > 1 ? (double)(k / 3) / (double)(per - 1) : 0.5;
  double v = f->lo[r] + (f->hi[r] - f->lo[r]) * t;
  if (f->arity == 1) {
    *y = v;
    *x = 0;
    return;
  }
  // binary: y / x = v, x of random sign and magnitude within 2^+-30
  double u = (double)(splitmix(&st) >> 11) * 0x1p-53;
  double xs = ldexp(1.0 + u, (int)(splitmix(&st) % 61) - 30);
  *x = (splitmix(&st) & 1) ? -xs : xs;
  *y = v * *x;
}

typedef struct f64a_stats {
  int64_t n, not_cr, over1, special;
  uint64_t max_ulp;
  double where_y, where_x, max_err;
} f64a_stats;

static void device_eval(tfr_backend *gpu, const f64a_fn *f, const double *y, const double *x,
                        int64_t n, double *out) {
  tfr_session *s = NULL;
  TFR_CHECK("session", tfr_session_begin(gpu, &s));
  tfr_tensor *dy = tfr_bench_upload(s, TFR_F64, n, sizeof(double), y), *dout = NULL;
  tfr_tensor *dx = f->arity == 2 ? tfr_bench_upload(s, TFR_F64, n, sizeof(double), x) : NULL;
  if (dx) TFR_CHECK(f->name, tfr_binary(s, f->op2, dy, dx, &dout));
  else TFR_CHECK(f->name, tfr_unary(s, f->op1, dy, &dout));
  tfr_bench_read_back(s, dout, out, (size_t)n * sizeof(double));
  tfr_tensor_release(dout);
  tfr_tensor_release(dx);
  tfr_tensor_release(dy);
  TFR_CHECK("session end", tfr_session_end(s));
}

// Compares n results against the binary128 reference into st.
static void compare(const f64a_fn *f, const double *y, const double *x, const double *got,
                    int64_t n, f64a_stats *st) {
  int nt = omp_get_max_threads();
  f64a_stats *part = calloc((size_t)nt, sizeof *part);
  if (!part) tfr_die("calloc", TFR_ERR_OUT_OF_MEMORY);
#pragma omp parallel
  {
    f64a_stats *p = &part[omp_get_thread_num()];
#pragma omp for schedule(static)
    for (int64_t i = 0; i < n; i++) {
      __float128 q = f->arity == 1 ? f->ref1((__float128)y[i]) : f->ref2(y[i], x[i]);
      double want = (double)q, g = got[i];
      p->n++;
      if (isnan(want) || isnan(g)) {
        p->special += isnan(want) != isnan(g);
        continue;
      }
      if (want == 0 && g == 0) {
        p->special += signbit(want) != signbit(g);
        continue;
      }
      uint64_t d = ulp_dist(want, g);
      p->not_cr += d > 0;
      p->over1 += d > 1;
      double err = isinf(g) || isinf(want) ? (double)d : (double)(fabsq((__float128)g - q) / ulp_at(want));
      if (d > p->max_ulp || (d == p->max_ulp && err > p->max_err)) {
        p->max_ulp = d;
        p->max_err = err;
        p->where_y = y[i];
        p->where_x = x[i];
      }
    }
  }
  for (int t = 0; t < nt; t++) {
    const f64a_stats *p = &part[t];
    st->n += p->n;
    st->not_cr += p->not_cr;
    st->over1 += p->over1;
    st->special += p->special;
    if (p->max_ulp > st->max_ulp || (p->max_ulp == st->max_ulp && p->max_err > st->max_err)) {
      st->max_ulp = p->max_ulp;
      st->max_err = p->max_err;
      st->where_y = p->where_y;
      st->where_x = p->where_x;
    }
  }
  free(part);
}

static bool selected(const char *only, const char *name) {
  if (!only) return true;
  size_t len = strlen(name);
  for (const char *p = only; *p;) {
    const char *e = strchr(p, ',');
    size_t l = e ? (size_t)(e - p) : strlen(p);
    if (l == len && !strncmp(p, name, l)) return true;
    p += l + (e != NULL);
  }
  return false;
}

int main(int argc, char **argv) {
  int64_t n = INT64_C(1) << 24, chunk = INT64_C(1) << 21;
  const char *only = NULL, *json = NULL;
  int adapter = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--n") && i + 1 < argc) n = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--chunk") && i + 1 < argc) chunk = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else if (!strcmp(argv[i], "--json") && i + 1 < argc) json = argv[++i];
    else if (!strcmp(argv[i], "--adapter") && i + 1 < argc) adapter = atoi(argv[++i]);
    else {
      fprintf(stderr, "usage: %s [--n N] [--only a,b] [--json FILE] [--adapter I] [--chunk N]\n",
              argv[0]);
      return 2;
    }
  }
  if (n < 16 || chunk < 1024) {
    fprintf(stderr, TFR_BENCH_PROG ": bad --n (at least 16) or --chunk (at least 1024)\n");
    return 2;
  }
  int nsel = 0;
  for (int i = 0; i < F64A_NFNS; i++) nsel += selected(only, f64a_fns[i].name);
  if (!nsel) {
    fprintf(stderr, TFR_BENCH_PROG ": --only names no function of:");
    for (int i = 0; i < F64A_NFNS; i++) fprintf(stderr, " %s", f64a_fns[i].name);
    fprintf(stderr, "\n");
    return 2;
  }
  tfr_backend *gpu = tfr_bench_webgpu(adapter);
  tfr_webgpu_adapter_info info;
  TFR_CHECK("adapter info", tfr_webgpu_get_adapter_info(gpu, &info));
  printf("device: %s; %" PRId64 " inputs per function (half bit patterns over all 2^64, half on "
         "three dense ranges); reference: libquadmath binary128, %d threads\n",
         info.name, n, omp_get_max_threads());
  printf("%-9s %10s %8s %24s %24s %9s %10s %6s %7s %6s\n", "function", "inputs", "max_ulp", "at y",
         "at x", "max_err", "not_cr", ">1ulp", "special", "s");
  if (chunk > n) chunk = n;
  double *y = malloc((size_t)chunk * sizeof *y), *x = malloc((size_t)chunk * sizeof *x),
         *out = malloc((size_t)chunk * sizeof *out);
  f64a_stats *rows = calloc(F64A_NFNS, sizeof *rows);
  double *secs = calloc(F64A_NFNS, sizeof *secs);
  if (!y || !x || !out || !rows || !secs) tfr_die("malloc", TFR_ERR_OUT_OF_MEMORY);
  int failed = 0;
  for (int fi = 0; fi < F64A_NFNS; fi++) {
    const f64a_fn *f = &f64a_fns[fi];
    if (!selected(only, f->name)) continue;
    double t0 = tfr_now();
    for (int64_t done = 0; done < n;) {
      int64_t m = n - done < chunk ? n - done : chunk;
#pragma omp parallel for schedule(static)
      for (int64_t i = 0; i < m; i++) input(f, done + i, n, &y[i], &x[i]);
      device_eval(gpu, f, y, x, m, out);
      compare(f, y, x, out, m, &rows[fi]);
      done += m;
    }
    secs[fi] = tfr_now() - t0;
    const f64a_stats *r = &rows[fi];
    failed += r->over1 > 0 || r->special > 0;
    printf("%-9s %10" PRId64 " %8" PRIu64 " %24.17g %24.17g %9.4f %10" PRId64 " %6" PRId64
           " %7" PRId64 " %6.1f\n",
           f->name, r->n, r->max_ulp, r->where_y, f->arity == 2 ? r->where_x : NAN, r->max_err,
           r->not_cr, r->over1, r->special, secs[fi]);
    fflush(stdout);
  }
  if (json) {
    FILE *fp = fopen(json, "w");
    if (!fp) {
      perror(json);
      return 1;
    }
    fprintf(fp, "{\n  \"device\": \"%s\",\n  \"inputs_per_function\": %" PRId64
                ",\n  \"reference\": \"libquadmath binary128\",\n  \"functions\": [\n",
            info.name, n);
    const char *sep = "";
    for (int fi = 0; fi < F64A_NFNS; fi++) {
      const f64a_stats *r = &rows[fi];
      if (!r->n) continue;
      fprintf(fp,
              "%s    {\"name\": \"%s\", \"inputs\": %" PRId64 ", \"max_ulp\": %" PRIu64
              ", \"max_ulp_y\": %.17g, \"max_ulp_x\": %.17g, \"max_err_ulp\": %.4f, "
              "\"not_correctly_rounded\": %" PRId64 ", \"over_1ulp\": %" PRId64
              ", \"special_mismatch\": %" PRId64 ", \"seconds\": %.1f}",
              sep, f64a_fns[fi].name, r->n, r->max_ulp, r->where_y,
              f64a_fns[fi].arity == 2 ? r->where_x : 0.0, r->max_err, r->not_cr, r->over1,
              r->special, secs[fi]);
      sep = ",\n";
    }
    fprintf(fp, "\n  ]\n}\n");
    fclose(fp);
  }
  free(y);
  free(x);
  free(out);
  free(rows);
  free(secs);
  tfr_backend_release(gpu);
  return failed ? 1 : 0;
}
