// Conformance runner: reduce and dot_general (ops.h "Reductions",
// "dot_general").
#include <string.h>

#include "conformance.h"

// The corpus writes a one-op body (reduce's and reduce_window's `reducer`,
// select_and_scatter's `combiner`) as the name of its op; the API takes the
// same set as a tfr_reduce_combiner. Dtypes from the op registry.
const tfr_conf_reducer_info tfr_conf_reducers[TFR_CONF_NUM_REDUCERS] = {
    {"add", TFR_REDUCE_ADD},       {"multiply", TFR_REDUCE_MULTIPLY}, {"maximum", TFR_REDUCE_MAXIMUM},
    {"minimum", TFR_REDUCE_MINIMUM}, {"and", TFR_REDUCE_AND},       {"or", TFR_REDUCE_OR},
    {"xor", TFR_REDUCE_XOR},
};

const tfr_conf_reducer_info *tfr_conf_reducer(const char *name) {
  for (int i = 0; i < TFR_CONF_NUM_REDUCERS; i++)
    if (strcmp(tfr_conf_reducers[i].name, name) == 0) return &tfr_conf_reducers[i];
  return NULL;
}

static const char *tfr_conf_check_reduce(const tfr_conf_op *op, const tfr_conf_case *c,
                                         const tfr_conf_instr *in, char *buf) {
  char err[TFR_CONF_MSG];
  const char *name = tfr_conf_attr_string(in, "reducer", err);
  if (!name) return NULL;
  // StableHLO allows several inputs reduced together (argmax and friends);
  // tfr_reduce takes one.
  if (in->noperands != 2) return "no variadic reduce";
  const tfr_conf_reducer_info *r = tfr_conf_reducer(name);
  if (!r) {
    snprintf(buf, TFR_CONF_MSG, "no reduce with reducer %.40s", name);
    return buf;
  }
  const tfr_conf_dtype *dt = tfr_conf_operand_type(c, in, 0)->dtype;
  if (!tfr_conf_dtype_allowed(tfr_reduce_info(r->combiner)->dtypes, dt)) {
    snprintf(buf, TFR_CONF_MSG, "no reduce %s on %s", name, tfr_conf_kind_name(dt));
    return buf;
  }
  return NULL;
}

static bool tfr_conf_run_reduce(const tfr_conf_op *op, tfr_conf_exec *x, const tfr_conf_instr *in,
                                tfr_tensor *const *args, tfr_tensor **out) {
  if (!tfr_conf_want_operands(x, in, 2)) return false;
  const char *name = tfr_conf_attr_string(in, "reducer", x->msg);
  if (!name) return false;
  const tfr_conf_reducer_info *r = tfr_conf_reducer(name);
  if (!r) return tfr_conf_fail(x, "reduce: unknown reducer \"%.40s\"", name);
  int64_t dims[TFR_MAX_RANK];
  int n;
  if (!tfr_conf_attr_ints(in, "dimensions", dims, TFR_MAX_RANK, &n, x->msg)) return false;
  tfr_status st = tfr_reduce(x->session, args[0], args[1], r->combiner, n, dims,
                             out);
  return st ? tfr_conf_lib_fail(x, in, st) : true;
}

static bool tfr_conf_run_dot_general(const tfr_conf_op *op, tfr_conf_exec *x,
                                     const tfr_conf_instr *in, tfr_tensor *const *args,
                                     tfr_tensor **out) {
  if (!tfr_conf_want_operands(x, in, 2)) return false;
  int64_t lb[TFR_MAX_RANK], rb[TFR_MAX_RANK], lc[TFR_MAX_RANK], rc[TFR_MAX_RANK];
  int nlb, nrb, nlc, nrc;
  if (!tfr_conf_attr_ints(in, "lhs_batching_dims", lb, TFR_MAX_RANK, &nlb, x->msg) ||
      !tfr_conf_attr_ints(in, "rhs_batching_dims", rb, TFR_MAX_RANK, &nrb, x->msg) ||
      !tfr_conf_attr_ints(in, "lhs_contracting_dims", lc, TFR_MAX_RANK, &nlc, x->msg) ||
      !tfr_conf_attr_ints(in, "rhs_contracting_dims", rc, TFR_MAX_RANK, &nrc, x->msg))
    return false;
  // The API pairs lhs and rhs dims by position, so it takes one count each.
  if (nlb != nrb || nlc != nrc)
    return tfr_conf_fail(x, "dot_general: %d/%d batching and %d/%d contracting dims (lhs/rhs)",
                         nlb, nrb, nlc, nrc);
  tfr_dot_config cfg = {
      .num_batching_dims = nlb,
      .lhs_batching_dimensions = lb,
      .rhs_batching_dimensions = rb,
      .num_contracting_dims = nlc,
      .lhs_contracting_dimensions = lc,
      .rhs_contracting_dimensions = rc,
      .lhs_conj = false,
      .rhs_conj = false,
  };
  int rank;
  int64_t shape[TFR_MAX_RANK];
  tfr_status st = tfr_dot_general_shape(x->session, args[0], args[1], &cfg, &rank, shape);
  if (st) return tfr_conf_lib_fail(x, in, st);
  if (!tfr_conf_expect_shape(x, in, rank, shape)) return false;
  st = tfr_dot_general(x->session, args[0], args[1], &cfg, out);
  return st ? tfr_conf_lib_fail(x, in, st) : true;
}

const tfr_conf_op tfr_conf_ops_reduction[] = {
    {"reduce", false, tfr_conf_check_reduce, tfr_conf_run_reduce, 0, 0},
    {"dot_general", false, NULL, tfr_conf_run_dot_general, 0, TFR_DTG_NUMERIC},
    {NULL, false, NULL, NULL, 0, 0},
};
