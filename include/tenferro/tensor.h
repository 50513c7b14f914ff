// tenferro/tensor.h: tensors and views.
//
// A `tfr_tensor` is a ref-counted handle to a storage (host memory, or a
// device buffer of one backend instance) plus a dtype, a shape (int64 extents,
// rank 0 .. TFR_MAX_RANK), signed strides counted in elements (0 for broadcast
// views, negative for reversed views) and an offset in elements into the
// storage. Element (i0, .., ir-1) lives at storage element
// `offset + sum(ik * strides[k])`.
//
// Results of ops are compact row-major tensors. Views share their storage
// (and retain it); a view is always checked to stay inside its storage.
// Rank-0 tensors (one element, shape NULL) and empty tensors (an extent 0)
// are ordinary tensors.
//
// Tensors are immutable through this API except for the `_into` forms of ops,
// which write a caller-provided output tensor.
//
// Ownership: every function filling `tfr_tensor **out` hands one reference to
// the caller, released with tfr_tensor_release(). On error `*out` is NULL.
#ifndef TENFERRO_TENSOR_H_
#define TENFERRO_TENSOR_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tenferro/dtype.h"
#include "tenferro/status.h"

#ifdef __cplusplus
extern "C" {
#endif

// The largest rank a tensor can have.
#define TFR_MAX_RANK 64

typedef struct tfr_tensor tfr_tensor;

// Called when the last reference to a wrapped user buffer goes away.
//   data  the pointer given to tfr_tensor_wrap_host.   ctx  its release_ctx.
typedef void (*tfr_release_fn)(void *ctx, void *data);

// ---------------------------------------------------------------------------
// Host tensors
// ---------------------------------------------------------------------------

// Creates a compact row-major host tensor holding a copy of `data`.
//   dtype  any dtype.
//   rank   0 .. TFR_MAX_RANK.   shape  int64[rank], each >= 0 (NULL if rank 0).
//   data   numel(shape) * tfr_dtype_size(dtype) bytes, row-major; may be NULL
//          when the tensor is empty. bool bytes must be 0 or 1.
//   out    receives the new tensor; the caller releases it.
// Errors: TFR_ERR_INVALID_ARGUMENT (NULL out, rank out of range, negative
//         extent, byte size overflow, NULL data for a non-empty tensor, a bool
//         byte other than 0/1), TFR_ERR_UNSUPPORTED_DTYPE (invalid dtype),
//         TFR_ERR_OUT_OF_MEMORY.
TFR_API TFR_NODISCARD tfr_status tfr_tensor_from_host(tfr_dtype dtype, int rank,
                                                      const int64_t *shape, const void *data,
                                                      tfr_tensor **out);

// Creates a compact row-major host tensor filled with zeros (false for bool).
// Arguments and errors as tfr_tensor_from_host, without `data`.
TFR_API TFR_NODISCARD tfr_status tfr_tensor_zeros_host(tfr_dtype dtype, int rank,
                                                       const int64_t *shape, tfr_tensor **out);

// Wraps a user buffer as a host tensor, without copying.
//   dtype, rank, shape  as tfr_tensor_from_host.
//   strides     int64[rank] in elements, any sign, 0 allowed; NULL means
//               compact row-major.
//   data        the buffer; element (0,..,0) is at `data`.
//   nbytes      the size of the buffer in bytes; every element the strides
//               reach must lie in [data, data + nbytes) (negative strides
//               reach below `data`, so they need an `offset`: use
//               tfr_tensor_view on the wrapped buffer instead).
//   release     called once with (release_ctx, data) when the last reference
//               goes away; may be NULL (the caller then keeps the buffer alive
//               for the tensor's lifetime). Not called when this function fails.
//   out         receives the new tensor; the caller releases it.
// Errors: as tfr_tensor_from_host, plus TFR_ERR_INVALID_ARGUMENT when the
//         strides reach outside [data, data + nbytes).
TFR_API TFR_NODISCARD tfr_status tfr_tensor_wrap_host(tfr_dtype dtype, int rank,
                                                      const int64_t *shape,
                                                      const int64_t *strides, void *data,
                                                      size_t nbytes, tfr_release_fn release,
                                                      void *release_ctx, tfr_tensor **out);

// Adds a reference to `t`. NULL is ignored.
TFR_API void tfr_tensor_retain(tfr_tensor *t);

// Drops a reference to `t`; the last one frees the tensor and drops its
// reference to the storage. NULL is ignored.
TFR_API void tfr_tensor_release(tfr_tensor *t);

// ---------------------------------------------------------------------------
// Accessors (borrowed results, valid while `t` is alive; `t` must not be NULL)
// ---------------------------------------------------------------------------

TFR_API tfr_dtype tfr_tensor_dtype(const tfr_tensor *t);
TFR_API int tfr_tensor_rank(const tfr_tensor *t);
// int64[rank] extents; NULL for rank 0.
TFR_API const int64_t *tfr_tensor_shape(const tfr_tensor *t);
// int64[rank] strides in elements; NULL for rank 0.
TFR_API const int64_t *tfr_tensor_strides(const tfr_tensor *t);
// Offset of element (0,..,0) in the storage, in elements.
TFR_API int64_t tfr_tensor_offset(const tfr_tensor *t);
// Number of elements (1 for rank 0, 0 for an empty tensor).
TFR_API int64_t tfr_tensor_numel(const tfr_tensor *t);
// Bytes of a compact copy: numel * element size.
TFR_API size_t tfr_tensor_nbytes(const tfr_tensor *t);
// True when the strides are the compact row-major strides (extents of 1 and
// empty tensors are not held against it).
TFR_API bool tfr_tensor_is_contiguous(const tfr_tensor *t);
// True when the storage is host memory (usable by the cpu backend).
TFR_API bool tfr_tensor_is_host(const tfr_tensor *t);

// Returns a pointer to element (0,..,0) of a host tensor.
//   out_data  receives the pointer; valid while `t` is alive. Elements are at
//             byte offsets sum(ik * strides[k]) * element size from it.
// Errors: TFR_ERR_INVALID_ARGUMENT (NULL argument),
//         TFR_ERR_WRONG_BACKEND (a device tensor: use tfr_download first).
TFR_API TFR_NODISCARD tfr_status tfr_tensor_host_data(const tfr_tensor *t, void **out_data);

// Copies the elements of a host tensor, in row-major order, into `dst`.
//   dst     at least tfr_tensor_nbytes(t) bytes.   nbytes  the size of `dst`.
// Errors: TFR_ERR_INVALID_ARGUMENT (NULL argument, nbytes too small),
//         TFR_ERR_WRONG_BACKEND (a device tensor: use tfr_download first).
TFR_API TFR_NODISCARD tfr_status tfr_tensor_read(const tfr_tensor *t, void *dst, size_t nbytes);

// ---------------------------------------------------------------------------
// Views (no data is copied; the view retains the storage)
// ---------------------------------------------------------------------------

// A view of any shape, strides and offset onto the storage of `t`.
//   rank, shape   as tfr_tensor_from_host.
//   strides       int64[rank] in elements, any sign; NULL means compact.
//   offset        element offset into the storage (not relative to `t`).
//   out           receives the view, with `t`'s dtype.
// Errors: TFR_ERR_INVALID_ARGUMENT (NULL argument, bad rank or extent, an
//         element reached outside the storage; the message gives the range).
TFR_API TFR_NODISCARD tfr_status tfr_tensor_view(const tfr_tensor *t, int rank,
                                                 const int64_t *shape, const int64_t *strides,
                                                 int64_t offset, tfr_tensor **out);

// A view with axes permuted (StableHLO `transpose` semantics): result axis k
// is axis permutation[k] of `t`.
//   permutation  int64[rank of t], a permutation of 0 .. rank-1.
// Errors: TFR_ERR_INVALID_ARGUMENT (NULL argument, not a permutation).
TFR_API TFR_NODISCARD tfr_status tfr_tensor_view_transpose(const tfr_tensor *t,
                                                           const int64_t *permutation,
                                                           tfr_tensor **out);

// A strided slice view (StableHLO `slice` semantics): along axis k the view
// takes start[k], start[k] + strides[k], ... while < limit[k].
//   start, limit  int64[rank], 0 <= start <= limit <= extent.
//   strides       int64[rank], each >= 1; NULL means all 1.
// Errors: TFR_ERR_INVALID_ARGUMENT (NULL argument, an index out of range).
TFR_API TFR_NODISCARD tfr_status tfr_tensor_view_slice(const tfr_tensor *t, const int64_t *start,
                                                       const int64_t *limit,
                                                       const int64_t *strides, tfr_tensor **out);

// A view with the listed axes reversed (StableHLO `reverse`): negative strides.
//   axes  int64[naxes], distinct, each in [0, rank).
// Errors: TFR_ERR_INVALID_ARGUMENT (NULL argument, bad or repeated axis).
TFR_API TFR_NODISCARD tfr_status tfr_tensor_view_reverse(const tfr_tensor *t, int naxes,
                                                         const int64_t *axes, tfr_tensor **out);

// A broadcast view (StableHLO `broadcast_in_dim`): axis k of `t` becomes axis
// broadcast_dimensions[k] of the result; new axes and axes where `t` has
// extent 1 get stride 0.
//   rank, shape            result rank (>= rank of t) and extents.
//   broadcast_dimensions   int64[rank of t], strictly increasing, in [0, rank);
//                          t's extent must be 1 or equal shape[dim].
// Errors: TFR_ERR_INVALID_ARGUMENT (NULL argument, bad dimension mapping,
//         incompatible extent).
TFR_API TFR_NODISCARD tfr_status tfr_tensor_view_broadcast_in_dim(
    const tfr_tensor *t, int rank, const int64_t *shape, const int64_t *broadcast_dimensions,
    tfr_tensor **out);

// A view with a new shape of the same number of elements, read in row-major
// order (StableHLO `reshape`), when the strides of `t` allow it without a copy
// (always for contiguous tensors).
// Errors: TFR_ERR_INVALID_ARGUMENT (NULL argument, bad rank or extent,
//         element count differs), TFR_ERR_NOT_VIEWABLE (the strides cannot
//         express it: copy first, or use tfr_reshape which copies when needed).
TFR_API TFR_NODISCARD tfr_status tfr_tensor_view_reshape(const tfr_tensor *t, int rank,
                                                         const int64_t *shape, tfr_tensor **out);

// ---------------------------------------------------------------------------
// Live objects (for leak checks)
// ---------------------------------------------------------------------------

// The kinds of library object whose live instances are counted.
typedef enum tfr_object_kind {
  TFR_OBJECT_TENSOR = 0,   // tfr_tensor handles: results, views, wrapped buffers
  TFR_OBJECT_STORAGE,      // the memory behind tensors: library host buffers,
                           // wrapped user buffers, device buffers (one per
                           // allocation, shared by every view of it)
  TFR_OBJECT_SESSION,      // begun and not yet ended (backend.h)
  TFR_OBJECT_EINSUM_PLAN,  // tfr_einsum_plan (einsum.h)
  TFR_OBJECT_DOT_PLAN,     // tfr_dot_plan (dot_plan.h)
  TFR_OBJECT_FUSION_PLAN,  // tfr_fusion_plan (fusion.h)
  TFR_OBJECT_KIND_COUNT,   // the number of kinds above
  TFR_OBJECT_ALL = -1      // every kind together
} tfr_object_kind;

// How many objects of `kind` exist in this process right now: an object is
// counted from its creation until its last reference is released (tensors,
// storages), it is freed (plans) or it ends (sessions). Objects the library
// makes for itself while an op runs are counted too, so a count taken while
// no call is running on any thread is the number the caller holds, directly
// or through the tensors, plans and backends it holds (a backend's buffer
// pool keeps memory, not storages). Backends are not counted.
// Threads: callable from any thread. Objects are counted per thread in C11
// atomics that only the counting thread writes (relaxed, no locked
// instruction: counting costs about a nanosecond), and this function sums
// every thread's counts under a lock (and those of threads that have ended).
// The sum is exact whenever no thread is making or freeing an object; read
// while others are, it may miss objects in flight (it is never below 0).
//   kind  a tfr_object_kind, or TFR_OBJECT_ALL for the sum of every kind.
// Returns the count (>= 0), or -1 for a `kind` that is not one of those.
TFR_API int64_t tfr_live_objects(tfr_object_kind kind);

// The name of a kind: "tensor", "storage", "session", "einsum_plan",
// "dot_plan", "fusion_plan", "all"; NULL for any other value. Static storage.
TFR_API const char *tfr_object_kind_name(tfr_object_kind kind);

#ifdef __cplusplus
}
#endif

#endif  // TENFERRO_TENSOR_H_
