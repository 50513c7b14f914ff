// i64 and u64 on the webgpu backend: exact integer arithmetic on pairs of
// u32 words (src/webgpu/kernels/common/u64.wgsl), against the cpu backend
// bit for bit.
//
// Every elementwise op the op table has for i64 / u64 (add, subtract,
// multiply, divide, remainder, maximum, minimum, power, and, or, xor, the
// three shifts, negate, abs, sign, not, popcnt, conj, the six compares,
// select, clamp) runs on
//   * every pair of a list of edge values (0, +-1, INT64_MIN, INT64_MAX,
//     UINT64_MAX, values around 2^31, 2^32, 2^53, 2^63, shift counts
//     around 32 and 64, f32 rounding ties), and
//   * I64_NRANDOM random operand pairs in several families: raw 64-bit
//     patterns, small values, values whose low word is about to carry or
//     borrow into the high word, divisors of every length (one word, two
//     words, near the dividend), shift counts in [0, 70), small exponents,
// in I64_DISPATCHES separate calls each, on compact operands; then strided,
// reversed and broadcast (stride 0) views. convert between i64 / u64 and
// f32, f64, i32, bool, c64 and each other (float sources: saturation, NaN,
// halves, values around 2^63 and 2^64), reductions (every combiner, several
// layouts, twice: the same bits), iota, a fused plan and dot_general (plain
// and accumulating, wrapping) are compared with the cpu the same way (the
// scatter combiners: test_webgpu_indexing.c).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "tenferro/fusion.h"
#include "tenferro/webgpu.h"

#define I64_NRANDOM (3 * 34000)  // random pairs per op (beyond the edge values' pairs)
#define I64_DISPATCHES 3         // calls the random pairs are split over

static int i64_failures;
#define I64_FAIL(...)          \
  do {                         \
    print_error("MISMATCH: "); \
    print_error(__VA_ARGS__);  \
    print_error("\n");         \
    i64_failures++;            \
  } while (0)

// ---------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------

static const uint64_t i64_edges[] = {
    0,
    1,
    UINT64_MAX,  // -1
    2,
    UINT64_MAX - 1,  // -2
    3,
    7,
    UINT64_C(0x8000000000000000),  // INT64_MIN
    UINT64_C(0x7fffffffffffffff),  // INT64_MAX
    UINT64_C(0x8000000000000001),
    UINT64_C(0x7ffffffffffffffe),
    UINT64_C(0x000000007fffffff),
    UINT64_C(0x0000000080000000),
    UINT64_C(0xffffffff80000000),  // -2^31
    UINT64_C(0xffffffff7fffffff),
    UINT64_C(0x00000000ffffffff),  // carries into the high word
    UINT64_C(0x0000000100000000),  // 2^32
    UINT64_C(0x0000000100000001),
    UINT64_C(0xffffffff00000000),  // -2^32
    UINT64_C(0xffffffff00000001),
    UINT64_C(0xfffffffeffffffff),
    UINT64_C(0x00000001ffffffff),
    UINT64_C(0x0000ffffffffffff),
    31,
    32,
    33,
    63,
    64,
    65,
    UINT64_C(0x0000000100000040),  // 64 in the low word, not a small count
    UINT64_C(0x0020000000000000),  // 2^53
    UINT64_C(0x0020000000000001),  // 2^53 + 1: an f64 tie
    UINT64_C(0x0020000000000003),
    UINT64_C(0x7ffffffffffffc00),  // rounds to 2^63 in f64
    UINT64_C(0x7ffffffffffffdff),
    UINT64_C(0xfffffffffffff800),  // rounds to 2^64 in f64
    UINT64_C(0x0000000001000001),  // 2^24 + 1: an f32 tie
    UINT64_C(0x0000000001000003),
    UINT64_C(0x0000008000008000),  // an f32 tie above 2^32
    UINT64_C(0x0000008000018000),
    UINT64_C(0x8000008000000000),  // an f32 tie near 2^63
    UINT64_C(0x123456789abcdef0),
    UINT64_C(0xfedcba9876543210),
    UINT64_C(0x5555555555555555),
    UINT64_C(0xaaaaaaaaaaaaaaaa),
};
#define I64_NEDGE ((int)(sizeof i64_edges / sizeof i64_edges[0]))

// Random operand pair number i (a: operand 0, b: operand 1) of family i % 8.
static void i64_random_pair(uint64_t *st, int64_t i, uint64_t *a, uint64_t *b) {
  uint64_t r = tfr_test_rand_u64(st), x = tfr_test_rand_u64(st), y = tfr_test_rand_u64(st);
  switch (i % 8) {
    case 0:  // raw patterns
    case 1:
      *a = x, *b = y;
      break;
    case 2:  // small values of either sign
      *a = (uint64_t)((int64_t)(x % 2001) - 1000);
      *b = (uint64_t)((int64_t)(y % 41) - 20);
      break;
    case 3:  // low words about to carry or borrow across the word boundary
      *a = (x & UINT64_C(0xffffffff00000000)) | (0xffffffffu - (uint32_t)(r % 8));
      *b = (y & UINT64_C(0xffffffff00000000)) | (uint32_t)((r >> 8) % 8);
      if ((r >> 16) & 1) *b = (uint64_t)0 - *b;
      break;
    case 4:  // divisors of every length: one word, two words, near the dividend
      *a = x;
      switch ((r >> 4) % 4) {
        case 0: *b = y & 0xffffffffu; break;
        case 1: *b = y >> (r % 64); break;
        case 2: *b = x - (y % 1000); break;
        default: *b = (x >> ((r >> 8) % 8)) ^ (y & 0xff); break;
      }
      if ((r >> 20) & 1) *b = (uint64_t)0 - *b;
      break;
    case 5:  // shift counts (and exponents) in [0, 70)
      *a = x >> (r % 64);
      *b = y % 70;
      break;
    case 6:  // values that fit one word (u32 division path) or do not by a bit
      *a = x >> 32;
      *b = (y >> (32 + (r % 3))) | ((r >> 9) & 1);
      break;
    default:  // magnitudes of every length
      *a = x >> (r % 64);
      *b = y >> ((r >> 6) % 64);
      if ((r >> 12) & 1) *a = (uint64_t)0 - *a;
      if ((r >> 13) & 1) *b = (uint64_t)0 - *b;
      break;
  }
}

// n operand pairs: all pairs of edge values (or each once), then random ones.
static void i64_operands(int64_t n, bool pairs, uint64_t seed, uint64_t *a, uint64_t *b) {
  uint64_t st = seed;
  int64_t ns = pairs ? (int64_t)I64_NEDGE * I64_NEDGE : I64_NEDGE;
  for (int64_t i = 0; i < n; i++) {
    if (i < ns) {
      a[i] = i64_edges[pairs ? i / I64_NEDGE : i];
      b[i] = i64_edges[i % I64_NEDGE];
    } else {
      i64_random_pair(&st, i, &a[i], &b[i]);
    }
  }
}

// ---------------------------------------------------------------------------
// Comparing
// ---------------------------------------------------------------------------

// cpu and webgpu results bit for bit (tfr_test_compare_bits; float results
// of convert have no NaN here).
static void i64_compare(const tfr_tensor *want, const tfr_tensor *got, const uint64_t *a,
                        const uint64_t *b, const char *what, int64_t *compared) {
  tfr_test_bit_counts cnt = {0};
  i64_failures += tfr_test_compare_bits(want, got, a, b, what, &cnt);
  *compared += cnt.compared;
}

// A host tensor [n] of dtype dt from the words v (tfr_test_words_tensor).
#define i64_host tfr_test_words_tensor

// ---------------------------------------------------------------------------
// Elementwise ops and convert
// ---------------------------------------------------------------------------

typedef enum i64_family { F_UNARY, F_BINARY, F_COMPARE, F_SELECT, F_CLAMP, F_CONVERT } i64_family;

typedef struct i64_case {
  i64_family family;
  int op;           // unary/binary op, compare direction, convert: the destination dtype
  tfr_dtype dtype;  // the operands' dtype (convert: the source's)
  const char *name;
} i64_case;

static tfr_status i64_run(const void *ctx, tfr_session *s, tfr_tensor *const *in,
                          tfr_tensor **out) {
  const i64_case *c = ctx;
  switch (c->family) {
    case F_UNARY: return tfr_unary(s, (tfr_unary_op)c->op, in[0], out);
    case F_BINARY: return tfr_binary(s, (tfr_binary_op)c->op, in[0], in[1], out);
    case F_COMPARE: return tfr_compare(s, (tfr_compare_direction)c->op, in[0], in[1], out);
    case F_SELECT: return tfr_select(s, in[2], in[0], in[1], out);
    case F_CLAMP: return tfr_clamp(s, in[1], in[0], in[2], out);
    case F_CONVERT: return tfr_convert(s, in[0], (tfr_dtype)c->op, out);
  }
  return TFR_ERR_INTERNAL;
}

// Float sources of a convert to i64 / u64 (f64 bits; f32 and c64 sources
// take the nearest f32): NaN, infinities, zeros, halves, the saturation
// bounds 2^63 and 2^64 and their neighbours, then random values of every
// magnitude up to 2^66 and raw patterns.
static uint64_t i64_float_source(uint64_t *st, int64_t i) {
  static const double sp[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0, -0.0, 0.5, -0.5, 0.99999,
                              -0.99999, 1.0, -1.0, 1.5, -1.5, 2147483647.5, -2147483648.5,
                              4294967295.0, 4294967296.0, 9223372036854775808.0,
                              -9223372036854775808.0, 9223372036854774784.0,
                              -9223372036854777856.0, 18446744073709551616.0,
                              18446744073709549568.0, 36893488147419103232.0, 1e300, -1e300,
                              5e-324, 9007199254740993.0, 16777217.0};
  int nsp = (int)(sizeof sp / sizeof sp[0]);
  double d;
  if (i < nsp) {
    d = sp[i];
  } else {
    uint64_t r = tfr_test_rand_u64(st);
    if (r % 4 == 0) {
      uint64_t u = tfr_test_rand_u64(st);
      memcpy(&d, &u, 8);
    } else {
      d = ldexp(tfr_test_rand_uniform(st, -1.0, 1.0), (int)((r >> 8) % 68));
    }
  }
  uint64_t u;
  memcpy(&u, &d, 8);
  return u;
}

typedef struct i64_piece_ctx {
  const i64_case *c;
  const uint64_t *a, *b;
  int64_t *compared;
  int pieces;
} i64_piece_ctx;

static void i64_piece(void *ctx, const tfr_tensor *want, const tfr_tensor *got, int64_t lo,
                      int piece) {
  const i64_piece_ctx *pc = ctx;
  char what[128];
  snprintf(what, sizeof what, "%s (call %d of %d)", pc->c->name, piece + 1, pc->pieces);
  i64_compare(want, got, pc->a + lo, pc->b + lo, what, pc->compared);
}

// Runs case c over n operand pairs from `seed` on both backends, the
// webgpu run split into `pieces` calls on consecutive ranges, and compares.
static void i64_check(const i64_case *c, int64_t n, int pieces, uint64_t seed, int64_t *compared) {
  uint64_t *a = malloc((size_t)n * 8), *b = malloc((size_t)n * 8), *m = malloc((size_t)n * 8);
  assert_true(a && b && m);
  bool pairs = c->family != F_UNARY && c->family != F_CONVERT;
  i64_operands(n, pairs, seed, a, b);
  uint64_t st = seed ^ 0x5555;
  for (int64_t i = 0; i < n; i++) m[i] = i < I64_NEDGE ? i64_edges[(i * 7) % I64_NEDGE] : tfr_test_rand_u64(&st);
  tfr_dtype in_dt[3] = {c->dtype, c->dtype, c->dtype};
  int nin = 1;
  switch (c->family) {
    case F_UNARY: nin = 1; break;
    case F_BINARY:
    case F_COMPARE: nin = 2; break;
    case F_SELECT: nin = 3, in_dt[2] = TFR_BOOL; break;
    case F_CLAMP: nin = 3; break;
    case F_CONVERT:
      nin = 1;
      if (c->dtype == TFR_F64 || c->dtype == TFR_F32 || c->dtype == TFR_C64) {
        uint64_t fs = seed;
        for (int64_t i = 0; i < n; i++) {
          a[i] = i64_float_source(&fs, i);
          if (c->dtype != TFR_F64) {  // the nearest f32 in the low word (c64: and a random imag)
            double d;
            memcpy(&d, &a[i], 8);
            float f = (float)d;
            uint32_t w;
            memcpy(&w, &f, 4);
            a[i] = w | (tfr_test_rand_u64(&fs) & UINT64_C(0xffffffff00000000));
          }
        }
      }
      break;
  }
  // clamp(lo = b, x = a, hi = m).
  const uint64_t *vals[3] = {a, b, m};
  tfr_tensor *host[3] = {NULL, NULL, NULL};
  for (int i = 0; i < nin; i++) host[i] = i64_host(in_dt[i], n, vals[i]);
  i64_piece_ctx pc = {c, a, b, compared, pieces};
  char err[512];
  tfr_status st1 = tfr_test_cpu_vs_gpu(i64_run, c, host, nin, n, pieces, i64_piece, &pc, err,
                                       sizeof err);
  if (st1) I64_FAIL("%s on webgpu: %s: %s", c->name, tfr_status_string(st1), err);
  for (int i = 0; i < nin; i++) tfr_tensor_release(host[i]);
  free(a);
  free(b);
  free(m);
}

static void i64_check_all(const i64_case *cases, int ncases) {
  i64_failures = 0;
  for (int k = 0; k < ncases; k++) {
    const i64_case *c = &cases[k];
    bool pairs = c->family != F_UNARY && c->family != F_CONVERT;
    int64_t ns = pairs ? (int64_t)I64_NEDGE * I64_NEDGE : I64_NEDGE, compared = 0;
    i64_check(c, ns + I64_NRANDOM, I64_DISPATCHES, 2000 + (uint64_t)k, &compared);
    print_message("  %-40s %lld cases (%lld edge)\n", c->name, (long long)compared, (long long)ns);
  }
  if (i64_failures) fail_msg("%d mismatches or failed ops (see above)", i64_failures);
}

#define BIN(op, dt, name) {F_BINARY, op, dt, name}
#define BIN2(op, name) BIN(op, TFR_I64, name " i64"), BIN(op, TFR_U64, name " u64")

static void test_binary(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  static const i64_case cases[] = {
      BIN2(TFR_ADD, "add"),
      BIN2(TFR_SUBTRACT, "subtract"),
      BIN2(TFR_MULTIPLY, "multiply"),
      BIN2(TFR_DIVIDE, "divide"),
      BIN2(TFR_REMAINDER, "remainder"),
      BIN2(TFR_MAXIMUM, "maximum"),
      BIN2(TFR_MINIMUM, "minimum"),
      BIN2(TFR_POWER, "power"),
      BIN2(TFR_AND, "and"),
      BIN2(TFR_OR, "or"),
      BIN2(TFR_XOR, "xor"),
      BIN2(TFR_SHIFT_LEFT, "shift_left"),
      BIN2(TFR_SHIFT_RIGHT_LOGICAL, "shift_right_logical"),
      BIN2(TFR_SHIFT_RIGHT_ARITHMETIC, "shift_right_arithmetic"),
  };
  i64_check_all(cases, (int)(sizeof cases / sizeof cases[0]));
}

static void test_unary(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  static const i64_case cases[] = {
      {F_UNARY, TFR_NEGATE, TFR_I64, "negate i64"}, {F_UNARY, TFR_NEGATE, TFR_U64, "negate u64"},
      {F_UNARY, TFR_ABS, TFR_I64, "abs i64"},       {F_UNARY, TFR_SIGN, TFR_I64, "sign i64"},
      {F_UNARY, TFR_NOT, TFR_I64, "not i64"},       {F_UNARY, TFR_NOT, TFR_U64, "not u64"},
      {F_UNARY, TFR_POPCNT, TFR_I64, "popcnt i64"}, {F_UNARY, TFR_POPCNT, TFR_U64, "popcnt u64"},
      {F_UNARY, TFR_CONJ, TFR_I64, "conj i64"},     {F_UNARY, TFR_CONJ, TFR_U64, "conj u64"},
  };
  i64_check_all(cases, (int)(sizeof cases / sizeof cases[0]));
}

static void test_compare_select_clamp(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  static const i64_case cases[] = {
      {F_COMPARE, TFR_EQ, TFR_I64, "compare EQ i64"}, {F_COMPARE, TFR_NE, TFR_I64, "compare NE i64"},
      {F_COMPARE, TFR_LT, TFR_I64, "compare LT i64"}, {F_COMPARE, TFR_LE, TFR_I64, "compare LE i64"},
      {F_COMPARE, TFR_GT, TFR_I64, "compare GT i64"}, {F_COMPARE, TFR_GE, TFR_I64, "compare GE i64"},
      {F_COMPARE, TFR_EQ, TFR_U64, "compare EQ u64"}, {F_COMPARE, TFR_NE, TFR_U64, "compare NE u64"},
      {F_COMPARE, TFR_LT, TFR_U64, "compare LT u64"}, {F_COMPARE, TFR_LE, TFR_U64, "compare LE u64"},
      {F_COMPARE, TFR_GT, TFR_U64, "compare GT u64"}, {F_COMPARE, TFR_GE, TFR_U64, "compare GE u64"},
      {F_SELECT, 0, TFR_I64, "select i64"},           {F_SELECT, 0, TFR_U64, "select u64"},
      {F_CLAMP, 0, TFR_I64, "clamp i64"},             {F_CLAMP, 0, TFR_U64, "clamp u64"},
  };
  i64_check_all(cases, (int)(sizeof cases / sizeof cases[0]));
}

// convert between i64 / u64 and every dtype webgpu converts among, both ways.
static void test_convert(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  static const tfr_dtype others[] = {TFR_F32, TFR_F64, TFR_I32, TFR_BOOL, TFR_C64};
  static const tfr_dtype wide[] = {TFR_I64, TFR_U64};
  i64_case cases[2 * 2 * 5 + 2];
  static char names[2 * 2 * 5 + 2][48];
  int nc = 0;
  for (int w = 0; w < 2; w++) {
    for (int o = 0; o < 5; o++) {
      snprintf(names[nc], sizeof names[nc], "convert %s -> %s", tfr_dtype_name(wide[w]),
               tfr_dtype_name(others[o]));
      cases[nc] = (i64_case){F_CONVERT, (int)others[o], wide[w], names[nc]};
      nc++;
      snprintf(names[nc], sizeof names[nc], "convert %s -> %s", tfr_dtype_name(others[o]),
               tfr_dtype_name(wide[w]));
      cases[nc] = (i64_case){F_CONVERT, (int)wide[w], others[o], names[nc]};
      nc++;
    }
    snprintf(names[nc], sizeof names[nc], "convert %s -> %s", tfr_dtype_name(wide[w]),
             tfr_dtype_name(wide[1 - w]));
    cases[nc] = (i64_case){F_CONVERT, (int)wide[1 - w], wide[w], names[nc]};
    nc++;
  }
  i64_check_all(cases, nc);
}

// ---------------------------------------------------------------------------
// Views: strided, reversed and broadcast operands
// ---------------------------------------------------------------------------

// Binary ops on views of a [2n] buffer: a every other element, b reversed,
// and b as one element broadcast (stride 0), against the cpu on the same
// views.
static void test_views(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  i64_failures = 0;
  const int64_t n = 20011, n2 = 2 * n;
  uint64_t *a = malloc((size_t)n2 * 8), *b = malloc((size_t)n2 * 8);
  assert_true(a && b);
  i64_operands(n2, false, 4242, a, b);
  static const tfr_binary_op ops[] = {TFR_ADD,      TFR_MULTIPLY,    TFR_DIVIDE,
                                      TFR_REMAINDER, TFR_SHIFT_RIGHT_ARITHMETIC, TFR_MAXIMUM};
  int64_t compared = 0;
  for (int d = 0; d < 2; d++) {
    tfr_dtype dt = d ? TFR_U64 : TFR_I64;
    tfr_tensor *ha = i64_host(dt, n2, a), *hb = i64_host(dt, n2, b);
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
      for (int layout = 0; layout < 2; layout++) {
        tfr_tensor *res[2] = {NULL, NULL};
        for (int pass = 0; pass < 2; pass++) {
          tfr_session *s = tfr_test_begin(pass ? tfr_test_gpu : tfr_test_cpu);
          tfr_tensor *xa = pass ? tfr_test_upload(s, ha) : (tfr_tensor_retain(ha), ha);
          tfr_tensor *xb = pass ? tfr_test_upload(s, hb) : (tfr_tensor_retain(hb), hb);
          int64_t sa = 2, sb = layout ? 0 : -1, ob = layout ? 17 : n2 - 1;
          tfr_tensor *va = NULL, *vb = NULL, *out = NULL;
          TFR_ASSERT_OK(tfr_tensor_view(xa, 1, &n, &sa, 1, &va));
          TFR_ASSERT_OK(tfr_tensor_view(xb, 1, &n, &sb, ob, &vb));
          tfr_status st1 = tfr_binary(s, ops[k], va, vb, &out);
          if (st1) fail_msg("views on %s: %s", pass ? "webgpu" : "cpu", tfr_last_error_message());
          res[pass] = pass ? tfr_test_download(s, out) : (tfr_tensor_retain(out), out);
          tfr_tensor_release(out);
          tfr_tensor_release(va);
          tfr_tensor_release(vb);
          tfr_tensor_release(xa);
          tfr_tensor_release(xb);
          tfr_test_end(s);
        }
        char what[96];
        snprintf(what, sizeof what, "%s %s on %s views", tfr_binary_op_name(ops[k]),
                 tfr_dtype_name(dt), layout ? "strided and broadcast" : "strided and reversed");
        i64_compare(res[0], res[1], NULL, NULL, what, &compared);
        tfr_tensor_release(res[0]);
        tfr_tensor_release(res[1]);
      }
    tfr_tensor_release(ha);
    tfr_tensor_release(hb);
  }
  print_message("  views: %lld values compared\n", (long long)compared);
  free(a), free(b);
  if (i64_failures) fail_msg("%d mismatches (see above)", i64_failures);
}

// ---------------------------------------------------------------------------
// Reductions and iota
// ---------------------------------------------------------------------------

// Every combiner on [rows, cols] over axis 1, axis 0 and both, values raw
// (wrapping sums and products) and small, twice (deterministic), against
// the cpu bit for bit.
static void test_reduce(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  i64_failures = 0;
  static const int64_t shapes[][2] = {{1, 1}, {3, 1000}, {1000, 3}, {1, 100003}, {37, 2049}, {0, 5}};
  static const int64_t ax1[1] = {1}, ax0[1] = {0}, ax01[2] = {0, 1};
  static const int64_t *axes[3] = {ax1, ax0, ax01};
  static const int naxes[3] = {1, 1, 2};
  static const tfr_reduce_combiner combs[] = {TFR_REDUCE_ADD, TFR_REDUCE_MULTIPLY,
                                              TFR_REDUCE_MAXIMUM, TFR_REDUCE_MINIMUM,
                                              TFR_REDUCE_AND, TFR_REDUCE_OR, TFR_REDUCE_XOR};
  int64_t compared = 0;
  for (int d = 0; d < 2; d++) {
    tfr_dtype dt = d ? TFR_U64 : TFR_I64;
    for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++)
      for (int kind = 0; kind < 2; kind++) {  // raw / small values
        int64_t n = shapes[t][0] * shapes[t][1];
        uint64_t *v = malloc((size_t)(n ? n : 1) * 8);
        assert_non_null(v);
        uint64_t st = 700 + t * 3 + (uint64_t)kind + 100 * (uint64_t)d;
        for (int64_t i = 0; i < n; i++) {
          uint64_t r = tfr_test_rand_u64(&st);
          v[i] = kind ? (uint64_t)((int64_t)(r % 2001) - 1000) : r;
          if (kind == 0 && r % 53 == 0) v[i] = i64_edges[(r >> 8) % I64_NEDGE];
        }
        tfr_tensor *h = tfr_test_tensor(dt, 2, shapes[t], v);
        for (int a = 0; a < 3; a++)
          for (size_t ci = 0; ci < sizeof combs / sizeof combs[0]; ci++) {
            tfr_tensor *want = NULL, *got[2] = {NULL, NULL};
            tfr_session *s = tfr_test_begin(tfr_test_cpu);
            TFR_ASSERT_OK(tfr_reduce(s, h, NULL, combs[ci], naxes[a], axes[a], &want));
            tfr_test_end(s);
            s = tfr_test_begin(tfr_test_gpu);
            tfr_tensor *dv = tfr_test_upload(s, h);
            for (int rep = 0; rep < 2; rep++) {
              tfr_tensor *out = NULL;
              if (tfr_reduce(s, dv, NULL, combs[ci], naxes[a], axes[a], &out))
                fail_msg("reduce on webgpu: %s", tfr_last_error_message());
              got[rep] = tfr_test_download(s, out);
              tfr_tensor_release(out);
            }
            tfr_tensor_release(dv);
            tfr_test_end(s);
            char what[128];
            snprintf(what, sizeof what, "reduce %d %s [%lld, %lld] layout %d values %d", (int)combs[ci],
                     tfr_dtype_name(dt), (long long)shapes[t][0], (long long)shapes[t][1], a, kind);
            i64_compare(want, got[0], NULL, NULL, what, &compared);
            i64_compare(got[0], got[1], NULL, NULL, what, &compared);
            tfr_tensor_release(want);
            tfr_tensor_release(got[0]);
            tfr_tensor_release(got[1]);
          }
        tfr_tensor_release(h);
        free(v);
      }
  }
  // iota along each axis of [3, 70000].
  static const int64_t ishape[2] = {3, 70000};
  for (int d = 0; d < 2; d++)
    for (int dim = 0; dim < 2; dim++) {
      tfr_dtype dt = d ? TFR_U64 : TFR_I64;
      tfr_tensor *want = NULL, *out = NULL, *got = NULL;
      tfr_session *s = tfr_test_begin(tfr_test_cpu);
      TFR_ASSERT_OK(tfr_iota(s, dt, 2, ishape, dim, &want));
      tfr_test_end(s);
      s = tfr_test_begin(tfr_test_gpu);
      if (tfr_iota(s, dt, 2, ishape, dim, &out)) fail_msg("iota on webgpu: %s", tfr_last_error_message());
      got = tfr_test_download(s, out);
      tfr_tensor_release(out);
      tfr_test_end(s);
      i64_compare(want, got, NULL, NULL, "iota", &compared);
      tfr_tensor_release(want);
      tfr_tensor_release(got);
    }
  print_message("  reduce and iota: %lld values compared\n", (long long)compared);
  if (i64_failures) fail_msg("%d mismatches (see above)", i64_failures);
}

// ---------------------------------------------------------------------------
// Fusion
// ---------------------------------------------------------------------------

// A fused plan of i64 arithmetic, shifts, division, compare, select and
// clamp with a u64 part against the cpu's fusion, bit for bit.
static void test_fusion(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  const int64_t ns = (int64_t)I64_NEDGE * I64_NEDGE, n = ns + 30000;
  uint64_t *a = malloc((size_t)n * 8), *b = malloc((size_t)n * 8), *c = malloc((size_t)n * 8);
  assert_true(a && b && c);
  i64_operands(n, true, 31, a, b);
  uint64_t st = 33;
  for (int64_t i = 0; i < n; i++) c[i] = i < ns ? i64_edges[(i * 11) % I64_NEDGE] : tfr_test_rand_u64(&st);
  tfr_tensor *h[4] = {tfr_test_tensor(TFR_I64, 1, &n, a), tfr_test_tensor(TFR_I64, 1, &n, b),
                      tfr_test_tensor(TFR_I64, 1, &n, c), tfr_test_tensor(TFR_U64, 1, &n, b)};
  tfr_fusion_plan *p = NULL;
  TFR_ASSERT_OK(tfr_fusion_plan_create(4, (tfr_dtype[]){TFR_I64, TFR_I64, TFR_I64, TFR_U64}, &p));
  int ab, abc, sh, q, gt, sel, cl, uu, ud;
  TFR_ASSERT_OK(tfr_fusion_plan_binary(p, TFR_MULTIPLY, 0, 1, &ab));
  TFR_ASSERT_OK(tfr_fusion_plan_binary(p, TFR_ADD, ab, 2, &abc));
  TFR_ASSERT_OK(tfr_fusion_plan_binary(p, TFR_SHIFT_RIGHT_ARITHMETIC, abc, 1, &sh));
  TFR_ASSERT_OK(tfr_fusion_plan_binary(p, TFR_DIVIDE, sh, 1, &q));
  TFR_ASSERT_OK(tfr_fusion_plan_compare(p, TFR_GT, q, 0, &gt));
  TFR_ASSERT_OK(tfr_fusion_plan_select(p, gt, q, 0, &sel));
  TFR_ASSERT_OK(tfr_fusion_plan_clamp(p, 1, sel, 2, &cl));
  TFR_ASSERT_OK(tfr_fusion_plan_binary(p, TFR_MULTIPLY, 3, 3, &uu));
  TFR_ASSERT_OK(tfr_fusion_plan_binary(p, TFR_REMAINDER, uu, 3, &ud));
  int outs[5] = {abc, gt, sel, cl, ud};
  for (int o = 0; o < 5; o++) TFR_ASSERT_OK(tfr_fusion_plan_output(p, outs[o]));
  tfr_tensor *want[5] = {NULL}, *got[5] = {NULL};
  tfr_test_fusion_cpu_vs_gpu(p, h, 4, 5, want, got);
  i64_failures = 0;
  int64_t compared = 0;
  static const char *const names[5] = {"fusion a * b + c", "fusion q > a", "fusion select",
                                       "fusion clamp", "fusion u64 (d * d) % d"};
  for (int o = 0; o < 5; o++) {
    i64_compare(want[o], got[o], a, b, names[o], &compared);
    tfr_tensor_release(want[o]);
    tfr_tensor_release(got[o]);
  }
  print_message("  fusion: %lld values compared\n", (long long)compared);
  tfr_fusion_plan_release(p);
  for (int i = 0; i < 4; i++) tfr_tensor_release(h[i]);
  free(a), free(b), free(c);
  if (i64_failures) fail_msg("%d mismatches (see above)", i64_failures);
}

// ---------------------------------------------------------------------------
// dot_general
// ---------------------------------------------------------------------------

// Batched products of raw 64-bit values (wrapping) through transposed and
// reversed views, plain and accumulating (alpha, beta full-range), against
// the cpu bit for bit.
static void test_dot_general(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  static const int64_t shapes[][4] = {{1, 1, 1, 1}, {1, 7, 5, 3},  {1, 33, 17, 64}, {1, 1, 300, 50},
                                      {3, 5, 4, 6}, {4, 9, 8, 31}, {1, 6, 7, 0},    {2, 20, 30, 200}};
  i64_failures = 0;
  int64_t compared = 0;
  for (int d = 0; d < 2; d++) {
    tfr_dtype dt = d ? TFR_U64 : TFR_I64;
    for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++) {
      int64_t nb = shapes[t][0], m = shapes[t][1], n = shapes[t][2], k = shapes[t][3];
      bool tl = t % 2 == 1, rr = t % 3 == 2;
      // lhs [nb, m, k] (stored [nb, k, m] when tl), rhs [nb, k, n].
      int64_t ls[3] = {nb, tl ? k : m, tl ? m : k}, rs[3] = {nb, k, n}, os[3] = {nb, m, n};
      int64_t nl = nb * m * k, nr = nb * k * n, no = nb * m * n;
      uint64_t *lv = malloc((size_t)(nl + 1) * 8), *rv = malloc((size_t)(nr + 1) * 8),
               *iv = malloc((size_t)(no + 1) * 8);
      assert_true(lv && rv && iv);
      uint64_t st = 3100 + t + 50 * (uint64_t)d;
      uint64_t unused;
      for (int64_t i = 0; i < nl; i++) i64_random_pair(&st, i, &lv[i], &unused);
      for (int64_t i = 0; i < nr; i++) i64_random_pair(&st, i + 3, &rv[i], &unused);
      for (int64_t i = 0; i < no; i++) iv[i] = tfr_test_rand_u64(&st);
      tfr_tensor *hl = tfr_test_tensor(dt, 3, ls, lv), *hr = tfr_test_tensor(dt, 3, rs, rv);
      tfr_tensor *hi = tfr_test_tensor(dt, 3, os, iv);
      int64_t lb = ls[1] * ls[2], lm = tl ? 1 : k, lk = tl ? m : 1;
      int64_t rn = rr ? -1 : 1, roff = rr ? n - 1 : 0;
      int64_t bd = 0, lc = 2, rc = 1;
      tfr_dot_config cfg = {1, &bd, &bd, 1, &lc, &rc, false, false};
      uint64_t alpha = UINT64_C(0x9e3779b97f4a7c15), beta = (uint64_t)-3;
      tfr_tensor *res[2][2] = {{NULL, NULL}, {NULL, NULL}};
      for (int pass = 0; pass < 2; pass++) {
        tfr_session *s = tfr_test_begin(pass ? tfr_test_gpu : tfr_test_cpu);
        tfr_tensor *l = pass ? tfr_test_upload(s, hl) : (tfr_tensor_retain(hl), hl);
        tfr_tensor *r = pass ? tfr_test_upload(s, hr) : (tfr_tensor_retain(hr), hr);
        tfr_tensor *acc = pass ? tfr_test_upload(s, hi) : NULL;
        if (!pass) TFR_ASSERT_OK(tfr_tensor_from_host(dt, 3, os, iv, &acc));
        tfr_tensor *lview = NULL, *rview = NULL, *out = NULL;
        int64_t lshape[3] = {nb, m, k}, lst[3] = {lb, lm, lk};
        int64_t rshape[3] = {nb, k, n}, rst[3] = {k * n, n, rn};
        TFR_ASSERT_OK(tfr_tensor_view(l, 3, lshape, lst, 0, &lview));
        TFR_ASSERT_OK(tfr_tensor_view(r, 3, rshape, rst, roff, &rview));
        if (tfr_dot_general(s, lview, rview, &cfg, &out) ||
            tfr_dot_general_accumulate(s, lview, rview, &cfg, &alpha, &beta, acc))
          fail_msg("dot %zu on %s: %s", t, pass ? "webgpu" : "cpu", tfr_last_error_message());
        if (pass) {
          res[1][0] = tfr_test_download(s, out);
          res[1][1] = tfr_test_download(s, acc);
          tfr_tensor_release(out);
          tfr_tensor_release(acc);
        } else {
          res[0][0] = out;
          res[0][1] = acc;
        }
        tfr_test_end(s);
        tfr_tensor_release(lview);
        tfr_tensor_release(rview);
        tfr_tensor_release(l);
        tfr_tensor_release(r);
      }
      char what[96];
      snprintf(what, sizeof what, "dot_general %s %zu", tfr_dtype_name(dt), t);
      i64_compare(res[0][0], res[1][0], NULL, NULL, what, &compared);
      snprintf(what, sizeof what, "dot_general_accumulate %s %zu", tfr_dtype_name(dt), t);
      i64_compare(res[0][1], res[1][1], NULL, NULL, what, &compared);
      tfr_tensor *objs[] = {hl, hr, hi, res[0][0], res[0][1], res[1][0], res[1][1]};
      for (int i = 0; i < 7; i++) tfr_tensor_release(objs[i]);
      free(lv), free(rv), free(iv);
    }
  }
  print_message("  dot_general: %lld values compared\n", (long long)compared);
  if (i64_failures) fail_msg("%d mismatches (see above)", i64_failures);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_binary, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_unary, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_compare_select_clamp, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_convert, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_views, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_reduce, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_fusion, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_dot_general, tfr_test_teardown_session),
  };
  return TFR_TEST_RUN_WEBGPU(tests);
}
