// Validation of the window ops (reduce_window, select_and_scatter) and of
// bitcast_convert. Constraint labels "(Cn)" are those of the StableHLO
// specification's sections for each op.
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/op_registry.h"
#include "core/validate.h"

static const char *win_combiner_name(tfr_reduce_combiner c) {
  static const char *const names[] = {"add", "multiply", "maximum", "minimum", "and", "or", "xor"};
  return (unsigned)c <= TFR_REDUCE_XOR ? names[c] : "invalid";
}

static tfr_status win_check_combiner(const char *op, const char *arg, tfr_reduce_combiner c,
                                     tfr_dtype dtype) {
  if ((unsigned)c > TFR_REDUCE_XOR)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: invalid %s value %d", op, arg, (int)c);
  char name[96];
  snprintf(name, sizeof name, "%s (%s %s)", op, arg, win_combiner_name(c));
  // The dtypes of each combiner: those of tfr_reduce (the registry's reduce_<body> rows).
  return tfr_validate_dtype(name, dtype, tfr_reduce_info(c)->dtypes);
}

// init_value: on the session, rank 0, the operand's dtype.
static tfr_status win_check_init(const char *op, tfr_session *s, const tfr_tensor *init,
                                 const tfr_tensor *operand, const char *label) {
  TFR_RETURN_IF_ERROR(tfr_check_placement(op, "init_value", s, init));
  if (init->rank != 0)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: init_value has rank %d, must be 0", op,
                     init->rank);
  if (init->dtype != operand->dtype)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "%s: init_value has dtype %s, operand has dtype %s (no implicit promotion: "
                     "use tfr_convert) %s",
                     op, tfr_dtype_name(init->dtype), tfr_dtype_name(operand->dtype), label);
  return TFR_OK;
}

// Checks one positive int64[rank] array (NULL = all 1 when `optional`).
static tfr_status win_check_positive(const char *op, const char *arg, const int64_t *v, int rank,
                                     bool optional, const char *label) {
  if (!v) {
    if (optional || rank == 0) return TFR_OK;
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: %s is NULL for an operand of rank %d", op,
                     arg, rank);
  }
  for (int k = 0; k < rank; k++)
    if (v[k] < 1)
      return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: %s[%d] = %" PRId64 " must be positive %s",
                       op, arg, k, v[k], label);
  return TFR_OK;
}

// The number of windows along one axis (the spec's num_windows), from the
// operand extent d. Fails when the padded extent is negative or overflows.
static tfr_status win_count(const char *op, int k, int64_t d, int64_t w, int64_t stride,
                            int64_t bdil, int64_t wdil, int64_t lo, int64_t hi, int64_t *out) {
  int64_t dilated = 0, padded, dwin;
  bool ok = true;
  if (d > 0) ok = tfr_mul_i64(d - 1, bdil, &dilated) && tfr_add_i64(dilated, 1, &dilated);
  ok = ok && tfr_add_i64(dilated, lo, &padded) && tfr_add_i64(padded, hi, &padded) &&
       tfr_mul_i64(w - 1, wdil, &dwin) && tfr_add_i64(dwin, 1, &dwin);
  if (!ok || padded > TFR_MAX_NUMEL || dwin > TFR_MAX_NUMEL)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "%s: axis %d: the padded extent or the dilated window overflows (extent %" PRId64
                     ", padding [%" PRId64 ", %" PRId64 "], window %" PRId64 ")",
                     op, k, d, lo, hi, w);
  if (padded < 0)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "%s: axis %d: padded extent padding_low + dilated extent + padding_high = "
                     "%" PRId64 " + %" PRId64 " + %" PRId64 " = %" PRId64 " is negative",
                     op, k, lo, dilated, hi, padded);
  *out = (padded == 0 || dwin > padded) ? 0 : (padded - dwin) / stride + 1;
  return TFR_OK;
}

tfr_status tfr_validate_reduce_window(tfr_session *s, const tfr_tensor *operand,
                                      const tfr_tensor *init_value, tfr_reduce_combiner combiner,
                                      const int64_t *window_dimensions,
                                      const int64_t *window_strides,
                                      const int64_t *base_dilations,
                                      const int64_t *window_dilations, const int64_t *padding,
                                      int64_t *out_shape) {
  const char *op = "reduce_window";
  TFR_RETURN_IF_ERROR(tfr_session_check(op, s));
  TFR_RETURN_IF_ERROR(tfr_check_placement(op, "operand", s, operand));
  TFR_RETURN_IF_ERROR(win_check_init(op, s, init_value, operand, "(C3)"));
  TFR_RETURN_IF_ERROR(win_check_combiner(op, "combiner", combiner, operand->dtype));
  int r = operand->rank;
  TFR_RETURN_IF_ERROR(win_check_positive(op, "window_dimensions", window_dimensions, r, false,
                                         "(C5)"));
  TFR_RETURN_IF_ERROR(win_check_positive(op, "window_strides", window_strides, r, true, "(C7)"));
  TFR_RETURN_IF_ERROR(win_check_positive(op, "base_dilations", base_dilations, r, true, "(C9)"));
  TFR_RETURN_IF_ERROR(
      win_check_positive(op, "window_dilations", window_dilations, r, true, "(C11)"));
  for (int k = 0; k < r; k++) {
    TFR_RETURN_IF_ERROR(win_count(
        op, k, operand->shape[k], window_dimensions[k], window_strides ? window_strides[k] : 1,
        base_dilations ? base_dilations[k] : 1, window_dilations ? window_dilations[k] : 1,
        padding ? padding[2 * k] : 0, padding ? padding[2 * k + 1] : 0, &out_shape[k]));
  }
  return TFR_OK;
}

tfr_status tfr_validate_select_and_scatter(tfr_session *s, const tfr_tensor *operand,
                                           const tfr_tensor *source,
                                           const tfr_tensor *init_value,
                                           tfr_compare_direction select_direction,
                                           tfr_reduce_combiner scatter_combiner,
                                           const int64_t *window_dimensions,
                                           const int64_t *window_strides,
                                           const int64_t *padding) {
  const char *op = "select_and_scatter";
  TFR_RETURN_IF_ERROR(tfr_session_check(op, s));
  TFR_RETURN_IF_ERROR(tfr_check_placement(op, "operand", s, operand));
  TFR_RETURN_IF_ERROR(tfr_check_placement(op, "source", s, source));
  if (source->dtype != operand->dtype)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "%s: source has dtype %s, operand has dtype %s (no implicit promotion: use "
                     "tfr_convert) (C1)",
                     op, tfr_dtype_name(source->dtype), tfr_dtype_name(operand->dtype));
  TFR_RETURN_IF_ERROR(win_check_init(op, s, init_value, operand, "(C3)"));
  if ((unsigned)select_direction > TFR_GE)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: invalid select_direction value %d", op,
                     (int)select_direction);
  // The select body is a compare: complex values have no order (as tfr_compare).
  if ((operand->dtype == TFR_C64 || operand->dtype == TFR_C128) && select_direction != TFR_EQ &&
      select_direction != TFR_NE)
    return tfr_error(TFR_ERR_UNSUPPORTED_DTYPE,
                     "%s: select_direction %d orders values, which %s does not allow (EQ and NE "
                     "only)",
                     op, (int)select_direction, tfr_dtype_name(operand->dtype));
  TFR_RETURN_IF_ERROR(win_check_combiner(op, "scatter_combiner", scatter_combiner,
                                         operand->dtype));
  int r = operand->rank;
  TFR_RETURN_IF_ERROR(win_check_positive(op, "window_dimensions", window_dimensions, r, false,
                                         "(C5)"));
  TFR_RETURN_IF_ERROR(win_check_positive(op, "window_strides", window_strides, r, true, "(C7)"));
  if (source->rank != r)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "%s: source has rank %d, operand has rank %d (C2)", op, source->rank, r);
  for (int k = 0; k < r; k++) {
    int64_t lo = padding ? padding[2 * k] : 0, hi = padding ? padding[2 * k + 1] : 0;
    // A cropped operand element would lie outside every window, yet keep a
    // place in the result; the library does not define that case.
    if (lo < 0 || hi < 0)
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "%s: padding[%d] = [%" PRId64 ", %" PRId64 "] is negative (not supported)",
                       op, k, lo, hi);
    int64_t n;
    TFR_RETURN_IF_ERROR(win_count(op, k, operand->shape[k], window_dimensions[k],
                                  window_strides ? window_strides[k] : 1, 1, 1, lo, hi, &n));
    if (source->shape[k] != n)
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "%s: source extent %" PRId64 " on axis %d, the number of windows is %" PRId64
                       " (C2)",
                       op, source->shape[k], k, n);
  }
  return TFR_OK;
}

tfr_status tfr_validate_bitcast_convert(tfr_session *s, const tfr_tensor *operand,
                                        tfr_dtype dtype, int *out_rank, int64_t *out_shape) {
  const char *op = "bitcast_convert";
  TFR_RETURN_IF_ERROR(tfr_session_check(op, s));
  TFR_RETURN_IF_ERROR(tfr_check_placement(op, "operand", s, operand));
  TFR_RETURN_IF_ERROR(
      tfr_validate_dtype(op, dtype, tfr_op_info_of(TFR_OPID_BITCAST_CONVERT)->dtypes));
  tfr_dtype from = operand->dtype;
  bool cfrom = from == TFR_C64 || from == TFR_C128, cto = dtype == TFR_C64 || dtype == TFR_C128;
  if (cfrom != cto)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "%s: %s to %s: complex and real dtypes cannot be bitcast into each other (C2)",
                     op, tfr_dtype_name(from), tfr_dtype_name(dtype));
  // A bool must hold 0 or 1; other bytes reinterpreted as bool would break
  // that, and a bool's width (one bit in StableHLO) divides nothing cleanly.
  if ((from == TFR_BOOL) != (dtype == TFR_BOOL))
    return tfr_error(TFR_ERR_UNSUPPORTED_DTYPE,
                     "%s: %s to %s: bool bitcasts only to bool", op, tfr_dtype_name(from),
                     tfr_dtype_name(dtype));
  size_t a = tfr_dtype_size(from), b = tfr_dtype_size(dtype);
  int r = operand->rank;
  if (a == b) {
    *out_rank = r;
    if (r) memcpy(out_shape, operand->shape, (size_t)r * sizeof *out_shape);
    return TFR_OK;
  }
  if (a > b) {  // each element splits into a / b: a new last axis
    if (r >= TFR_MAX_RANK)
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "%s: %s to %s adds an axis to an operand of the maximum rank %d (C1)", op,
                       tfr_dtype_name(from), tfr_dtype_name(dtype), r);
    if (r) memcpy(out_shape, operand->shape, (size_t)r * sizeof *out_shape);
    out_shape[r] = (int64_t)(a / b);
    *out_rank = r + 1;
    int64_t numel;
    return tfr_shape_numel(op, r + 1, out_shape, &numel);
  }
  // a < b: the last axis (extent b / a) merges into one element.
  if (r < 1)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "%s: %s to %s needs a last axis of extent %zu, the operand has rank 0 (C1)",
                     op, tfr_dtype_name(from), tfr_dtype_name(dtype), b / a);
  if (operand->shape[r - 1] != (int64_t)(b / a))
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "%s: %s to %s needs a last axis of extent %zu, the operand's is %" PRId64
                     " (C1)",
                     op, tfr_dtype_name(from), tfr_dtype_name(dtype), b / a,
                     operand->shape[r - 1]);
  if (r > 1) memcpy(out_shape, operand->shape, (size_t)(r - 1) * sizeof *out_shape);
  *out_rank = r - 1;
  return TFR_OK;
}
