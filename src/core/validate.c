// The shared validation layer (see validate.h).
#include <stdio.h>
#include <string.h>

#include "core/op_registry.h"
#include "core/validate.h"

// "[2, 3]" into buf.
static const char *tfr_shape_str(char *buf, size_t size, int rank, const int64_t *shape) {
  size_t n = (size_t)snprintf(buf, size, "[");
  for (int k = 0; k < rank && n < size; k++)
    n += (size_t)snprintf(buf + n, size - n, k ? ", %" PRId64 : "%" PRId64, shape[k]);
  if (n < size) snprintf(buf + n, size - n, "]");
  return buf;
}

static bool tfr_same_shape(const tfr_tensor *a, const tfr_tensor *b) {
  if (a->rank != b->rank) return false;
  for (int k = 0; k < a->rank; k++)
    if (a->shape[k] != b->shape[k]) return false;
  return true;
}

static tfr_status tfr_shape_mismatch(const char *op, const char *an, const tfr_tensor *a,
                                     const char *bn, const tfr_tensor *b) {
  char sa[256], sb[256];
  return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: %s has shape %s, %s has shape %s", op, an,
                   tfr_shape_str(sa, sizeof sa, a->rank, a->shape), bn,
                   tfr_shape_str(sb, sizeof sb, b->rank, b->shape));
}

static tfr_status tfr_dtype_mismatch(const char *op, const char *an, const tfr_tensor *a,
                                     const char *bn, const tfr_tensor *b) {
  return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                   "%s: %s has dtype %s, %s has dtype %s (no implicit promotion: use "
                   "tfr_convert)",
                   op, an, tfr_dtype_name(a->dtype), bn, tfr_dtype_name(b->dtype));
}

tfr_status tfr_validate_dtype(const char *op, tfr_dtype dtype, uint32_t mask) {
  if (!tfr_dtype_get_info(dtype))
    return tfr_error(TFR_ERR_UNSUPPORTED_DTYPE, "%s: invalid dtype value %d", op, (int)dtype);
  if (!(mask & TFR_DT(dtype))) {
    char list[128] = "";
    size_t n = 0;
    for (int d = 0; d < TFR_DTYPE_COUNT; d++)
      if (mask & TFR_DT(d))
        n += (size_t)snprintf(list + n, sizeof list - n, n ? " %s" : "%s", tfr_dtype_name(d));
    return tfr_error(TFR_ERR_UNSUPPORTED_DTYPE, "%s: not defined for dtype %s (defined for: %s)",
                     op, tfr_dtype_name(dtype), list);
  }
  return TFR_OK;
}

// Dtype rules of the elementwise ops, shared by the tensor validators below
// and by fusion plans (src/core/fusion.c).
tfr_status tfr_elementwise_result_dtype(tfr_ew_kind kind, int op, int ndtypes,
                                        const tfr_dtype *dtypes, tfr_dtype *out_dtype) {
  switch (kind) {
    case TFR_EW_UNARY: {
      const tfr_op_info *info = tfr_unary_info((tfr_unary_op)op);
      if (!info) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "unary: invalid op value %d", op);
      TFR_RETURN_IF_ERROR(tfr_validate_dtype(info->name, dtypes[0], info->dtypes));
      *out_dtype = tfr_result_dtype(info->rule, dtypes[0]);
      return TFR_OK;
    }
    case TFR_EW_BINARY: {
      const tfr_op_info *info = tfr_binary_info((tfr_binary_op)op);
      if (!info) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "binary: invalid op value %d", op);
      if (dtypes[0] != dtypes[1])
        return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                         "%s: lhs has dtype %s, rhs has dtype %s (no implicit promotion: use "
                         "tfr_convert)", info->name, tfr_dtype_name(dtypes[0]), tfr_dtype_name(dtypes[1]));
      TFR_RETURN_IF_ERROR(tfr_validate_dtype(info->name, dtypes[0], info->dtypes));
      *out_dtype = tfr_result_dtype(info->rule, dtypes[0]);
      return TFR_OK;
    }
    case TFR_EW_COMPARE:
      if ((unsigned)op > TFR_GE)
        return tfr_error(TFR_ERR_INVALID_ARGUMENT, "compare: invalid comparison_direction %d", op);
      if (dtypes[0] != dtypes[1])
        return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                         "compare: lhs has dtype %s, rhs has dtype %s (no implicit promotion: use "
                         "tfr_convert)", tfr_dtype_name(dtypes[0]), tfr_dtype_name(dtypes[1]));
      if (op == TFR_EQ || op == TFR_NE)
        TFR_RETURN_IF_ERROR(tfr_validate_dtype("compare", dtypes[0],
                                               tfr_op_info_of(TFR_OPID_COMPARE)->dtypes));
      else  // the orderings: not on complex (op_registry.def's attributes)
        TFR_RETURN_IF_ERROR(tfr_validate_dtype("compare (LT/LE/GT/GE)", dtypes[0],
                                               tfr_op_info_of(TFR_OPID_COMPARE)->dtypes &
                                                   ~TFR_DT_COMPLEX));
      *out_dtype = TFR_BOOL;
      return TFR_OK;
    case TFR_EW_SELECT:
      if (dtypes[0] != TFR_BOOL)
        return tfr_error(TFR_ERR_INVALID_ARGUMENT, "select: pred has dtype %s, must be bool",
                         tfr_dtype_name(dtypes[0]));
      if (dtypes[1] != dtypes[2])
        return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                         "select: on_true has dtype %s, on_false has dtype %s (no implicit "
                         "promotion: use tfr_convert)", tfr_dtype_name(dtypes[1]), tfr_dtype_name(dtypes[2]));
      TFR_RETURN_IF_ERROR(tfr_validate_dtype("select", dtypes[1], tfr_op_info_of(TFR_OPID_SELECT)->dtypes));
      *out_dtype = dtypes[1];
      return TFR_OK;
    case TFR_EW_CLAMP:
      for (int i = 0; i < 3; i += 2)
        if (dtypes[i] != dtypes[1])
          return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                           "clamp: %s has dtype %s, operand has dtype %s (no implicit promotion: "
                           "use tfr_convert)", i ? "max" : "min", tfr_dtype_name(dtypes[i]),
                           tfr_dtype_name(dtypes[1]));
      TFR_RETURN_IF_ERROR(tfr_validate_dtype("clamp", dtypes[1], tfr_op_info_of(TFR_OPID_CLAMP)->dtypes));
      *out_dtype = dtypes[1];
      return TFR_OK;
  }
  return tfr_error(TFR_ERR_INVALID_ARGUMENT, "elementwise: invalid kind %d", (int)kind);
}

void tfr_elementwise_desc_cleanup(tfr_elementwise_desc *d) {
  for (int i = 0; i < 3; i++) {
    tfr_tensor_release(d->owned[i]);
    d->owned[i] = NULL;
  }
}

static void tfr_desc_init(tfr_elementwise_desc *d, tfr_ew_kind kind, int op) {
  memset(d, 0, sizeof *d);
  d->kind = kind;
  d->op = op;
}

tfr_status tfr_validate_unary(tfr_session *s, tfr_unary_op op, const tfr_tensor *x,
                              tfr_elementwise_desc *d) {
  const tfr_op_info *info = tfr_unary_info(op);
  const char *name = info ? info->name : "unary";
  TFR_RETURN_IF_ERROR(tfr_session_check(name, s));
  if (!info) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "unary: invalid op value %d", (int)op);
  TFR_RETURN_IF_ERROR(tfr_check_placement(name, "operand", s, x));
  tfr_dtype out_dtype = TFR_BOOL;
  TFR_RETURN_IF_ERROR(tfr_elementwise_result_dtype(TFR_EW_UNARY, (int)op, 1, &x->dtype, &out_dtype));
  tfr_desc_init(d, TFR_EW_UNARY, (int)op);
  d->dtype = x->dtype;
  d->out_dtype = out_dtype;
  d->ninputs = 1;
  d->inputs[0] = x;
  return TFR_OK;
}

tfr_status tfr_validate_binary(tfr_session *s, tfr_binary_op op, const tfr_tensor *lhs,
                               const tfr_tensor *rhs, tfr_elementwise_desc *d) {
  const tfr_op_info *info = tfr_binary_info(op);
  const char *name = info ? info->name : "binary";
  TFR_RETURN_IF_ERROR(tfr_session_check(name, s));
  if (!info) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "binary: invalid op value %d", (int)op);
  TFR_RETURN_IF_ERROR(tfr_check_placement(name, "lhs", s, lhs));
  TFR_RETURN_IF_ERROR(tfr_check_placement(name, "rhs", s, rhs));
  if (!tfr_same_shape(lhs, rhs)) return tfr_shape_mismatch(name, "lhs", lhs, "rhs", rhs);
  tfr_dtype out_dtype = TFR_BOOL;
  TFR_RETURN_IF_ERROR(tfr_elementwise_result_dtype(TFR_EW_BINARY, (int)op, 2,
                                                   (tfr_dtype[]){lhs->dtype, rhs->dtype}, &out_dtype));
  tfr_desc_init(d, TFR_EW_BINARY, (int)op);
  d->dtype = lhs->dtype;
  d->out_dtype = out_dtype;
  d->ninputs = 2;
  d->inputs[0] = lhs;
  d->inputs[1] = rhs;
  return TFR_OK;
}

tfr_status tfr_validate_compare(tfr_session *s, tfr_compare_direction dir, const tfr_tensor *lhs,
                                const tfr_tensor *rhs, tfr_elementwise_desc *d) {
  TFR_RETURN_IF_ERROR(tfr_session_check("compare", s));
  if ((unsigned)dir > TFR_GE)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "compare: invalid comparison_direction %d",
                     (int)dir);
  TFR_RETURN_IF_ERROR(tfr_check_placement("compare", "lhs", s, lhs));
  TFR_RETURN_IF_ERROR(tfr_check_placement("compare", "rhs", s, rhs));
  if (!tfr_same_shape(lhs, rhs)) return tfr_shape_mismatch("compare", "lhs", lhs, "rhs", rhs);
  tfr_dtype out_dtype = TFR_BOOL;
  TFR_RETURN_IF_ERROR(tfr_elementwise_result_dtype(TFR_EW_COMPARE, (int)dir, 2,
                                                   (tfr_dtype[]){lhs->dtype, rhs->dtype}, &out_dtype));
  tfr_desc_init(d, TFR_EW_COMPARE, (int)dir);
  d->dtype = lhs->dtype;
  d->out_dtype = TFR_BOOL;
  d->ninputs = 2;
  d->inputs[0] = lhs;
  d->inputs[1] = rhs;
  return TFR_OK;
}

// Makes input `i` of `d` a broadcast view of rank-0 `t` to `like`'s shape.
static tfr_status tfr_broadcast_scalar(tfr_elementwise_desc *d, int i, const tfr_tensor *t,
                                       const tfr_tensor *like) {
  if (t->rank == like->rank) {
    d->inputs[i] = t;
    return TFR_OK;
  }
  tfr_status st =
      tfr_tensor_view_broadcast_in_dim(t, like->rank, like->shape, NULL, &d->owned[i]);
  d->inputs[i] = d->owned[i];
  return st;
}

tfr_status tfr_validate_select(tfr_session *s, const tfr_tensor *pred, const tfr_tensor *on_true,
                               const tfr_tensor *on_false, tfr_elementwise_desc *d) {
  TFR_RETURN_IF_ERROR(tfr_session_check("select", s));
  TFR_RETURN_IF_ERROR(tfr_check_placement("select", "pred", s, pred));
  TFR_RETURN_IF_ERROR(tfr_check_placement("select", "on_true", s, on_true));
  TFR_RETURN_IF_ERROR(tfr_check_placement("select", "on_false", s, on_false));
  tfr_dtype out_dtype = TFR_BOOL;
  TFR_RETURN_IF_ERROR(tfr_elementwise_result_dtype(
      TFR_EW_SELECT, 0, 3, (tfr_dtype[]){pred->dtype, on_true->dtype, on_false->dtype}, &out_dtype));
  if (!tfr_same_shape(on_true, on_false))
    return tfr_shape_mismatch("select", "on_true", on_true, "on_false", on_false);
  if (pred->rank != 0 && !tfr_same_shape(pred, on_true))
    return tfr_shape_mismatch("select", "pred", pred, "on_true", on_true);
  tfr_desc_init(d, TFR_EW_SELECT, 0);
  d->dtype = on_true->dtype;
  d->out_dtype = on_true->dtype;
  d->ninputs = 3;
  d->inputs[1] = on_true;
  d->inputs[2] = on_false;
  tfr_status st = tfr_broadcast_scalar(d, 0, pred, on_true);
  if (st) tfr_elementwise_desc_cleanup(d);
  return st;
}

tfr_status tfr_validate_clamp(tfr_session *s, const tfr_tensor *min, const tfr_tensor *operand,
                              const tfr_tensor *max, tfr_elementwise_desc *d) {
  TFR_RETURN_IF_ERROR(tfr_session_check("clamp", s));
  TFR_RETURN_IF_ERROR(tfr_check_placement("clamp", "min", s, min));
  TFR_RETURN_IF_ERROR(tfr_check_placement("clamp", "operand", s, operand));
  TFR_RETURN_IF_ERROR(tfr_check_placement("clamp", "max", s, max));
  tfr_dtype out_dtype = TFR_BOOL;
  TFR_RETURN_IF_ERROR(tfr_elementwise_result_dtype(
      TFR_EW_CLAMP, 0, 3, (tfr_dtype[]){min->dtype, operand->dtype, max->dtype}, &out_dtype));
  if (min->rank != 0 && !tfr_same_shape(min, operand))
    return tfr_shape_mismatch("clamp", "min", min, "operand", operand);
  if (max->rank != 0 && !tfr_same_shape(max, operand))
    return tfr_shape_mismatch("clamp", "max", max, "operand", operand);
  tfr_desc_init(d, TFR_EW_CLAMP, 0);
  d->dtype = operand->dtype;
  d->out_dtype = operand->dtype;
  d->ninputs = 3;
  d->inputs[1] = operand;
  tfr_status st = tfr_broadcast_scalar(d, 0, min, operand);
  if (!st) st = tfr_broadcast_scalar(d, 2, max, operand);
  if (st) tfr_elementwise_desc_cleanup(d);
  return st;
}

// Byte range [lo, hi] of storage a non-empty tensor reaches.
static void tfr_byte_range(const tfr_tensor *t, int64_t *lo, int64_t *hi) {
  int64_t l = t->offset, h = t->offset;
  for (int k = 0; k < t->rank; k++) {
    int64_t reach = (t->shape[k] - 1) * t->strides[k];
    if (reach < 0) l += reach; else h += reach;
  }
  int64_t es = (int64_t)tfr_dtype_size(t->dtype);
  *lo = l * es;
  *hi = h * es + es - 1;
}

static bool tfr_same_layout(const tfr_tensor *a, const tfr_tensor *b) {
  if (a->offset != b->offset || tfr_dtype_size(a->dtype) != tfr_dtype_size(b->dtype) ||
      a->rank != b->rank)
    return false;
  for (int k = 0; k < a->rank; k++)
    if (a->shape[k] > 1 && a->strides[k] != b->strides[k]) return false;
  return true;
}

// True when two distinct indices of `t` may reach the same element: a
// sufficient test for non-overlap (axes sorted by |stride|, each stride
// larger than everything the smaller axes reach).
static bool tfr_self_overlaps(const tfr_tensor *t) {
  int64_t st[TFR_MAX_RANK], ex[TFR_MAX_RANK];
  int n = 0;
  for (int k = 0; k < t->rank; k++) {
    if (t->shape[k] <= 1) continue;
    int64_t a = t->strides[k] < 0 ? -t->strides[k] : t->strides[k];
    int j = n++;
    while (j > 0 && st[j - 1] > a) {
      st[j] = st[j - 1];
      ex[j] = ex[j - 1];
      j--;
    }
    st[j] = a;
    ex[j] = t->shape[k];
  }
  int64_t reach = 0;
  for (int i = 0; i < n; i++) {
    if (st[i] <= reach) return true;
    reach += (ex[i] - 1) * st[i];
  }
  return false;
}

tfr_status tfr_validate_output(const char *op, const tfr_session *s, const tfr_tensor *out,
                               tfr_dtype dtype, int rank, const int64_t *shape,
                               const tfr_tensor *const *inputs, int ninputs) {
  TFR_RETURN_IF_ERROR(tfr_check_placement(op, "out", s, out));
  if (out->dtype != dtype)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: out has dtype %s, the result is %s", op,
                     tfr_dtype_name(out->dtype), tfr_dtype_name(dtype));
  bool same = out->rank == rank;
  for (int k = 0; same && k < rank; k++) same = out->shape[k] == shape[k];
  if (!same) {
    char sa[256], sb[256];
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: out has shape %s, the result has shape %s",
                     op, tfr_shape_str(sa, sizeof sa, out->rank, out->shape),
                     tfr_shape_str(sb, sizeof sb, rank, shape));
  }
  if (out->numel == 0) return TFR_OK;
  if (tfr_self_overlaps(out))
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "%s: out's strides make distinct elements share memory (e.g. a broadcast "
                     "view); it cannot be written",
                     op);
  int64_t olo, ohi;
  tfr_byte_range(out, &olo, &ohi);
  for (int i = 0; i < ninputs; i++) {
    const tfr_tensor *in = inputs[i];
    if (!in || in->storage != out->storage || in->numel == 0) continue;
    if (tfr_same_layout(in, out)) continue;  // exactly in place
    int64_t lo, hi;
    tfr_byte_range(in, &lo, &hi);
    if (lo <= ohi && olo <= hi)
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "%s: out overlaps input %d without being the same view of it", op, i);
  }
  return TFR_OK;
}

tfr_status tfr_validate_axes(const char *op, int rank, int naxes, const int64_t *axes,
                             int64_t *sorted) {
  if (naxes < 0 || naxes > rank)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: %d axes for an operand of rank %d", op,
                     naxes, rank);
  if (naxes > 0 && !axes) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: axes is NULL", op);
  bool seen[TFR_MAX_RANK] = {false};
  for (int i = 0; i < naxes; i++) {
    int64_t a = axes[i];
    if (a < 0 || a >= rank)
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "%s: axis %" PRId64 " (entry %d) is out of range for rank %d", op, a, i,
                       rank);
    if (seen[a])
      return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: axis %" PRId64 " is listed twice", op, a);
    seen[a] = true;
  }
  int n = 0;
  for (int k = 0; k < rank; k++)
    if (seen[k]) sorted[n++] = k;
  return TFR_OK;
}

tfr_status tfr_validate_reduce_precision(tfr_session *s, const tfr_tensor *x, int exponent_bits,
                                         int mantissa_bits) {
  TFR_RETURN_IF_ERROR(tfr_session_check("reduce_precision", s));
  TFR_RETURN_IF_ERROR(tfr_check_placement("reduce_precision", "operand", s, x));
  TFR_RETURN_IF_ERROR(tfr_validate_dtype("reduce_precision", x->dtype,
                                         tfr_op_info_of(TFR_OPID_REDUCE_PRECISION)->dtypes));
  if (exponent_bits < 1)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "reduce_precision: exponent_bits is %d, must be >= 1 (C1)", exponent_bits);
  if (mantissa_bits < 0)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "reduce_precision: mantissa_bits is %d, must be >= 0 (C2)", mantissa_bits);
  return TFR_OK;
}

static const char *tfr_combiner_name(tfr_reduce_combiner c) {
  static const char *const names[] = {"add", "multiply", "maximum", "minimum", "and", "or", "xor"};
  return (unsigned)c <= TFR_REDUCE_XOR ? names[c] : "invalid";
}

tfr_status tfr_validate_reduce(tfr_session *s, const tfr_tensor *x, const tfr_tensor *init,
                               tfr_reduce_combiner combiner, int naxes, const int64_t *axes,
                               tfr_reduce_desc *d, int *out_rank, int64_t *out_shape) {
  TFR_RETURN_IF_ERROR(tfr_session_check("reduce", s));
  if ((unsigned)combiner > TFR_REDUCE_XOR)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "reduce: invalid combiner value %d",
                     (int)combiner);
  TFR_RETURN_IF_ERROR(tfr_check_placement("reduce", "operand", s, x));
  char name[64];
  snprintf(name, sizeof name, "reduce (%s)", tfr_combiner_name(combiner));
  TFR_RETURN_IF_ERROR(tfr_validate_dtype(name, x->dtype, tfr_reduce_info(combiner)->dtypes));
  memset(d, 0, sizeof *d);
  if (init) {
    TFR_RETURN_IF_ERROR(tfr_check_placement("reduce", "init_value", s, init));
    if (init->rank != 0)
      return tfr_error(TFR_ERR_INVALID_ARGUMENT, "reduce: init_value has rank %d, must be 0",
                       init->rank);
    if (init->dtype != x->dtype) return tfr_dtype_mismatch("reduce", "init_value", init, "operand", x);
  }
  TFR_RETURN_IF_ERROR(tfr_validate_axes("reduce", x->rank, naxes, axes, d->axes));
  d->combiner = combiner;
  d->dtype = x->dtype;
  d->in = x;
  d->naxes = naxes;
  d->init = init;
  int r = 0, j = 0;
  for (int k = 0; k < x->rank; k++) {
    if (j < naxes && d->axes[j] == k) {
      j++;
      continue;
    }
    out_shape[r++] = x->shape[k];
  }
  *out_rank = r;
  return TFR_OK;
}
