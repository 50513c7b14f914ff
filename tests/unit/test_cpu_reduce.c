// Tests of the reductions on the cpu backend (src/core/ops_reduce.c,
// src/cpu/reduce.c): numpy/stdlib reference data from tests/ref/gen_reduce.py
// (every combiner x dtype over many layouts), hand-derived values, accuracy
// of long float sums against a naive loop, results independent of the
// thread count, and every validation error.
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"  // tfr_alloc_fail_after
#include "core/half.h"
#include "support.h"

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

static tfr_session *tfr_sess(void **state) { return ((tfr_test_env *)*state)->session; }

// Reads a whole host tensor (row-major) into a new buffer.
static void *tfr_read_all(const tfr_tensor *t) {
  size_t n = tfr_tensor_nbytes(t);
  void *buf = malloc(n ? n : 1);
  assert_non_null(buf);
  TFR_ASSERT_OK(tfr_tensor_read(t, buf, n));
  return buf;
}

// Scalar result of a reduction to rank 0.
static void tfr_read_scalar(const tfr_tensor *t, void *dst) {
  assert_int_equal(tfr_tensor_rank(t), 0);
  TFR_ASSERT_OK(tfr_tensor_read(t, dst, tfr_dtype_size(tfr_tensor_dtype(t))));
}

static bool tfr_same_value(double got, double want, double abs_tol, double rel_tol,
                           double scale) {
  if (isnan(want)) return isnan(got);
  if (isinf(want) || isinf(got)) return got == want;
  if (abs_tol == 0 && rel_tol == 0) return memcmp(&got, &want, sizeof got) == 0 || got == want;
  return fabs(got - want) <= abs_tol + rel_tol * scale;
}

// Compares element `i` of two arrays of dtype `dt`; prints a message on failure.
static bool tfr_elem_ok(tfr_dtype dt, const void *got, const void *want, int64_t i,
                        double abs_tol, double rel_tol, const char *name) {
  size_t es = tfr_dtype_size(dt);
  const char *g = (const char *)got + (size_t)i * es, *w = (const char *)want + (size_t)i * es;
  double gv[2] = {0, 0}, wv[2] = {0, 0};
  int parts = 1;
  switch (dt) {
    case TFR_BOOL:
    case TFR_I8:
    case TFR_I16:
    case TFR_I32:
    case TFR_I64:
    case TFR_U8:
    case TFR_U16:
    case TFR_U32:
    case TFR_U64:
      if (memcmp(g, w, es) == 0) return true;
      {
        uint64_t a = 0, b = 0;  // the bit patterns, zero-extended
        memcpy(&a, g, es);      // (little-endian host, as the data files)
        memcpy(&b, w, es);
        print_error("%s: element %" PRId64 " has bits 0x%" PRIx64 ", want 0x%" PRIx64 "\n", name,
                    i, a, b);
      }
      return false;
    case TFR_F16:
    case TFR_BF16: {
      uint16_t a, b;
      memcpy(&a, g, 2);
      memcpy(&b, w, 2);
      gv[0] = dt == TFR_F16 ? tfr_f16_to_f64(a) : tfr_bf16_to_f64(a);
      wv[0] = dt == TFR_F16 ? tfr_f16_to_f64(b) : tfr_bf16_to_f64(b);
      break;
    }
    case TFR_F32: gv[0] = *(const float *)g, wv[0] = *(const float *)w; break;
    case TFR_F64: gv[0] = *(const double *)g, wv[0] = *(const double *)w; break;
    case TFR_C64:
      parts = 2;
      for (int k = 0; k < 2; k++) gv[k] = ((const float *)g)[k], wv[k] = ((const float *)w)[k];
      break;
    case TFR_C128:
      parts = 2;
      for (int k = 0; k < 2; k++) gv[k] = ((const double *)g)[k], wv[k] = ((const double *)w)[k];
      break;
  }
  double scale = parts == 2 ? hypot(wv[0], wv[1]) : fabs(wv[0]);
  for (int k = 0; k < parts; k++) {
    if (!tfr_same_value(gv[k], wv[k], abs_tol, rel_tol, scale)) {
      print_error("%s: element %" PRId64 " part %d is %.17g, want %.17g (tol %g + %g rel)\n",
                  name, i, k, gv[k], wv[k], abs_tol, rel_tol);
      return false;
    }
  }
  return true;
}

// A new backend with `threads` threads, for tests that compare thread counts
// (the group's session must be ended first: one session per thread).
static tfr_backend *tfr_backend_threads(int threads) {
  tfr_cpu_options opts = {.num_threads = threads};
  tfr_backend *b = NULL;
  TFR_ASSERT_OK(tfr_backend_create_cpu(&opts, &b));
  return b;
}

static tfr_tensor *tfr_scalar(tfr_dtype dt, const void *v) { return tfr_test_tensor(dt, 0, NULL, v); }

// ---------------------------------------------------------------------------
// Reference data
// ---------------------------------------------------------------------------

static void *tfr_load_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    print_error("cannot open %s (run the ref_data test first)\n", path);
    fail();
  }
  assert_int_equal(fseek(f, 0, SEEK_END), 0);
  long n = ftell(f);
  assert_true(n >= 0);
  assert_int_equal(fseek(f, 0, SEEK_SET), 0);
  void *buf = malloc((size_t)n + 1);
  assert_non_null(buf);
  assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  *size = (size_t)n;
  return buf;
}

static void test_reference_data(void **state) {
  tfr_session *s = tfr_sess(state);
  size_t data_size;
  char *data = tfr_load_file(TFR_TEST_DATA_DIR "/reduce/data.bin", &data_size);
  FILE *mf = fopen(TFR_TEST_DATA_DIR "/reduce/manifest.txt", "r");
  assert_non_null(mf);
  int ncases = 0, failures = 0;
  bool seen[7][TFR_DTYPE_COUNT] = {{false}};
  char name[128], dtname[16];
  int comb;
  int64_t nbase, base_off, voff;
  int rank;
  while (fscanf(mf, "%127s %15s %d %" SCNd64 " %" SCNd64 " %" SCNd64 " %d", name, dtname, &comb,
                &nbase, &base_off, &voff, &rank) == 7) {
    int64_t shape[8], strides[8], axes[8];
    assert_true(rank >= 0 && rank <= 8);
    for (int k = 0; k < rank; k++) assert_int_equal(fscanf(mf, "%" SCNd64, &shape[k]), 1);
    for (int k = 0; k < rank; k++) assert_int_equal(fscanf(mf, "%" SCNd64, &strides[k]), 1);
    int naxes, has_init;
    int64_t init_off, out_numel, out_off;
    double abs_tol, rel_tol;
    assert_int_equal(fscanf(mf, "%d", &naxes), 1);
    for (int k = 0; k < naxes; k++) assert_int_equal(fscanf(mf, "%" SCNd64, &axes[k]), 1);
    assert_int_equal(fscanf(mf, "%d %" SCNd64 " %" SCNd64 " %" SCNd64 " %lf %lf", &has_init,
                            &init_off, &out_numel, &out_off, &abs_tol, &rel_tol),
                     6);
    tfr_dtype dt;
    TFR_ASSERT_OK(tfr_dtype_from_name(dtname, &dt));
    size_t es = tfr_dtype_size(dt);
    assert_true((size_t)(base_off + nbase * (int64_t)es) <= data_size);
    assert_true((size_t)(out_off + out_numel * (int64_t)es) <= data_size);

    tfr_tensor *base = tfr_test_tensor(dt, 1, &nbase, data + base_off);
    tfr_tensor *x = NULL, *init = NULL, *out = NULL;
    TFR_ASSERT_OK(tfr_tensor_view(base, rank, shape, strides, voff, &x));
    if (has_init) init = tfr_scalar(dt, data + init_off);
    tfr_reduce_combiner c = (tfr_reduce_combiner)comb;
    // Without an explicit init, the named wrappers (identity init) where they exist.
    if (init || c > TFR_REDUCE_MINIMUM)
      TFR_ASSERT_OK(tfr_reduce(s, x, init, c, naxes, axes, &out));
    else if (c == TFR_REDUCE_ADD)
      TFR_ASSERT_OK(tfr_reduce_sum(s, x, naxes, axes, &out));
    else if (c == TFR_REDUCE_MULTIPLY)
      TFR_ASSERT_OK(tfr_reduce_prod(s, x, naxes, axes, &out));
    else if (c == TFR_REDUCE_MAXIMUM)
      TFR_ASSERT_OK(tfr_reduce_max(s, x, naxes, axes, &out));
    else
      TFR_ASSERT_OK(tfr_reduce_min(s, x, naxes, axes, &out));

    // Shape: the operand's without the reduced axes; compact; dtype kept.
    assert_int_equal(tfr_tensor_dtype(out), dt);
    assert_int_equal(tfr_tensor_rank(out), rank - naxes);
    for (int k = 0, j = 0, r = 0; k < rank; k++) {
      if (j < naxes && axes[j] == k) {
        j++;
        continue;
      }
      assert_int_equal(tfr_tensor_shape(out)[r++], shape[k]);
    }
    assert_true(tfr_tensor_is_contiguous(out));
    assert_int_equal(tfr_tensor_numel(out), out_numel);
    void *got = tfr_read_all(out);
    bool ok = true;
    for (int64_t i = 0; i < out_numel && ok; i++)
      ok = tfr_elem_ok(dt, got, data + out_off, i, abs_tol, rel_tol, name);
    if (!ok) failures++;
    seen[comb][dt] = true;
    ncases++;
    free(got);
    tfr_tensor_release(out);
    tfr_tensor_release(init);
    tfr_tensor_release(x);
    tfr_tensor_release(base);
  }
  fclose(mf);
  free(data);
  assert_int_equal(failures, 0);
  assert_true(ncases > 700);
  // Every pair that validation accepts was covered.
  int pairs = 0;
  for (int c = 0; c < 7; c++)
    for (int d = 0; d < TFR_DTYPE_COUNT; d++) pairs += seen[c][d];
  assert_int_equal(pairs, 31);
}

// ---------------------------------------------------------------------------
// Accuracy of long float sums
// ---------------------------------------------------------------------------

// 10^7 times 0.1f: a naive float loop drifts far from the true sum; the
// kernel's blocked pairwise sum stays within a few ulp of it, for the inner
// (all axes) and the lanes (axis 0) layouts and for complex sums.
static void test_long_f32_sum_accuracy(void **state) {
  tfr_session *s = tfr_sess(state);
  const int64_t n = 10000000;
  float *v = malloc((size_t)n * sizeof *v);
  assert_non_null(v);
  for (int64_t i = 0; i < n; i++) v[i] = 0.1f;
  float naive = 0.0f;
  for (int64_t i = 0; i < n; i++) naive += v[i];
  float exact = (float)((double)n * (double)0.1f);  // exact in double: 1e7 * 0.1f
  tfr_tensor *x = tfr_test_tensor(TFR_F32, 1, &n, v);
  tfr_tensor *out = NULL;
  int64_t ax0 = 0;
  TFR_ASSERT_OK(tfr_reduce_sum(s, x, 1, &ax0, &out));
  float got;
  tfr_read_scalar(out, &got);
  tfr_tensor_release(out);
  print_message("sum of 1e7 x 0.1f: naive loop %.9g, kernel %.9g, true %.9g\n", (double)naive,
                (double)got, (double)exact);
  assert_true(tfr_test_ulp_f32(naive, exact) > 10000);  // the naive loop is far off
  assert_true(tfr_test_ulp_f32(got, exact) <= 4);

  // Lanes layout: [10^6, 10] summed over axis 0, ten columns of 10^6 terms.
  int64_t shape2[2] = {1000000, 10};
  tfr_tensor *x2 = NULL;
  TFR_ASSERT_OK(tfr_tensor_view_reshape(x, 2, shape2, &x2));
  TFR_ASSERT_OK(tfr_reduce_sum(s, x2, 1, &ax0, &out));
  float cols[10];
  TFR_ASSERT_OK(tfr_tensor_read(out, cols, sizeof cols));
  float col_exact = (float)(1e6 * (double)0.1f);
  float col_naive = 0.0f;
  for (int64_t i = 0; i < 1000000; i++) col_naive += 0.1f;
  assert_true(tfr_test_ulp_f32(col_naive, col_exact) > 1000);
  print_message("axis 0 of [1e6, 10]: naive %.9g, kernel %.9g, true %.9g\n", (double)col_naive,
                (double)cols[0], (double)col_exact);
  for (int k = 0; k < 10; k++) assert_true(tfr_test_ulp_f32(cols[k], col_exact) <= 4);
  tfr_tensor_release(out);
  tfr_tensor_release(x2);

  // c64: 5*10^6 complex numbers (0.1, -0.3).
  int64_t half = n / 2;
  float _Complex cz;
  float _Complex *cv = malloc((size_t)half * sizeof *cv);
  assert_non_null(cv);
  for (int64_t i = 0; i < half; i++) cv[i] = CMPLXF(0.1f, -0.3f);
  tfr_tensor *c = tfr_test_tensor(TFR_C64, 1, &half, cv);
  TFR_ASSERT_OK(tfr_reduce_sum(s, c, 1, &ax0, &out));
  tfr_read_scalar(out, &cz);
  print_message("c64 sum: (%.9g, %.9g)\n", (double)crealf(cz), (double)cimagf(cz));
  assert_true(tfr_test_ulp_f32(crealf(cz), (float)((double)half * (double)0.1f)) <= 4);
  assert_true(tfr_test_ulp_f32(cimagf(cz), (float)((double)half * (double)-0.3f)) <= 4);
  tfr_tensor_release(out);
  tfr_tensor_release(c);
  free(cv);
  tfr_tensor_release(x);
  free(v);
}

// ---------------------------------------------------------------------------
// Hand-derived values
// ---------------------------------------------------------------------------

static void test_integer_wrap(void **state) {
  tfr_session *s = tfr_sess(state);
  tfr_tensor *x, *out;
  int64_t ax0 = 0;
  // Sums wrap: 100 x INT32_MAX = 100 * (2^31 - 1) mod 2^32, long enough for
  // the vector path.
  int32_t a[100];
  for (int i = 0; i < 100; i++) a[i] = INT32_MAX;
  int64_t n = 100;
  x = tfr_test_tensor(TFR_I32, 1, &n, a);
  TFR_ASSERT_OK(tfr_reduce_sum(s, x, 1, &ax0, &out));
  int32_t r32;
  tfr_read_scalar(out, &r32);
  assert_int_equal(r32, (int32_t)(uint32_t)(100u * (uint32_t)INT32_MAX));
  assert_int_equal(r32, -100);
  tfr_tensor_release(out);
  tfr_tensor_release(x);

  int64_t b[2] = {INT64_MAX, 1};
  n = 2;
  x = tfr_test_tensor(TFR_I64, 1, &n, b);
  TFR_ASSERT_OK(tfr_reduce_sum(s, x, 1, &ax0, &out));
  int64_t r64;
  tfr_read_scalar(out, &r64);
  assert_true(r64 == INT64_MIN);
  tfr_tensor_release(out);
  // Products wrap: INT64_MAX * 1 * init 2 = -2.
  int64_t two = 2;
  tfr_tensor *init = tfr_scalar(TFR_I64, &two);
  TFR_ASSERT_OK(tfr_reduce(s, x, init, TFR_REDUCE_MULTIPLY, 1, &ax0, &out));
  tfr_read_scalar(out, &r64);
  assert_true(r64 == -2);
  tfr_tensor_release(out);
  tfr_tensor_release(init);
  tfr_tensor_release(x);

  int32_t c[3] = {65536, 65536, 3};
  n = 3;
  x = tfr_test_tensor(TFR_I32, 1, &n, c);
  TFR_ASSERT_OK(tfr_reduce_prod(s, x, 1, &ax0, &out));
  tfr_read_scalar(out, &r32);
  assert_int_equal(r32, 0);
  tfr_tensor_release(out);
  tfr_tensor_release(x);
}

static void test_nan_propagation(void **state) {
  tfr_session *s = tfr_sess(state);
  int64_t ax0 = 0, ax1 = 1;
  tfr_tensor *out;
  // Short and long (vector path) inner runs, NaN at each position class.
  for (int64_t n = 3; n <= 300; n += 297) {
    for (int64_t pos = 0; pos < n; pos += (n == 3 ? 1 : 149)) {
      float *v = malloc((size_t)n * sizeof *v);
      double *w = malloc((size_t)n * sizeof *w);
      assert_non_null(v);
      assert_non_null(w);
      for (int64_t i = 0; i < n; i++) v[i] = (float)(w[i] = (double)(i % 17) - 8.0);
      v[pos] = NAN;
      w[pos] = NAN;
      tfr_tensor *xf = tfr_test_tensor(TFR_F32, 1, &n, v);
      tfr_tensor *xd = tfr_test_tensor(TFR_F64, 1, &n, w);
      float rf;
      double rd;
      TFR_ASSERT_OK(tfr_reduce_max(s, xf, 1, &ax0, &out));
      tfr_read_scalar(out, &rf);
      assert_true(isnan(rf));
      tfr_tensor_release(out);
      TFR_ASSERT_OK(tfr_reduce_min(s, xd, 1, &ax0, &out));
      tfr_read_scalar(out, &rd);
      assert_true(isnan(rd));
      tfr_tensor_release(out);
      tfr_tensor_release(xf);
      tfr_tensor_release(xd);
      free(v);
      free(w);
    }
  }
  // Lanes layout: [100, 3] over axis 0, NaN only in column 1.
  double m[300];
  for (int i = 0; i < 300; i++) m[i] = (double)i;
  m[3 * 57 + 1] = NAN;
  int64_t shape[2] = {100, 3};
  tfr_tensor *x = tfr_test_tensor(TFR_F64, 2, shape, m);
  TFR_ASSERT_OK(tfr_reduce_max(s, x, 1, &ax0, &out));
  double r[3];
  TFR_ASSERT_OK(tfr_tensor_read(out, r, sizeof r));
  assert_true(r[0] == 297.0 && isnan(r[1]) && r[2] == 299.0);
  tfr_tensor_release(out);
  TFR_ASSERT_OK(tfr_reduce_min(s, x, 1, &ax0, &out));
  TFR_ASSERT_OK(tfr_tensor_read(out, r, sizeof r));
  assert_true(r[0] == 0.0 && isnan(r[1]) && r[2] == 2.0);
  tfr_tensor_release(out);
  // Over axis 1: only row 57 is NaN.
  TFR_ASSERT_OK(tfr_reduce_max(s, x, 1, &ax1, &out));
  double rows[100];
  TFR_ASSERT_OK(tfr_tensor_read(out, rows, sizeof rows));
  for (int i = 0; i < 100; i++) assert_true(i == 57 ? isnan(rows[i]) : rows[i] == 3.0 * i + 2);
  tfr_tensor_release(out);
  // A NaN init value gives NaN everywhere; sums with a NaN give NaN too.
  double nan = NAN;
  tfr_tensor *init = tfr_scalar(TFR_F64, &nan);
  TFR_ASSERT_OK(tfr_reduce(s, x, init, TFR_REDUCE_MINIMUM, 1, &ax1, &out));
  TFR_ASSERT_OK(tfr_tensor_read(out, rows, sizeof rows));
  for (int i = 0; i < 100; i++) assert_true(isnan(rows[i]));
  tfr_tensor_release(out);
  tfr_tensor_release(init);
  TFR_ASSERT_OK(tfr_reduce_sum(s, x, 1, &ax0, &out));
  TFR_ASSERT_OK(tfr_tensor_read(out, r, sizeof r));
  assert_true(!isnan(r[0]) && isnan(r[1]) && !isnan(r[2]));
  tfr_tensor_release(out);
  tfr_tensor_release(x);
}

// Rank 0, no axes, and reductions of zero elements: the identity of each
// combiner (or the init value).
static void test_rank0_and_empty(void **state) {
  tfr_session *s = tfr_sess(state);
  tfr_tensor *out;
  double v = 2.5, r;
  tfr_tensor *x = tfr_scalar(TFR_F64, &v);
  TFR_ASSERT_OK(tfr_reduce_sum(s, x, 0, NULL, &out));
  tfr_read_scalar(out, &r);
  assert_true(r == 2.5);
  tfr_tensor_release(out);
  double seven = 7.0;
  tfr_tensor *init = tfr_scalar(TFR_F64, &seven);
  TFR_ASSERT_OK(tfr_reduce(s, x, init, TFR_REDUCE_MULTIPLY, 0, NULL, &out));
  tfr_read_scalar(out, &r);
  assert_true(r == 17.5);  // the init value is combined once even with no axes
  tfr_tensor_release(out);
  tfr_tensor_release(init);
  tfr_tensor_release(x);

  // [2, 0, 3] reduced over axis 1: six identities.
  int64_t shape[3] = {2, 0, 3}, ax1 = 1, ax0 = 0;
  struct {
    tfr_reduce_combiner c;
    tfr_dtype dt;
    double want;  // as double (exact for these)
  } cases[] = {
      {TFR_REDUCE_ADD, TFR_F32, 0.0},         {TFR_REDUCE_MULTIPLY, TFR_F64, 1.0},
      {TFR_REDUCE_MAXIMUM, TFR_F32, -INFINITY}, {TFR_REDUCE_MINIMUM, TFR_F64, INFINITY},
      {TFR_REDUCE_MAXIMUM, TFR_I32, INT32_MIN}, {TFR_REDUCE_MINIMUM, TFR_I32, INT32_MAX},
      {TFR_REDUCE_AND, TFR_I32, -1},          {TFR_REDUCE_OR, TFR_I32, 0},
      {TFR_REDUCE_AND, TFR_BOOL, 1},          {TFR_REDUCE_OR, TFR_BOOL, 0},
      {TFR_REDUCE_XOR, TFR_BOOL, 0},          {TFR_REDUCE_MAXIMUM, TFR_BOOL, 0},
      {TFR_REDUCE_MINIMUM, TFR_BOOL, 1},      {TFR_REDUCE_MULTIPLY, TFR_C64, 1.0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tfr_tensor *e = NULL;
    TFR_ASSERT_OK(tfr_tensor_zeros_host(cases[i].dt, 3, shape, &e));
    TFR_ASSERT_OK(tfr_reduce(s, e, NULL, cases[i].c, 1, &ax1, &out));
    assert_int_equal(tfr_tensor_rank(out), 2);
    assert_int_equal(tfr_tensor_numel(out), 6);
    unsigned char buf[6 * 16];
    TFR_ASSERT_OK(tfr_tensor_read(out, buf, sizeof buf));
    for (int k = 0; k < 6; k++) {
      const unsigned char *p = buf + k * tfr_dtype_size(cases[i].dt);
      double got = 0, im = 0;
      switch (cases[i].dt) {
        case TFR_BOOL: got = *p; break;
        case TFR_I32: got = *(const int32_t *)p; break;
        case TFR_F32: got = *(const float *)p; break;
        case TFR_F64: got = *(const double *)p; break;
        case TFR_C64: got = ((const float *)p)[0], im = ((const float *)p)[1]; break;
        default: fail();
      }
      assert_true(got == cases[i].want && im == 0);
    }
    tfr_tensor_release(out);
    // Over axis 0 the result itself is empty: [0, 3].
    TFR_ASSERT_OK(tfr_reduce(s, e, NULL, cases[i].c, 1, &ax0, &out));
    assert_int_equal(tfr_tensor_numel(out), 0);
    assert_int_equal(tfr_tensor_shape(out)[0], 0);
    assert_int_equal(tfr_tensor_shape(out)[1], 3);
    tfr_tensor_release(out);
    tfr_tensor_release(e);
  }
  // An explicit init value on an empty reduction.
  int64_t nine = -9, r64;
  int64_t e1 = 0;
  tfr_tensor *e = NULL;
  TFR_ASSERT_OK(tfr_tensor_zeros_host(TFR_I64, 1, &e1, &e));
  init = tfr_scalar(TFR_I64, &nine);
  TFR_ASSERT_OK(tfr_reduce(s, e, init, TFR_REDUCE_XOR, 1, &ax0, &out));
  tfr_read_scalar(out, &r64);
  assert_true(r64 == -9);
  tfr_tensor_release(out);
  tfr_tensor_release(init);
  tfr_tensor_release(e);
  // A large result of an empty reduction (filled by doubling copies): every
  // element the init value, for sizes that are not powers of two, c128's
  // 16-byte elements included.
  const int64_t sizes[] = {1, 3, 1000, 65537};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    int64_t sh[2] = {sizes[i], 0}, ax = 1;
    double ci[2] = {1.5, -2.25};
    tfr_tensor *z = NULL, *c = tfr_scalar(TFR_C128, ci);
    TFR_ASSERT_OK(tfr_tensor_zeros_host(TFR_C128, 2, sh, &z));
    TFR_ASSERT_OK(tfr_reduce(s, z, c, TFR_REDUCE_ADD, 1, &ax, &out));
    assert_int_equal(tfr_tensor_numel(out), sizes[i]);
    double *got = malloc((size_t)sizes[i] * 16);
    assert_non_null(got);
    TFR_ASSERT_OK(tfr_tensor_read(out, got, (size_t)sizes[i] * 16));
    for (int64_t k = 0; k < sizes[i]; k++) assert_true(got[2 * k] == 1.5 && got[2 * k + 1] == -2.25);
    free(got);
    tfr_tensor_release(out);
    tfr_tensor_release(c);
    tfr_tensor_release(z);
  }
}

// tfr_reduce with explicit init values, on a strided view.
static void test_explicit_init(void **state) {
  tfr_session *s = tfr_sess(state);
  double m[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  int64_t shape[2] = {3, 4}, ax0 = 0, ax1 = 1, both[2] = {0, 1};
  tfr_tensor *x = tfr_test_tensor(TFR_F64, 2, shape, m), *xt = NULL, *out;
  int64_t perm[2] = {1, 0};
  TFR_ASSERT_OK(tfr_tensor_view_transpose(x, perm, &xt));  // [4, 3]
  double ten = 10.0, big = 100.0, r[4];
  tfr_tensor *init = tfr_scalar(TFR_F64, &ten);
  TFR_ASSERT_OK(tfr_reduce(s, xt, init, TFR_REDUCE_ADD, 1, &ax1, &out));
  TFR_ASSERT_OK(tfr_tensor_read(out, r, sizeof r));
  for (int j = 0; j < 4; j++) assert_true(r[j] == 10.0 + (1 + j) + (5 + j) + (9 + j));
  tfr_tensor_release(out);
  TFR_ASSERT_OK(tfr_reduce(s, xt, init, TFR_REDUCE_MAXIMUM, 1, &ax0, &out));
  double r3[3];
  TFR_ASSERT_OK(tfr_tensor_read(out, r3, sizeof r3));
  assert_true(r3[0] == 10.0 && r3[1] == 10.0 && r3[2] == 12.0);
  tfr_tensor_release(out);
  tfr_tensor_release(init);
  init = tfr_scalar(TFR_F64, &big);
  TFR_ASSERT_OK(tfr_reduce(s, x, init, TFR_REDUCE_MINIMUM, 2, both, &out));
  double rs;
  tfr_read_scalar(out, &rs);
  assert_true(rs == 1.0);
  tfr_tensor_release(out);
  tfr_tensor_release(init);

  // bool or with init true: all true; xor with init true flips the parity.
  uint8_t bits[6] = {0, 1, 1, 0, 0, 0}, yes = 1, rb[2];
  int64_t bshape[2] = {2, 3};
  tfr_tensor *b = tfr_test_tensor(TFR_BOOL, 2, bshape, bits);
  init = tfr_scalar(TFR_BOOL, &yes);
  TFR_ASSERT_OK(tfr_reduce(s, b, init, TFR_REDUCE_OR, 1, &ax1, &out));
  TFR_ASSERT_OK(tfr_tensor_read(out, rb, 2));
  assert_true(rb[0] == 1 && rb[1] == 1);
  tfr_tensor_release(out);
  TFR_ASSERT_OK(tfr_reduce(s, b, init, TFR_REDUCE_XOR, 1, &ax1, &out));
  TFR_ASSERT_OK(tfr_tensor_read(out, rb, 2));
  assert_true(rb[0] == 1 && rb[1] == 1);  // 1^(0^1^1) = 1, 1^(0^0^0) = 1
  tfr_tensor_release(out);
  tfr_tensor_release(init);
  tfr_tensor_release(b);

  // complex multiply with an init value: (1+i) * (2) * (i) * init (0.5) = (-1 + i).
  double _Complex z[2] = {CMPLX(1.0, 1.0), CMPLX(0.0, 2.0)};
  double _Complex half = CMPLX(0.5, 0.0), rz;
  int64_t two = 2;
  tfr_tensor *c = tfr_test_tensor(TFR_C128, 1, &two, z);
  init = tfr_scalar(TFR_C128, &half);
  TFR_ASSERT_OK(tfr_reduce(s, c, init, TFR_REDUCE_MULTIPLY, 1, &ax0, &out));
  tfr_read_scalar(out, &rz);
  assert_true(creal(rz) == -1.0 && cimag(rz) == 1.0);
  tfr_tensor_release(out);
  tfr_tensor_release(init);
  tfr_tensor_release(c);
  tfr_tensor_release(xt);
  tfr_tensor_release(x);
}

// ---------------------------------------------------------------------------
// Thread count independence (> TFR_CPU_PARALLEL_MIN elements)
// ---------------------------------------------------------------------------

typedef struct tfr_layout_case {
  const char *what;
  tfr_dtype dt;
  tfr_reduce_combiner c;
  int rank;
  int64_t shape[3];
  bool transpose;  // view with the first two axes swapped
  bool reverse;    // view with axis 0 reversed
  int naxes;
  int64_t axes[3];
} tfr_layout_case;

static const tfr_layout_case tfr_layouts[] = {
    {"f64 sum all", TFR_F64, TFR_REDUCE_ADD, 1, {300000}, false, false, 1, {0}},
    {"f32 sum all 2d", TFR_F32, TFR_REDUCE_ADD, 2, {512, 513}, false, true, 2, {0, 1}},
    {"f64 sum axis 0 (lanes, strips)", TFR_F64, TFR_REDUCE_ADD, 2, {300, 2000}, false, false, 1, {0}},
    {"f64 sum axis 0 (lanes, one strip)", TFR_F64, TFR_REDUCE_ADD, 2, {40000, 3}, false, false, 1, {0}},
    {"f32 sum axis 1 (inner, many rows)", TFR_F32, TFR_REDUCE_ADD, 2, {2000, 100}, false, false, 1, {1}},
    {"f64 sum axis 1 (inner, split)", TFR_F64, TFR_REDUCE_ADD, 2, {3, 40000}, false, false, 1, {1}},
    {"f64 sum transposed axis 1", TFR_F64, TFR_REDUCE_ADD, 2, {700, 300}, true, false, 1, {1}},
    {"c64 sum axes 0,2", TFR_C64, TFR_REDUCE_ADD, 3, {50, 7, 300}, false, true, 2, {0, 2}},
    {"c128 sum all", TFR_C128, TFR_REDUCE_ADD, 2, {200, 300}, false, false, 2, {0, 1}},
    {"f32 prod axis 0", TFR_F32, TFR_REDUCE_MULTIPLY, 2, {200, 300}, false, false, 1, {0}},
    {"c64 prod axis 1", TFR_C64, TFR_REDUCE_MULTIPLY, 2, {300, 200}, false, false, 1, {1}},
    {"f64 max all", TFR_F64, TFR_REDUCE_MAXIMUM, 2, {300, 300}, false, false, 2, {0, 1}},
    {"i64 sum axis 0", TFR_I64, TFR_REDUCE_ADD, 2, {300, 300}, true, false, 1, {0}},
};

// Random data for `lc` (products: factors near 1 so that they stay finite).
static tfr_tensor *tfr_layout_input(const tfr_layout_case *lc, uint64_t seed, tfr_tensor **base) {
  *base = tfr_test_random_tensor(lc->dt, lc->rank, lc->shape, seed);
  if (lc->c == TFR_REDUCE_MULTIPLY) {
    tfr_tensor_release(*base);
    int64_t n = 1;
    for (int k = 0; k < lc->rank; k++) n *= lc->shape[k];
    int parts = lc->dt == TFR_C64 ? 2 : 1;
    float *v = malloc((size_t)(n * parts) * sizeof *v);
    assert_non_null(v);
    uint64_t st = seed;
    for (int64_t i = 0; i < n * parts; i++)
      v[i] = (float)tfr_test_rand_uniform(&st, 0.99, 1.01) * (i % 3 == 0 ? -1.0f : 1.0f);
    *base = tfr_test_tensor(lc->dt, lc->rank, lc->shape, v);
    free(v);
  }
  tfr_tensor *x = *base;
  tfr_tensor_retain(x);
  if (lc->transpose) {
    int64_t perm[3] = {1, 0, 2};
    tfr_tensor *t = NULL;
    TFR_ASSERT_OK(tfr_tensor_view_transpose(x, perm, &t));
    tfr_tensor_release(x);
    x = t;
  }
  if (lc->reverse) {
    int64_t ax = 0;
    tfr_tensor *t = NULL;
    TFR_ASSERT_OK(tfr_tensor_view_reverse(x, 1, &ax, &t));
    tfr_tensor_release(x);
    x = t;
  }
  return x;
}

// Reduces with a fresh backend of `threads` threads; returns the result bytes.
static void *tfr_reduce_with_threads(const tfr_layout_case *lc, int threads, size_t *nbytes) {
  tfr_backend *b = tfr_backend_threads(threads);
  tfr_session *s = NULL;
  TFR_ASSERT_OK(tfr_session_begin(b, &s));
  tfr_tensor *base, *x = tfr_layout_input(lc, 77, &base), *out = NULL;
  TFR_ASSERT_OK(tfr_reduce(s, x, NULL, lc->c, lc->naxes, lc->axes, &out));
  *nbytes = tfr_tensor_nbytes(out);
  void *r = tfr_read_all(out);
  tfr_tensor_release(out);
  tfr_tensor_release(x);
  tfr_tensor_release(base);
  TFR_ASSERT_OK(tfr_session_end(s));
  tfr_backend_release(b);
  return r;
}

// A loose check of the values against a double-precision loop, so that a
// thread-independent but wrong result cannot pass.
static void tfr_check_layout_values(const tfr_layout_case *lc, const void *got) {
  tfr_backend *b = tfr_backend_threads(1);
  tfr_session *s = NULL;
  TFR_ASSERT_OK(tfr_session_begin(b, &s));
  tfr_tensor *base, *x = tfr_layout_input(lc, 77, &base);
  int rank = lc->rank;
  const int64_t *shape = tfr_tensor_shape(x), *strides = tfr_tensor_strides(x);
  void *p;
  TFR_ASSERT_OK(tfr_tensor_host_data(x, &p));
  size_t es = tfr_dtype_size(lc->dt);
  int64_t ostrides[3] = {0, 0, 0}, on = 1;
  for (int k = rank - 1; k >= 0; k--) {
    bool red = false;
    for (int j = 0; j < lc->naxes; j++) red |= lc->axes[j] == k;
    if (!red) {
      ostrides[k] = on;
      on *= shape[k];
    }
  }
  double *ref = calloc((size_t)on * 2, sizeof *ref);
  assert_non_null(ref);
  for (int64_t i = 0; i < on * 2; i++)
    ref[i] = lc->c == TFR_REDUCE_MULTIPLY ? (i % 2 ? 0.0 : 1.0)
             : lc->c == TFR_REDUCE_MAXIMUM ? -INFINITY : 0.0;
  int64_t idx[3] = {0, 0, 0};
  int64_t total = tfr_tensor_numel(x);
  for (int64_t e = 0; e < total; e++) {
    int64_t off = 0, o = 0;
    for (int k = 0; k < rank; k++) off += idx[k] * strides[k], o += idx[k] * ostrides[k];
    const char *q = (const char *)p + off * (int64_t)es;
    double re = 0, im = 0;
    switch (lc->dt) {
      case TFR_I64: re = (double)*(const int64_t *)q; break;
      case TFR_F32: re = *(const float *)q; break;
      case TFR_F64: re = *(const double *)q; break;
      case TFR_C64: re = ((const float *)q)[0], im = ((const float *)q)[1]; break;
      case TFR_C128: re = ((const double *)q)[0], im = ((const double *)q)[1]; break;
      default: fail();
    }
    double *r = ref + 2 * o;
    if (lc->c == TFR_REDUCE_ADD) r[0] += re, r[1] += im;
    else if (lc->c == TFR_REDUCE_MAXIMUM) r[0] = re > r[0] ? re : r[0];
    else {
      double a = r[0] * re - r[1] * im, bb = r[0] * im + r[1] * re;
      r[0] = a, r[1] = bb;
    }
    for (int k = rank - 1; k >= 0 && ++idx[k] == shape[k]; k--) idx[k] = 0;
  }
  for (int64_t o = 0; o < on; o++) {
    double re = 0, im = 0;
    const char *q = (const char *)got + o * (int64_t)es;
    switch (lc->dt) {
      case TFR_I64: re = (double)*(const int64_t *)q; break;
      case TFR_F32: re = *(const float *)q; break;
      case TFR_F64: re = *(const double *)q; break;
      case TFR_C64: re = ((const float *)q)[0], im = ((const float *)q)[1]; break;
      case TFR_C128: re = ((const double *)q)[0], im = ((const double *)q)[1]; break;
      default: fail();
    }
    double tol = (lc->dt == TFR_F32 || lc->dt == TFR_C64) ? 1e-3 : 1e-9;
    double scale = 1.0 + fabs(ref[2 * o]) + fabs(ref[2 * o + 1]);
    if (fabs(re - ref[2 * o]) > tol * scale || fabs(im - ref[2 * o + 1]) > tol * scale) {
      print_error("%s: output %" PRId64 " is (%.9g, %.9g), want about (%.9g, %.9g)\n", lc->what,
                  o, re, im, ref[2 * o], ref[2 * o + 1]);
      fail();
    }
  }
  free(ref);
  tfr_tensor_release(x);
  tfr_tensor_release(base);
  TFR_ASSERT_OK(tfr_session_end(s));
  tfr_backend_release(b);
}

static void test_thread_count_independence(void **state) {
  tfr_test_env *env = *state;
  // One session per thread: leave the group's session while this test runs.
  TFR_ASSERT_OK(tfr_session_end(env->session));
  env->session = NULL;
  for (size_t i = 0; i < sizeof tfr_layouts / sizeof tfr_layouts[0]; i++) {
    const tfr_layout_case *lc = &tfr_layouts[i];
    size_t n1, n2, n3;
    void *r1 = tfr_reduce_with_threads(lc, 1, &n1);
    void *r2 = tfr_reduce_with_threads(lc, 2, &n2);
    void *r3 = tfr_reduce_with_threads(lc, 3, &n3);
    assert_int_equal(n1, n2);
    assert_int_equal(n1, n3);
    if (memcmp(r1, r2, n1) != 0 || memcmp(r1, r3, n1) != 0) {
      print_error("%s: results differ between 1, 2 and 3 threads\n", lc->what);
      fail();
    }
    tfr_check_layout_values(lc, r1);
    free(r1);
    free(r2);
    free(r3);
  }
  TFR_ASSERT_OK(tfr_session_begin(env->backend, &env->session));
}

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

static void test_validation_errors(void **state) {
  tfr_session *s = tfr_sess(state);
  int64_t shape[2] = {2, 3};
  tfr_tensor *xf = tfr_test_random_tensor(TFR_F32, 2, shape, 1);
  tfr_tensor *xc = tfr_test_random_tensor(TFR_C64, 2, shape, 2);
  tfr_tensor *xb = tfr_test_random_tensor(TFR_BOOL, 2, shape, 3);
  tfr_tensor *out = (tfr_tensor *)&out;  // must come back NULL
  int64_t ax[2] = {0, 1};

  TFR_ASSERT_ERROR(tfr_reduce(s, xf, NULL, (tfr_reduce_combiner)7, 1, ax, &out),
                   TFR_ERR_INVALID_ARGUMENT, "reduce", "invalid combiner", "7");
  assert_null(out);
  out = (tfr_tensor *)&out;
  TFR_ASSERT_ERROR(tfr_reduce(s, xf, NULL, TFR_REDUCE_AND, 1, ax, &out),
                   TFR_ERR_UNSUPPORTED_DTYPE, "reduce (and)", "f32");
  assert_null(out);
  TFR_ASSERT_ERROR(tfr_reduce(s, xf, NULL, TFR_REDUCE_XOR, 1, ax, &out),
                   TFR_ERR_UNSUPPORTED_DTYPE, "reduce (xor)", "f32");
  TFR_ASSERT_ERROR(tfr_reduce_max(s, xc, 1, ax, &out), TFR_ERR_UNSUPPORTED_DTYPE,
                   "reduce (maximum)", "c64");
  TFR_ASSERT_ERROR(tfr_reduce_sum(s, xb, 1, ax, &out), TFR_ERR_UNSUPPORTED_DTYPE,
                   "reduce (add)", "bool");
  TFR_ASSERT_ERROR(tfr_reduce_prod(s, xb, 1, ax, &out), TFR_ERR_UNSUPPORTED_DTYPE,
                   "reduce (multiply)", "bool");

  int64_t twice[2] = {1, 1}, big[1] = {2}, neg[1] = {-1};
  TFR_ASSERT_ERROR(tfr_reduce_sum(s, xf, 2, twice, &out), TFR_ERR_INVALID_ARGUMENT, "reduce",
                   "axis 1 is listed twice");
  TFR_ASSERT_ERROR(tfr_reduce_sum(s, xf, 1, big, &out), TFR_ERR_INVALID_ARGUMENT, "reduce",
                   "axis 2", "out of range for rank 2");
  TFR_ASSERT_ERROR(tfr_reduce_sum(s, xf, 1, neg, &out), TFR_ERR_INVALID_ARGUMENT,
                   "axis -1", "out of range");
  TFR_ASSERT_ERROR(tfr_reduce_sum(s, xf, 3, ax, &out), TFR_ERR_INVALID_ARGUMENT,
                   "3 axes for an operand of rank 2");
  TFR_ASSERT_ERROR(tfr_reduce_sum(s, xf, 1, NULL, &out), TFR_ERR_INVALID_ARGUMENT, "axes is NULL");
  TFR_ASSERT_ERROR(tfr_reduce_sum(s, xf, 1, ax, NULL), TFR_ERR_INVALID_ARGUMENT, "reduce");
  TFR_ASSERT_ERROR(tfr_reduce_sum(s, NULL, 1, ax, &out), TFR_ERR_INVALID_ARGUMENT, "reduce");

  // init_value: rank 0 and the operand's dtype.
  int64_t one = 1;
  float f1 = 1.0f;
  double d1 = 1.0;
  tfr_tensor *init_r1 = tfr_test_tensor(TFR_F32, 1, &one, &f1);
  tfr_tensor *init_f64 = tfr_scalar(TFR_F64, &d1);
  TFR_ASSERT_ERROR(tfr_reduce(s, xf, init_r1, TFR_REDUCE_ADD, 1, ax, &out),
                   TFR_ERR_INVALID_ARGUMENT, "reduce", "init_value has rank 1");
  TFR_ASSERT_ERROR(tfr_reduce(s, xf, init_f64, TFR_REDUCE_ADD, 1, ax, &out),
                   TFR_ERR_INVALID_ARGUMENT, "reduce", "init_value has dtype f64",
                   "operand has dtype f32");
  assert_null(out);
  tfr_tensor_release(init_r1);
  tfr_tensor_release(init_f64);
  tfr_tensor_release(xf);
  tfr_tensor_release(xc);
  tfr_tensor_release(xb);
}

// Allocation failures at every step give TFR_ERR_OUT_OF_MEMORY and leak
// nothing (run under ASan), until enough allocations succeed.
static void test_out_of_memory(void **state) {
  tfr_session *s = tfr_sess(state);
  int64_t shape[2] = {300, 400}, ax0 = 0, all[2] = {0, 1};
  tfr_tensor *x = tfr_test_random_tensor(TFR_F64, 2, shape, 9);
  for (int variant = 0; variant < 2; variant++) {
    bool ok = false;
    for (long n = 0; n < 20 && !ok; n++) {
      tfr_tensor *out = NULL;
      tfr_alloc_fail_after(n);
      tfr_status st = variant ? tfr_reduce_sum(s, x, 2, all, &out)
                              : tfr_reduce_sum(s, x, 1, &ax0, &out);
      tfr_alloc_fail_after(-1);
      if (st == TFR_OK) {
        ok = true;
        assert_non_null(out);
      } else {
        TFR_ASSERT_ERROR(st, TFR_ERR_OUT_OF_MEMORY, "");
        assert_null(out);
      }
      tfr_tensor_release(out);
    }
    assert_true(ok);
  }
  tfr_tensor_release(x);
}

// The 8/16-bit, unsigned and half dtypes, hand-derived: f16/bf16 sums
// accumulate in f32 and round once (3000 ones in f16 give 3000; summed in f16
// they would stop at 2048), u8 sums wrap, identities of the empty reduction
// are the dtype's extremes, and dot_general wraps i8 and rounds f16 once.
static void test_new_dtypes(void **state) {
  tfr_test_env *env = *state;
  tfr_session *s = env->session;
  int64_t n = 3000, ax = 0;
  uint16_t *h = malloc(sizeof(uint16_t) * (size_t)n);
  assert_non_null(h);
  for (int64_t i = 0; i < n; i++) h[i] = 0x3c00;  // f16 1.0
  tfr_tensor *x = tfr_test_tensor(TFR_F16, 1, &n, h), *y = NULL;
  TFR_ASSERT_OK(tfr_reduce_sum(s, x, 1, &ax, &y));
  uint16_t r;
  tfr_read_scalar(y, &r);
  assert_int_equal(r, 0x69dc);  // 3000 = 1.46484375 * 2^11
  tfr_tensor_release(y);
  // dot_general of the same vector with itself: 3000, rounded once.
  tfr_dot_config dc = {.num_contracting_dims = 1,
                       .lhs_contracting_dimensions = (int64_t[]){0},
                       .rhs_contracting_dimensions = (int64_t[]){0}};
  TFR_ASSERT_OK(tfr_dot_general(s, x, x, &dc, &y));
  tfr_read_scalar(y, &r);
  assert_int_equal(r, 0x69dc);
  tfr_tensor_release(y);
  tfr_tensor_release(x);
  for (int64_t i = 0; i < 1000; i++) h[i] = 0x3f80;  // bf16 1.0
  n = 1000;
  x = tfr_test_tensor(TFR_BF16, 1, &n, h);
  TFR_ASSERT_OK(tfr_reduce_sum(s, x, 1, &ax, &y));
  tfr_read_scalar(y, &r);
  assert_int_equal(r, 0x447a);  // 1000
  tfr_tensor_release(y);
  tfr_tensor_release(x);
  free(h);
  // u8: 300 ones wrap to 44; max of i8 / min of u16.
  n = 300;
  uint8_t ones[300];
  memset(ones, 1, sizeof ones);
  x = tfr_test_tensor(TFR_U8, 1, &n, ones);
  TFR_ASSERT_OK(tfr_reduce_sum(s, x, 1, &ax, &y));
  uint8_t u8;
  tfr_read_scalar(y, &u8);
  assert_int_equal(u8, 44);
  tfr_tensor_release(y);
  tfr_tensor_release(x);
  n = 4;
  x = tfr_test_tensor(TFR_I8, 1, &n, (int8_t[]){-128, 5, 127, -3});
  TFR_ASSERT_OK(tfr_reduce_max(s, x, 1, &ax, &y));
  int8_t i8;
  tfr_read_scalar(y, &i8);
  assert_int_equal(i8, 127);
  tfr_tensor_release(y);
  TFR_ASSERT_OK(tfr_reduce_min(s, x, 1, &ax, &y));
  tfr_read_scalar(y, &i8);
  assert_int_equal(i8, -128);
  tfr_tensor_release(y);
  // i8 dot: 100 * 100 + 100 * 100 = 20000 = 0x4e20 wraps to 0x20.
  int64_t two = 2;
  tfr_tensor *v = tfr_test_tensor(TFR_I8, 1, &two, (int8_t[]){100, 100});
  TFR_ASSERT_OK(tfr_dot_general(s, v, v, &dc, &y));
  tfr_read_scalar(y, &i8);
  assert_int_equal(i8, 0x20);
  tfr_tensor_release(y);
  tfr_tensor_release(v);
  tfr_tensor_release(x);
  // Identities of empty reductions: u32 min is all ones, i16 max is INT16_MIN,
  // f16 max is -inf, u64 product 1.
  n = 0;
  const struct {
    tfr_dtype dt;
    tfr_reduce_combiner c;
    uint64_t bits;
  } ids[] = {{TFR_U32, TFR_REDUCE_MINIMUM, 0xffffffffu}, {TFR_I16, TFR_REDUCE_MAXIMUM, 0x8000},
             {TFR_F16, TFR_REDUCE_MAXIMUM, 0xfc00},      {TFR_U64, TFR_REDUCE_MULTIPLY, 1},
             {TFR_BF16, TFR_REDUCE_MINIMUM, 0x7f80},     {TFR_U16, TFR_REDUCE_AND, 0xffff}};
  for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
    TFR_ASSERT_OK(tfr_tensor_zeros_host(ids[i].dt, 1, &n, &x));
    TFR_ASSERT_OK(tfr_reduce(s, x, NULL, ids[i].c, 1, &ax, &y));
    uint64_t got = 0;
    tfr_read_scalar(y, &got);  // little-endian host: the low bytes
    assert_int_equal(got, ids[i].bits);
    tfr_tensor_release(y);
    tfr_tensor_release(x);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reference_data),
      cmocka_unit_test(test_long_f32_sum_accuracy),
      cmocka_unit_test(test_integer_wrap),
      cmocka_unit_test(test_nan_propagation),
      cmocka_unit_test(test_rank0_and_empty),
      cmocka_unit_test(test_explicit_init),
      cmocka_unit_test(test_thread_count_independence),
      cmocka_unit_test(test_validation_errors),
      cmocka_unit_test(test_out_of_memory),
      cmocka_unit_test(test_new_dtypes),
  };
  return cmocka_run_group_tests(tests, tfr_test_setup_cpu, tfr_test_teardown_cpu);
}
