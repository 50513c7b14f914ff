// Validation of the indexing ops (see validate.h). Every StableHLO
// constraint of slice, reverse, dynamic_slice, dynamic_update_slice, pad,
// concatenate, gather and scatter that can fail through this API is checked
// here, in the spec's order where one check relies on another (ranges before
// lookups). Messages carry the constraint label, e.g. "(C21)", so that a
// user can find the rule in openxla.org/stablehlo/spec.
#include <stdio.h>
#include <string.h>

#include "core/op_registry.h"
#include "core/validate.h"

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

static tfr_status ix_check_list(const char *op, const char *name, int n, const int64_t *v) {
  if (n < 0 || n > TFR_MAX_RANK)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: %s has %d entries, must be in [0, %d]", op,
                     name, n, TFR_MAX_RANK);
  if (n > 0 && !v)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: %s is NULL with %d entries", op, name, n);
  return TFR_OK;
}

// Every entry in [0, bound); `what` says what bound is.
static tfr_status ix_in_range(const char *op, const char *name, int n, const int64_t *v,
                              int64_t bound, const char *what, const char *label) {
  for (int i = 0; i < n; i++)
    if (v[i] < 0 || v[i] >= bound)
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "%s: %s[%d] = %" PRId64 " is out of range [0, %" PRId64 ") (%s) %s", op,
                       name, i, v[i], bound, what, label);
  return TFR_OK;
}

static tfr_status ix_sorted_unique(const char *op, const char *name, int n, const int64_t *v,
                                   const char *sorted_label, const char *unique_label) {
  for (int i = 1; i < n; i++) {
    if (v[i] == v[i - 1])
      return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: %s[%d] = %" PRId64 " is repeated %s", op,
                       name, i, v[i], unique_label);
    if (v[i] < v[i - 1])
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "%s: %s is not sorted: %s[%d] = %" PRId64 " follows %" PRId64 " %s", op,
                       name, name, i, v[i], v[i - 1], sorted_label);
  }
  return TFR_OK;
}

// No value occurs twice in the concatenation of lists a and b (b may be
// empty). Values are already in [0, TFR_MAX_RANK).
static tfr_status ix_unique2(const char *op, const char *an, int na, const int64_t *a,
                             const char *bn, int nb, const int64_t *b, const char *label) {
  int owner[TFR_MAX_RANK];  // entry index + 1 in a (positive) or b (negative)
  for (int k = 0; k < TFR_MAX_RANK; k++) owner[k] = 0;
  for (int i = 0; i < na + nb; i++) {
    bool in_a = i < na;
    int j = in_a ? i : i - na;
    int64_t v = in_a ? a[j] : b[j];
    int prev = owner[v];
    if (prev) {
      const char *pn = prev > 0 ? an : bn;
      int pj = prev > 0 ? prev - 1 : -prev - 1;
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "%s: %s[%d] = %" PRId64 " repeats %s[%d] %s", op, in_a ? an : bn, j, v,
                       pn, pj, label);
    }
    owner[v] = in_a ? j + 1 : -(j + 1);
  }
  return TFR_OK;
}

static bool ix_contains(int n, const int64_t *v, int64_t x) {
  for (int i = 0; i < n; i++)
    if (v[i] == x) return true;
  return false;
}

static tfr_status ix_index_dtype(const char *op, const char *name, const tfr_tensor *t) {
  if (!(TFR_DT(t->dtype) & TFR_DT_INT))
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "%s: %s has dtype %s, must be an integer dtype (i8 .. i64, u8 .. u64)", op,
                     name, tfr_dtype_name(t->dtype));
  return TFR_OK;
}

static tfr_status ix_same_dtype(const char *op, const char *an, const tfr_tensor *a,
                                const char *bn, const tfr_tensor *b, const char *label) {
  if (a->dtype != b->dtype)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "%s: %s has dtype %s, %s has dtype %s (no implicit promotion: use "
                     "tfr_convert) %s",
                     op, an, tfr_dtype_name(a->dtype), bn, tfr_dtype_name(b->dtype), label);
  return TFR_OK;
}

// ---------------------------------------------------------------------------
// slice, reverse
// ---------------------------------------------------------------------------

tfr_status tfr_validate_slice(tfr_session *s, const tfr_tensor *operand, const int64_t *start,
                              const int64_t *limit, const int64_t *strides, int64_t *out_shape) {
  const char *op = "slice";
  TFR_RETURN_IF_ERROR(tfr_session_check(op, s));
  TFR_RETURN_IF_ERROR(tfr_check_placement(op, "operand", s, operand));
  int r = operand->rank;
  if (r > 0 && (!start || !limit))
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: %s is NULL for an operand of rank %d", op,
                     start ? "limit_indices" : "start_indices", r);
  for (int k = 0; k < r; k++) {
    int64_t step = strides ? strides[k] : 1;
    if (step < 1)
      return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: strides[%d] = %" PRId64 " must be > 0 (C4)",
                       op, k, step);
    if (start[k] < 0)
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "%s: start_indices[%d] = %" PRId64 " is negative (C3)", op, k, start[k]);
    if (start[k] > limit[k])
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "%s: start_indices[%d] = %" PRId64 " exceeds limit_indices[%d] = %" PRId64
                       " (C3)",
                       op, k, start[k], k, limit[k]);
    if (limit[k] > operand->shape[k])
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "%s: limit_indices[%d] = %" PRId64 " exceeds operand extent %" PRId64
                       " (C3)",
                       op, k, limit[k], operand->shape[k]);
    // limit - start >= 0 and step >= 1: no overflow in the rounding up.
    int64_t len = limit[k] - start[k];
    out_shape[k] = len / step + (len % step != 0);
  }
  return TFR_OK;
}

tfr_status tfr_validate_reverse(tfr_session *s, const tfr_tensor *operand, int n,
                                const int64_t *dimensions) {
  const char *op = "reverse";
  TFR_RETURN_IF_ERROR(tfr_session_check(op, s));
  TFR_RETURN_IF_ERROR(tfr_check_placement(op, "operand", s, operand));
  TFR_RETURN_IF_ERROR(ix_check_list(op, "dimensions", n, dimensions));
  TFR_RETURN_IF_ERROR(ix_in_range(op, "dimensions", n, dimensions, operand->rank,
                                  "rank of operand", "(C3)"));
  return ix_unique2(op, "dimensions", n, dimensions, "", 0, NULL, "(C2)");
}

// ---------------------------------------------------------------------------
// dynamic_slice, dynamic_update_slice
// ---------------------------------------------------------------------------

// Checks the `rank` start index tensors (C2/C3 of dynamic_slice, C4/C5 of
// dynamic_update_slice).
static tfr_status ix_check_starts(const char *op, tfr_session *s, int rank,
                                  const tfr_tensor *const *starts) {
  if (rank > 0 && !starts)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "%s: start_indices is NULL for an operand of rank %d", op, rank);
  for (int k = 0; k < rank; k++) {
    char name[48];
    snprintf(name, sizeof name, "start_indices[%d]", k);
    TFR_RETURN_IF_ERROR(tfr_check_placement(op, name, s, starts[k]));
    if (starts[k]->rank != 0)
      return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: %s has rank %d, must be 0", op, name,
                       starts[k]->rank);
    TFR_RETURN_IF_ERROR(ix_index_dtype(op, name, starts[k]));
    if (starts[k]->dtype != starts[0]->dtype)
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "%s: %s has dtype %s, start_indices[0] has %s (all must have one dtype)",
                       op, name, tfr_dtype_name(starts[k]->dtype),
                       tfr_dtype_name(starts[0]->dtype));
  }
  return TFR_OK;
}

tfr_status tfr_validate_dynamic_slice(tfr_session *s, const tfr_tensor *operand,
                                      const tfr_tensor *const *start_indices,
                                      const int64_t *slice_sizes) {
  const char *op = "dynamic_slice";
  TFR_RETURN_IF_ERROR(tfr_session_check(op, s));
  TFR_RETURN_IF_ERROR(tfr_check_placement(op, "operand", s, operand));
  int r = operand->rank;
  TFR_RETURN_IF_ERROR(ix_check_starts(op, s, r, start_indices));
  if (r > 0 && !slice_sizes)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: slice_sizes is NULL for an operand of rank %d",
                     op, r);
  for (int k = 0; k < r; k++) {
    if (slice_sizes[k] < 0)
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "%s: slice_sizes[%d] = %" PRId64 " is negative (C4)", op, k,
                       slice_sizes[k]);
    if (slice_sizes[k] > operand->shape[k])
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "%s: slice_sizes[%d] = %" PRId64 " exceeds operand extent %" PRId64 " (C4)",
                       op, k, slice_sizes[k], operand->shape[k]);
  }
  return TFR_OK;
}

tfr_status tfr_validate_dynamic_update_slice(tfr_session *s, const tfr_tensor *operand,
                                             const tfr_tensor *update,
                                             const tfr_tensor *const *start_indices) {
  const char *op = "dynamic_update_slice";
  TFR_RETURN_IF_ERROR(tfr_session_check(op, s));
  TFR_RETURN_IF_ERROR(tfr_check_placement(op, "operand", s, operand));
  TFR_RETURN_IF_ERROR(tfr_check_placement(op, "update", s, update));
  TFR_RETURN_IF_ERROR(ix_same_dtype(op, "update", update, "operand", operand, "(C2)"));
  int r = operand->rank;
  if (update->rank != r)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: update has rank %d, operand has rank %d (C3)",
                     op, update->rank, r);
  TFR_RETURN_IF_ERROR(ix_check_starts(op, s, r, start_indices));
  for (int k = 0; k < r; k++)
    if (update->shape[k] > operand->shape[k])
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "%s: update extent %" PRId64 " of axis %d exceeds operand extent %" PRId64
                       " (C6)",
                       op, update->shape[k], k, operand->shape[k]);
  return TFR_OK;
}

// ---------------------------------------------------------------------------
// pad, concatenate
// ---------------------------------------------------------------------------

tfr_status tfr_validate_pad(tfr_session *s, const tfr_tensor *operand,
                            const tfr_tensor *padding_value, const int64_t *low,
                            const int64_t *high, const int64_t *interior, int64_t *out_shape) {
  const char *op = "pad";
  TFR_RETURN_IF_ERROR(tfr_session_check(op, s));
  TFR_RETURN_IF_ERROR(tfr_check_placement(op, "operand", s, operand));
  TFR_RETURN_IF_ERROR(tfr_check_placement(op, "padding_value", s, padding_value));
  if (padding_value->rank != 0)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: padding_value has rank %d, must be 0", op,
                     padding_value->rank);
  TFR_RETURN_IF_ERROR(
      ix_same_dtype(op, "padding_value", padding_value, "operand", operand, "(C1)"));
  int r = operand->rank;
  if (r > 0 && (!low || !high || !interior))
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: %s is NULL for an operand of rank %d", op,
                     !low ? "edge_padding_low" : !high ? "edge_padding_high" : "interior_padding",
                     r);
  for (int k = 0; k < r; k++) {
    if (interior[k] < 0)
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "%s: interior_padding[%d] = %" PRId64 " is negative (C3)", op, k,
                       interior[k]);
    int64_t d = operand->shape[k], ext;
    bool ok = tfr_mul_i64(d > 0 ? d - 1 : 0, interior[k], &ext) && tfr_add_i64(ext, d, &ext) &&
              tfr_add_i64(ext, low[k], &ext) && tfr_add_i64(ext, high[k], &ext);
    if (!ok || ext > TFR_MAX_NUMEL)
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "%s: the result extent of axis %d overflows (low %" PRId64 ", high %" PRId64
                       ", interior %" PRId64 ")",
                       op, k, low[k], high[k], interior[k]);
    if (ext < 0)
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "%s: axis %d: result extent low + d + (d - 1) * interior + high = %" PRId64
                       " + %" PRId64 " + %" PRId64 " + %" PRId64 " = %" PRId64 " is negative (C4)",
                       op, k, low[k], d, (d > 0 ? d - 1 : 0) * interior[k], high[k], ext);
    out_shape[k] = ext;
  }
  int64_t numel;
  return tfr_shape_numel(op, r, out_shape, &numel);
}

tfr_status tfr_validate_concatenate(tfr_session *s, int n, const tfr_tensor *const *inputs,
                                    int dimension, int64_t *out_shape) {
  const char *op = "concatenate";
  TFR_RETURN_IF_ERROR(tfr_session_check(op, s));
  if (n < 1)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: %d inputs, needs at least 1 (C3)", op, n);
  if (!inputs) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: inputs is NULL", op);
  for (int i = 0; i < n; i++) {
    char name[40];
    snprintf(name, sizeof name, "inputs[%d]", i);
    TFR_RETURN_IF_ERROR(tfr_check_placement(op, name, s, inputs[i]));
  }
  const tfr_tensor *a = inputs[0];
  int r = a->rank;
  if (dimension < 0 || dimension >= r)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "%s: dimension = %d is out of range [0, %d) (rank of inputs[0]) (C4)", op,
                     dimension, r);
  for (int k = 0; k < r; k++) out_shape[k] = a->shape[k];
  for (int i = 1; i < n; i++) {
    const tfr_tensor *b = inputs[i];
    char name[40];
    snprintf(name, sizeof name, "inputs[%d]", i);
    TFR_RETURN_IF_ERROR(ix_same_dtype(op, name, b, "inputs[0]", a, "(C1)"));
    if (b->rank != r)
      return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: %s has rank %d, inputs[0] has rank %d (C2)",
                       op, name, b->rank, r);
    for (int k = 0; k < r; k++) {
      if (k == dimension) continue;
      if (b->shape[k] != a->shape[k])
        return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                         "%s: %s has extent %" PRId64 " on axis %d, inputs[0] has %" PRId64
                         " (only axis %d may differ) (C2)",
                         op, name, b->shape[k], k, a->shape[k], dimension);
    }
    if (!tfr_add_i64(out_shape[dimension], b->shape[dimension], &out_shape[dimension]) ||
        out_shape[dimension] > TFR_MAX_NUMEL)
      return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: the result extent of axis %d overflows",
                       op, dimension);
  }
  int64_t numel;
  return tfr_shape_numel(op, r, out_shape, &numel);
}

// ---------------------------------------------------------------------------
// gather, scatter
// ---------------------------------------------------------------------------

// The parts of the index space that gather and scatter derive alike: batch
// axes from the index tensor, the vector axis, start and batching axes.
// `ivd` is already checked to lie in [0, rank(indices)] and the batching
// lists to be valid.
static void ix_fill_space(tfr_index_space *ix, const tfr_tensor *indices, int64_t ivd, int nstart,
                          const int64_t *start_axis, int nbatching, const int64_t *operand_batching,
                          const int64_t *indices_batching) {
  int ir = indices->rank;
  ix->indices = indices;
  ix->vector_axis = ivd < ir ? (int)ivd : -1;
  ix->nbatch = 0;
  for (int k = 0; k < ir; k++) {
    if (k == ix->vector_axis) continue;
    ix->batch_index_axis[ix->nbatch] = k;
    ix->batch_extent[ix->nbatch] = indices->shape[k];
    ix->nbatch++;
  }
  ix->nstart = nstart;
  for (int k = 0; k < nstart; k++) ix->start_axis[k] = start_axis[k];
  ix->nbatching = nbatching;
  for (int i = 0; i < nbatching; i++) {
    ix->batching_axis[i] = operand_batching[i];
    ix->batching_pos[i] = indices_batching[i] - (indices_batching[i] < ivd ? 0 : 1);
  }
}

// C13-C17 of gather / C14-C18 of scatter: the index tensor's batching dims.
static tfr_status ix_check_batching(const char *op, const char *on, const tfr_tensor *operand,
                                    int nob, const int64_t *ob, const char *in,
                                    const tfr_tensor *indices, int nib, const int64_t *ib,
                                    int64_t ivd, const char *labels[5]) {
  TFR_RETURN_IF_ERROR(
      ix_in_range(op, in, nib, ib, indices->rank, "rank of the index tensor", labels[1]));
  TFR_RETURN_IF_ERROR(ix_unique2(op, in, nib, ib, "", 0, NULL, labels[0]));
  for (int i = 0; i < nib; i++)
    if (ib[i] == ivd)
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "%s: %s[%d] = %" PRId64 " is index_vector_dim %s", op, in, i, ib[i],
                       labels[2]);
  if (nob != nib)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: %s has %d entries, %s has %d %s", op, on, nob,
                     in, nib, labels[3]);
  for (int i = 0; i < nob; i++)
    if (operand->shape[ob[i]] != indices->shape[ib[i]])
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "%s: %s[%d] = %" PRId64 " has operand extent %" PRId64 ", %s[%d] = %" PRId64
                       " has index extent %" PRId64 " %s",
                       op, on, i, ob[i], operand->shape[ob[i]], in, i, ib[i],
                       indices->shape[ib[i]], labels[4]);
  return TFR_OK;
}

tfr_status tfr_validate_gather(tfr_session *s, const tfr_tensor *operand,
                               const tfr_tensor *start_indices, const tfr_gather_config *c,
                               tfr_gather_desc *d, int *out_rank, int64_t *out_shape) {
  const char *op = "gather";
  TFR_RETURN_IF_ERROR(tfr_session_check(op, s));
  TFR_RETURN_IF_ERROR(tfr_check_placement(op, "operand", s, operand));
  TFR_RETURN_IF_ERROR(tfr_check_placement(op, "start_indices", s, start_indices));
  if (!c) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: config is NULL", op);
  TFR_RETURN_IF_ERROR(ix_index_dtype(op, "start_indices", start_indices));
  TFR_RETURN_IF_ERROR(ix_check_list(op, "offset_dims", c->num_offset_dims, c->offset_dims));
  TFR_RETURN_IF_ERROR(ix_check_list(op, "collapsed_slice_dims", c->num_collapsed_slice_dims,
                                    c->collapsed_slice_dims));
  TFR_RETURN_IF_ERROR(ix_check_list(op, "operand_batching_dims", c->num_operand_batching_dims,
                                    c->operand_batching_dims));
  TFR_RETURN_IF_ERROR(ix_check_list(op, "start_indices_batching_dims",
                                    c->num_start_indices_batching_dims,
                                    c->start_indices_batching_dims));
  TFR_RETURN_IF_ERROR(
      ix_check_list(op, "start_index_map", c->num_start_index_map, c->start_index_map));
  const int r = operand->rank, ir = start_indices->rank;
  const int noff = c->num_offset_dims, ncol = c->num_collapsed_slice_dims;
  const int nob = c->num_operand_batching_dims, nsim = c->num_start_index_map;
  const int64_t ivd = c->index_vector_dim;
  const int64_t *ss = c->slice_sizes;
  if (r > 0 && !ss)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: slice_sizes is NULL for an operand of rank %d",
                     op, r);

  if (ivd < 0 || ivd > ir)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "%s: index_vector_dim = %" PRId64 " is out of range [0, %d] (rank of "
                     "start_indices) (C2)",
                     op, ivd, ir);
  int64_t vlen = ivd < ir ? start_indices->shape[ivd] : 1;
  if (nsim != vlen)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "%s: start_index_map has %d entries, the index vector has %" PRId64
                     " components (%s) (C3)",
                     op, nsim, vlen,
                     ivd < ir ? "dim(start_indices, index_vector_dim)"
                              : "index_vector_dim = rank(start_indices): 1");
  if (r != noff + ncol + nob)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "%s: rank(operand) = %d, but size(offset_dims) + size(collapsed_slice_dims) "
                     "+ size(operand_batching_dims) = %d + %d + %d (C1)",
                     op, r, noff, ncol, nob);
  const int nbatch = ir - (ivd < ir ? 1 : 0);
  const int rr = nbatch + noff;
  if (rr > TFR_MAX_RANK)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: the result would have rank %d, more than %d",
                     op, rr, TFR_MAX_RANK);
  TFR_RETURN_IF_ERROR(ix_sorted_unique(op, "offset_dims", noff, c->offset_dims, "(C4)", "(C4)"));
  TFR_RETURN_IF_ERROR(
      ix_in_range(op, "offset_dims", noff, c->offset_dims, rr, "rank of the result", "(C5)"));
  TFR_RETURN_IF_ERROR(ix_in_range(op, "collapsed_slice_dims", ncol, c->collapsed_slice_dims, r,
                                  "rank of operand", "(C8)"));
  TFR_RETURN_IF_ERROR(ix_in_range(op, "operand_batching_dims", nob, c->operand_batching_dims, r,
                                  "rank of operand", "(C11)"));
  TFR_RETURN_IF_ERROR(ix_unique2(op, "collapsed_slice_dims", ncol, c->collapsed_slice_dims,
                                 "operand_batching_dims", nob, c->operand_batching_dims, "(C6)"));
  TFR_RETURN_IF_ERROR(
      ix_sorted_unique(op, "collapsed_slice_dims", ncol, c->collapsed_slice_dims, "(C7)", "(C6)"));
  TFR_RETURN_IF_ERROR(ix_sorted_unique(op, "operand_batching_dims", nob, c->operand_batching_dims,
                                       "(C10)", "(C6)"));
  const char *blabels[5] = {"(C13)", "(C14)", "(C15)", "(C16)", "(C17)"};
  TFR_RETURN_IF_ERROR(ix_check_batching(
      op, "operand_batching_dims", operand, nob, c->operand_batching_dims,
      "start_indices_batching_dims", start_indices, c->num_start_indices_batching_dims,
      c->start_indices_batching_dims, ivd, blabels));
  TFR_RETURN_IF_ERROR(ix_in_range(op, "start_index_map", nsim, c->start_index_map, r,
                                  "rank of operand", "(C19)"));
  TFR_RETURN_IF_ERROR(ix_unique2(op, "start_index_map", nsim, c->start_index_map,
                                 "operand_batching_dims", nob, c->operand_batching_dims, "(C18)"));
  for (int k = 0; k < r; k++) {
    if (ss[k] < 0)
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "%s: slice_sizes[%d] = %" PRId64 " is negative (C21)", op, k, ss[k]);
    if (ss[k] > operand->shape[k])
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "%s: slice_sizes[%d] = %" PRId64 " exceeds operand extent %" PRId64 " (C21)",
                       op, k, ss[k], operand->shape[k]);
  }
  for (int i = 0; i < ncol; i++)
    if (ss[c->collapsed_slice_dims[i]] > 1)
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "%s: slice_sizes[%" PRId64 "] = %" PRId64
                       " on collapsed_slice_dims[%d] must be <= 1 (C9)",
                       op, c->collapsed_slice_dims[i], ss[c->collapsed_slice_dims[i]], i);
  for (int i = 0; i < nob; i++)
    if (ss[c->operand_batching_dims[i]] > 1)
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "%s: slice_sizes[%" PRId64 "] = %" PRId64
                       " on operand_batching_dims[%d] must be <= 1 (C12)",
                       op, c->operand_batching_dims[i], ss[c->operand_batching_dims[i]], i);

  memset(d, 0, sizeof *d);
  d->dtype = operand->dtype;
  d->operand = operand;
  tfr_index_space *ix = &d->ix;
  ix_fill_space(ix, start_indices, ivd, nsim, c->start_index_map, nob, c->operand_batching_dims,
                c->start_indices_batching_dims);
  for (int a = 0; a < r; a++) {
    ix->window_size[a] = ss[a];
    if (ix_contains(ncol, c->collapsed_slice_dims, a) ||
        ix_contains(nob, c->operand_batching_dims, a))
      continue;
    ix->window_axis[ix->nwindow] = a;
    ix->window_extent[ix->nwindow] = ss[a];
    ix->nwindow++;
  }
  // C22: batch extents at the result axes not in offset_dims, window
  // extents at offset_dims.
  for (int i = 0; i < noff; i++) {
    d->window_out_axis[i] = c->offset_dims[i];
    out_shape[c->offset_dims[i]] = ix->window_extent[i];
  }
  for (int k = 0, j = 0; k < rr; k++) {
    if (ix_contains(noff, c->offset_dims, k)) continue;
    d->batch_out_axis[j] = k;
    out_shape[k] = ix->batch_extent[j];
    j++;
  }
  *out_rank = rr;
  int64_t numel;
  TFR_RETURN_IF_ERROR(tfr_shape_numel(op, rr, out_shape, &numel));
  // A collapsed or batching axis of slice size 0 (allowed by C9/C12) would
  // make each result element read an element that no slice contains; only
  // an empty result gives that a meaning.
  for (int a = 0; a < r && numel > 0; a++)
    if (ss[a] == 0 && (ix_contains(ncol, c->collapsed_slice_dims, a) ||
                       ix_contains(nob, c->operand_batching_dims, a)))
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "%s: slice_sizes[%d] = 0 on a collapsed or batching dim leaves nothing to "
                       "read for a non-empty result (use slice size 1)",
                       op, a);
  return TFR_OK;
}

static const char *ix_combiner_name(tfr_scatter_combiner c) {
  static const char *const names[] = {"replace", "add", "multiply", "maximum", "minimum"};
  return (unsigned)c <= TFR_SCATTER_MINIMUM ? names[c] : "invalid";
}

tfr_status tfr_validate_scatter(tfr_session *s, const tfr_tensor *operand,
                                const tfr_tensor *indices, const tfr_tensor *updates,
                                const tfr_scatter_config *c, tfr_scatter_desc *d) {
  const char *op = "scatter";
  TFR_RETURN_IF_ERROR(tfr_session_check(op, s));
  TFR_RETURN_IF_ERROR(tfr_check_placement(op, "operand", s, operand));
  TFR_RETURN_IF_ERROR(tfr_check_placement(op, "scatter_indices", s, indices));
  TFR_RETURN_IF_ERROR(tfr_check_placement(op, "updates", s, updates));
  if (!c) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: config is NULL", op);
  if ((unsigned)c->combiner > TFR_SCATTER_MINIMUM)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: invalid combiner value %d", op,
                     (int)c->combiner);
  // The combiners follow the binary ops of the same name: add and multiply
  // are numeric, maximum/minimum take every dtype (bool as or/and, complex
  // lexicographic); replace only moves bytes (the registry's scatter row).
  const uint32_t masks[] = {tfr_op_info_of(TFR_OPID_SCATTER)->dtypes,
                            tfr_binary_info(TFR_ADD)->dtypes, tfr_binary_info(TFR_MULTIPLY)->dtypes,
                            tfr_binary_info(TFR_MAXIMUM)->dtypes,
                            tfr_binary_info(TFR_MINIMUM)->dtypes};
  char name[48];
  snprintf(name, sizeof name, "scatter (%s)", ix_combiner_name(c->combiner));
  TFR_RETURN_IF_ERROR(tfr_validate_dtype(name, operand->dtype, masks[c->combiner]));
  TFR_RETURN_IF_ERROR(ix_same_dtype(op, "updates", updates, "operand", operand, "(C6)"));
  TFR_RETURN_IF_ERROR(ix_index_dtype(op, "scatter_indices", indices));
  TFR_RETURN_IF_ERROR(ix_check_list(op, "update_window_dims", c->num_update_window_dims,
                                    c->update_window_dims));
  TFR_RETURN_IF_ERROR(ix_check_list(op, "inserted_window_dims", c->num_inserted_window_dims,
                                    c->inserted_window_dims));
  TFR_RETURN_IF_ERROR(ix_check_list(op, "input_batching_dims", c->num_input_batching_dims,
                                    c->input_batching_dims));
  TFR_RETURN_IF_ERROR(ix_check_list(op, "scatter_indices_batching_dims",
                                    c->num_scatter_indices_batching_dims,
                                    c->scatter_indices_batching_dims));
  TFR_RETURN_IF_ERROR(ix_check_list(op, "scatter_dims_to_operand_dims",
                                    c->num_scatter_dims_to_operand_dims,
                                    c->scatter_dims_to_operand_dims));
  const int r = operand->rank, ir = indices->rank, ur = updates->rank;
  const int nuw = c->num_update_window_dims, nins = c->num_inserted_window_dims;
  const int nib = c->num_input_batching_dims, nsd = c->num_scatter_dims_to_operand_dims;
  const int64_t ivd = c->index_vector_dim;

  if (ivd < 0 || ivd > ir)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "%s: index_vector_dim = %" PRId64 " is out of range [0, %d] (rank of "
                     "scatter_indices) (C22)",
                     op, ivd, ir);
  int64_t vlen = ivd < ir ? indices->shape[ivd] : 1;
  if (nsd != vlen)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "%s: scatter_dims_to_operand_dims has %d entries, the index vector has "
                     "%" PRId64 " components (%s) (C19)",
                     op, nsd, vlen,
                     ivd < ir ? "dim(scatter_indices, index_vector_dim)"
                              : "index_vector_dim = rank(scatter_indices): 1");
  if (r != nuw + nins + nib)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "%s: rank(operand) = %d, but size(update_window_dims) + "
                     "size(inserted_window_dims) + size(input_batching_dims) = %d + %d + %d (C2)",
                     op, r, nuw, nins, nib);
  TFR_RETURN_IF_ERROR(
      ix_sorted_unique(op, "update_window_dims", nuw, c->update_window_dims, "(C7)", "(C7)"));
  TFR_RETURN_IF_ERROR(ix_in_range(op, "update_window_dims", nuw, c->update_window_dims, ur,
                                  "rank of updates", "(C8)"));
  TFR_RETURN_IF_ERROR(ix_in_range(op, "inserted_window_dims", nins, c->inserted_window_dims, r,
                                  "rank of operand", "(C11)"));
  TFR_RETURN_IF_ERROR(ix_in_range(op, "input_batching_dims", nib, c->input_batching_dims, r,
                                  "rank of operand", "(C13)"));
  TFR_RETURN_IF_ERROR(ix_unique2(op, "inserted_window_dims", nins, c->inserted_window_dims,
                                 "input_batching_dims", nib, c->input_batching_dims, "(C9)"));
  TFR_RETURN_IF_ERROR(ix_sorted_unique(op, "inserted_window_dims", nins, c->inserted_window_dims,
                                       "(C10)", "(C9)"));
  TFR_RETURN_IF_ERROR(ix_sorted_unique(op, "input_batching_dims", nib, c->input_batching_dims,
                                       "(C12)", "(C9)"));
  const char *blabels[5] = {"(C14)", "(C15)", "(C16)", "(C17)", "(C18)"};
  TFR_RETURN_IF_ERROR(ix_check_batching(
      op, "input_batching_dims", operand, nib, c->input_batching_dims,
      "scatter_indices_batching_dims", indices, c->num_scatter_indices_batching_dims,
      c->scatter_indices_batching_dims, ivd, blabels));
  TFR_RETURN_IF_ERROR(ix_in_range(op, "scatter_dims_to_operand_dims", nsd,
                                  c->scatter_dims_to_operand_dims, r, "rank of operand", "(C21)"));
  TFR_RETURN_IF_ERROR(ix_unique2(op, "scatter_dims_to_operand_dims", nsd,
                                 c->scatter_dims_to_operand_dims, "input_batching_dims", nib,
                                 c->input_batching_dims, "(C20)"));

  memset(d, 0, sizeof *d);
  d->combiner = c->combiner;
  d->dtype = operand->dtype;
  d->updates = updates;
  tfr_index_space *ix = &d->ix;
  ix_fill_space(ix, indices, ivd, nsd, c->scatter_dims_to_operand_dims, nib,
                c->input_batching_dims, c->scatter_indices_batching_dims);
  // C4: updates = index batch extents at the update scatter dims, window
  // extents (at most the operand's) at update_window_dims.
  if (ur != ix->nbatch + nuw)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "%s: updates has rank %d, expected %d (the %d batch dims of scatter_indices "
                     "+ %d update_window_dims) (C4)",
                     op, ur, ix->nbatch + nuw, ix->nbatch, nuw);
  for (int k = 0, j = 0; k < ur; k++) {
    if (ix_contains(nuw, c->update_window_dims, k)) continue;
    d->batch_update_axis[j] = k;
    if (updates->shape[k] != ix->batch_extent[j])
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "%s: updates extent %" PRId64 " of axis %d differs from the extent %" PRId64
                       " of scatter_indices axis %" PRId64 " (C4)",
                       op, updates->shape[k], k, ix->batch_extent[j], ix->batch_index_axis[j]);
    j++;
  }
  for (int a = 0; a < r; a++) {
    ix->window_size[a] = 1;
    if (ix_contains(nins, c->inserted_window_dims, a) ||
        ix_contains(nib, c->input_batching_dims, a))
      continue;
    int i = ix->nwindow++;
    int64_t ua = c->update_window_dims[i];
    if (updates->shape[ua] > operand->shape[a])
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "%s: updates extent %" PRId64 " of window axis %" PRId64
                       " exceeds operand extent %" PRId64 " of axis %d (C4)",
                       op, updates->shape[ua], ua, operand->shape[a], a);
    ix->window_axis[i] = a;
    ix->window_extent[i] = updates->shape[ua];
    ix->window_size[a] = updates->shape[ua];
    d->window_update_axis[i] = ua;
  }
  return TFR_OK;
}
