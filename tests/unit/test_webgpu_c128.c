// c128 on the webgpu backend: pairs of software f64 (src/webgpu/kernels/
// common/c128.wgsl on common/f64.wgsl), against the cpu backend bit for bit.
//
// Every elementwise op webgpu has on c128 (add, subtract, multiply, divide,
// maximum, minimum, negate, conj, real, imag, abs, sign, sqrt, rsqrt,
// compare EQ/NE, select, complex(f64, f64)) and convert between c128 and
// f32, f64, i32, i64, u64, bool, c64 run on
//   * every pair of complex values whose parts come from a table of edge
//     parts (+-0, +-inf, NaN, the least and largest subnormals, the least
//     normal, the largest finite, 1, -1, pi), so all pairs of those complex
//     values for the binary ops, and
//   * C128_NRANDOM random values (or pairs) whose parts are drawn in
//     families: raw bit patterns, moderate magnitudes, the whole exponent
//     range, parts near overflow or underflow (the scalings of divide, abs
//     and sqrt), small integers, and parts of very different magnitudes,
// in C128_DISPATCHES calls. Results must match the cpu bit for bit, any NaN
// matching any NaN. Then strided, reversed and broadcast operands, a fused
// plan, reductions, scatter (every combiner), iota, dot_general (plain,
// accumulating, conjugated, through transposed and reversed views), and the
// refusal of the ops webgpu does not have on c128 (the analytic functions).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "tenferro/webgpu.h"

#define C128_NRANDOM 2000
#define C128_DISPATCHES 2

static int c128_failures;

static const uint64_t c128_parts[] = {
    UINT64_C(0x0000000000000000),  // +0
    UINT64_C(0x8000000000000000),  // -0
    UINT64_C(0x7ff0000000000000),  // +inf
    UINT64_C(0xfff0000000000000),  // -inf
    UINT64_C(0x7ff8000000000000),  // NaN
    UINT64_C(0x0000000000000001),  // least subnormal
    UINT64_C(0x800fffffffffffff),  // largest subnormal, negative
    UINT64_C(0x0010000000000000),  // least normal
    UINT64_C(0x7fefffffffffffff),  // largest finite
    UINT64_C(0x3ff0000000000000),  // 1
    UINT64_C(0xbff0000000000000),  // -1
    UINT64_C(0x400921fb54442d18),  // pi
};
#define C128_NPARTS ((int64_t)(sizeof c128_parts / sizeof c128_parts[0]))
#define C128_NSPECIAL (C128_NPARTS * C128_NPARTS)

// A random part of family f.
static uint64_t c128_random_part(uint64_t *st, int f) {
  uint64_t r = tfr_test_rand_u64(st);
  double sign = (r >> 63) ? -1.0 : 1.0;
  double frac = (double)(r >> 11) * 0x1p-53;
  switch (f) {
    case 0: return r;                                                       // raw
    case 1: return tfr_test_f64_bits(sign * ldexp(1.0 + frac, (int)(r % 40) - 20)); // moderate
    case 2: return tfr_test_f64_bits(sign * ldexp(1.0 + frac, (int)(r % 2098) - 1074));
    case 3: return tfr_test_f64_bits(sign * ldexp(1.0 + frac, 1000 + (int)(r % 24)));  // near overflow
    case 4: return tfr_test_f64_bits(sign * ldexp(1.0 + frac, -1074 + (int)(r % 60)));  // near underflow
    case 5: return tfr_test_f64_bits(sign * (double)(r % 64));                          // small integers
    default: return tfr_test_f64_bits(sign * ldexp(1.0 + frac, (int)(r % 600) - 300));
  }
}

// n c128 values as 2n words (re, im): the first C128_NSPECIAL (all pairs
// of edge parts) in order `special_order` (0: re-major, 1: im-major, so
// that a binary op over two such lists meets every pair of specials when
// `pairs`), then random values.
static void c128_values(int64_t n, bool pairs, int which, uint64_t seed, uint64_t *w) {
  uint64_t st = seed;
  int64_t i = 0;
  if (pairs) {
    // Operand `which` of all pairs of specials: index = x * NSPECIAL + y.
    for (; i < C128_NSPECIAL * C128_NSPECIAL && i < n; i++) {
      int64_t k = which == 0 ? i / C128_NSPECIAL : i % C128_NSPECIAL;
      w[2 * i] = c128_parts[k / C128_NPARTS];
      w[2 * i + 1] = c128_parts[k % C128_NPARTS];
    }
  } else {
    for (; i < C128_NSPECIAL && i < n; i++) {
      w[2 * i] = c128_parts[i / C128_NPARTS];
      w[2 * i + 1] = c128_parts[i % C128_NPARTS];
    }
  }
  for (; i < n; i++) {
    int f = (int)(tfr_test_rand_u64(&st) % 7);
    int g = tfr_test_rand_u64(&st) % 4 == 0 ? (int)(tfr_test_rand_u64(&st) % 7) : f;
    w[2 * i] = c128_random_part(&st, f);
    w[2 * i + 1] = c128_random_part(&st, g);
  }
}

static tfr_tensor *c128_host(int64_t n, const uint64_t *w) {
  return tfr_test_tensor(TFR_C128, 1, &n, w);
}

// ---------------------------------------------------------------------------
// Elementwise and convert
// ---------------------------------------------------------------------------

typedef enum c128_family { C_UNARY, C_BINARY, C_COMPARE, C_SELECT, C_COMPLEX, C_CONVERT } c128_family;

typedef struct c128_case {
  c128_family family;
  int op;          // unary/binary op, compare direction, convert: the other dtype
  bool from_c128;  // convert: c128 -> op (else op -> c128)
  const char *name;
} c128_case;

static tfr_status c128_run(const void *ctx, tfr_session *s, tfr_tensor *const *in,
                           tfr_tensor **out) {
  const c128_case *c = ctx;
  switch (c->family) {
    case C_UNARY: return tfr_unary(s, (tfr_unary_op)c->op, in[0], out);
    case C_BINARY:
    case C_COMPLEX: return tfr_binary(s, (tfr_binary_op)c->op, in[0], in[1], out);
    case C_COMPARE: return tfr_compare(s, (tfr_compare_direction)c->op, in[0], in[1], out);
    case C_SELECT: return tfr_select(s, in[2], in[0], in[1], out);
    case C_CONVERT: return tfr_convert(s, in[0], c->from_c128 ? (tfr_dtype)c->op : TFR_C128, out);
  }
  return TFR_ERR_INTERNAL;
}

typedef struct c128_piece_ctx {
  const c128_case *c;
  tfr_test_bit_counts *cnt;
  int pieces;
} c128_piece_ctx;

static void c128_piece(void *ctx, const tfr_tensor *want, const tfr_tensor *got, int64_t lo,
                       int piece) {
  const c128_piece_ctx *pc = ctx;
  (void)lo;
  char what[128];
  snprintf(what, sizeof what, "%s (call %d of %d)", pc->c->name, piece + 1, pc->pieces);
  c128_failures += tfr_test_compare_bits(want, got, NULL, NULL, what, pc->cnt);
}

static void c128_check(const c128_case *c, uint64_t seed) {
  bool pairs = c->family == C_BINARY || c->family == C_COMPARE || c->family == C_SELECT;
  int64_t n = (pairs ? C128_NSPECIAL * C128_NSPECIAL : C128_NSPECIAL) + C128_NRANDOM;
  uint64_t *a = malloc((size_t)n * 16), *b = malloc((size_t)n * 16), *m = malloc((size_t)n * 8);
  assert_true(a && b && m);
  c128_values(n, pairs, 0, seed, a);
  c128_values(n, pairs, 1, seed ^ 0x9e37, b);
  uint64_t st = seed ^ 0x5555;
  for (int64_t i = 0; i < n; i++) m[i] = tfr_test_rand_u64(&st);
  tfr_tensor *host[3] = {NULL, NULL, NULL};
  int nin = 1;
  switch (c->family) {
    case C_UNARY: host[0] = c128_host(n, a); break;
    case C_BINARY:
    case C_COMPARE:
      nin = 2;
      host[0] = c128_host(n, a);
      host[1] = c128_host(n, b);
      break;
    case C_SELECT:
      nin = 3;
      host[0] = c128_host(n, a);
      host[1] = c128_host(n, b);
      host[2] = tfr_test_words_tensor(TFR_BOOL, n, m);
      break;
    case C_COMPLEX:  // the parts of a as two f64 operands
      nin = 2;
      for (int64_t i = 0; i < n; i++) b[i] = a[2 * i + 1], m[i] = a[2 * i];
      host[0] = tfr_test_words_tensor(TFR_F64, n, m);
      host[1] = tfr_test_words_tensor(TFR_F64, n, b);
      break;
    case C_CONVERT:
      if (c->from_c128) {
        host[0] = c128_host(n, a);
      } else {
        // Sources from the words of a (tfr_test_words_tensor: f32 and i32
        // the low word, bool bit 0, c64 both words as parts); half of them
        // the real parts (floats of every range), half raw words.
        for (int64_t i = 0; i < n; i++) m[i] = i % 2 ? a[2 * i] : m[i];
        host[0] = tfr_test_words_tensor((tfr_dtype)c->op, n, m);
      }
      break;
  }
  tfr_test_bit_counts cnt = {0};
  c128_piece_ctx pc = {c, &cnt, C128_DISPATCHES};
  char err[512];
  tfr_status st1 = tfr_test_cpu_vs_gpu(c128_run, c, host, nin, n, C128_DISPATCHES, c128_piece,
                                       &pc, err, sizeof err);
  if (st1) {
    print_error("MISMATCH: %s on webgpu: %s: %s\n", c->name, tfr_status_string(st1), err);
    c128_failures++;
  }
  print_message("  %-24s %lld values, %lld NaN parts (%lld also in their bits)\n", c->name,
                (long long)cnt.compared, (long long)cnt.nan_results,
                (long long)cnt.nan_bits_equal);
  for (int i = 0; i < nin; i++) tfr_tensor_release(host[i]);
  free(a);
  free(b);
  free(m);
}

static void c128_check_all(const c128_case *cases, int ncases) {
  c128_failures = 0;
  for (int k = 0; k < ncases; k++) c128_check(&cases[k], 7000 + (uint64_t)k);
  if (c128_failures) fail_msg("%d mismatches or failed ops (see above)", c128_failures);
}

static void test_binary(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  static const c128_case cases[] = {
      {C_BINARY, TFR_ADD, false, "add"},         {C_BINARY, TFR_SUBTRACT, false, "subtract"},
      {C_BINARY, TFR_MULTIPLY, false, "multiply"}, {C_BINARY, TFR_DIVIDE, false, "divide"},
      {C_BINARY, TFR_MAXIMUM, false, "maximum"}, {C_BINARY, TFR_MINIMUM, false, "minimum"},
      {C_COMPARE, TFR_EQ, false, "compare EQ"},  {C_COMPARE, TFR_NE, false, "compare NE"},
      {C_SELECT, 0, false, "select"},            {C_COMPLEX, TFR_COMPLEX, false, "complex"},
  };
  c128_check_all(cases, (int)(sizeof cases / sizeof cases[0]));
}

static void test_unary(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  static const c128_case cases[] = {
      {C_UNARY, TFR_NEGATE, false, "negate"}, {C_UNARY, TFR_CONJ, false, "conj"},
      {C_UNARY, TFR_REAL, false, "real"},     {C_UNARY, TFR_IMAG, false, "imag"},
      {C_UNARY, TFR_ABS, false, "abs"},       {C_UNARY, TFR_SIGN, false, "sign"},
      {C_UNARY, TFR_SQRT, false, "sqrt"},     {C_UNARY, TFR_RSQRT, false, "rsqrt"},
  };
  c128_check_all(cases, (int)(sizeof cases / sizeof cases[0]));
}

static void test_convert(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  static const c128_case cases[] = {
      {C_CONVERT, TFR_F32, true, "c128 -> f32"},   {C_CONVERT, TFR_F64, true, "c128 -> f64"},
      {C_CONVERT, TFR_I32, true, "c128 -> i32"},   {C_CONVERT, TFR_I64, true, "c128 -> i64"},
      {C_CONVERT, TFR_U64, true, "c128 -> u64"},   {C_CONVERT, TFR_BOOL, true, "c128 -> bool"},
      {C_CONVERT, TFR_C64, true, "c128 -> c64"},   {C_CONVERT, TFR_F32, false, "f32 -> c128"},
      {C_CONVERT, TFR_F64, false, "f64 -> c128"},  {C_CONVERT, TFR_I32, false, "i32 -> c128"},
      {C_CONVERT, TFR_I64, false, "i64 -> c128"},  {C_CONVERT, TFR_U64, false, "u64 -> c128"},
      {C_CONVERT, TFR_BOOL, false, "bool -> c128"}, {C_CONVERT, TFR_C64, false, "c64 -> c128"},
  };
  c128_check_all(cases, (int)(sizeof cases / sizeof cases[0]));
}

// ---------------------------------------------------------------------------
// Views, fusion
// ---------------------------------------------------------------------------

// Runs `fn` on the cpu over the host tensors and on webgpu over their
// uploads, compares the results bit for bit.
typedef tfr_status (*c128_fn)(tfr_session *s, tfr_tensor *const *in, const void *ctx,
                              tfr_tensor **out);

// Replaces every -0 part by +0 (for comparing zeros by value).
static tfr_tensor *c128_zeros_unsigned(tfr_tensor *t) {
  int64_t n = tfr_tensor_numel(t);
  size_t nb = (size_t)n * 16;
  uint64_t *w = malloc(nb + 16);
  assert_non_null(w);
  TFR_ASSERT_OK(tfr_tensor_read(t, w, nb + 16));
  for (int64_t i = 0; i < 2 * n; i++)
    if (w[i] == UINT64_C(0x8000000000000000)) w[i] = 0;
  tfr_tensor *r = tfr_test_tensor(TFR_C128, 1, &n, w);
  free(w);
  tfr_tensor_release(t);
  return r;
}

static void c128_both_zeros(c128_fn fn, tfr_tensor *const *host, int nin, const void *ctx,
                            const char *what, int64_t *compared, bool zeros_by_value) {
  tfr_tensor *res[2] = {NULL, NULL};
  for (int pass = 0; pass < 2; pass++) {
    tfr_session *s = tfr_test_begin(pass ? tfr_test_gpu : tfr_test_cpu);
    tfr_tensor *in[4] = {NULL, NULL, NULL, NULL}, *out = NULL;
    for (int i = 0; i < nin; i++)
      in[i] = pass ? tfr_test_upload(s, host[i]) : (tfr_tensor_retain(host[i]), host[i]);
    if (fn(s, in, ctx, &out))
      fail_msg("%s on %s: %s", what, pass ? "webgpu" : "cpu", tfr_last_error_message());
    res[pass] = pass ? tfr_test_download(s, out) : (tfr_tensor_retain(out), out);
    tfr_tensor_release(out);
    for (int i = 0; i < nin; i++) tfr_tensor_release(in[i]);
    tfr_test_end(s);
  }
  if (zeros_by_value)
    for (int pass = 0; pass < 2; pass++) res[pass] = c128_zeros_unsigned(res[pass]);
  tfr_test_bit_counts cnt = {0};
  c128_failures += tfr_test_compare_bits(res[0], res[1], NULL, NULL, what, &cnt);
  *compared += cnt.compared;
  tfr_tensor_release(res[0]);
  tfr_tensor_release(res[1]);
}

static void c128_both(c128_fn fn, tfr_tensor *const *host, int nin, const void *ctx,
                      const char *what, int64_t *compared) {
  c128_both_zeros(fn, host, nin, ctx, what, compared, false);
}

typedef struct view_ctx {
  tfr_binary_op op;
  int layout;
  int64_t n;
} view_ctx;

// in[0] with stride 2 from 1; in[1] reversed (layout 0) or a broadcast
// element (layout 1).
static tfr_status c128_views_fn(tfr_session *s, tfr_tensor *const *in, const void *vctx,
                                tfr_tensor **out) {
  const view_ctx *c = vctx;
  int64_t sa = 2, sb = c->layout ? 0 : -1, ob = c->layout ? 17 : 2 * c->n - 1, n = c->n;
  tfr_tensor *va = NULL, *vb = NULL;
  TFR_ASSERT_OK(tfr_tensor_view(in[0], 1, &n, &sa, 1, &va));
  TFR_ASSERT_OK(tfr_tensor_view(in[1], 1, &n, &sb, ob, &vb));
  tfr_status st = tfr_binary(s, c->op, va, vb, out);
  tfr_tensor_release(va);
  tfr_tensor_release(vb);
  return st;
}

static void test_views(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  c128_failures = 0;
  const int64_t n = 1501, n2 = 2 * n;
  uint64_t *a = malloc((size_t)n2 * 16), *b = malloc((size_t)n2 * 16);
  assert_true(a && b);
  c128_values(n2, false, 0, 91, a);
  c128_values(n2, false, 0, 92, b);
  tfr_tensor *h[2] = {c128_host(n2, a), c128_host(n2, b)};
  static const tfr_binary_op ops[] = {TFR_ADD, TFR_MULTIPLY, TFR_MAXIMUM, TFR_DIVIDE};
  int64_t compared = 0;
  for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
    for (int layout = 0; layout < 2; layout++) {
      view_ctx c = {ops[k], layout, n};
      char what[96];
      snprintf(what, sizeof what, "%s on %s views", tfr_binary_op_name(ops[k]),
               layout ? "strided and broadcast" : "strided and reversed");
      c128_both(c128_views_fn, h, 2, &c, what, &compared);
    }
  print_message("  views: %lld values compared\n", (long long)compared);
  tfr_tensor_release(h[0]);
  tfr_tensor_release(h[1]);
  free(a), free(b);
  if (c128_failures) fail_msg("%d mismatches (see above)", c128_failures);
}

// A plan over c128 a, b and f64 x, y: complex(x, y) * a + conj(b), its real
// part, a == b, select(a == b, a, max(a, b)), -a - b.
static void test_fusion(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  const int64_t n = 2000;
  uint64_t *a = malloc((size_t)n * 16), *b = malloc((size_t)n * 16), *x = malloc((size_t)n * 16);
  assert_true(a && b && x);
  c128_values(n, false, 0, 51, a);
  c128_values(n, false, 0, 52, b);
  c128_values(n, false, 0, 53, x);
  for (int64_t i = 0; i < n / 4; i++) b[2 * i] = a[2 * i], b[2 * i + 1] = a[2 * i + 1];
  tfr_tensor *h[4] = {c128_host(n, a), c128_host(n, b), tfr_test_words_tensor(TFR_F64, n, x),
                      tfr_test_words_tensor(TFR_F64, n, x + n)};
  tfr_fusion_plan *p = NULL;
  TFR_ASSERT_OK(tfr_fusion_plan_create(4, (tfr_dtype[]){TFR_C128, TFR_C128, TFR_F64, TFR_F64}, &p));
  int z, za, cb, r, re, eq, mx, sel, na, d;
  TFR_ASSERT_OK(tfr_fusion_plan_binary(p, TFR_COMPLEX, 2, 3, &z));
  TFR_ASSERT_OK(tfr_fusion_plan_binary(p, TFR_MULTIPLY, z, 0, &za));
  TFR_ASSERT_OK(tfr_fusion_plan_unary(p, TFR_CONJ, 1, &cb));
  TFR_ASSERT_OK(tfr_fusion_plan_binary(p, TFR_ADD, za, cb, &r));
  TFR_ASSERT_OK(tfr_fusion_plan_unary(p, TFR_REAL, r, &re));
  TFR_ASSERT_OK(tfr_fusion_plan_compare(p, TFR_EQ, 0, 1, &eq));
  TFR_ASSERT_OK(tfr_fusion_plan_binary(p, TFR_MAXIMUM, 0, 1, &mx));
  TFR_ASSERT_OK(tfr_fusion_plan_select(p, eq, 0, mx, &sel));
  TFR_ASSERT_OK(tfr_fusion_plan_unary(p, TFR_NEGATE, 0, &na));
  TFR_ASSERT_OK(tfr_fusion_plan_binary(p, TFR_SUBTRACT, na, 1, &d));
  int outs[5] = {r, re, eq, sel, d};
  for (int o = 0; o < 5; o++) TFR_ASSERT_OK(tfr_fusion_plan_output(p, outs[o]));
  tfr_tensor *want[5], *got[5];
  tfr_test_fusion_cpu_vs_gpu(p, h, 4, 5, want, got);
  c128_failures = 0;
  tfr_test_bit_counts cnt = {0};
  static const char *const names[5] = {"fusion complex(x, y) * a + conj(b)", "fusion real",
                                       "fusion a == b", "fusion select", "fusion -a - b"};
  for (int o = 0; o < 5; o++) {
    c128_failures += tfr_test_compare_bits(want[o], got[o], NULL, NULL, names[o], &cnt);
    tfr_tensor_release(want[o]);
    tfr_tensor_release(got[o]);
  }
  print_message("  fusion: %lld values compared\n", (long long)cnt.compared);
  tfr_fusion_plan_release(p);
  for (int i = 0; i < 4; i++) tfr_tensor_release(h[i]);
  free(a), free(b), free(x);
  if (c128_failures) fail_msg("%d mismatches (see above)", c128_failures);
}

// ---------------------------------------------------------------------------
// Reduce, iota, scatter
// ---------------------------------------------------------------------------

typedef struct red_ctx {
  tfr_reduce_combiner comb;
  int naxes;
  const int64_t *axes;
} red_ctx;

static tfr_status c128_reduce_fn(tfr_session *s, tfr_tensor *const *in, const void *vctx,
                                 tfr_tensor **out) {
  const red_ctx *c = vctx;
  return tfr_reduce(s, in[0], NULL, c->comb, c->naxes, c->axes, out);
}

static double c128_unit_part(uint64_t *st) {
  static const double v[] = {0.0, 1.0, -1.0, 0.5, 2.0, -2.0};
  return v[tfr_test_rand_u64(st) % 6];
}

// Sums of small integers and products of units, halves and twos (exact in
// any order, so the webgpu tree gives the cpu's values, and for sums its
// bits), over rows, columns and everything.
static void test_reduce_iota(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  c128_failures = 0;
  static const int64_t shapes[][2] = {{1, 1}, {3, 1000}, {1000, 3}, {37, 129}, {0, 5}};
  static const int64_t ax1[1] = {1}, ax0[1] = {0}, ax01[2] = {0, 1};
  static const int64_t *axes[3] = {ax1, ax0, ax01};
  static const int naxes[3] = {1, 1, 2};
  int64_t compared = 0;
  for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++)
    for (int ci = 0; ci < 2; ci++) {
      int64_t n = shapes[t][0] * shapes[t][1];
      double *v = malloc((size_t)(n ? n : 1) * 16);
      assert_non_null(v);
      uint64_t st = 300 + t;
      for (int64_t i = 0; i < 2 * n; i++) {
        if (ci == 0) v[i] = (double)((int64_t)(tfr_test_rand_u64(&st) % 2001) - 1000);
        // A product: one part of each element zero, the other a unit (or
        // 1/2, 2), so that products stay exact.
        else v[i] = i % 2 ? 0.0 : c128_unit_part(&st);
        if (ci == 1 && i % 2 == 1 && tfr_test_rand_u64(&st) % 2) v[i] = v[i - 1], v[i - 1] = 0.0;
        if (ci == 1 && i % 2 == 1 && v[i] == 0.0 && v[i - 1] == 0.0) v[i] = 1.0;
      }
      tfr_tensor *h = tfr_test_tensor(TFR_C128, 2, shapes[t], v);
      for (int a = 0; a < 3; a++) {
        red_ctx c = {ci ? TFR_REDUCE_MULTIPLY : TFR_REDUCE_ADD, naxes[a], axes[a]};
        char what[96];
        snprintf(what, sizeof what, "reduce %s [%lld, %lld] axes %d", ci ? "multiply" : "add",
                 (long long)shapes[t][0], (long long)shapes[t][1], a);
        // A product's zero parts take their signs from the order of the
        // steps (0 * -1 ...), which differs between the two trees: zeros
        // are compared by value there.
        c128_both_zeros(c128_reduce_fn, &h, 1, &c, what, &compared, ci == 1);
      }
      tfr_tensor_release(h);
      free(v);
    }
  static const int64_t ishape[2] = {3, 700};
  for (int dim = 0; dim < 2; dim++) {
    tfr_tensor *want = NULL, *out = NULL, *got = NULL;
    tfr_session *s = tfr_test_begin(tfr_test_cpu);
    TFR_ASSERT_OK(tfr_iota(s, TFR_C128, 2, ishape, dim, &want));
    tfr_test_end(s);
    s = tfr_test_begin(tfr_test_gpu);
    if (tfr_iota(s, TFR_C128, 2, ishape, dim, &out))
      fail_msg("iota on webgpu: %s", tfr_last_error_message());
    got = tfr_test_download(s, out);
    tfr_tensor_release(out);
    tfr_test_end(s);
    tfr_test_bit_counts cnt = {0};
    c128_failures += tfr_test_compare_bits(want, got, NULL, NULL, "iota", &cnt);
    compared += cnt.compared;
    tfr_tensor_release(want);
    tfr_tensor_release(got);
  }
  print_message("  reduce and iota: %lld values compared\n", (long long)compared);
  if (c128_failures) fail_msg("%d mismatches (see above)", c128_failures);
}

static tfr_status c128_scatter_fn(tfr_session *s, tfr_tensor *const *in, const void *vctx,
                                  tfr_tensor **out) {
  return tfr_scatter(s, in[0], in[1], in[2], vctx, out);
}

// 600 updates into 53 elements (duplicates applied in index order, as on the
// cpu: the same roundings, so any values give the cpu's bits), every
// combiner, values with edge parts.
static void test_scatter(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  c128_failures = 0;
  const int64_t n = 53, nu = 600;
  uint64_t *o = malloc((size_t)n * 16), *u = malloc((size_t)nu * 16);
  int32_t *iv = malloc((size_t)nu * 4);
  assert_true(o && u && iv);
  c128_values(n, false, 0, 61, o);
  c128_values(nu, false, 0, 62, u);
  // Edge values among the updates, not only at the front.
  for (int64_t i = 0; i < nu; i++) {
    uint64_t t = u[2 * i];
    u[2 * i] = u[2 * ((i * 7) % nu)];
    u[2 * ((i * 7) % nu)] = t;
  }
  uint64_t st = 63;
  for (int64_t i = 0; i < nu; i++) iv[i] = (int32_t)(tfr_test_rand_u64(&st) % (uint64_t)n);
  int64_t ishape[2] = {nu, 1};
  tfr_tensor *h[3] = {c128_host(n, o), tfr_test_tensor(TFR_I32, 2, ishape, iv), c128_host(nu, u)};
  static const tfr_scatter_combiner cbs[] = {TFR_SCATTER_ADD, TFR_SCATTER_MULTIPLY,
                                             TFR_SCATTER_MAXIMUM, TFR_SCATTER_MINIMUM};
  static const char *const names[] = {"scatter add", "scatter multiply", "scatter maximum",
                                      "scatter minimum"};
  int64_t ins[1] = {0}, map[1] = {0}, compared = 0;
  for (int k = 0; k < 4; k++) {
    tfr_scatter_config sc = {.num_inserted_window_dims = 1, .inserted_window_dims = ins,
                             .num_scatter_dims_to_operand_dims = 1,
                             .scatter_dims_to_operand_dims = map, .index_vector_dim = 1,
                             .combiner = cbs[k]};
    c128_both(c128_scatter_fn, h, 3, &sc, names[k], &compared);
  }
  print_message("  scatter: %lld values compared\n", (long long)compared);
  for (int i = 0; i < 3; i++) tfr_tensor_release(h[i]);
  free(o), free(u), free(iv);
  if (c128_failures) fail_msg("%d mismatches (see above)", c128_failures);
}

// ---------------------------------------------------------------------------
// dot_general
// ---------------------------------------------------------------------------

typedef struct dot_ctx {
  int64_t nb, m, n, k;
  bool tl, rr, conj, acc;
  const void *alpha, *beta;
  const tfr_tensor *init;  // host out of the accumulating form
} dot_ctx;

static tfr_status c128_dot_fn(tfr_session *s, tfr_tensor *const *in, const void *vctx,
                              tfr_tensor **out) {
  const dot_ctx *c = vctx;
  int64_t nb = c->nb, m = c->m, n = c->n, k = c->k;
  int64_t lshape[3] = {nb, m, k}, lst[3] = {m * k, c->tl ? 1 : k, c->tl ? m : 1};
  int64_t rshape[3] = {nb, k, n}, rst[3] = {k * n, n, c->rr ? -1 : 1};
  tfr_tensor *lview = NULL, *rview = NULL;
  TFR_ASSERT_OK(tfr_tensor_view(in[0], 3, lshape, lst, 0, &lview));
  TFR_ASSERT_OK(tfr_tensor_view(in[1], 3, rshape, rst, c->rr ? n - 1 : 0, &rview));
  int64_t bd = 0, lc = 2, rc = 1;
  tfr_dot_config cfg = {1, &bd, &bd, 1, &lc, &rc, c->conj, false};
  tfr_status st;
  if (!c->acc) {
    st = tfr_dot_general(s, lview, rview, &cfg, out);
  } else {
    // Into a copy: the cpu's input is the host tensor the webgpu run uploads.
    st = tfr_copy(s, in[2], out);
    if (!st) st = tfr_dot_general_accumulate(s, lview, rview, &cfg, c->alpha, c->beta, *out);
  }
  tfr_tensor_release(lview);
  tfr_tensor_release(rview);
  return st;
}

// Small products (the cpu's strided loop, whose steps the webgpu kernel
// repeats: any values give its bits) and larger ones of small integers
// (exact in any order, as the cpu's BLAS computes them), plain,
// conjugated and accumulating.
static void test_dot_general(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  c128_failures = 0;
  static const int64_t shapes[][4] = {{1, 1, 1, 1}, {2, 3, 4, 5}, {3, 5, 4, 6}, {1, 1, 1, 0},
                                      {2, 20, 30, 40}, {1, 33, 17, 64}};
  int64_t compared = 0;
  for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++)
    for (int form = 0; form < 3; form++) {
      int64_t nb = shapes[t][0], m = shapes[t][1], n = shapes[t][2], k = shapes[t][3];
      bool small = nb * m * n * k <= 128 * nb;
      int64_t nl = nb * m * k, nr = nb * k * n, no = nb * m * n;
      uint64_t *w = malloc((size_t)(nl + nr + no + 1) * 16);
      assert_non_null(w);
      c128_values(nl + nr + no, false, 0, 500 + t, w);
      uint64_t st = 77 + t;
      if (!small || form == 2)  // exact: small integers
        for (int64_t i = 0; i < 2 * (nl + nr + no); i++) {
          double d = (double)((int64_t)(tfr_test_rand_u64(&st) % 17) - 8);
          memcpy(&w[i], &d, 8);
        }
      else  // moderate values from the random families (no edge values)
        for (int64_t i = 0; i < 2 * (nl + nr + no); i++) w[i] = c128_random_part(&st, 1);
      int64_t ls[3] = {nb, t % 2 ? k : m, t % 2 ? m : k}, rs[3] = {nb, k, n}, os[3] = {nb, m, n};
      tfr_tensor *h[3] = {tfr_test_tensor(TFR_C128, 3, ls, w),
                          tfr_test_tensor(TFR_C128, 3, rs, w + 2 * nl),
                          tfr_test_tensor(TFR_C128, 3, os, w + 2 * (nl + nr))};
      double alpha[2] = {2.0, -1.0}, beta[2] = {0.5, 3.0};
      dot_ctx c = {nb, m, n, k, t % 2 == 1, t % 3 == 2, form == 1, form == 2, alpha, beta, NULL};
      char what[96];
      snprintf(what, sizeof what, "dot_general %lldx%lldx%lldx%lld%s", (long long)nb,
               (long long)m, (long long)n, (long long)k,
               form == 1 ? " conj" : form == 2 ? " accumulate" : "");
      c128_both(c128_dot_fn, h, form == 2 ? 3 : 2, &c, what, &compared);
      for (int i = 0; i < 3; i++) tfr_tensor_release(h[i]);
      free(w);
    }
  print_message("  dot_general: %lld values compared\n", (long long)compared);
  if (c128_failures) fail_msg("%d mismatches (see above)", c128_failures);
}

// What webgpu does not have on c128 is refused, naming op, dtype and
// backend; nothing is returned and the session stays usable.
static void test_refused(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  int64_t n = 5;
  tfr_tensor *h = tfr_test_random_tensor(TFR_C128, 1, &n, 1);
  tfr_session *s = tfr_test_begin(tfr_test_gpu);
  tfr_tensor *d = tfr_test_upload(s, h), *y = NULL;
  TFR_ASSERT_ERROR(tfr_unary(s, TFR_TANH, d, &y), TFR_ERR_UNSUPPORTED_DTYPE, "tanh", "c128",
                   "webgpu", "analytic");
  assert_null(y);
  tfr_tensor *back = tfr_test_download(s, d);
  tfr_test_end(s);
  tfr_test_bit_counts cnt = {0};
  assert_int_equal(tfr_test_compare_bits(h, back, NULL, NULL, "after refusals", &cnt), 0);
  tfr_tensor_release(back);
  tfr_tensor_release(d);
  tfr_tensor_release(h);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_binary, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_unary, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_convert, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_views, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_fusion, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_reduce_iota, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_scatter, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_dot_general, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_refused, tfr_test_teardown_session),
  };
  return TFR_TEST_RUN_WEBGPU(tests);
}
