// Tests of the webgpu reductions (src/webgpu/reduce.c, kernels/reduce.wgsl):
// differential against the cpu backend for every (combiner, dtype) pair the
// library accepts on f32, i32, bool and c64, over axis sets and views of
// every kind, sizes around the kernel's segment boundaries, special values,
// init values; plus determinism, the accuracy of long f32 sums against a
// double reference, and the errors of unsupported dtypes.
//
// Exact combiners (everything on integers and bool, maximum/minimum on f32)
// must match bit for bit. f32/c64 add and multiply may differ by the
// conformance runner's "accumulate" tolerance for webgpu f32
// (tools/tenferro/conformance/tolerance.c: 16 ULP, or |a - e| <= 64 eps M with
// M the largest |expected| of the result).
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#define ACC_ULP 16
#define ACC_T 64.0

static const char *const g_comb[] = {"add", "multiply", "maximum", "minimum", "and", "or", "xor"};

// The (combiner, dtype) pairs validation accepts, restricted to webgpu's dtypes.
static bool pair_valid(tfr_reduce_combiner c, tfr_dtype dt) {
  switch (c) {
    case TFR_REDUCE_ADD:
    case TFR_REDUCE_MULTIPLY: return dt == TFR_I32 || dt == TFR_F32 || dt == TFR_C64;
    case TFR_REDUCE_MAXIMUM:
    case TFR_REDUCE_MINIMUM: return dt == TFR_BOOL || dt == TFR_I32 || dt == TFR_F32;
    default: return dt == TFR_BOOL || dt == TFR_I32;
  }
}

static bool is_accumulate(tfr_reduce_combiner c, tfr_dtype dt) {
  return (c == TFR_REDUCE_ADD || c == TFR_REDUCE_MULTIPLY) && (dt == TFR_F32 || dt == TFR_C64);
}

static void *read_all(const tfr_tensor *t) {
  size_t n = tfr_tensor_nbytes(t);
  void *p = malloc(n + 16);
  assert_non_null(p);
  TFR_ASSERT_OK(tfr_tensor_read(t, p, n));
  return p;
}

// Compares two host tensors: bytes (NaN matches any NaN; with `zero_sign`
// false, +0 matches -0), or within the accumulate tolerance.
static void assert_match(const tfr_tensor *want, const tfr_tensor *got, bool accumulate,
                         bool zero_sign, const char *what) {
  assert_int_equal(tfr_tensor_dtype(want), tfr_tensor_dtype(got));
  assert_int_equal(tfr_tensor_rank(want), tfr_tensor_rank(got));
  for (int k = 0; k < tfr_tensor_rank(want); k++)
    assert_int_equal(tfr_tensor_shape(want)[k], tfr_tensor_shape(got)[k]);
  tfr_dtype dt = tfr_tensor_dtype(want);
  int64_t n = tfr_tensor_numel(want);
  unsigned char *a = read_all(want), *b = read_all(got);
  if (dt == TFR_F32 || dt == TFR_C64) {
    int64_t nf = dt == TFR_C64 ? 2 * n : n;
    const float *x = (const float *)a, *y = (const float *)b;
    double m = 0;
    for (int64_t i = 0; i < nf; i++)
      if (isfinite(x[i]) && fabs(x[i]) > m) m = fabs(x[i]);
    for (int64_t i = 0; i < nf; i++) {
      bool ok;
      if (isnan(x[i]) || isnan(y[i])) ok = isnan(x[i]) && isnan(y[i]);
      else if (accumulate)
        ok = tfr_test_ulp_f32(x[i], y[i]) <= ACC_ULP ||
             fabs((double)x[i] - (double)y[i]) <= ACC_T * FLT_EPSILON * m;
      else if (!zero_sign && x[i] == 0 && y[i] == 0) ok = true;
      else ok = memcmp(&x[i], &y[i], 4) == 0;
      if (!ok)
        fail_msg("%s (%s): float %" PRId64 " of %" PRId64 ": want %.9g (0x%08x), got %.9g (0x%08x)",
                 what, tfr_dtype_name(dt), i, nf, x[i], *(const uint32_t *)&x[i], y[i],
                 *(const uint32_t *)&y[i]);
    }
  } else if (memcmp(a, b, tfr_tensor_nbytes(want)) != 0) {
    size_t es = tfr_dtype_size(dt), i = 0;
    while (a[i] == b[i]) i++;
    fail_msg("%s (%s): element %zu differs (byte %zu: want 0x%02x, got 0x%02x)", what,
             tfr_dtype_name(dt), i / es, i, a[i], b[i]);
  }
  free(a);
  free(b);
}

// A view of a tensor, made the same way of the host tensor and of its device
// copy.
typedef tfr_status (*view_fn)(const tfr_tensor *t, tfr_tensor **out);

static tfr_status view_same(const tfr_tensor *t, tfr_tensor **out) {
  return tfr_tensor_view(t, tfr_tensor_rank(t), tfr_tensor_shape(t), tfr_tensor_strides(t),
                         tfr_tensor_offset(t), out);
}

// Runs reduce(view(h), init, c, axes) on the cpu and on webgpu and compares.
// `init` is a host rank-0 tensor or NULL (the identity).
static void check_reduce(const tfr_tensor *h, view_fn view, tfr_reduce_combiner c, int naxes,
                         const int64_t *axes, const tfr_tensor *init, const char *what) {
  tfr_dtype dt = tfr_tensor_dtype(h);
  char msg[160];
  snprintf(msg, sizeof msg, "%s: reduce %s over %d axes {%s%" PRId64 "%s%" PRId64 "...}", what,
           g_comb[c], naxes, naxes ? "" : "-", naxes ? axes[0] : 0, naxes > 1 ? "," : "",
           naxes > 1 ? axes[1] : 0);
  if (!view) view = view_same;
  tfr_tensor *hv = NULL, *want = NULL;
  TFR_ASSERT_OK(view(h, &hv));
  tfr_session *s = tfr_test_begin(tfr_test_cpu);
  TFR_ASSERT_OK(tfr_reduce(s, hv, init, c, naxes, axes, &want));
  tfr_test_end(s);
  s = tfr_test_begin(tfr_test_gpu);
  tfr_tensor *d = tfr_test_upload(s, h), *dv = NULL, *di = NULL, *dy = NULL;
  if (init) di = tfr_test_upload(s, init);
  TFR_ASSERT_OK(view(d, &dv));
  TFR_ASSERT_OK(tfr_reduce(s, dv, di, c, naxes, axes, &dy));
  assert_false(tfr_tensor_is_host(dy));
  tfr_tensor *got = tfr_test_download(s, dy);
  tfr_test_end(s);
  bool acc = is_accumulate(c, dt);
  assert_match(want, got, acc, false, msg);
  tfr_tensor_release(got);
  tfr_tensor_release(dy);
  tfr_tensor_release(dv);
  tfr_tensor_release(di);
  tfr_tensor_release(d);
  tfr_tensor_release(want);
  tfr_tensor_release(hv);
}

// Random data for combiner c: products stay finite (values near 1, or small
// integers), everything else uses tfr_test_random_tensor.
static tfr_tensor *data_for(tfr_reduce_combiner c, tfr_dtype dt, int rank, const int64_t *shape,
                            uint64_t seed) {
  if (c != TFR_REDUCE_MULTIPLY || dt == TFR_I32) return tfr_test_random_tensor(dt, rank, shape, seed);
  int64_t n = 1;
  for (int k = 0; k < rank; k++) n *= shape[k];
  int64_t nf = dt == TFR_C64 ? 2 * n : n;
  float *v = malloc((size_t)(nf > 0 ? nf : 1) * sizeof *v);
  assert_non_null(v);
  uint64_t st = seed;
  for (int64_t i = 0; i < nf; i++) v[i] = (float)tfr_test_rand_uniform(&st, 0.96, 1.04);
  if (dt == TFR_C64)
    for (int64_t i = 1; i < nf; i += 2) v[i] = (float)tfr_test_rand_uniform(&st, -0.1, 0.1);
  tfr_tensor *t = tfr_test_tensor(dt, rank, shape, v);
  free(v);
  return t;
}

// ---------------------------------------------------------------------------
// Views of rank 3 with extents (5, 6, 7)
// ---------------------------------------------------------------------------

static tfr_status view_transposed(const tfr_tensor *t, tfr_tensor **out) {
  int64_t perm[3] = {2, 1, 0};  // base (7, 6, 5)
  return tfr_tensor_view_transpose(t, perm, out);
}

static tfr_status view_strided(const tfr_tensor *t, tfr_tensor **out) {
  int64_t start[3] = {0, 1, 0}, limit[3] = {9, 12, 13}, step[3] = {2, 2, 2};  // base (9, 12, 13)
  return tfr_tensor_view_slice(t, start, limit, step, out);
}

static tfr_status view_reversed(const tfr_tensor *t, tfr_tensor **out) {
  int64_t axes[2] = {0, 2};  // base (5, 6, 7)
  return tfr_tensor_view_reverse(t, 2, axes, out);
}

static tfr_status view_broadcast(const tfr_tensor *t, tfr_tensor **out) {
  int64_t shape[3] = {5, 6, 7}, dims[2] = {0, 2};  // base (5, 7): stride 0 along axis 1
  return tfr_tensor_view_broadcast_in_dim(t, 3, shape, dims, out);
}

// Any rank >= 1: axis 0 reversed.
static tfr_status view_rev0(const tfr_tensor *t, tfr_tensor **out) {
  int64_t axis = 0;
  return tfr_tensor_view_reverse(t, 1, &axis, out);
}

// Any rank >= 1: without the first element along axis 0 (an offset that is
// no multiple of 4 elements).
static tfr_status view_tail(const tfr_tensor *t, tfr_tensor **out) {
  int r = tfr_tensor_rank(t);
  int64_t start[8] = {0}, limit[8];
  for (int k = 0; k < r; k++) limit[k] = tfr_tensor_shape(t)[k];
  start[0] = 1;
  return tfr_tensor_view_slice(t, start, limit, NULL, out);
}

// Rank 3: axes 1 and 2 swapped.
static tfr_status view_swap12(const tfr_tensor *t, tfr_tensor **out) {
  int64_t perm[3] = {0, 2, 1};
  return tfr_tensor_view_transpose(t, perm, out);
}

// Rank 3: without the first element along the last axis.
static tfr_status view_tail2(const tfr_tensor *t, tfr_tensor **out) {
  const int64_t *sh = tfr_tensor_shape(t);
  int64_t start[3] = {0, 0, 1}, limit[3] = {sh[0], sh[1], sh[2]};
  return tfr_tensor_view_slice(t, start, limit, NULL, out);
}

static const struct {
  const char *name;
  view_fn fn;
  int rank;
  int64_t base[3];
} g_views[] = {
    {"compact", NULL, 3, {5, 6, 7}},
    {"transposed", view_transposed, 3, {7, 6, 5}},
    {"strided", view_strided, 3, {9, 12, 13}},
    {"reversed", view_reversed, 3, {5, 6, 7}},
    {"broadcast", view_broadcast, 2, {5, 7}},
};

static const struct {
  int n;
  int64_t axes[3];
} g_axis_sets[] = {
    {0, {0}}, {1, {2}}, {1, {0}}, {1, {1}}, {3, {0, 1, 2}}, {2, {0, 2}}, {2, {0, 1}}, {2, {1, 2}},
};

static void test_every_pair_axes_views(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  const tfr_dtype dts[4] = {TFR_F32, TFR_I32, TFR_BOOL, TFR_C64};
  for (int c = 0; c <= TFR_REDUCE_XOR; c++)
    for (int t = 0; t < 4; t++) {
      if (!pair_valid((tfr_reduce_combiner)c, dts[t])) continue;
      for (size_t v = 0; v < sizeof g_views / sizeof g_views[0]; v++) {
        tfr_tensor *h = data_for((tfr_reduce_combiner)c, dts[t], g_views[v].rank,
                                 g_views[v].base, 100 + 10 * (uint64_t)c + (uint64_t)t);
        for (size_t a = 0; a < sizeof g_axis_sets / sizeof g_axis_sets[0]; a++)
          check_reduce(h, g_views[v].fn, (tfr_reduce_combiner)c, g_axis_sets[a].n,
                       g_axis_sets[a].axes, NULL, g_views[v].name);
        tfr_tensor_release(h);
      }
    }
}

// Rank 4, non-adjacent axis sets; rank 1; rank 0; an empty reduced axis
// (every output is the init value) and an empty kept axis (no output).
static void test_ranks_and_empty(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  const tfr_dtype dts[4] = {TFR_F32, TFR_I32, TFR_BOOL, TFR_C64};
  for (int c = 0; c <= TFR_REDUCE_XOR; c++)
    for (int t = 0; t < 4; t++) {
      tfr_reduce_combiner cb = (tfr_reduce_combiner)c;
      if (!pair_valid(cb, dts[t])) continue;
      int64_t s4[4] = {3, 4, 5, 6};
      tfr_tensor *h = data_for(cb, dts[t], 4, s4, 7);
      int64_t a13[2] = {1, 3}, a02[2] = {0, 2}, a023[3] = {0, 2, 3};
      check_reduce(h, NULL, cb, 2, a13, NULL, "rank 4");
      check_reduce(h, NULL, cb, 2, a02, NULL, "rank 4");
      check_reduce(h, NULL, cb, 3, a023, NULL, "rank 4");
      tfr_tensor_release(h);
      int64_t s1 = 1000, a0 = 0;
      h = data_for(cb, dts[t], 1, &s1, 8);
      check_reduce(h, NULL, cb, 1, &a0, NULL, "rank 1");
      tfr_tensor_release(h);
      h = data_for(cb, dts[t], 0, NULL, 9);
      check_reduce(h, NULL, cb, 0, NULL, NULL, "rank 0");
      tfr_tensor_release(h);
      int64_t se[3] = {4, 0, 3}, a1 = 1;
      h = data_for(cb, dts[t], 3, se, 10);
      check_reduce(h, NULL, cb, 1, &a1, NULL, "empty reduced axis");
      check_reduce(h, NULL, cb, 1, &a0, NULL, "empty kept axis");
      // With an init value that is not the identity.
      tfr_tensor *init = data_for(cb, dts[t], 0, NULL, 11);
      check_reduce(h, NULL, cb, 1, &a1, init, "empty reduced axis, init");
      tfr_tensor_release(init);
      tfr_tensor_release(h);
    }
}

// Init values (rank-0 device tensors) that change the result.
static void test_init_values(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  const tfr_dtype dts[4] = {TFR_F32, TFR_I32, TFR_BOOL, TFR_C64};
  int64_t shape[2] = {37, 41}, a0 = 0, a1 = 1, a01[2] = {0, 1};
  for (int c = 0; c <= TFR_REDUCE_XOR; c++)
    for (int t = 0; t < 4; t++) {
      tfr_reduce_combiner cb = (tfr_reduce_combiner)c;
      if (!pair_valid(cb, dts[t])) continue;
      tfr_tensor *h = data_for(cb, dts[t], 2, shape, 20 + (uint64_t)c);
      tfr_tensor *init = data_for(cb, dts[t], 0, NULL, 30 + (uint64_t)t);
      check_reduce(h, NULL, cb, 1, &a0, init, "init");
      check_reduce(h, NULL, cb, 1, &a1, init, "init");
      check_reduce(h, NULL, cb, 2, a01, init, "init");
      check_reduce(h, NULL, cb, 0, NULL, init, "init");
      tfr_tensor_release(init);
      tfr_tensor_release(h);
    }
}

// Data whose products are exact in any order: f32 and i32 values +-1, c64
// values 1, -1, i, -i. (Long products of inexact values differ by O(n) eps
// relative in any order, beyond the accumulate tolerance.)
static tfr_tensor *unit_data(tfr_dtype dt, int rank, const int64_t *shape, uint64_t seed) {
  int64_t n = 1;
  for (int k = 0; k < rank; k++) n *= shape[k];
  float *v = malloc((size_t)n * 2 * sizeof *v);
  int32_t *iv = (int32_t *)v;
  assert_non_null(v);
  uint64_t st = seed;
  for (int64_t i = 0; i < n; i++) {
    uint64_t r = tfr_test_rand_u64(&st);
    if (dt == TFR_I32) iv[i] = (r & 1) ? 1 : -1;
    else if (dt == TFR_F32) v[i] = (r & 1) ? 1.0f : -1.0f;
    else {
      static const float re[4] = {1, -1, 0, 0}, im[4] = {0, 0, 1, -1};
      v[2 * i] = re[r & 3];
      v[2 * i + 1] = im[r & 3];
    }
  }
  tfr_tensor *t = tfr_test_tensor(dt, rank, shape, v);
  free(v);
  return t;
}

// Reduced lengths around every boundary of the kernel (units per invocation,
// invocations per task, segments, vec4 units, partial passes), inner and
// outer, contiguous and reversed.
static void test_sizes(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  const int64_t ms[] = {1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 63, 64, 65, 255, 256, 257, 1023, 1024,
                        1025, 4095, 4096, 4097, 16383, 16384, 16385, 65537, 262147};
  struct {
    tfr_reduce_combiner c;
    tfr_dtype dt;
  } cases[] = {{TFR_REDUCE_ADD, TFR_F32},     {TFR_REDUCE_ADD, TFR_I32},
               {TFR_REDUCE_MAXIMUM, TFR_F32}, {TFR_REDUCE_XOR, TFR_BOOL},
               {TFR_REDUCE_ADD, TFR_C64},     {TFR_REDUCE_MULTIPLY, TFR_C64},
               {TFR_REDUCE_MINIMUM, TFR_I32}, {TFR_REDUCE_MULTIPLY, TFR_F32}};
  for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
      int64_t m = ms[i];
      int64_t inner[2] = {3, m}, outer[2] = {m, 3}, a0 = 0, a1 = 1;
      tfr_tensor *h = cases[k].c == TFR_REDUCE_MULTIPLY
                          ? unit_data(cases[k].dt, 1, &m, 40 + (uint64_t)i)
                          : data_for(cases[k].c, cases[k].dt, 1, &m, 40 + (uint64_t)i);
      check_reduce(h, NULL, cases[k].c, 1, &a0, NULL, "1-D");
      check_reduce(h, view_rev0, cases[k].c, 1, &a0, NULL, "1-D reversed");
      if (m > 1) check_reduce(h, view_tail, cases[k].c, 1, &a0, NULL, "1-D from element 1");
      tfr_tensor_release(h);
      if (m > 70000) continue;
      h = cases[k].c == TFR_REDUCE_MULTIPLY ? unit_data(cases[k].dt, 2, inner, 50 + (uint64_t)i)
                                            : data_for(cases[k].c, cases[k].dt, 2, inner, 50 + (uint64_t)i);
      check_reduce(h, NULL, cases[k].c, 1, &a1, NULL, "inner");
      tfr_tensor_release(h);
      h = cases[k].c == TFR_REDUCE_MULTIPLY ? unit_data(cases[k].dt, 2, outer, 60 + (uint64_t)i)
                                            : data_for(cases[k].c, cases[k].dt, 2, outer, 60 + (uint64_t)i);
      check_reduce(h, NULL, cases[k].c, 1, &a0, NULL, "outer");
      tfr_tensor_release(h);
      // Outer with a contiguous kept axis of a multiple of 4 outputs (vec4
      // units across outputs), also with the kept axes transposed (outputs
      // apart in the result).
      // (Around the lanes layout's boundaries: 64 units per invocation, 64^2
      // for two passes.)
      if (m != 1 && m != 5 && m != 63 && m != 64 && m != 65 && m != 4095 && m != 4097 &&
          m != 16385)
        continue;
      int64_t cols[3] = {m, 6, 8};
      h = cases[k].c == TFR_REDUCE_MULTIPLY ? unit_data(cases[k].dt, 3, cols, 65 + (uint64_t)i)
                                            : data_for(cases[k].c, cases[k].dt, 3, cols, 65 + (uint64_t)i);
      check_reduce(h, NULL, cases[k].c, 1, &a0, NULL, "outer, 48 columns");
      check_reduce(h, view_swap12, cases[k].c, 1, &a0, NULL, "outer, 48 columns transposed");
      check_reduce(h, view_tail2, cases[k].c, 1, &a0, NULL, "outer, 47 columns");
      tfr_tensor_release(h);
    }
}

// Sizes that span many workgroups and several partial passes: 3e6 elements.
static void test_large(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  struct {
    tfr_reduce_combiner c;
    tfr_dtype dt;
  } cases[] = {{TFR_REDUCE_ADD, TFR_F32},     {TFR_REDUCE_MAXIMUM, TFR_F32},
               {TFR_REDUCE_MINIMUM, TFR_F32}, {TFR_REDUCE_ADD, TFR_I32},
               {TFR_REDUCE_MULTIPLY, TFR_I32}, {TFR_REDUCE_OR, TFR_BOOL},
               {TFR_REDUCE_AND, TFR_BOOL},    {TFR_REDUCE_ADD, TFR_C64}};
  int64_t shape[3] = {150, 100, 200};  // 3e6 elements
  const struct {
    int n;
    int64_t axes[3];
  } sets[] = {{3, {0, 1, 2}}, {1, {2}}, {1, {0}}, {2, {0, 2}}, {2, {1, 2}}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    tfr_tensor *h = data_for(cases[k].c, cases[k].dt, 3, shape, 70 + (uint64_t)k);
    for (size_t a = 0; a < sizeof sets / sizeof sets[0]; a++)
      check_reduce(h, NULL, cases[k].c, sets[a].n, sets[a].axes, NULL, "3e6 elements");
    check_reduce(h, view_rev0, cases[k].c, 3, sets[0].axes, NULL, "3e6 elements, reversed");
    check_reduce(h, view_tail, cases[k].c, 2, sets[4].axes, NULL, "3e6 elements, offset");
    tfr_tensor_release(h);
  }
  // A full reduction of an odd count: no vec4 units.
  int64_t n = 3000001, a0 = 0;
  tfr_tensor *h = tfr_test_random_tensor(TFR_F32, 1, &n, 80);
  check_reduce(h, NULL, TFR_REDUCE_ADD, 1, &a0, NULL, "3000001 elements");
  check_reduce(h, NULL, TFR_REDUCE_MAXIMUM, 1, &a0, NULL, "3000001 elements");
  tfr_tensor_release(h);
}

// NaN, infinities, signed zeros, extreme integers.
static void test_special_values(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  const float nan = __builtin_nanf(""), inf = __builtin_inff();
  // Rows of 6: each row's reduction meets a different special case.
  float fv[] = {1.0f,  nan,   -2.0f, 3.0f,  nan,    0.5f,   // NaN (twice)
                inf,   -1.0f, 7.0f,  2.0f,  -3.0f,  1.0f,   // +inf
                -inf,  -1.0f, 7.0f,  2.0f,  -3.0f,  1.0f,   // -inf
                inf,   -inf,  1.0f,  2.0f,  3.0f,   4.0f,   // inf - inf = NaN
                -0.0f, -0.0f, -0.0f, -0.0f, -0.0f,  -0.0f,  // all -0
                0.0f,  -0.0f, -0.0f, 0.0f,  -0.0f,  -0.0f,  // mixed zeros
                3e38f, 3e38f, 2.0f,  -1.0f, 1.5f,   1.0f,   // overflow
                -5.0f, -4.0f, -3.0f, -7.0f, -6.0f,  -1.0f};
  int64_t fs[2] = {8, 6}, a0 = 0, a1 = 1;
  tfr_tensor *f = tfr_test_tensor(TFR_F32, 2, fs, fv);
  for (int c = 0; c < 4; c++) {
    tfr_reduce_combiner cb = (tfr_reduce_combiner)c;
    // maximum/minimum of mixed zeros: the cpu's zero sign depends on its
    // order; webgpu's is checked below. Everything else bit for bit.
    check_reduce(f, NULL, cb, 1, &a1, NULL, "special f32 rows");
    check_reduce(f, view_rev0, cb, 1, &a0, NULL, "special f32 columns");
  }
  tfr_tensor_release(f);

  // Signed zeros under maximum/minimum (IEEE 754-2019): max(-0, +0) = +0,
  // min(-0, +0) = -0 whatever the order; all -0 gives -0 for both (their
  // identities are -inf and +inf). reduce_sum's identity is +0, so a sum of
  // -0 is +0, as on the cpu.
  float zv[] = {-0.0f, 0.0f, -0.0f, -0.0f, 0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f};
  int64_t zs[2] = {2, 5};
  tfr_tensor *z = tfr_test_tensor(TFR_F32, 2, zs, zv);
  tfr_session *s = tfr_test_begin(tfr_test_gpu);
  tfr_tensor *dz = tfr_test_upload(s, z), *mx = NULL, *mn = NULL, *sm = NULL;
  TFR_ASSERT_OK(tfr_reduce_max(s, dz, 1, &a1, &mx));
  TFR_ASSERT_OK(tfr_reduce_min(s, dz, 1, &a1, &mn));
  TFR_ASSERT_OK(tfr_reduce_sum(s, dz, 1, &a1, &sm));
  tfr_tensor *hmx = tfr_test_download(s, mx), *hmn = tfr_test_download(s, mn),
             *hsm = tfr_test_download(s, sm);
  tfr_test_end(s);
  float r[2];
  TFR_ASSERT_OK(tfr_tensor_read(hmx, r, sizeof r));
  assert_true(r[0] == 0 && !signbit(r[0]));
  assert_true(r[1] == 0 && signbit(r[1]));
  TFR_ASSERT_OK(tfr_tensor_read(hmn, r, sizeof r));
  assert_true(r[0] == 0 && signbit(r[0]));
  assert_true(r[1] == 0 && signbit(r[1]));
  TFR_ASSERT_OK(tfr_tensor_read(hsm, r, sizeof r));
  assert_true(r[0] == 0 && !signbit(r[0]));
  assert_true(r[1] == 0 && !signbit(r[1]));
  tfr_tensor_release(hmx);
  tfr_tensor_release(hmn);
  tfr_tensor_release(hsm);
  tfr_tensor_release(mx);
  tfr_tensor_release(mn);
  tfr_tensor_release(sm);
  tfr_tensor_release(dz);
  tfr_tensor_release(z);

  // Integers: wrap-around and the extremes.
  int32_t iv[] = {INT32_MIN, -1, INT32_MAX, 1, 0, 7,         INT32_MAX, INT32_MAX, 2, 3,
                  INT32_MIN, INT32_MIN, -1, -1, 5, 65536, 65536, 3, -2, 0};
  int64_t is[2] = {4, 5};
  tfr_tensor *in = tfr_test_tensor(TFR_I32, 2, is, iv);
  for (int c = 0; c <= TFR_REDUCE_XOR; c++) {
    check_reduce(in, NULL, (tfr_reduce_combiner)c, 1, &a1, NULL, "special i32 rows");
    check_reduce(in, NULL, (tfr_reduce_combiner)c, 1, &a0, NULL, "special i32 columns");
  }
  tfr_tensor_release(in);
}

// Same input twice: the same bits (fixed trees, no atomics).
static void test_deterministic(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  int64_t shape[2] = {3, 1 << 20}, a1 = 1, a0 = 0, all[2] = {0, 1};
  tfr_tensor *h = tfr_test_random_tensor(TFR_F32, 2, shape, 90);
  tfr_tensor *got[2][3];
  for (int run = 0; run < 2; run++) {
    tfr_session *s = tfr_test_begin(tfr_test_gpu);
    tfr_tensor *d = tfr_test_upload(s, h), *y[3];
    TFR_ASSERT_OK(tfr_reduce_sum(s, d, 1, &a1, &y[0]));
    TFR_ASSERT_OK(tfr_reduce_sum(s, d, 1, &a0, &y[1]));
    TFR_ASSERT_OK(tfr_reduce_sum(s, d, 2, all, &y[2]));
    for (int k = 0; k < 3; k++) {
      got[run][k] = tfr_test_download(s, y[k]);
      tfr_tensor_release(y[k]);
    }
    tfr_test_end(s);
    tfr_tensor_release(d);
  }
  for (int k = 0; k < 3; k++) {
    size_t n = tfr_tensor_nbytes(got[0][k]);
    void *a = read_all(got[0][k]), *b = read_all(got[1][k]);
    assert_memory_equal(a, b, n);
    free(a);
    free(b);
    tfr_tensor_release(got[0][k]);
    tfr_tensor_release(got[1][k]);
  }
  tfr_tensor_release(h);
}

// Long f32 sums against a double reference: the error must stay near
// log2(n) eps, where naive sequential summation drifts by orders of
// magnitude more.
static void test_accuracy(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  int64_t n = (int64_t)1 << 24, a0 = 0;
  float *v = malloc((size_t)n * sizeof *v);
  assert_non_null(v);
  for (int pass = 0; pass < 2; pass++) {
    uint64_t st = 91;
    for (int64_t i = 0; i < n; i++) v[i] = pass == 0 ? 0.1f : (float)tfr_test_rand_uniform(&st, 0, 1);
    double exact = 0;
    float naive = 0;
    for (int64_t i = 0; i < n; i++) {
      exact += v[i];
      naive += v[i];
    }
    tfr_tensor *h = tfr_test_tensor(TFR_F32, 1, &n, v);
    tfr_session *s = tfr_test_begin(tfr_test_gpu);
    tfr_tensor *d = tfr_test_upload(s, h), *y = NULL;
    TFR_ASSERT_OK(tfr_reduce_sum(s, d, 1, &a0, &y));
    tfr_tensor *hy = tfr_test_download(s, y);
    tfr_test_end(s);
    float got;
    TFR_ASSERT_OK(tfr_tensor_read(hy, &got, sizeof got));
    double err = fabs(got - exact) / exact, naive_err = fabs(naive - exact) / exact;
    print_message("sum of 2^24 %s: relative error %.3g (naive sequential f32: %.3g)\n",
                  pass == 0 ? "x 0.1f" : "uniform [0,1)", err, naive_err);
    // 24 levels of pairwise sums, each adding at most eps/2 relative.
    assert_true(err <= 24 * FLT_EPSILON);
    assert_true(naive_err > 100 * err);
    tfr_tensor_release(hy);
    tfr_tensor_release(y);
    tfr_tensor_release(d);
    tfr_tensor_release(h);
  }
  free(v);
}

// Views of more unmergeable axes than the kernel takes (9+): packed first.
static void test_many_axes(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  int64_t shape[12] = {2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3};
  tfr_tensor *h = tfr_test_random_tensor(TFR_I32, 12, shape, 95);
  tfr_tensor *hf = tfr_test_random_tensor(TFR_F32, 12, shape, 96);
  int64_t odd[6] = {1, 3, 5, 7, 9, 11}, even[6] = {0, 2, 4, 6, 8, 10};
  check_reduce(h, NULL, TFR_REDUCE_ADD, 6, odd, NULL, "12 axes");
  check_reduce(h, NULL, TFR_REDUCE_XOR, 6, even, NULL, "12 axes");
  check_reduce(hf, view_rev0, TFR_REDUCE_MAXIMUM, 6, odd, NULL, "12 axes");
  check_reduce(hf, NULL, TFR_REDUCE_ADD, 6, even, NULL, "12 axes");
  tfr_tensor_release(hf);
  tfr_tensor_release(h);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_every_pair_axes_views, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_ranks_and_empty, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_init_values, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_sizes, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_large, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_special_values, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_deterministic, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_accuracy, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_many_axes, tfr_test_teardown_session),
  };
  return TFR_TEST_RUN_WEBGPU(tests);
}
