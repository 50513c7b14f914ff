// Conformance runner: constants and structural ops (ops.h "Structural").
#include "conformance.h"

static bool tfr_conf_run_constant(const tfr_conf_op *op, tfr_conf_exec *x,
                                  const tfr_conf_instr *in, tfr_tensor *const *args,
                                  tfr_tensor **out) {
  if (!tfr_conf_want_operands(x, in, 0)) return false;
  return tfr_conf_upload(x, &in->value, out);
}

static bool tfr_conf_run_convert(const tfr_conf_op *op, tfr_conf_exec *x, const tfr_conf_instr *in,
                                 tfr_tensor *const *args, tfr_tensor **out) {
  if (!tfr_conf_want_operands(x, in, 1)) return false;
  tfr_dtype to;
  if (!tfr_conf_lib_dtype(in->result.dtype, &to))
    return tfr_conf_fail(x, "convert: dtype %s is not in the library", in->result.dtype->name);
  tfr_status st = tfr_convert(x->session, args[0], to, out);
  return st ? tfr_conf_lib_fail(x, in, st) : true;
}

// reshape carries no attribute: the target shape is the declared result's.
static bool tfr_conf_run_reshape(const tfr_conf_op *op, tfr_conf_exec *x, const tfr_conf_instr *in,
                                 tfr_tensor *const *args, tfr_tensor **out) {
  if (!tfr_conf_want_operands(x, in, 1)) return false;
  tfr_status st = tfr_reshape(x->session, args[0], in->result.rank,
                              in->result.rank ? in->result.shape : NULL, out);
  return st ? tfr_conf_lib_fail(x, in, st) : true;
}

static bool tfr_conf_run_transpose(const tfr_conf_op *op, tfr_conf_exec *x,
                                   const tfr_conf_instr *in, tfr_tensor *const *args,
                                   tfr_tensor **out) {
  if (!tfr_conf_want_operands(x, in, 1)) return false;
  int64_t perm[TFR_MAX_RANK];
  int n;
  if (!tfr_conf_attr_ints(in, "permutation", perm, TFR_MAX_RANK, &n, x->msg)) return false;
  // The API reads rank(x) entries: a shorter list would be read past its end.
  if (n != tfr_tensor_rank(args[0]))
    return tfr_conf_fail(x, "transpose: permutation has %d entries for rank %d", n,
                         tfr_tensor_rank(args[0]));
  tfr_status st = tfr_transpose(x->session, args[0], perm, out);
  return st ? tfr_conf_lib_fail(x, in, st) : true;
}

static bool tfr_conf_run_broadcast(const tfr_conf_op *op, tfr_conf_exec *x,
                                   const tfr_conf_instr *in, tfr_tensor *const *args,
                                   tfr_tensor **out) {
  if (!tfr_conf_want_operands(x, in, 1)) return false;
  int64_t dims[TFR_MAX_RANK];
  int n;
  if (!tfr_conf_attr_ints(in, "broadcast_dimensions", dims, TFR_MAX_RANK, &n, x->msg))
    return false;
  if (n != tfr_tensor_rank(args[0]))
    return tfr_conf_fail(x, "broadcast_in_dim: broadcast_dimensions has %d entries for rank %d",
                         n, tfr_tensor_rank(args[0]));
  tfr_status st = tfr_broadcast_in_dim(x->session, args[0], in->result.rank,
                                       in->result.rank ? in->result.shape : NULL, dims, out);
  return st ? tfr_conf_lib_fail(x, in, st) : true;
}

static bool tfr_conf_run_iota(const tfr_conf_op *op, tfr_conf_exec *x, const tfr_conf_instr *in,
                              tfr_tensor *const *args, tfr_tensor **out) {
  if (!tfr_conf_want_operands(x, in, 0)) return false;
  int64_t dim;
  if (!tfr_conf_attr_int(in, "iota_dimension", &dim, x->msg)) return false;
  if (dim < 0 || dim >= TFR_MAX_RANK)
    return tfr_conf_fail(x, "iota: iota_dimension %lld out of range", (long long)dim);
  tfr_dtype dtype;
  if (!tfr_conf_lib_dtype(in->result.dtype, &dtype))
    return tfr_conf_fail(x, "iota: dtype %s is not in the library", in->result.dtype->name);
  tfr_status st = tfr_iota(x->session, dtype, in->result.rank,
                           in->result.rank ? in->result.shape : NULL, (int)dim, out);
  return st ? tfr_conf_lib_fail(x, in, st) : true;
}

static bool tfr_conf_run_reduce_precision(const tfr_conf_op *op, tfr_conf_exec *x,
                                          const tfr_conf_instr *in, tfr_tensor *const *args,
                                          tfr_tensor **out) {
  if (!tfr_conf_want_operands(x, in, 1)) return false;
  int64_t ebits, mbits;
  if (!tfr_conf_attr_int(in, "exponent_bits", &ebits, x->msg) ||
      !tfr_conf_attr_int(in, "mantissa_bits", &mbits, x->msg))
    return false;
  if (ebits < INT32_MIN || ebits > INT32_MAX || mbits < INT32_MIN || mbits > INT32_MAX)
    return tfr_conf_fail(x, "reduce_precision: exponent_bits %lld or mantissa_bits %lld out of "
                            "range", (long long)ebits, (long long)mbits);
  tfr_status st = tfr_reduce_precision(x->session, args[0], (int)ebits, (int)mbits, out);
  return st ? tfr_conf_lib_fail(x, in, st) : true;
}

const tfr_conf_op tfr_conf_ops_structural[] = {
    {"constant", false, NULL, tfr_conf_run_constant, 0, 0},
    {"convert", false, NULL, tfr_conf_run_convert, 0, 0},
    {"reshape", false, NULL, tfr_conf_run_reshape, 0, 0},
    {"transpose", false, NULL, tfr_conf_run_transpose, 0, 0},
    {"broadcast_in_dim", false, NULL, tfr_conf_run_broadcast, 0, 0},
    {"iota", false, NULL, tfr_conf_run_iota, 0, 0},
    {"reduce_precision", false, NULL, tfr_conf_run_reduce_precision, 0, TFR_DTG_FLOAT},
    {NULL, false, NULL, NULL, 0, 0},
};
