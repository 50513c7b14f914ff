// Public structural ops: convert, copy, transpose, reshape, broadcast,
// diagonals, triangles, iota. Views are made in the core; kernels only copy,
// convert, mask or count.
#include <string.h>

#include "core/op_registry.h"
#include "core/validate.h"

// Converts/copies `in` into `out` (validated) on the session's backend.
static tfr_status tfr_run_convert(tfr_session *s, const tfr_tensor *in, tfr_tensor *out) {
  tfr_structural_desc d = {.kind = TFR_STRUCT_CONVERT, .in = in, .out = out};
  return s->backend->vtable->structural(s->backend, &d);
}

// Allocates a compact tensor of `in`'s shape and `dtype`, converts into it.
static tfr_status tfr_convert_new(tfr_session *s, const tfr_tensor *in, tfr_dtype dtype,
                                  tfr_tensor **out) {
  tfr_tensor *t = NULL;
  TFR_RETURN_IF_ERROR(tfr_tensor_alloc(s->backend, dtype, in->rank, in->shape, false, &t));
  tfr_status st = tfr_run_convert(s, in, t);
  if (st) tfr_tensor_release(t);
  else *out = t;
  return st;
}

tfr_status tfr_convert(tfr_session *s, const tfr_tensor *x, tfr_dtype dtype, tfr_tensor **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "convert: out is NULL");
  *out = NULL;
  TFR_RETURN_IF_ERROR(tfr_session_check("convert", s));
  TFR_RETURN_IF_ERROR(tfr_check_placement("convert", "operand", s, x));
  TFR_RETURN_IF_ERROR(tfr_validate_dtype("convert", dtype, tfr_op_info_of(TFR_OPID_CONVERT)->dtypes));
  return tfr_convert_new(s, x, dtype, out);
}

tfr_status tfr_convert_into(tfr_session *s, const tfr_tensor *x, tfr_tensor *out) {
  TFR_RETURN_IF_ERROR(tfr_session_check("convert", s));
  TFR_RETURN_IF_ERROR(tfr_check_placement("convert", "operand", s, x));
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "convert: out is NULL");
  // In place only when nothing changes size or meaning.
  const tfr_tensor *inputs[1] = {x};
  TFR_RETURN_IF_ERROR(tfr_validate_output("convert", s, out, out->dtype, x->rank, x->shape,
                                          inputs, out->dtype == x->dtype ? 1 : 0));
  if (out->dtype != x->dtype && out->storage == x->storage)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "convert: out shares storage with the operand and has another dtype");
  return tfr_run_convert(s, x, out);
}

tfr_status tfr_reduce_precision(tfr_session *s, const tfr_tensor *x, int exponent_bits,
                                int mantissa_bits, tfr_tensor **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "reduce_precision: out is NULL");
  *out = NULL;
  TFR_RETURN_IF_ERROR(tfr_validate_reduce_precision(s, x, exponent_bits, mantissa_bits));
  tfr_tensor *t = NULL;
  TFR_RETURN_IF_ERROR(tfr_tensor_alloc(s->backend, x->dtype, x->rank, x->shape, false, &t));
  tfr_structural_desc d = {.kind = TFR_STRUCT_REDUCE_PRECISION,
                           .in = x,
                           .out = t,
                           .exponent_bits = exponent_bits,
                           .mantissa_bits = mantissa_bits};
  tfr_status st = s->backend->vtable->structural(s->backend, &d);
  if (st) tfr_tensor_release(t);
  else *out = t;
  return st;
}

tfr_status tfr_copy(tfr_session *s, const tfr_tensor *x, tfr_tensor **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "copy: out is NULL");
  *out = NULL;
  TFR_RETURN_IF_ERROR(tfr_session_check("copy", s));
  TFR_RETURN_IF_ERROR(tfr_check_placement("copy", "operand", s, x));
  return tfr_convert_new(s, x, x->dtype, out);
}

tfr_status tfr_copy_into(tfr_session *s, const tfr_tensor *x, tfr_tensor *out) {
  TFR_RETURN_IF_ERROR(tfr_session_check("copy", s));
  TFR_RETURN_IF_ERROR(tfr_check_placement("copy", "operand", s, x));
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "copy: out is NULL");
  const tfr_tensor *inputs[1] = {x};
  TFR_RETURN_IF_ERROR(
      tfr_validate_output("copy", s, out, x->dtype, x->rank, x->shape, inputs, 1));
  return tfr_run_convert(s, x, out);
}

// Runs `make_view` results through a compact copy; releases the view.
static tfr_status tfr_copy_view(tfr_session *s, tfr_status view_status, tfr_tensor *view,
                                tfr_tensor **out) {
  if (view_status) return view_status;
  tfr_status st = tfr_convert_new(s, view, view->dtype, out);
  tfr_tensor_release(view);
  return st;
}

tfr_status tfr_transpose(tfr_session *s, const tfr_tensor *x, const int64_t *permutation,
                         tfr_tensor **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "transpose: out is NULL");
  *out = NULL;
  TFR_RETURN_IF_ERROR(tfr_session_check("transpose", s));
  TFR_RETURN_IF_ERROR(tfr_check_placement("transpose", "operand", s, x));
  tfr_tensor *view = NULL;
  tfr_status st = tfr_tensor_view_transpose(x, permutation, &view);
  return tfr_copy_view(s, st, view, out);
}

tfr_status tfr_reshape(tfr_session *s, const tfr_tensor *x, int rank, const int64_t *shape,
                       tfr_tensor **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "reshape: out is NULL");
  *out = NULL;
  TFR_RETURN_IF_ERROR(tfr_session_check("reshape", s));
  TFR_RETURN_IF_ERROR(tfr_check_placement("reshape", "operand", s, x));
  tfr_status st = tfr_tensor_view_reshape(x, rank, shape, out);
  if (st != TFR_ERR_NOT_VIEWABLE) return st;
  // Not expressible as a view: copy to compact, then view that.
  tfr_tensor *compact;
  TFR_RETURN_IF_ERROR(tfr_convert_new(s, x, x->dtype, &compact));
  st = tfr_tensor_view_reshape(compact, rank, shape, out);
  tfr_tensor_release(compact);
  return st;
}

tfr_status tfr_broadcast_in_dim(tfr_session *s, const tfr_tensor *x, int rank,
                                const int64_t *shape, const int64_t *broadcast_dimensions,
                                tfr_tensor **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "broadcast_in_dim: out is NULL");
  *out = NULL;
  TFR_RETURN_IF_ERROR(tfr_session_check("broadcast_in_dim", s));
  TFR_RETURN_IF_ERROR(tfr_check_placement("broadcast_in_dim", "operand", s, x));
  return tfr_tensor_view_broadcast_in_dim(x, rank, shape, broadcast_dimensions, out);
}

// The diagonal view of axes a < b of t: axis a kept with extent min, stride
// sum; axis b removed.
static tfr_status tfr_diagonal_view(const tfr_tensor *t, int a, int b, tfr_tensor **out) {
  int64_t shape[TFR_MAX_RANK], strides[TFR_MAX_RANK];
  int r = 0;
  for (int k = 0; k < t->rank; k++) {
    if (k == b) continue;
    shape[r] = t->shape[k];
    strides[r] = t->strides[k];
    if (k == a) {
      shape[r] = t->shape[a] < t->shape[b] ? t->shape[a] : t->shape[b];
      strides[r] = t->strides[a] + t->strides[b];
    }
    r++;
  }
  return tfr_tensor_header(t->storage, t->dtype, r, shape, strides, t->offset, out);
}

tfr_status tfr_extract_diagonal(tfr_session *s, const tfr_tensor *x, int axis_a, int axis_b,
                                tfr_tensor **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "extract_diagonal: out is NULL");
  *out = NULL;
  TFR_RETURN_IF_ERROR(tfr_session_check("extract_diagonal", s));
  TFR_RETURN_IF_ERROR(tfr_check_placement("extract_diagonal", "operand", s, x));
  if (axis_a < 0 || axis_a >= x->rank || axis_b < 0 || axis_b >= x->rank || axis_a == axis_b)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "extract_diagonal: axes %d and %d must be distinct axes of the rank-%d "
                     "operand",
                     axis_a, axis_b, x->rank);
  int a = axis_a < axis_b ? axis_a : axis_b, b = axis_a < axis_b ? axis_b : axis_a;
  tfr_tensor *view = NULL;
  tfr_status st = tfr_diagonal_view(x, a, b, &view);
  return tfr_copy_view(s, st, view, out);
}

tfr_status tfr_embed_diagonal(tfr_session *s, const tfr_tensor *x, int axis_a, int axis_b,
                              tfr_tensor **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "embed_diagonal: out is NULL");
  *out = NULL;
  TFR_RETURN_IF_ERROR(tfr_session_check("embed_diagonal", s));
  TFR_RETURN_IF_ERROR(tfr_check_placement("embed_diagonal", "operand", s, x));
  if (x->rank >= TFR_MAX_RANK)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "embed_diagonal: operand rank %d is the maximum",
                     x->rank);
  if (axis_a < 0 || axis_a >= x->rank || axis_b < 0 || axis_b > x->rank)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "embed_diagonal: axis_a %d must be in [0, %d) and axis_b %d in [0, %d]",
                     axis_a, x->rank, axis_b, x->rank);
  // Result shape: x's with a copy of extent d_a inserted at axis_b.
  int a_res = axis_a < axis_b ? axis_a : axis_a + 1;
  int64_t shape[TFR_MAX_RANK];
  for (int k = 0, j = 0; k <= x->rank; k++)
    shape[k] = k == axis_b ? x->shape[axis_a] : x->shape[j++];
  tfr_tensor *res;
  TFR_RETURN_IF_ERROR(tfr_tensor_alloc(s->backend, x->dtype, x->rank + 1, shape, true, &res));
  // A view of the result with x's shape: x's axis k maps to result axis k
  // (or k + 1 past the inserted one); axis_a walks the diagonal, stepping
  // along both of its result axes at once.
  int64_t strides[TFR_MAX_RANK];
  for (int k = 0; k < x->rank; k++) {
    int rk = k < axis_b ? k : k + 1;
    strides[k] = res->strides[rk];
  }
  strides[axis_a] = res->strides[a_res] + res->strides[axis_b];
  tfr_tensor *diag = NULL;
  tfr_status st = tfr_tensor_header(res->storage, x->dtype, x->rank, x->shape, strides, 0, &diag);
  if (!st) st = tfr_run_convert(s, x, diag);
  tfr_tensor_release(diag);
  if (st) tfr_tensor_release(res);
  else *out = res;
  return st;
}

static tfr_status tfr_triangle(tfr_session *s, const char *name, const tfr_tensor *x, int64_t k,
                               bool upper, tfr_tensor **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: out is NULL", name);
  *out = NULL;
  TFR_RETURN_IF_ERROR(tfr_session_check(name, s));
  TFR_RETURN_IF_ERROR(tfr_check_placement(name, "operand", s, x));
  if (x->rank < 2)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: operand has rank %d, needs at least 2", name,
                     x->rank);
  tfr_tensor *t = NULL;
  TFR_RETURN_IF_ERROR(tfr_tensor_alloc(s->backend, x->dtype, x->rank, x->shape, false, &t));
  tfr_structural_desc d = {.kind = TFR_STRUCT_TRIANGLE, .in = x, .out = t, .k = k, .upper = upper};
  tfr_status st = s->backend->vtable->structural(s->backend, &d);
  if (st) tfr_tensor_release(t);
  else *out = t;
  return st;
}

tfr_status tfr_tril(tfr_session *s, const tfr_tensor *x, int64_t k, tfr_tensor **out) {
  return tfr_triangle(s, "tril", x, k, false, out);
}

tfr_status tfr_triu(tfr_session *s, const tfr_tensor *x, int64_t k, tfr_tensor **out) {
  return tfr_triangle(s, "triu", x, k, true, out);
}

tfr_status tfr_iota(tfr_session *s, tfr_dtype dtype, int rank, const int64_t *shape,
                    int iota_dimension, tfr_tensor **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "iota: out is NULL");
  *out = NULL;
  TFR_RETURN_IF_ERROR(tfr_session_check("iota", s));
  TFR_RETURN_IF_ERROR(tfr_validate_dtype("iota", dtype, tfr_op_info_of(TFR_OPID_IOTA)->dtypes));
  int64_t numel;
  TFR_RETURN_IF_ERROR(tfr_shape_numel("iota", rank, shape, &numel));
  if (rank < 1 || iota_dimension < 0 || iota_dimension >= rank)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "iota: iota_dimension %d is out of range for rank %d (rank must be >= 1)",
                     iota_dimension, rank);
  tfr_tensor *t = NULL;
  TFR_RETURN_IF_ERROR(tfr_tensor_alloc(s->backend, dtype, rank, shape, false, &t));
  tfr_structural_desc d = {.kind = TFR_STRUCT_IOTA, .out = t, .iota_dimension = iota_dimension};
  tfr_status st = s->backend->vtable->structural(s->backend, &d);
  if (st) tfr_tensor_release(t);
  else *out = t;
  return st;
}
