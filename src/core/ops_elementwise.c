// Public elementwise ops: validate, allocate, dispatch.
#include "core/validate.h"

// Runs a validated descriptor into `into` (an `_into` call) or into a new
// tensor stored in *out. Always cleans the descriptor up.
static tfr_status tfr_run_elementwise(tfr_session *s, const char *name, tfr_elementwise_desc *d,
                                      tfr_tensor *into, tfr_tensor **out) {
  tfr_backend *b = s->backend;
  const tfr_tensor *shape_of = d->inputs[d->kind == TFR_EW_UNARY ? 0 : 1];
  tfr_status st;
  if (into) {
    st = tfr_validate_output(name, s, into, d->out_dtype, shape_of->rank, shape_of->shape,
                             d->inputs, d->ninputs);
    if (!st) {
      d->out = into;
      st = b->vtable->elementwise(b, d);
    }
  } else {
    tfr_tensor *t = NULL;
    st = tfr_tensor_alloc(b, d->out_dtype, shape_of->rank, shape_of->shape, false, &t);
    if (!st) {
      d->out = t;
      st = b->vtable->elementwise(b, d);
    }
    if (st) tfr_tensor_release(t);
    else *out = t;
  }
  tfr_elementwise_desc_cleanup(d);
  return st;
}

tfr_status tfr_unary(tfr_session *s, tfr_unary_op op, const tfr_tensor *x, tfr_tensor **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: out is NULL", tfr_unary_op_name(op));
  *out = NULL;
  tfr_elementwise_desc d;
  TFR_RETURN_IF_ERROR(tfr_validate_unary(s, op, x, &d));
  return tfr_run_elementwise(s, tfr_unary_op_name(op), &d, NULL, out);
}

tfr_status tfr_unary_into(tfr_session *s, tfr_unary_op op, const tfr_tensor *x, tfr_tensor *out) {
  tfr_elementwise_desc d;
  TFR_RETURN_IF_ERROR(tfr_validate_unary(s, op, x, &d));
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: out is NULL", tfr_unary_op_name(op));
  return tfr_run_elementwise(s, tfr_unary_op_name(op), &d, out, NULL);
}

tfr_status tfr_binary(tfr_session *s, tfr_binary_op op, const tfr_tensor *lhs,
                      const tfr_tensor *rhs, tfr_tensor **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: out is NULL", tfr_binary_op_name(op));
  *out = NULL;
  tfr_elementwise_desc d;
  TFR_RETURN_IF_ERROR(tfr_validate_binary(s, op, lhs, rhs, &d));
  return tfr_run_elementwise(s, tfr_binary_op_name(op), &d, NULL, out);
}

tfr_status tfr_binary_into(tfr_session *s, tfr_binary_op op, const tfr_tensor *lhs,
                           const tfr_tensor *rhs, tfr_tensor *out) {
  tfr_elementwise_desc d;
  TFR_RETURN_IF_ERROR(tfr_validate_binary(s, op, lhs, rhs, &d));
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: out is NULL", tfr_binary_op_name(op));
  return tfr_run_elementwise(s, tfr_binary_op_name(op), &d, out, NULL);
}

tfr_status tfr_compare(tfr_session *s, tfr_compare_direction dir, const tfr_tensor *lhs,
                       const tfr_tensor *rhs, tfr_tensor **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "compare: out is NULL");
  *out = NULL;
  tfr_elementwise_desc d;
  TFR_RETURN_IF_ERROR(tfr_validate_compare(s, dir, lhs, rhs, &d));
  return tfr_run_elementwise(s, "compare", &d, NULL, out);
}

tfr_status tfr_compare_into(tfr_session *s, tfr_compare_direction dir, const tfr_tensor *lhs,
                            const tfr_tensor *rhs, tfr_tensor *out) {
  tfr_elementwise_desc d;
  TFR_RETURN_IF_ERROR(tfr_validate_compare(s, dir, lhs, rhs, &d));
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "compare: out is NULL");
  return tfr_run_elementwise(s, "compare", &d, out, NULL);
}

tfr_status tfr_select(tfr_session *s, const tfr_tensor *pred, const tfr_tensor *on_true,
                      const tfr_tensor *on_false, tfr_tensor **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "select: out is NULL");
  *out = NULL;
  tfr_elementwise_desc d;
  TFR_RETURN_IF_ERROR(tfr_validate_select(s, pred, on_true, on_false, &d));
  return tfr_run_elementwise(s, "select", &d, NULL, out);
}

tfr_status tfr_select_into(tfr_session *s, const tfr_tensor *pred, const tfr_tensor *on_true,
                           const tfr_tensor *on_false, tfr_tensor *out) {
  tfr_elementwise_desc d;
  TFR_RETURN_IF_ERROR(tfr_validate_select(s, pred, on_true, on_false, &d));
  if (!out) {
    tfr_elementwise_desc_cleanup(&d);
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "select: out is NULL");
  }
  return tfr_run_elementwise(s, "select", &d, out, NULL);
}

tfr_status tfr_clamp(tfr_session *s, const tfr_tensor *min, const tfr_tensor *operand,
                     const tfr_tensor *max, tfr_tensor **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "clamp: out is NULL");
  *out = NULL;
  tfr_elementwise_desc d;
  TFR_RETURN_IF_ERROR(tfr_validate_clamp(s, min, operand, max, &d));
  return tfr_run_elementwise(s, "clamp", &d, NULL, out);
}

tfr_status tfr_clamp_into(tfr_session *s, const tfr_tensor *min, const tfr_tensor *operand,
                          const tfr_tensor *max, tfr_tensor *out) {
  tfr_elementwise_desc d;
  TFR_RETURN_IF_ERROR(tfr_validate_clamp(s, min, operand, max, &d));
  if (!out) {
    tfr_elementwise_desc_cleanup(&d);
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "clamp: out is NULL");
  }
  return tfr_run_elementwise(s, "clamp", &d, out, NULL);
}

// Named wrappers.
#define TFR_UNARY_WRAPPER(fn, OP)                                                   \
  tfr_status fn(tfr_session *s, const tfr_tensor *x, tfr_tensor **out) {           \
    return tfr_unary(s, OP, x, out);                                                \
  }
TFR_UNARY_WRAPPER(tfr_negate, TFR_NEGATE)
TFR_UNARY_WRAPPER(tfr_abs, TFR_ABS)
TFR_UNARY_WRAPPER(tfr_sign, TFR_SIGN)
TFR_UNARY_WRAPPER(tfr_conj, TFR_CONJ)
TFR_UNARY_WRAPPER(tfr_not, TFR_NOT)
TFR_UNARY_WRAPPER(tfr_floor, TFR_FLOOR)
TFR_UNARY_WRAPPER(tfr_ceil, TFR_CEIL)
TFR_UNARY_WRAPPER(tfr_round_nearest_even, TFR_ROUND_NEAREST_EVEN)
TFR_UNARY_WRAPPER(tfr_round_nearest_afz, TFR_ROUND_NEAREST_AFZ)
TFR_UNARY_WRAPPER(tfr_is_finite, TFR_IS_FINITE)
TFR_UNARY_WRAPPER(tfr_real, TFR_REAL)
TFR_UNARY_WRAPPER(tfr_imag, TFR_IMAG)
TFR_UNARY_WRAPPER(tfr_exp, TFR_EXP)
TFR_UNARY_WRAPPER(tfr_log, TFR_LOG)
TFR_UNARY_WRAPPER(tfr_sin, TFR_SIN)
TFR_UNARY_WRAPPER(tfr_cos, TFR_COS)
TFR_UNARY_WRAPPER(tfr_tan, TFR_TAN)
TFR_UNARY_WRAPPER(tfr_tanh, TFR_TANH)
TFR_UNARY_WRAPPER(tfr_sqrt, TFR_SQRT)
TFR_UNARY_WRAPPER(tfr_rsqrt, TFR_RSQRT)
TFR_UNARY_WRAPPER(tfr_cbrt, TFR_CBRT)
TFR_UNARY_WRAPPER(tfr_expm1, TFR_EXPM1)
TFR_UNARY_WRAPPER(tfr_log1p, TFR_LOG1P)
TFR_UNARY_WRAPPER(tfr_erf, TFR_ERF)
TFR_UNARY_WRAPPER(tfr_logistic, TFR_LOGISTIC)

#define TFR_BINARY_WRAPPER(fn, OP)                                                         \
  tfr_status fn(tfr_session *s, const tfr_tensor *lhs, const tfr_tensor *rhs,             \
                tfr_tensor **out) {                                                        \
    return tfr_binary(s, OP, lhs, rhs, out);                                               \
  }
TFR_BINARY_WRAPPER(tfr_add, TFR_ADD)
TFR_BINARY_WRAPPER(tfr_subtract, TFR_SUBTRACT)
TFR_BINARY_WRAPPER(tfr_multiply, TFR_MULTIPLY)
TFR_BINARY_WRAPPER(tfr_divide, TFR_DIVIDE)
TFR_BINARY_WRAPPER(tfr_remainder, TFR_REMAINDER)
TFR_BINARY_WRAPPER(tfr_maximum, TFR_MAXIMUM)
TFR_BINARY_WRAPPER(tfr_minimum, TFR_MINIMUM)
TFR_BINARY_WRAPPER(tfr_power, TFR_POWER)
TFR_BINARY_WRAPPER(tfr_and, TFR_AND)
TFR_BINARY_WRAPPER(tfr_or, TFR_OR)
TFR_BINARY_WRAPPER(tfr_xor, TFR_XOR)
TFR_BINARY_WRAPPER(tfr_complex, TFR_COMPLEX)
