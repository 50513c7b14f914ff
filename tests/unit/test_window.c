// Window ops and bit casts: tfr_reduce_window and tfr_select_and_scatter
// against tests/ref/gen_window.py (a loop-by-loop transcription of the
// StableHLO spec, loaded from .npy files), tfr_bitcast_convert against byte
// copies, and every validation error once.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#define WIN_DIR TFR_TEST_DATA_DIR "/window"

static tfr_tensor *load_npy(const char *name, const char *role) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s.%s.npy", WIN_DIR, name, role);
  tfr_tensor *t = NULL;
  TFR_ASSERT_OK(tfr_npy_load(path, &t));
  return t;
}

// "1,2,3" or "-" into v; returns the count.
static int parse_list(const char *s, int64_t *v) {
  if (strcmp(s, "-") == 0) return 0;
  int n = 0;
  char *end;
  for (;;) {
    v[n++] = strtoll(s, &end, 10);
    if (*end != ',') break;
    s = end + 1;
  }
  return n;
}

static int combiner_of(const char *name) {
  static const char *const names[] = {"add", "multiply", "maximum", "minimum", "and", "or", "xor"};
  for (int i = 0; i < 7; i++)
    if (strcmp(names[i], name) == 0) return i;
  fail_msg("unknown combiner %s", name);
  return -1;
}

static tfr_compare_direction direction_of(const char *name) {
  static const char *const names[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
  for (int i = 0; i < 6; i++)
    if (strcmp(names[i], name) == 0) return (tfr_compare_direction)i;
  fail_msg("unknown direction %s", name);
  return TFR_EQ;
}

static bool part_ok(double got, double want, double tol, bool bits_equal) {
  if (bits_equal || (isnan(got) && isnan(want))) return true;
  return tol > 0 && fabs(got - want) <= tol * (1 + fabs(want));
}

// Element-by-element comparison: bytes for bool/int, bits (NaN = NaN) or the
// tolerance for floats and each complex part.
static void assert_matches(const char *name, const tfr_tensor *got, const tfr_tensor *want,
                           double tol) {
  int r = tfr_tensor_rank(want);
  if (tfr_tensor_dtype(got) != tfr_tensor_dtype(want) || tfr_tensor_rank(got) != r)
    fail_msg("%s: dtype/rank %d/%d, expected %d/%d", name, (int)tfr_tensor_dtype(got),
             tfr_tensor_rank(got), (int)tfr_tensor_dtype(want), r);
  for (int k = 0; k < r; k++)
    if (tfr_tensor_shape(got)[k] != tfr_tensor_shape(want)[k])
      fail_msg("%s: extent %lld on axis %d, expected %lld", name,
               (long long)tfr_tensor_shape(got)[k], k, (long long)tfr_tensor_shape(want)[k]);
  size_t nb = tfr_tensor_nbytes(want);
  unsigned char *g = malloc(nb + 1), *w = malloc(nb + 1);
  TFR_ASSERT_OK(tfr_tensor_read(got, g, nb));
  TFR_ASSERT_OK(tfr_tensor_read(want, w, nb));
  tfr_dtype dt = tfr_tensor_dtype(want);
  bool is32 = dt == TFR_F32 || dt == TFR_C64, is64 = dt == TFR_F64 || dt == TFR_C128;
  if (!is32 && !is64) {
    if (memcmp(g, w, nb) != 0) fail_msg("%s: bytes differ", name);
  } else {
    size_t step = is32 ? 4 : 8;
    for (size_t i = 0; i < nb; i += step) {
      double a, b;
      if (is32) {
        float fa, fb;
        memcpy(&fa, g + i, 4);
        memcpy(&fb, w + i, 4);
        a = fa;
        b = fb;
      } else {
        memcpy(&a, g + i, 8);
        memcpy(&b, w + i, 8);
      }
      if (!part_ok(a, b, tol, memcmp(g + i, w + i, step) == 0))
        fail_msg("%s: part %zu is %.17g, expected %.17g", name, i / step, a, b);
    }
  }
  free(g);
  free(w);
}

// The same values as compact `t`, as a view with a negative stride on axis 0.
static tfr_tensor *reversed_view(tfr_session *s, tfr_tensor *t) {
  int64_t axis = 0;
  tfr_tensor *rev = NULL, *view = NULL;
  TFR_ASSERT_OK(tfr_reverse(s, t, 1, &axis, &rev));
  TFR_ASSERT_OK(tfr_tensor_view_reverse(rev, 1, &axis, &view));
  tfr_tensor_release(rev);
  return view;
}

static void test_reference(void **state) {
  tfr_test_env *env = *state;
  tfr_session *s = env->session;
  FILE *f = fopen(WIN_DIR "/manifest.txt", "r");
  if (!f) fail_msg("cannot open %s/manifest.txt (run the ref_data test)", WIN_DIR);
  char line[1024];
  int nrw = 0, nss = 0;
  while (fgets(line, sizeof line, f)) {
    char op[32], name[128], dts[16], a[16], b[16], l1[256], l2[256], l3[256], l4[256], l5[256];
    double tol;
    int64_t wd[TFR_MAX_RANK], ws[TFR_MAX_RANK], bd[TFR_MAX_RANK], wdl[TFR_MAX_RANK],
        pad[2 * TFR_MAX_RANK];
    if (sscanf(line, "%31s", op) != 1) continue;
    if (strcmp(op, "reduce_window") == 0) {
      if (sscanf(line, "%31s %127s %15s %15s %255s %255s %255s %255s %255s %lf", op, name, dts, a,
                 l1, l2, l3, l4, l5, &tol) != 10)
        fail_msg("bad manifest line: %s", line);
      parse_list(l1, wd);
      parse_list(l2, ws);
      parse_list(l3, bd);
      parse_list(l4, wdl);
      parse_list(l5, pad);
      tfr_tensor *x = load_npy(name, "operand"), *init = load_npy(name, "init"),
                 *want = load_npy(name, "expected"), *got = NULL;
      tfr_reduce_combiner c = (tfr_reduce_combiner)combiner_of(a);
      TFR_ASSERT_OK(tfr_reduce_window(s, x, init, c, wd, ws, bd, wdl, pad, &got));
      assert_matches(name, got, want, tol);
      // The `_shape` form gives the result's shape without computing it.
      int64_t shape[TFR_MAX_RANK];
      TFR_ASSERT_OK(tfr_reduce_window_shape(s, x, init, c, wd, ws, bd, wdl, pad, shape));
      for (int k = 0; k < tfr_tensor_rank(got); k++)
        assert_int_equal(shape[k], tfr_tensor_shape(got)[k]);
      tfr_tensor_release(got);
      got = NULL;
      if (tfr_tensor_rank(x) > 0 && tfr_tensor_numel(x) > 0) {
        // A strided operand (negative stride, offset) gives the same result.
        tfr_tensor *v = reversed_view(s, x);
        TFR_ASSERT_OK(tfr_reduce_window(s, v, init, c, wd, ws, bd, wdl, pad, &got));
        assert_matches(name, got, want, tol);
        tfr_tensor_release(got);
        tfr_tensor_release(v);
      }
      tfr_tensor_release(x);
      tfr_tensor_release(init);
      tfr_tensor_release(want);
      nrw++;
    } else if (strcmp(op, "select_and_scatter") == 0) {
      if (sscanf(line, "%31s %127s %15s %15s %15s %255s %255s %255s %lf", op, name, dts, a, b, l1,
                 l2, l3, &tol) != 9)
        fail_msg("bad manifest line: %s", line);
      parse_list(l1, wd);
      parse_list(l2, ws);
      parse_list(l3, pad);
      tfr_tensor *x = load_npy(name, "operand"), *src = load_npy(name, "source"),
                 *init = load_npy(name, "init"), *want = load_npy(name, "expected"), *got = NULL;
      tfr_compare_direction dir = direction_of(a);
      tfr_reduce_combiner c = (tfr_reduce_combiner)combiner_of(b);
      TFR_ASSERT_OK(tfr_select_and_scatter(s, x, src, init, dir, c, wd, ws, pad, &got));
      assert_matches(name, got, want, tol);
      tfr_tensor_release(got);
      got = NULL;
      if (tfr_tensor_rank(x) > 0 && tfr_tensor_numel(x) > 0) {
        tfr_tensor *v = reversed_view(s, x);
        TFR_ASSERT_OK(tfr_select_and_scatter(s, v, src, init, dir, c, wd, ws, pad, &got));
        assert_matches(name, got, want, tol);
        tfr_tensor_release(got);
        tfr_tensor_release(v);
      }
      tfr_tensor_release(x);
      tfr_tensor_release(src);
      tfr_tensor_release(init);
      tfr_tensor_release(want);
      nss++;
    } else {
      fail_msg("bad manifest line: %s", line);
    }
  }
  fclose(f);
  // 13 named + 28 combiner x dtype reduce_window cases; 9 + 28 select_and_scatter.
  assert_true(nrw >= 41);
  assert_true(nss >= 37);
}

// ---------------------------------------------------------------------------
// bitcast_convert
// ---------------------------------------------------------------------------

static void check_bitcast(tfr_session *s, tfr_tensor *x, tfr_dtype to, int rank,
                          const int64_t *shape) {
  tfr_tensor *y = NULL;
  TFR_ASSERT_OK(tfr_bitcast_convert(s, x, to, &y));
  assert_int_equal(tfr_tensor_dtype(y), to);
  assert_int_equal(tfr_tensor_rank(y), rank);
  for (int k = 0; k < rank; k++) assert_int_equal(tfr_tensor_shape(y)[k], shape[k]);
  assert_true(tfr_tensor_is_contiguous(y));
  size_t nb = tfr_tensor_nbytes(x);
  assert_int_equal(tfr_tensor_nbytes(y), nb);
  unsigned char *a = malloc(nb + 1), *b = malloc(nb + 1);
  TFR_ASSERT_OK(tfr_tensor_read(x, a, nb));
  TFR_ASSERT_OK(tfr_tensor_read(y, b, nb));
  assert_memory_equal(a, b, nb);
  free(a);
  free(b);
  tfr_tensor_release(y);
}

static void test_bitcast(void **state) {
  tfr_test_env *env = *state;
  tfr_session *s = env->session;
  int64_t sh[3] = {2, 3, 2};
  // Equal sizes keep the shape; the bytes are the operand's, NaN payloads,
  // -0.0 and all.
  float f[6] = {1.0f, -0.0f, INFINITY, 3.5f, -2.25f, 0.0f};
  uint32_t nan_bits = 0xffc01234u;
  memcpy(&f[5], &nan_bits, 4);
  tfr_tensor *tf32 = tfr_test_tensor(TFR_F32, 2, sh, f);
  check_bitcast(s, tf32, TFR_I32, 2, sh);
  check_bitcast(s, tf32, TFR_F32, 2, sh);
  tfr_tensor *ti32 = tfr_test_random_tensor(TFR_I32, 2, sh, 1);
  check_bitcast(s, ti32, TFR_F32, 2, sh);
  tfr_tensor *tf64 = tfr_test_random_tensor(TFR_F64, 2, sh, 2);
  check_bitcast(s, tf64, TFR_I64, 2, sh);
  tfr_tensor *ti64 = tfr_test_random_tensor(TFR_I64, 2, sh, 3);
  check_bitcast(s, ti64, TFR_F64, 2, sh);
  tfr_tensor *tc64 = tfr_test_random_tensor(TFR_C64, 2, sh, 4);
  check_bitcast(s, tc64, TFR_C64, 2, sh);
  tfr_tensor *tb = tfr_test_random_tensor(TFR_BOOL, 2, sh, 5);
  check_bitcast(s, tb, TFR_BOOL, 2, sh);
  // Narrowing adds a last axis, widening removes one.
  int64_t sh3[3] = {2, 3, 2};
  check_bitcast(s, tf64, TFR_I32, 3, sh3);
  check_bitcast(s, tf64, TFR_F32, 3, sh3);
  int64_t sh32[2] = {2, 3};
  tfr_tensor *pairs = tfr_test_random_tensor(TFR_F32, 3, sh3, 6);
  check_bitcast(s, pairs, TFR_I64, 2, sh32);
  check_bitcast(s, pairs, TFR_F64, 2, sh32);
  tfr_tensor *cpairs = tfr_test_random_tensor(TFR_C64, 3, sh3, 9);
  check_bitcast(s, cpairs, TFR_C128, 2, sh32);
  tfr_tensor *c128 = tfr_test_random_tensor(TFR_C128, 2, sh32, 10);
  check_bitcast(s, c128, TFR_C64, 3, sh3);
  tfr_tensor_release(pairs);
  tfr_tensor_release(cpairs);
  tfr_tensor_release(c128);
  // Rank 0 and empty operands; a transposed (strided) operand.
  tfr_tensor *r0 = tfr_test_random_tensor(TFR_F64, 0, NULL, 7);
  check_bitcast(s, r0, TFR_I64, 0, NULL);
  int64_t two = 2;
  check_bitcast(s, r0, TFR_I32, 1, &two);
  int64_t e[2] = {0, 3};
  tfr_tensor *empty = tfr_test_random_tensor(TFR_I32, 2, e, 8);
  check_bitcast(s, empty, TFR_F32, 2, e);
  int64_t perm[2] = {1, 0}, tsh[2] = {3, 2};
  tfr_tensor *tv = NULL;
  TFR_ASSERT_OK(tfr_tensor_view_transpose(ti32, perm, &tv));
  check_bitcast(s, tv, TFR_F32, 2, tsh);
  tfr_tensor *t = NULL;
  TFR_ASSERT_OK(tfr_bitcast_convert(s, tf32, TFR_I32, &t));
  int32_t bits[6];
  TFR_ASSERT_OK(tfr_tensor_read(t, bits, sizeof bits));
  assert_int_equal((uint32_t)bits[0], 0x3f800000u);
  assert_int_equal((uint32_t)bits[1], 0x80000000u);
  assert_int_equal((uint32_t)bits[5], nan_bits);
  tfr_tensor *all[] = {tf32, ti32, tf64, ti64, tc64, tb, r0, empty, tv, t};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) tfr_tensor_release(all[i]);
}

static void test_bitcast_errors(void **state) {
  tfr_test_env *env = *state;
  tfr_session *s = env->session;
  int64_t sh[2] = {2, 3};
  tfr_tensor *c64 = tfr_test_random_tensor(TFR_C64, 2, sh, 1);
  tfr_tensor *f32 = tfr_test_random_tensor(TFR_F32, 2, sh, 2);
  tfr_tensor *b = tfr_test_random_tensor(TFR_BOOL, 2, sh, 3);
  tfr_tensor *r0 = tfr_test_random_tensor(TFR_F32, 0, NULL, 4);
  tfr_tensor *out = NULL;
  TFR_ASSERT_ERROR(tfr_bitcast_convert(s, c64, TFR_I64, &out), TFR_ERR_INVALID_ARGUMENT,
                   "bitcast_convert", "c64 to i64", "(C2)");
  assert_null(out);
  TFR_ASSERT_ERROR(tfr_bitcast_convert(s, b, TFR_I32, &out), TFR_ERR_UNSUPPORTED_DTYPE,
                   "bitcast_convert", "bool to i32");
  TFR_ASSERT_ERROR(tfr_bitcast_convert(s, f32, TFR_BOOL, &out), TFR_ERR_UNSUPPORTED_DTYPE,
                   "bitcast_convert", "f32 to bool");
  TFR_ASSERT_ERROR(tfr_bitcast_convert(s, f32, TFR_F64, &out), TFR_ERR_INVALID_ARGUMENT,
                   "bitcast_convert", "last axis of extent 2", "is 3", "(C1)");
  TFR_ASSERT_ERROR(tfr_bitcast_convert(s, r0, TFR_I64, &out), TFR_ERR_INVALID_ARGUMENT,
                   "bitcast_convert", "rank 0");
  TFR_ASSERT_ERROR(tfr_bitcast_convert(s, f32, (tfr_dtype)99, &out), TFR_ERR_UNSUPPORTED_DTYPE,
                   "bitcast_convert");
  TFR_ASSERT_ERROR(tfr_bitcast_convert(s, NULL, TFR_I32, &out), TFR_ERR_INVALID_ARGUMENT,
                   "bitcast_convert", "operand");
  TFR_ASSERT_ERROR(tfr_bitcast_convert(s, f32, TFR_I32, NULL), TFR_ERR_INVALID_ARGUMENT,
                   "bitcast_convert", "out is NULL");
  tfr_tensor_release(c64);
  tfr_tensor_release(f32);
  tfr_tensor_release(b);
  tfr_tensor_release(r0);
}

// ---------------------------------------------------------------------------
// Validation errors
// ---------------------------------------------------------------------------

static void test_reduce_window_errors(void **state) {
  tfr_test_env *env = *state;
  tfr_session *s = env->session;
  int64_t sh[2] = {4, 5}, one = 1;
  tfr_tensor *x = tfr_test_random_tensor(TFR_F32, 2, sh, 1);
  tfr_tensor *init = tfr_test_random_tensor(TFR_F32, 0, NULL, 2);
  tfr_tensor *init_i = tfr_test_random_tensor(TFR_I32, 0, NULL, 3);
  tfr_tensor *init_r1 = tfr_test_random_tensor(TFR_F32, 1, &one, 4);
  tfr_tensor *out = NULL;
  int64_t wd[2] = {2, 2}, ws[2] = {1, 1}, bd[2] = {1, 1}, wdl[2] = {1, 1}, pad[4] = {0};
  int64_t bad[2] = {2, 0};
  TFR_ASSERT_ERROR(tfr_reduce_window(s, x, init, TFR_REDUCE_ADD, wd, ws, bd, wdl, pad, NULL),
                   TFR_ERR_INVALID_ARGUMENT, "reduce_window", "out is NULL");
  TFR_ASSERT_ERROR(tfr_reduce_window(s, x, init_r1, TFR_REDUCE_ADD, wd, ws, bd, wdl, pad, &out),
                   TFR_ERR_INVALID_ARGUMENT, "reduce_window", "init_value has rank 1");
  assert_null(out);
  TFR_ASSERT_ERROR(tfr_reduce_window(s, x, init_i, TFR_REDUCE_ADD, wd, ws, bd, wdl, pad, &out),
                   TFR_ERR_INVALID_ARGUMENT, "reduce_window", "init_value has dtype i32", "(C3)");
  TFR_ASSERT_ERROR(
      tfr_reduce_window(s, x, init, (tfr_reduce_combiner)9, wd, ws, bd, wdl, pad, &out),
      TFR_ERR_INVALID_ARGUMENT, "reduce_window", "invalid combiner value 9");
  TFR_ASSERT_ERROR(tfr_reduce_window(s, x, init, TFR_REDUCE_XOR, wd, ws, bd, wdl, pad, &out),
                   TFR_ERR_UNSUPPORTED_DTYPE, "reduce_window (combiner xor)", "f32");
  TFR_ASSERT_ERROR(tfr_reduce_window(s, x, init, TFR_REDUCE_ADD, NULL, ws, bd, wdl, pad, &out),
                   TFR_ERR_INVALID_ARGUMENT, "reduce_window", "window_dimensions is NULL");
  TFR_ASSERT_ERROR(tfr_reduce_window(s, x, init, TFR_REDUCE_ADD, bad, ws, bd, wdl, pad, &out),
                   TFR_ERR_INVALID_ARGUMENT, "window_dimensions[1] = 0", "(C5)");
  TFR_ASSERT_ERROR(tfr_reduce_window(s, x, init, TFR_REDUCE_ADD, wd, bad, bd, wdl, pad, &out),
                   TFR_ERR_INVALID_ARGUMENT, "window_strides[1] = 0", "(C7)");
  TFR_ASSERT_ERROR(tfr_reduce_window(s, x, init, TFR_REDUCE_ADD, wd, ws, bad, wdl, pad, &out),
                   TFR_ERR_INVALID_ARGUMENT, "base_dilations[1] = 0", "(C9)");
  TFR_ASSERT_ERROR(tfr_reduce_window(s, x, init, TFR_REDUCE_ADD, wd, ws, bd, bad, pad, &out),
                   TFR_ERR_INVALID_ARGUMENT, "window_dilations[1] = 0", "(C11)");
  // The `_shape` form refuses what the op refuses, with the same message.
  int64_t shape[2];
  TFR_ASSERT_ERROR(tfr_reduce_window_shape(s, x, init, TFR_REDUCE_ADD, wd, ws, bad, wdl, pad,
                                           shape),
                   TFR_ERR_INVALID_ARGUMENT, "base_dilations[1] = 0", "(C9)");
  TFR_ASSERT_ERROR(tfr_reduce_window_shape(s, x, init, TFR_REDUCE_ADD, wd, ws, bd, wdl, pad, NULL),
                   TFR_ERR_INVALID_ARGUMENT, "reduce_window: out_shape is NULL");
  // A result far beyond memory is only a shape here: (4 - 1) * 2^40 + 1
  // rows of windows of one.
  int64_t huge_bd[2] = {INT64_C(1) << 40, 1}, ones[2] = {1, 1};
  TFR_ASSERT_OK(tfr_reduce_window_shape(s, x, init, TFR_REDUCE_ADD, ones, ws, huge_bd, wdl, pad,
                                        shape));
  assert_int_equal(shape[0], 3 * (INT64_C(1) << 40) + 1);
  assert_int_equal(shape[1], 5);
  int64_t negpad[4] = {0, 0, -3, -3};
  TFR_ASSERT_ERROR(tfr_reduce_window(s, x, init, TFR_REDUCE_ADD, wd, ws, bd, wdl, negpad, &out),
                   TFR_ERR_INVALID_ARGUMENT, "reduce_window", "axis 1", "-1 is negative");
  TFR_ASSERT_ERROR(tfr_reduce_window(s, NULL, init, TFR_REDUCE_ADD, wd, ws, bd, wdl, pad, &out),
                   TFR_ERR_INVALID_ARGUMENT, "reduce_window", "operand");
  // NULL optional arrays mean strides/dilations 1 and no padding.
  TFR_ASSERT_OK(tfr_reduce_window(s, x, init, TFR_REDUCE_ADD, wd, NULL, NULL, NULL, NULL, &out));
  assert_int_equal(tfr_tensor_shape(out)[0], 3);
  assert_int_equal(tfr_tensor_shape(out)[1], 4);
  tfr_tensor_release(out);
  tfr_tensor *all[] = {x, init, init_i, init_r1};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) tfr_tensor_release(all[i]);
}

static void test_select_and_scatter_errors(void **state) {
  tfr_test_env *env = *state;
  tfr_session *s = env->session;
  int64_t sh[2] = {4, 4}, ssh[2] = {2, 2}, bsh[2] = {3, 2}, one = 1;
  tfr_tensor *x = tfr_test_random_tensor(TFR_F32, 2, sh, 1);
  tfr_tensor *src = tfr_test_random_tensor(TFR_F32, 2, ssh, 2);
  tfr_tensor *src_i = tfr_test_random_tensor(TFR_I32, 2, ssh, 3);
  tfr_tensor *src_r1 = tfr_test_random_tensor(TFR_F32, 1, &one, 4);
  tfr_tensor *src_bad = tfr_test_random_tensor(TFR_F32, 2, bsh, 5);
  tfr_tensor *init = tfr_test_random_tensor(TFR_F32, 0, NULL, 6);
  tfr_tensor *init_r1 = tfr_test_random_tensor(TFR_F32, 1, &one, 7);
  tfr_tensor *xc = tfr_test_random_tensor(TFR_C64, 2, sh, 8);
  tfr_tensor *srcc = tfr_test_random_tensor(TFR_C64, 2, ssh, 9);
  tfr_tensor *initc = tfr_test_random_tensor(TFR_C64, 0, NULL, 10);
  tfr_tensor *out = NULL;
  int64_t wd[2] = {2, 2}, ws[2] = {2, 2}, pad[4] = {0}, bad[2] = {0, 2};
  TFR_ASSERT_ERROR(tfr_select_and_scatter(s, x, src_i, init, TFR_GE, TFR_REDUCE_ADD, wd, ws, pad,
                                          &out),
                   TFR_ERR_INVALID_ARGUMENT, "select_and_scatter", "source has dtype i32", "(C1)");
  assert_null(out);
  TFR_ASSERT_ERROR(tfr_select_and_scatter(s, x, src, init_r1, TFR_GE, TFR_REDUCE_ADD, wd, ws, pad,
                                          &out),
                   TFR_ERR_INVALID_ARGUMENT, "select_and_scatter", "init_value has rank 1");
  TFR_ASSERT_ERROR(tfr_select_and_scatter(s, x, src, init, (tfr_compare_direction)7,
                                          TFR_REDUCE_ADD, wd, ws, pad, &out),
                   TFR_ERR_INVALID_ARGUMENT, "select_and_scatter", "invalid select_direction");
  TFR_ASSERT_ERROR(tfr_select_and_scatter(s, xc, srcc, initc, TFR_GE, TFR_REDUCE_ADD, wd, ws, pad,
                                          &out),
                   TFR_ERR_UNSUPPORTED_DTYPE, "select_and_scatter", "c64", "EQ and NE only");
  TFR_ASSERT_ERROR(tfr_select_and_scatter(s, x, src, init, TFR_GE, TFR_REDUCE_OR, wd, ws, pad,
                                          &out),
                   TFR_ERR_UNSUPPORTED_DTYPE, "select_and_scatter (scatter_combiner or)", "f32");
  TFR_ASSERT_ERROR(tfr_select_and_scatter(s, x, src, init, TFR_GE, (tfr_reduce_combiner)-1, wd,
                                          ws, pad, &out),
                   TFR_ERR_INVALID_ARGUMENT, "select_and_scatter",
                   "invalid scatter_combiner value -1");
  TFR_ASSERT_ERROR(tfr_select_and_scatter(s, x, src, init, TFR_GE, TFR_REDUCE_ADD, bad, ws, pad,
                                          &out),
                   TFR_ERR_INVALID_ARGUMENT, "window_dimensions[0] = 0", "(C5)");
  TFR_ASSERT_ERROR(tfr_select_and_scatter(s, x, src, init, TFR_GE, TFR_REDUCE_ADD, wd, bad, pad,
                                          &out),
                   TFR_ERR_INVALID_ARGUMENT, "window_strides[0] = 0", "(C7)");
  TFR_ASSERT_ERROR(tfr_select_and_scatter(s, x, src_r1, init, TFR_GE, TFR_REDUCE_ADD, wd, ws, pad,
                                          &out),
                   TFR_ERR_INVALID_ARGUMENT, "source has rank 1", "(C2)");
  TFR_ASSERT_ERROR(tfr_select_and_scatter(s, x, src_bad, init, TFR_GE, TFR_REDUCE_ADD, wd, ws,
                                          pad, &out),
                   TFR_ERR_INVALID_ARGUMENT, "source extent 3 on axis 0",
                   "number of windows is 2", "(C2)");
  int64_t negpad[4] = {-1, 0, 0, 0};
  TFR_ASSERT_ERROR(tfr_select_and_scatter(s, x, src, init, TFR_GE, TFR_REDUCE_ADD, wd, ws, negpad,
                                          &out),
                   TFR_ERR_INVALID_ARGUMENT, "padding[0] = [-1, 0] is negative");
  TFR_ASSERT_ERROR(tfr_select_and_scatter(s, x, src, init, TFR_GE, TFR_REDUCE_ADD, wd, ws, pad,
                                          NULL),
                   TFR_ERR_INVALID_ARGUMENT, "select_and_scatter", "out is NULL");
  tfr_tensor *all[] = {x, src, src_i, src_r1, src_bad, init, init_r1, xc, srcc, initc};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) tfr_tensor_release(all[i]);
}

// Huge window attributes that the spec allows (found by fuzz_api): a window
// stride beyond the extent (one window on that axis) gave an overflowing
// view stride, and window extents whose product passes int64 were
// multiplied unchecked.
static void test_window_huge_attributes(void **state) {
  tfr_test_env *env = *state;
  tfr_session *s = env->session;
  int64_t sh[2] = {2, 6}, huge = INT64_C(1) << 62;
  tfr_tensor *x = tfr_test_random_tensor(TFR_F32, 2, sh, 1);
  tfr_tensor *zero = NULL, *out = NULL;
  TFR_ASSERT_OK(tfr_tensor_zeros_host(TFR_F32, 0, NULL, &zero));
  float xv[12], ov[12];
  TFR_ASSERT_OK(tfr_tensor_read(x, xv, sizeof xv));
  // Window 1x1, stride 2^62 on axis 0: one window there, row 0 of x.
  int64_t wd[2] = {1, 1}, ws[2] = {huge, 1};
  TFR_ASSERT_OK(tfr_reduce_window(s, x, zero, TFR_REDUCE_ADD, wd, ws, NULL, NULL, NULL, &out));
  assert_int_equal(tfr_tensor_shape(out)[0], 1);
  assert_int_equal(tfr_tensor_shape(out)[1], 6);
  TFR_ASSERT_OK(tfr_tensor_read(out, ov, 6 * sizeof(float)));
  for (int i = 0; i < 6; i++) assert_true(ov[i] == xv[i]);
  tfr_tensor_release(out);
  // select_and_scatter: each source element lands on row 0.
  int64_t ssh[2] = {1, 6};
  tfr_tensor *src = tfr_test_random_tensor(TFR_F32, 2, ssh, 2);
  float sv[6];
  TFR_ASSERT_OK(tfr_tensor_read(src, sv, sizeof sv));
  TFR_ASSERT_OK(
      tfr_select_and_scatter(s, x, src, zero, TFR_GE, TFR_REDUCE_ADD, wd, ws, NULL, &out));
  TFR_ASSERT_OK(tfr_tensor_read(out, ov, sizeof ov));
  for (int i = 0; i < 12; i++) assert_true(ov[i] == (i < 6 ? sv[i] : 0.0f));
  tfr_tensor_release(out);
  tfr_tensor_release(src);
  // Windows of 2^40 x 2^40 positions: none fit a 2x6 operand (an empty
  // source, the result is init_value everywhere); with padding 2^40 they
  // do, but the padded operand has more than 2^50 elements.
  int64_t big = INT64_C(1) << 40, wbig[2] = {big, big}, pad[4] = {0, big, 0, big}, esh[2] = {0, 0};
  tfr_tensor *empty = NULL;
  TFR_ASSERT_OK(tfr_tensor_zeros_host(TFR_F32, 2, esh, &empty));
  TFR_ASSERT_OK(
      tfr_select_and_scatter(s, x, empty, zero, TFR_GE, TFR_REDUCE_ADD, wbig, NULL, NULL, &out));
  TFR_ASSERT_OK(tfr_tensor_read(out, ov, sizeof ov));
  for (int i = 0; i < 12; i++) assert_true(ov[i] == 0.0f);
  tfr_tensor_release(out);
  TFR_ASSERT_ERROR(
      tfr_reduce_window(s, x, zero, TFR_REDUCE_ADD, wbig, NULL, NULL, NULL, pad, &out),
      TFR_ERR_INVALID_ARGUMENT, "2^50");
  assert_null(out);
  tfr_tensor_release(empty);
  tfr_tensor_release(zero);
  tfr_tensor_release(x);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reference),
      cmocka_unit_test(test_bitcast),
      cmocka_unit_test(test_bitcast_errors),
      cmocka_unit_test(test_reduce_window_errors),
      cmocka_unit_test(test_select_and_scatter_errors),
      cmocka_unit_test(test_window_huge_attributes),
  };
  return cmocka_run_group_tests(tests, tfr_test_setup_cpu, tfr_test_teardown_cpu);
}
