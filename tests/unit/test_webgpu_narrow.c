// u32, i8, i16, u8 and u16 on the webgpu backend (packed in u32 words,
// computed as i32 / u32 and wrapped to their width: src/webgpu/wgsl_types.h,
// ew_table.c), against the cpu backend bit for bit.
//
// Every elementwise op the op table has for them (arithmetic, division and
// remainder with the cpu's zero and MIN / -1 rules, power, bitwise ops, the
// three shifts with counts around and beyond the width, negate, abs, sign,
// not, popcnt, the six compares, select, clamp) runs on every pair of an
// edge-value table per dtype plus NARROW_NRANDOM random pairs, in three
// layouts: compact; a reversed lhs written through a stride-2 view at an odd
// offset of a larger buffer (so each packed word is shared between the view
// and its neighbours: the whole buffer is compared, the elements between
// must be left alone); a broadcast rhs (stride 0) at an odd offset. Then
// convert to and from every computing dtype (float sources with NaN, +-inf,
// halves, values beyond the range), reductions (every combiner), iota, a
// fused plan and dot_general. f16 and bf16 (computed in f32, each result
// rounded once: common/half.wgsl): the exact ops on all pairs of a table of
// 16-bit patterns (zeros, subnormals, extremes, infinities, quiet and
// signalling NaNs) and random ones, in the same three layouts; the analytic
// functions within one unit in the last place; convert both ways with every
// computing dtype, reductions, dot_general, iota. The scatter combiners run
// in the conformance suite.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "tenferro/fusion.h"

#define NARROW_NRANDOM 2001  // random pairs per (op, dtype), an odd count

static const tfr_dtype narrow_dtypes[] = {TFR_U32, TFR_I8, TFR_I16, TFR_U8, TFR_U16};
#define NARROW_NDT ((int)(sizeof narrow_dtypes / sizeof narrow_dtypes[0]))

static int narrow_failures;

static int narrow_compare(const tfr_tensor *want, const tfr_tensor *got, const char *what) {
  tfr_test_bit_counts cnt = {0, 0, 0};
  return tfr_test_compare_bits(want, got, NULL, NULL, what, &cnt);
}

// Edge values as 64-bit words; each dtype keeps its low bytes (so -1 is all
// bits set, 0x80 is INT8_MIN, 0x8000 INT16_MIN, ...).
static const uint64_t narrow_edges[] = {
    0,    1,    2,    3,    5,    7,      8,      9,      15,     16,     17,         31,
    32,   33,   0x7f, 0x80, 0x81, 0xfe,   0xff,   0x100,  0x7fff, 0x8000, 0x8001,     0xfffe,
    0xffff,     0x10000, 0x7fffffff, 0x80000000u, 0x80000001u, 0xfffffffeu, 0xffffffffu,
    0xffffff80u, 0xffff8000u, 0xfffffff9u,
};
#define NARROW_NEDGES ((int64_t)(sizeof narrow_edges / sizeof narrow_edges[0]))

// n = all edge pairs + NARROW_NRANDOM random pairs: operand words a, b.
// Allocates a and b for every pair of the ne edges plus NARROW_NRANDOM more
// and fills the pairs; returns the total, the random ones left to the caller
// from index ne * ne on.
static int64_t narrow_edge_pairs(const uint64_t *edges, int64_t ne, uint64_t **a, uint64_t **b) {
  int64_t n = ne * ne + NARROW_NRANDOM;
  *a = malloc((size_t)n * sizeof **a);
  *b = malloc((size_t)n * sizeof **b);
  assert_non_null(*a);
  assert_non_null(*b);
  for (int64_t i = 0; i < ne; i++)
    for (int64_t j = 0; j < ne; j++) {
      (*a)[i * ne + j] = edges[i];
      (*b)[i * ne + j] = edges[j];
    }
  return n;
}

static int64_t narrow_pairs(uint64_t seed, uint64_t **a, uint64_t **b) {
  int64_t n = narrow_edge_pairs(narrow_edges, NARROW_NEDGES, a, b);
  int64_t k = NARROW_NEDGES * NARROW_NEDGES;
  uint64_t st = seed;
  for (; k < n; k++) {
    uint64_t r = tfr_test_rand_u64(&st), q = tfr_test_rand_u64(&st);
    // Raw patterns, small values (either sign), and shift counts near the widths.
    switch (r & 3u) {
      case 0: (*a)[k] = r >> 2; (*b)[k] = q; break;
      case 1: (*a)[k] = (r >> 8) % 41 - 20; (*b)[k] = q % 41 - 20; break;
      case 2: (*a)[k] = r >> 2; (*b)[k] = q % 40; break;
      default: (*a)[k] = r >> 2; (*b)[k] = (q % 13) - 4; break;
    }
  }
  return n;
}

// ---------------------------------------------------------------------------
// One op on both backends
// ---------------------------------------------------------------------------

enum { K_UNARY, K_BINARY, K_COMPARE };
typedef struct narrow_op {
  int kind, op;
  const char *name;
} narrow_op;

static tfr_status narrow_apply(tfr_session *s, const narrow_op *o, const tfr_tensor *x,
                               const tfr_tensor *y, tfr_tensor *into, tfr_tensor **out) {
  switch (o->kind) {
    case K_UNARY:
      return into ? tfr_unary_into(s, (tfr_unary_op)o->op, x, into)
                  : tfr_unary(s, (tfr_unary_op)o->op, x, out);
    case K_BINARY:
      return into ? tfr_binary_into(s, (tfr_binary_op)o->op, x, y, into)
                  : tfr_binary(s, (tfr_binary_op)o->op, x, y, out);
    default:
      return into ? tfr_compare_into(s, (tfr_compare_direction)o->op, x, y, into)
                  : tfr_compare(s, (tfr_compare_direction)o->op, x, y, out);
  }
}

// The views of one layout over `base` (n elements, or the big buffer).
enum { L_COMPACT, L_INTO_STRIDED, L_BCAST, L_COUNT };
static const char *const narrow_layouts[L_COUNT] = {"compact", "reversed into stride-2 view",
                                                    "broadcast rhs"};

static tfr_tensor *narrow_view(const tfr_tensor *t, int64_t n, int64_t stride, int64_t offset) {
  tfr_tensor *v = NULL;
  TFR_ASSERT_OK(tfr_tensor_view(t, 1, &n, &stride, offset, &v));
  return v;
}

// Runs op `o` in layout `l` over host operands ha, hb (n elements) and the
// host sentinel buffer hbig (2n + 3 elements of the result's dtype) on one
// backend; returns the host result to compare (the whole buffer for
// L_INTO_STRIDED).
static tfr_tensor *narrow_run(tfr_backend *be, const narrow_op *o, int l, const tfr_tensor *ha,
                              const tfr_tensor *hb, const tfr_tensor *hbig, int64_t n) {
  bool gpu = be == tfr_test_gpu;
  tfr_session *s = tfr_test_begin(be);
  tfr_tensor *a = gpu ? tfr_test_upload(s, ha) : (tfr_tensor *)ha;
  tfr_tensor *b = gpu ? tfr_test_upload(s, hb) : (tfr_tensor *)hb;
  tfr_tensor *x = a, *y = b, *big = NULL, *into = NULL, *res = NULL;
  if (l == L_INTO_STRIDED) {
    // hbig is overwritten on the cpu: work on a copy there.
    big = gpu ? tfr_test_upload(s, hbig) : NULL;
    if (!gpu) TFR_ASSERT_OK(tfr_copy(s, hbig, &big));
    x = narrow_view(a, n, -1, n - 1);
    into = narrow_view(big, n, 2, 1);
  } else if (l == L_BCAST) {
    y = narrow_view(b, n, 0, 5);
  }
  TFR_ASSERT_OK(narrow_apply(s, o, x, o->kind == K_UNARY ? NULL : y, into, &res));
  tfr_tensor *host = NULL;
  if (into) host = gpu ? tfr_test_download(s, big) : (tfr_tensor_retain(big), big);
  else host = gpu ? tfr_test_download(s, res) : (tfr_tensor_retain(res), res);
  if (x != a) tfr_tensor_release(x);
  if (y != b) tfr_tensor_release(y);
  tfr_tensor_release(into);
  tfr_tensor_release(big);
  tfr_tensor_release(res);
  if (gpu) {
    tfr_tensor_release(a);
    tfr_tensor_release(b);
  }
  tfr_test_end(s);
  return host;
}

static void narrow_check(const narrow_op *o, tfr_dtype dt, const tfr_tensor *ha,
                         const tfr_tensor *hb, const tfr_tensor *hbig, int64_t n) {
  for (int l = 0; l < L_COUNT; l++) {
    tfr_tensor *want = narrow_run(tfr_test_cpu, o, l, ha, hb, hbig, n);
    tfr_tensor *got = narrow_run(tfr_test_gpu, o, l, ha, hb, hbig, n);
    char what[128];
    snprintf(what, sizeof what, "%s %s, %s", o->name, tfr_dtype_name(dt), narrow_layouts[l]);
    if (narrow_compare(want, got, what)) narrow_failures++;
    tfr_tensor_release(want);
    tfr_tensor_release(got);
  }
}

static const narrow_op narrow_ops[] = {
    {K_BINARY, TFR_ADD, "add"},
    {K_BINARY, TFR_SUBTRACT, "subtract"},
    {K_BINARY, TFR_MULTIPLY, "multiply"},
    {K_BINARY, TFR_DIVIDE, "divide"},
    {K_BINARY, TFR_REMAINDER, "remainder"},
    {K_BINARY, TFR_MAXIMUM, "maximum"},
    {K_BINARY, TFR_MINIMUM, "minimum"},
    {K_BINARY, TFR_POWER, "power"},
    {K_BINARY, TFR_AND, "and"},
    {K_BINARY, TFR_OR, "or"},
    {K_BINARY, TFR_XOR, "xor"},
    {K_BINARY, TFR_SHIFT_LEFT, "shift_left"},
    {K_BINARY, TFR_SHIFT_RIGHT_ARITHMETIC, "shift_right_arithmetic"},
    {K_BINARY, TFR_SHIFT_RIGHT_LOGICAL, "shift_right_logical"},
    {K_UNARY, TFR_NEGATE, "negate"},
    {K_UNARY, TFR_ABS, "abs"},
    {K_UNARY, TFR_SIGN, "sign"},
    {K_UNARY, TFR_NOT, "not"},
    {K_UNARY, TFR_POPCNT, "popcnt"},
    {K_COMPARE, TFR_LT, "lt"},
    {K_COMPARE, TFR_EQ, "eq"},
    {K_COMPARE, TFR_GE, "ge"},
};

static void test_elementwise(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  uint64_t *a, *b;
  int64_t n = narrow_pairs(7, &a, &b), nbig = 2 * n + 3;
  uint64_t *sentinel = malloc((size_t)nbig * sizeof *sentinel);
  assert_non_null(sentinel);
  uint64_t st = 99;
  for (int64_t i = 0; i < nbig; i++) sentinel[i] = tfr_test_rand_u64(&st);
  for (int d = 0; d < NARROW_NDT; d++) {
    tfr_dtype dt = narrow_dtypes[d];
    bool is_signed = dt == TFR_I8 || dt == TFR_I16;
    tfr_tensor *ha = tfr_test_words_tensor(dt, n, a), *hb = tfr_test_words_tensor(dt, n, b);
    tfr_tensor *hbig = tfr_test_words_tensor(dt, nbig, sentinel);
    tfr_tensor *hbig_b = tfr_test_words_tensor(TFR_BOOL, nbig, sentinel);
    for (size_t k = 0; k < sizeof narrow_ops / sizeof narrow_ops[0]; k++) {
      const narrow_op *o = &narrow_ops[k];
      if (!is_signed && o->kind == K_UNARY && (o->op == TFR_ABS || o->op == TFR_SIGN)) continue;
      narrow_check(o, dt, ha, hb, o->kind == K_COMPARE ? hbig_b : hbig, n);
    }
    tfr_tensor_release(ha);
    tfr_tensor_release(hb);
    tfr_tensor_release(hbig);
    tfr_tensor_release(hbig_b);
  }
  free(a);
  free(b);
  free(sentinel);
  assert_int_equal(narrow_failures, 0);
}

// select and clamp (three operands), compact.
static void test_select_clamp(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  uint64_t *a, *b;
  int64_t n = narrow_pairs(11, &a, &b);
  for (int d = 0; d < NARROW_NDT; d++) {
    tfr_dtype dt = narrow_dtypes[d];
    tfr_tensor *h[3] = {tfr_test_words_tensor(TFR_BOOL, n, b), tfr_test_words_tensor(dt, n, a),
                        tfr_test_words_tensor(dt, n, b)};
    tfr_tensor *want[2], *got[2];
    for (int gpu = 0; gpu < 2; gpu++) {
      tfr_session *s = tfr_test_begin(gpu ? tfr_test_gpu : tfr_test_cpu);
      tfr_tensor *x[3];
      for (int k = 0; k < 3; k++) x[k] = gpu ? tfr_test_upload(s, h[k]) : h[k];
      tfr_tensor *r[2] = {NULL, NULL};
      TFR_ASSERT_OK(tfr_select(s, x[0], x[1], x[2], &r[0]));
      TFR_ASSERT_OK(tfr_clamp(s, x[2], x[1], x[2], &r[1]));
      for (int k = 0; k < 2; k++) {
        tfr_tensor *hr = gpu ? tfr_test_download(s, r[k]) : (tfr_tensor_retain(r[k]), r[k]);
        (gpu ? got : want)[k] = hr;
        tfr_tensor_release(r[k]);
      }
      if (gpu)
        for (int k = 0; k < 3; k++) tfr_tensor_release(x[k]);
      tfr_test_end(s);
    }
    char what[64];
    for (int k = 0; k < 2; k++) {
      snprintf(what, sizeof what, "%s %s", k ? "clamp" : "select", tfr_dtype_name(dt));
      if (narrow_compare(want[k], got[k], what)) narrow_failures++;
      tfr_tensor_release(want[k]);
      tfr_tensor_release(got[k]);
    }
    for (int k = 0; k < 3; k++) tfr_tensor_release(h[k]);
  }
  free(a);
  free(b);
  assert_int_equal(narrow_failures, 0);
}

// ---------------------------------------------------------------------------
// convert, reduce, iota, fusion, dot_general
// ---------------------------------------------------------------------------

// One unary tensor function on both backends, compared bit for bit.
typedef tfr_status (*narrow_fn)(tfr_session *s, const tfr_tensor *x, const void *ctx,
                                tfr_tensor **out);

static void narrow_both(narrow_fn fn, const void *ctx, const tfr_tensor *hx, const char *what) {
  tfr_tensor *res[2] = {NULL, NULL};
  for (int gpu = 0; gpu < 2; gpu++) {
    tfr_session *s = tfr_test_begin(gpu ? tfr_test_gpu : tfr_test_cpu);
    tfr_tensor *x = hx ? (gpu ? tfr_test_upload(s, hx) : (tfr_tensor *)hx) : NULL;
    tfr_tensor *r = NULL;
    tfr_status st = fn(s, x, ctx, &r);
    if (st) fail_msg("%s on %s: %s", what, gpu ? "webgpu" : "cpu", tfr_last_error_message());
    res[gpu] = gpu ? tfr_test_download(s, r) : (tfr_tensor_retain(r), r);
    tfr_tensor_release(r);
    if (gpu && x) tfr_tensor_release(x);
    tfr_test_end(s);
  }
  if (narrow_compare(res[0], res[1], what)) narrow_failures++;
  tfr_tensor_release(res[0]);
  tfr_tensor_release(res[1]);
}

static tfr_status narrow_convert(tfr_session *s, const tfr_tensor *x, const void *ctx,
                                 tfr_tensor **out) {
  return tfr_convert(s, x, *(const tfr_dtype *)ctx, out);
}

static void test_convert(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  static const tfr_dtype others[] = {TFR_BOOL, TFR_I32, TFR_I64, TFR_U64, TFR_F32, TFR_F64,
                                     TFR_C64,  TFR_U32, TFR_I8,  TFR_I16, TFR_U8,  TFR_U16};
  uint64_t *a, *b;
  int64_t n = narrow_pairs(3, &a, &b);
  char what[64];
  for (int d = 0; d < NARROW_NDT; d++)
    for (size_t o = 0; o < sizeof others / sizeof others[0]; o++) {
      tfr_dtype from = narrow_dtypes[d], to = others[o];
      // narrow -> other: the integer patterns; reversed view as well.
      tfr_tensor *h = tfr_test_words_tensor(from, n, a);
      snprintf(what, sizeof what, "convert %s -> %s", tfr_dtype_name(from), tfr_dtype_name(to));
      narrow_both(narrow_convert, &to, h, what);
      tfr_tensor_release(h);
      // other -> narrow: integers as patterns, floats as values around the
      // ranges (NaN, +-inf, -0, halves, beyond the bounds).
      if (to == TFR_F32 || to == TFR_F64 || to == TFR_C64) {
        static const double fv[] = {0.0,    -0.0,   0.5,     -0.5,     1.5,       -1.5,   2.5,
                                    127.0,  127.5,  128.0,   -128.0,   -128.5,    -129.0, 255.0,
                                    255.9,  256.0,  32767.0, 32767.9,  32768.0,   -32768.9,
                                    65535.0, 65536.0, 4294967295.0, 4294967296.0, 4294967040.0,
                                    -4294967296.0, 2147483648.0, 1e30, -1e30, 1e-40, INFINITY,
                                    -INFINITY, NAN, -NAN};
        int64_t nf = (int64_t)(sizeof fv / sizeof fv[0]) + 1000;
        double *v = malloc((size_t)nf * sizeof *v);
        assert_non_null(v);
        uint64_t st = 5 + o;
        for (int64_t i = 0; i < nf; i++)
          v[i] = i < nf - 1000 ? fv[i] : tfr_test_rand_uniform(&st, -70000.0, 70000.0);
        tfr_tensor *hd = tfr_test_tensor(TFR_F64, 1, &nf, v), *hf = NULL;
        tfr_session *s = tfr_test_begin(tfr_test_cpu);
        TFR_ASSERT_OK(tfr_convert(s, hd, to, &hf));
        tfr_test_end(s);
        snprintf(what, sizeof what, "convert %s -> %s", tfr_dtype_name(to), tfr_dtype_name(from));
        narrow_both(narrow_convert, &from, hf, what);
        tfr_tensor_release(hf);
        tfr_tensor_release(hd);
        free(v);
      } else {
        tfr_tensor *hs = tfr_test_words_tensor(to, n, b);
        snprintf(what, sizeof what, "convert %s -> %s", tfr_dtype_name(to), tfr_dtype_name(from));
        narrow_both(narrow_convert, &from, hs, what);
        tfr_tensor_release(hs);
      }
    }
  free(a);
  free(b);
  assert_int_equal(narrow_failures, 0);
}

static tfr_status narrow_reduce(tfr_session *s, const tfr_tensor *x, const void *ctx,
                                tfr_tensor **out) {
  const int *c = ctx;  // combiner, axis
  int64_t axis = c[1];
  tfr_tensor *init = NULL;
  // The combiner's identity on the cpu's terms: reduce over no elements.
  int64_t zero = 0;
  tfr_reduce_combiner comb = (tfr_reduce_combiner)c[0];
  tfr_status st;
  switch (comb) {
    case TFR_REDUCE_ADD: return tfr_reduce_sum(s, x, 1, &axis, out);
    case TFR_REDUCE_MULTIPLY: return tfr_reduce_prod(s, x, 1, &axis, out);
    case TFR_REDUCE_MAXIMUM: return tfr_reduce_max(s, x, 1, &axis, out);
    default:
      // min / and / or / xor with init = x[0, 0] (any value of the dtype).
      st = tfr_slice(s, x, (const int64_t[]){0, 0}, (const int64_t[]){1, 1}, NULL, &init);
      if (!st) {
        tfr_tensor *i0 = NULL;
        st = tfr_reshape(s, init, 0, &zero, &i0);
        tfr_tensor_release(init);
        init = i0;
      }
      if (!st) st = tfr_reduce(s, x, init, comb, 1, &axis, out);
      tfr_tensor_release(init);
      return st;
  }
}

static void test_reduce(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  uint64_t *a, *b;
  int64_t n = narrow_pairs(13, &a, &b);
  int64_t shape[2] = {37, n / 37};
  static const tfr_reduce_combiner combs[] = {TFR_REDUCE_ADD, TFR_REDUCE_MULTIPLY,
                                              TFR_REDUCE_MAXIMUM, TFR_REDUCE_MINIMUM,
                                              TFR_REDUCE_AND, TFR_REDUCE_OR, TFR_REDUCE_XOR};
  char what[64];
  for (int d = 0; d < NARROW_NDT; d++) {
    tfr_dtype dt = narrow_dtypes[d];
    tfr_tensor *h1 = tfr_test_words_tensor(dt, shape[0] * shape[1], a), *h = NULL;
    TFR_ASSERT_OK(tfr_tensor_view(h1, 2, shape, (const int64_t[]){shape[1], 1}, 0, &h));
    for (size_t c = 0; c < sizeof combs / sizeof combs[0]; c++)
      for (int axis = 0; axis < 2; axis++) {
        int ctx[2] = {(int)combs[c], axis};
        snprintf(what, sizeof what, "reduce %d over axis %d, %s", (int)combs[c], axis,
                 tfr_dtype_name(dt));
        narrow_both(narrow_reduce, ctx, h, what);
      }
    tfr_tensor_release(h);
    tfr_tensor_release(h1);
  }
  free(a);
  free(b);
  assert_int_equal(narrow_failures, 0);
}

static tfr_status narrow_iota(tfr_session *s, const tfr_tensor *x, const void *ctx,
                              tfr_tensor **out) {
  (void)x;
  int64_t shape[2] = {3, 70001};  // indices beyond 2^16: the low bits
  return tfr_iota(s, *(const tfr_dtype *)ctx, 2, shape, 1, out);
}

static void test_iota(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  for (int d = 0; d < NARROW_NDT; d++) {
    char what[32];
    snprintf(what, sizeof what, "iota %s", tfr_dtype_name(narrow_dtypes[d]));
    narrow_both(narrow_iota, &narrow_dtypes[d], NULL, what);
  }
  assert_int_equal(narrow_failures, 0);
}

// A fused plan: y = ((a * b) >> b) + a (logical shift), popcnt(y) and y < b.
static void test_fusion(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  uint64_t *a, *b;
  int64_t n = narrow_pairs(17, &a, &b);
  for (int d = 0; d < NARROW_NDT; d++) {
    tfr_dtype dt = narrow_dtypes[d];
    tfr_fusion_plan *p = NULL;
    TFR_ASSERT_OK(tfr_fusion_plan_create(2, (tfr_dtype[]){dt, dt}, &p));
    int ab, sh, c, y, z;
    TFR_ASSERT_OK(tfr_fusion_plan_binary(p, TFR_MULTIPLY, 0, 1, &ab));
    TFR_ASSERT_OK(tfr_fusion_plan_binary(p, TFR_SHIFT_RIGHT_LOGICAL, ab, 1, &sh));
    TFR_ASSERT_OK(tfr_fusion_plan_binary(p, TFR_ADD, sh, 0, &y));
    TFR_ASSERT_OK(tfr_fusion_plan_unary(p, TFR_POPCNT, y, &c));
    TFR_ASSERT_OK(tfr_fusion_plan_compare(p, TFR_LT, y, 1, &z));
    TFR_ASSERT_OK(tfr_fusion_plan_output(p, y));
    TFR_ASSERT_OK(tfr_fusion_plan_output(p, c));
    TFR_ASSERT_OK(tfr_fusion_plan_output(p, z));
    tfr_tensor *h[2] = {tfr_test_words_tensor(dt, n, a), tfr_test_words_tensor(dt, n, b)};
    tfr_tensor *want[3], *got[3];
    tfr_test_fusion_cpu_vs_gpu(p, h, 2, 3, want, got);
    for (int o = 0; o < 3; o++) {
      char what[48];
      snprintf(what, sizeof what, "fusion output %d, %s", o, tfr_dtype_name(dt));
      if (narrow_compare(want[o], got[o], what)) narrow_failures++;
      tfr_tensor_release(want[o]);
      tfr_tensor_release(got[o]);
    }
    tfr_tensor_release(h[0]);
    tfr_tensor_release(h[1]);
    tfr_fusion_plan_release(p);
  }
  free(a);
  free(b);
  assert_int_equal(narrow_failures, 0);
}

static tfr_status narrow_dot(tfr_session *s, const tfr_tensor *x, const void *ctx,
                             tfr_tensor **out) {
  (void)ctx;
  // x: [2, 30, 40] against its transposed view [2, 40, 30]: out [2, 30, 30].
  tfr_tensor *xt = NULL;
  tfr_status st = tfr_tensor_view_transpose(x, (const int64_t[]){0, 2, 1}, &xt);
  if (st) return st;
  int64_t bd = 0, lc = 2, rc = 1;
  tfr_dot_config cfg = {1, &bd, &bd, 1, &lc, &rc, false, false};
  st = tfr_dot_general(s, x, xt, &cfg, out);
  tfr_tensor_release(xt);
  return st;
}

static void test_dot(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  uint64_t *a, *b;
  // The last 2400 words: edge pairs and random ones (3157 in all).
  int64_t n = narrow_pairs(19, &a, &b);
  assert_true(n >= 2400);
  int64_t shape[3] = {2, 30, 40};
  for (int d = 0; d < NARROW_NDT; d++) {
    tfr_dtype dt = narrow_dtypes[d];
    tfr_tensor *h1 = tfr_test_words_tensor(dt, 2400, a + (n - 2400)), *h = NULL;
    TFR_ASSERT_OK(tfr_tensor_view(h1, 3, shape, (const int64_t[]){1200, 40, 1}, 0, &h));
    char what[32];
    snprintf(what, sizeof what, "dot_general %s", tfr_dtype_name(dt));
    narrow_both(narrow_dot, NULL, h, what);
    tfr_tensor_release(h);
    tfr_tensor_release(h1);
  }
  free(a);
  free(b);
  assert_int_equal(narrow_failures, 0);
}

// ---------------------------------------------------------------------------
// f16 and bf16: computed in f32, each result rounded once (common/half.wgsl)
// ---------------------------------------------------------------------------

// 16-bit patterns: zeros, subnormals (f16: 0x0001 .. 0x03ff; bf16: 0x0001 ..
// 0x007f), the smallest normals, 1, the largest finite values, infinities,
// quiet and signalling NaNs, values whose sum or product rounds to a tie.
static const uint64_t half_edges[] = {
    0x0000, 0x8000, 0x0001, 0x8001, 0x0002, 0x03ff, 0x0400, 0x007f, 0x0080, 0x3c00, 0xbc00,
    0x3c01, 0x3bff, 0x3f80, 0xbf80, 0x3f81, 0x4000, 0x4200, 0x3800, 0x3555, 0x7bff, 0xfbff,
    0x7c00, 0xfc00, 0x7e00, 0x7d01, 0x7f7f, 0xff7f, 0x7f80, 0xff80, 0x7fc0, 0x7fa1, 0x5640,
    0x1400, 0x0c00, 0x4b80, 0x477f, 0xc77f, 0x6bff, 0x2bff,
};
#define HALF_NEDGES ((int64_t)(sizeof half_edges / sizeof half_edges[0]))

// All edge pairs, then random patterns: either any 16 bits or values of
// moderate exponent (f16: [2^-6, 2^8), bf16: [2^-6, 2^8)), of either sign.
static int64_t half_pairs(tfr_dtype dt, uint64_t seed, uint64_t **a, uint64_t **b) {
  int64_t n = narrow_edge_pairs(half_edges, HALF_NEDGES, a, b);
  int64_t k = HALF_NEDGES * HALF_NEDGES;
  uint64_t st = seed;
  for (; k < n; k++) {
    uint64_t r = tfr_test_rand_u64(&st);
    uint64_t *v[2] = {&(*a)[k], &(*b)[k]};
    for (int q = 0; q < 2; q++, r >>= 24) {
      if (r & 1u) {
        *v[q] = (r >> 1) & 0xffffu;
      } else if (dt == TFR_F16) {  // exponent field 9 .. 22
        *v[q] = (((r >> 1) & 1u) << 15) | ((9u + (r >> 2) % 14u) << 10) | ((r >> 6) & 0x3ffu);
      } else {  // exponent field 121 .. 134
        *v[q] = (((r >> 1) & 1u) << 15) | ((121u + (r >> 2) % 14u) << 7) | ((r >> 6) & 0x7fu);
      }
    }
  }
  return n;
}

// The exact ops: the cpu's bits (NaN: any NaN).
static const narrow_op half_exact_ops[] = {
    {K_BINARY, TFR_ADD, "add"},
    {K_BINARY, TFR_SUBTRACT, "subtract"},
    {K_BINARY, TFR_MULTIPLY, "multiply"},
    {K_BINARY, TFR_DIVIDE, "divide"},
    {K_BINARY, TFR_REMAINDER, "remainder"},
    {K_BINARY, TFR_MAXIMUM, "maximum"},
    {K_BINARY, TFR_MINIMUM, "minimum"},
    {K_BINARY, TFR_NEXT_AFTER, "next_after"},
    {K_UNARY, TFR_NEGATE, "negate"},
    {K_UNARY, TFR_ABS, "abs"},
    {K_UNARY, TFR_SIGN, "sign"},
    {K_UNARY, TFR_FLOOR, "floor"},
    {K_UNARY, TFR_CEIL, "ceil"},
    {K_UNARY, TFR_ROUND_NEAREST_EVEN, "round_nearest_even"},
    {K_UNARY, TFR_ROUND_NEAREST_AFZ, "round_nearest_afz"},
    {K_UNARY, TFR_SQRT, "sqrt"},
    {K_UNARY, TFR_IS_FINITE, "is_finite"},
    {K_COMPARE, TFR_LT, "lt"},
    {K_COMPARE, TFR_EQ, "eq"},
    {K_COMPARE, TFR_NE, "ne"},
};

static void test_half_elementwise(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  static const tfr_dtype halves[2] = {TFR_F16, TFR_BF16};
  for (int d = 0; d < 2; d++) {
    tfr_dtype dt = halves[d];
    // A device that flushes f32 subnormals (the H200) flushes bf16's too:
    // bf16 then runs on lavapipe only (docs/webgpu.md).
    if (dt == TFR_BF16 && tfr_test_gpu_flushes_subnormals()) continue;
    uint64_t *a, *b;
    int64_t n = half_pairs(dt, 23 + (uint64_t)d, &a, &b), nbig = 2 * n + 3;
    uint64_t *sentinel = malloc((size_t)nbig * sizeof *sentinel);
    assert_non_null(sentinel);
    uint64_t st = 41;
    for (int64_t i = 0; i < nbig; i++) sentinel[i] = tfr_test_rand_u64(&st);
    tfr_tensor *ha = tfr_test_words_tensor(dt, n, a), *hb = tfr_test_words_tensor(dt, n, b);
    tfr_tensor *hbig = tfr_test_words_tensor(dt, nbig, sentinel);
    tfr_tensor *hbig_b = tfr_test_words_tensor(TFR_BOOL, nbig, sentinel);
    for (size_t k = 0; k < sizeof half_exact_ops / sizeof half_exact_ops[0]; k++) {
      const narrow_op *o = &half_exact_ops[k];
      bool to_bool = o->kind == K_COMPARE || o->op == TFR_IS_FINITE;
      narrow_check(o, dt, ha, hb, to_bool ? hbig_b : hbig, n);
    }
    tfr_tensor_release(ha);
    tfr_tensor_release(hb);
    tfr_tensor_release(hbig);
    tfr_tensor_release(hbig_b);
    free(a);
    free(b);
    free(sentinel);
  }
  assert_int_equal(narrow_failures, 0);
}

// The analytic functions: f32's math library, then one rounding; within one
// unit in the dtype's last place of the cpu's (the library's f32 results are
// within a few f32 ulps of libm's, far below half an f16/bf16 ulp except
// next to a rounding boundary).
static void test_half_analytic(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  static const tfr_unary_op fns[] = {TFR_EXP, TFR_LOG, TFR_SIN, TFR_TANH, TFR_LOGISTIC,
                                     TFR_RSQRT};
  static const tfr_dtype halves[2] = {TFR_F16, TFR_BF16};
  bool flush = tfr_test_gpu_flushes_subnormals();
  for (int d = 0; d < 2; d++) {
    tfr_dtype dt = halves[d];
    uint64_t *a, *b;
    int64_t n = half_pairs(dt, 31, &a, &b);
    // The random operands only (their moderate values keep the functions
    // away from overflow most of the time).
    int64_t m = n - HALF_NEDGES * HALF_NEDGES;
    tfr_tensor *ha = tfr_test_words_tensor(dt, m, b + HALF_NEDGES * HALF_NEDGES);
    for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++) {
      narrow_op o = {K_UNARY, fns[f], tfr_unary_op_name(fns[f])};
      tfr_tensor *want = narrow_run(tfr_test_cpu, &o, L_COMPACT, ha, ha, NULL, m);
      tfr_tensor *got = narrow_run(tfr_test_gpu, &o, L_COMPACT, ha, ha, NULL, m);
      void *pw = NULL, *pg = NULL;
      TFR_ASSERT_OK(tfr_tensor_host_data(want, &pw));
      TFR_ASSERT_OK(tfr_tensor_host_data(got, &pg));
      const uint16_t *w = pw, *g = pg;
      uint16_t nan_above = dt == TFR_F16 ? 0x7c00u : 0x7f80u;
      int64_t bad = 0;
      for (int64_t i = 0; i < m; i++) {
        bool nw = (w[i] & 0x7fffu) > nan_above, ng = (g[i] & 0x7fffu) > nan_above;
        // Order keys of the patterns: one apart = one ulp.
        int32_t kw = (w[i] & 0x8000u) ? -(int32_t)(w[i] & 0x7fffu) : (int32_t)w[i];
        int32_t kg = (g[i] & 0x8000u) ? -(int32_t)(g[i] & 0x7fffu) : (int32_t)g[i];
        // bf16 has f32's exponent range: on a device that flushes f32
        // subnormals (an NVIDIA GPU; not lavapipe) a result whose f32 value
        // is subnormal (a bf16 subnormal, or a value below FLT_MIN that
        // rounds up to it) comes out as zero.
        bool flushed = dt == TFR_BF16 && flush && (w[i] & 0x7fffu) <= 0x0080u &&
                       (g[i] & 0x7fffu) == 0;
        if (nw != ng || (!nw && !flushed && abs(kw - kg) > 1)) {
          if (bad++ < 4)
            print_error("MISMATCH: %s %s: element %lld: cpu 0x%04x, webgpu 0x%04x\n", o.name,
                        tfr_dtype_name(dt), (long long)i, w[i], g[i]);
        }
      }
      if (bad) narrow_failures++;
      tfr_tensor_release(want);
      tfr_tensor_release(got);
    }
    tfr_tensor_release(ha);
    free(a);
    free(b);
  }
  assert_int_equal(narrow_failures, 0);
}

// convert between f16/bf16 and every computing dtype (both ways), reductions,
// dot_general and iota, against the cpu's bits (float sums: the same f32 sums
// rounded once; the inputs are chosen so that the f32 sums are exact).
static void test_half_structural(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  static const tfr_dtype others[] = {TFR_BOOL, TFR_I32, TFR_I64, TFR_U64, TFR_F32, TFR_F64,
                                     TFR_C64,  TFR_U32, TFR_I8,  TFR_I16, TFR_U8,  TFR_U16,
                                     TFR_F16,  TFR_BF16};
  static const tfr_dtype halves[2] = {TFR_F16, TFR_BF16};
  char what[64];
  for (int d = 0; d < 2; d++) {
    tfr_dtype dt = halves[d];
    uint64_t *a, *b;
    int64_t n = half_pairs(dt, 37, &a, &b);
    tfr_tensor *h = tfr_test_words_tensor(dt, n, a);
    for (size_t o = 0; o < sizeof others / sizeof others[0]; o++) {
      tfr_dtype to = others[o];
      if (to == dt) continue;
      snprintf(what, sizeof what, "convert %s -> %s", tfr_dtype_name(dt), tfr_dtype_name(to));
      narrow_both(narrow_convert, &to, h, what);
      // to -> half: integer patterns (every bit length), floats from these
      // halves' neighbours (f32/f64 patterns between representable values).
      tfr_tensor *hs = NULL;
      if (to == TFR_F32 || to == TFR_F64 || to == TFR_C64) {
        int64_t m = n;
        double *v = malloc((size_t)m * sizeof *v);
        assert_non_null(v);
        uint64_t st = 3 + o;
        for (int64_t i = 0; i < m; i++) {
          double x = ldexp(tfr_test_rand_uniform(&st, -1.0, 1.0),
                           (int)(tfr_test_rand_u64(&st) % 300) - 150);
          v[i] = i < 8 ? (double[]){0.0, -0.0, NAN, INFINITY, -INFINITY, 65520.0, 65519.99,
                                    3.4e38}[i]
                       : x;
        }
        tfr_tensor *hd = tfr_test_tensor(TFR_F64, 1, &m, v);
        tfr_session *s = tfr_test_begin(tfr_test_cpu);
        TFR_ASSERT_OK(tfr_convert(s, hd, to, &hs));
        tfr_test_end(s);
        tfr_tensor_release(hd);
        free(v);
      } else {
        uint64_t *w = malloc((size_t)n * sizeof *w);
        assert_non_null(w);
        uint64_t st = 5 + o;
        for (int64_t i = 0; i < n; i++) {
          uint64_t r = tfr_test_rand_u64(&st);
          w[i] = r >> (r & 63u);  // every bit length
          if (r & 64u) w[i] = (uint64_t)0 - w[i];
        }
        hs = tfr_test_words_tensor(to, n, w);
        free(w);
      }
      snprintf(what, sizeof what, "convert %s -> %s", tfr_dtype_name(to), tfr_dtype_name(dt));
      narrow_both(narrow_convert, &dt, hs, what);
      tfr_tensor_release(hs);
    }
    tfr_tensor_release(h);
    // Reductions and dot_general on small integers (exact f32 sums and
    // products, so the order does not matter): the rounding of the result.
    int64_t shape[2] = {37, 81};
    uint64_t *w = malloc((size_t)(shape[0] * shape[1]) * sizeof *w);
    assert_non_null(w);
    uint64_t st = 77;
    tfr_tensor *hi = NULL, *hr = NULL;
    for (int64_t i = 0; i < shape[0] * shape[1]; i++)
      w[i] = (tfr_test_rand_u64(&st) % 17) - 8;
    hi = tfr_test_words_tensor(TFR_I32, shape[0] * shape[1], w);
    free(w);
    tfr_session *s = tfr_test_begin(tfr_test_cpu);
    tfr_tensor *hc = NULL;
    TFR_ASSERT_OK(tfr_convert(s, hi, dt, &hc));
    TFR_ASSERT_OK(tfr_reshape(s, hc, 2, shape, &hr));
    tfr_test_end(s);
    static const tfr_reduce_combiner combs[] = {TFR_REDUCE_ADD, TFR_REDUCE_MAXIMUM,
                                                TFR_REDUCE_MINIMUM};
    for (size_t c = 0; c < sizeof combs / sizeof combs[0]; c++)
      for (int axis = 0; axis < 2; axis++) {
        int ctx[2] = {(int)combs[c], axis};
        snprintf(what, sizeof what, "reduce %d over axis %d, %s", (int)combs[c], axis,
                 tfr_dtype_name(dt));
        narrow_both(narrow_reduce, ctx, hr, what);
      }
    tfr_tensor *h3 = NULL;
    int64_t s3[3] = {1, 37, 81};
    s = tfr_test_begin(tfr_test_cpu);
    TFR_ASSERT_OK(tfr_reshape(s, hc, 3, s3, &h3));
    tfr_test_end(s);
    snprintf(what, sizeof what, "dot_general %s", tfr_dtype_name(dt));
    narrow_both(narrow_dot, NULL, h3, what);
    snprintf(what, sizeof what, "iota %s", tfr_dtype_name(dt));
    narrow_both(narrow_iota, &dt, NULL, what);
    tfr_tensor_release(h3);
    tfr_tensor_release(hc);
    tfr_tensor_release(hr);
    tfr_tensor_release(hi);
    free(a);
    free(b);
  }
  assert_int_equal(narrow_failures, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_elementwise, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_select_clamp, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_convert, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_reduce, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_iota, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_fusion, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_dot, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_half_elementwise, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_half_analytic, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_half_structural, tfr_test_teardown_session),
  };
  return TFR_TEST_RUN_WEBGPU(tests);
}
