// Public reductions.
#include <float.h>
#include <math.h>
#include <string.h>

#include "core/validate.h"

// Writes the identity of `combiner` in `dtype` to `bytes` (16 bytes).
static void tfr_reduce_identity(tfr_reduce_combiner c, tfr_dtype dtype, unsigned char *bytes) {
  memset(bytes, 0, 16);
  bool one = c == TFR_REDUCE_MULTIPLY;
  bool all = c == TFR_REDUCE_AND || c == TFR_REDUCE_MINIMUM;  // all bits / highest value
  bool lowest = c == TFR_REDUCE_MAXIMUM;
  switch (dtype) {
    case TFR_BOOL: bytes[0] = (one || all) ? 1 : 0; break;
    case TFR_I32: {
      int32_t v = one ? 1 : c == TFR_REDUCE_AND ? -1 : c == TFR_REDUCE_MINIMUM ? INT32_MAX
                  : lowest ? INT32_MIN : 0;
      memcpy(bytes, &v, sizeof v);
      break;
    }
    case TFR_I64: {
      int64_t v = one ? 1 : c == TFR_REDUCE_AND ? -1 : c == TFR_REDUCE_MINIMUM ? INT64_MAX
                  : lowest ? INT64_MIN : 0;
      memcpy(bytes, &v, sizeof v);
      break;
    }
    case TFR_F32:
    case TFR_C64: {
      float v = one ? 1.0f : c == TFR_REDUCE_MINIMUM ? INFINITY : lowest ? -INFINITY : 0.0f;
      memcpy(bytes, &v, sizeof v);
      break;
    }
    case TFR_F64:
    case TFR_C128: {
      double v = one ? 1.0 : c == TFR_REDUCE_MINIMUM ? INFINITY : lowest ? -INFINITY : 0.0;
      memcpy(bytes, &v, sizeof v);
      break;
    }
  }
}

tfr_status tfr_reduce(tfr_session *s, const tfr_tensor *x, const tfr_tensor *init_value,
                      tfr_reduce_combiner combiner, int naxes, const int64_t *axes,
                      tfr_tensor **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "reduce: out is NULL");
  *out = NULL;
  tfr_reduce_desc d;
  int rank;
  int64_t shape[TFR_MAX_RANK];
  TFR_RETURN_IF_ERROR(tfr_validate_reduce(s, x, init_value, combiner, naxes, axes, &d, &rank, shape));
  if (!init_value) tfr_reduce_identity(combiner, x->dtype, d.init_bytes);
  tfr_tensor *t = NULL;
  TFR_RETURN_IF_ERROR(tfr_tensor_alloc(s->backend, x->dtype, rank, shape, false, &t));
  d.out = t;
  tfr_status st = s->backend->vtable->reduction(s->backend, &d);
  if (st) tfr_tensor_release(t);
  else *out = t;
  return st;
}

tfr_status tfr_reduce_sum(tfr_session *s, const tfr_tensor *x, int naxes, const int64_t *axes,
                          tfr_tensor **out) {
  return tfr_reduce(s, x, NULL, TFR_REDUCE_ADD, naxes, axes, out);
}

tfr_status tfr_reduce_prod(tfr_session *s, const tfr_tensor *x, int naxes, const int64_t *axes,
                           tfr_tensor **out) {
  return tfr_reduce(s, x, NULL, TFR_REDUCE_MULTIPLY, naxes, axes, out);
}

tfr_status tfr_reduce_max(tfr_session *s, const tfr_tensor *x, int naxes, const int64_t *axes,
                          tfr_tensor **out) {
  return tfr_reduce(s, x, NULL, TFR_REDUCE_MAXIMUM, naxes, axes, out);
}

tfr_status tfr_reduce_min(tfr_session *s, const tfr_tensor *x, int naxes, const int64_t *axes,
                          tfr_tensor **out) {
  return tfr_reduce(s, x, NULL, TFR_REDUCE_MINIMUM, naxes, axes, out);
}
