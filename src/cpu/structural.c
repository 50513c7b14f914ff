// cpu structural kernels: convert (and every strided copy), tril/triu, iota.
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/half.h"
#include "cpu/cpu.h"

#ifdef _OPENMP
#include <omp.h>
#endif

typedef uint8_t tfr_bool_t;
typedef float _Complex tfr_c64_t;
typedef double _Complex tfr_c128_t;

// float -> int: toward zero, saturating, NaN -> 0 (DESIGN.md). Floats of
// every width arrive as double (exact).
#define TFR_SAT_SIGNED(NAME, T, LO, HI)                  \
  static inline T NAME(double x) {                       \
    if (isnan(x)) return 0;                              \
    if (x <= (double)(LO)) return LO;                    \
    if (x >= (double)(HI)) return HI;                    \
    return (T)x;                                         \
  }
TFR_SAT_SIGNED(tfr_sat_i8, int8_t, INT8_MIN, INT8_MAX)
TFR_SAT_SIGNED(tfr_sat_i16, int16_t, INT16_MIN, INT16_MAX)
TFR_SAT_SIGNED(tfr_sat_i32, int32_t, INT32_MIN, INT32_MAX)
#define TFR_SAT_UNSIGNED(NAME, T, HI)                    \
  static inline T NAME(double x) {                       \
    if (!(x > 0)) return 0; /* NaN, negative, zero */    \
    if (x >= (double)(HI)) return HI;                    \
    return (T)x;                                         \
  }
TFR_SAT_UNSIGNED(tfr_sat_u8, uint8_t, UINT8_MAX)
TFR_SAT_UNSIGNED(tfr_sat_u16, uint16_t, UINT16_MAX)
TFR_SAT_UNSIGNED(tfr_sat_u32, uint32_t, UINT32_MAX)
// 64 bits: the bounds are not doubles (2^63 - 1 rounds up to 2^63), so
// compare against the powers of two.
static inline int64_t tfr_sat_i64(double x) {
  if (isnan(x)) return 0;
  if (x <= -9223372036854775808.0) return INT64_MIN;
  if (x >= 9223372036854775808.0) return INT64_MAX;
  return (int64_t)x;
}
static inline uint64_t tfr_sat_u64(double x) {
  if (!(x > 0)) return 0;
  if (x >= 18446744073709551616.0) return UINT64_MAX;
  return (uint64_t)x;
}

// Integers -> f16/bf16, rounded once: |v| is first rounded to 53 bits "to
// odd" (the dropped bits ORed into the last kept one), exact below 2^53;
// rounding that to nearest even at 8 or 11 bits gives the correctly rounded
// result (to-odd at p + 2 or more bits cannot create a false tie).
static inline double tfr_u64_to_f64_odd(uint64_t u) {
  if (u < (UINT64_C(1) << 53)) return (double)u;
  int drop = 11 - __builtin_clzll(u);  // bit length - 53
  uint64_t m = u >> drop;
  if (u & ((UINT64_C(1) << drop) - 1)) m |= 1;
  return ldexp((double)m, drop);
}
static inline double tfr_i64_to_f64_odd(int64_t v) {
  double d = tfr_u64_to_f64_odd(v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
  return v < 0 ? -d : d;
}

// f16 <-> bf16 through f32 (exact widening, one rounding); same dtype is
// the identity (bits kept, NaN payloads too).
static inline uint16_t tfr_half_f16_to_f16(uint16_t v) { return v; }
static inline uint16_t tfr_half_bf16_to_bf16(uint16_t v) { return v; }
static inline uint16_t tfr_half_f16_to_bf16(uint16_t v) { return tfr_f32_to_bf16(tfr_f16_to_f32(v)); }
static inline uint16_t tfr_half_bf16_to_f16(uint16_t v) { return tfr_f32_to_f16(tfr_bf16_to_f32(v)); }

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

// Per dtype token: its C type (T_), category (K_: b bool, s signed, u
// unsigned, f f32/f64, h f16/bf16, c complex) and, for complex, the part type
// (R_). f16/bf16 also name their widening (W_) and rounding (N_) functions.
#define TFR_CV_T_b8 tfr_bool_t
#define TFR_CV_T_i8 int8_t
#define TFR_CV_T_i16 int16_t
#define TFR_CV_T_i32 int32_t
#define TFR_CV_T_i64 int64_t
#define TFR_CV_T_u8 uint8_t
#define TFR_CV_T_u16 uint16_t
#define TFR_CV_T_u32 uint32_t
#define TFR_CV_T_u64 uint64_t
#define TFR_CV_T_f16 uint16_t
#define TFR_CV_T_bf16 uint16_t
#define TFR_CV_T_f32 float
#define TFR_CV_T_f64 double
#define TFR_CV_T_c64 tfr_c64_t
#define TFR_CV_T_c128 tfr_c128_t
#define TFR_CV_K_b8 b
#define TFR_CV_K_i8 s
#define TFR_CV_K_i16 s
#define TFR_CV_K_i32 s
#define TFR_CV_K_i64 s
#define TFR_CV_K_u8 u
#define TFR_CV_K_u16 u
#define TFR_CV_K_u32 u
#define TFR_CV_K_u64 u
#define TFR_CV_K_f16 h
#define TFR_CV_K_bf16 h
#define TFR_CV_K_f32 f
#define TFR_CV_K_f64 f
#define TFR_CV_K_c64 c
#define TFR_CV_K_c128 c
#define TFR_CV_R_c64 float
#define TFR_CV_R_c128 double
#define TFR_CV_W_f16 tfr_f16_to_f32
#define TFR_CV_W_bf16 tfr_bf16_to_f32
#define TFR_CV_N_f16 tfr_f64_to_f16
#define TFR_CV_N_bf16 tfr_f64_to_bf16

// The value of `v` as the real number every source category reduces to
// before it meets a float destination: f16/bf16 widened, complex's real part.
#define TFR_CV_REAL_f(v, SN) (v)
#define TFR_CV_REAL_h(v, SN) TFR_CV_W_##SN(v)
#define TFR_CV_REAL_c(v, SN) creal(v)

// Conversion expressions by (source category, destination category).
// Integers and bool use C's rules (int -> int keeps the low bits, int ->
// f32/f64 rounds to nearest even); floats saturate to integers; f32 -> f16
// and bf16 round once from the exact value (tfr_f64_to_*: exact widening to
// double first), so does every integer (tfr_*_to_f64_odd).
#define TFR_CV_b_b(v, SN, DN) (v)
#define TFR_CV_b_s(v, SN, DN) ((TFR_CV_T_##DN)(v))
#define TFR_CV_b_u(v, SN, DN) ((TFR_CV_T_##DN)(v))
#define TFR_CV_b_f(v, SN, DN) ((TFR_CV_T_##DN)(v))
#define TFR_CV_b_h(v, SN, DN) TFR_CV_N_##DN((double)(v))
#define TFR_CV_b_c(v, SN, DN) ((TFR_CV_T_##DN)(TFR_CV_R_##DN)(v))
#define TFR_CV_s_b(v, SN, DN) ((tfr_bool_t)((v) != 0))
#define TFR_CV_s_s TFR_CV_b_s
#define TFR_CV_s_u TFR_CV_b_s
#define TFR_CV_s_f TFR_CV_b_s
#define TFR_CV_s_h(v, SN, DN) TFR_CV_N_##DN(tfr_i64_to_f64_odd((int64_t)(v)))
#define TFR_CV_s_c TFR_CV_b_c
#define TFR_CV_u_b TFR_CV_s_b
#define TFR_CV_u_s TFR_CV_b_s
#define TFR_CV_u_u TFR_CV_b_s
#define TFR_CV_u_f TFR_CV_b_s
#define TFR_CV_u_h(v, SN, DN) TFR_CV_N_##DN(tfr_u64_to_f64_odd((uint64_t)(v)))
#define TFR_CV_u_c TFR_CV_b_c
#define TFR_CV_REAL_TO_b(v, SN, K) ((tfr_bool_t)(TFR_CV_REAL_##K(v, SN) != 0))
#define TFR_CV_REAL_TO_s(v, SN, K, DN) tfr_sat_##DN(TFR_CV_REAL_##K(v, SN))
#define TFR_CV_f_b(v, SN, DN) TFR_CV_REAL_TO_b(v, SN, f)
#define TFR_CV_f_s(v, SN, DN) TFR_CV_REAL_TO_s(v, SN, f, DN)
#define TFR_CV_f_u TFR_CV_f_s
#define TFR_CV_f_f TFR_CV_b_s
#define TFR_CV_f_h(v, SN, DN) TFR_CV_N_##DN((double)(v))
#define TFR_CV_f_c TFR_CV_b_c
#define TFR_CV_h_b(v, SN, DN) TFR_CV_REAL_TO_b(v, SN, h)
#define TFR_CV_h_s(v, SN, DN) TFR_CV_REAL_TO_s(v, SN, h, DN)
#define TFR_CV_h_u TFR_CV_h_s
#define TFR_CV_h_f(v, SN, DN) ((TFR_CV_T_##DN)TFR_CV_W_##SN(v))
#define TFR_CV_h_h(v, SN, DN) tfr_half_##SN##_to_##DN(v)
#define TFR_CV_h_c(v, SN, DN) ((TFR_CV_T_##DN)(TFR_CV_R_##DN)TFR_CV_W_##SN(v))
#define TFR_CV_c_b(v, SN, DN) ((tfr_bool_t)(creal(v) != 0 || cimag(v) != 0))
#define TFR_CV_c_s(v, SN, DN) TFR_CV_REAL_TO_s(v, SN, c, DN)
#define TFR_CV_c_u TFR_CV_c_s
#define TFR_CV_c_f(v, SN, DN) ((TFR_CV_T_##DN)creal(v))
#define TFR_CV_c_h(v, SN, DN) TFR_CV_N_##DN(creal(v))
#define TFR_CV_c_c TFR_CV_b_s

#define TFR_CV_EXPR3(KS, KD, SN, DN) TFR_CV_##KS##_##KD(v, SN, DN)
#define TFR_CV_EXPR2(KS, KD, SN, DN) TFR_CV_EXPR3(KS, KD, SN, DN)
#define TFR_CV_EXPR(SN, DN) TFR_CV_EXPR2(TFR_CV_K_##SN, TFR_CV_K_##DN, SN, DN)

#define TFR_CV_DEFINE(SN, DN) \
  TFR_CONVERT_FN(tfr_cv_##SN##_##DN, TFR_CV_T_##SN, TFR_CV_T_##DN, TFR_CV_EXPR(SN, DN))

// Every dtype token, in tfr_dtype order (the table's index); twice, since a
// macro cannot expand inside its own expansion (rows x columns).
#define TFR_CV_DTYPES(X, A) \
  X(A, b8) X(A, i32) X(A, i64) X(A, f32) X(A, f64) X(A, c64) X(A, c128) X(A, i8) X(A, i16) \
  X(A, u8) X(A, u16) X(A, u32) X(A, u64) X(A, f16) X(A, bf16)
#define TFR_CV_SOURCES(X) \
  X(b8) X(i32) X(i64) X(f32) X(f64) X(c64) X(c128) X(i8) X(i16) X(u8) X(u16) X(u32) X(u64) \
  X(f16) X(bf16)
#define TFR_CV_DEFINE_ROW(SN) TFR_CV_DTYPES(TFR_CV_DEFINE, SN)
TFR_CV_SOURCES(TFR_CV_DEFINE_ROW)

#define TFR_CV_ENTRY(SN, DN) tfr_cv_##SN##_##DN,
#define TFR_CV_TABLE_ROW(SN) {TFR_CV_DTYPES(TFR_CV_ENTRY, SN)},

// [source][destination], indexed by tfr_dtype.
static const tfr_cpu_inner_fn tfr_convert_table[TFR_DTYPE_COUNT][TFR_DTYPE_COUNT] = {
    TFR_CV_SOURCES(TFR_CV_TABLE_ROW)};

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
  int nt = tfr_cpu_threads_for(threads, it->numel);
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

// Axes of a grouped tile: at most this many elements per side.
#define TFR_GROUP_MAX 256

// A permuting copy (same dtype) of many short axes (extents 2 and 3 in
// tensor networks): neither side has one axis of TFR_TILE / 2 elements to
// tile along. The output's innermost axes are grouped into A and the
// input's most contiguous other axes into B, each of at least TFR_TILE / 2
// elements; every A x B tile is copied through two offset tables, so both
// sides use whole cache lines (a 2^27-element copy of gm_queen5_5_3 ran at
// 0.5 GB/s element by element). Returns false when the layout is not such a
// case.
static bool tfr_cpu_copy_grouped(const tfr_cpu_iter *it, size_t es, int threads) {
  int nd = it->ndim;
  if (nd < 3 || (es != 1 && es != 2 && es != 4 && es != 8 && es != 16)) return false;
  if (llabs(it->strides[1][0]) <= (int64_t)es) return false;  // already reads well
  int na = 0;
  int64_t pa = 1;
  while (na < nd && pa < TFR_TILE / 2) pa *= it->shape[na++];
  if (na >= nd || pa > TFR_GROUP_MAX) return false;
  // B: the remaining axes by |input stride|, smallest first.
  int order[TFR_MAX_RANK], nr = 0;
  for (int d = na; d < nd; d++) {
    int q = nr++;
    while (q > 0 && llabs(it->strides[1][order[q - 1]]) > llabs(it->strides[1][d])) {
      order[q] = order[q - 1];
      q--;
    }
    order[q] = d;
  }
  int nb = 0;
  int64_t pb = 1;
  while (nb < nr && pb < TFR_TILE / 2) pb *= it->shape[order[nb++]];
  if (pb < TFR_TILE / 2 || pb > TFR_GROUP_MAX) {
    // No B fits (a long axis follows short ones, as in batched networks:
    // [4, 4, 1996] read with strides 4, 1, 16): A alone, grown over the
    // output's innermost axes to up to TFR_GROUP_MAX elements. The input's
    // cache lines then serve A's inner axes, which hold its contiguous
    // ones; the element-by-element copy made a strided run of each A row.
    while (na < nd && pa * it->shape[na] <= TFR_GROUP_MAX) pa *= it->shape[na++];
    if (na >= nd) return false;
    nb = 0;
    pb = 1;
    nr = 0;
    for (int d = na; d < nd; d++) order[nr++] = d;
  }
  // Offset tables (bytes) of A (input; the output's is a * es) and of B.
  int64_t a_in[TFR_GROUP_MAX], b_in[TFR_GROUP_MAX], b_out[TFR_GROUP_MAX];
  for (int64_t a = 0; a < pa; a++) {
    int64_t rem = a, off = 0;
    for (int d = 0; d < na; d++) {
      off += (rem % it->shape[d]) * it->strides[1][d];
      rem /= it->shape[d];
    }
    a_in[a] = off;
  }
  for (int64_t b = 0; b < pb; b++) {
    int64_t rem = b, oi = 0, oo = 0;
    for (int q = 0; q < nb; q++) {
      int d = order[q];
      int64_t i = rem % it->shape[d];
      rem /= it->shape[d];
      oi += i * it->strides[1][d];
      oo += i * it->strides[0][d];
    }
    b_in[b] = oi;
    b_out[b] = oo;
  }
  // The other axes, walked by their flat index.
  int rest[TFR_MAX_RANK], nrest = 0;
  for (int q = nb; q < nr; q++) rest[nrest++] = order[q];
  int64_t outer = it->numel / (pa * pb);
  int nt = tfr_cpu_threads_for(threads, it->numel);
  (void)nt;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
#endif
  for (int64_t r = 0; r < outer; r++) {
    int64_t rem = r;
    char *po = it->base[0];
    const char *pi = it->base[1];
    for (int q = 0; q < nrest; q++) {
      int d = rest[q];
      int64_t i = rem % it->shape[d];
      rem /= it->shape[d];
      po += i * it->strides[0][d];
      pi += i * it->strides[1][d];
    }
    for (int64_t b = 0; b < pb; b++) {
      char *o = po + b_out[b];
      const char *src = pi + b_in[b];
      switch (es) {
        case 1: for (int64_t a = 0; a < pa; a++) o[a] = src[a_in[a]]; break;
        case 2: for (int64_t a = 0; a < pa; a++) memcpy(o + 2 * a, src + a_in[a], 2); break;
        case 4: for (int64_t a = 0; a < pa; a++) memcpy(o + 4 * a, src + a_in[a], 4); break;
        case 8: for (int64_t a = 0; a < pa; a++) memcpy(o + 8 * a, src + a_in[a], 8); break;
        default: for (int64_t a = 0; a < pa; a++) memcpy(o + 16 * a, src + a_in[a], 16); break;
      }
    }
  }
  return true;
}

tfr_status tfr_cpu_convert(tfr_cpu_backend *cpu, const tfr_tensor *in, tfr_tensor *out) {
  if (out->numel == 0) return TFR_OK;
  const tfr_tensor *ops[2] = {out, in};
  tfr_cpu_iter it;
  tfr_cpu_iter_init(&it, 2, ops);
  tfr_cpu_inner_fn fn = tfr_convert_table[in->dtype][out->dtype];
  if (tfr_cpu_convert_blocked(&it, fn, cpu->num_threads)) return TFR_OK;
  // The grouped copy needs a compact output (its A axes are one run there).
  if (in->dtype == out->dtype && tfr_tensor_is_contiguous(out) &&
      tfr_cpu_copy_grouped(&it, tfr_dtype_size(in->dtype), cpu->num_threads))
    return TFR_OK;
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
  int nt = tfr_cpu_threads_for(cpu->num_threads, o->numel);
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
  int nt = tfr_cpu_threads_for(cpu->num_threads, o->numel);
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

// reduce_precision on the bit patterns (core/half.h), per element width.
typedef struct tfr_rp_ctx {
  int src_mbits, ebits, mbits;
} tfr_rp_ctx;

#define TFR_RP_FN(NAME, U, NBITS)                                                         \
  static void NAME(int64_t n, char *const *p, const int64_t *s, const void *vctx) {       \
    const tfr_rp_ctx *c = vctx;                                                           \
    for (int64_t i = 0; i < n; i++) {                                                     \
      U x;                                                                                \
      memcpy(&x, p[1] + i * s[1], sizeof x);                                              \
      x = (U)tfr_reduce_precision_bits(x, NBITS, c->src_mbits, c->ebits, c->mbits);       \
      memcpy(p[0] + i * s[0], &x, sizeof x);                                              \
    }                                                                                     \
  }
TFR_RP_FN(tfr_rp_16, uint16_t, 16)
TFR_RP_FN(tfr_rp_32, uint32_t, 32)
TFR_RP_FN(tfr_rp_64, uint64_t, 64)

static tfr_status tfr_cpu_reduce_precision(tfr_cpu_backend *cpu, const tfr_structural_desc *d) {
  const tfr_tensor *ops[2] = {d->out, d->in};
  if (d->out->numel == 0) return TFR_OK;
  tfr_rp_ctx c = {0, d->exponent_bits, d->mantissa_bits};
  tfr_cpu_inner_fn fn;
  switch (d->in->dtype) {
    case TFR_F16: c.src_mbits = 10, fn = tfr_rp_16; break;
    case TFR_BF16: c.src_mbits = 7, fn = tfr_rp_16; break;
    case TFR_F32: c.src_mbits = 23, fn = tfr_rp_32; break;
    case TFR_F64: c.src_mbits = 52, fn = tfr_rp_64; break;
    default:
      return tfr_error(TFR_ERR_INTERNAL, "cpu reduce_precision: no kernel for dtype %s",
                       tfr_dtype_name(d->in->dtype));
  }
  tfr_cpu_iter it;
  tfr_cpu_iter_init(&it, 2, ops);
  tfr_cpu_iter_run(&it, fn, &c, cpu->num_threads);
  return TFR_OK;
}

tfr_status tfr_cpu_structural(tfr_backend *b, const tfr_structural_desc *d) {
  tfr_cpu_backend *cpu = tfr_cpu_cast(b);
  switch (d->kind) {
    case TFR_STRUCT_CONVERT: return tfr_cpu_convert(cpu, d->in, d->out);
    case TFR_STRUCT_TRIANGLE: return tfr_cpu_triangle(cpu, d);
    case TFR_STRUCT_IOTA: return tfr_cpu_iota(cpu, d);
    case TFR_STRUCT_REDUCE_PRECISION: return tfr_cpu_reduce_precision(cpu, d);
  }
  return tfr_error(TFR_ERR_INTERNAL, "cpu structural: unknown kind %d", (int)d->kind);
}
