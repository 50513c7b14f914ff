// Public reductions.
#include <float.h>
#include <math.h>
#include <string.h>

#include "core/validate.h"

// Writes the identity of `combiner` in `dtype` to `bytes` (16 bytes).
static void tfr_reduce_identity(tfr_reduce_combiner c, tfr_dtype dtype, unsigned char *bytes) {
  bool ints = tfr_dtype_get_info(dtype)->kind == TFR_KIND_INT ||
              tfr_dtype_get_info(dtype)->kind == TFR_KIND_UINT;
  double fv = 0;
  uint64_t iv = 0;
  switch (c) {
    case TFR_REDUCE_MULTIPLY: fv = 1, iv = 1; break;
    case TFR_REDUCE_AND: iv = ~UINT64_C(0); break;  // all bits (bool: true)
    case TFR_REDUCE_MINIMUM:  // the highest value
      fv = INFINITY;
      iv = ints ? tfr_int_max_bits(dtype) : 1;
      break;
    case TFR_REDUCE_MAXIMUM:  // the lowest value
      fv = -INFINITY;
      iv = ints ? tfr_int_min_bits(dtype) : 0;
      break;
    default: break;
  }
  tfr_scalar_set(dtype, fv, iv, bytes);
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
