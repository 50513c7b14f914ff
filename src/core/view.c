// Tensor accessors and views (metadata only; no data moves).
#include <string.h>

#include "core/backend_impl.h"
#include "core/core.h"
#include "tenferro/tensor.h"

tfr_dtype tfr_tensor_dtype(const tfr_tensor *t) { return t->dtype; }
int tfr_tensor_rank(const tfr_tensor *t) { return t->rank; }
const int64_t *tfr_tensor_shape(const tfr_tensor *t) { return t->rank ? t->shape : NULL; }
const int64_t *tfr_tensor_strides(const tfr_tensor *t) { return t->rank ? t->strides : NULL; }
int64_t tfr_tensor_offset(const tfr_tensor *t) { return t->offset; }
int64_t tfr_tensor_numel(const tfr_tensor *t) { return t->numel; }
size_t tfr_tensor_nbytes(const tfr_tensor *t) {
  return (size_t)t->numel * tfr_dtype_size(t->dtype);
}
bool tfr_tensor_is_host(const tfr_tensor *t) { return t->storage->host; }

bool tfr_tensor_is_contiguous(const tfr_tensor *t) {
  if (t->numel == 0) return true;
  int64_t step = 1;
  for (int k = t->rank - 1; k >= 0; k--) {
    if (t->shape[k] == 1) continue;
    if (t->strides[k] != step) return false;
    step *= t->shape[k];
  }
  return true;
}

tfr_status tfr_tensor_host_data(const tfr_tensor *t, void **out_data) {
  if (!t || !out_data)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "tensor_host_data: %s is NULL",
                     t ? "out_data" : "tensor");
  if (!t->storage->host)
    return tfr_error(TFR_ERR_WRONG_BACKEND,
                     "tensor_host_data: the tensor lives on the %s backend, not in host memory; "
                     "copy it with tfr_download first",
                     tfr_backend_name(t->storage->backend));
  *out_data = tfr_tensor_host_ptr(t);
  return TFR_OK;
}

tfr_status tfr_tensor_read(const tfr_tensor *t, void *dst, size_t nbytes) {
  if (!t || !dst)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "tensor_read: %s is NULL", t ? "dst" : "tensor");
  if (!t->storage->host)
    return tfr_error(TFR_ERR_WRONG_BACKEND,
                     "tensor_read: the tensor lives on the %s backend, not in host memory; "
                     "copy it with tfr_download first",
                     tfr_backend_name(t->storage->backend));
  size_t need = tfr_tensor_nbytes(t);
  if (nbytes < need)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "tensor_read: dst has %zu bytes, the tensor needs %zu", nbytes, need);
  if (t->numel == 0) return TFR_OK;
  size_t esize = tfr_dtype_size(t->dtype);
  const char *base = tfr_tensor_host_ptr(t);
  if (tfr_tensor_is_contiguous(t)) {
    memcpy(dst, base, need);
    return TFR_OK;
  }
  // Row-major walk with an index counter; the innermost axis is a tight loop.
  int r = t->rank;
  int64_t idx[TFR_MAX_RANK] = {0};
  char *d = dst;
  int64_t inner = t->shape[r - 1], istride = t->strides[r - 1] * (int64_t)esize;
  for (;;) {
    int64_t off = 0;
    for (int k = 0; k < r - 1; k++) off += idx[k] * t->strides[k];
    const char *src = base + off * (int64_t)esize;
    for (int64_t i = 0; i < inner; i++) {
      memcpy(d, src + i * istride, esize);
      d += esize;
    }
    int k = r - 2;
    while (k >= 0 && ++idx[k] == t->shape[k]) idx[k--] = 0;
    if (k < 0) break;
  }
  return TFR_OK;
}

// ---------------------------------------------------------------------------
// Views
// ---------------------------------------------------------------------------

static int64_t tfr_storage_elements(const tfr_tensor *t) {
  return (int64_t)(t->storage->nbytes / tfr_dtype_size(t->dtype));
}

tfr_status tfr_tensor_view(const tfr_tensor *t, int rank, const int64_t *shape,
                           const int64_t *strides, int64_t offset, tfr_tensor **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "tensor_view: out is NULL");
  *out = NULL;
  if (!t) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "tensor_view: tensor is NULL");
  int64_t numel;
  TFR_RETURN_IF_ERROR(tfr_shape_numel("tensor_view", rank, shape, &numel));
  int64_t compact[TFR_MAX_RANK];
  if (!strides) {
    tfr_compact_strides(rank, shape, compact);
    strides = compact;
  }
  TFR_RETURN_IF_ERROR(tfr_check_layout("tensor_view", rank, shape, strides, offset, numel,
                                       tfr_storage_elements(t)));
  return tfr_tensor_header(t->storage, t->dtype, rank, shape, strides, offset, out);
}

tfr_status tfr_tensor_view_transpose(const tfr_tensor *t, const int64_t *permutation,
                                     tfr_tensor **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "transpose: out is NULL");
  *out = NULL;
  if (!t) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "transpose: operand is NULL");
  if (t->rank > 0 && !permutation)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "transpose: permutation is NULL");
  bool seen[TFR_MAX_RANK] = {false};
  int64_t shape[TFR_MAX_RANK], strides[TFR_MAX_RANK];
  for (int k = 0; k < t->rank; k++) {
    int64_t p = permutation[k];
    if (p < 0 || p >= t->rank || seen[p])
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "transpose: permutation[%d] = %" PRId64
                       " is out of range or repeated (rank %d)",
                       k, p, t->rank);
    seen[p] = true;
    shape[k] = t->shape[p];
    strides[k] = t->strides[p];
  }
  return tfr_tensor_header(t->storage, t->dtype, t->rank, shape, strides, t->offset, out);
}

tfr_status tfr_tensor_view_slice(const tfr_tensor *t, const int64_t *start, const int64_t *limit,
                                 const int64_t *strides, tfr_tensor **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "slice: out is NULL");
  *out = NULL;
  if (!t) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "slice: operand is NULL");
  if (t->rank > 0 && (!start || !limit))
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "slice: %s is NULL",
                     start ? "limit_indices" : "start_indices");
  int64_t shape[TFR_MAX_RANK], st[TFR_MAX_RANK];
  int64_t offset = t->offset;
  bool empty = false;
  for (int k = 0; k < t->rank; k++) {
    int64_t step = strides ? strides[k] : 1;
    if (step < 1)
      return tfr_error(TFR_ERR_INVALID_ARGUMENT, "slice: stride %" PRId64 " of axis %d is < 1",
                       step, k);
    if (start[k] < 0 || start[k] > limit[k] || limit[k] > t->shape[k])
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "slice: axis %d needs 0 <= start (%" PRId64 ") <= limit (%" PRId64
                       ") <= extent (%" PRId64 ")",
                       k, start[k], limit[k], t->shape[k]);
    // (limit - start + step - 1) / step without overflow for a huge step.
    shape[k] = limit[k] == start[k] ? 0 : (limit[k] - start[k] - 1) / step + 1;
    if (shape[k] == 0) empty = true;
  }
  for (int k = 0; k < t->rank; k++) {
    // A non-empty result takes elements of a non-empty operand, whose reach
    // fits in int64: start * stride and, with two or more elements (step <
    // extent), stride * step stay within it. An empty result keeps the
    // operand's offset and strides (an empty operand's compact strides
    // saturate at 2^50, so the products could overflow).
    if (empty) {
      st[k] = t->strides[k];
      continue;
    }
    offset += start[k] * t->strides[k];
    st[k] = shape[k] > 1 ? t->strides[k] * (strides ? strides[k] : 1) : t->strides[k];
  }
  return tfr_tensor_header(t->storage, t->dtype, t->rank, shape, st, offset, out);
}

tfr_status tfr_tensor_view_reverse(const tfr_tensor *t, int naxes, const int64_t *axes,
                                   tfr_tensor **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "reverse: out is NULL");
  *out = NULL;
  if (!t) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "reverse: operand is NULL");
  if (naxes < 0 || naxes > t->rank || (naxes > 0 && !axes))
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "reverse: bad axis list (naxes %d, rank %d)",
                     naxes, t->rank);
  bool seen[TFR_MAX_RANK] = {false};
  int64_t strides[TFR_MAX_RANK];
  int64_t offset = t->offset;
  for (int k = 0; k < t->rank; k++) strides[k] = t->strides[k];
  for (int i = 0; i < naxes; i++) {
    int64_t a = axes[i];
    if (a < 0 || a >= t->rank || seen[a])
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "reverse: dimensions[%d] = %" PRId64 " is out of range or repeated (rank %d)",
                       i, a, t->rank);
    seen[a] = true;
  }
  if (t->numel > 0) {
    for (int i = 0; i < naxes; i++) {
      int64_t a = axes[i];
      offset += (t->shape[a] - 1) * t->strides[a];
      strides[a] = -t->strides[a];
    }
  }
  return tfr_tensor_header(t->storage, t->dtype, t->rank, t->shape, strides, offset, out);
}

tfr_status tfr_tensor_view_broadcast_in_dim(const tfr_tensor *t, int rank, const int64_t *shape,
                                            const int64_t *broadcast_dimensions,
                                            tfr_tensor **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "broadcast_in_dim: out is NULL");
  *out = NULL;
  if (!t) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "broadcast_in_dim: operand is NULL");
  int64_t numel;
  TFR_RETURN_IF_ERROR(tfr_shape_numel("broadcast_in_dim", rank, shape, &numel));
  if (rank < t->rank)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "broadcast_in_dim: result rank %d is less than operand rank %d", rank,
                     t->rank);
  if (t->rank > 0 && !broadcast_dimensions)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "broadcast_in_dim: broadcast_dimensions is NULL");
  int64_t strides[TFR_MAX_RANK] = {0};
  for (int k = 0; k < t->rank; k++) {
    int64_t d = broadcast_dimensions[k];
    if (d < 0 || d >= rank || (k > 0 && d <= broadcast_dimensions[k - 1]))
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "broadcast_in_dim: broadcast_dimensions[%d] = %" PRId64
                       " is out of range [0, %d) or not increasing",
                       k, d, rank);
    if (t->shape[k] != 1 && t->shape[k] != shape[d])
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "broadcast_in_dim: operand axis %d has extent %" PRId64
                       ", result axis %" PRId64 " has extent %" PRId64 " (must be equal or 1)",
                       k, t->shape[k], d, shape[d]);
    strides[d] = t->shape[k] == 1 ? 0 : t->strides[k];
  }
  int64_t offset = t->numel == 0 && numel > 0 ? -1 : t->offset;
  if (offset < 0)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "broadcast_in_dim: cannot broadcast an empty operand to a non-empty shape");
  return tfr_tensor_header(t->storage, t->dtype, rank, shape, strides, offset, out);
}

// Finds strides for `shape` that read the elements of `t` in row-major order,
// or returns false when no strides can (numpy's _attempt_nocopy_reshape).
static bool tfr_reshape_strides(const tfr_tensor *t, int rank, const int64_t *shape,
                                int64_t *strides) {
  // Drop the extent-1 axes of the old layout; they constrain nothing.
  int64_t od[TFR_MAX_RANK], os[TFR_MAX_RANK];
  int on = 0;
  for (int k = 0; k < t->rank; k++)
    if (t->shape[k] != 1) {
      od[on] = t->shape[k];
      os[on] = t->strides[k];
      on++;
    }
  int oi = 0, oj = 1, ni = 0, nj = 1;
  while (ni < rank && oi < on) {
    int64_t np = shape[ni], op = od[oi];
    while (np != op) {
      if (np < op) np *= shape[nj++];
      else op *= od[oj++];
    }
    // Old axes oi..oj-1 must be contiguous among themselves.
    for (int k = oi; k < oj - 1; k++)
      if (os[k] != od[k + 1] * os[k + 1]) return false;
    strides[nj - 1] = os[oj - 1];
    for (int k = nj - 1; k > ni; k--) strides[k - 1] = strides[k] * shape[k];
    ni = nj++;
    oi = oj++;
  }
  // Trailing extent-1 axes of the new shape.
  int64_t last = ni > 0 ? strides[ni - 1] : 1;
  for (int k = ni; k < rank; k++) strides[k] = last;
  return true;
}

tfr_status tfr_tensor_view_reshape(const tfr_tensor *t, int rank, const int64_t *shape,
                                   tfr_tensor **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "reshape: out is NULL");
  *out = NULL;
  if (!t) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "reshape: operand is NULL");
  int64_t numel;
  TFR_RETURN_IF_ERROR(tfr_shape_numel("reshape", rank, shape, &numel));
  if (numel != t->numel)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "reshape: the new shape has %" PRId64 " elements, the operand %" PRId64,
                     numel, t->numel);
  int64_t strides[TFR_MAX_RANK];
  if (numel == 0 || tfr_tensor_is_contiguous(t)) {
    tfr_compact_strides(rank, shape, strides);
  } else if (!tfr_reshape_strides(t, rank, shape, strides)) {
    return tfr_error(TFR_ERR_NOT_VIEWABLE,
                     "reshape: the operand's strides cannot express the new shape without a "
                     "copy (use tfr_reshape or tfr_copy)");
  }
  return tfr_tensor_header(t->storage, t->dtype, rank, shape, strides, t->offset, out);
}
