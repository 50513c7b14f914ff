// f64 on the webgpu backend: IEEE binary64 in software on its bits
// (src/webgpu/kernels/common/f64.wgsl), against the cpu backend bit for bit.
//
// Every exact elementwise op on f64 (add, subtract, multiply, divide,
// remainder, maximum, minimum, next_after, sqrt, rsqrt, negate, abs, sign,
// floor, ceil, both roundings, is_finite, real/imag/conj, the six compares,
// select, clamp) and convert between f64 and f32, i32, bool, c64 run on
//   * every pair of a list of special values (NaN with payloads, signaling
//     NaN, +-inf, +-0, min/max subnormal, min normal, max finite, values
//     around ties, powers of two, integer bounds, halves), and
//   * F64_NRANDOM random operand pairs drawn over the whole exponent range
//     in several families: raw 64-bit patterns (every exponent, NaN
//     payloads), operands of nearby exponents (cancellation and rounding in
//     add/subtract), short significands and half-ulp addends (exact ties),
//     products and quotients near overflow and underflow, subnormal operands,
//     integers and halves up to 2^53 (the roundings),
// in F64_DISPATCHES separate calls each. Results must match the cpu bit for
// bit; any NaN matches any NaN (payloads are not specified: an x86 invalid
// operation gives 0xfff8000000000000, and a compiler may swap the operands of
// a commutative op, so which NaN operand comes back is not either); how many
// NaN results also match in their bits is printed.
//
// fma, which no elementwise op exposes, is checked through dot_general, which
// accumulates each output as a chain of fmas in k order: a batched dot with
// K = 2 and rhs (1, b) gives fma(a1, b, fma(a0, 1, +0)) = fma(a1, b, a0) (but
// for the sign of a zero a0), against the host's correctly rounded fma()
// (glibc) bit for bit.
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "tenferro/webgpu.h"

#define F64_NRANDOM (3 * 40000)  // random pairs per op (beyond the specials' pairs)
#define F64_DISPATCHES 3         // calls the random pairs are split over

static int f64_failures;
#define F64_FAIL(...)          \
  do {                         \
    print_error("MISMATCH: "); \
    print_error(__VA_ARGS__);  \
    print_error("\n");         \
    f64_failures++;            \
  } while (0)


// ---------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------

static const uint64_t f64_specials[] = {
    UINT64_C(0x7ff8000000000000),  // quiet NaN
    UINT64_C(0xfff8000000000000),  // x86's default NaN
    UINT64_C(0x7ff0000000000001),  // signaling NaN
    UINT64_C(0xfff4000000abcdef),  // negative signaling NaN with a payload
    UINT64_C(0x7ff00000deadbeef),
    UINT64_C(0x7ff0000000000000),  // +inf
    UINT64_C(0xfff0000000000000),  // -inf
    UINT64_C(0x0000000000000000),  // +0
    UINT64_C(0x8000000000000000),  // -0
    UINT64_C(0x3ff0000000000000),  // 1
    UINT64_C(0xbff0000000000000),  // -1
    UINT64_C(0x3fe0000000000000),  // 0.5
    UINT64_C(0xbfe0000000000000),  // -0.5
    UINT64_C(0x3ff8000000000000),  // 1.5
    UINT64_C(0x4004000000000000),  // 2.5
    UINT64_C(0xc004000000000000),  // -2.5
    UINT64_C(0x4008000000000000),  // 3
    UINT64_C(0x4010000000000000),  // 4
    UINT64_C(0x0010000000000000),  // DBL_MIN
    UINT64_C(0x8010000000000000),  // -DBL_MIN
    UINT64_C(0x0000000000000001),  // min subnormal
    UINT64_C(0x8000000000000001),
    UINT64_C(0x000fffffffffffff),  // max subnormal
    UINT64_C(0x0008000000000000),  // DBL_MIN / 2
    UINT64_C(0x800aaaaaaaaaaaab),
    UINT64_C(0x7fefffffffffffff),  // DBL_MAX
    UINT64_C(0xffefffffffffffff),
    UINT64_C(0x7fe0000000000000),  // 2^1023
    UINT64_C(0x7fdfffffffffffff),
    UINT64_C(0x0018000000000000),  // 1.5 DBL_MIN
    UINT64_C(0x3ff0000000000001),  // 1 + 2^-52
    UINT64_C(0x3fefffffffffffff),  // 1 - 2^-53
    UINT64_C(0x3ca0000000000000),  // 2^-53: 1 + it is a tie
    UINT64_C(0x3ca8000000000000),  // 3 * 2^-54
    UINT64_C(0xbca0000000000000),
    UINT64_C(0x4330000000000000),  // 2^52
    UINT64_C(0x4330000000000001),  // 2^52 + 1
    UINT64_C(0x432fffffffffffff),  // 2^52 - 0.5
    UINT64_C(0x4340000000000000),  // 2^53
    UINT64_C(0x3fdfffffffffffff),  // 0.49999999999999994
    UINT64_C(0x41dfffffffc00000),  // 2147483647
    UINT64_C(0x41e0000000000000),  // 2147483648
    UINT64_C(0xc1e0000000000000),  // -2147483648
    UINT64_C(0xc1e0000000200000),  // -2147483649
    UINT64_C(0x41dfffffffe00000),  // 2147483647.5
    UINT64_C(0x41efffffffe00000),  // 4294967295
    UINT64_C(0x41f0000000000000),  // 4294967296
    UINT64_C(0x00000000000007e8),  // ~1e-320
    UINT64_C(0x3fb999999999999a),  // 0.1
    UINT64_C(0x4341c37937e08000),  // 1e16
    UINT64_C(0x7e37e43c8800759c),  // 1e300
    UINT64_C(0x01a56e1fc2f8f359),  // 1e-300
    UINT64_C(0x47efffffe0000000),  // FLT_MAX
    UINT64_C(0x47effffff0000000),  // FLT_MAX + half an f32 ulp: rounds to inf in f32
    UINT64_C(0x36a0000000000000),  // 2^-149: the least f32 subnormal
    UINT64_C(0x3690000000000000),  // 2^-150: an f32 tie with 0
    UINT64_C(0x3690000000000001),
};
#define F64_NSPECIAL ((int)(sizeof f64_specials / sizeof f64_specials[0]))

// A random f64 of biased exponent e (clamped to [0, 2046]) and random sign
// and significand.
static uint64_t f64_with_exp(uint64_t *st, int e) {
  if (e < 0) e = 0;
  if (e > 2046) e = 2046;
  uint64_t r = tfr_test_rand_u64(st);
  return (r & (UINT64_C(1) << 63)) | ((uint64_t)e << 52) | (r & ((UINT64_C(1) << 52) - 1));
}

static int f64_exp_of(uint64_t u) { return (int)((u >> 52) & 0x7ff); }

// Random operand pair number i (a: operand 0, b: operand 1) of family
// i % 8 (see the header).
static void f64_random_pair(uint64_t *st, int64_t i, uint64_t *a, uint64_t *b) {
  uint64_t r = tfr_test_rand_u64(st);
  switch (i % 8) {
    case 0:  // raw patterns: every exponent, NaN payloads
    case 1:
      *a = tfr_test_rand_u64(st);
      *b = tfr_test_rand_u64(st);
      break;
    case 2: {  // nearby exponents
      *a = f64_with_exp(st, (int)(r % 2047));
      *b = f64_with_exp(st, f64_exp_of(*a) + (int)((r >> 16) % 121) - 60);
      break;
    }
    case 3: {  // short significands (exact products of 27-bit integers tie) and half-ulp addends
      int ea = (int)(r % 1400) + 300, eb = (int)((r >> 12) % 1400) + 300;
      uint64_t ma = (tfr_test_rand_u64(st) & ((UINT64_C(1) << 26) - 1)) | (UINT64_C(1) << 26);
      uint64_t mb = (tfr_test_rand_u64(st) & ((UINT64_C(1) << 26) - 1)) | (UINT64_C(1) << 26);
      *a = tfr_test_f64_bits(ldexp((double)ma, ea - 1075 + 26)) ^ ((r & 1) << 63);
      if ((r >> 40) & 1) {
        *b = tfr_test_f64_bits(ldexp((double)mb, eb - 1075 + 26)) ^ ((r & 2) << 62);
      } else {  // an odd multiple of half an ulp of a, a few ulps at most
        uint64_t k = 2 * ((r >> 24) % 8) + 1;
        *b = tfr_test_f64_bits(ldexp((double)k, f64_exp_of(*a) - 1075 - 1)) ^ ((r & 4) << 61);
      }
      break;
    }
    case 4: {  // products and quotients near overflow and underflow
      *a = f64_with_exp(st, (int)(r % 2047));
      int ea = f64_exp_of(*a), d = (int)((r >> 16) % 9) - 4;
      int eb;
      switch ((r >> 32) % 4) {
        case 0: eb = 2046 + 1023 - ea + d; break;  // a * b near 2^1024
        case 1: eb = 1023 - ea + 1 - 52 + d * 8; break;  // a * b near the subnormals
        case 2: eb = ea - 1023 + d; break;  // a / b near 2^1024
        default: eb = ea + 1022 + d * 8; break;  // a / b near the subnormals
      }
      *b = f64_with_exp(st, eb);
      break;
    }
    case 5:  // subnormal operands
      *a = f64_with_exp(st, 0) >> (r % 40);
      *b = (r >> 8) & 1 ? f64_with_exp(st, 0) : f64_with_exp(st, (int)((r >> 16) % 2047));
      if ((r >> 9) & 1) {
        uint64_t t = *a;
        *a = *b;
        *b = t;
      }
      break;
    case 6: {  // integers and halves (roundings, conversions)
      int bitsn = (int)(r % 56);
      double v = (double)(tfr_test_rand_u64(st) >> (64 - (bitsn ? bitsn : 1)));
      v += (double)((r >> 8) % 4) * 0.25;
      *a = tfr_test_f64_bits((r >> 12) & 1 ? -v : v);
      *b = f64_with_exp(st, 1023 + (int)((r >> 16) % 64) - 20);
      break;
    }
    default: {  // exponents of f32's range and around its ends (conversions)
      *a = f64_with_exp(st, 1023 - 160 + (int)(r % 290));
      *b = f64_with_exp(st, 1023 + (int)((r >> 16) % 61) - 30);
      break;
    }
  }
}

// Operands of n elements: the first F64_NSPECIAL^2 (or F64_NSPECIAL for
// unary ops) all pairs of specials, then random pairs.
static void f64_operands(int64_t n, bool pairs, uint64_t seed, uint64_t *a, uint64_t *b) {
  uint64_t st = seed;
  int64_t ns = pairs ? (int64_t)F64_NSPECIAL * F64_NSPECIAL : F64_NSPECIAL;
  for (int64_t i = 0; i < n; i++) {
    if (i < ns) {
      a[i] = f64_specials[pairs ? i / F64_NSPECIAL : i];
      b[i] = f64_specials[i % F64_NSPECIAL];
    } else {
      f64_random_pair(&st, i, &a[i], &b[i]);
    }
  }
}

// ---------------------------------------------------------------------------
// Running and comparing
// ---------------------------------------------------------------------------

typedef enum f64_family { F_UNARY, F_BINARY, F_COMPARE, F_SELECT, F_CLAMP, F_CONVERT } f64_family;

typedef struct f64_case {
  f64_family family;
  int op;           // unary/binary op, compare direction, convert: the other dtype
  bool from_f64;    // convert: f64 -> op (else op -> f64)
  const char *name;
} f64_case;

static tfr_status f64_run(const void *ctx, tfr_session *s, tfr_tensor *const *in,
                          tfr_tensor **out) {
  const f64_case *c = ctx;
  switch (c->family) {
    case F_UNARY: return tfr_unary(s, (tfr_unary_op)c->op, in[0], out);
    case F_BINARY: return tfr_binary(s, (tfr_binary_op)c->op, in[0], in[1], out);
    case F_COMPARE: return tfr_compare(s, (tfr_compare_direction)c->op, in[0], in[1], out);
    case F_SELECT: return tfr_select(s, in[2], in[0], in[1], out);
    case F_CLAMP: return tfr_clamp(s, in[1], in[0], in[2], out);
    case F_CONVERT: return tfr_convert(s, in[0], c->from_f64 ? (tfr_dtype)c->op : TFR_F64, out);
  }
  return TFR_ERR_INTERNAL;
}

typedef tfr_test_bit_counts f64_counts;

// Compares cpu and webgpu results bit for bit, any NaN matching any NaN
// (tfr_test_compare_bits).
static void f64_compare(const tfr_tensor *want, const tfr_tensor *got, const uint64_t *a,
                        const uint64_t *b, const char *what, f64_counts *cnt) {
  f64_failures += tfr_test_compare_bits(want, got, a, b, what, cnt);
}

// A host tensor of the values `v` (f64 bits) as dtype `dt`: f64 as they are;
// for convert from another dtype the bits are reinterpreted
// (tfr_test_words_tensor: f32 and i32 the low word, bool bit 0, c64 both
// words as parts).
#define f64_host tfr_test_words_tensor

typedef struct f64_piece_ctx {
  const f64_case *c;
  const uint64_t *a, *b;
  f64_counts *cnt;
  int pieces;
} f64_piece_ctx;

static void f64_piece(void *ctx, const tfr_tensor *want, const tfr_tensor *got, int64_t lo,
                      int piece) {
  const f64_piece_ctx *pc = ctx;
  char what[128];
  snprintf(what, sizeof what, "%s (call %d of %d)", pc->c->name, piece + 1, pc->pieces);
  f64_compare(want, got, pc->a + lo, pc->b + lo, what, pc->cnt);
}

// Runs case c over n operand pairs from `seed` on both backends, the
// webgpu run split into `pieces` calls on consecutive ranges, and compares.
static void f64_check(const f64_case *c, int64_t n, int pieces, uint64_t seed, f64_counts *cnt) {
  uint64_t *a = malloc((size_t)n * 8), *b = malloc((size_t)n * 8), *m = malloc((size_t)n * 8);
  assert_non_null(a);
  assert_non_null(b);
  assert_non_null(m);
  bool pairs = c->family != F_UNARY && c->family != F_CONVERT;
  f64_operands(n, pairs, seed, a, b);
  // Square roots of negative numbers are all the same NaN: half the random
  // operands made positive.
  if (c->family == F_UNARY && (c->op == TFR_SQRT || c->op == TFR_RSQRT))
    for (int64_t i = F64_NSPECIAL; i < n; i += 2) a[i] &= ~(UINT64_C(1) << 63);
  uint64_t st = seed ^ 0x5555;
  for (int64_t i = 0; i < n; i++) m[i] = tfr_test_rand_u64(&st);
  tfr_dtype in_dt[3] = {TFR_F64, TFR_F64, TFR_F64};
  int nin = 1;
  switch (c->family) {
    case F_UNARY: nin = 1; break;
    case F_BINARY:
    case F_COMPARE: nin = 2; break;
    case F_SELECT: nin = 3, in_dt[2] = TFR_BOOL; break;
    case F_CLAMP: nin = 3; break;
    case F_CONVERT: nin = 1, in_dt[0] = c->from_f64 ? TFR_F64 : (tfr_dtype)c->op; break;
  }
  // clamp(lo = b, x = a, hi = m): m as a third operand of all kinds.
  const uint64_t *vals[3] = {a, b, m};
  tfr_tensor *host[3] = {NULL, NULL, NULL};
  for (int i = 0; i < nin; i++) host[i] = f64_host(in_dt[i], n, vals[i]);
  f64_piece_ctx pc = {c, a, b, cnt, pieces};
  char err[512];
  tfr_status st1 = tfr_test_cpu_vs_gpu(f64_run, c, host, nin, n, pieces, f64_piece, &pc, err,
                                       sizeof err);
  if (st1) F64_FAIL("%s on webgpu: %s: %s", c->name, tfr_status_string(st1), err);
  for (int i = 0; i < nin; i++) tfr_tensor_release(host[i]);
  free(a);
  free(b);
  free(m);
}

static void f64_check_all(const f64_case *cases, int ncases) {
  f64_failures = 0;
  for (int k = 0; k < ncases; k++) {
    const f64_case *c = &cases[k];
    bool pairs = c->family != F_UNARY && c->family != F_CONVERT;
    int64_t ns = pairs ? (int64_t)F64_NSPECIAL * F64_NSPECIAL : F64_NSPECIAL;
    f64_counts cnt = {0};
    f64_check(c, ns + F64_NRANDOM, F64_DISPATCHES, 1000 + (uint64_t)k, &cnt);
    print_message("  %-28s %lld cases (%lld special), %lld NaN results (%lld also in their bits)\n",
                  c->name, (long long)cnt.compared, (long long)ns, (long long)cnt.nan_results,
                  (long long)cnt.nan_bits_equal);
  }
  if (f64_failures) fail_msg("%d mismatches or failed ops (see above)", f64_failures);
}

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

static void test_binary(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  static const f64_case cases[] = {
      {F_BINARY, TFR_ADD, false, "add"},
      {F_BINARY, TFR_SUBTRACT, false, "subtract"},
      {F_BINARY, TFR_MULTIPLY, false, "multiply"},
      {F_BINARY, TFR_DIVIDE, false, "divide"},
      {F_BINARY, TFR_REMAINDER, false, "remainder"},
      {F_BINARY, TFR_MAXIMUM, false, "maximum"},
      {F_BINARY, TFR_MINIMUM, false, "minimum"},
      {F_BINARY, TFR_NEXT_AFTER, false, "next_after"},
  };
  f64_check_all(cases, (int)(sizeof cases / sizeof cases[0]));
}

static void test_unary(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  static const f64_case cases[] = {
      {F_UNARY, TFR_SQRT, false, "sqrt"},
      {F_UNARY, TFR_RSQRT, false, "rsqrt"},
      {F_UNARY, TFR_NEGATE, false, "negate"},
      {F_UNARY, TFR_ABS, false, "abs"},
      {F_UNARY, TFR_SIGN, false, "sign"},
      {F_UNARY, TFR_FLOOR, false, "floor"},
      {F_UNARY, TFR_CEIL, false, "ceil"},
      {F_UNARY, TFR_ROUND_NEAREST_EVEN, false, "round_nearest_even"},
      {F_UNARY, TFR_ROUND_NEAREST_AFZ, false, "round_nearest_afz"},
      {F_UNARY, TFR_IS_FINITE, false, "is_finite"},
      {F_UNARY, TFR_REAL, false, "real"},
      {F_UNARY, TFR_IMAG, false, "imag"},
      {F_UNARY, TFR_CONJ, false, "conj"},
  };
  f64_check_all(cases, (int)(sizeof cases / sizeof cases[0]));
}

static void test_compare_select_clamp(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  static const f64_case cases[] = {
      {F_COMPARE, TFR_EQ, false, "compare EQ"}, {F_COMPARE, TFR_NE, false, "compare NE"},
      {F_COMPARE, TFR_LT, false, "compare LT"}, {F_COMPARE, TFR_LE, false, "compare LE"},
      {F_COMPARE, TFR_GT, false, "compare GT"}, {F_COMPARE, TFR_GE, false, "compare GE"},
      {F_SELECT, 0, false, "select"},          {F_CLAMP, 0, false, "clamp"},
  };
  f64_check_all(cases, (int)(sizeof cases / sizeof cases[0]));
}

// convert from f64 to every dtype webgpu converts to, and back from each:
// f32 sources are random 32-bit patterns (every exponent, subnormals, NaN
// payloads), c64 pairs of them, i32 random words, bool 0/1.
static void test_convert(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  static const f64_case cases[] = {
      {F_CONVERT, TFR_F32, true, "convert f64 -> f32"},
      {F_CONVERT, TFR_I32, true, "convert f64 -> i32"},
      {F_CONVERT, TFR_BOOL, true, "convert f64 -> bool"},
      {F_CONVERT, TFR_C64, true, "convert f64 -> c64"},
      {F_CONVERT, TFR_F32, false, "convert f32 -> f64"},
      {F_CONVERT, TFR_I32, false, "convert i32 -> f64"},
      {F_CONVERT, TFR_BOOL, false, "convert bool -> f64"},
      {F_CONVERT, TFR_C64, false, "convert c64 -> f64"},
  };
  f64_check_all(cases, (int)(sizeof cases / sizeof cases[0]));
}

// ---------------------------------------------------------------------------
// fma and dot_general
// ---------------------------------------------------------------------------

// The host reference of the webgpu f64 dot: acc = +0, then acc = fma(a_k,
// b_k, acc) in k order (glibc's fma is correctly rounded).
static double f64_fma_chain(const double *a, int64_t sa, const double *b, int64_t sb, int64_t k) {
  double acc = 0.0;
  for (int64_t i = 0; i < k; i++) acc = fma(a[i * sa], b[i * sb], acc);
  return acc;
}

// fma(a, b, c) through a batched dot_general with K = 2: lhs [B, 2] = (c, a),
// rhs [B, 2] = (1, b), so out = fma(a, b, fma(c, 1, +0)), in F64_DISPATCHES
// calls; c near -a*b in half the cases (cancellation, exact zeros).
static void test_fma(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  const int64_t ns = (int64_t)F64_NSPECIAL * F64_NSPECIAL, n = ns + F64_NRANDOM;
  uint64_t *a = malloc((size_t)n * 8), *b = malloc((size_t)n * 8);
  double *lhs = malloc((size_t)n * 16), *rhs = malloc((size_t)n * 16), *want = malloc((size_t)n * 8);
  assert_true(a && b && lhs && rhs && want);
  f64_operands(n, true, 77, a, b);
  uint64_t st = 78;
  for (int64_t i = 0; i < n; i++) {
    double x = tfr_test_f64_of(a[i]), y = tfr_test_f64_of(b[i]), c;
    uint64_t r = tfr_test_rand_u64(&st);
    if (i < ns) {
      c = tfr_test_f64_of(f64_specials[(i * 7 + 3) % F64_NSPECIAL]);
    } else {
      switch (r % 5) {
        case 0: c = tfr_test_f64_of(tfr_test_rand_u64(&st)); break;
        case 1: c = -(x * y); break;  // the rounding error of x * y is what is left
        case 2: c = nextafter(-(x * y), (r >> 8) & 1 ? INFINITY : -INFINITY); break;
        case 3: c = tfr_test_f64_of(f64_with_exp(&st, f64_exp_of(a[i]) + f64_exp_of(b[i]) - 1023 +
                                        (int)((r >> 16) % 121) - 60));
                break;
        default: c = tfr_test_f64_of(f64_with_exp(&st, (int)((r >> 16) % 2047))); break;
      }
    }
    lhs[2 * i] = c, lhs[2 * i + 1] = x;
    rhs[2 * i] = 1.0, rhs[2 * i + 1] = y;
    want[i] = f64_fma_chain(&lhs[2 * i], 1, &rhs[2 * i], 1, 2);
  }
  int64_t shape[2] = {n, 2}, bd = 0, cd = 1;
  tfr_dot_config cfg = {1, &bd, &bd, 1, &cd, &cd, false, false};
  tfr_tensor *hl = tfr_test_tensor(TFR_F64, 2, shape, lhs), *hr = tfr_test_tensor(TFR_F64, 2, shape, rhs);
  tfr_tensor *hw = tfr_test_tensor(TFR_F64, 1, &n, want);
  tfr_session *s = tfr_test_begin(tfr_test_gpu);
  tfr_tensor *dl = tfr_test_upload(s, hl), *dr = tfr_test_upload(s, hr);
  f64_failures = 0;
  f64_counts cnt = {0};
  for (int p = 0; p < F64_DISPATCHES; p++) {
    int64_t lo = n * p / F64_DISPATCHES, len = n * (p + 1) / F64_DISPATCHES - lo;
    int64_t vs[2] = {len, 2}, vst[2] = {2, 1}, one = 1;
    tfr_tensor *vl = NULL, *vr = NULL, *out = NULL, *wv = NULL;
    TFR_ASSERT_OK(tfr_tensor_view(dl, 2, vs, vst, 2 * lo, &vl));
    TFR_ASSERT_OK(tfr_tensor_view(dr, 2, vs, vst, 2 * lo, &vr));
    TFR_ASSERT_OK(tfr_dot_general(s, vl, vr, &cfg, &out));
    tfr_tensor *got = tfr_test_download(s, out);
    TFR_ASSERT_OK(tfr_tensor_view(hw, 1, &len, &one, lo, &wv));
    char what[64];
    snprintf(what, sizeof what, "fma (call %d of %d)", p + 1, F64_DISPATCHES);
    f64_compare(wv, got, a + lo, b + lo, what, &cnt);
    tfr_tensor_release(wv);
    tfr_tensor_release(got);
    tfr_tensor_release(out);
    tfr_tensor_release(vl);
    tfr_tensor_release(vr);
  }
  tfr_test_end(s);
  print_message("  %-28s %lld cases (%lld special), %lld NaN results (%lld also in their bits)\n",
                "fma (host fma())", (long long)cnt.compared, (long long)ns,
                (long long)cnt.nan_results, (long long)cnt.nan_bits_equal);
  tfr_tensor *objs[] = {hl, hr, hw, dl, dr};
  for (int i = 0; i < 5; i++) tfr_tensor_release(objs[i]);
  free(a), free(b), free(lhs), free(rhs), free(want);
  if (f64_failures) fail_msg("%d mismatches (see above)", f64_failures);
}

// Random values of moderate size with a few of every sign and magnitude.
static tfr_tensor *f64_random_matrix(int rank, const int64_t *shape, uint64_t seed,
                                     double **values) {
  int64_t n = 1;
  for (int k = 0; k < rank; k++) n *= shape[k];
  double *v = malloc((size_t)(n ? n : 1) * 8);
  assert_non_null(v);
  uint64_t st = seed;
  for (int64_t i = 0; i < n; i++) {
    uint64_t r = tfr_test_rand_u64(&st);
    v[i] = ldexp(tfr_test_rand_uniform(&st, -1.0, 1.0), (int)(r % 41) - 20);
  }
  tfr_tensor *t = tfr_test_tensor(TFR_F64, rank, shape, v);
  *values = v;
  return t;
}

// dot_general on f64 over shapes that take the cpu's GEMM, GEMV and dot
// paths, batches, several contracting axes, transposed and reversed
// operands, K = 0, and the accumulating form: bit for bit against the host's
// fma chain in k order, and within (K + 2) 2^-53 sum |a b| of the cpu (BLAS
// sums in another order).
typedef struct f64_dot_shape {
  int64_t batch, m, n, k;
  bool transpose_lhs, reverse_rhs;
} f64_dot_shape;

static void test_dot_general(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  static const f64_dot_shape shapes[] = {
      {1, 1, 1, 1, false, false},   {1, 7, 5, 3, false, false},   {1, 33, 17, 64, false, false},
      {1, 1, 300, 50, false, false}, {1, 300, 1, 50, true, false}, {1, 64, 64, 1, false, true},
      {3, 5, 4, 6, false, false},    {4, 9, 8, 31, true, true},    {1, 6, 7, 0, false, false},
      {2, 20, 30, 200, false, false},
  };
  f64_failures = 0;
  int64_t checked = 0;
  for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++) {
    const f64_dot_shape *sh = &shapes[t];
    // lhs [batch, m, k] (or [batch, k, m] viewed transposed), rhs [batch, k, n].
    int64_t ls[3] = {sh->batch, sh->transpose_lhs ? sh->k : sh->m, sh->transpose_lhs ? sh->m : sh->k};
    int64_t rs[3] = {sh->batch, sh->k, sh->n};
    double *lv, *rv;
    tfr_tensor *hl = f64_random_matrix(3, ls, 500 + t, &lv), *hr = f64_random_matrix(3, rs, 600 + t, &rv);
    // Strides of the logical lhs [b, m, k] and rhs [b, k, n] in their buffers.
    int64_t lb = ls[1] * ls[2], lm = sh->transpose_lhs ? 1 : sh->k, lk = sh->transpose_lhs ? sh->m : 1;
    int64_t rb = rs[1] * rs[2], rk = sh->n, rn = 1, roff = 0;
    if (sh->reverse_rhs) rn = -1, roff = sh->n - 1;
    int64_t bd = 0, lc = 2, rc = 1;
    tfr_dot_config cfg = {1, &bd, &bd, 1, &lc, &rc, false, false};
    double alpha = 0.75, beta = -1.5;
    tfr_tensor *want[2] = {NULL, NULL}, *got[2] = {NULL, NULL};
    int64_t os[3] = {sh->batch, sh->m, sh->n};
    double *init = NULL;
    tfr_tensor *hinit = f64_random_matrix(3, os, 700 + t, &init);
    for (int pass = 0; pass < 2; pass++) {
      tfr_session *s = tfr_test_begin(pass ? tfr_test_gpu : tfr_test_cpu);
      tfr_tensor *l = pass ? tfr_test_upload(s, hl) : (tfr_tensor_retain(hl), hl);
      tfr_tensor *r = pass ? tfr_test_upload(s, hr) : (tfr_tensor_retain(hr), hr);
      tfr_tensor *lview = NULL, *rview = NULL, *out = NULL, *acc = NULL;
      int64_t lshape[3] = {sh->batch, sh->m, sh->k}, lst[3] = {lb, lm, lk};
      int64_t rshape[3] = {sh->batch, sh->k, sh->n}, rst[3] = {rb, rk, rn};
      TFR_ASSERT_OK(tfr_tensor_view(l, 3, lshape, lst, 0, &lview));
      TFR_ASSERT_OK(tfr_tensor_view(r, 3, rshape, rst, roff, &rview));
      tfr_status st1 = tfr_dot_general(s, lview, rview, &cfg, &out);
      if (st1) fail_msg("dot %zu on %s: %s", t, pass ? "webgpu" : "cpu", tfr_last_error_message());
      acc = pass ? tfr_test_upload(s, hinit) : NULL;
      if (!pass) TFR_ASSERT_OK(tfr_tensor_from_host(TFR_F64, 3, os, init, &acc));
      TFR_ASSERT_OK(tfr_dot_general_accumulate(s, lview, rview, &cfg, &alpha, &beta, acc));
      if (pass) {
        got[0] = tfr_test_download(s, out);
        got[1] = tfr_test_download(s, acc);
        tfr_tensor_release(out);
        tfr_tensor_release(acc);
      } else {
        want[0] = out;
        want[1] = acc;
      }
      tfr_test_end(s);
      tfr_tensor_release(lview);
      tfr_tensor_release(rview);
      tfr_tensor_release(l);
      tfr_tensor_release(r);
    }
    double *g0 = malloc((size_t)(os[0] * os[1] * os[2] + 1) * 8), *g1 = malloc((size_t)(os[0] * os[1] * os[2] + 1) * 8);
    double *w0 = malloc((size_t)(os[0] * os[1] * os[2] + 1) * 8), *w1 = malloc((size_t)(os[0] * os[1] * os[2] + 1) * 8);
    size_t nbytes = (size_t)(os[0] * os[1] * os[2]) * 8;
    TFR_ASSERT_OK(tfr_tensor_read(got[0], g0, nbytes + 8));
    TFR_ASSERT_OK(tfr_tensor_read(got[1], g1, nbytes + 8));
    TFR_ASSERT_OK(tfr_tensor_read(want[0], w0, nbytes + 8));
    TFR_ASSERT_OK(tfr_tensor_read(want[1], w1, nbytes + 8));
    int shown = 0;
    for (int64_t bi = 0; bi < sh->batch; bi++)
      for (int64_t i = 0; i < sh->m; i++)
        for (int64_t j = 0; j < sh->n; j++) {
          int64_t o = (bi * sh->m + i) * sh->n + j;
          const double *ap = lv + bi * lb + i * lm, *bp = rv + bi * rb + roff + j * rn;
          double ref = f64_fma_chain(ap, lk, bp, rk, sh->k);
          double mag = 0.0;
          for (int64_t q = 0; q < sh->k; q++) mag += fabs(ap[q * lk] * bp[q * rk]);
          double tol = (double)(sh->k + 2) * 0x1p-53 * mag;
          double ref_acc = alpha * ref;
          ref_acc = ref_acc + beta * init[o];
          double tol_acc = fabs(alpha) * tol + 0x1p-52 * (fabs(alpha * ref) + fabs(beta * init[o]));
          bool ok = tfr_test_f64_bits(g0[o]) == tfr_test_f64_bits(ref) && tfr_test_f64_bits(g1[o]) == tfr_test_f64_bits(ref_acc) &&
                    fabs(g0[o] - w0[o]) <= 2 * tol && fabs(g1[o] - w1[o]) <= 2 * tol_acc;
          checked += 2;
          if (!ok && ++shown <= 4)
            F64_FAIL("dot %zu [%lld, %lld, %lld] (K = %lld): webgpu %.17g / accumulate %.17g, "
                     "fma chain %.17g / %.17g, cpu %.17g / %.17g (tolerance %.3g)",
                     t, (long long)bi, (long long)i, (long long)j, (long long)sh->k, g0[o], g1[o],
                     ref, ref_acc, w0[o], w1[o], 2 * tol);
        }
    free(g0), free(g1), free(w0), free(w1), free(lv), free(rv), free(init);
    tfr_tensor *objs[] = {hl, hr, hinit, want[0], want[1], got[0], got[1]};
    for (int i = 0; i < 7; i++) tfr_tensor_release(objs[i]);
  }
  print_message("  dot_general: %lld outputs checked\n", (long long)checked);
  if (f64_failures) fail_msg("%d mismatches (see above)", f64_failures);
}

// ---------------------------------------------------------------------------
// Reductions
// ---------------------------------------------------------------------------

// The correctly rounded sum of x[0..n) (Shewchuk's exact partials, as
// Python's math.fsum); the values must not overflow.
static double f64_exact_sum(const double *x, int64_t n) {
  double p[128];
  int np = 0;
  for (int64_t k = 0; k < n; k++) {
    double v = x[k];
    int i = 0;
    for (int j = 0; j < np; j++) {
      double y = p[j];
      if (fabs(v) < fabs(y)) {
        double t = v;
        v = y;
        y = t;
      }
      double hi = v + y, lo = y - (hi - v);
      if (lo != 0.0) p[i++] = lo;
      v = hi;
    }
    np = i;
    assert_true(np < 128);
    p[np++] = v;
  }
  double hi = 0.0, lo = 0.0;
  if (np > 0) {
    hi = p[--np];
    while (np > 0) {
      double v = hi, y = p[--np];
      hi = v + y;
      lo = y - (hi - v);
      if (lo != 0.0) break;
    }
    if (np > 0 && ((lo < 0 && p[np - 1] < 0) || (lo > 0 && p[np - 1] > 0))) {
      double y = lo * 2, v = hi + y;
      if (y == v - hi) hi = v;
    }
  }
  return hi;
}

// The product of x[0..n) in double-double arithmetic (fma's exact product
// errors carried along): relative error about n 2^-104.
static double f64_accurate_product(const double *x, int64_t n) {
  double h = 1.0, l = 0.0;
  for (int64_t k = 0; k < n; k++) {
    double p = h * x[k], e = fma(h, x[k], -p), lo = fma(l, x[k], e);
    h = p + lo;
    l = lo - (h - p);
  }
  return h;
}

// reduce on f64: maximum and minimum bit for bit against the cpu (with NaN,
// infinities and signed zeros among the values); sums within 64 2^-53
// sum |x| of the correctly rounded sum (the webgpu tree: at most 16 + 1 + 8
// additions per pass, two passes here, each correctly rounded) and of the
// cpu's (another pairwise order), exact where every partial sum is (small
// integers: bit for bit), the same bits on a second run; products within
// (n + 1) 2^-53 relative of a double-double product (every multiplication
// adds its relative error whatever the order: over 10^5 factors near 1 both
// backends are some 10^3 ulps away from it, and a few ulps from each other).
static void test_reduce(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  f64_failures = 0;
  // [rows, cols]: reduce over axis 1 (rows layout), axis 0 (lanes), both.
  static const int64_t shapes[][2] = {{1, 1}, {3, 1000}, {1000, 3}, {1, 100003}, {37, 2049}, {0, 5}};
  static const int64_t ax1[1] = {1}, ax0[1] = {0}, ax01[2] = {0, 1};
  static const int64_t *axes[3] = {ax1, ax0, ax01};
  static const int naxes[3] = {1, 1, 2};
  static const tfr_reduce_combiner combs[4] = {TFR_REDUCE_ADD, TFR_REDUCE_MAXIMUM,
                                               TFR_REDUCE_MINIMUM, TFR_REDUCE_MULTIPLY};
  int64_t checked = 0;
  for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++)
    for (int kind = 0; kind < 3; kind++) {  // random / with specials / small integers
      int64_t n = shapes[t][0] * shapes[t][1];
      double *v = malloc((size_t)(n ? n : 1) * 8);
      assert_non_null(v);
      uint64_t st = 900 + t * 3 + (uint64_t)kind;
      for (int64_t i = 0; i < n; i++) {
        uint64_t r = tfr_test_rand_u64(&st);
        if (kind == 2) v[i] = (double)((int64_t)(r % 2001) - 1000);
        else v[i] = ldexp(tfr_test_rand_uniform(&st, -1.0, 1.0), (int)(r % 61) - 30);
        // Specials whose sums cannot overflow (an overflow would depend on the order).
        static const double sp[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0, -0.0, DBL_TRUE_MIN,
                                    -DBL_MIN, 0x1p-1000};
        if (kind == 1 && r % 97 == 0) v[i] = sp[(r >> 8) % (sizeof sp / sizeof sp[0])];
      }
      tfr_tensor *h = tfr_test_tensor(TFR_F64, 2, shapes[t], v);
      // For products: values near 1 (no overflow over 100003 factors).
      double *pv = malloc((size_t)(n ? n : 1) * 8);
      assert_non_null(pv);
      for (int64_t i = 0; i < n; i++) pv[i] = 1.0 + ldexp(v[i], -40);
      tfr_tensor *hp = tfr_test_tensor(TFR_F64, 2, shapes[t], pv);
      for (int a = 0; a < 3; a++)
        for (int ci = 0; ci < 4; ci++) {
          tfr_reduce_combiner cb = combs[ci];
          if (cb == TFR_REDUCE_MULTIPLY && kind != 0) continue;
          const tfr_tensor *x = cb == TFR_REDUCE_MULTIPLY ? hp : h;
          tfr_tensor *want = NULL, *got[2] = {NULL, NULL};
          tfr_session *s = tfr_test_begin(tfr_test_cpu);
          TFR_ASSERT_OK(tfr_reduce(s, x, NULL, cb, naxes[a], axes[a], &want));
          tfr_test_end(s);
          s = tfr_test_begin(tfr_test_gpu);
          tfr_tensor *d = tfr_test_upload(s, x);
          for (int rep = 0; rep < 2; rep++) {
            tfr_tensor *out = NULL;
            tfr_status st1 = tfr_reduce(s, d, NULL, cb, naxes[a], axes[a], &out);
            if (st1) fail_msg("reduce on webgpu: %s", tfr_last_error_message());
            got[rep] = tfr_test_download(s, out);
            tfr_tensor_release(out);
          }
          tfr_tensor_release(d);
          tfr_test_end(s);
          int64_t no = tfr_tensor_numel(want);
          double *w = malloc((size_t)(no + 1) * 8), *g = malloc((size_t)(no + 1) * 8),
                 *g2 = malloc((size_t)(no + 1) * 8);
          TFR_ASSERT_OK(tfr_tensor_read(want, w, (size_t)no * 8 + 8));
          TFR_ASSERT_OK(tfr_tensor_read(got[0], g, (size_t)no * 8 + 8));
          TFR_ASSERT_OK(tfr_tensor_read(got[1], g2, (size_t)no * 8 + 8));
          const double *xv = cb == TFR_REDUCE_MULTIPLY ? pv : v;
          int64_t rows = shapes[t][0], cols = shapes[t][1];
          int64_t m = a == 0 ? cols : a == 1 ? rows : rows * cols;
          double *col = malloc((size_t)(m ? m : 1) * 8);
          assert_non_null(col);
          int shown = 0;
          for (int64_t o = 0; o < no; o++) {
            for (int64_t q = 0; q < m; q++)
              col[q] = a == 0 ? xv[o * cols + q] : a == 1 ? xv[q * cols + o] : xv[q];
            checked++;
            bool ok = memcmp(&g[o], &g2[o], 8) == 0;  // deterministic
            bool nan_w = isnan(w[o]), nan_g = isnan(g[o]);
            if (cb == TFR_REDUCE_MAXIMUM || cb == TFR_REDUCE_MINIMUM || nan_w || nan_g ||
                isinf(w[o])) {
              ok = ok && (tfr_test_f64_bits(w[o]) == tfr_test_f64_bits(g[o]) || (nan_w && nan_g));
            } else if (cb == TFR_REDUCE_ADD) {
              double mag = 0.0;
              for (int64_t q = 0; q < m; q++) mag += fabs(col[q]);
              double exact = f64_exact_sum(col, m), tol = 64 * 0x1p-53 * mag;
              ok = ok && fabs(g[o] - exact) <= tol && fabs(g[o] - w[o]) <= 2 * tol;
              if (kind == 2) ok = ok && tfr_test_f64_bits(g[o]) == tfr_test_f64_bits(w[o]);
            } else {
              double ref = f64_accurate_product(col, m);
              double tol = (double)(m + 1) * 0x1p-53 * fabs(ref);
              ok = ok && fabs(g[o] - ref) <= tol && fabs(w[o] - ref) <= tol;
            }
            if (!ok && ++shown <= 3)
              F64_FAIL("reduce %d (layout %d) of [%lld, %lld] (values %d), output %lld: "
                       "cpu %.17g, webgpu %.17g then %.17g (reference: sum %.17g, product %.17g)",
                       (int)cb, a, (long long)rows, (long long)cols, kind, (long long)o, w[o], g[o],
                       g2[o], f64_exact_sum(col, m), f64_accurate_product(col, m));
          }
          free(col), free(w), free(g), free(g2);
          tfr_tensor_release(want);
          tfr_tensor_release(got[0]);
          tfr_tensor_release(got[1]);
        }
      tfr_tensor_release(h);
      tfr_tensor_release(hp);
      free(v);
      free(pv);
    }
  print_message("  reduce: %lld outputs checked\n", (long long)checked);
  if (f64_failures) fail_msg("%d mismatches (see above)", f64_failures);
}

// A fused plan of f64 arithmetic, compare, select and clamp with an f32 part
// (values of five dtypes in one kernel) against the cpu's fusion, bit for
// bit: a fused plan computes what the ops one by one do.
static void test_fusion(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  const int64_t ns = (int64_t)F64_NSPECIAL * F64_NSPECIAL, n = ns + 20000;
  uint64_t *a = malloc((size_t)n * 8), *b = malloc((size_t)n * 8), *c = malloc((size_t)n * 8);
  assert_true(a && b && c);
  f64_operands(n, true, 31, a, b);
  uint64_t st = 33;
  for (int64_t i = 0; i < n; i++) c[i] = i < ns ? f64_specials[(i * 11) % F64_NSPECIAL] : f64_with_exp(&st, 1023 + (int)(tfr_test_rand_u64(&st) % 41) - 20);
  float *f = malloc((size_t)n * 4);
  assert_non_null(f);
  for (int64_t i = 0; i < n; i++) f[i] = (float)tfr_test_f64_of(b[i]);
  tfr_tensor *h[4] = {tfr_test_tensor(TFR_F64, 1, &n, a), tfr_test_tensor(TFR_F64, 1, &n, b),
                      tfr_test_tensor(TFR_F64, 1, &n, c), tfr_test_tensor(TFR_F32, 1, &n, f)};
  tfr_fusion_plan *p = NULL;
  TFR_ASSERT_OK(tfr_fusion_plan_create(4, (tfr_dtype[]){TFR_F64, TFR_F64, TFR_F64, TFR_F32}, &p));
  int ab, abc, sq, q, gt, sel, cl, ff;
  TFR_ASSERT_OK(tfr_fusion_plan_binary(p, TFR_MULTIPLY, 0, 1, &ab));
  TFR_ASSERT_OK(tfr_fusion_plan_binary(p, TFR_ADD, ab, 2, &abc));
  TFR_ASSERT_OK(tfr_fusion_plan_unary(p, TFR_ABS, abc, &sq));
  TFR_ASSERT_OK(tfr_fusion_plan_unary(p, TFR_SQRT, sq, &sq));
  TFR_ASSERT_OK(tfr_fusion_plan_binary(p, TFR_DIVIDE, sq, 1, &q));
  TFR_ASSERT_OK(tfr_fusion_plan_compare(p, TFR_GT, q, 0, &gt));
  TFR_ASSERT_OK(tfr_fusion_plan_select(p, gt, q, 0, &sel));
  TFR_ASSERT_OK(tfr_fusion_plan_clamp(p, 1, sel, 2, &cl));
  TFR_ASSERT_OK(tfr_fusion_plan_binary(p, TFR_MULTIPLY, 3, 3, &ff));
  int outs[5] = {abc, gt, sel, cl, ff};
  for (int o = 0; o < 5; o++) TFR_ASSERT_OK(tfr_fusion_plan_output(p, outs[o]));
  tfr_tensor *want[5] = {NULL}, *got[5] = {NULL};
  tfr_test_fusion_cpu_vs_gpu(p, h, 4, 5, want, got);
  // The f32 part on a device that flushes f32 subnormals (an NVIDIA GPU; not
  // lavapipe): a product that is subnormal on the cpu is its zero there.
  if (tfr_test_gpu_flushes_subnormals()) tfr_test_flush_subnormals(want[4]);
  f64_failures = 0;
  f64_counts cnt = {0};
  static const char *const names[5] = {"fusion a * b + c", "fusion q > a", "fusion select",
                                       "fusion clamp", "fusion f32 d * d"};
  for (int o = 0; o < 5; o++) {
    f64_compare(want[o], got[o], a, b, names[o], &cnt);
    tfr_tensor_release(want[o]);
    tfr_tensor_release(got[o]);
  }
  print_message("  fusion: %lld values compared\n", (long long)cnt.compared);
  tfr_fusion_plan_release(p);
  for (int i = 0; i < 4; i++) tfr_tensor_release(h[i]);
  free(a), free(b), free(c), free(f);
  if (f64_failures) fail_msg("%d mismatches (see above)", f64_failures);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_convert, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_fma, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_dot_general, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_reduce, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_fusion, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_binary, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_unary, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_compare_select_clamp, tfr_test_teardown_session),
  };
  return TFR_TEST_RUN_WEBGPU(tests);
}
