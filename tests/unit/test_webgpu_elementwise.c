// The webgpu elementwise kernels (src/webgpu/elementwise.c, ew_kernel.c) against the cpu
// backend: every unary, binary, compare, select and clamp op on f32, i32, bool,
// c64 and f64 (its exact ops; test_webgpu_f64.c tests their values in depth), over layouts that take each kernel path (compact with whole
// chunks, compact element by element, broadcast operands, strided views,
// negative strides, rank 0, empty, 10 unmergeable axes, several workgroups),
// on random non-zero values plus special values (NaN, infinities, signed
// zeros, subnormals, INT_MIN, zero divisors, shift counts 0/31/32/-1/100).
// `_into` forms write offset, strided and reversed views (their neighbours
// must stay), in place, and a disjoint view of an input's own storage.
//
// Exact ops must match the cpu bit for bit (any NaN matches any NaN: payloads
// are not specified). Analytic functions (and complex multiply, divide, abs,
// sign) must be within 16 ulp, the webgpu "function" tolerance of the
// conformance table (tools/tenferro/conformance/tolerance.c); its alternative
// bound 4 eps max|expected| is taken per complex element (the larger part),
// not over the tensor, whose special values (FLT_MAX) would make it vacuous.
// The largest ulp distance seen is printed per op. On a device that flushes
// subnormals (the H200; not lavapipe) subnormal operands are zeros for both
// backends and a subnormal result may come back as a zero.
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "tenferro/webgpu.h"
#include "webgpu/wgpu_testing.h"

#define EW_N 1031        // elements of most views: not a multiple of 4
#define EW_NLARGE 49155  // compact: a dozen workgroups of the compact kernel
#define EW_ULP_N 16
#define EW_ULP_T 4.0
// complex power: an error of the logarithm is multiplied by the exponent
// (|b| |log a| up to ~10 on the random inputs), so its parts are held to
// EW_ULP_T_POW eps of the element's larger part instead.
#define EW_ULP_T_POW 64.0

static const tfr_dtype ew_dtypes[] = {TFR_F32, TFR_I32, TFR_BOOL, TFR_C64,
                                      TFR_F64, TFR_I64, TFR_U64};

// Mismatches are counted and the first few of each comparison printed, so
// that one run reports every failing (op, dtype, layout); each test fails at
// its end when any was found.
static int ew_failures;
#define EW_FAIL(...)                   \
  do {                                 \
    print_error("MISMATCH: ");         \
    print_error(__VA_ARGS__);          \
    print_error("\n");                 \
    ew_failures++;                     \
  } while (0)

// ---------------------------------------------------------------------------
// Ops
// ---------------------------------------------------------------------------

typedef enum ew_family { EW_UNARY, EW_BINARY, EW_COMPARE, EW_SELECT, EW_CLAMP } ew_family;

typedef struct ew_case {
  ew_family family;
  int op;
  tfr_dtype dtype;  // of the operands (on_true's for select)
} ew_case;

static int ew_ninputs(const ew_case *c) {
  switch (c->family) {
    case EW_UNARY: return 1;
    case EW_BINARY:
    case EW_COMPARE: return 2;
    default: return 3;
  }
}

static tfr_dtype ew_input_dtype(const ew_case *c, int i) {
  return c->family == EW_SELECT && i == 0 ? TFR_BOOL : c->dtype;
}

static void ew_name(const ew_case *c, char *buf, size_t n) {
  static const char *const dirs[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
  const char *op = "?";
  switch (c->family) {
    case EW_UNARY: op = tfr_unary_op_name((tfr_unary_op)c->op); break;
    case EW_BINARY: op = tfr_binary_op_name((tfr_binary_op)c->op); break;
    case EW_COMPARE: op = dirs[c->op]; break;
    case EW_SELECT: op = "select"; break;
    case EW_CLAMP: op = "clamp"; break;
  }
  snprintf(buf, n, "%s%s %s", c->family == EW_COMPARE ? "compare " : "", op,
           tfr_dtype_name(c->dtype));
}

static tfr_status ew_run(tfr_session *s, const ew_case *c, tfr_tensor *const *in,
                         tfr_tensor **out) {
  switch (c->family) {
    case EW_UNARY: return tfr_unary(s, (tfr_unary_op)c->op, in[0], out);
    case EW_BINARY: return tfr_binary(s, (tfr_binary_op)c->op, in[0], in[1], out);
    case EW_COMPARE:
      return tfr_compare(s, (tfr_compare_direction)c->op, in[0], in[1], out);
    case EW_SELECT: return tfr_select(s, in[0], in[1], in[2], out);
    case EW_CLAMP: return tfr_clamp(s, in[0], in[1], in[2], out);
  }
  return TFR_ERR_INTERNAL;
}

static tfr_status ew_run_into(tfr_session *s, const ew_case *c, tfr_tensor *const *in,
                              tfr_tensor *out) {
  switch (c->family) {
    case EW_UNARY: return tfr_unary_into(s, (tfr_unary_op)c->op, in[0], out);
    case EW_BINARY: return tfr_binary_into(s, (tfr_binary_op)c->op, in[0], in[1], out);
    case EW_COMPARE:
      return tfr_compare_into(s, (tfr_compare_direction)c->op, in[0], in[1], out);
    case EW_SELECT: return tfr_select_into(s, in[0], in[1], in[2], out);
    case EW_CLAMP: return tfr_clamp_into(s, in[0], in[1], in[2], out);
  }
  return TFR_ERR_INTERNAL;
}

// Whether webgpu has the op on f64 and this test checks it: the exact ops
// (common/f64.wgsl); the analytic functions it has (common/math_f64.wgsl)
// are tested by test_webgpu_math_f64.c and test_backend_ops.c.
static bool ew_f64_has(const ew_case *c) {
  if (c->family == EW_UNARY) {
    switch (c->op) {
      case TFR_NEGATE: case TFR_ABS: case TFR_SIGN: case TFR_CONJ: case TFR_FLOOR:
      case TFR_CEIL: case TFR_ROUND_NEAREST_EVEN: case TFR_ROUND_NEAREST_AFZ:
      case TFR_IS_FINITE: case TFR_REAL: case TFR_IMAG: case TFR_SQRT: case TFR_RSQRT:
        return true;
      default: return false;
    }
  }
  if (c->family != EW_BINARY) return true;
  switch (c->op) {
    case TFR_ADD: case TFR_SUBTRACT: case TFR_MULTIPLY: case TFR_DIVIDE: case TFR_REMAINDER:
    case TFR_MAXIMUM: case TFR_MINIMUM: case TFR_NEXT_AFTER:
      return true;
    default: return false;
  }
}

// Analytic functions and the complex ops the conformance table puts in the
// "function" class; everything else is exact (every f64 op webgpu has).
// 0 exact, 1 an analytic function, 2 complex power (ew_compare).
static int ew_is_function(const ew_case *c) {
  if (c->dtype == TFR_F64 || c->dtype == TFR_I64 || c->dtype == TFR_U64) return 0;
  if (c->family == EW_UNARY) {
    switch (c->op) {
      case TFR_NEGATE: case TFR_CONJ: case TFR_NOT: case TFR_FLOOR: case TFR_CEIL:
      case TFR_ROUND_NEAREST_EVEN: case TFR_ROUND_NEAREST_AFZ: case TFR_IS_FINITE:
      case TFR_REAL: case TFR_IMAG: case TFR_POPCNT:
        return 0;
      case TFR_ABS: case TFR_SIGN:
        return c->dtype == TFR_C64;
      default: return 1;
    }
  }
  if (c->family != EW_BINARY) return 0;
  switch (c->op) {
    case TFR_POWER: return c->dtype == TFR_C64 ? 2 : c->dtype != TFR_I32;
    case TFR_ATAN2: return c->dtype != TFR_I32;
    case TFR_MULTIPLY: case TFR_DIVIDE: return c->dtype == TFR_C64;
    default: return 0;
  }
}

// ---------------------------------------------------------------------------
// Values: special ones first (all pairs of them across operands 0 and 1),
// then random non-zero ones.
// ---------------------------------------------------------------------------

static float ew_f32_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

#define EW_NF32 30
static float ew_f32_special(int i) {
  const float v[EW_NF32] = {
      NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f,
      1.5f, 2.5f, -2.5f, 3.0f, FLT_MIN, -FLT_MIN, FLT_TRUE_MIN, -FLT_TRUE_MIN,
      ew_f32_bits(0x007fffffu), 1e-40f, FLT_MAX, -FLT_MAX, 1e30f, 1e-30f, 8388607.5f,
      0.49999997f, 100.0f, -100.0f, 0.1f, ew_f32_bits(0x7fc12345u)};
  return v[i];
}

#define EW_NI32 22
static int32_t ew_i32_special(int i) {
  const int32_t v[EW_NI32] = {0,   1,    -1,      2,     -2,     3,         7,
                              -7,  31,   32,      33,    -32,    100,       -100,
                              INT32_MIN, INT32_MAX, INT32_MIN + 1, 65536, 46341, -46341,
                              30,  -31};
  return v[i];
}

#define EW_NPART 12
#define EW_NC64 30
static void ew_c64_special(int i, float out[2]) {
  const float p[EW_NPART] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1.0f,
                             -1.0f, 0.5f, 2.5f, FLT_MAX, 1e-40f, 1e-30f};
  out[0] = p[i % EW_NPART];
  out[1] = p[(i * 5 + i / EW_NPART) % EW_NPART];
}

#define EW_NF64 24
static double ew_f64_special(int i) {
  const double v[EW_NF64] = {NAN, -NAN, INFINITY, -INFINITY, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5,
                             2.5, -2.5, DBL_MIN, -DBL_MIN, DBL_TRUE_MIN, -DBL_TRUE_MIN, 1e-310,
                             DBL_MAX, -DBL_MAX, 0x1p-53, 1.0 + 0x1p-52, 4503599627370495.5,
                             1e300, 0.1};
  return v[i];
}

static int ew_nspecial(tfr_dtype dt) {
  switch (dt) {
    case TFR_F32: return EW_NF32;
    case TFR_F64: return EW_NF64;
    case TFR_I32: return EW_NI32;
    case TFR_C64: return EW_NC64;
    default: return 2;
  }
}

// Value k (0..ns-1) of the special list into p.
static void ew_put_special(tfr_dtype dt, int k, unsigned char *p) {
  switch (dt) {
    case TFR_F32: {
      float v = ew_f32_special(k);
      memcpy(p, &v, 4);
      break;
    }
    case TFR_I32: {
      int32_t v = ew_i32_special(k);
      memcpy(p, &v, 4);
      break;
    }
    case TFR_C64: ew_c64_special(k, (float *)(void *)p); break;
    case TFR_F64: {
      double v = ew_f64_special(k);
      memcpy(p, &v, 8);
      break;
    }
    default: p[0] = (unsigned char)k; break;
  }
}

// A 1-D host tensor of n elements for operand `which`: element i < ns^2 holds
// special value (i / ns) for operand 0, (i % ns) for operand 1, another mix
// for operand 2; the rest random.
static tfr_tensor *ew_base(tfr_dtype dt, int64_t n, int which, uint64_t seed) {
  tfr_tensor *r = tfr_test_random_tensor(dt, 1, &n, seed * 7 + (uint64_t)which + 1);
  unsigned char *p;
  TFR_ASSERT_OK(tfr_tensor_host_data(r, (void **)&p));
  int ns = ew_nspecial(dt);
  size_t es = tfr_dtype_size(dt);
  for (int64_t i = 0; i < n && i < (int64_t)ns * ns; i++) {
    int k = which == 0 ? (int)(i / ns) : which == 1 ? (int)(i % ns) : (int)((i * 7 + 3) % ns);
    ew_put_special(dt, k, p + (size_t)i * es);
  }
  // A flushing device reads subnormal operands as zeros: both backends get
  // those zeros (the bit-level ops keep subnormals on any device; lavapipe,
  // in CI, keeps them and tests them).
  if (tfr_test_gpu_flushes_subnormals()) tfr_test_flush_subnormals(r);
  return r;
}

// ---------------------------------------------------------------------------
// Layouts: each operand is a view (shape, strides, offset) of a 1-D base.
// ---------------------------------------------------------------------------

typedef struct ew_view {
  int64_t base_n;
  int rank;
  int64_t shape[10];
  int64_t strides[10];
  int64_t offset;
} ew_view;

enum {
  L_COMPACT,       // whole chunks
  L_LARGE,         // whole chunks, many workgroups
  L_OFFSET,        // contiguous from element 1: element by element
  L_SLICE2,        // stride 2
  L_REVERSED,      // stride -1
  L_TRANSPOSED,    // 47 x 23, inputs column-major
  L_BCAST_SCALAR,  // last input: one element, stride 0 (compact kernel)
  L_BCAST_ROW,     // last input: a row broadcast over 29 rows (strided kernel)
  L_MIXED,         // transposed, compact and broadcast inputs together
  L_RANK0,
  L_EMPTY,
  L_HIGH_RANK,     // rank 10, axes reversed: 10 kernel axes (the host loop: test_webgpu.c)
  L_TILE,          // [5,7,8]; last input [7,8] broadcast over axis 0 (compact kernel, tiled)
  L_REPEAT,        // [5,7,8]; last input [7] at offset 1 broadcast over axes 0 and 2
                   // (compact kernel, repeated)
  L_COUNT
};
static const char *const ew_layout_names[L_COUNT] = {
    "compact", "large", "offset", "slice2", "reversed", "transposed",
    "bcast_scalar", "bcast_row", "mixed", "rank0", "empty", "high_rank", "tile", "repeat"};

static ew_view ew_compact_view(int64_t n) {
  ew_view v = {n, 1, {n}, {1}, 0};
  return v;
}

static ew_view ew_layout_view(int layout, int operand, int ninputs) {
  bool last = operand == ninputs - 1 && ninputs > 0;
  ew_view v = ew_compact_view(EW_N);
  switch (layout) {
    case L_LARGE: v = ew_compact_view(EW_NLARGE); break;
    case L_OFFSET: v = (ew_view){EW_N + 1, 1, {EW_N}, {1}, 1}; break;
    case L_SLICE2: v = (ew_view){2 * EW_N, 1, {EW_N}, {2}, 1}; break;
    case L_REVERSED: v = (ew_view){EW_N, 1, {EW_N}, {-1}, EW_N - 1}; break;
    case L_TRANSPOSED: v = (ew_view){47 * 23, 2, {47, 23}, {1, 47}, 0}; break;
    case L_BCAST_SCALAR:
      if (last) v = (ew_view){1, 1, {EW_N}, {0}, 0};
      break;
    case L_BCAST_ROW:
      v = last ? (ew_view){23, 2, {47, 23}, {0, 1}, 0} : (ew_view){47 * 23, 2, {47, 23}, {23, 1}, 0};
      break;
    case L_MIXED:
      if (operand == 0) v = (ew_view){47 * 23, 2, {47, 23}, {1, 47}, 0};
      else if (operand == 1) v = (ew_view){47 * 23, 2, {47, 23}, {23, 1}, 0};
      else v = (ew_view){23, 2, {47, 23}, {0, -1}, 22};
      break;
    case L_TILE:
      v = last ? (ew_view){56, 3, {5, 7, 8}, {0, 8, 1}, 0} : (ew_view){280, 3, {5, 7, 8}, {56, 8, 1}, 0};
      break;
    case L_REPEAT:
      v = last ? (ew_view){8, 3, {5, 7, 8}, {0, 1, 0}, 1} : (ew_view){280, 3, {5, 7, 8}, {56, 8, 1}, 0};
      break;
    case L_RANK0: v = (ew_view){1, 0, {0}, {0}, 0}; break;
    case L_EMPTY: v = (ew_view){1, 2, {3, 0}, {0, 1}, 0}; break;
    case L_HIGH_RANK: {
      // The base is compact [2,3,2,3,...] (10 axes); the view reverses the axis order.
      int64_t shape[10], strides[10], st = 1;
      for (int k = 9; k >= 0; k--) {
        shape[k] = k % 2 ? 3 : 2;
        strides[k] = st;
        st *= shape[k];
      }
      v.base_n = st;
      v.rank = 10;
      v.offset = 0;
      for (int k = 0; k < 10; k++) {
        v.shape[k] = shape[9 - k];
        v.strides[k] = strides[9 - k];
      }
      break;
    }
    default: break;
  }
  return v;
}

// Analytic functions run on the compact kernel and the strided one, in place
// and with a broadcast operand: their kernels (with the math library) compile
// slowly on lavapipe, and the layouts themselves are the exact ops' to test.
// The tiled and repeated layouts test the kernel's access to the broadcast
// input, the same for every op: one op of each family has them.
static bool ew_layout_wanted(const ew_case *c, int layout) {
  if (layout == L_TILE || layout == L_REPEAT)
    return (c->family == EW_UNARY && c->op == TFR_NEGATE) ||
           (c->family == EW_BINARY && c->op == TFR_ADD) ||
           (c->family == EW_COMPARE && c->op == TFR_LT) || c->family == EW_SELECT ||
           c->family == EW_CLAMP;
  if (!ew_is_function(c)) return true;
  return layout == L_COMPACT || layout == L_TRANSPOSED || layout == L_BCAST_SCALAR;
}

static tfr_tensor *ew_make_view(const tfr_tensor *base, const ew_view *v) {
  tfr_tensor *t = NULL;
  TFR_ASSERT_OK(tfr_tensor_view(base, v->rank, v->shape, v->strides, v->offset, &t));
  return t;
}

// ---------------------------------------------------------------------------
// Comparison
// ---------------------------------------------------------------------------

typedef struct ew_stats {
  int64_t max_ulp;   // largest ulp distance seen (function class)
  double abs_floor;  // f32: an absolute error also accepted (tfr_test_abs_floor_f32)
} ew_stats;

static bool ew_is_nan_bits(uint32_t u) { return (u & 0x7fffffffu) > 0x7f800000u; }

// Compares two host tensors of one shape and dtype (row-major contents).
// `function`: 0 exact, 1 an analytic function, 2 complex power (see
// EW_ULP_T_POW).
static void ew_compare(const tfr_tensor *want, const tfr_tensor *got, int function,
                       ew_stats *stats, const char *what) {
  tfr_dtype dt = tfr_tensor_dtype(want);
  assert_int_equal(dt, tfr_tensor_dtype(got));
  assert_int_equal(tfr_tensor_rank(want), tfr_tensor_rank(got));
  int64_t n = tfr_tensor_numel(want);
  assert_int_equal(n, tfr_tensor_numel(got));
  size_t nb = tfr_tensor_nbytes(want);
  unsigned char *a = malloc(nb + 1), *b = malloc(nb + 1);
  assert_non_null(a);
  assert_non_null(b);
  TFR_ASSERT_OK(tfr_tensor_read(want, a, nb + 1));
  TFR_ASSERT_OK(tfr_tensor_read(got, b, nb + 1));
  int shown = 0;
  if (dt == TFR_F64) {  // bit for bit, any NaN matching any NaN
    for (int64_t i = 0; i < n; i++) {
      uint64_t ua, ub;
      memcpy(&ua, a + i * 8, 8);
      memcpy(&ub, b + i * 8, 8);
      bool nan_a = (ua << 1) > (UINT64_C(0x7ff0000000000000) << 1);
      bool nan_b = (ub << 1) > (UINT64_C(0x7ff0000000000000) << 1);
      if (ua == ub || (nan_a && nan_b)) continue;
      if (++shown <= 3)
        EW_FAIL("%s: element %lld: cpu 0x%016llx, webgpu 0x%016llx", what, (long long)i,
                (unsigned long long)ua, (unsigned long long)ub);
    }
  } else if (dt == TFR_BOOL || dt == TFR_I32 || dt == TFR_I64 || dt == TFR_U64) {
    for (int64_t i = 0; i < n; i++) {
      size_t es = tfr_dtype_size(dt);
      if (memcmp(a + i * es, b + i * es, es) != 0) {
        int64_t x = 0, y = 0;  // i32 shown as its unsigned pattern
        memcpy(&x, a + i * es, es);
        memcpy(&y, b + i * es, es);
        if (++shown <= 3)
          EW_FAIL("%s: element %lld: cpu %lld, webgpu %lld", what, (long long)i, (long long)x,
                  (long long)y);
      }
    }
  } else {
    int64_t nf = dt == TFR_C64 ? 2 * n : n;
    const float *fa = (const float *)(void *)a, *fb = (const float *)(void *)b;
    for (int64_t i = 0; i < nf; i++) {
      uint32_t ua, ub;
      memcpy(&ua, &fa[i], 4);
      memcpy(&ub, &fb[i], 4);
      if (ua == ub || (ew_is_nan_bits(ua) && ew_is_nan_bits(ub))) continue;
      int64_t ulp = tfr_test_ulp_f32(fa[i], fb[i]);
      // A flushing device returns a subnormal result as a zero.
      bool ok = tfr_test_gpu_flushes_subnormals() && fpclassify(fa[i]) == FP_SUBNORMAL &&
                fb[i] == 0.0f;
      if (function) {
        // Within EW_ULP_N ulp; a subnormal expected value may come back as
        // zero (flushing devices); a complex part may instead be within
        // EW_ULP_T eps of the element's larger part (a part much smaller
        // than the other carries the other's rounding).
        bool flushed = fpclassify(fa[i]) == FP_SUBNORMAL && fb[i] == 0.0f;
        double m = 0.0;
        if (dt == TFR_C64) {
          const float *e = fa + (i & ~(int64_t)1);
          m = fmax(fabs((double)e[0]), fabs((double)e[1]));
        }
        // C99 Annex G leaves the sign of an infinite part unspecified when
        // the other part is NaN (csin(NaN + inf i) = NaN +- inf i, ...).
        // Likewise when both parts overflowed: their signs are those of the
        // cosine and sine of an angle that, for such arguments, is far
        // beyond 2^24 and rounded differently by each library.
        bool unspecified = false;
        if (dt == TFR_C64 && isinf(fa[i]) && isinf(fb[i])) {
          const float *e = fa + (i & ~(int64_t)1), *g = fb + (i & ~(int64_t)1);
          int other = (int)(1 - (i & 1));
          unspecified = (isnan(e[other]) && isnan(g[other])) ||
                        (isinf(e[other]) && isinf(g[other]));
        }
        double t = function == 2 ? EW_ULP_T_POW : EW_ULP_T;
        ok = ulp <= EW_ULP_N || flushed || unspecified ||
             (dt == TFR_F32 && fabs((double)fa[i] - (double)fb[i]) <= stats->abs_floor) ||
             (dt == TFR_C64 && isfinite(fa[i]) && isfinite(fb[i]) && isfinite(m) &&
              fabs((double)fa[i] - (double)fb[i]) <= t * FLT_EPSILON * m);
        if (ulp != INT64_MAX && ulp > stats->max_ulp && ulp <= EW_ULP_N) stats->max_ulp = ulp;
      }
      if (!ok && ++shown <= 3) {
        const float *ia = dt == TFR_C64 ? fa + (i & ~(int64_t)1) : fa + i;
        EW_FAIL("%s: element %lld%s: cpu %.9g (0x%08x), webgpu %.9g (0x%08x), %lld ulp "
                 "(cpu element %.9g%+.9gi)",
                 what, (long long)(dt == TFR_C64 ? i / 2 : i),
                 dt == TFR_C64 ? (i & 1 ? " imag" : " real") : "", (double)fa[i], ua,
                 (double)fb[i], ub, (long long)ulp, (double)ia[0],
                 dt == TFR_C64 ? (double)ia[1] : 0.0);
      }
    }
  }
  if (shown > 3) EW_FAIL("%s: %d mismatching values in all", what, shown);
  free(a);
  free(b);
}

// ---------------------------------------------------------------------------
// The differential run of one case
// ---------------------------------------------------------------------------

static bool ew_supported_on_cpu(const ew_case *c) {
  tfr_session *s = tfr_test_begin(tfr_test_cpu);
  tfr_tensor *in[3] = {NULL, NULL, NULL}, *out = NULL;
  int64_t one = 1;
  for (int i = 0; i < ew_ninputs(c); i++) in[i] = tfr_test_random_tensor(ew_input_dtype(c, i), 1, &one, 1);
  tfr_status st = ew_run(s, c, in, &out);
  tfr_test_end(s);
  for (int i = 0; i < 3; i++) tfr_tensor_release(in[i]);
  tfr_tensor_release(out);
  if (st != TFR_OK && st != TFR_ERR_UNSUPPORTED_DTYPE)
    fail_msg("cpu: unexpected status %s: %s", tfr_status_string(st), tfr_last_error_message());
  return st == TFR_OK;
}

// Runs every layout of `c` on both backends and compares. False when the
// webgpu backend failed an op (reported).
static bool ew_check_layouts(const ew_case *c, ew_stats *stats) {
  char name[96];
  ew_name(c, name, sizeof name);
  int nin = ew_ninputs(c);
  tfr_tensor *want[L_COUNT] = {NULL}, *got[L_COUNT] = {NULL};
  bool broken = false;
  tfr_tensor *host_base[L_COUNT][3] = {{NULL}};
  for (int l = 0; l < L_COUNT; l++)
    for (int i = 0; i < nin; i++) {
      ew_view v = ew_layout_view(l, i, nin);
      host_base[l][i] = ew_base(ew_input_dtype(c, i), v.base_n, i, (uint64_t)(l + 1));
    }
  for (int pass = 0; pass < 2; pass++) {
    tfr_session *s = tfr_test_begin(pass ? tfr_test_gpu : tfr_test_cpu);
    for (int l = 0; l < L_COUNT; l++) {
      if (!ew_layout_wanted(c, l)) continue;
      tfr_tensor *in[3] = {NULL, NULL, NULL}, *bases[3] = {NULL, NULL, NULL};
      for (int i = 0; i < nin; i++) {
        ew_view v = ew_layout_view(l, i, nin);
        bases[i] = pass ? tfr_test_upload(s, host_base[l][i]) : host_base[l][i];
        in[i] = ew_make_view(bases[i], &v);
      }
      tfr_tensor *out = NULL;
      tfr_status st = ew_run(s, c, in, &out);
      if (st && !pass)
        fail_msg("%s [%s] on cpu: %s: %s", name, ew_layout_names[l], tfr_status_string(st),
                 tfr_last_error_message());
      if (st) {
        EW_FAIL("%s [%s] on webgpu: %s: %s", name, ew_layout_names[l], tfr_status_string(st),
                tfr_last_error_message());
        broken = true;
      } else if (pass) {
        got[l] = tfr_test_download(s, out);
        tfr_tensor_release(out);
      } else {
        want[l] = out;
      }
      for (int i = 0; i < nin; i++) {
        tfr_tensor_release(in[i]);
        if (pass) tfr_tensor_release(bases[i]);
      }
      if (broken) break;
    }
    tfr_test_end(s);
  }
  for (int l = 0; l < L_COUNT; l++) {
    char what[160];
    snprintf(what, sizeof what, "%s [%s]", name, ew_layout_names[l]);
    if (got[l] && want[l]) ew_compare(want[l], got[l], ew_is_function(c), stats, what);
    tfr_tensor_release(want[l]);
    tfr_tensor_release(got[l]);
    for (int i = 0; i < nin; i++) tfr_tensor_release(host_base[l][i]);
  }
  return !broken;
}

// `_into` forms: into an offset view (element-by-element stores), a stride-2
// view, a reversed view (neighbours must keep their values), in place (the
// output is an input of the same dtype), and a disjoint view of that input's
// storage (bound read-write twice).
enum { I_OFFSET, I_STRIDED, I_REVERSED, I_INPLACE, I_DISJOINT, I_COUNT };
static const char *const ew_into_names[I_COUNT] = {"into_offset", "into_strided",
                                                   "into_reversed", "in_place", "into_disjoint"};

static void ew_check_into(const ew_case *c, tfr_dtype out_dt, ew_stats *stats) {
  char name[96];
  ew_name(c, name, sizeof name);
  int nin = ew_ninputs(c);
  int same = -1;  // the first input of the output's dtype
  for (int i = 0; i < nin && same < 0; i++)
    if (ew_input_dtype(c, i) == out_dt) same = i;
  const int64_t n = EW_N, disjoint_at = 1032;  // a chunk boundary for every dtype
  tfr_tensor *host_in[3] = {NULL, NULL, NULL};
  for (int i = 0; i < nin; i++) host_in[i] = ew_base(ew_input_dtype(c, i), n, i, 99);
  tfr_tensor *want[I_COUNT] = {NULL}, *got[I_COUNT] = {NULL};
  for (int pass = 0; pass < 2; pass++) {
    tfr_session *s = tfr_test_begin(pass ? tfr_test_gpu : tfr_test_cpu);
    for (int m = 0; m < I_COUNT; m++) {
      if ((m == I_INPLACE || m == I_DISJOINT) && same < 0) continue;
      if (ew_is_function(c) && m != I_INPLACE) continue;
      tfr_tensor *in[3] = {NULL, NULL, NULL};
      for (int i = 0; i < nin; i++) in[i] = pass ? tfr_test_upload(s, host_in[i]) : (tfr_tensor_retain(host_in[i]), host_in[i]);
      tfr_tensor *obase = NULL, *out = NULL;
      ew_view ov = ew_compact_view(n);
      if (m == I_OFFSET) ov = (ew_view){n + 2, 1, {n}, {1}, 1};
      if (m == I_STRIDED) ov = (ew_view){2 * n + 1, 1, {n}, {2}, 1};
      if (m == I_REVERSED) ov = (ew_view){n, 1, {n}, {-1}, n - 1};
      if (m == I_INPLACE) {
        // A fresh copy of input `same` (never the shared host tensor).
        tfr_tensor *h = ew_base(out_dt, n, same, 99);
        obase = pass ? tfr_test_upload(s, h) : (tfr_tensor_retain(h), h);
        tfr_tensor_release(h);
        tfr_tensor_release(in[same]);
        in[same] = obase;
        tfr_tensor_retain(obase);
        out = obase;
        tfr_tensor_retain(out);
      } else if (m == I_DISJOINT) {
        // Input `same` is elements [0, n) of a storage, the output elements
        // [disjoint_at, disjoint_at + n).
        tfr_tensor *h = ew_base(out_dt, disjoint_at + n, same, 99);
        obase = pass ? tfr_test_upload(s, h) : (tfr_tensor_retain(h), h);
        tfr_tensor_release(h);
        ew_view iv = ew_compact_view(n);
        iv.base_n = disjoint_at + n;
        ew_view dv = {disjoint_at + n, 1, {n}, {1}, disjoint_at};
        tfr_tensor_release(in[same]);
        in[same] = ew_make_view(obase, &iv);
        out = ew_make_view(obase, &dv);
      } else {
        tfr_tensor *h = ew_base(out_dt, ov.base_n, 2, 5);
        obase = pass ? tfr_test_upload(s, h) : (tfr_tensor_retain(h), h);
        tfr_tensor_release(h);
        out = ew_make_view(obase, &ov);
      }
      tfr_status st = ew_run_into(s, c, in, out);
      if (st && !pass)
        fail_msg("%s [%s] on cpu: %s: %s", name, ew_into_names[m], tfr_status_string(st),
                 tfr_last_error_message());
      if (st)
        EW_FAIL("%s [%s] on webgpu: %s: %s", name, ew_into_names[m], tfr_status_string(st),
                tfr_last_error_message());
      else if (pass) {
        got[m] = tfr_test_download(s, obase);
      } else {
        want[m] = obase;
        tfr_tensor_retain(obase);
      }
      tfr_tensor_release(out);
      tfr_tensor_release(obase);
      for (int i = 0; i < nin; i++) tfr_tensor_release(in[i]);
    }
    tfr_test_end(s);
  }
  for (int m = 0; m < I_COUNT; m++) {
    if (!want[m] || !got[m]) {
      tfr_tensor_release(want[m]);
      continue;
    }
    char what[160];
    snprintf(what, sizeof what, "%s [%s] (the whole output storage)", name, ew_into_names[m]);
    ew_compare(want[m], got[m], ew_is_function(c), stats, what);
    tfr_tensor_release(want[m]);
    tfr_tensor_release(got[m]);
  }
  for (int i = 0; i < nin; i++) tfr_tensor_release(host_in[i]);
}

static tfr_dtype ew_out_dtype(const ew_case *c) {
  if (c->family == EW_COMPARE) return TFR_BOOL;
  if (c->family == EW_UNARY && c->op == TFR_IS_FINITE) return TFR_BOOL;
  if (c->family == EW_UNARY && c->dtype == TFR_C64 &&
      (c->op == TFR_ABS || c->op == TFR_REAL || c->op == TFR_IMAG))
    return TFR_F32;
  if (c->family == EW_BINARY && c->op == TFR_COMPLEX) return TFR_C64;
  return c->dtype;
}

// Runs every (op, dtype) of one family that the cpu backend supports.
static void ew_check_family(ew_family f, int nops, bool analytic_only, bool exact_only) {
  int ran = 0;
  ew_failures = 0;
  for (int op = 0; op < nops; op++) {
    for (size_t d = 0; d < sizeof ew_dtypes / sizeof ew_dtypes[0]; d++) {
      ew_case c = {f, op, ew_dtypes[d]};
      if (analytic_only && !ew_is_function(&c)) continue;
      if (exact_only && ew_is_function(&c)) continue;
      if (c.dtype == TFR_F64 && !ew_f64_has(&c)) continue;
      if (!ew_supported_on_cpu(&c)) continue;
      ew_stats stats = {0, f == EW_UNARY ? tfr_test_abs_floor_f32(op) : 0.0};
      int before = ew_failures;
      if (ew_check_layouts(&c, &stats)) ew_check_into(&c, ew_out_dtype(&c), &stats);
      char name[96];
      ew_name(&c, name, sizeof name);
      if (ew_failures > before)
        print_message("  %-28s FAILED\n", name);
      else if (ew_is_function(&c))
        print_message("  %-28s max %lld ulp\n", name, (long long)stats.max_ulp);
      ran++;
    }
  }
  assert_true(ran > 0);
  if (ew_failures) fail_msg("%d mismatches or failed ops (see above)", ew_failures);
}

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

static void test_unary_exact(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  ew_check_family(EW_UNARY, TFR_UNARY_OP_COUNT, false, true);
}

static void test_unary_functions(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  ew_check_family(EW_UNARY, TFR_UNARY_OP_COUNT, true, false);
}

static void test_binary_exact(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  ew_check_family(EW_BINARY, TFR_BINARY_OP_COUNT, false, true);
}

static void test_binary_functions(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  ew_check_family(EW_BINARY, TFR_BINARY_OP_COUNT, true, false);
}

static void test_compare(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  ew_check_family(EW_COMPARE, TFR_GE + 1, false, false);
}

static void test_select_clamp(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  ew_check_family(EW_SELECT, 1, false, false);
  ew_check_family(EW_CLAMP, 1, false, false);
}

// Every dtype has kernels on webgpu; what c128 lacks are the analytic
// functions but exp and log (and f64 the special functions lgamma,
// digamma, erf_inv, bessel_i1e; exp, log, sin, atan, erf, power, ... run:
// test_webgpu_math_f64.c): the error names op, dtype and backend (i64 and
// u64: test_webgpu_i64.c).
static void test_unsupported_dtypes(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  int64_t n = 5;
  tfr_tensor *h64 = tfr_test_random_tensor(TFR_F64, 1, &n, 1);
  tfr_tensor *hi64 = tfr_test_random_tensor(TFR_C128, 1, &n, 2);
  tfr_tensor *hc = tfr_test_random_tensor(TFR_C128, 1, &n, 1);
  tfr_tensor *hb = tfr_test_random_tensor(TFR_BOOL, 1, &n, 1);
  tfr_session *s = tfr_test_begin(tfr_test_gpu);
  tfr_tensor *d = tfr_test_upload(s, h64), *di = tfr_test_upload(s, hi64);
  tfr_tensor *dc = tfr_test_upload(s, hc), *db = tfr_test_upload(s, hb), *y = NULL;
  TFR_ASSERT_ERROR(tfr_unary(s, TFR_LGAMMA, d, &y), TFR_ERR_UNSUPPORTED_DTYPE, "lgamma", "f64",
                   "webgpu", "analytic");
  TFR_ASSERT_ERROR(tfr_unary(s, TFR_DIGAMMA, d, &y), TFR_ERR_UNSUPPORTED_DTYPE, "digamma", "f64",
                   "webgpu");
  TFR_ASSERT_ERROR(tfr_unary(s, TFR_TANH, dc, &y), TFR_ERR_UNSUPPORTED_DTYPE, "tanh", "c128",
                   "webgpu", "analytic");
  TFR_ASSERT_ERROR(tfr_unary(s, TFR_SIN, di, &y), TFR_ERR_UNSUPPORTED_DTYPE, "sine", "c128",
                   "webgpu");
  TFR_ASSERT_ERROR(tfr_power(s, dc, dc, &y), TFR_ERR_UNSUPPORTED_DTYPE, "power", "c128",
                   "webgpu");
  assert_null(y);
  // The session stays usable.
  tfr_tensor *back = tfr_test_download(s, db);
  tfr_test_end(s);
  ew_stats st = {0};
  ew_failures = 0;
  ew_compare(hb, back, 0, &st, "bool tensor after refused ops");
  assert_int_equal(ew_failures, 0);
  tfr_tensor_release(back);
  tfr_tensor_release(d);
  tfr_tensor_release(di);
  tfr_tensor_release(dc);
  tfr_tensor_release(db);
  tfr_tensor_release(h64);
  tfr_tensor_release(hi64);
  tfr_tensor_release(hc);
  tfr_tensor_release(hb);
}

// A repeated op finds its pipeline without compiling anything new.
static void test_pipeline_reuse(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  int64_t n = 100;
  tfr_tensor *h = ew_base(TFR_F32, n, 0, 1);
  tfr_session *s = tfr_test_begin(tfr_test_gpu);
  tfr_tensor *x = tfr_test_upload(s, h);
  tfr_webgpu_stats a, b;
  tfr_tensor *y = NULL;
  TFR_ASSERT_OK(tfr_add(s, x, x, &y));
  tfr_tensor_release(y);
  TFR_ASSERT_OK(tfr_webgpu_get_stats(tfr_test_gpu, &a));
  for (int i = 0; i < 50; i++) {
    TFR_ASSERT_OK(tfr_add(s, x, x, &y));
    tfr_tensor_release(y);
  }
  TFR_ASSERT_OK(tfr_webgpu_get_stats(tfr_test_gpu, &b));
  assert_int_equal(a.pipelines, b.pipelines);
  assert_int_equal(b.dispatches - a.dispatches, 50);
  tfr_test_end(s);
  tfr_tensor_release(x);
  tfr_tensor_release(h);
}

// Exact ops of every operand kind under the rare paths: compact ops split
// into dispatches of 64 elements (as runs longer than the binding limit are),
// and a device limit of 3 workgroups per grid dimension (grids folded into
// 3-D).
static void test_pieces_and_grid_folding(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  static const ew_case cases[] = {{EW_BINARY, TFR_ADD, TFR_F32},
                                  {EW_COMPARE, TFR_LT, TFR_F32},
                                  {EW_SELECT, 0, TFR_I32},
                                  {EW_BINARY, TFR_ADD, TFR_C64},
                                  {EW_UNARY, TFR_NOT, TFR_BOOL}};
  ew_failures = 0;
  ew_stats stats = {0};
  tfr_wgpu_test_ew_piece(tfr_test_gpu, 64);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    if (ew_check_layouts(&cases[i], &stats)) ew_check_into(&cases[i], ew_out_dtype(&cases[i]), &stats);
  }
  tfr_wgpu_test_ew_piece(tfr_test_gpu, 0);
  tfr_backend *folded = NULL, *saved = tfr_test_gpu;
  TFR_ASSERT_OK(tfr_backend_create_webgpu(NULL, &folded));
  tfr_wgpu_test_limits(folded, 3, 0);
  tfr_test_gpu = folded;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    if (ew_check_layouts(&cases[i], &stats)) ew_check_into(&cases[i], ew_out_dtype(&cases[i]), &stats);
  }
  tfr_test_gpu = saved;
  tfr_backend_release(folded);
  if (ew_failures) fail_msg("%d mismatches or failed ops (see above)", ew_failures);
}

// Broadcast inputs compact over a block of axes (a row or a column of an
// outer product, a bias) on every element size, aligned and not, against the
// cpu bit for bit: whole chunks of a tiled row, element by element (an
// offset row, c128), repeated columns, a middle block repeated and tiled at
// once, and shapes the compact kernel leaves to the strided one (a row of 18,
// a column repeated 18 times).
static void test_broadcast_blocks(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  static const tfr_dtype dts[] = {TFR_F32, TFR_C128, TFR_I8, TFR_F16, TFR_BF16, TFR_U16, TFR_F64};
  typedef struct {
    int rank;
    int64_t shape[3];
    ew_view a, b;
  } block_case;
  static const block_case cases[] = {
      {2, {33, 20}, {33, 2, {33, 20}, {1, 0}, 0}, {20, 2, {33, 20}, {0, 1}, 0}},
      {2, {33, 20}, {36, 2, {33, 20}, {1, 0}, 3}, {21, 2, {33, 20}, {0, 1}, 1}},
      {2, {33, 18}, {33, 2, {33, 18}, {1, 0}, 0}, {18, 2, {33, 18}, {0, 1}, 0}},
      {3, {3, 5, 12}, {180, 3, {3, 5, 12}, {60, 12, 1}, 0}, {6, 3, {3, 5, 12}, {0, 1, 0}, 1}},
      {3, {3, 5, 12}, {61, 3, {3, 5, 12}, {0, 12, 1}, 1}, {180, 3, {3, 5, 12}, {60, 12, 1}, 0}},
  };
  int bad = 0;
  for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
      const block_case *c = &cases[k];
      tfr_tensor *ha = tfr_test_random_tensor(dts[d], 1, &c->a.base_n, 10 + k);
      tfr_tensor *hb = tfr_test_random_tensor(dts[d], 1, &c->b.base_n, 20 + k);
      tfr_tensor *res[2] = {NULL, NULL};
      for (int pass = 0; pass < 2; pass++) {
        tfr_session *s = tfr_test_begin(pass ? tfr_test_gpu : tfr_test_cpu);
        tfr_tensor *ba = pass ? tfr_test_upload(s, ha) : (tfr_tensor_retain(ha), ha);
        tfr_tensor *bb = pass ? tfr_test_upload(s, hb) : (tfr_tensor_retain(hb), hb);
        tfr_tensor *va = ew_make_view(ba, &c->a), *vb = ew_make_view(bb, &c->b), *y = NULL;
        TFR_ASSERT_OK(tfr_add(s, va, vb, &y));
        res[pass] = pass ? tfr_test_download(s, y) : (tfr_tensor_retain(y), y);
        tfr_tensor_release(y);
        tfr_tensor_release(va);
        tfr_tensor_release(vb);
        tfr_tensor_release(ba);
        tfr_tensor_release(bb);
        tfr_test_end(s);
      }
      size_t nb = tfr_tensor_nbytes(res[0]);
      assert_int_equal(nb, tfr_tensor_nbytes(res[1]));
      unsigned char *x = malloc(nb), *z = malloc(nb);
      assert_non_null(x);
      assert_non_null(z);
      TFR_ASSERT_OK(tfr_tensor_read(res[0], x, nb));
      TFR_ASSERT_OK(tfr_tensor_read(res[1], z, nb));
      if (memcmp(x, z, nb) != 0) {
        print_error("MISMATCH: %s case %zu: webgpu differs from the cpu\n", tfr_dtype_name(dts[d]), k);
        bad++;
      }
      free(x);
      free(z);
      tfr_tensor_release(res[0]);
      tfr_tensor_release(res[1]);
      tfr_tensor_release(ha);
      tfr_tensor_release(hb);
    }
  }
  assert_int_equal(bad, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_unsupported_dtypes, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_pipeline_reuse, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_pieces_and_grid_folding, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_broadcast_blocks, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_compare, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_select_clamp, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_unary_exact, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_binary_exact, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_unary_functions, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_binary_functions, tfr_test_teardown_session),
  };
  return TFR_TEST_RUN_WEBGPU(tests);
}
