// Public window ops and bit casts: reduce_window, select_and_scatter,
// bitcast_convert.
//
// None of them has a kernel or a vtable slot of its own: they are built from
// views and public ops (pad, copy, binary, compare, select, iota), so every
// backend that runs those runs these.
//
//   * reduce_window: pad the operand with init_value (edge padding, base
//     dilation as interior padding); then, for each of the prod(window)
//     window offsets o in row-major order, the elements at offset o of all
//     windows form one strided view of the padded operand (start o *
//     window_dilation, steps of window_stride, the result's shape). The
//     result is init_value combined with the view of offset 0, then each
//     further view folded in: acc = combiner(acc, view_o). So every result
//     element is reduced sequentially, from init_value, in row-major window
//     order (float sums round in that order; FORMAT.md's corpus tolerance for
//     accumulating ops covers any order).
//   * select_and_scatter: the same views of the (padded) operand give, in
//     window order, a running best value and the window offset it sits at
//     (compare + select; a candidate replaces the best unless
//     compare(best, candidate) holds, so the first of equal values wins).
//     Padded positions are never selectable: a bool validity mask padded
//     with false rides along. Then, for each offset o, the windows whose
//     choice is o scatter their source element into the view of offset o of
//     the result (one position per window, so no conflicts inside one step):
//     view = select(choice == o, combiner(view, source), view), written in
//     place. Offsets run in reverse row-major order, which makes the source
//     elements reaching one result position arrive in row-major order of
//     their windows (o = position - window * stride decreases as the window
//     index increases), the order of the spec's reduce. Using select instead
//     of folding an identity in keeps unselected positions bit-exact (adding
//     +0 would turn -0 into +0).
//   * bitcast_convert: a compact copy, whose bytes are then read as the new
//     dtype through a tensor header on the same storage.
#include <inttypes.h>
#include <string.h>

#include "core/validate.h"

#define WIN_CHECK_OUT(op)                                                        \
  do {                                                                           \
    if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: out is NULL", op); \
    *out = NULL;                                                                 \
  } while (0)

static const tfr_binary_op win_combiner_ops[] = {
    TFR_ADD, TFR_MULTIPLY, TFR_MAXIMUM, TFR_MINIMUM, TFR_AND, TFR_OR, TFR_XOR,
};

// Element k of the row-major enumeration of a window of extents w[0..r).
static void win_unravel(int64_t k, int r, const int64_t *w, int64_t *idx) {
  for (int a = r - 1; a >= 0; a--) {
    idx[a] = k % w[a];
    k /= w[a];
  }
}

// The view of `src` holding, for every window, its element at window offset
// idx: start idx * dilation, step window stride, extents `shape` (at least 1
// window per axis). dilation/stride NULL mean all 1. The element offsets lie
// inside `src`, so they fit; an axis of one window keeps src's stride, since
// a window stride beyond the extent (any value is valid there) times src's
// stride may overflow and would fail the view's stride limit.
static tfr_status win_offset_view(const tfr_tensor *src, int r, const int64_t *shape,
                                  const int64_t *idx, const int64_t *dilation,
                                  const int64_t *stride, tfr_tensor **out) {
  int64_t strides[TFR_MAX_RANK];
  int64_t off = src->offset;
  for (int k = 0; k < r; k++) {
    off += idx[k] * (dilation ? dilation[k] : 1) * src->strides[k];
    strides[k] = shape[k] > 1 ? src->strides[k] * (stride ? stride[k] : 1) : src->strides[k];
  }
  return tfr_tensor_view(src, r, r ? shape : NULL, r ? strides : NULL, off, out);
}

// A stride-0 view of rank-0 `t` with extents `shape`.
static tfr_status win_broadcast(const tfr_tensor *t, int r, const int64_t *shape,
                                tfr_tensor **out) {
  int64_t zeros[TFR_MAX_RANK] = {0};
  return tfr_tensor_view(t, r, r ? shape : NULL, r ? zeros : NULL, t->offset, out);
}

// Element `i` of 1-D `t` as a stride-0 view with extents `shape`.
static tfr_status win_element_broadcast(const tfr_tensor *t, int64_t i, int r,
                                        const int64_t *shape, tfr_tensor **out) {
  int64_t zeros[TFR_MAX_RANK] = {0};
  return tfr_tensor_view(t, r, r ? shape : NULL, r ? zeros : NULL,
                         t->offset + i * t->strides[0], out);
}

// A new compact tensor of extents `shape` filled with rank-0 `value`.
static tfr_status win_filled(tfr_session *s, const tfr_tensor *value, int r,
                             const int64_t *shape, tfr_tensor **out) {
  tfr_tensor *b = NULL, *t = NULL;
  tfr_status st = win_broadcast(value, r, shape, &b);
  if (!st) st = tfr_copy(s, b, &t);
  tfr_tensor_release(b);
  if (!st) *out = t;
  return st;
}

// The number of positions in a window: the product of its extents, or
// INT64_MAX when that overflows (then the padded operand, which holds a
// window, has more than 2^50 elements and cannot be made).
static int64_t win_positions(int r, const int64_t *window_dimensions) {
  int64_t n = 1;
  for (int k = 0; k < r; k++)
    if (!tfr_mul_i64(n, window_dimensions[k], &n)) return INT64_MAX;
  return n;
}

static bool win_any_padding(int r, const int64_t *padding) {
  for (int k = 0; padding && k < 2 * r; k++)
    if (padding[k] != 0) return true;
  return false;
}

// ---------------------------------------------------------------------------
// reduce_window
// ---------------------------------------------------------------------------

tfr_status tfr_reduce_window_shape(tfr_session *s, const tfr_tensor *operand,
                                   const tfr_tensor *init_value, tfr_reduce_combiner combiner,
                                   const int64_t *window_dimensions,
                                   const int64_t *window_strides, const int64_t *base_dilations,
                                   const int64_t *window_dilations, const int64_t *padding,
                                   int64_t *out_shape) {
  if (!out_shape)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "reduce_window: out_shape is NULL");
  return tfr_validate_reduce_window(s, operand, init_value, combiner, window_dimensions,
                                    window_strides, base_dilations, window_dilations, padding,
                                    out_shape);
}

tfr_status tfr_reduce_window(tfr_session *s, const tfr_tensor *operand,
                             const tfr_tensor *init_value, tfr_reduce_combiner combiner,
                             const int64_t *window_dimensions, const int64_t *window_strides,
                             const int64_t *base_dilations, const int64_t *window_dilations,
                             const int64_t *padding, tfr_tensor **out) {
  WIN_CHECK_OUT("reduce_window");
  int64_t shape[TFR_MAX_RANK];
  TFR_RETURN_IF_ERROR(tfr_validate_reduce_window(s, operand, init_value, combiner,
                                                 window_dimensions, window_strides,
                                                 base_dilations, window_dilations, padding,
                                                 shape));
  int r = operand->rank;
  tfr_tensor *res = NULL;
  TFR_RETURN_IF_ERROR(
      tfr_tensor_alloc(s->backend, operand->dtype, r, r ? shape : NULL, false, &res));
  if (res->numel == 0) {
    *out = res;
    return TFR_OK;
  }
  // The padded, base-dilated operand; the operand itself when neither applies.
  bool dilated = false;
  int64_t lo[TFR_MAX_RANK], hi[TFR_MAX_RANK], interior[TFR_MAX_RANK];
  for (int k = 0; k < r; k++) {
    lo[k] = padding ? padding[2 * k] : 0;
    hi[k] = padding ? padding[2 * k + 1] : 0;
    interior[k] = base_dilations ? base_dilations[k] - 1 : 0;
    if (interior[k]) dilated = true;
  }
  tfr_tensor *src = NULL, *init_b = NULL;
  tfr_status st = TFR_OK;
  if (dilated || win_any_padding(r, padding)) {
    st = tfr_pad(s, operand, init_value, lo, hi, interior, &src);
  } else {
    src = (tfr_tensor *)operand;  // only read; the reference is dropped below
    tfr_tensor_retain(src);
  }
  if (!st) st = win_broadcast(init_value, r, shape, &init_b);
  int64_t nwin = win_positions(r, window_dimensions);
  int64_t idx[TFR_MAX_RANK];
  for (int64_t w = 0; !st && w < nwin; w++) {
    win_unravel(w, r, window_dimensions, idx);
    tfr_tensor *v = NULL;
    st = win_offset_view(src, r, shape, idx, window_dilations, window_strides, &v);
    // acc = combiner(acc, element), acc starting at init_value.
    if (!st) st = tfr_binary_into(s, win_combiner_ops[combiner], w ? res : init_b, v, res);
    tfr_tensor_release(v);
  }
  tfr_tensor_release(init_b);
  tfr_tensor_release(src);
  if (st) tfr_tensor_release(res);
  else *out = res;
  return st;
}

// ---------------------------------------------------------------------------
// select_and_scatter
// ---------------------------------------------------------------------------

// The selection: for every window, the row-major window offset of its
// selected element (*choice, i64, source's shape) and whether it has one
// (*have, bool; NULL when there is no padding, i.e. always).
typedef struct win_select_state {
  tfr_session *s;
  tfr_compare_direction dir;
  int r;
  const int64_t *shape;    // the source's (number of windows per axis)
  const int64_t *wdims;
  const int64_t *wstrides;
  const tfr_tensor *src;   // padded operand
  const tfr_tensor *valid; // padded validity mask, or NULL
  const tfr_tensor *ids;   // iota 0 .. nwin-1 (i32; i64 beyond 2^31 - 1 positions)
} win_select_state;

// One candidate step at window offset w: replaces best/choice/have where the
// candidate wins.
static tfr_status win_select_step(const win_select_state *q, int64_t w, tfr_tensor *best,
                                  tfr_tensor *choice, tfr_tensor *have) {
  int64_t idx[TFR_MAX_RANK];
  win_unravel(w, q->r, q->wdims, idx);
  tfr_tensor *cand = NULL, *keep = NULL, *take = NULL, *cv = NULL, *t1 = NULL, *wid = NULL;
  tfr_status st = win_offset_view(q->src, q->r, q->shape, idx, NULL, q->wstrides, &cand);
  // The current choice stays while compare(best, candidate) holds.
  if (!st) st = tfr_compare(q->s, q->dir, best, cand, &keep);
  if (!st) st = tfr_not(q->s, keep, &take);
  if (!st && q->valid) {
    // take = valid(candidate) and (no choice yet or the candidate wins).
    st = win_offset_view(q->valid, q->r, q->shape, idx, NULL, q->wstrides, &cv);
    if (!st) st = tfr_not(q->s, have, &t1);
    if (!st) st = tfr_binary_into(q->s, TFR_OR, t1, take, take);
    if (!st) st = tfr_binary_into(q->s, TFR_AND, cv, take, take);
    if (!st) st = tfr_binary_into(q->s, TFR_OR, have, cv, have);
  }
  if (!st) st = tfr_select_into(q->s, take, cand, best, best);
  if (!st) st = win_element_broadcast(q->ids, w, q->r, q->shape, &wid);
  if (!st) st = tfr_select_into(q->s, take, wid, choice, choice);
  tfr_tensor_release(cand);
  tfr_tensor_release(keep);
  tfr_tensor_release(take);
  tfr_tensor_release(cv);
  tfr_tensor_release(t1);
  tfr_tensor_release(wid);
  return st;
}

// Scatters the source elements of the windows whose choice is w into the
// view of offset w of `res` (padded operand's shape).
static tfr_status win_scatter_step(const win_select_state *q, tfr_binary_op op, int64_t w,
                                   const tfr_tensor *source, const tfr_tensor *choice,
                                   const tfr_tensor *have, tfr_tensor *res) {
  int64_t idx[TFR_MAX_RANK];
  win_unravel(w, q->r, q->wdims, idx);
  tfr_tensor *wid = NULL, *mask = NULL, *view = NULL, *sum = NULL;
  tfr_status st = win_element_broadcast(q->ids, w, q->r, q->shape, &wid);
  if (!st) st = tfr_compare(q->s, TFR_EQ, choice, wid, &mask);
  if (!st && have) st = tfr_binary_into(q->s, TFR_AND, mask, have, mask);
  if (!st) st = win_offset_view(res, q->r, q->shape, idx, NULL, q->wstrides, &view);
  if (!st) st = tfr_binary(q->s, op, view, source, &sum);
  if (!st) st = tfr_select_into(q->s, mask, sum, view, view);
  tfr_tensor_release(wid);
  tfr_tensor_release(mask);
  tfr_tensor_release(view);
  tfr_tensor_release(sum);
  return st;
}

tfr_status tfr_select_and_scatter(tfr_session *s, const tfr_tensor *operand,
                                  const tfr_tensor *source, const tfr_tensor *init_value,
                                  tfr_compare_direction select_direction,
                                  tfr_reduce_combiner scatter_combiner,
                                  const int64_t *window_dimensions,
                                  const int64_t *window_strides, const int64_t *padding,
                                  tfr_tensor **out) {
  WIN_CHECK_OUT("select_and_scatter");
  TFR_RETURN_IF_ERROR(tfr_validate_select_and_scatter(s, operand, source, init_value,
                                                      select_direction, scatter_combiner,
                                                      window_dimensions, window_strides,
                                                      padding));
  int r = operand->rank;
  bool padded = win_any_padding(r, padding);
  int64_t lo[TFR_MAX_RANK], hi[TFR_MAX_RANK], zero[TFR_MAX_RANK], pshape[TFR_MAX_RANK];
  for (int k = 0; k < r; k++) {
    lo[k] = padding ? padding[2 * k] : 0;
    hi[k] = padding ? padding[2 * k + 1] : 0;
    zero[k] = 0;
    pshape[k] = lo[k] + operand->shape[k] + hi[k];
  }
  int64_t nwin = win_positions(r, window_dimensions);
  tfr_tensor *src = NULL, *valid = NULL, *bools = NULL, *tview = NULL, *fview = NULL,
             *tb = NULL, *res = NULL, *ids = NULL, *best = NULL, *choice = NULL, *have = NULL,
             *v0 = NULL, *result = NULL;
  tfr_status st = TFR_OK;
  if (padded) {
    // Padded operand (the pad value is never selected), and a mask that is
    // true on the operand's elements only. iota gives the bool constants
    // [false, true] on the session's backend.
    int64_t two = 2;
    st = tfr_pad(s, operand, init_value, lo, hi, zero, &src);
    if (!st) st = tfr_iota(s, TFR_BOOL, 1, &two, 0, &bools);
    if (!st) st = tfr_tensor_view(bools, 0, NULL, NULL, bools->offset, &fview);
    if (!st) st = tfr_tensor_view(bools, 0, NULL, NULL, bools->offset + bools->strides[0], &tview);
    if (!st) st = win_broadcast(tview, r, operand->shape, &tb);
    if (!st) st = tfr_pad(s, tb, fview, lo, hi, zero, &valid);
  } else {
    src = (tfr_tensor *)operand;  // only read; the reference is dropped below
    tfr_tensor_retain(src);
  }
  if (!st) st = win_filled(s, init_value, r, pshape, &res);
  if (!st && source->numel > 0) {
    win_select_state q = {s, select_direction, r, source->shape, window_dimensions,
                          window_strides, src, valid, NULL};
    // Window positions are only compared for equality: i32 whenever they
    // fit, which every backend computes on (webgpu has no i64 arithmetic).
    st = tfr_iota(s, nwin <= INT32_MAX ? TFR_I32 : TFR_I64, 1, &nwin, 0, &ids);
    q.ids = ids;
    // Offset 0 starts the running choice.
    int64_t idx0[TFR_MAX_RANK] = {0};
    if (!st) st = win_offset_view(src, r, source->shape, idx0, NULL, window_strides, &v0);
    if (!st) st = tfr_copy(s, v0, &best);
    tfr_tensor_release(v0);
    v0 = NULL;
    if (!st) st = win_filled(s, ids, r, source->shape, &choice);  // ids[0] = 0
    if (!st && valid) {
      st = win_offset_view(valid, r, source->shape, idx0, NULL, window_strides, &v0);
      if (!st) st = tfr_copy(s, v0, &have);
    }
    for (int64_t w = 1; !st && w < nwin; w++) st = win_select_step(&q, w, best, choice, have);
    for (int64_t w = nwin - 1; !st && w >= 0; w--)
      st = win_scatter_step(&q, win_combiner_ops[scatter_combiner], w, source, choice, have,
                            res);
  }
  if (!st && padded) {
    int64_t limit[TFR_MAX_RANK];
    for (int k = 0; k < r; k++) limit[k] = lo[k] + operand->shape[k];
    tfr_tensor *inner = NULL;
    st = tfr_tensor_view_slice(res, lo, limit, NULL, &inner);
    if (!st) st = tfr_copy(s, inner, &result);
    tfr_tensor_release(inner);
  } else if (!st) {
    result = res;
    res = NULL;
  }
  tfr_tensor *all[] = {src, valid, bools, tview, fview, tb, res, ids, best, choice, have, v0};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) tfr_tensor_release(all[i]);
  if (!st) *out = result;
  return st;
}

// ---------------------------------------------------------------------------
// bitcast_convert
// ---------------------------------------------------------------------------

tfr_status tfr_bitcast_convert(tfr_session *s, const tfr_tensor *operand, tfr_dtype dtype,
                               tfr_tensor **out) {
  WIN_CHECK_OUT("bitcast_convert");
  int rank;
  int64_t shape[TFR_MAX_RANK];
  TFR_RETURN_IF_ERROR(tfr_validate_bitcast_convert(s, operand, dtype, &rank, shape));
  // The copy is compact at offset 0, so its bytes are the operand's
  // elements in row-major order: exactly what the new dtype and shape read
  // (the byte count is the same by validation).
  tfr_tensor *c = NULL;
  TFR_RETURN_IF_ERROR(tfr_copy(s, operand, &c));
  tfr_status st = tfr_tensor_header(c->storage, dtype, rank, shape, NULL, 0, out);
  tfr_tensor_release(c);
  return st;
}
