// Shared helpers of the unit tests.
#include "support.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/half.h"

int tfr_test_setup_cpu(void **state) {
  tfr_test_env *env = calloc(1, sizeof *env);
  if (!env) return -1;
  tfr_cpu_options opts = {.num_threads = 2};
  if (tfr_backend_create_cpu(&opts, &env->backend) != TFR_OK) return -1;
  if (tfr_session_begin(env->backend, &env->session) != TFR_OK) return -1;
  *state = env;
  return 0;
}

int tfr_test_teardown_cpu(void **state) {
  tfr_test_env *env = *state;
  if (!env) return 0;
  int rc = tfr_session_end(env->session) == TFR_OK ? 0 : -1;
  tfr_backend_release(env->backend);
  free(env);
  return rc;
}

void tfr_test_assert_ok(tfr_status st, const char *expr, const char *file, int line) {
  if (st != TFR_OK) {
    print_error("%s:%d: %s returned %s: %s\n", file, line, expr, tfr_status_string(st),
                tfr_last_error_message());
    _fail(file, line);
  }
}

void tfr_test_assert_error(tfr_status st, tfr_status want, const char *expr, const char *file,
                           int line, ...) {
  if (st != want) {
    print_error("%s:%d: %s returned %s, expected %s (message: %s)\n", file, line, expr,
                tfr_status_string(st), tfr_status_string(want), tfr_last_error_message());
    _fail(file, line);
  }
  va_list args;
  va_start(args, line);
  const char *sub;
  while ((sub = va_arg(args, const char *)) != NULL) {
    if (!strstr(tfr_last_error_message(), sub)) {
      print_error("%s:%d: message of %s lacks \"%s\": %s\n", file, line, expr, sub,
                  tfr_last_error_message());
      va_end(args);
      _fail(file, line);
    }
  }
  va_end(args);
}

tfr_tensor *tfr_test_tensor(tfr_dtype dtype, int rank, const int64_t *shape, const void *data) {
  tfr_tensor *t = NULL;
  TFR_ASSERT_OK(tfr_tensor_from_host(dtype, rank, shape, data, &t));
  return t;
}

uint64_t tfr_test_rand_u64(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double tfr_test_rand_uniform(uint64_t *state, double lo, double hi) {
  return lo + (hi - lo) * ((double)(tfr_test_rand_u64(state) >> 11) * 0x1.0p-53);
}

static double tfr_test_nonzero(uint64_t *state) {
  double v;
  do v = tfr_test_rand_uniform(state, -2.0, 2.0);
  while (fabs(v) < 0.01);
  return v;
}

tfr_tensor *tfr_test_random_tensor(tfr_dtype dtype, int rank, const int64_t *shape,
                                   uint64_t seed) {
  int64_t n = 1;
  for (int k = 0; k < rank; k++) n *= shape[k];
  size_t es = tfr_dtype_size(dtype);
  unsigned char *buf = malloc((size_t)n * es + 1);
  assert_non_null(buf);
  uint64_t st = seed * 0x2545F4914F6CDD1DULL + 1;
  for (int64_t i = 0; i < n; i++) {
    unsigned char *p = buf + (size_t)i * es;
    switch (dtype) {
      case TFR_BOOL: p[0] = (unsigned char)(n >= 2 && i < 2 ? (uint64_t)i : tfr_test_rand_u64(&st) & 1); break;
      case TFR_I32: {
        int32_t v = (int32_t)(tfr_test_rand_u64(&st) % 200) - 100;
        if (v >= 0) v++;
        memcpy(p, &v, 4);
        break;
      }
      case TFR_I64: {
        int64_t v = (int64_t)(tfr_test_rand_u64(&st) % 200) - 100;
        if (v >= 0) v++;
        memcpy(p, &v, 8);
        break;
      }
      case TFR_I8: {
        int8_t v = (int8_t)((int)(tfr_test_rand_u64(&st) % 200) - 100);
        if (v >= 0) v++;
        memcpy(p, &v, 1);
        break;
      }
      case TFR_I16: {
        int16_t v = (int16_t)((int)(tfr_test_rand_u64(&st) % 200) - 100);
        if (v >= 0) v++;
        memcpy(p, &v, 2);
        break;
      }
      case TFR_U8:
      case TFR_U16:
      case TFR_U32:
      case TFR_U64: {
        // 1..200 in the low bytes (little-endian host).
        uint64_t v = tfr_test_rand_u64(&st) % 200 + 1;
        uint8_t b8 = (uint8_t)v;
        uint16_t b16 = (uint16_t)v;
        uint32_t b32 = (uint32_t)v;
        memcpy(p, es == 1 ? (const void *)&b8 : es == 2 ? (const void *)&b16
                  : es == 4 ? (const void *)&b32 : (const void *)&v, es);
        break;
      }
      case TFR_F16: {
        uint16_t v = tfr_f64_to_f16(tfr_test_nonzero(&st));
        memcpy(p, &v, 2);
        break;
      }
      case TFR_BF16: {
        uint16_t v = tfr_f64_to_bf16(tfr_test_nonzero(&st));
        memcpy(p, &v, 2);
        break;
      }
      case TFR_F32: {
        float v = (float)tfr_test_nonzero(&st);
        memcpy(p, &v, 4);
        break;
      }
      case TFR_F64: {
        double v = tfr_test_nonzero(&st);
        memcpy(p, &v, 8);
        break;
      }
      case TFR_C64: {
        float v[2] = {(float)tfr_test_nonzero(&st), (float)tfr_test_nonzero(&st)};
        memcpy(p, v, 8);
        break;
      }
      case TFR_C128: {
        double v[2] = {tfr_test_nonzero(&st), tfr_test_nonzero(&st)};
        memcpy(p, v, 16);
        break;
      }
    }
  }
  tfr_tensor *t = tfr_test_tensor(dtype, rank, shape, buf);
  free(buf);
  return t;
}

int64_t tfr_test_ulp_f32(float a, float b) {
  if (isnan(a) && isnan(b)) return 0;
  if (isnan(a) || isnan(b)) return INT64_MAX;
  if (a == b) return 0;
  if (isinf(a) || isinf(b)) return INT64_MAX;
  int32_t ia, ib;
  memcpy(&ia, &a, 4);
  memcpy(&ib, &b, 4);
  int64_t x = ia & INT32_MAX, y = ib & INT32_MAX;
  if ((ia < 0) != (ib < 0)) return x + y;
  return x > y ? x - y : y - x;
}

double tfr_test_f64_of(uint64_t u) {
  double d;
  memcpy(&d, &u, 8);
  return d;
}

uint64_t tfr_test_f64_bits(double d) {
  uint64_t u;
  memcpy(&u, &d, 8);
  return u;
}

int64_t tfr_test_ulp_f64(double a, double b) {
  if (isnan(a) && isnan(b)) return 0;
  if (isnan(a) || isnan(b)) return INT64_MAX;
  if (a == b) return 0;
  if (isinf(a) || isinf(b)) return INT64_MAX;
  int64_t ia, ib;
  memcpy(&ia, &a, 8);
  memcpy(&ib, &b, 8);
  // Opposite signs: the distance through zero (saturating); else the
  // difference of the magnitudes' bit patterns.
  if ((ia < 0) != (ib < 0)) {
    uint64_t d = (uint64_t)(ia & INT64_MAX) + (uint64_t)(ib & INT64_MAX);
    return d > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)d;
  }
  int64_t x = ia & INT64_MAX, y = ib & INT64_MAX;
  return x > y ? x - y : y - x;
}

// Compares two host tensors of one dtype elementwise with a tolerance
// relative to the largest |expected| (sums of products reorder freely).
void tfr_test_expect_close(const tfr_tensor *got, const tfr_tensor *want, const char *what) {
  bool same_shape = tfr_tensor_rank(got) == tfr_tensor_rank(want);
  for (int k = 0; same_shape && k < tfr_tensor_rank(got); k++)
    same_shape = tfr_tensor_shape(got)[k] == tfr_tensor_shape(want)[k];
  if (!same_shape) print_error("%s: result shape differs from numpy's\n", what);
  assert_int_equal(tfr_tensor_dtype(got), tfr_tensor_dtype(want));
  assert_int_equal(tfr_tensor_rank(got), tfr_tensor_rank(want));
  for (int k = 0; k < tfr_tensor_rank(got); k++)
    assert_int_equal(tfr_tensor_shape(got)[k], tfr_tensor_shape(want)[k]);
  int64_t n = tfr_tensor_numel(got);
  tfr_dtype dt = tfr_tensor_dtype(got);
  size_t es = tfr_dtype_size(dt);
  unsigned char *g = malloc((size_t)n * es + 16), *w = malloc((size_t)n * es + 16);
  TFR_ASSERT_OK(tfr_tensor_read(got, g, (size_t)n * es));
  TFR_ASSERT_OK(tfr_tensor_read(want, w, (size_t)n * es));
  double maxabs = 0;
  double *gv = malloc((size_t)n * 16 + 16), *wv = malloc((size_t)n * 16 + 16);
  for (int64_t i = 0; i < n; i++) {
    double gr = 0, gi = 0, wr = 0, wi = 0;
    switch (dt) {
      case TFR_F64: gr = ((double *)g)[i]; wr = ((double *)w)[i]; break;
      case TFR_F32: gr = ((float *)g)[i]; wr = ((float *)w)[i]; break;
      case TFR_C128: gr = ((double *)g)[2 * i]; gi = ((double *)g)[2 * i + 1];
                     wr = ((double *)w)[2 * i]; wi = ((double *)w)[2 * i + 1]; break;
      case TFR_C64: gr = ((float *)g)[2 * i]; gi = ((float *)g)[2 * i + 1];
                    wr = ((float *)w)[2 * i]; wi = ((float *)w)[2 * i + 1]; break;
      case TFR_I32: gr = ((int32_t *)g)[i]; wr = ((int32_t *)w)[i]; break;
      case TFR_I64: gr = (double)((int64_t *)g)[i]; wr = (double)((int64_t *)w)[i]; break;
      default: fail();
    }
    gv[2 * i] = gr; gv[2 * i + 1] = gi; wv[2 * i] = wr; wv[2 * i + 1] = wi;
    if (fabs(wr) > maxabs) maxabs = fabs(wr);
    if (fabs(wi) > maxabs) maxabs = fabs(wi);
  }
  double tol = (dt == TFR_F64 || dt == TFR_C128) ? 1e-12 : (dt == TFR_F32 || dt == TFR_C64) ? 2e-5 : 0;
  for (int64_t i = 0; i < 2 * n; i++) {
    double d = fabs(gv[i] - wv[i]);
    if (d > tol * (maxabs > 1 ? maxabs : 1)) {
      print_error("%s: element %lld: got %.17g expected %.17g\n", what, (long long)(i / 2), gv[i], wv[i]);
      fail();
    }
  }
  free(g);
  free(w);
  free(gv);
  free(wv);
}

// ---------------------------------------------------------------------------
// WebGPU tests
// ---------------------------------------------------------------------------

tfr_backend *tfr_test_cpu;
tfr_backend *tfr_test_gpu;
char tfr_test_gpu_reason[1100];
bool tfr_test_gpu_required;
int tfr_test_gpu_skipped;
static tfr_session *tfr_test_open_session;

static bool tfr_test_gpu_ftz;
static void tfr_test_probe_flush(void);

int tfr_test_setup_webgpu(void **state) {
  (void)state;
  const char *req = getenv("TFR_REQUIRE_WEBGPU");
  tfr_test_gpu_required = req && strcmp(req, "1") == 0;
  tfr_cpu_options co = {.num_threads = 2};
  if (tfr_backend_create_cpu(&co, &tfr_test_cpu) != TFR_OK) return -1;
  tfr_status st = tfr_backend_create_webgpu(NULL, &tfr_test_gpu);
  if (st) {
    snprintf(tfr_test_gpu_reason, sizeof tfr_test_gpu_reason,
             "webgpu backend unavailable (%s): %s", tfr_status_string(st),
             tfr_last_error_message());
    tfr_test_gpu = NULL;
  }
  tfr_test_gpu_ftz = false;
  if (tfr_test_gpu) tfr_test_probe_flush();
  return 0;
}

int tfr_test_teardown_webgpu(void **state) {
  (void)state;
  tfr_backend_release(tfr_test_gpu);
  tfr_backend_release(tfr_test_cpu);
  tfr_test_gpu = tfr_test_cpu = NULL;
  return 0;
}

tfr_session *tfr_test_begin(tfr_backend *b) {
  tfr_session *s = NULL;
  TFR_ASSERT_OK(tfr_session_begin(b, &s));
  tfr_test_open_session = s;
  return s;
}

void tfr_test_end(tfr_session *s) {
  tfr_test_open_session = NULL;
  TFR_ASSERT_OK(tfr_session_end(s));
}

int tfr_test_teardown_session(void **state) {
  (void)state;
  if (tfr_test_open_session) {
    tfr_status st = tfr_session_end(tfr_test_open_session);
    (void)st;  // the test has failed already
    tfr_test_open_session = NULL;
  }
  return 0;
}

tfr_tensor *tfr_test_upload(tfr_session *s, const tfr_tensor *host) {
  tfr_tensor *d = NULL;
  TFR_ASSERT_OK(tfr_upload(s, host, &d));
  return d;
}

tfr_tensor *tfr_test_download(tfr_session *s, const tfr_tensor *dev) {
  tfr_tensor *h = NULL;
  TFR_ASSERT_OK(tfr_download(s, dev, &h));
  return h;
}

bool tfr_test_gpu_flushes_subnormals(void) { return tfr_test_gpu_ftz; }

// Sets tfr_test_gpu_ftz (tfr_test_setup_webgpu, outside any session).
static void tfr_test_probe_flush(void) {
  const int64_t n = 2;
  const float a[2] = {FLT_MIN, 0x1p-149f}, b[2] = {0.5f, 0.0f};
  tfr_tensor *ha = tfr_test_tensor(TFR_F32, 1, &n, a), *hb = tfr_test_tensor(TFR_F32, 1, &n, b);
  tfr_session *s = tfr_test_begin(tfr_test_gpu);
  tfr_tensor *da = tfr_test_upload(s, ha), *db = tfr_test_upload(s, hb);
  tfr_tensor *prod = NULL, *sum = NULL;
  TFR_ASSERT_OK(tfr_multiply(s, da, db, &prod));
  TFR_ASSERT_OK(tfr_add(s, da, db, &sum));
  tfr_tensor *hp = tfr_test_download(s, prod), *hs = tfr_test_download(s, sum);
  tfr_test_end(s);
  float p[2], q[2];
  TFR_ASSERT_OK(tfr_tensor_read(hp, p, sizeof p));
  TFR_ASSERT_OK(tfr_tensor_read(hs, q, sizeof q));
  tfr_test_gpu_ftz = p[0] == 0.0f || q[1] == 0.0f;
  if (tfr_test_gpu_ftz)
    print_message("[  INFO    ] the webgpu device flushes f32 subnormals to zero (FLT_MIN * 0.5 "
                  "= %a, 2^-149 + 0 = %a): subnormal inputs are compared as zeros\n",
                  (double)p[0], (double)q[1]);
  tfr_tensor *all[] = {ha, hb, da, db, prod, sum, hp, hs};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) tfr_tensor_release(all[i]);
}

void tfr_test_flush_subnormals(tfr_tensor *host) {
  tfr_dtype dt = tfr_tensor_dtype(host);
  if (dt != TFR_F32 && dt != TFR_C64) return;
  float *v = NULL;
  TFR_ASSERT_OK(tfr_tensor_host_data(host, (void **)&v));
  int64_t n = tfr_tensor_numel(host) * (dt == TFR_C64 ? 2 : 1);
  for (int64_t i = 0; i < n; i++)
    if (fpclassify(v[i]) == FP_SUBNORMAL) v[i] = copysignf(0.0f, v[i]);
}

void tfr_test_apply_filter(void) {
  const char *f = getenv("TFR_TEST_FILTER");
  if (f && *f) cmocka_set_test_filter(f);
}

int tfr_test_webgpu_exit(int failed) {
  if (failed == 0 && tfr_test_gpu_skipped > 0) return 77;
  return failed;
}

double tfr_test_abs_floor_f32(int op) {
  return op == TFR_LGAMMA || op == TFR_DIGAMMA ? 8.0 * FLT_EPSILON : 0.0;
}

tfr_status tfr_test_cpu_vs_gpu(tfr_test_op_fn run, const void *run_ctx, tfr_tensor *const *host,
                               int nin, int64_t n, int pieces, tfr_test_piece_fn compare,
                               void *compare_ctx, char *err, size_t errcap) {
  tfr_tensor *want = NULL, *got[16] = {NULL};
  assert_true(nin <= 4 && pieces <= 16);
  tfr_session *s = tfr_test_begin(tfr_test_cpu);
  if (run(run_ctx, s, host, &want)) fail_msg("on cpu: %s", tfr_last_error_message());
  tfr_test_end(s);
  s = tfr_test_begin(tfr_test_gpu);
  tfr_tensor *dev[4] = {NULL};
  for (int i = 0; i < nin; i++) dev[i] = tfr_test_upload(s, host[i]);
  tfr_status st = TFR_OK;
  for (int p = 0; p < pieces && !st; p++) {
    int64_t lo = n * p / pieces, len = n * (p + 1) / pieces - lo, one = 1;
    tfr_tensor *view[4] = {NULL}, *out = NULL;
    for (int i = 0; i < nin; i++) TFR_ASSERT_OK(tfr_tensor_view(dev[i], 1, &len, &one, lo, &view[i]));
    st = run(run_ctx, s, view, &out);
    if (st) snprintf(err, errcap, "%s", tfr_last_error_message());
    else got[p] = tfr_test_download(s, out);
    tfr_tensor_release(out);
    for (int i = 0; i < nin; i++) tfr_tensor_release(view[i]);
  }
  for (int i = 0; i < nin; i++) tfr_tensor_release(dev[i]);
  tfr_test_end(s);
  for (int p = 0; p < pieces && !st; p++) {
    int64_t lo = n * p / pieces, len = n * (p + 1) / pieces - lo, one = 1;
    tfr_tensor *wv = NULL;
    TFR_ASSERT_OK(tfr_tensor_view(want, 1, &len, &one, lo, &wv));
    compare(compare_ctx, wv, got[p], lo, p);
    tfr_tensor_release(wv);
  }
  for (int p = 0; p < pieces; p++) tfr_tensor_release(got[p]);
  tfr_tensor_release(want);
  return st;
}

tfr_tensor *tfr_test_words_tensor(tfr_dtype dt, int64_t n, const uint64_t *v) {
  size_t es = tfr_dtype_size(dt);
  unsigned char *buf = malloc((size_t)n * es + 1);
  assert_non_null(buf);
  for (int64_t i = 0; i < n; i++) {
    unsigned char *p = buf + (size_t)i * es;
    if (dt == TFR_BOOL) {
      p[0] = (unsigned char)(v[i] & 1);
    } else if (es == 8) {
      memcpy(p, &v[i], 8);
    } else {  // 4, 2 or 1 bytes: the low ones
      uint32_t w = (uint32_t)v[i];
      unsigned char le[4] = {(unsigned char)w, (unsigned char)(w >> 8), (unsigned char)(w >> 16),
                             (unsigned char)(w >> 24)};
      memcpy(p, le, es);
    }
  }
  tfr_tensor *t = tfr_test_tensor(dt, 1, &n, buf);
  free(buf);
  return t;
}

// Whether the part of `size` bytes at p is a NaN of dtype dt (f64, f32 or a
// c64 part).
static bool tfr_test_part_is_nan(tfr_dtype dt, const unsigned char *p, size_t size) {
  if ((dt == TFR_F64 || dt == TFR_C128) && size == 8) {
    uint64_t u;
    memcpy(&u, p, 8);
    return (u & ~(UINT64_C(1) << 63)) > UINT64_C(0x7ff0000000000000);
  }
  if ((dt == TFR_F32 || dt == TFR_C64) && size == 4) {
    uint32_t u;
    memcpy(&u, p, 4);
    return (u & 0x7fffffffu) > 0x7f800000u;
  }
  if ((dt == TFR_F16 || dt == TFR_BF16) && size == 2) {
    uint16_t u;
    memcpy(&u, p, 2);
    return (u & 0x7fffu) > (dt == TFR_F16 ? 0x7c00u : 0x7f80u);
  }
  return false;
}

int tfr_test_compare_bits(const tfr_tensor *want, const tfr_tensor *got, const uint64_t *a,
                          const uint64_t *b, const char *what, tfr_test_bit_counts *cnt) {
  tfr_dtype dt = tfr_tensor_dtype(want);
  assert_int_equal(dt, tfr_tensor_dtype(got));
  int64_t n = tfr_tensor_numel(want);
  assert_int_equal(n, tfr_tensor_numel(got));
  size_t es = tfr_dtype_size(dt), nb = (size_t)n * es;
  unsigned char *x = malloc(nb + 1), *y = malloc(nb + 1);
  assert_true(x && y);
  TFR_ASSERT_OK(tfr_tensor_read(want, x, nb + 1));
  TFR_ASSERT_OK(tfr_tensor_read(got, y, nb + 1));
  // Floats are compared per part (8 bytes for f64 and c128 parts, 4 for f32
  // and c64 parts).
  size_t part = (dt == TFR_F64 || dt == TFR_C128) ? 8 : (dt == TFR_F32 || dt == TFR_C64) ? 4 : es;
  int64_t bad = 0;
  int lines = 0;
  for (int64_t i = 0; i < n; i++) {
    cnt->compared++;
    for (size_t q = 0; q < es / part; q++) {
      const unsigned char *px = x + (size_t)i * es + q * part, *py = y + (size_t)i * es + q * part;
      bool nan_x = tfr_test_part_is_nan(dt, px, part), nan_y = tfr_test_part_is_nan(dt, py, part);
      bool same = memcmp(px, py, part) == 0;
      if (nan_x) {
        cnt->nan_results++;
        if (same) cnt->nan_bits_equal++;
      }
      if (same || (nan_x && nan_y)) continue;
      if (++bad <= 4) {
        uint64_t u = 0, v = 0;
        memcpy(&u, px, part < 8 ? part : 8);
        memcpy(&v, py, part < 8 ? part : 8);
        print_error("MISMATCH: %s: element %lld: a 0x%016llx, b 0x%016llx: cpu 0x%llx, webgpu "
                    "0x%llx\n",
                    what, (long long)i, (unsigned long long)(a ? a[i] : 0),
                    (unsigned long long)(b ? b[i] : 0), (unsigned long long)u,
                    (unsigned long long)v);
        lines++;
      }
    }
  }
  if (bad > 4) {
    print_error("MISMATCH: %s: %lld mismatching values in all\n", what, (long long)bad);
    lines++;
  }
  free(x);
  free(y);
  return lines;
}

void tfr_test_fusion_cpu_vs_gpu(const tfr_fusion_plan *p, tfr_tensor *const *host, int nin,
                                int nout, tfr_tensor **want, tfr_tensor **got) {
  assert_true(nin <= 16 && nout <= 16);
  for (int pass = 0; pass < 2; pass++) {
    tfr_session *s = tfr_test_begin(pass ? tfr_test_gpu : tfr_test_cpu);
    tfr_tensor *in[16], *out[16] = {NULL};
    for (int i = 0; i < nin; i++)
      in[i] = pass ? tfr_test_upload(s, host[i]) : (tfr_tensor_retain(host[i]), host[i]);
    if (tfr_fusion_execute(s, p, (const tfr_tensor *const *)in, out))
      fail_msg("fusion on %s: %s", pass ? "webgpu" : "cpu", tfr_last_error_message());
    for (int o = 0; o < nout; o++) {
      if (pass) {
        got[o] = tfr_test_download(s, out[o]);
        tfr_tensor_release(out[o]);
      } else {
        want[o] = out[o];
      }
    }
    tfr_test_end(s);
    for (int i = 0; i < nin; i++) tfr_tensor_release(in[i]);
  }
}
