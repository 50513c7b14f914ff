// Public indexing ops: slice, reverse, dynamic_slice, dynamic_update_slice,
// pad, concatenate, gather, scatter.
//
// Everything except gather and scatter is a view plus the backend's strided
// copy (the `structural` slot, TFR_STRUCT_CONVERT): no op-specific kernels.
//   * slice / reverse: copy the view.
//   * pad: fill the result with a stride-0 broadcast of padding_value, then
//     copy the operand into the strided interior view of the result; negative
//     edge padding crops the operand view instead.
//   * concatenate: copy each input into its slice of the result.
//   * dynamic_slice / dynamic_update_slice: the start indices are tensors.
//     On a host-memory backend (cpu) the core reads them, clamps them and
//     copies through a view. A device backend cannot be read here without a
//     synchronising download, so there the op is lowered instead: the starts
//     are copied (on the device) into one index vector, and the op runs as
//     a gather (clamping is gather's own rule) or as a replace scatter with
//     `clamp_starts` set. Both paths are tested on the cpu (the lowering
//     through tfr_indexing_force_lowering_for_tests).
#include <stdatomic.h>
#include <string.h>

#include "core/validate.h"

// Test hook: when set, dynamic_slice / dynamic_update_slice take the
// device-style lowering on every backend. Declared by the tests only.
void tfr_indexing_force_lowering_for_tests(bool on);
static atomic_bool tfr_force_lowering;
void tfr_indexing_force_lowering_for_tests(bool on) { atomic_store(&tfr_force_lowering, on); }

// Copies `in` into `out` (same shape) with the backend's strided copy.
static tfr_status ix_copy(tfr_session *s, const tfr_tensor *in, tfr_tensor *out) {
  if (out->numel == 0) return TFR_OK;
  tfr_structural_desc d = {.kind = TFR_STRUCT_CONVERT, .in = in, .out = out};
  return s->backend->vtable->structural(s->backend, &d);
}

// A new compact tensor holding a copy of `view`; releases `view`.
static tfr_status ix_copy_view(tfr_session *s, tfr_tensor *view, tfr_tensor **out) {
  tfr_tensor *t = NULL;
  tfr_status st = tfr_tensor_alloc(s->backend, view->dtype, view->rank, view->shape, false, &t);
  if (!st) st = ix_copy(s, view, t);
  tfr_tensor_release(view);
  if (st) tfr_tensor_release(t);
  else *out = t;
  return st;
}

#define IX_CHECK_OUT(op)                                                         \
  do {                                                                           \
    if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: out is NULL", op); \
    *out = NULL;                                                                 \
  } while (0)

tfr_status tfr_slice(tfr_session *s, const tfr_tensor *operand, const int64_t *start_indices,
                     const int64_t *limit_indices, const int64_t *strides, tfr_tensor **out) {
  IX_CHECK_OUT("slice");
  int64_t shape[TFR_MAX_RANK];
  TFR_RETURN_IF_ERROR(
      tfr_validate_slice(s, operand, start_indices, limit_indices, strides, shape));
  tfr_tensor *view = NULL;
  TFR_RETURN_IF_ERROR(
      tfr_tensor_view_slice(operand, start_indices, limit_indices, strides, &view));
  return ix_copy_view(s, view, out);
}

tfr_status tfr_reverse(tfr_session *s, const tfr_tensor *operand, int n,
                       const int64_t *dimensions, tfr_tensor **out) {
  IX_CHECK_OUT("reverse");
  TFR_RETURN_IF_ERROR(tfr_validate_reverse(s, operand, n, dimensions));
  tfr_tensor *view = NULL;
  TFR_RETURN_IF_ERROR(tfr_tensor_view_reverse(operand, n, dimensions, &view));
  return ix_copy_view(s, view, out);
}

// ---------------------------------------------------------------------------
// dynamic_slice, dynamic_update_slice
// ---------------------------------------------------------------------------

// Reads rank-0 host start tensor `t` (any integer dtype) and clamps it to
// [0, hi].
static int64_t ix_read_start(const tfr_tensor *t, int64_t hi) {
  int64_t v = tfr_read_index(t->dtype, tfr_tensor_host_ptr(t));
  return v < 0 ? 0 : v > hi ? hi : v;
}

static bool ix_use_lowering(const tfr_session *s) {
  return !s->backend->host_memory || atomic_load(&tfr_force_lowering);
}

// The starts as one compact index vector on the session's backend, built
// with the backend's copies only (no host read). Its dtype is the starts'
// (validation makes them share one), so the copies move bits and need no
// conversion (a device backend may not convert i32 to i64).
static tfr_status ix_start_vector(tfr_session *s, int rank, const tfr_tensor *const *starts,
                                  tfr_tensor **out) {
  tfr_tensor *vec = NULL;
  int64_t n = rank;
  TFR_RETURN_IF_ERROR(tfr_tensor_alloc(s->backend, starts[0]->dtype, 1, &n, false, &vec));
  tfr_status st = TFR_OK;
  for (int k = 0; k < rank && !st; k++) {
    tfr_tensor *src = NULL, *dst = NULL;
    int64_t one = 1, lo = k, hi = k + 1;
    st = tfr_tensor_view_reshape(starts[k], 1, &one, &src);
    if (!st) st = tfr_tensor_view_slice(vec, &lo, &hi, NULL, &dst);
    if (!st) st = ix_copy(s, src, dst);
    tfr_tensor_release(src);
    tfr_tensor_release(dst);
  }
  if (st) tfr_tensor_release(vec);
  else *out = vec;
  return st;
}

// dimension numbers of "the whole operand is one window starting at the
// index vector": axes 0..rank-1 everywhere, index_vector_dim 0.
static void ix_identity_axes(int rank, int64_t *axes) {
  for (int k = 0; k < rank; k++) axes[k] = k;
}

static tfr_status ix_dynamic_slice_lowered(tfr_session *s, const tfr_tensor *operand,
                                           const tfr_tensor *const *starts,
                                           const int64_t *slice_sizes, tfr_tensor **out) {
  int r = operand->rank;
  tfr_tensor *vec = NULL;
  TFR_RETURN_IF_ERROR(ix_start_vector(s, r, starts, &vec));
  int64_t axes[TFR_MAX_RANK];
  ix_identity_axes(r, axes);
  tfr_gather_config c = {
      .num_offset_dims = r,
      .offset_dims = axes,
      .num_start_index_map = r,
      .start_index_map = axes,
      .index_vector_dim = 0,
      .slice_sizes = slice_sizes,
  };
  tfr_status st = tfr_gather(s, operand, vec, &c, out);
  tfr_tensor_release(vec);
  return st;
}

tfr_status tfr_dynamic_slice(tfr_session *s, const tfr_tensor *operand,
                             const tfr_tensor *const *start_indices, const int64_t *slice_sizes,
                             tfr_tensor **out) {
  IX_CHECK_OUT("dynamic_slice");
  TFR_RETURN_IF_ERROR(tfr_validate_dynamic_slice(s, operand, start_indices, slice_sizes));
  int r = operand->rank;
  if (ix_use_lowering(s) && r > 0)
    return ix_dynamic_slice_lowered(s, operand, start_indices, slice_sizes, out);
  int64_t start[TFR_MAX_RANK], limit[TFR_MAX_RANK];
  for (int k = 0; k < r; k++) {
    start[k] = ix_read_start(start_indices[k], operand->shape[k] - slice_sizes[k]);
    limit[k] = start[k] + slice_sizes[k];
  }
  tfr_tensor *view = NULL;
  TFR_RETURN_IF_ERROR(tfr_tensor_view_slice(operand, start, limit, NULL, &view));
  return ix_copy_view(s, view, out);
}

tfr_status tfr_dynamic_update_slice(tfr_session *s, const tfr_tensor *operand,
                                    const tfr_tensor *update,
                                    const tfr_tensor *const *start_indices, tfr_tensor **out) {
  IX_CHECK_OUT("dynamic_update_slice");
  TFR_RETURN_IF_ERROR(tfr_validate_dynamic_update_slice(s, operand, update, start_indices));
  int r = operand->rank;
  tfr_tensor *res = NULL;
  TFR_RETURN_IF_ERROR(tfr_tensor_alloc(s->backend, operand->dtype, r, operand->shape, false, &res));
  tfr_status st = ix_copy(s, operand, res);
  if (st || update->numel == 0) goto done;
  if (ix_use_lowering(s) && r > 0) {
    tfr_tensor *vec = NULL;
    st = ix_start_vector(s, r, start_indices, &vec);
    if (st) goto done;
    int64_t axes[TFR_MAX_RANK];
    ix_identity_axes(r, axes);
    tfr_scatter_config c = {
        .num_update_window_dims = r,
        .update_window_dims = axes,
        .num_scatter_dims_to_operand_dims = r,
        .scatter_dims_to_operand_dims = axes,
        .index_vector_dim = 0,
        .combiner = TFR_SCATTER_REPLACE,
    };
    tfr_scatter_desc d;
    st = tfr_validate_scatter(s, res, vec, update, &c, &d);
    if (!st) {
      d.out = res;
      d.clamp_starts = true;
      st = s->backend->vtable->scatter(s->backend, &d);
    }
    tfr_tensor_release(vec);
    goto done;
  }
  {
    int64_t start[TFR_MAX_RANK], limit[TFR_MAX_RANK];
    for (int k = 0; k < r; k++) {
      start[k] = ix_read_start(start_indices[k], operand->shape[k] - update->shape[k]);
      limit[k] = start[k] + update->shape[k];
    }
    tfr_tensor *view = NULL;
    st = tfr_tensor_view_slice(res, start, limit, NULL, &view);
    if (!st) st = ix_copy(s, update, view);
    tfr_tensor_release(view);
  }
done:
  if (st) tfr_tensor_release(res);
  else *out = res;
  return st;
}

// ---------------------------------------------------------------------------
// pad, concatenate
// ---------------------------------------------------------------------------

tfr_status tfr_pad(tfr_session *s, const tfr_tensor *operand, const tfr_tensor *padding_value,
                   const int64_t *edge_padding_low, const int64_t *edge_padding_high,
                   const int64_t *interior_padding, tfr_tensor **out) {
  IX_CHECK_OUT("pad");
  int64_t shape[TFR_MAX_RANK];
  TFR_RETURN_IF_ERROR(tfr_validate_pad(s, operand, padding_value, edge_padding_low,
                                       edge_padding_high, interior_padding, shape));
  int r = operand->rank;
  tfr_tensor *res = NULL;
  TFR_RETURN_IF_ERROR(tfr_tensor_alloc(s->backend, operand->dtype, r, shape, false, &res));
  // Per axis, operand elements [first, first + count) land in the result at
  // low + i * (interior + 1); the rest fall off a negative edge.
  int64_t first[TFR_MAX_RANK], limit[TFR_MAX_RANK], dst_strides[TFR_MAX_RANK];
  int64_t dst_shape[TFR_MAX_RANK], pos[TFR_MAX_RANK], dst_offset = 0;
  bool covers = true, empty = false;
  for (int k = 0; k < r; k++) {
    // Validation bounds the result extent, not low and high: either may be
    // near INT64_MIN/MAX, so the arithmetic here is in uint64 where it could
    // overflow.
    int64_t lo = edge_padding_low[k], d = operand->shape[k];
    uint64_t step = (uint64_t)interior_padding[k] + 1;
    // f: the first i with lo + i * step >= 0.
    uint64_t neg = lo >= 0 ? 0 : (uint64_t)(-(lo + 1)) + 1;
    uint64_t f = neg / step + (neg % step != 0);
    // e: one past the last i with lo + i * step < extent.
    uint64_t room = (uint64_t)shape[k] - (uint64_t)lo;  // extent - lo, modulo 2^64
    uint64_t e = shape[k] <= lo ? 0 : room / step + (room % step != 0);
    if (e > (uint64_t)d) e = (uint64_t)d;
    if (f > e) f = e;
    first[k] = (int64_t)f;
    limit[k] = (int64_t)e;
    dst_shape[k] = (int64_t)(e - f);
    if (e == f) empty = true;
    pos[k] = (int64_t)((uint64_t)lo + f * step);  // used only when nothing is empty
    if (dst_shape[k] != shape[k] || step != 1) covers = false;
  }
  // The destination's strides and first offset, only for a non-empty copy: an
  // empty result may have huge extents and saturated strides on its other
  // axes. With two or more surviving elements, (count - 1) * step is within
  // the validated extent; with fewer the stride is never used.
  for (int k = 0; k < r && !empty; k++) {
    uint64_t step = (uint64_t)interior_padding[k] + 1;
    dst_strides[k] = dst_shape[k] > 1 ? res->strides[k] * (int64_t)step : res->strides[k];
    dst_offset += pos[k] * res->strides[k];
  }
  tfr_status st = TFR_OK;
  if (!covers || empty) {
    tfr_tensor *fill = NULL;
    st = tfr_tensor_view_broadcast_in_dim(padding_value, r, shape, NULL, &fill);
    if (!st) st = ix_copy(s, fill, res);
    tfr_tensor_release(fill);
  }
  if (!st && !empty && operand->numel > 0) {
    tfr_tensor *src = NULL, *dst = NULL;
    st = tfr_tensor_view_slice(operand, first, limit, NULL, &src);
    if (!st) st = tfr_tensor_header(res->storage, res->dtype, r, dst_shape, dst_strides,
                                    dst_offset, &dst);
    if (!st) st = ix_copy(s, src, dst);
    tfr_tensor_release(src);
    tfr_tensor_release(dst);
  }
  if (st) tfr_tensor_release(res);
  else *out = res;
  return st;
}

// The `_shape` forms (ops.h): the op's own validation, which writes the shape.
#define IX_CHECK_SHAPE(op, p)                                                        \
  do {                                                                               \
    if (!(p)) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: " #p " is NULL", op); \
  } while (0)

tfr_status tfr_pad_shape(tfr_session *s, const tfr_tensor *operand,
                         const tfr_tensor *padding_value, const int64_t *edge_padding_low,
                         const int64_t *edge_padding_high, const int64_t *interior_padding,
                         int64_t *out_shape) {
  IX_CHECK_SHAPE("pad", out_shape);
  return tfr_validate_pad(s, operand, padding_value, edge_padding_low, edge_padding_high,
                          interior_padding, out_shape);
}

tfr_status tfr_concatenate_shape(tfr_session *s, int n, const tfr_tensor *const *inputs,
                                 int dimension, int64_t *out_shape) {
  IX_CHECK_SHAPE("concatenate", out_shape);
  return tfr_validate_concatenate(s, n, inputs, dimension, out_shape);
}

tfr_status tfr_gather_shape(tfr_session *s, const tfr_tensor *operand,
                            const tfr_tensor *start_indices, const tfr_gather_config *config,
                            int *out_rank, int64_t *out_shape) {
  IX_CHECK_SHAPE("gather", out_rank);
  IX_CHECK_SHAPE("gather", out_shape);
  tfr_gather_desc d;
  return tfr_validate_gather(s, operand, start_indices, config, &d, out_rank, out_shape);
}

tfr_status tfr_concatenate(tfr_session *s, int n, const tfr_tensor *const *inputs, int dimension,
                           tfr_tensor **out) {
  IX_CHECK_OUT("concatenate");
  int64_t shape[TFR_MAX_RANK];
  TFR_RETURN_IF_ERROR(tfr_validate_concatenate(s, n, inputs, dimension, shape));
  int r = inputs[0]->rank;
  tfr_tensor *res = NULL;
  TFR_RETURN_IF_ERROR(tfr_tensor_alloc(s->backend, inputs[0]->dtype, r, shape, false, &res));
  tfr_status st = TFR_OK;
  int64_t pos = 0;
  for (int i = 0; i < n && !st; i++) {
    const tfr_tensor *in = inputs[i];
    if (in->numel > 0) {
      tfr_tensor *dst = NULL;
      st = tfr_tensor_header(res->storage, res->dtype, r, in->shape, res->strides,
                             pos * res->strides[dimension], &dst);
      if (!st) st = ix_copy(s, in, dst);
      tfr_tensor_release(dst);
    }
    pos += in->shape[dimension];
  }
  if (st) tfr_tensor_release(res);
  else *out = res;
  return st;
}

// ---------------------------------------------------------------------------
// gather, scatter
// ---------------------------------------------------------------------------

tfr_status tfr_gather(tfr_session *s, const tfr_tensor *operand, const tfr_tensor *start_indices,
                      const tfr_gather_config *config, tfr_tensor **out) {
  IX_CHECK_OUT("gather");
  tfr_gather_desc d;
  int rank;
  int64_t shape[TFR_MAX_RANK];
  TFR_RETURN_IF_ERROR(tfr_validate_gather(s, operand, start_indices, config, &d, &rank, shape));
  tfr_tensor *res = NULL;
  TFR_RETURN_IF_ERROR(tfr_tensor_alloc(s->backend, operand->dtype, rank, shape, false, &res));
  tfr_status st = TFR_OK;
  if (res->numel > 0) {
    d.out = res;
    st = s->backend->vtable->gather(s->backend, &d);
  }
  if (st) tfr_tensor_release(res);
  else *out = res;
  return st;
}

tfr_status tfr_scatter(tfr_session *s, const tfr_tensor *operand,
                       const tfr_tensor *scatter_indices, const tfr_tensor *updates,
                       const tfr_scatter_config *config, tfr_tensor **out) {
  IX_CHECK_OUT("scatter");
  tfr_scatter_desc d;
  TFR_RETURN_IF_ERROR(tfr_validate_scatter(s, operand, scatter_indices, updates, config, &d));
  tfr_tensor *res = NULL;
  TFR_RETURN_IF_ERROR(
      tfr_tensor_alloc(s->backend, operand->dtype, operand->rank, operand->shape, false, &res));
  tfr_status st = TFR_OK;
  if (res->numel > 0 && updates->numel > 0) {
    d.out = res;
    d.operand = operand;  // the backend copies it (tfr_scatter_desc)
    st = s->backend->vtable->scatter(s->backend, &d);
  } else {
    st = ix_copy(s, operand, res);
  }
  if (st) tfr_tensor_release(res);
  else *out = res;
  return st;
}
