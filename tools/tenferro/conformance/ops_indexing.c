// Conformance runner: indexing ops (ops.h "Indexing").
#include <string.h>

#include "conformance.h"

// Reads an int64[rank] attribute that the API reads `rank` entries of.
static bool tfr_conf_attr_per_axis(tfr_conf_exec *x, const tfr_conf_instr *in, const char *key,
                                   int rank, int64_t *out) {
  int n;
  if (!tfr_conf_attr_ints(in, key, out, TFR_MAX_RANK, &n, x->msg)) return false;
  if (n != rank)
    return tfr_conf_fail(x, "%s: \"%s\" has %d entries for rank %d", in->op, key, n, rank);
  return true;
}

static bool tfr_conf_run_slice(const tfr_conf_op *op, tfr_conf_exec *x, const tfr_conf_instr *in,
                               tfr_tensor *const *args, tfr_tensor **out) {
  if (!tfr_conf_want_operands(x, in, 1)) return false;
  int rank = tfr_tensor_rank(args[0]);
  int64_t start[TFR_MAX_RANK], limit[TFR_MAX_RANK], strides[TFR_MAX_RANK];
  if (!tfr_conf_attr_per_axis(x, in, "start_indices", rank, start) ||
      !tfr_conf_attr_per_axis(x, in, "limit_indices", rank, limit) ||
      !tfr_conf_attr_per_axis(x, in, "strides", rank, strides))
    return false;
  tfr_status st = tfr_slice(x->session, args[0], start, limit, strides, out);
  return st ? tfr_conf_lib_fail(x, in, st) : true;
}

static bool tfr_conf_run_reverse(const tfr_conf_op *op, tfr_conf_exec *x, const tfr_conf_instr *in,
                                 tfr_tensor *const *args, tfr_tensor **out) {
  if (!tfr_conf_want_operands(x, in, 1)) return false;
  int64_t dims[TFR_MAX_RANK];
  int n;
  if (!tfr_conf_attr_ints(in, "dimensions", dims, TFR_MAX_RANK, &n, x->msg)) return false;
  tfr_status st = tfr_reverse(x->session, args[0], n, dims, out);
  return st ? tfr_conf_lib_fail(x, in, st) : true;
}

static bool tfr_conf_run_pad(const tfr_conf_op *op, tfr_conf_exec *x, const tfr_conf_instr *in,
                             tfr_tensor *const *args, tfr_tensor **out) {
  if (!tfr_conf_want_operands(x, in, 2)) return false;
  int rank = tfr_tensor_rank(args[0]);
  int64_t lo[TFR_MAX_RANK], hi[TFR_MAX_RANK], interior[TFR_MAX_RANK];
  if (!tfr_conf_attr_per_axis(x, in, "edge_padding_low", rank, lo) ||
      !tfr_conf_attr_per_axis(x, in, "edge_padding_high", rank, hi) ||
      !tfr_conf_attr_per_axis(x, in, "interior_padding", rank, interior))
    return false;
  int64_t shape[TFR_MAX_RANK];
  tfr_status st = tfr_pad_shape(x->session, args[0], args[1], lo, hi, interior, shape);
  if (st) return tfr_conf_lib_fail(x, in, st);
  if (!tfr_conf_expect_shape(x, in, rank, shape)) return false;
  st = tfr_pad(x->session, args[0], args[1], lo, hi, interior, out);
  return st ? tfr_conf_lib_fail(x, in, st) : true;
}

static bool tfr_conf_run_concatenate(const tfr_conf_op *op, tfr_conf_exec *x,
                                     const tfr_conf_instr *in, tfr_tensor *const *args,
                                     tfr_tensor **out) {
  int64_t dim;
  if (!tfr_conf_attr_int(in, "dimension", &dim, x->msg)) return false;
  if (dim < 0 || dim >= TFR_MAX_RANK)
    return tfr_conf_fail(x, "concatenate: dimension %lld out of range", (long long)dim);
  const tfr_tensor *const *inputs = (const tfr_tensor *const *)args;
  int64_t shape[TFR_MAX_RANK];
  tfr_status st = tfr_concatenate_shape(x->session, in->noperands, inputs, (int)dim, shape);
  if (st) return tfr_conf_lib_fail(x, in, st);
  if (!tfr_conf_expect_shape(x, in, tfr_tensor_rank(args[0]), shape)) return false;
  st = tfr_concatenate(x->session, in->noperands, inputs, (int)dim, out);
  return st ? tfr_conf_lib_fail(x, in, st) : true;
}

// ---------------------------------------------------------------------------
// Ops with index operands
// ---------------------------------------------------------------------------

// The API takes indices of every integer dtype, signed or unsigned.
static bool tfr_conf_index_dtype_ok(const tfr_conf_dtype *dt) {
  return dt->kind == TFR_CONF_KIND_INT || dt->kind == TFR_CONF_KIND_UINT;
}

static const char *tfr_conf_index_reason(const tfr_conf_instr *in, const tfr_conf_dtype *dt,
                                         char *buf) {
  snprintf(buf, TFR_CONF_MSG, "no %s with %s indices", in->op, dt->name);
  return buf;
}

// dynamic_slice: (operand, starts...); dynamic_update_slice: (operand,
// update, starts...). `op->param` is the index of the first start.
static const char *tfr_conf_check_dynamic(const tfr_conf_op *op, const tfr_conf_case *c,
                                          const tfr_conf_instr *in, char *buf) {
  for (int k = op->param; k < in->noperands; k++) {
    const tfr_conf_dtype *dt = tfr_conf_operand_type(c, in, k)->dtype;
    if (!tfr_conf_index_dtype_ok(dt)) return tfr_conf_index_reason(in, dt, buf);
  }
  return NULL;
}

static bool tfr_conf_run_dynamic_slice(const tfr_conf_op *op, tfr_conf_exec *x,
                                       const tfr_conf_instr *in, tfr_tensor *const *args,
                                       tfr_tensor **out) {
  if (in->noperands < 1) return tfr_conf_want_operands(x, in, 1);
  int rank = tfr_tensor_rank(args[0]);
  if (!tfr_conf_want_operands(x, in, 1 + rank)) return false;
  int64_t sizes[TFR_MAX_RANK];
  if (!tfr_conf_attr_per_axis(x, in, "slice_sizes", rank, sizes)) return false;
  tfr_status st = tfr_dynamic_slice(x->session, args[0], (const tfr_tensor *const *)(args + 1),
                                    sizes, out);
  return st ? tfr_conf_lib_fail(x, in, st) : true;
}

static bool tfr_conf_run_dynamic_update_slice(const tfr_conf_op *op, tfr_conf_exec *x,
                                              const tfr_conf_instr *in, tfr_tensor *const *args,
                                              tfr_tensor **out) {
  if (in->noperands < 1) return tfr_conf_want_operands(x, in, 2);
  if (!tfr_conf_want_operands(x, in, 2 + tfr_tensor_rank(args[0]))) return false;
  tfr_status st = tfr_dynamic_update_slice(x->session, args[0], args[1],
                                           (const tfr_tensor *const *)(args + 2), out);
  return st ? tfr_conf_lib_fail(x, in, st) : true;
}

static const char *tfr_conf_check_gather(const tfr_conf_op *op, const tfr_conf_case *c,
                                         const tfr_conf_instr *in, char *buf) {
  if (in->noperands != 2) return NULL;
  const tfr_conf_dtype *dt = tfr_conf_operand_type(c, in, 1)->dtype;
  return tfr_conf_index_dtype_ok(dt) ? NULL : tfr_conf_index_reason(in, dt, buf);
}

// The dimension-number arrays of gather and scatter, read into fixed storage.
typedef struct tfr_conf_dimlist {
  int n;
  int64_t v[TFR_MAX_RANK];
} tfr_conf_dimlist;

static bool tfr_conf_run_gather(const tfr_conf_op *op, tfr_conf_exec *x, const tfr_conf_instr *in,
                                tfr_tensor *const *args, tfr_tensor **out) {
  if (!tfr_conf_want_operands(x, in, 2)) return false;
  tfr_conf_dimlist offset, collapsed, obatch, ibatch, map;
  int64_t sizes[TFR_MAX_RANK], ivd;
  bool sorted;
  if (!tfr_conf_attr_ints(in, "offset_dims", offset.v, TFR_MAX_RANK, &offset.n, x->msg) ||
      !tfr_conf_attr_ints(in, "collapsed_slice_dims", collapsed.v, TFR_MAX_RANK, &collapsed.n,
                          x->msg) ||
      !tfr_conf_attr_ints(in, "operand_batching_dims", obatch.v, TFR_MAX_RANK, &obatch.n,
                          x->msg) ||
      !tfr_conf_attr_ints(in, "start_indices_batching_dims", ibatch.v, TFR_MAX_RANK, &ibatch.n,
                          x->msg) ||
      !tfr_conf_attr_ints(in, "start_index_map", map.v, TFR_MAX_RANK, &map.n, x->msg) ||
      !tfr_conf_attr_per_axis(x, in, "slice_sizes", tfr_tensor_rank(args[0]), sizes) ||
      !tfr_conf_attr_int(in, "index_vector_dim", &ivd, x->msg) ||
      !tfr_conf_attr_bool(in, "indices_are_sorted", &sorted, x->msg))
    return false;
  tfr_gather_config cfg = {
      .num_offset_dims = offset.n,
      .offset_dims = offset.v,
      .num_collapsed_slice_dims = collapsed.n,
      .collapsed_slice_dims = collapsed.v,
      .num_operand_batching_dims = obatch.n,
      .operand_batching_dims = obatch.v,
      .num_start_indices_batching_dims = ibatch.n,
      .start_indices_batching_dims = ibatch.v,
      .num_start_index_map = map.n,
      .start_index_map = map.v,
      .index_vector_dim = ivd,
      .slice_sizes = sizes,
      .indices_are_sorted = sorted,
  };
  int rank;
  int64_t shape[TFR_MAX_RANK];
  tfr_status st = tfr_gather_shape(x->session, args[0], args[1], &cfg, &rank, shape);
  if (st) return tfr_conf_lib_fail(x, in, st);
  if (!tfr_conf_expect_shape(x, in, rank, shape)) return false;
  st = tfr_gather(x->session, args[0], args[1], &cfg, out);
  return st ? tfr_conf_lib_fail(x, in, st) : true;
}

static const struct {
  const char *name;
  tfr_scatter_combiner combiner;
  tfr_opid dtypes_of;  // registry row of its dtypes: the binary op of the same name
} tfr_conf_scatter_combiners[] = {
    {"replace", TFR_SCATTER_REPLACE, TFR_OPID_SCATTER},
    {"add", TFR_SCATTER_ADD, TFR_OPID_ADD},
    {"multiply", TFR_SCATTER_MULTIPLY, TFR_OPID_MULTIPLY},
    {"maximum", TFR_SCATTER_MAXIMUM, TFR_OPID_MAXIMUM},
    {"minimum", TFR_SCATTER_MINIMUM, TFR_OPID_MINIMUM},
};
#define TFR_CONF_NCOMBINERS \
  (sizeof tfr_conf_scatter_combiners / sizeof tfr_conf_scatter_combiners[0])

static int tfr_conf_scatter_combiner(const char *name) {
  for (size_t i = 0; i < TFR_CONF_NCOMBINERS; i++)
    if (strcmp(tfr_conf_scatter_combiners[i].name, name) == 0) return (int)i;
  return -1;
}

static const char *tfr_conf_check_scatter(const tfr_conf_op *op, const tfr_conf_case *c,
                                          const tfr_conf_instr *in, char *buf) {
  char err[TFR_CONF_MSG];
  const char *name = tfr_conf_attr_string(in, "combiner", err);
  if (!name || in->noperands != 3) return NULL;
  int k = tfr_conf_scatter_combiner(name);
  if (k < 0) {
    snprintf(buf, TFR_CONF_MSG, "no scatter with combiner %.40s", name);
    return buf;
  }
  const tfr_conf_dtype *idx = tfr_conf_operand_type(c, in, 1)->dtype;
  if (!tfr_conf_index_dtype_ok(idx)) return tfr_conf_index_reason(in, idx, buf);
  const tfr_conf_dtype *dt = tfr_conf_operand_type(c, in, 0)->dtype;
  if (!tfr_conf_dtype_allowed(tfr_op_info_of(tfr_conf_scatter_combiners[k].dtypes_of)->dtypes, dt)) {
    snprintf(buf, TFR_CONF_MSG, "no scatter %s on %s", name, tfr_conf_kind_name(dt));
    return buf;
  }
  return NULL;
}

static bool tfr_conf_run_scatter(const tfr_conf_op *op, tfr_conf_exec *x, const tfr_conf_instr *in,
                                 tfr_tensor *const *args, tfr_tensor **out) {
  if (!tfr_conf_want_operands(x, in, 3)) return false;
  tfr_conf_dimlist window, inserted, ibatch, sbatch, map;
  int64_t ivd;
  bool sorted, unique;
  const char *name = tfr_conf_attr_string(in, "combiner", x->msg);
  if (!name) return false;
  int k = tfr_conf_scatter_combiner(name);
  if (k < 0) return tfr_conf_fail(x, "scatter: unknown combiner \"%.40s\"", name);
  if (!tfr_conf_attr_ints(in, "update_window_dims", window.v, TFR_MAX_RANK, &window.n, x->msg) ||
      !tfr_conf_attr_ints(in, "inserted_window_dims", inserted.v, TFR_MAX_RANK, &inserted.n,
                          x->msg) ||
      !tfr_conf_attr_ints(in, "input_batching_dims", ibatch.v, TFR_MAX_RANK, &ibatch.n,
                          x->msg) ||
      !tfr_conf_attr_ints(in, "scatter_indices_batching_dims", sbatch.v, TFR_MAX_RANK, &sbatch.n,
                          x->msg) ||
      !tfr_conf_attr_ints(in, "scatter_dims_to_operand_dims", map.v, TFR_MAX_RANK, &map.n,
                          x->msg) ||
      !tfr_conf_attr_int(in, "index_vector_dim", &ivd, x->msg) ||
      !tfr_conf_attr_bool(in, "indices_are_sorted", &sorted, x->msg) ||
      !tfr_conf_attr_bool(in, "unique_indices", &unique, x->msg))
    return false;
  tfr_scatter_config cfg = {
      .num_update_window_dims = window.n,
      .update_window_dims = window.v,
      .num_inserted_window_dims = inserted.n,
      .inserted_window_dims = inserted.v,
      .num_input_batching_dims = ibatch.n,
      .input_batching_dims = ibatch.v,
      .num_scatter_indices_batching_dims = sbatch.n,
      .scatter_indices_batching_dims = sbatch.v,
      .num_scatter_dims_to_operand_dims = map.n,
      .scatter_dims_to_operand_dims = map.v,
      .index_vector_dim = ivd,
      .combiner = tfr_conf_scatter_combiners[k].combiner,
      .indices_are_sorted = sorted,
      .unique_indices = unique,
  };
  tfr_status st = tfr_scatter(x->session, args[0], args[1], args[2], &cfg, out);
  return st ? tfr_conf_lib_fail(x, in, st) : true;
}

const tfr_conf_op tfr_conf_ops_indexing[] = {
    {"slice", false, NULL, tfr_conf_run_slice, 0, 0},
    {"reverse", false, NULL, tfr_conf_run_reverse, 0, 0},
    {"pad", false, NULL, tfr_conf_run_pad, 0, 0},
    {"concatenate", false, NULL, tfr_conf_run_concatenate, 0, 0},
    {"dynamic_slice", false, tfr_conf_check_dynamic, tfr_conf_run_dynamic_slice, 1, 0},
    {"dynamic_update_slice", false, tfr_conf_check_dynamic, tfr_conf_run_dynamic_update_slice, 2,
     0},
    {"gather", false, tfr_conf_check_gather, tfr_conf_run_gather, 0, 0},
    {"scatter", false, tfr_conf_check_scatter, tfr_conf_run_scatter, 0, 0},
    {NULL, false, NULL, NULL, 0, 0},
};
