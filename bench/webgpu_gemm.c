// tenferro-bench-webgpu-gemm: dot_general (matrix products) on the webgpu
// backend, TFLOP/s per shape; the PyTorch peer (bench/peers/torch_gemm.py,
// same shapes) runs in the same device call.
//
// usage: tenferro-bench-webgpu-gemm [--dtype f32|c64|i32|all] [--quick] [--tune]
//                                   [--shape MxNxK[xB][t]]... [--adapter I]
//   --dtype D    element type (default all of f32 and c64)
//   --quick      the small shapes only (a smoke run, e.g. on lavapipe)
//   --shape S    measure S instead of the sweep (repeatable): M x N x K,
//                optional batch B, suffix t for a transposed (column-major) lhs
//   --tune       every tile configuration below on the tuning shapes (through
//                TFR_WEBGPU_GEMM_TILE), best first per shape
// Each result is checked first: 64 sampled elements against a float64 sum on
// the host (fresh random data, never zeros). Times: wall clock per call,
// the median of 5 trials of R calls (R such that a trial takes ~0.2 s),
// after a warm-up, each trial ending with the queue idle (a one-element
// download). FLOP = 2 M N K per batch element (8 M N K for c64: the real
// operations of a complex product, as cuBLAS/PyTorch count them).
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tenferro/tenferro.h"

#define TFR_BENCH_PROG "tenferro-bench-webgpu-gemm"
#include "bench_util.h"

typedef struct tfr_shape {
  int64_t m, n, k, batch;
  bool lhs_t;  // lhs stored [K, M] (column-major), used through a transposed view
} tfr_shape;

static const tfr_shape tfr_sweep[] = {
    {64, 64, 64, 1, false},       {128, 128, 128, 1, false},    {256, 256, 256, 1, false},
    {512, 512, 512, 1, false},    {1024, 1024, 1024, 1, false}, {2048, 2048, 2048, 1, false},
    {4096, 4096, 4096, 1, false}, {8192, 8192, 8192, 1, false}, {4096, 4096, 4096, 1, true},
    {8192, 1024, 8192, 1, false}, {1024, 8192, 8192, 1, false}, {8192, 8192, 1024, 1, false},
    {4096, 4096, 256, 1, false},  {256, 256, 8192, 1, false},   {8192, 64, 4096, 1, false},
    {1000, 1000, 1000, 1, false}, {3000, 2000, 1500, 1, false}, {256, 256, 256, 64, false},
    {128, 128, 128, 256, false},  {64, 64, 64, 1024, false},    {1024, 1024, 1024, 16, false},
    {8192, 1, 8192, 1, false},    {1, 8192, 8192, 1, false},
};
static const tfr_shape tfr_quick[] = {
    {64, 64, 64, 1, false},  {128, 128, 128, 1, false}, {100, 70, 90, 1, true},
    {64, 64, 64, 4, false},  {256, 1, 256, 1, false},   {256, 256, 256, 1, false},
};
static const tfr_shape tfr_tune_shapes[] = {
    {1024, 1024, 1024, 1, false}, {2048, 2048, 2048, 1, false}, {4096, 4096, 4096, 1, false},
    {8192, 8192, 8192, 1, false}, {8192, 8192, 1024, 1, false}, {256, 256, 8192, 1, false},
    {128, 128, 128, 256, false},
};
static const char *const tfr_tune_real[] = {
    "128x128x8:8x8", "128x128x16:8x8", "128x64x8:8x4", "64x128x8:4x8", "128x64x16:8x4",
    "64x64x8:4x4",   "64x64x16:4x4",   "256x128x8:8x8", "128x256x8:8x8", "32x32x8:4x4",
};
static const char *const tfr_tune_complex[] = {
    "64x64x8:4x4",   "64x64x16:4x4", "128x64x8:8x4", "64x128x8:4x8", "64x64x8:4x8",
    "64x64x16:4x8",  "32x32x8:2x2",  "64x32x8:4x2",  "32x64x16:2x4", "128x128x8:8x4",
};

static uint64_t g_rng = 0x9e3779b97f4a7c15ULL;
static double tfr_rand(void) {  // uniform in [-1, 1)
  uint64_t z = (g_rng += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1p-52 - 1.0;
}

// A random host tensor of `n` elements of dt (i32 in [-8, 8]).
static tfr_tensor *tfr_random(tfr_dtype dt, int rank, const int64_t *shape) {
  int64_t n = 1;
  for (int k = 0; k < rank; k++) n *= shape[k];
  tfr_tensor *t = NULL;
  TFR_CHECK("zeros_host", tfr_tensor_zeros_host(dt, rank, shape, &t));
  void *p = NULL;
  TFR_CHECK("host_data", tfr_tensor_host_data(t, &p));
  if (dt == TFR_I32) {
    int32_t *x = p;
    for (int64_t i = 0; i < n; i++) x[i] = (int32_t)lrint(8 * tfr_rand());
  } else {
    float *x = p;
    int64_t parts = dt == TFR_C64 ? 2 * n : n;
    for (int64_t i = 0; i < parts; i++) x[i] = (float)tfr_rand();
  }
  return t;
}

typedef struct tfr_problem {
  tfr_shape s;
  tfr_dtype dt;
  tfr_tensor *hl, *hr;       // host: lhs [B, M, K] (or [B, K, M] when lhs_t), rhs [B, K, N]
  tfr_tensor *dl, *dr, *dlv;  // device, dlv the lhs as [B, M, K]
  tfr_tensor *probe;
  tfr_dot_config cfg;
  int64_t lb, rb, lc, rc;
} tfr_problem;

static void tfr_problem_init(tfr_session *s, tfr_problem *p, tfr_shape sh, tfr_dtype dt) {
  memset(p, 0, sizeof *p);
  p->s = sh;
  p->dt = dt;
  int64_t ls[3] = {sh.batch, sh.lhs_t ? sh.k : sh.m, sh.lhs_t ? sh.m : sh.k};
  int64_t rs[3] = {sh.batch, sh.k, sh.n};
  p->hl = tfr_random(dt, 3, ls);
  p->hr = tfr_random(dt, 3, rs);
  TFR_CHECK("upload", tfr_upload(s, p->hl, &p->dl));
  TFR_CHECK("upload", tfr_upload(s, p->hr, &p->dr));
  if (sh.lhs_t) {
    int64_t perm[3] = {0, 2, 1};
    TFR_CHECK("view", tfr_tensor_view_transpose(p->dl, perm, &p->dlv));
  } else {
    tfr_tensor_retain(p->dl);
    p->dlv = p->dl;
  }
  int64_t one = 1;
  tfr_tensor *h1 = tfr_random(TFR_F32, 1, &one);
  TFR_CHECK("upload", tfr_upload(s, h1, &p->probe));
  tfr_tensor_release(h1);
  p->lb = 0, p->rb = 0, p->lc = 2, p->rc = 1;
  tfr_dot_config c = {1, &p->lb, &p->rb, 1, &p->lc, &p->rc, false, false};
  p->cfg = c;
}

static void tfr_problem_free(tfr_problem *p) {
  tfr_tensor_release(p->hl);
  tfr_tensor_release(p->hr);
  tfr_tensor_release(p->dl);
  tfr_tensor_release(p->dr);
  tfr_tensor_release(p->dlv);
  tfr_tensor_release(p->probe);
}

// Checks 64 sampled elements of y against float64 sums (the 64 elements
// alone are downloaded); returns the largest
// error relative to the largest |sample|.
static double tfr_check(tfr_session *s, const tfr_problem *p, const tfr_tensor *y) {
  void *pl, *pr;
  TFR_CHECK("host_data", tfr_tensor_host_data(p->hl, &pl));
  TFR_CHECK("host_data", tfr_tensor_host_data(p->hr, &pr));
  int cx = p->dt == TFR_C64 ? 2 : 1;
  const tfr_shape *sh = &p->s;
  double maxref = 0, maxerr = 0;
  for (int t = 0; t < 64; t++) {
    int64_t b = (int64_t)((tfr_rand() + 1) * 0.5 * (double)sh->batch);
    int64_t i = (int64_t)((tfr_rand() + 1) * 0.5 * (double)sh->m);
    int64_t j = (int64_t)((tfr_rand() + 1) * 0.5 * (double)sh->n);
    double re = 0, im = 0;
    for (int64_t k = 0; k < sh->k; k++) {
      int64_t li = sh->lhs_t ? (b * sh->k + k) * sh->m + i : (b * sh->m + i) * sh->k + k;
      int64_t ri = (b * sh->k + k) * sh->n + j;
      if (p->dt == TFR_I32) {
        re += (double)((const int32_t *)pl)[li] * (double)((const int32_t *)pr)[ri];
      } else if (cx == 1) {
        re += (double)((const float *)pl)[li] * (double)((const float *)pr)[ri];
      } else {
        const float *a = (const float *)pl + 2 * li, *c = (const float *)pr + 2 * ri;
        re += (double)a[0] * c[0] - (double)a[1] * c[1];
        im += (double)a[0] * c[1] + (double)a[1] * c[0];
      }
    }
    // The sampled element alone (a one-element view: no full download).
    int64_t start[3] = {b, i, j}, limit[3] = {b + 1, i + 1, j + 1};
    tfr_tensor *v = NULL, *hv = NULL;
    TFR_CHECK("view", tfr_tensor_view_slice(y, start, limit, NULL, &v));
    TFR_CHECK("download", tfr_download(s, v, &hv));
    float got[2] = {0, 0};
    TFR_CHECK("read", tfr_tensor_read(hv, got, (size_t)cx * 4));
    tfr_tensor_release(hv);
    tfr_tensor_release(v);
    double gr = got[0], gi = got[1];
    if (p->dt == TFR_I32) {
      int32_t iv;
      memcpy(&iv, got, 4);
      gr = iv;
    }
    if (fabs(re) > maxref) maxref = fabs(re);
    if (fabs(im) > maxref) maxref = fabs(im);
    double e = fabs(gr - re) > fabs(gi - im) ? fabs(gr - re) : fabs(gi - im);
    if (!(e <= maxerr)) maxerr = isnan(e) ? INFINITY : e > maxerr ? e : maxerr;
  }
  return maxref > 0 ? maxerr / maxref : maxerr;
}

// Median seconds per call over 5 trials of R calls, R such that a trial
// takes ~0.06 s (from one timed call after the warm-up).
static double tfr_time(tfr_session *s, const tfr_problem *p) {
  double t1 = 0;
  for (int i = 0; i < 2; i++) {  // the first call warms up
    double t0 = tfr_now();
    tfr_tensor *y = NULL;
    TFR_CHECK("dot_general", tfr_dot_general(s, p->dlv, p->dr, &p->cfg, &y));
    tfr_tensor_release(y);
    tfr_sync(s, p->probe);
    t1 = tfr_now() - t0;
  }
  int reps = (int)(0.06 / t1);
  if (reps < 1) reps = 1;
  if (reps > 2000) reps = 2000;
  double t[5];
  for (int trial = 0; trial < 5; trial++) {
    double t0 = tfr_now();
    for (int r = 0; r < reps; r++) {
      tfr_tensor *y = NULL;
      TFR_CHECK("dot_general", tfr_dot_general(s, p->dlv, p->dr, &p->cfg, &y));
      tfr_tensor_release(y);
    }
    tfr_sync(s, p->probe);
    t[trial] = (tfr_now() - t0) / reps;
  }
  for (int i = 1; i < 5; i++)
    for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
      double x = t[j];
      t[j] = t[j - 1];
      t[j - 1] = x;
    }
  return t[2];
}

// Measures a prepared problem: checks, times; returns TFLOP/s (0 when the
// call or the check fails).
static double tfr_measure(tfr_session *s, const tfr_problem *p, double *err_out) {
  tfr_tensor *y = NULL;
  tfr_status st = tfr_dot_general(s, p->dlv, p->dr, &p->cfg, &y);
  if (st) {
    fprintf(stderr, "  dot_general failed: %s\n", tfr_last_error_message());
    *err_out = INFINITY;
    return 0;
  }
  double err = tfr_check(s, p, y);
  tfr_tensor_release(y);
  *err_out = err;
  double tol = p->dt == TFR_I32 ? 0 : 1e-4;
  const tfr_shape *sh = &p->s;
  double flop = (p->dt == TFR_C64 ? 8.0 : 2.0) * (double)sh->m * (double)sh->n * (double)sh->k *
                (double)sh->batch;
  return err <= tol ? flop / tfr_time(s, p) * 1e-12 : 0;
}

static void tfr_shape_name(const tfr_shape *s, char *buf, size_t cap) {
  if (s->batch > 1)
    snprintf(buf, cap, "%" PRId64 "x%" PRId64 "x%" PRId64 "x%" PRId64 "%s", s->m, s->n, s->k,
             s->batch, s->lhs_t ? "t" : "");
  else
    snprintf(buf, cap, "%" PRId64 "x%" PRId64 "x%" PRId64 "%s", s->m, s->n, s->k,
             s->lhs_t ? "t" : "");
}

static bool tfr_parse_shape(const char *a, tfr_shape *s) {
  memset(s, 0, sizeof *s);
  s->batch = 1;
  char tail[8] = {0};
  int n = sscanf(a, "%" SCNd64 "x%" SCNd64 "x%" SCNd64 "x%" SCNd64 "%7s", &s->m, &s->n, &s->k,
                 &s->batch, tail);
  if (n < 4) {
    s->batch = 1;
    n = sscanf(a, "%" SCNd64 "x%" SCNd64 "x%" SCNd64 "%7s", &s->m, &s->n, &s->k, tail);
    if (n < 3) return false;
  }
  s->lhs_t = tail[0] == 't';
  return s->m > 0 && s->n > 0 && s->k > 0 && s->batch > 0;
}

int main(int argc, char **argv) {
  bool quick = false, tune = false;
  const char *dts = "all";
  tfr_shape custom[64];
  int ncustom = 0;
  tfr_webgpu_options opts;
  memset(&opts, 0, sizeof opts);
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0) {
      quick = true;
    } else if (strcmp(argv[i], "--tune") == 0) {
      tune = true;
    } else if (strcmp(argv[i], "--dtype") == 0 && i + 1 < argc) {
      dts = argv[++i];
    } else if (strcmp(argv[i], "--adapter") == 0 && i + 1 < argc) {
      opts.adapter_index = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--shape") == 0 && i + 1 < argc && ncustom < 64) {
      if (!tfr_parse_shape(argv[++i], &custom[ncustom++])) {
        fprintf(stderr, "tenferro-bench-webgpu-gemm: bad shape '%s'\n", argv[i]);
        return 2;
      }
    } else {
      fprintf(stderr,
              "usage: tenferro-bench-webgpu-gemm [--dtype f32|c64|i32|all] [--quick] [--tune] "
              "[--shape MxNxK[xB][t]]... [--adapter I]\n");
      return 2;
    }
  }
  tfr_dtype dtypes[3];
  int ndt = 0;
  if (strcmp(dts, "all") == 0 || strcmp(dts, "f32") == 0) dtypes[ndt++] = TFR_F32;
  if (strcmp(dts, "all") == 0 || strcmp(dts, "c64") == 0) dtypes[ndt++] = TFR_C64;
  if (strcmp(dts, "i32") == 0) dtypes[ndt++] = TFR_I32;
  if (!ndt) {
    fprintf(stderr, "tenferro-bench-webgpu-gemm: unknown dtype '%s'\n", dts);
    return 2;
  }

  tfr_backend *gpu = NULL;
  TFR_CHECK("backend_create_webgpu", tfr_backend_create_webgpu(&opts, &gpu));
  tfr_webgpu_adapter_info info;
  TFR_CHECK("adapter info", tfr_webgpu_get_adapter_info(gpu, &info));
  printf("tenferro-bench-webgpu-gemm: %s (%s)\n", info.name, info.driver);
  tfr_session *s = NULL;
  TFR_CHECK("session_begin", tfr_session_begin(gpu, &s));

  const tfr_shape *shapes = custom;
  int nshapes = ncustom;
  if (!ncustom) {
    if (tune) {
      shapes = tfr_tune_shapes;
      nshapes = (int)(sizeof tfr_tune_shapes / sizeof tfr_tune_shapes[0]);
    } else if (quick) {
      shapes = tfr_quick;
      nshapes = (int)(sizeof tfr_quick / sizeof tfr_quick[0]);
    } else {
      shapes = tfr_sweep;
      nshapes = (int)(sizeof tfr_sweep / sizeof tfr_sweep[0]);
    }
  }
  for (int d = 0; d < ndt; d++) {
    const char *dn = tfr_dtype_name(dtypes[d]);
    if (!tune) {
      printf("\n%-22s %-5s %10s %10s\n", "shape MxNxK[xbatch]", "dtype", "TFLOP/s", "rel.err");
      for (int i = 0; i < nshapes; i++) {
        char name[64];
        tfr_shape_name(&shapes[i], name, sizeof name);
        tfr_problem p;
        tfr_problem_init(s, &p, shapes[i], dtypes[d]);
        double err;
        double r = tfr_measure(s, &p, &err);
        tfr_problem_free(&p);
        printf("%-22s %-5s %10.3f %10.2e%s\n", name, dn, r, err, r == 0 ? "  FAILED CHECK" : "");
        fflush(stdout);
      }
      continue;
    }
    bool cx = dtypes[d] == TFR_C64;
    const char *const *cfgs = cx ? tfr_tune_complex : tfr_tune_real;
    int ncfg = cx ? (int)(sizeof tfr_tune_complex / sizeof tfr_tune_complex[0])
                  : (int)(sizeof tfr_tune_real / sizeof tfr_tune_real[0]);
    for (int i = 0; i < nshapes; i++) {
      char name[64];
      tfr_shape_name(&shapes[i], name, sizeof name);
      double best = 0;
      const char *best_cfg = "-";
      tfr_problem p;
      tfr_problem_init(s, &p, shapes[i], dtypes[d]);
      printf("\ntune %s %s:", dn, name);
      for (int c = 0; c < ncfg; c++) {
        setenv("TFR_WEBGPU_GEMM_TILE", cfgs[c], 1);
        double err;
        double r = tfr_measure(s, &p, &err);
        printf(" %s=%.2f", cfgs[c], r);
        fflush(stdout);
        if (r > best) best = r, best_cfg = cfgs[c];
      }
      unsetenv("TFR_WEBGPU_GEMM_TILE");
      double err;
      double def = tfr_measure(s, &p, &err);
      tfr_problem_free(&p);
      printf("\nbest %s %s %s %.2f (table's choice %.2f)\n", dn, name, best_cfg, best, def);
    }
  }
  TFR_CHECK("session_end", tfr_session_end(s));
  tfr_backend_release(gpu);
  return 0;
}
