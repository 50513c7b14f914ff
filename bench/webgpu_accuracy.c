// tenferro-bench-webgpu-accuracy: the accuracy of the webgpu backend's WGSL
// math library (src/webgpu/kernels/common/math_f32.wgsl, math_c64.wgsl; method
// and results in docs/accuracy.md).
//
// Unary f32 functions: every f32 bit pattern (or every STEP-th one) on the
// device, in chunks, against the host reference (glibc's double function,
// rounded to f32), computed with OpenMP. Binary f32 functions (pow, atan2,
// div, fmod): a dense 2-D grid of bit patterns plus, for pow, a sample whose
// results span the whole range. Printed per function: the largest distance
// from the correctly rounded result in ulps and where, the largest error
// against the double reference in (fractional) ulps, the counts above 1 and
// 2 ulps, NaN/infinity/signed-zero mismatches.
//
// usage: tenferro-bench-webgpu-accuracy [--step N] [--grid N] [--only a,b,..]
//                                       [--json FILE] [--adapter I] [--chunk N]
//                                       [--builtins]
//        tenferro-bench-webgpu-accuracy --eval NAME X [Y]
//   --step N   every N-th bit pattern (default 1: all 2^32; 4099 on lavapipe)
//   --grid N   N x N pairs for binary functions (default 4096)
//   --only L   comma-separated function names (exp_f32, pow_f32, ...)
//   --json F   writes the table to F
//   --chunk N  elements per device round trip (default 2^22: 16 MiB pieces,
//              which the host's allocator reuses; fresh larger ones fault
//              their pages in at ~1.5 GB/s on the H200 host)
//   --builtins also WGSL's own exp, log, sin, ... (wgsl_*: not used by the
//              library; measured to show why)
//   --eval     prints one value with the reference (debugging)
// Subnormals: a device that flushes them (detected: exp(-100) gives 0) is
// compared only where inputs and references are normal; the count skipped
// is printed.
#include <inttypes.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/backend_impl.h"
#include "tenferro/tenferro.h"
#include "webgpu/math_eval.h"

#define TFR_BENCH_PROG "tenferro-bench-webgpu-accuracy"
#include "bench_util.h"

// Runs `name` on n elements of x (and y) on the device.
static void device_eval(tfr_backend *gpu, const char *name, const float *x, const float *y,
                        int64_t n, float *out) {
  tfr_session *s = NULL;
  TFR_CHECK("session", tfr_session_begin(gpu, &s));
  tfr_tensor *dx = tfr_bench_upload(s, TFR_F32, n, sizeof(float), x), *dout = NULL;
  tfr_tensor *dy = y ? tfr_bench_upload(s, TFR_F32, n, sizeof(float), y) : NULL;
  TFR_CHECK("alloc", tfr_tensor_alloc(gpu, TFR_F32, 1, &n, false, &dout));
  TFR_CHECK(name, tfr_wgpu_math_eval(gpu, name, dx, dy, dout));
  tfr_bench_read_back(s, dout, out, (size_t)n * sizeof(float));
  tfr_tensor_release(dout);
  tfr_tensor_release(dy);
  tfr_tensor_release(dx);
  TFR_CHECK("session end", tfr_session_end(s));
}

// ulp of the f32 grid at v (subnormal spacing below 2^-126).
static double ulp_at(double v) {
  v = fabs(v);
  if (!(v >= 0x1p-126)) return 0x1p-149;
  if (v >= 0x1p128) return 0x1p104;
  int e;
  frexp(v, &e);
  return ldexp(1.0, e - 24);
}

static int64_t ulp_dist(float a, float b) {
  if (isnan(a) && isnan(b)) return 0;
  if (isnan(a) || isnan(b)) return INT64_MAX;
  if (a == b) return signbit(a) == signbit(b) ? 0 : INT64_MAX;
  if (isinf(a) || isinf(b)) return INT64_MAX;
  int64_t ia = tfr_bench_f32_bits(a) & 0x7fffffff, ib = tfr_bench_f32_bits(b) & 0x7fffffff;
  if (signbit(a) != signbit(b)) return ia + ib;
  return ia > ib ? ia - ib : ib - ia;
}

static bool subnormal(double v) { return v != 0 && fabs(v) < 0x1p-126; }

typedef struct stats {
  int64_t n, skipped, over1, over2, special;  // special: NaN/inf/signed-zero mismatches
  int64_t max_ulp;
  double max_err;  // against the double reference, in ulps of the result
  float where_x, where_y, got, want;
  float err_x, err_y;
} stats;

static void stats_merge(stats *a, const stats *b) {
  a->n += b->n;
  a->skipped += b->skipped;
  a->over1 += b->over1;
  a->over2 += b->over2;
  a->special += b->special;
  if (b->max_ulp > a->max_ulp) {
    a->max_ulp = b->max_ulp;
    a->where_x = b->where_x;
    a->where_y = b->where_y;
    a->got = b->got;
    a->want = b->want;
  }
  if (b->max_err > a->max_err) {
    a->max_err = b->max_err;
    a->err_x = b->err_x;
    a->err_y = b->err_y;
  }
}

static void compare(const tfr_wgpu_math_fn *fn, const float *x, const float *y, const float *got,
                    int64_t n, bool ftz, stats *total) {
#pragma omp parallel
  {
    stats s;
    memset(&s, 0, sizeof s);
#pragma omp for schedule(static)
    for (int64_t i = 0; i < n; i++) {
      double dx = x[i], dy = y ? y[i] : 0.0, ref;
      tfr_wgpu_math_reference(fn, &dx, y ? &dy : NULL, &ref);
      float want = (float)ref;
      if (ftz && (subnormal(dx) || subnormal(dy) || subnormal(ref) ||
                  (fabs(ref) < 0x1p-125 && got[i] == 0))) {
        s.skipped++;
        continue;
      }
      s.n++;
      int64_t d = ulp_dist(got[i], want);
      if (d == INT64_MAX) s.special++;
      if (d > 1) s.over1++;
      if (d > 2) s.over2++;
      if (d > s.max_ulp) {
        s.max_ulp = d;
        s.where_x = x[i];
        s.where_y = y ? y[i] : 0.0f;
        s.got = got[i];
        s.want = want;
      }
      if (d != INT64_MAX && isfinite(ref) && isfinite(got[i])) {
        double e = fabs((double)got[i] - ref) / ulp_at(ref);
        if (e > s.max_err) {
          s.max_err = e;
          s.err_x = x[i];
          s.err_y = y ? y[i] : 0.0f;
        }
      }
    }
#pragma omp critical
    stats_merge(total, &s);
  }
}

typedef struct row {
  const char *name;
  stats s;
  double seconds;
} row;

static void print_row(const row *r, bool binary) {
  const stats *s = &r->s;
  char where[96];
  if (binary)
    snprintf(where, sizeof where, "(%.9g, %.9g)", s->where_x, s->where_y);
  else
    snprintf(where, sizeof where, "%.9g (%a)", s->where_x, s->where_x);
  char ulps[24];
  if (s->max_ulp == INT64_MAX) snprintf(ulps, sizeof ulps, "special");
  else snprintf(ulps, sizeof ulps, "%" PRId64, s->max_ulp);
  printf("%-14s %12" PRId64 " %8s %-34s %8.3f %10" PRId64 " %10" PRId64 " %8" PRId64 " %9" PRId64
         " %7.1f\n",
         r->name, s->n, ulps, s->max_ulp == 0 ? "-" : where,
         s->max_err, s->over1, s->over2, s->special, s->skipped, r->seconds);
  if (s->max_ulp == INT64_MAX || s->max_ulp > 0)
    printf("%-14s   there: got %a, want %a (correctly rounded)\n", "", s->got, s->want);
}

int main(int argc, char **argv) {
  int64_t step = 1, grid = 4096, chunk = (int64_t)1 << 22;
  bool builtins = false;
  const char *only = NULL, *json = NULL;
  int adapter = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--step") && i + 1 < argc) step = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--grid") && i + 1 < argc) grid = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--chunk") && i + 1 < argc) chunk = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else if (!strcmp(argv[i], "--json") && i + 1 < argc) json = argv[++i];
    else if (!strcmp(argv[i], "--adapter") && i + 1 < argc) adapter = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--builtins")) builtins = true;
    else if (!strcmp(argv[i], "--eval") && i + 2 < argc) break;
    else {
      fprintf(stderr, "usage: %s [--step N] [--grid N] [--only a,b] [--json FILE] [--adapter I] "
                      "[--chunk N] [--builtins] | --eval NAME X [Y]\n", argv[0]);
      return 2;
    }
  }
  if (step < 1 || grid < 2 || chunk < 1024) {
    fprintf(stderr, "tenferro-bench-webgpu-accuracy: bad --step/--grid/--chunk\n");
    return 2;
  }
  tfr_backend *gpu = tfr_bench_webgpu(adapter);

  // --eval NAME X [Y]
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--eval")) continue;
    const tfr_wgpu_math_fn *fn = tfr_wgpu_math_find(argv[i + 1]);
    if (!fn || fn->in != TFR_F32) {
      fprintf(stderr, "--eval: no f32 function %s\n", argv[i + 1]);
      return 2;
    }
    float x = strtof(argv[i + 2], NULL);
    float y = fn->arity == 2 && i + 3 < argc ? strtof(argv[i + 3], NULL) : 0.0f;
    float out;
    device_eval(gpu, fn->name, &x, fn->arity == 2 ? &y : NULL, 1, &out);
    double dx = x, dy = y, ref;
    tfr_wgpu_math_reference(fn, &dx, fn->arity == 2 ? &dy : NULL, &ref);
    printf("%s(%a%s%a) = %a (%.9g); reference %a (%.17g): %.3f ulp\n", fn->name, x,
           fn->arity == 2 ? ", " : "", fn->arity == 2 ? y : 0.0f, out, out, ref, ref,
           fabs(out - ref) / ulp_at(ref));
    tfr_backend_release(gpu);
    return 0;
  }

  tfr_webgpu_adapter_info info;
  TFR_CHECK("adapter info", tfr_webgpu_get_adapter_info(gpu, &info));
  float probe = -100.0f, pout = 0, fprobe = 1.0f + 0x1p-12f, fout = 0;
  device_eval(gpu, "exp_f32", &probe, NULL, 1, &pout);
  device_eval(gpu, "fma_residual_f32", &fprobe, NULL, 1, &fout);
  bool ftz = pout == 0.0f;
  printf("device: %s; subnormals %s; fma %s; %d host threads\n", info.name,
         ftz ? "FLUSHED (not compared)" : "kept", fout == 0.0f ? "not fused" : "fused",
         omp_get_max_threads());
  printf("unary: every %" PRId64 "-th f32 bit pattern (%" PRId64 " inputs); binary: %" PRId64
         " x %" PRId64 " grid\n\n",
         step, (int64_t)((UINT64_C(1) << 32) + (uint64_t)step - 1) / step, grid, grid);
  printf("%-14s %12s %8s %-34s %8s %10s %10s %8s %9s %7s\n", "function", "inputs", "max ulp",
         "at", "max err", ">1 ulp", ">2 ulp", "special", "skipped", "s");

  int nfn;
  const tfr_wgpu_math_fn *fns = tfr_wgpu_math_functions(&nfn);
  row *rows = calloc((size_t)nfn, sizeof(row));
  int nrows = 0;
  float *x = malloc((size_t)chunk * sizeof(float));
  float *y = malloc((size_t)chunk * sizeof(float));
  float *out = malloc((size_t)chunk * sizeof(float));
  if (!rows || !x || !y || !out) tfr_die("host memory", TFR_ERR_OUT_OF_MEMORY);

  for (int f = 0; f < nfn; f++) {
    const tfr_wgpu_math_fn *fn = &fns[f];
    if (fn->in != TFR_F32 || strstr(fn->name, "residual") || strstr(fn->name, "_err_")) continue;
    if (!strncmp(fn->name, "wgsl_", 5) && !builtins) continue;
    if (only) {
      const char *p = strstr(only, fn->name);
      size_t len = strlen(fn->name);
      if (!p || (p != only && p[-1] != ',') || (p[len] != '\0' && p[len] != ',')) continue;
    }
    row *r = &rows[nrows++];
    r->name = fn->name;
    double t0 = tfr_now();
    if (fn->arity == 1) {
      uint64_t b = 0;
      while (b < (UINT64_C(1) << 32)) {
        int64_t n = 0;
        for (; n < chunk && b < (UINT64_C(1) << 32); n++, b += (uint64_t)step)
          x[n] = tfr_bench_f32_of((uint32_t)b);
        device_eval(gpu, fn->name, x, NULL, n, out);
        compare(fn, x, NULL, out, n, ftz, &r->s);
      }
    } else {
      // grid x grid bit patterns spread over the whole range, row by row
      uint64_t gstep = ((UINT64_C(1) << 32) + (uint64_t)grid - 1) / (uint64_t)grid;
      int64_t total = grid * grid, done = 0;
      while (done < total) {
        int64_t n = 0;
        for (; n < chunk && done < total; n++, done++) {
          x[n] = tfr_bench_f32_of((uint32_t)((uint64_t)(done / grid) * gstep + 12345u));
          y[n] = tfr_bench_f32_of((uint32_t)((uint64_t)(done % grid) * gstep + 6789u));
        }
        device_eval(gpu, fn->name, x, y, n, out);
        compare(fn, x, y, out, n, ftz, &r->s);
      }
      if (!strcmp(fn->name, "pow_f32")) {
        // finite, non-trivial results: x in [2^-20, 2^20], |y log x| <= 110
        uint64_t st = 0x12345678u;
        int64_t m = grid * grid;
        done = 0;
        while (done < m) {
          int64_t n = 0;
          for (; n < chunk && done < m; n++, done++) {
            st = st * 6364136223846793005ull + 1442695040888963407ull;
            double u = (double)(st >> 11) * 0x1p-53;
            st = st * 6364136223846793005ull + 1442695040888963407ull;
            double v = (double)(st >> 11) * 0x1p-53;
            double xx = exp2(-20 + 40 * u);
            x[n] = (float)xx;
            y[n] = (float)((-110 + 220 * v) / log(xx));
          }
          device_eval(gpu, fn->name, x, y, n, out);
          compare(fn, x, y, out, n, ftz, &r->s);
        }
      }
    }
    r->seconds = tfr_now() - t0;
    print_row(r, fn->arity == 2);
    fflush(stdout);
  }

  if (json) {
    FILE *fp = fopen(json, "w");
    if (!fp) {
      perror(json);
      return 1;
    }
    fprintf(fp, "{\n  \"device\": \"%s\",\n  \"subnormals_flushed\": %s,\n  \"fma_fused\": %s,\n",
            info.name, ftz ? "true" : "false", fout == 0.0f ? "false" : "true");
    fprintf(fp, "  \"step\": %" PRId64 ",\n  \"grid\": %" PRId64 ",\n  \"functions\": [\n", step,
            grid);
    for (int i = 0; i < nrows; i++) {
      const stats *s = &rows[i].s;
      fprintf(fp,
              "    {\"name\": \"%s\", \"inputs\": %" PRId64 ", \"max_ulp\": %" PRId64
              ", \"max_ulp_x\": %.9g, \"max_ulp_y\": %.9g, \"max_err_ulp\": %.4f, "
              "\"over_1ulp\": %" PRId64 ", \"over_2ulp\": %" PRId64
              ", \"special_mismatch\": %" PRId64
              ", \"skipped\": %" PRId64 ", \"seconds\": %.1f}%s\n",
              rows[i].name, s->n, s->max_ulp == INT64_MAX ? -1 : s->max_ulp, s->where_x,
              s->where_y, s->max_err, s->over1, s->over2, s->special, s->skipped, rows[i].seconds,
              i + 1 < nrows ? "," : "");
    }
    fprintf(fp, "  ]\n}\n");
    fclose(fp);
  }
  free(x);
  free(y);
  free(out);
  free(rows);
  tfr_backend_release(gpu);
  return 0;
}
