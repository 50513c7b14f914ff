// Tensors, storages and views.
#include <stdlib.h>
#include <string.h>

#include "core/backend_impl.h"
#include "core/core.h"
#include "core/live.h"
#include "tenferro/tensor.h"

// ---------------------------------------------------------------------------
// Storage
// ---------------------------------------------------------------------------

void tfr_storage_retain(tfr_storage *s) {
  if (s) atomic_fetch_add_explicit(&s->refcount, 1, memory_order_relaxed);
}

void tfr_storage_release(tfr_storage *s) {
  if (!s) return;
  if (atomic_fetch_sub_explicit(&s->refcount, 1, memory_order_acq_rel) != 1) return;
  if (s->wrapped) {
    if (s->release) s->release(s->release_ctx, s->data);
  } else if (s->backend) {
    s->backend->vtable->storage_free(s->backend, s);
  } else {
    tfr_free_aligned(s->data);
  }
  tfr_backend *owner = s->backend;
  tfr_free(s);
  tfr_live_sub(TFR_OBJECT_STORAGE);
  tfr_backend_release(owner);
}

// A host storage of `nbytes` owned by no backend.
static tfr_status tfr_host_storage_create(size_t nbytes, bool zero, tfr_storage **out) {
  tfr_storage *s = tfr_calloc(1, sizeof *s);
  if (!s) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "tensor: out of host memory");
  s->data = tfr_alloc_aligned(nbytes);
  if (!s->data) {
    tfr_free(s);
    return tfr_error(TFR_ERR_OUT_OF_MEMORY, "tensor: cannot allocate %zu bytes of host memory",
                     nbytes);
  }
  if (zero) memset(s->data, 0, nbytes);
  atomic_init(&s->refcount, 1);
  tfr_live_add(TFR_OBJECT_STORAGE);
  s->host = true;
  s->nbytes = nbytes;
  s->capacity = nbytes;
  *out = s;
  return TFR_OK;
}

// ---------------------------------------------------------------------------
// Shapes
// ---------------------------------------------------------------------------

void tfr_compact_strides(int rank, const int64_t *shape, int64_t *strides) {
  // An empty tensor may have other extents whose product overflows; its
  // strides reach no element, so they saturate instead.
  int64_t step = 1;
  for (int k = rank - 1; k >= 0; k--) {
    strides[k] = step;
    int64_t d = shape[k] > 0 ? shape[k] : 1;
    if (!tfr_mul_i64(step, d, &step) || step > TFR_MAX_NUMEL) step = TFR_MAX_NUMEL;
  }
}

tfr_status tfr_shape_numel(const char *what, int rank, const int64_t *shape, int64_t *out) {
  if (rank < 0 || rank > TFR_MAX_RANK)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: rank %d is outside [0, %d]", what, rank,
                     TFR_MAX_RANK);
  if (rank > 0 && !shape)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: shape is NULL for rank %d", what, rank);
  int64_t n = 1;
  bool empty = false;
  for (int k = 0; k < rank; k++) {
    if (shape[k] < 0)
      return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: extent %" PRId64 " of axis %d is negative",
                       what, shape[k], k);
    if (shape[k] == 0) empty = true;
  }
  if (empty) {
    *out = 0;
    return TFR_OK;
  }
  for (int k = 0; k < rank; k++) {
    if (!tfr_mul_i64(n, shape[k], &n) || n > TFR_MAX_NUMEL)
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "%s: shape has more than 2^50 elements (overflow at axis %d, extent %" PRId64
                       ")",
                       what, k, shape[k]);
  }
  *out = n;
  return TFR_OK;
}

static tfr_status tfr_check_dtype(const char *what, tfr_dtype dtype) {
  if (!tfr_dtype_get_info(dtype))
    return tfr_error(TFR_ERR_UNSUPPORTED_DTYPE, "%s: invalid dtype value %d", what, (int)dtype);
  return TFR_OK;
}

tfr_status tfr_tensor_header(tfr_storage *storage, tfr_dtype dtype, int rank,
                             const int64_t *shape, const int64_t *strides, int64_t offset,
                             tfr_tensor **out) {
  tfr_tensor *t = tfr_alloc(sizeof *t + 2 * (size_t)rank * sizeof(int64_t));
  if (!t) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "tensor: out of host memory");
  atomic_init(&t->refcount, 1);
  tfr_live_add(TFR_OBJECT_TENSOR);
  t->storage = storage;
  tfr_storage_retain(storage);
  t->dtype = dtype;
  t->rank = rank;
  t->offset = offset;
  t->shape = t->dims;
  t->strides = t->dims + rank;
  int64_t n = 1;
  bool empty = false;
  for (int k = 0; k < rank; k++) {
    t->shape[k] = shape[k];
    if (shape[k] == 0) empty = true;
  }
  // Callers validated the element count; an empty shape's other extents may
  // still multiply past int64, so they are not multiplied at all.
  for (int k = 0; k < rank && !empty; k++) n *= shape[k];
  t->numel = empty ? 0 : n;
  if (strides) {
    for (int k = 0; k < rank; k++) t->strides[k] = strides[k];
  } else {
    tfr_compact_strides(rank, shape, t->strides);
  }
  *out = t;
  return TFR_OK;
}

tfr_status tfr_tensor_alloc(tfr_backend *backend, tfr_dtype dtype, int rank,
                            const int64_t *shape, bool zero, tfr_tensor **out) {
  *out = NULL;
  int64_t numel;
  TFR_RETURN_IF_ERROR(tfr_shape_numel("tensor", rank, shape, &numel));
  size_t nbytes = (size_t)numel * tfr_dtype_size(dtype);
  tfr_storage *s = NULL;
  if (backend) {
    s = tfr_calloc(1, sizeof *s);
    if (!s) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "tensor: out of host memory");
    tfr_status st = backend->vtable->storage_alloc(backend, nbytes, zero, s);
    if (st) {
      tfr_free(s);
      return st;
    }
    atomic_init(&s->refcount, 1);
    tfr_live_add(TFR_OBJECT_STORAGE);
    s->backend = backend;
    s->nbytes = nbytes;
    tfr_backend_retain(backend);
  } else {
    TFR_RETURN_IF_ERROR(tfr_host_storage_create(nbytes, zero, &s));
  }
  tfr_status st = tfr_tensor_header(s, dtype, rank, shape, NULL, 0, out);
  tfr_storage_release(s);  // the tensor holds it now (or nobody does)
  return st;
}

// ---------------------------------------------------------------------------
// Public creation
// ---------------------------------------------------------------------------

static tfr_status tfr_check_bool_bytes(const char *what, const unsigned char *p, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    if (p[i] > 1)
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "%s: bool element %" PRId64 " has byte value %u (must be 0 or 1)", what,
                       i, p[i]);
  return TFR_OK;
}

tfr_status tfr_tensor_from_host(tfr_dtype dtype, int rank, const int64_t *shape,
                                const void *data, tfr_tensor **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "tensor_from_host: out is NULL");
  *out = NULL;
  TFR_RETURN_IF_ERROR(tfr_check_dtype("tensor_from_host", dtype));
  int64_t numel;
  TFR_RETURN_IF_ERROR(tfr_shape_numel("tensor_from_host", rank, shape, &numel));
  if (numel > 0 && !data)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "tensor_from_host: data is NULL for %" PRId64 " elements", numel);
  if (dtype == TFR_BOOL) TFR_RETURN_IF_ERROR(tfr_check_bool_bytes("tensor_from_host", data, numel));
  tfr_tensor *t = NULL;
  TFR_RETURN_IF_ERROR(tfr_tensor_alloc(NULL, dtype, rank, shape, false, &t));
  if (numel > 0) memcpy(t->storage->data, data, t->storage->nbytes);
  *out = t;
  return TFR_OK;
}

tfr_status tfr_tensor_zeros_host(tfr_dtype dtype, int rank, const int64_t *shape,
                                 tfr_tensor **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "tensor_zeros_host: out is NULL");
  *out = NULL;
  TFR_RETURN_IF_ERROR(tfr_check_dtype("tensor_zeros_host", dtype));
  int64_t numel;
  TFR_RETURN_IF_ERROR(tfr_shape_numel("tensor_zeros_host", rank, shape, &numel));
  return tfr_tensor_alloc(NULL, dtype, rank, shape, true, out);
}

// The lowest and highest element offsets (relative to element 0) a layout
// reaches. Only for non-empty shapes. False when they pass int64: extents
// and strides up to 2^50 each multiply to far more.
static bool tfr_layout_extent(int rank, const int64_t *shape, const int64_t *strides,
                              int64_t *lo, int64_t *hi) {
  int64_t l = 0, h = 0;
  for (int k = 0; k < rank; k++) {
    int64_t reach;
    if (!tfr_mul_i64(shape[k] - 1, strides[k], &reach)) return false;
    if (!tfr_add_i64(reach < 0 ? l : h, reach, reach < 0 ? &l : &h)) return false;
  }
  *lo = l;
  *hi = h;
  return true;
}

tfr_status tfr_check_layout(const char *what, int rank, const int64_t *shape,
                            const int64_t *strides, int64_t offset, int64_t numel,
                            int64_t capacity) {
  for (int k = 0; k < rank; k++) {
    if (strides[k] > TFR_MAX_NUMEL || strides[k] < -TFR_MAX_NUMEL)
      return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: stride %" PRId64 " of axis %d is too large",
                       what, strides[k], k);
  }
  if (numel == 0) {
    if (offset < 0 || offset > capacity)
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "%s: offset %" PRId64 " is outside the storage of %" PRId64 " elements",
                       what, offset, capacity);
    return TFR_OK;
  }
  int64_t lo, hi, first, last;
  if (!tfr_layout_extent(rank, shape, strides, &lo, &hi) || !tfr_add_i64(offset, lo, &first) ||
      !tfr_add_i64(offset, hi, &last))
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "%s: the view reaches storage elements beyond int64 offsets (offset %" PRId64
                     ", extents times strides overflow), outside [0, %" PRId64 ")",
                     what, offset, capacity);
  if (offset < 0 || first < 0 || last >= capacity)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "%s: the view reaches storage elements [%" PRId64 ", %" PRId64
                     "], outside [0, %" PRId64 ")",
                     what, first, last, capacity);
  return TFR_OK;
}

tfr_status tfr_tensor_wrap_host(tfr_dtype dtype, int rank, const int64_t *shape,
                                const int64_t *strides, void *data, size_t nbytes,
                                tfr_release_fn release, void *release_ctx, tfr_tensor **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "tensor_wrap_host: out is NULL");
  *out = NULL;
  TFR_RETURN_IF_ERROR(tfr_check_dtype("tensor_wrap_host", dtype));
  int64_t numel;
  TFR_RETURN_IF_ERROR(tfr_shape_numel("tensor_wrap_host", rank, shape, &numel));
  if (!data && nbytes > 0)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "tensor_wrap_host: data is NULL");
  if (!data && numel > 0)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "tensor_wrap_host: data is NULL for %" PRId64 " elements", numel);
  int64_t compact[TFR_MAX_RANK];
  if (!strides) {
    tfr_compact_strides(rank, shape, compact);
    strides = compact;
  }
  int64_t capacity = (int64_t)(nbytes / tfr_dtype_size(dtype));
  TFR_RETURN_IF_ERROR(
      tfr_check_layout("tensor_wrap_host", rank, shape, strides, 0, numel, capacity));
  tfr_storage *s = tfr_calloc(1, sizeof *s);
  if (!s) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "tensor_wrap_host: out of host memory");
  atomic_init(&s->refcount, 1);
  tfr_live_add(TFR_OBJECT_STORAGE);
  s->host = true;
  s->data = data;
  s->nbytes = nbytes;
  s->capacity = nbytes;
  s->wrapped = true;
  tfr_tensor *t = NULL;
  tfr_status st = tfr_tensor_header(s, dtype, rank, shape, strides, 0, &t);
  if (st) {
    tfr_free(s);  // the caller keeps the buffer: release is not called
    tfr_live_sub(TFR_OBJECT_STORAGE);
    return st;
  }
  // Only now, once nothing can fail, does the storage take over the buffer.
  s->release = release;
  s->release_ctx = release_ctx;
  tfr_storage_release(s);
  *out = t;
  return TFR_OK;
}

void tfr_tensor_retain(tfr_tensor *t) {
  if (t) atomic_fetch_add_explicit(&t->refcount, 1, memory_order_relaxed);
}

void tfr_tensor_release(tfr_tensor *t) {
  if (!t) return;
  if (atomic_fetch_sub_explicit(&t->refcount, 1, memory_order_acq_rel) != 1) return;
  tfr_storage_release(t->storage);
  tfr_free(t);
  tfr_live_sub(TFR_OBJECT_TENSOR);
}
