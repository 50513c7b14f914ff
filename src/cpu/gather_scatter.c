// cpu gather and scatter (StableHLO), from the validated index space of
// src/core/backend_impl.h.
//
// Both walk the batch positions b of the index tensor in row-major order,
// keeping the index-tensor pointer and the batch part of the result
// (gather) / updates (scatter) pointer up to date with an odometer. Each b
// turns its index vector once into a byte offset of its window in the
// operand (gather) or result (scatter); the window is then copied or
// combined as rows: its axes are sorted by the destination's strides and
// merged where both sides are contiguous, so a window over trailing axes is
// one memcpy.
//
// Parallelism never changes a result bit:
//   * gather writes disjoint result windows: threads take ranges of b, or,
//     with fewer batch positions than threads, split each window.
//   * scatter applies the windows strictly in the order of b (duplicate
//     indices combine in that order, so float sums are reproducible); only
//     the elements of one window, which are distinct, run on several threads.
#include <string.h>

#include "cpu/cpu.h"
#include "cpu/scalar_math.h"

#ifdef _OPENMP
#include <omp.h>
#endif

// One row of a window: n elements at byte strides ds (destination) and ss
// (source).
typedef void (*gs_row_fn)(int64_t n, char *d, int64_t ds, const char *s, int64_t ss);

// ---------------------------------------------------------------------------
// Windows
// ---------------------------------------------------------------------------

typedef struct gs_window {
  int ndim;  // merged axes, axis 0 innermost (>= 1)
  int64_t numel;
  int64_t shape[TFR_MAX_RANK];
  int64_t dst[TFR_MAX_RANK];  // byte strides
  int64_t src[TFR_MAX_RANK];
} gs_window;

static int64_t gs_abs(int64_t x) { return x < 0 ? -x : x; }

// Window axis i has extent ext[i] and byte strides dst[i], src[i].
static void gs_window_init(gs_window *w, int n, const int64_t *ext, const int64_t *dst,
                           const int64_t *src, int64_t es) {
  int order[TFR_MAX_RANK];
  int m = 0;
  w->numel = 1;
  for (int i = n - 1; i >= 0; i--) {  // later axes first: ties keep row-major order
    w->numel *= ext[i];
    if (ext[i] == 1) continue;
    int j = m++;
    while (j > 0 && gs_abs(dst[order[j - 1]]) > gs_abs(dst[i])) {
      order[j] = order[j - 1];
      j--;
    }
    order[j] = i;
  }
  int nd = 0;
  for (int j = 0; j < m; j++) {
    int i = order[j];
    if (nd > 0 && dst[i] == w->dst[nd - 1] * w->shape[nd - 1] &&
        src[i] == w->src[nd - 1] * w->shape[nd - 1]) {
      w->shape[nd - 1] *= ext[i];
      continue;
    }
    w->shape[nd] = ext[i];
    w->dst[nd] = dst[i];
    w->src[nd] = src[i];
    nd++;
  }
  if (nd == 0) {
    w->shape[0] = 1;
    w->dst[0] = es;
    w->src[0] = es;
    nd = 1;
  }
  w->ndim = nd;
}

// Applies fn to the rows of the window at (d, s) whose outermost index is in
// [o0, o1).
static void gs_walk(const gs_window *w, char *d, const char *s, int64_t o0, int64_t o1,
                    gs_row_fn fn) {
  int top = w->ndim - 1;
  if (top == 0) {
    fn(o1 - o0, d + o0 * w->dst[0], w->dst[0], s + o0 * w->src[0], w->src[0]);
    return;
  }
  int64_t idx[TFR_MAX_RANK];
  for (int64_t o = o0; o < o1; o++) {
    char *dp = d + o * w->dst[top];
    const char *sp = s + o * w->src[top];
    for (int k = 1; k < top; k++) idx[k] = 0;
    for (;;) {
      fn(w->shape[0], dp, w->dst[0], sp, w->src[0]);
      int k = 1;
      for (; k < top; k++) {
        dp += w->dst[k];
        sp += w->src[k];
        if (++idx[k] < w->shape[k]) break;
        dp -= w->dst[k] * w->shape[k];
        sp -= w->src[k] * w->shape[k];
        idx[k] = 0;
      }
      if (k >= top) break;
    }
  }
}

// The whole window, split over up to `nt` threads along its outermost axis
// (the rows of one window never overlap).
static void gs_walk_window(const gs_window *w, char *d, const char *s, gs_row_fn fn, int nt) {
  int64_t outer = w->shape[w->ndim - 1];
  nt = tfr_cpu_threads_for(nt, w->numel);
  if (nt <= 1 || outer < 2) {
    if (w->numel == 1) fn(1, d, w->dst[0], s, w->src[0]);
    else gs_walk(w, d, s, 0, outer, fn);
    return;
  }
#ifdef _OPENMP
#pragma omp parallel num_threads(nt)
  {
    int t = omp_get_thread_num(), n = omp_get_num_threads();
    int64_t chunk = (outer + n - 1) / n;
    int64_t o0 = (int64_t)t * chunk, o1 = o0 + chunk < outer ? o0 + chunk : outer;
    if (o0 < o1) gs_walk(w, d, s, o0, o1, fn);
  }
#else
  gs_walk(w, d, s, 0, outer, fn);
#endif
}

// ---------------------------------------------------------------------------
// Row functions: copies, and the scatter combiners
// ---------------------------------------------------------------------------

#define GS_COPY(NAME, SZ)                                                            \
  static void NAME(int64_t n, char *d, int64_t ds, const char *s, int64_t ss) {      \
    if (n == 1) {                                                                    \
      memcpy(d, s, SZ);                                                              \
    } else if (ds == (SZ) && ss == (SZ)) {                                           \
      memcpy(d, s, (size_t)n * (SZ));                                                \
    } else {                                                                         \
      for (int64_t i = 0; i < n; i++, d += ds, s += ss) memcpy(d, s, SZ);            \
    }                                                                                \
  }
GS_COPY(gs_copy1, 1)
GS_COPY(gs_copy2, 2)
GS_COPY(gs_copy4, 4)
GS_COPY(gs_copy8, 8)
GS_COPY(gs_copy16, 16)

static gs_row_fn gs_copy_fn(size_t es) {
  switch (es) {
    case 1: return gs_copy1;
    case 2: return gs_copy2;
    case 4: return gs_copy4;
    case 8: return gs_copy8;
    default: return gs_copy16;
  }
}

typedef struct gs_c64 {
  float re, im;
} gs_c64;
typedef struct gs_c128 {
  double re, im;
} gs_c128;

// d[i] = OP(d[i], s[i]). The contiguous branch is a plain loop the compiler
// vectorises; updates never alias the result (a fresh tensor).
#define GS_COMBINE(NAME, T, OP)                                                      \
  static void NAME(int64_t n, char *d, int64_t ds, const char *s, int64_t ss) {      \
    if (ds == (int64_t)sizeof(T) && ss == (int64_t)sizeof(T)) {                      \
      T *restrict dp = (T *)d;                                                       \
      const T *restrict sp = (const T *)s;                                           \
      for (int64_t i = 0; i < n; i++) dp[i] = OP(dp[i], sp[i]);                      \
    } else {                                                                         \
      for (int64_t i = 0; i < n; i++, d += ds, s += ss) {                            \
        T a, x;                                                                      \
        memcpy(&a, d, sizeof a);                                                     \
        memcpy(&x, s, sizeof x);                                                     \
        a = OP(a, x);                                                                \
        memcpy(d, &a, sizeof a);                                                     \
      }                                                                              \
    }                                                                                \
  }

// Integers wrap (two's complement) through unsigned arithmetic.
static inline int32_t gs_add_i32(int32_t a, int32_t x) {
  return (int32_t)((uint32_t)a + (uint32_t)x);
}
static inline int64_t gs_add_i64(int64_t a, int64_t x) {
  return (int64_t)((uint64_t)a + (uint64_t)x);
}
static inline int32_t gs_mul_i32(int32_t a, int32_t x) {
  return (int32_t)((uint32_t)a * (uint32_t)x);
}
static inline int64_t gs_mul_i64(int64_t a, int64_t x) {
  return (int64_t)((uint64_t)a * (uint64_t)x);
}
#define GS_ADD(a, x) ((a) + (x))
#define GS_MUL(a, x) ((a) * (x))
#define GS_IMAX(a, x) ((x) > (a) ? (x) : (a))
#define GS_IMIN(a, x) ((x) < (a) ? (x) : (a))
// NaN propagates: a NaN in the result stays (both tests false), a NaN
// update replaces it.
#define GS_FMAX(a, x) (((x) > (a) || (x) != (x)) ? (x) : (a))
#define GS_FMIN(a, x) (((x) < (a) || (x) != (x)) ? (x) : (a))
#define GS_OR(a, x) ((uint8_t)((a) | (x)))
#define GS_AND(a, x) ((uint8_t)((a) & (x)))

// Complex: add and multiply by the textbook formulas (as numpy; no C99
// Annex G recovery of infinities); maximum/minimum lexicographic on (re, im)
// like the binary ops, a NaN in either part propagating (the result's first).
#define GS_COMPLEX_OPS(T)                                                              \
  static inline T T##_add(T a, T x) { return (T){a.re + x.re, a.im + x.im}; }          \
  static inline T T##_mul(T a, T x) {                                                  \
    return (T){a.re * x.re - a.im * x.im, a.re * x.im + a.im * x.re};                  \
  }                                                                                    \
  static inline bool T##_isnan(T a) { return a.re != a.re || a.im != a.im; }           \
  static inline T T##_max(T a, T x) {                                                  \
    if (T##_isnan(a)) return a;                                                        \
    if (T##_isnan(x)) return x;                                                        \
    return (x.re > a.re || (x.re == a.re && x.im > a.im)) ? x : a;                     \
  }                                                                                    \
  static inline T T##_min(T a, T x) {                                                  \
    if (T##_isnan(a)) return a;                                                        \
    if (T##_isnan(x)) return x;                                                        \
    return (x.re < a.re || (x.re == a.re && x.im < a.im)) ? x : a;                     \
  }
GS_COMPLEX_OPS(gs_c64)
GS_COMPLEX_OPS(gs_c128)

GS_COMBINE(gs_add_i32_row, int32_t, gs_add_i32)
GS_COMBINE(gs_add_i64_row, int64_t, gs_add_i64)
GS_COMBINE(gs_add_f32_row, float, GS_ADD)
GS_COMBINE(gs_add_f64_row, double, GS_ADD)
GS_COMBINE(gs_add_c64_row, gs_c64, gs_c64_add)
GS_COMBINE(gs_add_c128_row, gs_c128, gs_c128_add)
GS_COMBINE(gs_mul_i32_row, int32_t, gs_mul_i32)
GS_COMBINE(gs_mul_i64_row, int64_t, gs_mul_i64)
GS_COMBINE(gs_mul_f32_row, float, GS_MUL)
GS_COMBINE(gs_mul_f64_row, double, GS_MUL)
GS_COMBINE(gs_mul_c64_row, gs_c64, gs_c64_mul)
GS_COMBINE(gs_mul_c128_row, gs_c128, gs_c128_mul)
GS_COMBINE(gs_max_b8_row, uint8_t, GS_OR)
GS_COMBINE(gs_max_i32_row, int32_t, GS_IMAX)
GS_COMBINE(gs_max_i64_row, int64_t, GS_IMAX)
GS_COMBINE(gs_max_f32_row, float, GS_FMAX)
GS_COMBINE(gs_max_f64_row, double, GS_FMAX)
GS_COMBINE(gs_max_c64_row, gs_c64, gs_c64_max)
GS_COMBINE(gs_max_c128_row, gs_c128, gs_c128_max)
GS_COMBINE(gs_min_b8_row, uint8_t, GS_AND)
GS_COMBINE(gs_min_i32_row, int32_t, GS_IMIN)
GS_COMBINE(gs_min_i64_row, int64_t, GS_IMIN)
GS_COMBINE(gs_min_f32_row, float, GS_FMIN)
GS_COMBINE(gs_min_f64_row, double, GS_FMIN)
GS_COMBINE(gs_min_c64_row, gs_c64, gs_c64_min)
GS_COMBINE(gs_min_c128_row, gs_c128, gs_c128_min)

// The dtypes added after the first seven combine through the scalar
// functions of the elementwise kernels (same semantics as the binary ops:
// integers wrap, f16/bf16 round each combination once from f32, maximum and
// minimum propagate NaN).
#define GS_SM_COMBINERS(dt, T)                                                        \
  GS_COMBINE(gs_add_##dt##_row, T, tfr_sm_add_##dt)                                  \
  GS_COMBINE(gs_mul_##dt##_row, T, tfr_sm_multiply_##dt)                             \
  GS_COMBINE(gs_max_##dt##_row, T, tfr_sm_maximum_##dt)                              \
  GS_COMBINE(gs_min_##dt##_row, T, tfr_sm_minimum_##dt)
GS_SM_COMBINERS(i8, int8_t)
GS_SM_COMBINERS(i16, int16_t)
GS_SM_COMBINERS(u8, uint8_t)
GS_SM_COMBINERS(u16, uint16_t)
GS_SM_COMBINERS(u32, uint32_t)
GS_SM_COMBINERS(u64, uint64_t)
GS_SM_COMBINERS(f16, tfr_f16_bits)
GS_SM_COMBINERS(bf16, tfr_bf16_bits)
#define GS_SM_ENTRIES(c)                                                              \
  [TFR_I8] = gs_##c##_i8_row, [TFR_I16] = gs_##c##_i16_row, [TFR_U8] = gs_##c##_u8_row,  \
  [TFR_U16] = gs_##c##_u16_row, [TFR_U32] = gs_##c##_u32_row,                           \
  [TFR_U64] = gs_##c##_u64_row, [TFR_F16] = gs_##c##_f16_row,                           \
  [TFR_BF16] = gs_##c##_bf16_row

// [combiner][dtype]; NULL where validation rejects the pair. Replace is the
// copy of the element size (filled in gs_combiner_fn).
static const gs_row_fn gs_combiners[5][TFR_DTYPE_COUNT] = {
    [TFR_SCATTER_ADD] = {NULL, gs_add_i32_row, gs_add_i64_row, gs_add_f32_row, gs_add_f64_row,
                         gs_add_c64_row, gs_add_c128_row, GS_SM_ENTRIES(add)},
    [TFR_SCATTER_MULTIPLY] = {NULL, gs_mul_i32_row, gs_mul_i64_row, gs_mul_f32_row,
                              gs_mul_f64_row, gs_mul_c64_row, gs_mul_c128_row,
                              GS_SM_ENTRIES(mul)},
    [TFR_SCATTER_MAXIMUM] = {gs_max_b8_row, gs_max_i32_row, gs_max_i64_row, gs_max_f32_row,
                             gs_max_f64_row, gs_max_c64_row, gs_max_c128_row,
                             GS_SM_ENTRIES(max)},
    [TFR_SCATTER_MINIMUM] = {gs_min_b8_row, gs_min_i32_row, gs_min_i64_row, gs_min_f32_row,
                             gs_min_f64_row, gs_min_c64_row, gs_min_c128_row,
                             GS_SM_ENTRIES(min)},
};

static gs_row_fn gs_combiner_fn(tfr_scatter_combiner c, tfr_dtype dt) {
  if (c == TFR_SCATTER_REPLACE) return gs_copy_fn(tfr_dtype_size(dt));
  return gs_combiners[c][dt];
}

// ---------------------------------------------------------------------------
// Batch positions and start offsets
// ---------------------------------------------------------------------------

// What turning batch position b into a window offset needs, in bytes.
typedef struct gs_batch {
  int nbatch;
  int64_t nb;  // number of batch positions
  int64_t extent[TFR_MAX_RANK];
  int64_t istride[TFR_MAX_RANK];  // index tensor, per batch axis
  int64_t ostride[TFR_MAX_RANK];  // result (gather) / updates (scatter), per batch axis
  const char *ibase;
  char *obase;
  tfr_dtype idtype;  // of the index tensor
  int64_t vstride;  // between index vector components
  int nstart;
  int64_t start_hi[TFR_MAX_RANK];      // largest start that fits
  int64_t start_stride[TFR_MAX_RANK];  // of the start's axis in the windowed tensor
  int nbatching;
  int64_t batching_pos[TFR_MAX_RANK];
  int64_t batching_stride[TFR_MAX_RANK];
} gs_batch;

// `target` is the tensor the windows live in (operand for gather, result for
// scatter); `other` holds the batch axes besides the index tensor (result
// for gather, updates for scatter) at axes other_axis[j].
static void gs_batch_init(gs_batch *bt, const tfr_index_space *ix, const tfr_tensor *target,
                          const tfr_tensor *other, const int64_t *other_axis) {
  const tfr_tensor *ind = ix->indices;
  int64_t ies = (int64_t)tfr_dtype_size(ind->dtype);
  int64_t oes = (int64_t)tfr_dtype_size(other->dtype);
  int64_t tes = (int64_t)tfr_dtype_size(target->dtype);
  bt->nbatch = ix->nbatch;
  bt->nb = 1;
  for (int j = 0; j < ix->nbatch; j++) {
    bt->extent[j] = ix->batch_extent[j];
    bt->nb *= ix->batch_extent[j];
    bt->istride[j] = ind->strides[ix->batch_index_axis[j]] * ies;
    bt->ostride[j] = other->strides[other_axis[j]] * oes;
  }
  bt->ibase = tfr_tensor_host_ptr(ind);
  bt->obase = tfr_tensor_host_ptr(other);
  bt->idtype = ind->dtype;
  bt->vstride = ix->vector_axis >= 0 ? ind->strides[ix->vector_axis] * ies : 0;
  bt->nstart = ix->nstart;
  for (int k = 0; k < ix->nstart; k++) {
    int64_t a = ix->start_axis[k];
    bt->start_hi[k] = target->shape[a] - ix->window_size[a];
    bt->start_stride[k] = target->strides[a] * tes;
  }
  bt->nbatching = ix->nbatching;
  for (int i = 0; i < ix->nbatching; i++) {
    bt->batching_pos[i] = ix->batching_pos[i];
    bt->batching_stride[i] = target->strides[ix->batching_axis[i]] * tes;
  }
}

// Byte offset in the target of the window of the batch position at index
// vector `ip` and multi-index `idx`. Starts are clamped when `clamp`; else a
// start that does not fit returns false (the window is skipped).
static inline bool gs_window_offset(const gs_batch *bt, const char *ip, const int64_t *idx,
                                    bool clamp, int64_t *off) {
  int64_t o = 0;
  for (int k = 0; k < bt->nstart; k++) {
    const char *p = ip + k * bt->vstride;
    int64_t v = tfr_read_index(bt->idtype, p);
    int64_t hi = bt->start_hi[k];
    if (v < 0 || v > hi) {
      if (!clamp) return false;
      v = v < 0 ? 0 : hi;
    }
    o += v * bt->start_stride[k];
  }
  for (int i = 0; i < bt->nbatching; i++) o += idx[bt->batching_pos[i]] * bt->batching_stride[i];
  *off = o;
  return true;
}

// Positions the odometer at batch position b0.
static void gs_batch_seek(const gs_batch *bt, int64_t b0, int64_t *idx, const char **ip,
                          char **optr) {
  const char *i = bt->ibase;
  char *o = bt->obase;
  int64_t rem = b0;
  for (int j = bt->nbatch - 1; j >= 0; j--) {
    idx[j] = rem % bt->extent[j];
    rem /= bt->extent[j];
    i += idx[j] * bt->istride[j];
    o += idx[j] * bt->ostride[j];
  }
  *ip = i;
  *optr = o;
}

static inline void gs_batch_next(const gs_batch *bt, int64_t *idx, const char **ip, char **optr) {
  for (int j = bt->nbatch - 1; j >= 0; j--) {
    *ip += bt->istride[j];
    *optr += bt->ostride[j];
    if (++idx[j] < bt->extent[j]) return;
    *ip -= bt->istride[j] * bt->extent[j];
    *optr -= bt->ostride[j] * bt->extent[j];
    idx[j] = 0;
  }
}

// ---------------------------------------------------------------------------
// gather
// ---------------------------------------------------------------------------

typedef struct gs_gather_ctx {
  const gs_batch *bt;
  const gs_window *w;
  const char *src;  // operand element (0, .., 0)
  gs_row_fn fn;
} gs_gather_ctx;

static void gs_gather_range(const gs_gather_ctx *c, int64_t b0, int64_t b1, int nt) {
  int64_t idx[TFR_MAX_RANK];
  const char *ip;
  char *op;
  gs_batch_seek(c->bt, b0, idx, &ip, &op);
  for (int64_t b = b0; b < b1; b++) {
    int64_t off;
    gs_window_offset(c->bt, ip, idx, true, &off);
    gs_walk_window(c->w, op, c->src + off, c->fn, nt);
    gs_batch_next(c->bt, idx, &ip, &op);
  }
}

tfr_status tfr_cpu_gather(tfr_backend *b, const tfr_gather_desc *d) {
  tfr_cpu_backend *cpu = tfr_cpu_cast(b);
  const tfr_tensor *operand = d->operand, *out = d->out;
  const tfr_index_space *ix = &d->ix;
  if (out->numel == 0) return TFR_OK;
  int64_t es = (int64_t)tfr_dtype_size(d->dtype);
  int64_t dst[TFR_MAX_RANK], src[TFR_MAX_RANK];
  for (int i = 0; i < ix->nwindow; i++) {
    dst[i] = out->strides[d->window_out_axis[i]] * es;
    src[i] = operand->strides[ix->window_axis[i]] * es;
  }
  gs_window w;
  gs_window_init(&w, ix->nwindow, ix->window_extent, dst, src, es);
  gs_batch bt;
  gs_batch_init(&bt, ix, operand, out, d->batch_out_axis);
  gs_gather_ctx c = {.bt = &bt, .w = &w, .src = tfr_tensor_host_ptr(operand),
                     .fn = gs_copy_fn((size_t)es)};
  int nt = tfr_cpu_threads_for(cpu->num_threads, out->numel);
  if (nt <= 1 || bt.nb < nt) {
    // One thread, or few large windows: each window may split over threads.
    gs_gather_range(&c, 0, bt.nb, nt);
    return TFR_OK;
  }
#ifdef _OPENMP
#pragma omp parallel num_threads(nt)
  {
    int t = omp_get_thread_num(), n = omp_get_num_threads();
    int64_t chunk = (bt.nb + n - 1) / n;
    int64_t b0 = (int64_t)t * chunk, b1 = b0 + chunk < bt.nb ? b0 + chunk : bt.nb;
    if (b0 < b1) gs_gather_range(&c, b0, b1, 1);
  }
#else
  gs_gather_range(&c, 0, bt.nb, 1);
#endif
  return TFR_OK;
}

// ---------------------------------------------------------------------------
// scatter
// ---------------------------------------------------------------------------

tfr_status tfr_cpu_scatter(tfr_backend *b, const tfr_scatter_desc *d) {
  tfr_cpu_backend *cpu = tfr_cpu_cast(b);
  tfr_tensor *out = d->out;
  const tfr_tensor *upd = d->updates;
  const tfr_index_space *ix = &d->ix;
  if (d->operand) {
    tfr_structural_desc copy = {.kind = TFR_STRUCT_CONVERT, .in = d->operand, .out = out};
    TFR_RETURN_IF_ERROR(tfr_cpu_structural(b, &copy));
  }
  if (out->numel == 0 || upd->numel == 0) return TFR_OK;
  int64_t es = (int64_t)tfr_dtype_size(d->dtype);
  int64_t dst[TFR_MAX_RANK], src[TFR_MAX_RANK];
  for (int i = 0; i < ix->nwindow; i++) {
    dst[i] = out->strides[ix->window_axis[i]] * es;
    src[i] = upd->strides[d->window_update_axis[i]] * es;
  }
  gs_window w;
  gs_window_init(&w, ix->nwindow, ix->window_extent, dst, src, es);
  gs_batch bt;
  gs_batch_init(&bt, ix, out, upd, d->batch_update_axis);
  gs_row_fn fn = gs_combiner_fn(d->combiner, d->dtype);
  if (!fn)
    return tfr_error(TFR_ERR_INTERNAL, "cpu scatter: no kernel for combiner %d on %s",
                     (int)d->combiner, tfr_dtype_name(d->dtype));
  char *base = tfr_tensor_host_ptr(out);
  int64_t idx[TFR_MAX_RANK];
  const char *ip;
  char *up;
  gs_batch_seek(&bt, 0, idx, &ip, &up);
  for (int64_t i = 0; i < bt.nb; i++) {
    int64_t off;
    if (gs_window_offset(&bt, ip, idx, d->clamp_starts, &off))
      gs_walk_window(&w, base + off, up, fn, cpu->num_threads);
    gs_batch_next(&bt, idx, &ip, &up);
  }
  return TFR_OK;
}
