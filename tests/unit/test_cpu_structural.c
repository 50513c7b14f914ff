// Tests of the structural ops on the cpu backend (src/core/ops_structural.c,
// src/cpu/structural.c) against naive index-by-index references written
// here, on random non-zero data and every layout.
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

// Reads element `idx` (multi-index) of a host tensor into `dst`.
static void tfr_get(const tfr_tensor *t, const int64_t *idx, void *dst) {
  void *p;
  TFR_ASSERT_OK(tfr_tensor_host_data(t, &p));
  int64_t off = 0;
  for (int k = 0; k < tfr_tensor_rank(t); k++) off += idx[k] * tfr_tensor_strides(t)[k];
  size_t es = tfr_dtype_size(tfr_tensor_dtype(t));
  memcpy(dst, (char *)p + off * (int64_t)es, es);
}

// Advances a row-major multi-index; false after the last one.
static bool tfr_next(int rank, const int64_t *shape, int64_t *idx) {
  for (int k = rank - 1; k >= 0; k--) {
    if (++idx[k] < shape[k]) return true;
    idx[k] = 0;
  }
  return false;
}

// A value rounded to a binary float format with `mbits` stored mantissa
// bits, smallest normal exponent `emin` and largest finite value `max`, in
// long double arithmetic: rintl rounds to nearest even (the default mode).
static long double tfr_ref_round(long double x, int mbits, int emin, long double max) {
  if (x == 0 || isnan(x) || isinf(x)) return x;
  int e = ilogbl(x);
  if (e < emin) e = emin;
  long double r = ldexpl(rintl(ldexpl(x, mbits - e)), e - mbits);
  if (fabsl(r) > max) return copysignl(INFINITY, x);
  return r;
}

// The 16-bit pattern of a value of the format (exact: the value is one of
// it), found from frexp; NaN as the quiet NaN of the sign.
static uint16_t tfr_ref_encode16(long double v, int mbits, int bias) {
  uint16_t sign = signbit(v) ? 0x8000u : 0;
  uint16_t emax = (uint16_t)((0x7fffu >> mbits) << mbits);
  if (isnan(v)) return (uint16_t)(sign | emax | (1u << (mbits - 1)));
  if (isinf(v)) return (uint16_t)(sign | emax);
  if (v == 0) return sign;
  int e;
  long double m = frexpl(fabsl(v), &e);  // v = m 2^e, m in [0.5, 1)
  int be = e - 1 + bias;
  if (be <= 0)  // subnormal: v / 2^(1 - bias - mbits)
    return (uint16_t)(sign | (uint16_t)ldexpl(fabsl(v), bias - 1 + mbits));
  return (uint16_t)(sign | (be << mbits) | ((uint16_t)ldexpl(m, mbits + 1) & ((1u << mbits) - 1)));
}

static long double tfr_ref_decode16(uint16_t h, int mbits, int bias) {
  int e = (h & 0x7fff) >> mbits, emax = 0x7fff >> mbits;
  unsigned m = h & ((1u << mbits) - 1u);
  long double v;
  if (e == emax) v = m ? NAN : INFINITY;
  else if (e == 0) v = ldexpl((long double)m, 1 - bias - mbits);
  else v = ldexpl((long double)(m | (1u << mbits)), e - bias - mbits);
  return (h & 0x8000u) ? -v : v;
}

// The reference conversion of one element (DESIGN.md rules), via long double
// / explicit branches rather than the kernel's macros.
static void tfr_ref_convert(tfr_dtype from, const void *src, tfr_dtype to, void *dst) {
  long double re = 0, im = 0;
  int64_t iv = 0;
  uint64_t uv = 0;  // the integer's bits (unsigned sources: the value)
  bool is_int = false, is_unsigned = false;
  switch (from) {
    case TFR_BOOL: iv = *(const uint8_t *)src; is_int = true; break;
    case TFR_I8: iv = *(const int8_t *)src; is_int = true; break;
    case TFR_I16: iv = *(const int16_t *)src; is_int = true; break;
    case TFR_I32: iv = *(const int32_t *)src; is_int = true; break;
    case TFR_I64: iv = *(const int64_t *)src; is_int = true; break;
    case TFR_U8: uv = *(const uint8_t *)src; is_int = is_unsigned = true; break;
    case TFR_U16: uv = *(const uint16_t *)src; is_int = is_unsigned = true; break;
    case TFR_U32: uv = *(const uint32_t *)src; is_int = is_unsigned = true; break;
    case TFR_U64: uv = *(const uint64_t *)src; is_int = is_unsigned = true; break;
    case TFR_F16: re = tfr_ref_decode16(*(const uint16_t *)src, 10, 15); break;
    case TFR_BF16: re = tfr_ref_decode16(*(const uint16_t *)src, 7, 127); break;
    case TFR_F32: re = *(const float *)src; break;
    case TFR_F64: re = *(const double *)src; break;
    case TFR_C64: re = ((const float *)src)[0]; im = ((const float *)src)[1]; break;
    case TFR_C128: re = ((const double *)src)[0]; im = ((const double *)src)[1]; break;
  }
  if (is_int && !is_unsigned) uv = (uint64_t)iv;
  if (is_int) re = is_unsigned ? (long double)uv : (long double)iv;  // exact (64-bit mantissa)
  const tfr_dtype_info *info = tfr_dtype_get_info(to);
  switch (info->kind) {
    case TFR_KIND_BOOL: *(uint8_t *)dst = re != 0 || im != 0; return;
    case TFR_KIND_INT:
    case TFR_KIND_UINT: {
      unsigned bits = (unsigned)info->size * 8;
      uint64_t v;
      if (is_int) {
        v = uv;  // keep the low bits
      } else {
        long double lo = info->kind == TFR_KIND_INT ? -ldexpl(1, (int)bits - 1) : 0;
        long double hi = info->kind == TFR_KIND_INT ? ldexpl(1, (int)bits - 1) - 1
                                                    : ldexpl(1, (int)bits) - 1;
        long double t = isnan(re) ? 0 : re <= lo ? lo : re >= hi ? hi : truncl(re);
        v = t < 0 ? (uint64_t)(int64_t)t : (uint64_t)t;
      }
      memcpy(dst, &v, info->size);  // the low bytes (little-endian host)
      return;
    }
    case TFR_KIND_FLOAT:
    case TFR_KIND_COMPLEX: break;
  }
  switch (to) {
    case TFR_F16: *(uint16_t *)dst = tfr_ref_encode16(tfr_ref_round(re, 10, -14, 65504), 10, 15); break;
    case TFR_BF16:
      *(uint16_t *)dst = tfr_ref_encode16(tfr_ref_round(re, 7, -126, 0x1.fep127L), 7, 127);
      break;
    case TFR_F32: *(float *)dst = (float)tfr_ref_round(re, 23, -126, FLT_MAX); break;
    case TFR_F64: *(double *)dst = (double)tfr_ref_round(re, 52, -1022, DBL_MAX); break;
    case TFR_C64:
      ((float *)dst)[0] = (float)tfr_ref_round(re, 23, -126, FLT_MAX);
      ((float *)dst)[1] = (float)tfr_ref_round(im, 23, -126, FLT_MAX);
      break;
    case TFR_C128:
      ((double *)dst)[0] = (double)tfr_ref_round(re, 52, -1022, DBL_MAX);
      ((double *)dst)[1] = (double)tfr_ref_round(im, 52, -1022, DBL_MAX);
      break;
    default: break;
  }
}

// Compares a compact result with the reference conversion of `x`, both
// iterated over `x`'s shape.
static void tfr_check_converted(const tfr_tensor *x, const tfr_tensor *y) {
  int r = tfr_tensor_rank(x);
  assert_int_equal(tfr_tensor_rank(y), r);
  if (tfr_tensor_numel(x) == 0) return;
  int64_t idx[TFR_MAX_RANK] = {0};
  do {
    unsigned char a[16], want[16] = {0}, got[16] = {0};
    tfr_get(x, idx, a);
    tfr_ref_convert(tfr_tensor_dtype(x), a, tfr_tensor_dtype(y), want);
    tfr_get(y, idx, got);
    if (memcmp(want, got, tfr_dtype_size(tfr_tensor_dtype(y))) != 0) {
      print_error("convert %s -> %s differs at flat index\n", tfr_dtype_name(tfr_tensor_dtype(x)),
                  tfr_dtype_name(tfr_tensor_dtype(y)));
      fail();
    }
  } while (tfr_next(r, tfr_tensor_shape(x), idx));
}

// Layout variants of a random tensor of `shape`: compact, a step-2 slice of
// a bigger tensor, a reversed view, a transposed view, a broadcast view.
enum { TFR_LAYOUTS = 5 };
static tfr_tensor *tfr_layout(tfr_dtype dt, int layout, uint64_t seed) {
  const int64_t shape[3] = {3, 5, 4};
  tfr_tensor *base = NULL, *v = NULL;
  switch (layout) {
    case 0: return tfr_test_random_tensor(dt, 3, shape, seed);
    case 1:
      base = tfr_test_random_tensor(dt, 3, (int64_t[]){6, 10, 9}, seed);
      TFR_ASSERT_OK(tfr_tensor_view_slice(base, (int64_t[]){0, 1, 0}, (int64_t[]){6, 10, 8},
                                          (int64_t[]){2, 2, 2}, &v));
      break;
    case 2:
      base = tfr_test_random_tensor(dt, 3, shape, seed);
      TFR_ASSERT_OK(tfr_tensor_view_reverse(base, 2, (int64_t[]){0, 2}, &v));
      break;
    case 3:
      base = tfr_test_random_tensor(dt, 3, (int64_t[]){4, 3, 5}, seed);
      TFR_ASSERT_OK(tfr_tensor_view_transpose(base, (int64_t[]){1, 2, 0}, &v));
      break;
    default:
      base = tfr_test_random_tensor(dt, 2, (int64_t[]){3, 4}, seed);
      TFR_ASSERT_OK(tfr_tensor_view_broadcast_in_dim(base, 3, shape, (int64_t[]){0, 2}, &v));
      break;
  }
  tfr_tensor_release(base);
  return v;
}

static void test_convert_all_pairs_all_layouts(void **state) {
  tfr_test_env *env = *state;
  for (int from = 0; from < TFR_DTYPE_COUNT; from++)
    for (int to = 0; to < TFR_DTYPE_COUNT; to++)
      for (int layout = 0; layout < TFR_LAYOUTS; layout++) {
        tfr_tensor *x = tfr_layout((tfr_dtype)from, layout, (uint64_t)(from * 100 + layout));
        tfr_tensor *y = NULL;
        TFR_ASSERT_OK(tfr_convert(env->session, x, (tfr_dtype)to, &y));
        assert_true(tfr_tensor_is_contiguous(y));
        tfr_check_converted(x, y);
        tfr_tensor_release(y);
        tfr_tensor_release(x);
      }
}

static void test_convert_edge_values(void **state) {
  tfr_test_env *env = *state;
  const double vals[] = {NAN, -NAN, INFINITY, -INFINITY, -0.0, 0.0, 0.5, -0.5, 1.5, -1.5,
                         2.5, 2147483647.0, 2147483648.0, -2147483649.0, 1e300, -1e300,
                         9.3e18, -9.3e18, 4.9e-324, 3.4e38, 3.5e38, 16777217.0};
  const int64_t n = sizeof vals / sizeof vals[0];
  tfr_tensor *x = tfr_test_tensor(TFR_F64, 1, &n, vals);
  for (int to = 0; to < TFR_DTYPE_COUNT; to++) {
    tfr_tensor *y = NULL;
    TFR_ASSERT_OK(tfr_convert(env->session, x, (tfr_dtype)to, &y));
    tfr_check_converted(x, y);
    tfr_tensor_release(y);
  }
  // Hand-checked values of the saturating float -> int rule.
  tfr_tensor *y = NULL;
  TFR_ASSERT_OK(tfr_convert(env->session, x, TFR_I32, &y));
  int32_t got[22];
  TFR_ASSERT_OK(tfr_tensor_read(y, got, sizeof got));
  assert_int_equal(got[0], 0);           // NaN
  assert_int_equal(got[2], INT32_MAX);   // +inf
  assert_int_equal(got[3], INT32_MIN);   // -inf
  assert_int_equal(got[8], 1);           // 1.5 toward zero
  assert_int_equal(got[9], -1);
  assert_int_equal(got[12], INT32_MAX);  // 2^31 saturates
  assert_int_equal(got[13], INT32_MIN);
  tfr_tensor_release(y);
  tfr_tensor_release(x);
  // i64 -> f32 rounds once, to nearest even (2^24 + 1 -> 2^24).
  int64_t big[2] = {16777217, INT64_MAX};
  x = tfr_test_tensor(TFR_I64, 1, (int64_t[]){2}, big);
  TFR_ASSERT_OK(tfr_convert(env->session, x, TFR_F32, &y));
  float f[2];
  TFR_ASSERT_OK(tfr_tensor_read(y, f, sizeof f));
  assert_true(f[0] == 16777216.0f);
  assert_true(f[1] == 9223372036854775808.0f);
  tfr_tensor_release(y);
  tfr_tensor_release(x);
  TFR_ASSERT_ERROR(tfr_convert(env->session, x = tfr_test_tensor(TFR_F32, 0, NULL, (float[]){1}),
                               (tfr_dtype)99, &y),
                   TFR_ERR_UNSUPPORTED_DTYPE, "convert", "99");
  tfr_tensor_release(x);
}

// reduce_precision against hand-derived bit patterns (XLA's rule: round the
// mantissa to nearest even, then overflow to inf and flush what is below the
// reduced format's smallest normal to a signed zero; NaN kept).
static void test_reduce_precision(void **state) {
  tfr_test_env *env = *state;
  // f32 to (5, 10), f16's widths: 1 + 2^-11 is a tie -> 1 (even); 1 + 3*2^-11
  // -> 1 + 2^-9 (even upward); 65520 (f16's overflow tie) -> inf; 65519 ->
  // 65504; 2^-15 (an f16 subnormal) -> 0; -2^-14 (smallest normal) kept;
  // -1e-30 -> -0; NaN stays; 11/52 is the identity.
  const float in[] = {1.0f + 0x1p-11f, 1.0f + 0x1p-11f * 3, 65520.0f, 65519.0f, 0x1p-15f,
                      -0x1p-14f, -1e-30f, NAN, 3.0e38f};
  const uint32_t want[] = {0x3f800000u, 0x3f804000u, 0x7f800000u, 0x477fe000u, 0x00000000u,
                           0xb8800000u, 0x80000000u, 0x7fc00000u, 0x7f800000u};
  int64_t n = 9;
  tfr_tensor *x = tfr_test_tensor(TFR_F32, 1, &n, in), *y = NULL;
  TFR_ASSERT_OK(tfr_reduce_precision(env->session, x, 5, 10, &y));
  uint32_t got[9];
  TFR_ASSERT_OK(tfr_tensor_read(y, got, sizeof got));
  for (int i = 0; i < 9; i++) {
    if (i == 7) assert_true((got[i] & 0x7fffffffu) > 0x7f800000u);  // NaN
    else assert_int_equal(got[i], want[i]);
  }
  tfr_tensor_release(y);
  TFR_ASSERT_OK(tfr_reduce_precision(env->session, x, 11, 52, &y));
  TFR_ASSERT_OK(tfr_tensor_read(y, got, sizeof got));
  assert_memory_equal(got, in, sizeof got);
  tfr_tensor_release(y);
  // (8, 7), bf16's widths, on f32: 1 + 2^-8 ties to 1; 1 + 3 * 2^-8 -> 1 + 2^-6;
  // 3.0e38 stays finite (bf16's range); mantissa_bits 0: 1.5 -> 2 (tie to
  // even exponent), NaN -> +inf.
  TFR_ASSERT_OK(tfr_reduce_precision(env->session, x, 8, 7, &y));
  TFR_ASSERT_OK(tfr_tensor_read(y, got, sizeof got));
  assert_int_equal(got[0], 0x3f800000u);
  assert_int_equal(got[8], 0x7f620000u);  // 3.0e38 = 0x7f61b1e6 -> 0x7f620000
  tfr_tensor_release(y);
  tfr_tensor_release(x);
  const float in0[] = {1.5f, 1.25f, NAN, -3.5f};
  n = 4;
  x = tfr_test_tensor(TFR_F32, 1, &n, in0);
  TFR_ASSERT_OK(tfr_reduce_precision(env->session, x, 8, 0, &y));
  TFR_ASSERT_OK(tfr_tensor_read(y, got, 16));
  assert_int_equal(got[0], 0x40000000u);  // 1.5 -> 2
  assert_int_equal(got[1], 0x3f800000u);  // 1.25 -> 1
  assert_int_equal(got[2], 0x7f800000u);  // NaN -> +inf
  assert_int_equal(got[3], 0xc0800000u);  // -3.5 -> -4
  tfr_tensor_release(y);
  tfr_tensor_release(x);
  // f64 to (5, 10) agrees with f16's rounding of the same values (normal
  // range); f16 and bf16 operands: (5, 7) on f16 rounds 10 -> 7 mantissa bits.
  const double d[] = {1.0 + 0x1p-11, 3.14159265358979, -1000.25, 1e-3};
  const uint64_t dwant[] = {0x3ff0000000000000ull, 0x4009200000000000ull, 0xc08f400000000000ull,
                            0x3f50640000000000ull};
  x = tfr_test_tensor(TFR_F64, 1, &n, d);
  TFR_ASSERT_OK(tfr_reduce_precision(env->session, x, 5, 10, &y));
  uint64_t dg[4];
  TFR_ASSERT_OK(tfr_tensor_read(y, dg, sizeof dg));
  for (int i = 0; i < 4; i++) assert_int_equal(dg[i], dwant[i]);
  tfr_tensor_release(y);
  tfr_tensor_release(x);
  const uint16_t h[] = {0x3c01, 0x3c04, 0x3c0c, 0x7bff};  // 1+2^-10, 1+2^-8, 1+3*2^-8, 65504
  const uint16_t hwant[] = {0x3c00, 0x3c00, 0x3c10, 0x7c00};
  x = tfr_test_tensor(TFR_F16, 1, &n, h);
  TFR_ASSERT_OK(tfr_reduce_precision(env->session, x, 5, 7, &y));
  uint16_t hg[4];
  TFR_ASSERT_OK(tfr_tensor_read(y, hg, sizeof hg));
  for (int i = 0; i < 4; i++) assert_int_equal(hg[i], hwant[i]);
  tfr_tensor_release(y);
  // Errors: a non-float operand, exponent_bits < 1, mantissa_bits < 0.
  TFR_ASSERT_ERROR(tfr_reduce_precision(env->session, x, 0, 3, &y), TFR_ERR_INVALID_ARGUMENT,
                   "reduce_precision", "exponent_bits is 0");
  TFR_ASSERT_ERROR(tfr_reduce_precision(env->session, x, 5, -1, &y), TFR_ERR_INVALID_ARGUMENT,
                   "reduce_precision", "mantissa_bits is -1");
  assert_null(y);
  tfr_tensor_release(x);
  x = tfr_test_tensor(TFR_I32, 1, &n, (int32_t[]){1, 2, 3, 4});
  TFR_ASSERT_ERROR(tfr_reduce_precision(env->session, x, 5, 10, &y), TFR_ERR_UNSUPPORTED_DTYPE,
                   "reduce_precision", "i32");
  tfr_tensor_release(x);
}

// Transpose of sizes that exercise the blocked path (and its edges: sizes
// that are not multiples of the tile), against the naive reference.
static void test_transpose_blocked(void **state) {
  tfr_test_env *env = *state;
  const int64_t shapes[][3] = {{1, 300, 257}, {3, 64, 33}, {2, 1000, 17}, {5, 7, 300}};
  for (int dt = 0; dt < TFR_DTYPE_COUNT; dt++)
    for (int s = 0; s < 4; s++) {
      tfr_tensor *x = tfr_test_random_tensor((tfr_dtype)dt, 3, shapes[s], (uint64_t)(7 + s));
      const int64_t perms[3][3] = {{0, 2, 1}, {2, 1, 0}, {1, 2, 0}};
      for (int p = 0; p < 3; p++) {
        tfr_tensor *y = NULL, *v = NULL;
        TFR_ASSERT_OK(tfr_transpose(env->session, x, perms[p], &y));
        TFR_ASSERT_OK(tfr_tensor_view_transpose(x, perms[p], &v));
        assert_true(tfr_tensor_is_contiguous(y));
        tfr_check_converted(v, y);  // same dtype: a plain element comparison
        tfr_tensor_release(v);
        tfr_tensor_release(y);
      }
      tfr_tensor_release(x);
    }
  tfr_tensor *x = tfr_test_random_tensor(TFR_F32, 2, (int64_t[]){2, 3}, 1), *y = NULL;
  TFR_ASSERT_ERROR(tfr_transpose(env->session, x, (int64_t[]){1, 1}, &y), TFR_ERR_INVALID_ARGUMENT,
                   "transpose", "permutation[1] = 1");
  assert_null(y);
  tfr_tensor_release(x);
}

// Transposes of many short axes (the grouped tile copy: no axis long enough
// to tile along; with a long axis among short ones, as batched networks
// have, the output's short inner axes alone), every element size, inputs
// compact and reversed (negative strides), random permutations and
// lm_batch_likelihood_brackets' own, against the naive reference.
static void test_transpose_grouped(void **state) {
  tfr_test_env *env = *state;
  const int64_t small[9] = {3, 2, 3, 3, 2, 3, 3, 2, 3};
  const int64_t threes[12] = {3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3};
  const int64_t batched[5] = {4, 3, 523, 4, 4};
  const int64_t *shapes[3] = {small, threes, batched};
  const int ranks[3] = {9, 12, 5};
  uint64_t rng = 99;
  for (int dt = 0; dt < TFR_DTYPE_COUNT; dt++)
    for (int c = 0; c < 3; c++) {
      int rank = ranks[c];
      if (c == 1 && dt != TFR_F64 && dt != TFR_C128 && dt != TFR_U8) continue;  // 531441 elements
      tfr_tensor *x = tfr_test_random_tensor((tfr_dtype)dt, rank, shapes[c], (uint64_t)(40 + dt));
      for (int trial = 0; trial < 4; trial++) {
        int64_t perm[12];
        for (int k = 0; k < rank; k++) perm[k] = k;
        for (int k = rank - 1; k > 0; k--) {  // Fisher-Yates
          int j = (int)(tfr_test_rand_u64(&rng) % (uint64_t)(k + 1));
          int64_t t = perm[k];
          perm[k] = perm[j];
          perm[j] = t;
        }
        if (c == 2 && trial < 2) memcpy(perm, (int64_t[]){2, 0, 4, 3, 1}, 5 * sizeof(int64_t));
        tfr_tensor *src = x;
        if (trial & 1) {  // reversed along every other axis
          int64_t axes[6];
          int na = 0;
          for (int k = 0; k < rank; k += 2) axes[na++] = k;
          TFR_ASSERT_OK(tfr_tensor_view_reverse(x, na, axes, &src));
        }
        tfr_tensor *y = NULL, *v = NULL;
        TFR_ASSERT_OK(tfr_transpose(env->session, src, perm, &y));
        TFR_ASSERT_OK(tfr_tensor_view_transpose(src, perm, &v));
        assert_true(tfr_tensor_is_contiguous(y));
        tfr_check_converted(v, y);
        tfr_tensor_release(v);
        tfr_tensor_release(y);
        if (src != x) tfr_tensor_release(src);
      }
      tfr_tensor_release(x);
    }
}

static void test_copy_into_and_reshape(void **state) {
  tfr_test_env *env = *state;
  for (int layout = 0; layout < TFR_LAYOUTS; layout++) {
    tfr_tensor *x = tfr_layout(TFR_C128, layout, (uint64_t)layout);
    tfr_tensor *y = NULL;
    TFR_ASSERT_OK(tfr_copy(env->session, x, &y));
    tfr_check_converted(x, y);
    // Reshape: a view of the compact copy, or a copy of the view.
    tfr_tensor *r = NULL;
    TFR_ASSERT_OK(tfr_reshape(env->session, x, 2, (int64_t[]){6, 10}, &r));
    double a[120], b[120];
    TFR_ASSERT_OK(tfr_tensor_read(y, a, sizeof a));
    TFR_ASSERT_OK(tfr_tensor_read(r, b, sizeof b));
    assert_memory_equal(a, b, sizeof a);
    tfr_tensor_release(r);
    // copy_into a reversed view of a fresh tensor.
    tfr_tensor *dst = NULL, *dv = NULL;
    TFR_ASSERT_OK(tfr_tensor_zeros_host(TFR_C128, 3, (int64_t[]){3, 5, 4}, &dst));
    TFR_ASSERT_OK(tfr_tensor_view_reverse(dst, 1, (int64_t[]){1}, &dv));
    TFR_ASSERT_OK(tfr_copy_into(env->session, x, dv));
    tfr_check_converted(x, dv);
    tfr_tensor_release(dv);
    tfr_tensor_release(dst);
    tfr_tensor_release(y);
    tfr_tensor_release(x);
  }
  tfr_tensor *x = tfr_test_random_tensor(TFR_F32, 2, (int64_t[]){4, 4}, 2), *y = NULL;
  tfr_tensor *bc = NULL, *sl = NULL;
  // Output that is a broadcast view: its elements share memory.
  TFR_ASSERT_OK(tfr_tensor_view_broadcast_in_dim(x, 3, (int64_t[]){2, 4, 4}, (int64_t[]){1, 2}, &bc));
  tfr_tensor *z = tfr_test_random_tensor(TFR_F32, 3, (int64_t[]){2, 4, 4}, 3);
  TFR_ASSERT_ERROR(tfr_copy_into(env->session, z, bc), TFR_ERR_INVALID_ARGUMENT, "share memory");
  // Output overlapping the input without being it.
  TFR_ASSERT_OK(tfr_tensor_view_slice(x, (int64_t[]){1, 0}, (int64_t[]){4, 4}, NULL, &sl));
  tfr_tensor *sl2 = NULL;
  TFR_ASSERT_OK(tfr_tensor_view_slice(x, (int64_t[]){0, 0}, (int64_t[]){3, 4}, NULL, &sl2));
  TFR_ASSERT_ERROR(tfr_copy_into(env->session, sl, sl2), TFR_ERR_INVALID_ARGUMENT, "overlaps");
  TFR_ASSERT_OK(tfr_copy_into(env->session, sl, sl));  // exactly in place is allowed
  TFR_ASSERT_ERROR(tfr_copy_into(env->session, x, sl), TFR_ERR_INVALID_ARGUMENT, "[3, 4]", "[4, 4]");
  tfr_tensor *xi = tfr_test_random_tensor(TFR_I32, 2, (int64_t[]){4, 4}, 2);
  TFR_ASSERT_ERROR(tfr_copy_into(env->session, xi, x), TFR_ERR_INVALID_ARGUMENT, "dtype f32",
                   "i32");
  TFR_ASSERT_ERROR(tfr_reshape(env->session, x, 1, (int64_t[]){15}, &y), TFR_ERR_INVALID_ARGUMENT,
                   "15", "16");
  tfr_tensor_release(xi);
  tfr_tensor_release(sl);
  tfr_tensor_release(sl2);
  tfr_tensor_release(z);
  tfr_tensor_release(bc);
  tfr_tensor_release(x);
}

static void test_diagonals(void **state) {
  tfr_test_env *env = *state;
  for (int dt = 0; dt < TFR_DTYPE_COUNT; dt++) {
    // x [4, 3, 5]: diagonal of axes 2 and 0 -> [min(4,5)=4, 3], element
    // [i, j] = x[i, j, i].
    tfr_tensor *x = tfr_test_random_tensor((tfr_dtype)dt, 3, (int64_t[]){4, 3, 5}, (uint64_t)dt);
    tfr_tensor *d = NULL;
    TFR_ASSERT_OK(tfr_extract_diagonal(env->session, x, 2, 0, &d));
    assert_int_equal(tfr_tensor_rank(d), 2);
    assert_int_equal(tfr_tensor_shape(d)[0], 4);
    assert_int_equal(tfr_tensor_shape(d)[1], 3);
    size_t es = tfr_dtype_size((tfr_dtype)dt);
    for (int64_t i = 0; i < 4; i++)
      for (int64_t j = 0; j < 3; j++) {
        unsigned char a[16], b[16];
        tfr_get(d, (int64_t[]){i, j}, a);
        tfr_get(x, (int64_t[]){i, j, i}, b);
        assert_memory_equal(a, b, es);
      }
    // embed_diagonal(d, 0, 2) has shape [4, 3, 4]; extracting (0, 2) gives d
    // back, off-diagonal elements are zero.
    tfr_tensor *e = NULL, *back = NULL;
    TFR_ASSERT_OK(tfr_embed_diagonal(env->session, d, 0, 2, &e));
    assert_int_equal(tfr_tensor_shape(e)[2], 4);
    TFR_ASSERT_OK(tfr_extract_diagonal(env->session, e, 0, 2, &back));
    tfr_check_converted(d, back);
    unsigned char zero[16] = {0}, v[16];
    tfr_get(e, (int64_t[]){1, 2, 3}, v);
    assert_memory_equal(v, zero, es);
    tfr_tensor_release(back);
    tfr_tensor_release(e);
    // axis_b before axis_a: embed_diagonal(d, 1, 0) -> [3, 4, 3], and
    // extract_diagonal(result, 2, 0) == d transposed? element [i, k, j] with
    // i == j is d[k, j].
    TFR_ASSERT_OK(tfr_embed_diagonal(env->session, d, 1, 0, &e));
    assert_int_equal(tfr_tensor_shape(e)[0], 3);
    assert_int_equal(tfr_tensor_shape(e)[1], 4);
    assert_int_equal(tfr_tensor_shape(e)[2], 3);
    for (int64_t i = 0; i < 3; i++)
      for (int64_t k = 0; k < 4; k++)
        for (int64_t j = 0; j < 3; j++) {
          unsigned char a[16], b[16];
          tfr_get(e, (int64_t[]){i, k, j}, a);
          if (i == j) tfr_get(d, (int64_t[]){k, j}, b);
          else memset(b, 0, sizeof b);
          assert_memory_equal(a, b, es);
        }
    tfr_tensor_release(e);
    tfr_tensor_release(d);
    tfr_tensor_release(x);
  }
  tfr_tensor *x = tfr_test_random_tensor(TFR_F64, 2, (int64_t[]){3, 3}, 1), *d = NULL;
  TFR_ASSERT_ERROR(tfr_extract_diagonal(env->session, x, 1, 1, &d), TFR_ERR_INVALID_ARGUMENT,
                   "extract_diagonal", "distinct");
  TFR_ASSERT_ERROR(tfr_extract_diagonal(env->session, x, 0, 2, &d), TFR_ERR_INVALID_ARGUMENT,
                   "rank-2");
  TFR_ASSERT_ERROR(tfr_embed_diagonal(env->session, x, 2, 0, &d), TFR_ERR_INVALID_ARGUMENT,
                   "embed_diagonal", "axis_a 2");
  assert_null(d);
  tfr_tensor_release(x);
}

static void test_tril_triu(void **state) {
  tfr_test_env *env = *state;
  // The extremes: numpy's rule keeps everything or nothing (no overflow).
  const int64_t ks[] = {-5, -1, 0, 1, 2, 7, INT64_MAX, INT64_MAX - 1, INT64_MIN, INT64_MIN + 1};
  for (int layout = 0; layout < TFR_LAYOUTS; layout++) {
    tfr_tensor *x = tfr_layout(TFR_C64, layout, (uint64_t)(layout + 30));  // [3, 5, 4]
    for (int ki = 0; ki < (int)(sizeof ks / sizeof ks[0]); ki++)
      for (int upper = 0; upper < 2; upper++) {
        tfr_tensor *y = NULL;
        if (upper) TFR_ASSERT_OK(tfr_triu(env->session, x, ks[ki], &y));
        else TFR_ASSERT_OK(tfr_tril(env->session, x, ks[ki], &y));
        int64_t idx[3] = {0};
        do {
          float a[2], b[2];
          tfr_get(y, idx, a);
          int64_t diff = idx[2] - idx[1];
          bool keep = upper ? diff >= ks[ki] : diff <= ks[ki];
          if (keep) tfr_get(x, idx, b);
          else b[0] = b[1] = 0;
          assert_memory_equal(a, b, sizeof a);
        } while (tfr_next(3, (int64_t[]){3, 5, 4}, idx));
        tfr_tensor_release(y);
      }
    tfr_tensor_release(x);
  }
  tfr_tensor *v = tfr_test_random_tensor(TFR_F32, 1, (int64_t[]){4}, 1), *y = NULL;
  TFR_ASSERT_ERROR(tfr_tril(env->session, v, 0, &y), TFR_ERR_INVALID_ARGUMENT, "tril", "rank 1");
  tfr_tensor_release(v);
}

static void test_iota(void **state) {
  tfr_test_env *env = *state;
  for (int dt = 0; dt < TFR_DTYPE_COUNT; dt++)
    for (int dim = 0; dim < 3; dim++) {
      const int64_t shape[3] = {3, 4, 5};
      tfr_tensor *y = NULL;
      TFR_ASSERT_OK(tfr_iota(env->session, (tfr_dtype)dt, 3, shape, dim, &y));
      int64_t idx[3] = {0};
      do {
        unsigned char got[16], want[16] = {0};
        int64_t v = idx[dim];
        tfr_ref_convert(TFR_I64, &v, (tfr_dtype)dt, want);
        tfr_get(y, idx, got);
        assert_memory_equal(got, want, tfr_dtype_size((tfr_dtype)dt));
      } while (tfr_next(3, shape, idx));
      tfr_tensor_release(y);
    }
  // A large iota runs the threaded path.
  tfr_tensor *y = NULL;
  TFR_ASSERT_OK(tfr_iota(env->session, TFR_I64, 2, (int64_t[]){300, 301}, 1, &y));
  int64_t *buf = malloc(300 * 301 * sizeof *buf);
  TFR_ASSERT_OK(tfr_tensor_read(y, buf, 300 * 301 * sizeof *buf));
  for (int64_t i = 0; i < 300 * 301; i++) assert_int_equal(buf[i], i % 301);
  free(buf);
  tfr_tensor_release(y);
  TFR_ASSERT_ERROR(tfr_iota(env->session, TFR_F32, 1, (int64_t[]){3}, 1, &y),
                   TFR_ERR_INVALID_ARGUMENT, "iota_dimension 1");
  TFR_ASSERT_ERROR(tfr_iota(env->session, TFR_F32, 0, NULL, 0, &y), TFR_ERR_INVALID_ARGUMENT,
                   "rank");
}

static void test_broadcast_and_empty(void **state) {
  tfr_test_env *env = *state;
  tfr_tensor *x = tfr_test_random_tensor(TFR_I32, 1, (int64_t[]){3}, 5), *y = NULL, *c = NULL;
  TFR_ASSERT_OK(tfr_broadcast_in_dim(env->session, x, 2, (int64_t[]){4, 3}, (int64_t[]){1}, &y));
  assert_int_equal(tfr_tensor_strides(y)[0], 0);
  TFR_ASSERT_OK(tfr_copy(env->session, y, &c));
  int32_t a[3], b[12];
  TFR_ASSERT_OK(tfr_tensor_read(x, a, sizeof a));
  TFR_ASSERT_OK(tfr_tensor_read(c, b, sizeof b));
  for (int i = 0; i < 12; i++) assert_int_equal(b[i], a[i % 3]);
  tfr_tensor_release(c);
  tfr_tensor_release(y);
  // Empty tensors pass through every structural op.
  tfr_tensor *e = tfr_test_tensor(TFR_F64, 3, (int64_t[]){2, 0, 3}, NULL);
  TFR_ASSERT_OK(tfr_transpose(env->session, e, (int64_t[]){2, 0, 1}, &y));
  assert_int_equal(tfr_tensor_numel(y), 0);
  assert_int_equal(tfr_tensor_shape(y)[0], 3);
  tfr_tensor_release(y);
  TFR_ASSERT_OK(tfr_convert(env->session, e, TFR_C64, &y));
  tfr_tensor_release(y);
  TFR_ASSERT_OK(tfr_tril(env->session, e, 0, &y));
  tfr_tensor_release(y);
  TFR_ASSERT_OK(tfr_extract_diagonal(env->session, e, 0, 2, &y));
  assert_int_equal(tfr_tensor_shape(y)[0], 2);
  tfr_tensor_release(y);
  tfr_tensor_release(e);
  // Rank 0.
  tfr_tensor *s = tfr_test_tensor(TFR_C128, 0, NULL, (double[]){1.5, -2});
  TFR_ASSERT_OK(tfr_convert(env->session, s, TFR_I32, &y));
  int32_t v;
  TFR_ASSERT_OK(tfr_tensor_read(y, &v, sizeof v));
  assert_int_equal(v, 1);
  tfr_tensor_release(y);
  TFR_ASSERT_OK(tfr_broadcast_in_dim(env->session, s, 2, (int64_t[]){2, 2}, NULL, &y));
  assert_int_equal(tfr_tensor_numel(y), 4);
  tfr_tensor_release(y);
  tfr_tensor_release(s);
  tfr_tensor_release(x);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_convert_all_pairs_all_layouts),
      cmocka_unit_test(test_convert_edge_values),
      cmocka_unit_test(test_reduce_precision),
      cmocka_unit_test(test_transpose_blocked),
      cmocka_unit_test(test_transpose_grouped),
      cmocka_unit_test(test_copy_into_and_reshape),
      cmocka_unit_test(test_diagonals),
      cmocka_unit_test(test_tril_triu),
      cmocka_unit_test(test_iota),
      cmocka_unit_test(test_broadcast_and_empty),
  };
  return cmocka_run_group_tests(tests, tfr_test_setup_cpu, tfr_test_teardown_cpu);
}
