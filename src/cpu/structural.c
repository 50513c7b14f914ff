// cpu structural kernels: convert (and every strided copy), tril/triu, iota.
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu.h"

#ifdef _OPENMP
#include <omp.h>
#endif

typedef uint8_t tfr_bool_t;
typedef float _Complex tfr_c64_t;
typedef double _Complex tfr_c128_t;

// float -> int: toward zero, saturating, NaN -> 0 (DESIGN.md).
static inline int32_t tfr_sat_i32(double x) {
  if (isnan(x)) return 0;
  if (x <= -2147483648.0) return INT32_MIN;
  if (x >= 2147483647.0) return INT32_MAX;
  return (int32_t)x;
}
static inline int64_t tfr_sat_i64(double x) {
  if (isnan(x)) return 0;
  if (x <= -9223372036854775808.0) return INT64_MIN;
  if (x >= 9223372036854775808.0) return INT64_MAX;
  return (int64_t)x;
}

// One inner-run function per (source, destination) pair. EXPR converts `v`.
// The contiguous branch is a plain indexed loop the compiler vectorises.
#define TFR_CONVERT_FN(NAME, ST, DT, EXPR)                                               \
  static void NAME(int64_t n, char *const *p, const int64_t *s, const void *ctx) {      \
    (void)ctx;                                                                           \
    if (s[0] == (int64_t)sizeof(DT) && s[1] == (int64_t)sizeof(ST)) {                   \
      DT *restrict o = (DT *)p[0];                                                       \
      const ST *restrict in = (const ST *)p[1];                                          \
      for (int64_t i = 0; i < n; i++) {                                                  \
        ST v = in[i];                                                                    \
        o[i] = (EXPR);                                                                   \
      }                                                                                  \
    } else {                                                                             \
      char *o = p[0];                                                                    \
      const char *in = p[1];                                                             \
      for (int64_t i = 0; i < n; i++, o += s[0], in += s[1]) {                           \
        ST v;                                                                            \
        memcpy(&v, in, sizeof v);                                                        \
        DT r = (EXPR);                                                                   \
        memcpy(o, &r, sizeof r);                                                         \
      }                                                                                  \
    }                                                                                    \
  }

// Rows: source dtype. Expressions per destination.
#define TFR_CONVERT_ROW(SN, ST, TO_BOOL, TO_I32, TO_I64, TO_F32, TO_F64, TO_C64, TO_C128) \
  TFR_CONVERT_FN(tfr_cv_##SN##_b8, ST, tfr_bool_t, TO_BOOL)                            \
  TFR_CONVERT_FN(tfr_cv_##SN##_i32, ST, int32_t, TO_I32)                                 \
  TFR_CONVERT_FN(tfr_cv_##SN##_i64, ST, int64_t, TO_I64)                                 \
  TFR_CONVERT_FN(tfr_cv_##SN##_f32, ST, float, TO_F32)                                   \
  TFR_CONVERT_FN(tfr_cv_##SN##_f64, ST, double, TO_F64)                                  \
  TFR_CONVERT_FN(tfr_cv_##SN##_c64, ST, tfr_c64_t, TO_C64)                               \
  TFR_CONVERT_FN(tfr_cv_##SN##_c128, ST, tfr_c128_t, TO_C128)

// Integers and bool convert with C's rules (int -> float rounds to nearest even).
#define TFR_INT_ROW(SN, ST)                                                              \
  TFR_CONVERT_ROW(SN, ST, (tfr_bool_t)(v != 0), (int32_t)v, (int64_t)v, (float)v,        \
                  (double)v, (tfr_c64_t)(float)v, (tfr_c128_t)(double)v)
TFR_INT_ROW(b8, tfr_bool_t)
TFR_INT_ROW(i32, int32_t)
TFR_INT_ROW(i64, int64_t)
#define TFR_FLOAT_ROW(SN, ST)                                                            \
  TFR_CONVERT_ROW(SN, ST, (tfr_bool_t)(v != 0), tfr_sat_i32(v), tfr_sat_i64(v), (float)v, \
                  (double)v, (tfr_c64_t)(float)v, (tfr_c128_t)(double)v)
TFR_FLOAT_ROW(f32, float)
TFR_FLOAT_ROW(f64, double)
#define TFR_COMPLEX_ROW(SN, ST)                                                           \
  TFR_CONVERT_ROW(SN, ST, (tfr_bool_t)(creal(v) != 0 || cimag(v) != 0),                   \
                  tfr_sat_i32(creal(v)), tfr_sat_i64(creal(v)), (float)creal(v),          \
                  (double)creal(v), (tfr_c64_t)v, (tfr_c128_t)v)
TFR_COMPLEX_ROW(c64, tfr_c64_t)
TFR_COMPLEX_ROW(c128, tfr_c128_t)

#define TFR_CONVERT_TABLE_ROW(SN)                                                        \
  {tfr_cv_##SN##_b8, tfr_cv_##SN##_i32, tfr_cv_##SN##_i64, tfr_cv_##SN##_f32,          \
   tfr_cv_##SN##_f64, tfr_cv_##SN##_c64, tfr_cv_##SN##_c128}

// [source][destination], indexed by tfr_dtype.
static const tfr_cpu_inner_fn tfr_convert_table[TFR_DTYPE_COUNT][TFR_DTYPE_COUNT] = {
    TFR_CONVERT_TABLE_ROW(b8), TFR_CONVERT_TABLE_ROW(i32), TFR_CONVERT_TABLE_ROW(i64),
    TFR_CONVERT_TABLE_ROW(f32),  TFR_CONVERT_TABLE_ROW(f64), TFR_CONVERT_TABLE_ROW(c64),
    TFR_CONVERT_TABLE_ROW(c128),
};

// Edge of a square tile of the blocked copy: 32 x 32 elements of up to 16
// bytes stay in L1/L2 for both the reads and the writes.
#define TFR_TILE 32

// A copy whose input is contiguous along another axis than the output is a
// transposition: walk it in tiles so that both sides use whole cache lines.
// Returns false when the layout is not such a case.
static bool tfr_cpu_convert_blocked(const tfr_cpu_iter *it, tfr_cpu_inner_fn fn, int threads) {
  if (it->ndim < 2) return false;
  int64_t in_es = 0;
  // The axis along which the input is contiguous (|stride| smallest).
  int j = -1;
  for (int d = 1; d < it->ndim; d++) {
    int64_t a = llabs(it->strides[1][d]);
    if (a != 0 && (j < 0 || a < llabs(it->strides[1][j]))) j = d;
  }
  if (j < 0) return false;
  in_es = llabs(it->strides[1][j]);
  if (llabs(it->strides[1][0]) <= in_es) return false;  // already reads well
  if (in_es > 16 || it->shape[0] < TFR_TILE / 2 || it->shape[j] < TFR_TILE / 2) return false;

  int64_t n0 = it->shape[0], nj = it->shape[j];
  int64_t t0 = (n0 + TFR_TILE - 1) / TFR_TILE, tj = (nj + TFR_TILE - 1) / TFR_TILE;
  int64_t outer = it->numel / (n0 * nj);
  int64_t ntiles = outer * t0 * tj;
  int nt = it->numel >= TFR_CPU_PARALLEL_MIN ? threads : 1;
  (void)nt;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
#endif
  for (int64_t tile = 0; tile < ntiles; tile++) {
    int64_t rest = tile;
    int64_t b0 = rest % t0;
    rest /= t0;
    int64_t bj = rest % tj;
    rest /= tj;
    // `rest` indexes the remaining axes.
    char *base[2] = {it->base[0], it->base[1]};
    for (int d = 1; d < it->ndim; d++) {
      if (d == j) continue;
      int64_t i = rest % it->shape[d];
      rest /= it->shape[d];
      base[0] += i * it->strides[0][d];
      base[1] += i * it->strides[1][d];
    }
    int64_t i0 = b0 * TFR_TILE, ij = bj * TFR_TILE;
    int64_t w = n0 - i0 < TFR_TILE ? n0 - i0 : TFR_TILE;
    int64_t h = nj - ij < TFR_TILE ? nj - ij : TFR_TILE;
    int64_t inner[2] = {it->strides[0][0], it->strides[1][0]};
    for (int64_t r = ij; r < ij + h; r++) {
      char *p[2] = {base[0] + r * it->strides[0][j] + i0 * it->strides[0][0],
                    base[1] + r * it->strides[1][j] + i0 * it->strides[1][0]};
      fn(w, p, inner, NULL);
    }
  }
  return true;
}

static tfr_status tfr_cpu_convert(tfr_cpu_backend *cpu, const tfr_tensor *in, tfr_tensor *out) {
  if (out->numel == 0) return TFR_OK;
  const tfr_tensor *ops[2] = {out, in};
  tfr_cpu_iter it;
  tfr_cpu_iter_init(&it, 2, ops);
  tfr_cpu_inner_fn fn = tfr_convert_table[in->dtype][out->dtype];
  if (!tfr_cpu_convert_blocked(&it, fn, cpu->num_threads))
    tfr_cpu_iter_run(&it, fn, NULL, cpu->num_threads);
  return TFR_OK;
}

// tril/triu over the last two axes: copy, then zero what falls outside.
static tfr_status tfr_cpu_triangle(tfr_cpu_backend *cpu, const tfr_structural_desc *d) {
  TFR_RETURN_IF_ERROR(tfr_cpu_convert(cpu, d->in, d->out));
  const tfr_tensor *o = d->out;
  int r = o->rank;
  int64_t rows = o->shape[r - 2], cols = o->shape[r - 1];
  if (o->numel == 0) return TFR_OK;
  size_t es = tfr_dtype_size(o->dtype);
  int64_t mats = o->numel / (rows * cols);
  // Beyond [-rows - 1, cols] every k keeps or zeroes whole rows alike; the
  // clamp keeps i + k + 1 from overflowing for k near INT64_MAX.
  int64_t k = d->k > cols ? cols : d->k < -rows - 1 ? -rows - 1 : d->k;
  char *base = tfr_tensor_host_ptr(o);  // compact
  int nt = o->numel >= TFR_CPU_PARALLEL_MIN ? cpu->num_threads : 1;
  (void)nt;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
#endif
  for (int64_t m = 0; m < mats * rows; m++) {
    int64_t i = m % rows;
    char *row = base + (size_t)m * (size_t)cols * es;
    // tril keeps col <= i + k: zero [max(i + k + 1, 0), cols).
    // triu keeps col >= i + k: zero [0, min(i + k, cols)).
    int64_t lo, hi;
    if (d->upper) {
      lo = 0;
      hi = i + k;
    } else {
      lo = i + k + 1;
      hi = cols;
    }
    if (lo < 0) lo = 0;
    if (hi > cols) hi = cols;
    if (lo < hi) memset(row + (size_t)lo * es, 0, (size_t)(hi - lo) * es);
  }
  return TFR_OK;
}

static tfr_status tfr_cpu_iota(tfr_cpu_backend *cpu, const tfr_structural_desc *d) {
  const tfr_tensor *o = d->out;
  if (o->numel == 0) return TFR_OK;
  int64_t inner = 1;
  for (int k = d->iota_dimension + 1; k < o->rank; k++) inner *= o->shape[k];
  int64_t extent = o->shape[d->iota_dimension];
  // Compute in i64, then convert each element: one code path for all dtypes.
  char *base = tfr_tensor_host_ptr(o);
  size_t es = tfr_dtype_size(o->dtype);
  tfr_cpu_inner_fn fn = tfr_convert_table[TFR_I64][o->dtype];
  int nt = o->numel >= TFR_CPU_PARALLEL_MIN ? cpu->num_threads : 1;
  (void)nt;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
#endif
  for (int64_t start = 0; start < o->numel; start += 1024) {
    int64_t vals[1024];
    int64_t n = o->numel - start < 1024 ? o->numel - start : 1024;
    for (int64_t i = 0; i < n; i++) vals[i] = ((start + i) / inner) % extent;
    char *p[2] = {base + (size_t)start * es, (char *)vals};
    int64_t s[2] = {(int64_t)es, 8};
    fn(n, p, s, NULL);
  }
  return TFR_OK;
}

tfr_status tfr_cpu_structural(tfr_backend *b, const tfr_structural_desc *d) {
  tfr_cpu_backend *cpu = tfr_cpu_cast(b);
  switch (d->kind) {
    case TFR_STRUCT_CONVERT: return tfr_cpu_convert(cpu, d->in, d->out);
    case TFR_STRUCT_TRIANGLE: return tfr_cpu_triangle(cpu, d);
    case TFR_STRUCT_IOTA: return tfr_cpu_iota(cpu, d);
  }
  return tfr_error(TFR_ERR_INTERNAL, "cpu structural: unknown kind %d", (int)d->kind);
}
