// cpu reductions: StableHLO `reduce` with a one-op body (add, multiply,
// maximum, minimum, and, or, xor) over any set of axes of any strided view.
//
// The operand's axes are split into kept and reduced ones. Every combiner is
// commutative, so reversed axes are flipped to positive strides, extent-1
// axes are dropped and neighbours that step over each other exactly are
// merged. Two layouts then cover every case:
//   * inner: a reduced axis is the innermost one (smallest stride): each
//     output element reduces runs along it, with many independent partial
//     results so that the loop vectorises;
//   * lanes: a kept axis is innermost (e.g. a sum over axis 0): a strip of
//     outputs accumulates whole input rows, vectorised along the kept axis,
//     so the input is read in memory order instead of down its columns.
// In both, the reduced index range [0, m) of one output is combined by a
// fixed pairwise tree whose leaves are short blocks. Float sums thus have an
// error O(log m) instead of O(m), and because the tree depends only on m,
// threads change where the work runs but never a bit of the result.
#include <complex.h>
#include <string.h>

#include "core/half.h"
#include "core/reduce_axes.h"
#include "cpu/cpu.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#else
static inline int omp_get_thread_num(void) { return 0; }
#endif

typedef float _Complex tfr_red_c64;
typedef double _Complex tfr_red_c128;

// ---------------------------------------------------------------------------
// The pairwise tree
// ---------------------------------------------------------------------------

// Reduced elements per tree leaf in the inner layout, and rows per leaf in
// the lanes layout (each row there is a whole strip of lanes).
#define TFR_RED_LEAF_INNER 256
#define TFR_RED_LEAF_ROWS 64

// Where the left half of a node of `cnt` reduced indices ends: at a leaf
// boundary, with the left half taking the extra leaf of an odd count.
static inline int64_t tfr_red_split(int64_t cnt, int64_t leaf) {
  int64_t leaves = (cnt + leaf - 1) / leaf;
  return (leaves + 1) / 2 * leaf;
}

// ---------------------------------------------------------------------------
// Per (combiner, dtype) kernels
// ---------------------------------------------------------------------------

// runs:    acc[k] = reduce(n >= 1 elements at byte stride s from p + k * ws)
//          for k < w, combined into the previous acc[k] unless `first`; runs
//          longer than a leaf are combined by the same tree as tfr_red_node.
// rows:    acc[k] (op)= row_0[k] (op) .. (op) row_{nrows-1}[k] for k < w,
//          lanes at byte stride s; nrows is 1 or 4; overwrites acc if `first`.
// combine: a[k] = a[k] (op) b[k].
// finish:  out[k] = init (op) acc[k], outputs at byte stride os.
// No identity element is ever needed: complex multiply by 1 + 0i is not
// exact with infinities (0 * inf), so the first element seeds every chain.
typedef struct tfr_red_kernels {
  void (*runs)(void *acc, const char *p, int64_t n, int64_t s, int64_t w, int64_t ws,
               bool first);
  void (*rows)(void *acc, const char *const *rows, int nrows, int64_t w, int64_t s, bool first);
  void (*combine)(void *a, const void *b, int64_t w);
  void (*finish)(char *out, int64_t os, const void *acc, int64_t w, const void *init);
} tfr_red_kernels;

// The combiners. Integer add and multiply run on unsigned types so that they
// wrap without undefined behaviour. Float maximum/minimum propagate NaN: a
// NaN accumulator stays (both tests false), a NaN element replaces it.
#define TFR_RED_ADD(a, x) ((a) + (x))
#define TFR_RED_MUL(a, x) ((a) * (x))
// 8- and 16-bit integers would multiply as (signed) int and could overflow.
#define TFR_RED_UMUL(a, x) ((a) * 1u * (x))
#define TFR_RED_IMAX(a, x) ((x) > (a) ? (x) : (a))
#define TFR_RED_IMIN(a, x) ((x) < (a) ? (x) : (a))
#define TFR_RED_FMAX(a, x) (((x) > (a) || (x) != (x)) ? (x) : (a))
#define TFR_RED_FMIN(a, x) (((x) < (a) || (x) != (x)) ? (x) : (a))
#define TFR_RED_AND(a, x) ((a) & (x))
#define TFR_RED_OR(a, x) ((a) | (x))
#define TFR_RED_XOR(a, x) ((a) ^ (x))

// The contiguous path of a run of n >= 4 NACC elements (at most a leaf):
// NACC independent partial results keep enough vector registers in flight to
// hide the latency, and each chain stays short (256 / NACC at most) for
// accuracy. The partials are combined pairwise at the end.
#define TFR_RED_BLOCK_SCALAR(NAME, T, NACC)                                                  \
  enum { NAME##_nacc = (NACC) };                                                            \
  static T NAME##_block(const T *restrict q, int64_t n) {                                   \
    T a[NACC];                                                                              \
    for (int j = 0; j < (NACC); j++) a[j] = q[j];                                           \
    int64_t i = (NACC);                                                                     \
    for (; i + (NACC) <= n; i += (NACC))                                                    \
      for (int j = 0; j < (NACC); j++) a[j] = NAME##_op(a[j], q[i + j]);                    \
    for (int j = 0; i + j < n; j++) a[j] = NAME##_op(a[j], q[i + j]);                       \
    for (int h = (NACC) / 2; h > 0; h /= 2)                                                 \
      for (int j = 0; j < h; j++) a[j] = NAME##_op(a[j], a[j + h]);                         \
    return a[0];                                                                            \
  }

// Float maximum/minimum: GCC does not if-convert the NaN-propagating select
// (it emits a branch or a cmov per element, even from vector code), so on
// x86 this path uses max/min instructions, which drop NaN, and records NaN
// separately: an unordered compare ORed into a mask. A NaN seen is returned
// as found in the input.
#ifdef __SSE2__
#define TFR_RED_BLOCK_SSE(NAME, T, V, SFX, MAXMIN)                                            \
  enum { NAME##_lanes = 16 / sizeof(T), NAME##_nacc = 8 * NAME##_lanes };                    \
  static T NAME##_block(const T *restrict q, int64_t n) {                                   \
    V a[8], nan = _mm_setzero_##SFX();                                                      \
    for (int j = 0; j < 8; j++) a[j] = _mm_loadu_##SFX(q + j * NAME##_lanes);                \
    int64_t i = NAME##_nacc;                                                                \
    for (; i + NAME##_nacc <= n; i += NAME##_nacc)                                          \
      for (int j = 0; j < 8; j++) {                                                         \
        V x = _mm_loadu_##SFX(q + i + j * NAME##_lanes);                                     \
        nan = _mm_or_##SFX(nan, _mm_cmpunord_##SFX(x, x));                                  \
        a[j] = _mm_##MAXMIN##_##SFX(x, a[j]);                                                \
      }                                                                                     \
    for (int j = 0; j < 8; j++) nan = _mm_or_##SFX(nan, _mm_cmpunord_##SFX(a[j], a[j]));    \
    if (_mm_movemask_##SFX(nan))                                                            \
      for (int64_t k = 0;; k++)                                                             \
        if (q[k] != q[k]) return q[k];                                                      \
    T lanes[8 * NAME##_lanes];                                                              \
    for (int j = 0; j < 8; j++) _mm_storeu_##SFX(lanes + j * NAME##_lanes, a[j]);           \
    T r = lanes[0];                                                                         \
    for (int k = 1; k < NAME##_nacc; k++) r = NAME##_op(r, lanes[k]);                       \
    for (; i < n; i++) r = NAME##_op(r, q[i]);                                              \
    return r;                                                                               \
  }
#define TFR_RED_BLOCK_FMINMAX(NAME, T, V, SFX, MAXMIN, NACC) \
  TFR_RED_BLOCK_SSE(NAME, T, V, SFX, MAXMIN)
#else
#define TFR_RED_BLOCK_FMINMAX(NAME, T, V, SFX, MAXMIN, NACC) TFR_RED_BLOCK_SCALAR(NAME, T, NACC)
#endif

// The kernels of one (combiner, dtype) pair; BLOCK defines NAME##_block.
// TREE: 1 for combiners whose result depends on the order (floating add and
// multiply): runs are summed as a pairwise tree of TFR_RED_LEAF_INNER leaves.
// 0 for exact ones (floating maximum/minimum): a run is one pass of the block
// kernel (its fixed lanes keep the result a function of the run alone).
#define TFR_RED_DEFINE(NAME, T, OP, BLOCK) TFR_RED_DEFINE_TREE(NAME, T, OP, BLOCK, 1)
#define TFR_RED_DEFINE_TREE(NAME, T, OP, BLOCK, TREE)                                        \
  static inline T NAME##_op(T a, T x) { return (T)OP(a, x); }                               \
  BLOCK                                                                                     \
                                                                                            \
  static inline T NAME##_reduce(const char *p, int64_t n, int64_t s) {                      \
    T r;                                                                                    \
    if (s == (int64_t)sizeof(T) && n >= 4 * NAME##_nacc) {                                  \
      /* Long enough to pay for combining the NACC partials at the end. */                 \
      r = NAME##_block((const T *)p, n);                                                    \
    } else if (n >= 4) {                                                                    \
      /* Strided or short: four chains still overlap the latency. */                       \
      T a0 = *(const T *)p, a1 = *(const T *)(p + s);                                       \
      T a2 = *(const T *)(p + 2 * s), a3 = *(const T *)(p + 3 * s);                         \
      int64_t i = 4;                                                                        \
      for (; i + 4 <= n; i += 4) {                                                          \
        const char *e = p + i * s;                                                          \
        a0 = NAME##_op(a0, *(const T *)e);                                                  \
        a1 = NAME##_op(a1, *(const T *)(e + s));                                            \
        a2 = NAME##_op(a2, *(const T *)(e + 2 * s));                                        \
        a3 = NAME##_op(a3, *(const T *)(e + 3 * s));                                        \
      }                                                                                     \
      if (i < n) a0 = NAME##_op(a0, *(const T *)(p + i * s));                               \
      if (i + 1 < n) a1 = NAME##_op(a1, *(const T *)(p + (i + 1) * s));                     \
      if (i + 2 < n) a2 = NAME##_op(a2, *(const T *)(p + (i + 2) * s));                     \
      r = NAME##_op(NAME##_op(a0, a1), NAME##_op(a2, a3));                                  \
    } else {                                                                                \
      r = *(const T *)p;                                                                    \
      for (int64_t i = 1; i < n; i++) r = NAME##_op(r, *(const T *)(p + i * s));            \
    }                                                                                       \
    return r;                                                                               \
  }                                                                                         \
                                                                                            \
  /* The tree of tfr_red_node over one run, without its per-node overhead. */              \
  static T NAME##_pairwise(const char *p, int64_t n, int64_t s) {                           \
    if (n <= TFR_RED_LEAF_INNER || !(TREE)) return NAME##_reduce(p, n, s);                  \
    int64_t h = tfr_red_split(n, TFR_RED_LEAF_INNER);                                       \
    T a = NAME##_pairwise(p, h, s);                                                         \
    return NAME##_op(a, NAME##_pairwise(p + h * s, n - h, s));                              \
  }                                                                                         \
                                                                                            \
  static void NAME##_runs(void *accp, const char *p, int64_t n, int64_t s, int64_t w,       \
                          int64_t ws, bool first) {                                         \
    T *acc = (T *)accp;                                                                     \
    for (int64_t k = 0; k < w; k++) {                                                       \
      T r = NAME##_pairwise(p + k * ws, n, s);                                              \
      acc[k] = first ? r : NAME##_op(acc[k], r);                                            \
    }                                                                                       \
  }                                                                                         \
                                                                                            \
  static void NAME##_rows(void *accp, const char *const *rw, int nrows, int64_t w,          \
                          int64_t s, bool first) {                                          \
    T *restrict acc = (T *)accp;                                                            \
    if (nrows == 4 && s == (int64_t)sizeof(T)) {                                            \
      const T *restrict r0 = (const T *)rw[0], *restrict r1 = (const T *)rw[1];             \
      const T *restrict r2 = (const T *)rw[2], *restrict r3 = (const T *)rw[3];             \
      if (first)                                                                            \
        for (int64_t k = 0; k < w; k++)                                                     \
          acc[k] = NAME##_op(NAME##_op(r0[k], r1[k]), NAME##_op(r2[k], r3[k]));             \
      else                                                                                  \
        for (int64_t k = 0; k < w; k++)                                                     \
          acc[k] = NAME##_op(acc[k],                                                        \
                             NAME##_op(NAME##_op(r0[k], r1[k]), NAME##_op(r2[k], r3[k])));  \
    } else if (nrows == 4) {                                                                \
      for (int64_t k = 0; k < w; k++) {                                                     \
        int64_t o = k * s;                                                                  \
        T v = NAME##_op(NAME##_op(*(const T *)(rw[0] + o), *(const T *)(rw[1] + o)),        \
                        NAME##_op(*(const T *)(rw[2] + o), *(const T *)(rw[3] + o)));       \
        acc[k] = first ? v : NAME##_op(acc[k], v);                                          \
      }                                                                                     \
    } else if (s == (int64_t)sizeof(T)) {                                                   \
      const T *restrict r0 = (const T *)rw[0];                                              \
      if (first)                                                                            \
        for (int64_t k = 0; k < w; k++) acc[k] = r0[k];                                     \
      else                                                                                  \
        for (int64_t k = 0; k < w; k++) acc[k] = NAME##_op(acc[k], r0[k]);                  \
    } else {                                                                                \
      for (int64_t k = 0; k < w; k++) {                                                     \
        T v = *(const T *)(rw[0] + k * s);                                                  \
        acc[k] = first ? v : NAME##_op(acc[k], v);                                          \
      }                                                                                     \
    }                                                                                       \
  }                                                                                         \
                                                                                            \
  static void NAME##_combine(void *ap, const void *bp, int64_t w) {                         \
    T *restrict a = (T *)ap;                                                                \
    const T *restrict b = (const T *)bp;                                                    \
    for (int64_t k = 0; k < w; k++) a[k] = NAME##_op(a[k], b[k]);                           \
  }                                                                                         \
                                                                                            \
  static void NAME##_finish(char *out, int64_t os, const void *accp, int64_t w,             \
                            const void *initp) {                                            \
    const T *acc = (const T *)accp;                                                         \
    T init;                                                                                 \
    memcpy(&init, initp, sizeof init);                                                      \
    for (int64_t k = 0; k < w; k++) *(T *)(out + k * os) = NAME##_op(init, acc[k]);         \
  }                                                                                         \
                                                                                            \
  static const tfr_red_kernels NAME = {NAME##_runs, NAME##_rows, NAME##_combine,            \
                                       NAME##_finish};

#define TFR_RED_SCALAR(NAME, T, OP, NACC) \
  TFR_RED_DEFINE(NAME, T, OP, TFR_RED_BLOCK_SCALAR(NAME, T, NACC))

// Numeric combiners over the numeric dtypes (f16 and bf16 are reduced in
// f32: tfr_red_half below). Integers of either signedness add and multiply
// as unsigned types of their width.
#define TFR_RED_NUMERIC(OPN, OP, IOP)                             \
  TFR_RED_SCALAR(tfr_red_##OPN##_i8, uint8_t, IOP, 64)            \
  TFR_RED_SCALAR(tfr_red_##OPN##_i16, uint16_t, IOP, 64)          \
  TFR_RED_SCALAR(tfr_red_##OPN##_i32, uint32_t, OP, 32)           \
  TFR_RED_SCALAR(tfr_red_##OPN##_i64, uint64_t, OP, 16)           \
  TFR_RED_SCALAR(tfr_red_##OPN##_f32, float, OP, 32)              \
  TFR_RED_SCALAR(tfr_red_##OPN##_f64, double, OP, 16)             \
  TFR_RED_SCALAR(tfr_red_##OPN##_c64, tfr_red_c64, OP, 16)        \
  TFR_RED_SCALAR(tfr_red_##OPN##_c128, tfr_red_c128, OP, 8)
TFR_RED_NUMERIC(add, TFR_RED_ADD, TFR_RED_ADD)
TFR_RED_NUMERIC(mul, TFR_RED_MUL, TFR_RED_UMUL)

// Ordered combiners: bool (0/1 bytes: maximum is or, minimum is and), signed
// and unsigned integers, floats.
#define TFR_RED_ORDERED(OPN, IOP, FOP)                                                       \
  TFR_RED_SCALAR(tfr_red_##OPN##_b8, uint8_t, IOP, 64)                                      \
  TFR_RED_SCALAR(tfr_red_##OPN##_i8, int8_t, IOP, 64)                                       \
  TFR_RED_SCALAR(tfr_red_##OPN##_i16, int16_t, IOP, 64)                                     \
  TFR_RED_SCALAR(tfr_red_##OPN##_i32, int32_t, IOP, 32)                                     \
  TFR_RED_SCALAR(tfr_red_##OPN##_i64, int64_t, IOP, 16)                                     \
  TFR_RED_SCALAR(tfr_red_##OPN##_u8, uint8_t, IOP, 64)                                      \
  TFR_RED_SCALAR(tfr_red_##OPN##_u16, uint16_t, IOP, 64)                                    \
  TFR_RED_SCALAR(tfr_red_##OPN##_u32, uint32_t, IOP, 32)                                    \
  TFR_RED_SCALAR(tfr_red_##OPN##_u64, uint64_t, IOP, 16)                                    \
  TFR_RED_DEFINE_TREE(tfr_red_##OPN##_f32, float, FOP,                                      \
                      TFR_RED_BLOCK_FMINMAX(tfr_red_##OPN##_f32, float, __m128, ps, OPN, 32), 0) \
  TFR_RED_DEFINE_TREE(tfr_red_##OPN##_f64, double, FOP,                                     \
                      TFR_RED_BLOCK_FMINMAX(tfr_red_##OPN##_f64, double, __m128d, pd, OPN, 16), 0)
TFR_RED_ORDERED(max, TFR_RED_IMAX, TFR_RED_FMAX)
TFR_RED_ORDERED(min, TFR_RED_IMIN, TFR_RED_FMIN)

// Bitwise combiners: bool and integers, on unsigned types (one kernel per
// width serves both signednesses).
#define TFR_RED_BITWISE(OPN, OP)                                  \
  TFR_RED_SCALAR(tfr_red_##OPN##_b8, uint8_t, OP, 64)             \
  TFR_RED_SCALAR(tfr_red_##OPN##_i16, uint16_t, OP, 64)           \
  TFR_RED_SCALAR(tfr_red_##OPN##_i32, uint32_t, OP, 32)           \
  TFR_RED_SCALAR(tfr_red_##OPN##_i64, uint64_t, OP, 16)
TFR_RED_BITWISE(and, TFR_RED_AND)
TFR_RED_BITWISE(or, TFR_RED_OR)
TFR_RED_BITWISE(xor, TFR_RED_XOR)

// The integer rows: signed and unsigned of one width share the wrapping
// add/multiply and the bitwise kernels (8 bits: the bool kernel's uint8_t).
#define TFR_RED_INT_ROW(OPN, K8)                                                           \
  [TFR_I8] = &tfr_red_##OPN##_##K8, [TFR_I16] = &tfr_red_##OPN##_i16,                     \
  [TFR_I32] = &tfr_red_##OPN##_i32, [TFR_I64] = &tfr_red_##OPN##_i64,                     \
  [TFR_U8] = &tfr_red_##OPN##_##K8, [TFR_U16] = &tfr_red_##OPN##_i16,                     \
  [TFR_U32] = &tfr_red_##OPN##_i32, [TFR_U64] = &tfr_red_##OPN##_i64
#define TFR_RED_ORDERED_ROW(OPN)                                                           \
  [TFR_BOOL] = &tfr_red_##OPN##_b8, [TFR_I8] = &tfr_red_##OPN##_i8,                       \
  [TFR_I16] = &tfr_red_##OPN##_i16, [TFR_I32] = &tfr_red_##OPN##_i32,                     \
  [TFR_I64] = &tfr_red_##OPN##_i64, [TFR_U8] = &tfr_red_##OPN##_u8,                       \
  [TFR_U16] = &tfr_red_##OPN##_u16, [TFR_U32] = &tfr_red_##OPN##_u32,                     \
  [TFR_U64] = &tfr_red_##OPN##_u64, [TFR_F32] = &tfr_red_##OPN##_f32,                     \
  [TFR_F64] = &tfr_red_##OPN##_f64
#define TFR_RED_NUMERIC_ROW(OPN)                                                           \
  TFR_RED_INT_ROW(OPN, i8), [TFR_F32] = &tfr_red_##OPN##_f32,                              \
  [TFR_F64] = &tfr_red_##OPN##_f64, [TFR_C64] = &tfr_red_##OPN##_c64,                     \
  [TFR_C128] = &tfr_red_##OPN##_c128
#define TFR_RED_BITWISE_ROW(OPN) [TFR_BOOL] = &tfr_red_##OPN##_b8, TFR_RED_INT_ROW(OPN, b8)

// The row of a registry dtype group (src/core/op_registry.def); f16 and
// bf16, in NUMERIC and BIF, reduce in f32 (tfr_red_half). A REDUCE row with
// another group fails to compile here until its kernels exist.
#define TFR_RED_ROW_NUMERIC(OPN) TFR_RED_NUMERIC_ROW(OPN)
#define TFR_RED_ROW_BIF(OPN) TFR_RED_ORDERED_ROW(OPN)
#define TFR_RED_ROW_BI(OPN) TFR_RED_BITWISE_ROW(OPN)
// What the cpu adds per combiner: the name of its kernels above.
#define TFR_CPU_RED_REDUCE_ADD add
#define TFR_CPU_RED_REDUCE_MULTIPLY mul
#define TFR_CPU_RED_REDUCE_MAXIMUM max
#define TFR_CPU_RED_REDUCE_MINIMUM min
#define TFR_CPU_RED_REDUCE_AND and
#define TFR_CPU_RED_REDUCE_OR or
#define TFR_CPU_RED_REDUCE_XOR xor
// One pass over the registry: the REDUCE rows, each [combiner] = its row.
#define TFR_RED_FAM_REDUCE(ID, D, param) [param] = {TFR_RED_ROW_##D(TFR_CPU_RED_##ID)},
#define TFR_RED_FAM_UNARY(ID, D, param)
#define TFR_RED_FAM_BINARY(ID, D, param)
#define TFR_RED_FAM_COMPARE(ID, D, param)
#define TFR_RED_FAM_SELECT(ID, D, param)
#define TFR_RED_FAM_CLAMP(ID, D, param)
#define TFR_RED_FAM_CONVERT(ID, D, param)
#define TFR_RED_FAM_STRUCTURAL(ID, D, param)
#define TFR_RED_FAM_DOT(ID, D, param)
#define TFR_RED_FAM_GATHER(ID, D, param)
#define TFR_RED_FAM_SCATTER(ID, D, param)
#define TFR_RED_FAM_WINDOW(ID, D, param)

// [combiner][dtype]; NULL where the registry rejects the pair.
static const tfr_red_kernels *const tfr_red_table[TFR_REDUCE_XOR + 1][TFR_DTYPE_COUNT] = {
#define X(ID, name, FAMILY, ORIGIN, arity, DTYPES, RESULT, TOL, param, attrs) \
  TFR_RED_FAM_##FAMILY(ID, DTYPES, param)
#include "core/op_registry.def"
#undef X
};

// ---------------------------------------------------------------------------
// The plan: canonical axes, layout and tree shape
// ---------------------------------------------------------------------------

// Bytes of accumulators per strip in the lanes layout: wide enough that each
// row is read in long sequential pieces (a new page per piece defeats the
// prefetcher), small enough to stay in L1/L2.
#define TFR_RED_LANE_BYTES 16384
// Inner layout with short reductions: outputs per unit, so that a unit has
// about this many elements (long reductions take one output per unit and
// stream through it).
#define TFR_RED_INNER_UNIT 4096
// Inner runs shorter than this go to the lanes layout (strided lanes).
#define TFR_RED_INNER_MIN_RUN 8

// Axes (core/reduce_axes.h) with strides in bytes.
typedef struct tfr_red_plan {
  const tfr_red_kernels *k;
  const char *in;  // input element at index 0 of every canonical axis
  char *out;       // output element at index 0 of every kept axis
  int nk, nr;
  tfr_red_axis kept[TFR_MAX_RANK];  // by input stride, innermost first
  tfr_red_axis red[TFR_MAX_RANK];   // likewise; at least one
  int64_t m;        // reduced elements per output
  bool lanes;       // layout (see the top of the file)
  bool one_run;     // inner layout, one reduced axis: `runs` does whole subtrees
  int64_t leaf;     // reduced indices per tree leaf
  int64_t w;        // outputs per unit, along kept[0]
  int64_t nchunks;  // units along kept[0]
  int64_t nunits;   // independent units of work
  size_t wbytes;    // bytes of one accumulator buffer (64-byte multiple)
  int levels;       // scratch buffers of one sequential tree evaluation
  _Alignas(16) unsigned char init[16];
} tfr_red_plan;


static void tfr_red_build_axes(const tfr_reduce_desc *d, tfr_red_plan *p) {
  const tfr_tensor *x = d->in, *o = d->out;
  int64_t es = (int64_t)tfr_dtype_size(x->dtype);
  const char *in = tfr_tensor_host_ptr(x);
  char *out = tfr_tensor_host_ptr(o);
  bool reduced[TFR_MAX_RANK] = {false};
  for (int j = 0; j < d->naxes; j++) reduced[d->axes[j]] = true;
  int out_axis[TFR_MAX_RANK];
  for (int k = 0, r = 0; k < x->rank; k++) out_axis[k] = reduced[k] ? -1 : r++;
  p->nk = p->nr = 0;
  // Innermost logical axes first, so that ties in stride keep row-major order.
  for (int k = x->rank - 1; k >= 0; k--) {
    tfr_red_axis a = {x->shape[k], x->strides[k] * es, 0};
    if (!reduced[k]) a.os = o->strides[out_axis[k]] * es;
    if (a.n == 1) continue;
    if (a.s < 0) {
      in += (a.n - 1) * a.s;
      a.s = -a.s;
      if (!reduced[k]) {
        out += (a.n - 1) * a.os;
        a.os = -a.os;
      }
    }
    if (reduced[k])
      tfr_red_insert(p->red, &p->nr, a);
    else
      tfr_red_insert(p->kept, &p->nk, a);
  }
  p->nk = tfr_red_merge_axes(p->kept, p->nk, true);
  p->nr = tfr_red_merge_axes(p->red, p->nr, false);
  if (p->nr == 0) {  // nothing reduced (or extents of 1): one element per output
    p->red[0] = (tfr_red_axis){1, 0, 0};
    p->nr = 1;
  }
  p->in = in;
  p->out = out;
}

static void tfr_red_plan_layout(tfr_red_plan *p, size_t es) {
  p->m = 1;
  for (int j = 0; j < p->nr; j++) p->m *= p->red[j].n;
  if (p->nk == 0)
    p->lanes = false;
  else
    p->lanes = !(tfr_red_key(p->red[0].s) < tfr_red_key(p->kept[0].s) &&
                 p->red[0].n >= TFR_RED_INNER_MIN_RUN);
  int64_t outer = 1;
  for (int j = 1; j < p->nk; j++) outer *= p->kept[j].n;
  if (p->lanes) {
    p->leaf = TFR_RED_LEAF_ROWS;
    p->w = TFR_RED_LANE_BYTES / (int64_t)es;
  } else {
    p->leaf = TFR_RED_LEAF_INNER;
    p->w = p->m >= TFR_RED_LEAF_INNER ? 1 : TFR_RED_INNER_UNIT / p->m;
  }
  int64_t n0 = p->nk > 0 ? p->kept[0].n : 1;
  if (p->w > n0) p->w = n0;
  p->nchunks = (n0 + p->w - 1) / p->w;
  p->nunits = outer * p->nchunks;
  p->one_run = !p->lanes && p->nr == 1;
  p->wbytes = ((size_t)p->w * es + 63) & ~(size_t)63;
  int64_t leaves = (p->m + p->leaf - 1) / p->leaf;
  p->levels = 1;
  while (((int64_t)1 << (p->levels - 1)) < leaves) p->levels++;
}

// ---------------------------------------------------------------------------
// Evaluation
// ---------------------------------------------------------------------------

// Input and output pointers and width of unit `u`.
static void tfr_red_unit(const tfr_red_plan *p, int64_t u, const char **in, char **out,
                         int64_t *w) {
  const char *pi = p->in;
  char *po = p->out;
  *w = 1;
  if (p->nk > 0) {
    int64_t c = u % p->nchunks;
    u /= p->nchunks;
    pi += c * p->w * p->kept[0].s;
    po += c * p->w * p->kept[0].os;
    *w = p->kept[0].n - c * p->w < p->w ? p->kept[0].n - c * p->w : p->w;
  }
  for (int j = 1; j < p->nk; j++) {
    int64_t i = u % p->kept[j].n;
    u /= p->kept[j].n;
    pi += i * p->kept[j].s;
    po += i * p->kept[j].os;
  }
  *in = pi;
  *out = po;
}

// One tree leaf: the reduced indices [lo, lo + cnt) of the unit at `base`,
// combined in order into `acc`.
static void tfr_red_leaf(const tfr_red_plan *p, const char *base, int64_t w, int64_t lo,
                         int64_t cnt, void *acc) {
  int64_t idx[TFR_MAX_RANK];
  int64_t off = 0, rem = lo;
  for (int j = 0; j < p->nr; j++) {
    idx[j] = rem % p->red[j].n;
    rem /= p->red[j].n;
    off += idx[j] * p->red[j].s;
  }
  const tfr_red_axis *r0 = &p->red[0];
  int64_t lane_s = p->nk > 0 ? p->kept[0].s : 0;
  bool first = true;
  const char *rows[4];
  int nrows = 0;
  while (cnt > 0) {
    int64_t step;
    if (p->lanes) {
      rows[nrows++] = base + off;
      if (nrows == 4) {
        p->k->rows(acc, rows, 4, w, lane_s, first);
        first = false;
        nrows = 0;
      }
      step = 1;
    } else {
      step = r0->n - idx[0] < cnt ? r0->n - idx[0] : cnt;
      p->k->runs(acc, base + off, step, r0->s, w, lane_s, first);
      first = false;
    }
    cnt -= step;
    if (cnt == 0) break;
    // Advance the odometer by `step` along the innermost reduced axis.
    idx[0] += step;
    off += step * r0->s;
    for (int j = 0; j + 1 < p->nr && idx[j] == p->red[j].n; j++) {
      idx[j] = 0;
      off -= p->red[j].n * p->red[j].s;
      idx[j + 1]++;
      off += p->red[j + 1].s;
    }
  }
  for (int i = 0; i < nrows; i++) {
    p->k->rows(acc, &rows[i], 1, w, lane_s, first);
    first = false;
  }
}

// A tree node over the reduced indices [lo, lo + cnt) into `acc`; `scratch`
// holds (levels - 1) buffers for the right halves down the recursion.
static void tfr_red_node(const tfr_red_plan *p, const char *base, int64_t w, int64_t lo,
                         int64_t cnt, char *acc, char *scratch) {
  if (cnt <= p->leaf || p->one_run) {
    tfr_red_leaf(p, base, w, lo, cnt, acc);
    return;
  }
  int64_t h = tfr_red_split(cnt, p->leaf);
  tfr_red_node(p, base, w, lo, h, acc, scratch);
  tfr_red_node(p, base, w, lo + h, cnt - h, scratch, scratch + p->wbytes);
  p->k->combine(acc, scratch, w);
}

// The nodes at `depth` below [lo, lo + cnt) (leaves above it stop early), in
// order: evaluated independently, then merged by tfr_red_merge_tops they
// give exactly tfr_red_node's result.
static void tfr_red_tops(const tfr_red_plan *p, int64_t lo, int64_t cnt, int depth,
                         int64_t *los, int64_t *cnts, int *n) {
  if (depth == 0 || cnt <= p->leaf) {
    los[*n] = lo;
    cnts[*n] = cnt;
    (*n)++;
    return;
  }
  int64_t h = tfr_red_split(cnt, p->leaf);
  tfr_red_tops(p, lo, h, depth - 1, los, cnts, n);
  tfr_red_tops(p, lo + h, cnt - h, depth - 1, los, cnts, n);
}

// Combines the evaluated tops in the tree's order; returns the slot holding
// the node's result.
static int tfr_red_merge_tops(const tfr_red_plan *p, int64_t cnt, int depth, char *slots,
                              int64_t w, int *next) {
  if (depth == 0 || cnt <= p->leaf) return (*next)++;
  int64_t h = tfr_red_split(cnt, p->leaf);
  int a = tfr_red_merge_tops(p, h, depth - 1, slots, w, next);
  int b = tfr_red_merge_tops(p, cnt - h, depth - 1, slots, w, next);
  p->k->combine(slots + (size_t)a * p->wbytes, slots + (size_t)b * p->wbytes, w);
  return a;
}

static tfr_status tfr_red_execute(const tfr_red_plan *p, int nt) {
  int64_t os = p->nk > 0 ? p->kept[0].os : 0;
  // Few units with long reductions: split each unit's tree across threads.
  // Otherwise threads take whole units.
  bool split_tree = nt > 1 && p->nunits < 4 * (int64_t)nt && p->m > 2 * p->leaf;
  if (!split_tree && p->nunits < nt) nt = (int)p->nunits;
  int depth = 0;
  while (split_tree && depth < 10 && (1 << depth) < 8 * nt) depth++;
  int maxtops = 1 << depth;
  size_t per_thread = (size_t)(p->levels + 1) * p->wbytes;
  size_t bytes = (size_t)nt * per_thread;
  if (split_tree) bytes += (size_t)maxtops * (p->wbytes + 2 * sizeof(int64_t));
  char *mem = tfr_alloc_aligned(bytes);
  if (!mem)
    return tfr_error(TFR_ERR_OUT_OF_MEMORY, "reduce: cannot allocate %zu bytes of scratch",
                     bytes);
  // Dynamic schedules: on a shared machine a thread that loses its core
  // leaves its remaining pieces to the others. Results do not depend on it.
  if (!split_tree) {
    int64_t chunk = p->nunits / (8 * (int64_t)nt);
    if (chunk < 1) chunk = 1;
    (void)chunk;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(dynamic, chunk) if (nt > 1)
#endif
    for (int64_t u = 0; u < p->nunits; u++) {
      char *buf = mem + (size_t)omp_get_thread_num() * per_thread;
      const char *in;
      char *out;
      int64_t w;
      tfr_red_unit(p, u, &in, &out, &w);
      tfr_red_node(p, in, w, 0, p->m, buf, buf + p->wbytes);
      p->k->finish(out, os, buf, w, p->init);
    }
  } else {
    char *slots = mem + (size_t)nt * per_thread;
    int64_t *los = (int64_t *)(slots + (size_t)maxtops * p->wbytes);
    int64_t *cnts = los + maxtops;
    int ntops = 0;
    tfr_red_tops(p, 0, p->m, depth, los, cnts, &ntops);
    for (int64_t u = 0; u < p->nunits; u++) {
      const char *in;
      char *out;
      int64_t w;
      tfr_red_unit(p, u, &in, &out, &w);
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1)
#endif
      for (int i = 0; i < ntops; i++) {
        char *buf = mem + (size_t)omp_get_thread_num() * per_thread;
        tfr_red_node(p, in, w, los[i], cnts[i], slots + (size_t)i * p->wbytes, buf);
      }
      int next = 0;
      int top = tfr_red_merge_tops(p, p->m, depth, slots, w, &next);
      p->k->finish(out, os, slots + (size_t)top * p->wbytes, w, p->init);
    }
  }
  tfr_free_aligned(mem);
  return TFR_OK;
}

// f16 and bf16: the operand widened to an f32 copy (exact), reduced in f32
// (sums and products accumulate there) and rounded once into out.
static tfr_status tfr_red_half(tfr_backend *b, const tfr_reduce_desc *d) {
  tfr_reduce_desc w = *d;
  uint16_t init;
  memcpy(&init, d->init ? (const void *)tfr_tensor_host_ptr(d->init) : d->init_bytes, sizeof init);
  float init32 = d->dtype == TFR_F16 ? tfr_f16_to_f32(init) : tfr_bf16_to_f32(init);
  w.dtype = TFR_F32;
  w.init = NULL;
  memset(w.init_bytes, 0, sizeof w.init_bytes);
  memcpy(w.init_bytes, &init32, sizeof init32);
  tfr_tensor *in = NULL, *out = NULL;
  tfr_status st = tfr_tensor_alloc(b, TFR_F32, d->in->rank, d->in->shape, false, &in);
  if (!st) st = tfr_tensor_alloc(b, TFR_F32, d->out->rank, d->out->shape, false, &out);
  if (!st) st = tfr_cpu_convert(tfr_cpu_cast(b), d->in, in);
  if (!st) {
    w.in = in;
    w.out = out;
    st = tfr_cpu_reduction(b, &w);
  }
  if (!st) st = tfr_cpu_convert(tfr_cpu_cast(b), out, d->out);
  tfr_tensor_release(in);
  tfr_tensor_release(out);
  return st;
}

tfr_status tfr_cpu_reduction(tfr_backend *b, const tfr_reduce_desc *d) {
  const tfr_tensor *x = d->in, *o = d->out;
  // An empty result has nothing to compute, whatever the dtype (f16/bf16 have
  // no rows in the kernel table: they reduce in f32 through tfr_red_half).
  if (o->numel == 0) return TFR_OK;
  if (d->dtype == TFR_F16 || d->dtype == TFR_BF16) return tfr_red_half(b, d);
  if ((unsigned)d->combiner > TFR_REDUCE_XOR || (unsigned)d->dtype >= TFR_DTYPE_COUNT ||
      !tfr_red_table[d->combiner][d->dtype])
    return tfr_error(TFR_ERR_INTERNAL, "cpu reduce: no kernel for combiner %d, dtype %s",
                     (int)d->combiner, tfr_dtype_name(d->dtype));
  size_t es = tfr_dtype_size(d->dtype);
  const void *init = d->init ? (const void *)tfr_tensor_host_ptr(d->init) : d->init_bytes;
  // A reduced axis of extent 0: every output is the init value.
  bool empty = false;
  for (int j = 0; j < d->naxes; j++) empty |= x->shape[d->axes[j]] == 0;
  if (empty) {
    // Owned results are compact: the outputs are one run, filled by copies
    // of doubling length (a few calls for any size).
    char *out = tfr_tensor_host_ptr(o);
    size_t total = (size_t)o->numel * es, done = es;
    memcpy(out, init, es);
    while (done < total) {
      size_t n = done < total - done ? done : total - done;
      memcpy(out + done, out, n);
      done += n;
    }
    return TFR_OK;
  }
  tfr_red_plan *p = tfr_alloc(sizeof *p);
  if (!p) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "reduce: cannot allocate the plan");
  p->k = tfr_red_table[d->combiner][d->dtype];
  memcpy(p->init, init, es);
  tfr_red_build_axes(d, p);
  tfr_red_plan_layout(p, es);
  int nt = tfr_cpu_threads_for(tfr_cpu_cast(b)->num_threads, x->numel);
  tfr_status st = tfr_red_execute(p, nt < 1 ? 1 : nt);
  tfr_free(p);
  return st;
}
