// Tests of the webgpu structural ops: convert among f32, i32, bool, c64 and
// f64 (every pair, special values, strided views; test_webgpu_f64.c converts
// f64 on random bit patterns of every exponent), tril/triu (every dtype, batch
// axes, diagonal offsets far out of range), iota (every webgpu dtype, rank
// and iota_dimension), reduce_precision. Each result must equal the cpu
// backend's bit for bit. The ops the core builds from views and copies
// (transpose, reshape, broadcast_in_dim, copy, extract/embed_diagonal) on
// every dtype and layout are in test_backend_ops.c.
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#define NDT 7
static const tfr_dtype g_webgpu_dtypes[NDT] = {TFR_F32, TFR_I32, TFR_BOOL, TFR_C64,
                                               TFR_F64, TFR_I64, TFR_U64};

static void *read_all(const tfr_tensor *t) {
  size_t n = tfr_tensor_nbytes(t);
  void *p = malloc(n + 16);
  assert_non_null(p);
  TFR_ASSERT_OK(tfr_tensor_read(t, p, n));
  return p;
}

// Equal dtype, shape and bytes.
static void assert_same(const tfr_tensor *want, const tfr_tensor *got, const char *what) {
  assert_int_equal(tfr_tensor_dtype(want), tfr_tensor_dtype(got));
  assert_int_equal(tfr_tensor_rank(want), tfr_tensor_rank(got));
  for (int k = 0; k < tfr_tensor_rank(want); k++)
    assert_int_equal(tfr_tensor_shape(want)[k], tfr_tensor_shape(got)[k]);
  size_t n = tfr_tensor_nbytes(want);
  unsigned char *a = read_all(want), *b = read_all(got);
  if (memcmp(a, b, n) != 0) {
    size_t es = tfr_dtype_size(tfr_tensor_dtype(want)), i = 0;
    while (a[i] == b[i]) i++;
    fail_msg("%s (%s): element %zu differs (byte %zu: want 0x%02x, got 0x%02x)", what,
             tfr_dtype_name(tfr_tensor_dtype(want)), i / es, i, a[i], b[i]);
  }
  free(a);
  free(b);
}

// An op of one operand with its arguments in `ctx`.
typedef tfr_status (*op_fn)(tfr_session *s, const tfr_tensor *x, const void *ctx,
                            tfr_tensor **out);
typedef tfr_status (*view_fn)(const tfr_tensor *t, tfr_tensor **out);

static tfr_status view_same(const tfr_tensor *t, tfr_tensor **out) {
  return tfr_tensor_view(t, tfr_tensor_rank(t), tfr_tensor_shape(t), tfr_tensor_strides(t),
                         tfr_tensor_offset(t), out);
}

// Axis 0 reversed (negative stride), and for rank >= 2 the last two axes
// swapped (a transposition: the tiled copy kernel).
static tfr_status view_rev_t(const tfr_tensor *t, tfr_tensor **out) {
  int r = tfr_tensor_rank(t);
  int64_t axis = 0;
  if (r < 2) return tfr_tensor_view_reverse(t, 1, &axis, out);
  tfr_tensor *rev = NULL;
  tfr_status st = tfr_tensor_view_reverse(t, 1, &axis, &rev);
  int64_t perm[8];
  for (int k = 0; k < r; k++) perm[k] = k;
  perm[r - 2] = r - 1;
  perm[r - 1] = r - 2;
  if (!st) st = tfr_tensor_view_transpose(rev, perm, out);
  tfr_tensor_release(rev);
  return st;
}

// Every other element along the last axis (strided).
static tfr_status view_step2(const tfr_tensor *t, tfr_tensor **out) {
  int r = tfr_tensor_rank(t);
  int64_t start[8] = {0}, limit[8], step[8];
  for (int k = 0; k < r; k++) limit[k] = tfr_tensor_shape(t)[k], step[k] = 1;
  step[r - 1] = 2;
  return tfr_tensor_view_slice(t, start, limit, step, out);
}

// Runs op(view(h)) on the cpu and on webgpu and compares.
static void check_op(const tfr_tensor *h, view_fn view, op_fn op, const void *ctx,
                     const char *what) {
  if (!view) view = view_same;
  tfr_tensor *hv = NULL, *want = NULL;
  TFR_ASSERT_OK(view(h, &hv));
  tfr_session *s = tfr_test_begin(tfr_test_cpu);
  TFR_ASSERT_OK(op(s, hv, ctx, &want));
  tfr_test_end(s);
  s = tfr_test_begin(tfr_test_gpu);
  tfr_tensor *d = tfr_test_upload(s, h), *dv = NULL, *dy = NULL;
  TFR_ASSERT_OK(view(d, &dv));
  TFR_ASSERT_OK(op(s, dv, ctx, &dy));
  assert_false(tfr_tensor_is_host(dy));
  tfr_tensor *got = tfr_test_download(s, dy);
  tfr_test_end(s);
  assert_same(want, got, what);
  tfr_tensor_release(got);
  tfr_tensor_release(dy);
  tfr_tensor_release(dv);
  tfr_tensor_release(d);
  tfr_tensor_release(want);
  tfr_tensor_release(hv);
}

// ---------------------------------------------------------------------------
// convert
// ---------------------------------------------------------------------------

static tfr_status op_convert(tfr_session *s, const tfr_tensor *x, const void *ctx,
                             tfr_tensor **out) {
  return tfr_convert(s, x, *(const tfr_dtype *)ctx, out);
}

static void test_convert_pairs(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  const float nan = __builtin_nanf(""), inf = __builtin_inff();
  // Floats where conversions differ (NaN, infinities, saturation, signed
  // zero, truncation), as f32 and as the parts of c64 values.
  float fv[] = {nan,  inf,   -inf, 2147483648.0f, -2147483648.0f, 3e9f, -3e9f, -0.0f, 0.0f,
                1.5f, -1.5f, 0.49f, -0.99f, 16777216.0f, 7.0f, 123.75f};
  int64_t nf = sizeof fv / sizeof fv[0];
  // c64: (re, im) with a zero real part and nonzero imaginary (-> bool true),
  // both zero (-> false), -0 parts, NaN in either part.
  float cv[] = {0.0f, 1.0f,  0.0f, 0.0f,  -0.0f, -0.0f, nan,  0.0f, 0.0f, nan, 2.5f, -3.0f,
                -7.9f, 0.0f, inf, -inf, 3e9f, 1.0f,  -1e-3f, 0.0f, 1.0f, -0.0f, 0.0f, -2.0f};
  int64_t nc = sizeof cv / sizeof cv[0] / 2;
  int32_t iv[] = {0, 1, -1, 16777217, -16777217, INT32_MAX, INT32_MIN, 33554435, 100, -7};
  int64_t ni = sizeof iv / sizeof iv[0];
  uint8_t bv[] = {0, 1, 1, 0, 1, 0, 0, 1, 1};
  int64_t nb = sizeof bv;
  // f64: rounding to f32 (ties, overflow to inf, f32 subnormals, underflow
  // to zero), saturation to i32, NaN with a payload.
  const double dnan = __builtin_nan("0x12345"), dinf = __builtin_inf();
  double dv[] = {dnan, -dnan, dinf, -dinf, 0.0, -0.0, 1.0 + 0x1p-24, 1.0 + 0x1p-23 + 0x1p-24,
                 3.4028235677973366e38, 3.4028235677973362e38, 1e39, 0x1p-149, 0x1p-150,
                 0x1.8p-149, 1e-46, 0x1.fffffep-127, 2147483647.9, 2147483648.0, -2147483648.9,
                 -2147483649.0, 1e300, -0.7, 0.3, 1e-310};
  int64_t nd = sizeof dv / sizeof dv[0];
  // i64 / u64: the word boundary, the ends, f32 and f64 ties.
  int64_t lv[] = {0, 1, -1, INT64_MIN, INT64_MAX, 4294967295, 4294967296, -4294967296,
                  2147483648, -2147483649, 9007199254740993, 16777217, (int64_t)0x8000008000000000u,
                  0x7ffffffffffffc00};
  int64_t nl = sizeof lv / sizeof lv[0];
  tfr_tensor *srcs[NDT] = {tfr_test_tensor(TFR_F32, 1, &nf, fv), tfr_test_tensor(TFR_I32, 1, &ni, iv),
                           tfr_test_tensor(TFR_BOOL, 1, &nb, bv),
                           tfr_test_tensor(TFR_C64, 1, &nc, cv), tfr_test_tensor(TFR_F64, 1, &nd, dv),
                           tfr_test_tensor(TFR_I64, 1, &nl, lv), tfr_test_tensor(TFR_U64, 1, &nl, lv)};
  for (int a = 0; a < NDT; a++)
    for (int t = 0; t < NDT; t++) {
      char what[64];
      snprintf(what, sizeof what, "convert %s -> %s", tfr_dtype_name(tfr_tensor_dtype(srcs[a])),
               tfr_dtype_name(g_webgpu_dtypes[t]));
      check_op(srcs[a], NULL, op_convert, &g_webgpu_dtypes[t], what);
      check_op(srcs[a], view_rev_t, op_convert, &g_webgpu_dtypes[t], what);
    }
  for (int a = 0; a < NDT; a++) tfr_tensor_release(srcs[a]);
  // Random data, 2-D, through transposed and strided views.
  int64_t shape[2] = {67, 129};
  for (int a = 0; a < NDT; a++) {
    tfr_tensor *r = tfr_test_random_tensor(g_webgpu_dtypes[a], 2, shape, 3 + (uint64_t)a);
    for (int t = 0; t < NDT; t++) {
      char what[64];
      snprintf(what, sizeof what, "convert random %s -> %s", tfr_dtype_name(g_webgpu_dtypes[a]),
               tfr_dtype_name(g_webgpu_dtypes[t]));
      check_op(r, NULL, op_convert, &g_webgpu_dtypes[t], what);
      check_op(r, view_rev_t, op_convert, &g_webgpu_dtypes[t], what);
      check_op(r, view_step2, op_convert, &g_webgpu_dtypes[t], what);
    }
    tfr_tensor_release(r);
  }
}

// c128 against every dtype, both ways (every dtype converts on webgpu): the
// real part as f64 converts on, imaginary parts are dropped or +0; edge parts
// (NaN, infinities, saturation bounds, ties, subnormals) and random values.
static void test_convert_c128_every_dtype(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  const double dnan = __builtin_nan("0x12345"), dinf = __builtin_inf();
  double zv[] = {dnan, 1.0, -dinf, dinf, -0.0, 0.0, 2147483648.0, -2.5, -2147483649.0, 1e300,
                 65504.0, 65520.0, 255.5, -128.5, 32767.7, -32768.9, 0x1p-149, 1e-310,
                 4294967295.9, -1.0, 3.4028235677973366e38, 0.3, 1.0 + 0x1p-11, 0x1p-25};
  int64_t nz = sizeof zv / sizeof zv[0] / 2;
  tfr_tensor *edge = tfr_test_tensor(TFR_C128, 1, &nz, zv);
  int64_t shape[2] = {19, 33};
  tfr_tensor *rz = tfr_test_random_tensor(TFR_C128, 2, shape, 77);
  const tfr_dtype c128 = TFR_C128;
  for (int d = 0; d < TFR_DTYPE_COUNT; d++) {
    tfr_dtype dt = (tfr_dtype)d;
    char what[64];
    snprintf(what, sizeof what, "convert c128 -> %s", tfr_dtype_name(dt));
    check_op(edge, NULL, op_convert, &dt, what);
    check_op(rz, view_rev_t, op_convert, &dt, what);
    tfr_tensor *r = tfr_test_random_tensor(dt, 2, shape, 5 + (uint64_t)d);
    snprintf(what, sizeof what, "convert %s -> c128", tfr_dtype_name(dt));
    check_op(r, NULL, op_convert, &c128, what);
    check_op(r, view_step2, op_convert, &c128, what);
    tfr_tensor_release(r);
  }
  tfr_tensor_release(rz);
  tfr_tensor_release(edge);
}

// ---------------------------------------------------------------------------
// tril / triu
// ---------------------------------------------------------------------------

typedef struct tri_ctx {
  bool upper;
  int64_t k;
} tri_ctx;

static tfr_status op_triangle(tfr_session *s, const tfr_tensor *x, const void *ctx,
                              tfr_tensor **out) {
  const tri_ctx *c = ctx;
  return c->upper ? tfr_triu(s, x, c->k, out) : tfr_tril(s, x, c->k, out);
}

static void test_triangle(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  // (Not INT64_MAX: the cpu computes i + k + 1, which overflows; see
  // test_triangle_extreme_k.)
  const int64_t ks[] = {INT64_MIN, -100, -6, -5, -2, -1, 0, 1, 3, 6, 7, 100, INT64_MAX / 2};
  const int64_t shapes[4][3] = {{5, 7, 0}, {7, 5, 0}, {3, 4, 6}, {2, 33, 40}};
  const int ranks[4] = {2, 2, 3, 3};
  for (int dt = 0; dt < TFR_DTYPE_COUNT; dt++)
    for (int sh = 0; sh < 4; sh++) {
      tfr_tensor *h = tfr_test_random_tensor((tfr_dtype)dt, ranks[sh], shapes[sh], 10 + (uint64_t)sh);
      for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
        for (int up = 0; up < 2; up++) {
          tri_ctx c = {up == 1, ks[i]};
          char what[96];
          snprintf(what, sizeof what, "%s(k = %" PRId64 ") of shape %d", up ? "triu" : "tril",
                   ks[i], sh);
          check_op(h, NULL, op_triangle, &c, what);
          if (i % 3 == 0) check_op(h, view_rev_t, op_triangle, &c, what);
        }
      tfr_tensor_release(h);
    }
  // Empty matrices.
  int64_t empty[3] = {2, 0, 3};
  tfr_tensor *h = tfr_test_random_tensor(TFR_F32, 3, empty, 1);
  tri_ctx c = {false, 0};
  check_op(h, NULL, op_triangle, &c, "tril of an empty tensor");
  tfr_tensor_release(h);
}

// k = INT64_MAX / INT64_MIN against numpy's semantics: tril keeps
// everything / nothing, triu nothing / everything.
static void test_triangle_extreme_k(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  int64_t shape[2] = {4, 5};
  tfr_tensor *h = tfr_test_random_tensor(TFR_I32, 2, shape, 5);  // no zeros
  int32_t in[20], out[20];
  TFR_ASSERT_OK(tfr_tensor_read(h, in, sizeof in));
  const int64_t ks[2] = {INT64_MAX, INT64_MIN};
  for (int i = 0; i < 2; i++)
    for (int up = 0; up < 2; up++) {
      tfr_session *s = tfr_test_begin(tfr_test_gpu);
      tfr_tensor *d = tfr_test_upload(s, h), *y = NULL;
      TFR_ASSERT_OK(up ? tfr_triu(s, d, ks[i], &y) : tfr_tril(s, d, ks[i], &y));
      tfr_tensor *got = tfr_test_download(s, y);
      tfr_test_end(s);
      TFR_ASSERT_OK(tfr_tensor_read(got, out, sizeof out));
      bool keep = (i == 0) != (up == 1);
      for (int e = 0; e < 20; e++) assert_int_equal(out[e], keep ? in[e] : 0);
      tfr_tensor_release(got);
      tfr_tensor_release(y);
      tfr_tensor_release(d);
    }
  tfr_tensor_release(h);
}

// ---------------------------------------------------------------------------
// iota
// ---------------------------------------------------------------------------

static void check_iota(tfr_dtype dt, int rank, const int64_t *shape, int dim) {
  tfr_tensor *want = NULL, *dy = NULL;
  tfr_session *s = tfr_test_begin(tfr_test_cpu);
  TFR_ASSERT_OK(tfr_iota(s, dt, rank, shape, dim, &want));
  tfr_test_end(s);
  s = tfr_test_begin(tfr_test_gpu);
  TFR_ASSERT_OK(tfr_iota(s, dt, rank, shape, dim, &dy));
  tfr_tensor *got = tfr_test_download(s, dy);
  tfr_test_end(s);
  char what[64];
  snprintf(what, sizeof what, "iota rank %d dimension %d", rank, dim);
  assert_same(want, got, what);
  tfr_tensor_release(got);
  tfr_tensor_release(dy);
  tfr_tensor_release(want);
}

static void test_iota(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  int64_t s1 = 1000, s2[2] = {17, 300}, s4[4] = {3, 4, 5, 6}, big[2] = {3, 1 << 20},
          e[2] = {4, 0}, tall[2] = {20000000, 1};
  for (int t = 0; t < NDT; t++) {
    tfr_dtype dt = g_webgpu_dtypes[t];
    check_iota(dt, 1, &s1, 0);
    for (int d = 0; d < 2; d++) check_iota(dt, 2, s2, d);
    for (int d = 0; d < 4; d++) check_iota(dt, 4, s4, d);
    check_iota(dt, 2, big, 1);
    check_iota(dt, 2, e, 0);
  }
  // Values above 2^24: f32 rounds them (to nearest even, as the cpu).
  check_iota(TFR_F32, 2, tall, 0);
  // The dtypes beyond the table above (every dtype makes iota on webgpu).
  const tfr_dtype others[8] = {TFR_U32, TFR_I8, TFR_I16, TFR_U8, TFR_U16, TFR_F16, TFR_BF16, TFR_C128};
  for (int o = 0; o < 8; o++) {
    check_iota(others[o], 1, &s1, 0);
    check_iota(others[o], 2, s2, 1);
    check_iota(others[o], 2, e, 0);
  }
}

// reduce_precision of f32 and f64 (on the bits) against the cpu: formats
// from bf16 and f16 to wider-than-f32 (f64) widths, special values (NaN with
// and without mantissa bits, infinities, zeros, subnormals, values that round
// up into overflow or down into the flushed range), random bit patterns, on
// compact and reversed, transposed and strided views.
typedef struct rp_ctx {
  int ebits, mbits;
} rp_ctx;

static tfr_status op_reduce_precision(tfr_session *s, const tfr_tensor *x, const void *ctx,
                                      tfr_tensor **out) {
  const rp_ctx *c = ctx;
  return tfr_reduce_precision(s, x, c->ebits, c->mbits, out);
}

// Every format of `formats` on every view of h against the cpu.
static void rp_check_formats(const tfr_tensor *h, const rp_ctx *formats, size_t nformats) {
  static const view_fn views[] = {NULL, view_rev_t, view_step2};
  for (size_t f = 0; f < nformats; f++)
    for (size_t k = 0; k < sizeof views / sizeof views[0]; k++) {
      char what[64];
      snprintf(what, sizeof what, "reduce_precision %s e%d m%d, view %zu",
               tfr_dtype_name(tfr_tensor_dtype(h)), formats[f].ebits, formats[f].mbits, k);
      check_op(h, views[k], op_reduce_precision, &formats[f], what);
    }
}

static void test_reduce_precision(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  static const uint32_t specials[] = {0x7fc00000u, 0x7f800001u, 0xff800000u, 0x7f800000u,
                                      0x80000000u, 0x00000000u, 0x00000001u, 0x807fffffu,
                                      0x477fefffu, 0x477ff000u, 0x38800000u, 0x387fffffu,
                                      0x3f800001u, 0x3f8fffffu, 0x7f7fffffu, 0xc2c7ffffu};
  int64_t shape[2] = {16, 33};
  tfr_tensor *h = tfr_test_random_tensor(TFR_F32, 2, shape, 404);
  float v[16 * 33];
  TFR_ASSERT_OK(tfr_tensor_read(h, v, sizeof v));
  uint64_t st = 99;
  for (int i = 0; i < 16 * 33; i++) {
    uint32_t u;
    if (i < 16) u = specials[i];
    else if (i % 3 == 0) u = (uint32_t)tfr_test_rand_u64(&st);  // any bits
    else memcpy(&u, &v[i], 4);
    memcpy(&v[i], &u, 4);
  }
  tfr_tensor_release(h);
  h = tfr_test_tensor(TFR_F32, 2, shape, v);
  static const rp_ctx formats[] = {{8, 7}, {5, 10}, {8, 23}, {11, 52}, {1, 0}, {4, 3}, {5, 2}};
  rp_check_formats(h, formats, sizeof formats / sizeof formats[0]);
  tfr_tensor_release(h);
  // f64: specials, then random bit patterns and values near 1.
  static const uint64_t specials64[] = {
      UINT64_C(0x7ff8000000000000), UINT64_C(0x7ff0000000000001), UINT64_C(0xfff0000000000000),
      UINT64_C(0x7ff0000000000000), UINT64_C(0x8000000000000000), 0, 1,
      UINT64_C(0x800fffffffffffff), UINT64_C(0x47efffffefffffff), UINT64_C(0x47effffff0000000),
      UINT64_C(0x3810000000000000), UINT64_C(0x380fffffffffffff), UINT64_C(0x3ff0000000000001),
      UINT64_C(0x3ff0000010000000), UINT64_C(0x7fefffffffffffff), UINT64_C(0xc058ffffffffffff)};
  uint64_t d[16 * 33];
  for (int i = 0; i < 16 * 33; i++) {
    uint64_t r = tfr_test_rand_u64(&st);
    if (i < 16) d[i] = specials64[i];
    else if (i % 2) d[i] = r;  // any bits
    else d[i] = (r & ((UINT64_C(1) << 52) - 1)) | ((uint64_t)(1023 - 40 + (int)(r >> 58)) << 52);
  }
  h = tfr_test_tensor(TFR_F64, 2, shape, d);
  static const rp_ctx formats64[] = {{8, 23}, {11, 52}, {5, 10}, {8, 7}, {1, 0}, {11, 20}, {10, 51}};
  rp_check_formats(h, formats64, sizeof formats64 / sizeof formats64[0]);
  tfr_tensor_release(h);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_convert_pairs, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_convert_c128_every_dtype, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_triangle, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_triangle_extreme_k, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_iota, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_reduce_precision, tfr_test_teardown_session),
  };
  return TFR_TEST_RUN_WEBGPU(tests);
}
