// python/src/ops.c: the submodule tenferro.ops, the op set as functions with
// StableHLO names and attributes, made at import from the op registry
// (registry.h): every registry op whose family this file binds becomes a
// function of that name, its docstring listing the dtypes the registry
// gives. Each runs in the thread's session (or one of its own) with the GIL
// released. Operands: as einsum's (Tensors, numpy arrays without copying,
// DLPack producers); results: Tensors, or numpy arrays when every operand
// is a numpy array.
#include <string.h>

#include "tfrpy.h"

// ---------------------------------------------------------------------------
// Running one op
// ---------------------------------------------------------------------------
typedef tfrpy_body op_body;

// Loads objs[0..n) as tensors, runs body on the right backend, wraps the result.
static PyObject *run_op(PyObject *const *objs, int n, op_body body, const void *attrs) {
  // At least 4 slots, the unused ones NULL (reduce's optional init_value).
  tfr_tensor **in = PyMem_Calloc((size_t)(n > 4 ? n : 4), sizeof(tfr_tensor *));
  if (!in) return PyErr_NoMemory();
  bool all_ndarray = n > 0;
  PyObject *device = NULL;
  PyObject *result = NULL;
  int loaded = 0;
  for (; loaded < n; ++loaded) {
    PyObject *o = objs[loaded];
    if (all_ndarray && !tfrpy_is_ndarray(o)) all_ndarray = false;
    if (PyObject_TypeCheck(o, &tfrpy_tensor_type) && ((tfrpy_tensor *)o)->backend)
      device = ((tfrpy_tensor *)o)->backend;
    if (tfrpy_operand(o, &in[loaded]) < 0) goto done;
  }
  tfrpy_backend *b = tfrpy_backend_resolve(device);
  if (!b) goto done;
  bool on_device = tfr_backend_get_kind(b->backend) != TFR_BACKEND_CPU;
  tfr_tensor *res = tfrpy_run(b->backend, body, in, n, attrs);
  if (!res) goto done;
  result = tfrpy_tensor_new(res, on_device ? (PyObject *)b : NULL);
  if (result && all_ndarray && !on_device) Py_SETREF(result, tfrpy_numpy_result(result));
done:
  for (int i = 0; i < loaded; ++i) tfr_tensor_release(in[i]);
  PyMem_Free(in);
  return result;
}

// An int sequence into buf (at most TFR_MAX_RANK); -1 with an exception.
static int int64_seq(PyObject *o, const char *what, int64_t *buf, int *n) {
  if (o == NULL || o == Py_None) {
    *n = 0;
    return 0;
  }
  PyObject *seq = PySequence_Fast(o, what);
  if (!seq) return -1;
  Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
  if (len > TFR_MAX_RANK) {
    Py_DECREF(seq);
    PyErr_Format(PyExc_ValueError, "%s: more than %d values", what, TFR_MAX_RANK);
    return -1;
  }
  for (Py_ssize_t i = 0; i < len; ++i) {
    long long v = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
    if (v == -1 && PyErr_Occurred()) {
      Py_DECREF(seq);
      return -1;
    }
    buf[i] = v;
  }
  Py_DECREF(seq);
  *n = (int)len;
  return 0;
}

#define OP_ARGS PyObject *self, PyObject *args, PyObject *kwargs
#define OP_FN(name) static PyObject *name(OP_ARGS)

// ---------------------------------------------------------------------------
// Elementwise
// ---------------------------------------------------------------------------
static tfr_status unary_body(tfr_session *s, tfr_tensor *const *in, const void *a,
                             tfr_tensor **out) {
  return tfr_unary(s, (tfr_unary_op)(*(const long *)a), in[0], out);
}
OP_FN(op_unary) {
  static char *kw[] = {"operand", NULL};
  PyObject *x;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O", kw, &x)) return NULL;
  long op = PyLong_AsLong(self);
  return run_op(&x, 1, unary_body, &op);
}

static tfr_status binary_body(tfr_session *s, tfr_tensor *const *in, const void *a,
                              tfr_tensor **out) {
  return tfr_binary(s, (tfr_binary_op)(*(const long *)a), in[0], in[1], out);
}
OP_FN(op_binary) {
  static char *kw[] = {"lhs", "rhs", NULL};
  PyObject *x[2];
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO", kw, &x[0], &x[1])) return NULL;
  long op = PyLong_AsLong(self);
  return run_op(x, 2, binary_body, &op);
}

static tfr_status compare_body(tfr_session *s, tfr_tensor *const *in, const void *a,
                               tfr_tensor **out) {
  return tfr_compare(s, *(const tfr_compare_direction *)a, in[0], in[1], out);
}
OP_FN(op_compare) {
  static char *kw[] = {"lhs", "rhs", "comparison_direction", NULL};
  static const char *dirs[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
  PyObject *x[2];
  const char *dir = "EQ";
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|s", kw, &x[0], &x[1], &dir)) return NULL;
  for (int i = 0; i < 6; ++i)
    if (strcmp(dir, dirs[i]) == 0) {
      tfr_compare_direction d = (tfr_compare_direction)i;
      return run_op(x, 2, compare_body, &d);
    }
  return PyErr_Format(PyExc_ValueError,
                      "compare: comparison_direction '%s' (EQ NE LT LE GT GE)", dir);
}

static tfr_status select_body(tfr_session *s, tfr_tensor *const *in, const void *a,
                              tfr_tensor **out) {
  return tfr_select(s, in[0], in[1], in[2], out);
}
OP_FN(op_select) {
  static char *kw[] = {"pred", "on_true", "on_false", NULL};
  PyObject *x[3];
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO", kw, &x[0], &x[1], &x[2])) return NULL;
  return run_op(x, 3, select_body, NULL);
}

static tfr_status clamp_body(tfr_session *s, tfr_tensor *const *in, const void *a,
                             tfr_tensor **out) {
  return tfr_clamp(s, in[0], in[1], in[2], out);
}
OP_FN(op_clamp) {
  static char *kw[] = {"min", "operand", "max", NULL};
  PyObject *x[3];
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO", kw, &x[0], &x[1], &x[2])) return NULL;
  return run_op(x, 3, clamp_body, NULL);
}

// ---------------------------------------------------------------------------
// Structural
// ---------------------------------------------------------------------------
typedef struct {
  tfr_dtype dtype;
  int n, m;
  int64_t a[TFR_MAX_RANK], b[TFR_MAX_RANK], c[TFR_MAX_RANK];
  int64_t k;
} attrs;

static tfr_status convert_body(tfr_session *s, tfr_tensor *const *in, const void *a,
                               tfr_tensor **out) {
  return tfr_convert(s, in[0], ((const attrs *)a)->dtype, out);
}
OP_FN(op_convert) {
  static char *kw[] = {"operand", "dtype", NULL};
  PyObject *x, *dt;
  attrs at;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO", kw, &x, &dt)) return NULL;
  if (tfrpy_dtype_from_object(dt, &at.dtype) < 0) return NULL;
  return run_op(&x, 1, convert_body, &at);
}

static tfr_status bitcast_body(tfr_session *s, tfr_tensor *const *in, const void *a,
                               tfr_tensor **out) {
  return tfr_bitcast_convert(s, in[0], ((const attrs *)a)->dtype, out);
}
OP_FN(op_bitcast_convert) {
  static char *kw[] = {"operand", "dtype", NULL};
  PyObject *x, *dt;
  attrs at;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO", kw, &x, &dt)) return NULL;
  if (tfrpy_dtype_from_object(dt, &at.dtype) < 0) return NULL;
  return run_op(&x, 1, bitcast_body, &at);
}

static tfr_status copy_body(tfr_session *s, tfr_tensor *const *in, const void *a,
                            tfr_tensor **out) {
  return tfr_copy(s, in[0], out);
}
OP_FN(op_copy) {
  static char *kw[] = {"operand", NULL};
  PyObject *x;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O", kw, &x)) return NULL;
  return run_op(&x, 1, copy_body, NULL);
}

static tfr_status transpose_body(tfr_session *s, tfr_tensor *const *in, const void *a,
                                 tfr_tensor **out) {
  const attrs *at = a;
  if (at->n != tfr_tensor_rank(in[0])) {
    return tfr_transpose(s, in[0], NULL, out);  // the library reports the NULL/rank error
  }
  return tfr_transpose(s, in[0], at->a, out);
}
OP_FN(op_transpose) {
  static char *kw[] = {"operand", "permutation", NULL};
  PyObject *x, *perm;
  attrs at;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO", kw, &x, &perm)) return NULL;
  if (int64_seq(perm, "permutation", at.a, &at.n) < 0) return NULL;
  return run_op(&x, 1, transpose_body, &at);
}

static tfr_status reshape_body(tfr_session *s, tfr_tensor *const *in, const void *a,
                               tfr_tensor **out) {
  const attrs *at = a;
  return tfr_reshape(s, in[0], at->n, at->a, out);
}
OP_FN(op_reshape) {
  static char *kw[] = {"operand", "shape", NULL};
  PyObject *x, *shape;
  attrs at;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO", kw, &x, &shape)) return NULL;
  if (int64_seq(shape, "shape", at.a, &at.n) < 0) return NULL;
  return run_op(&x, 1, reshape_body, &at);
}

static tfr_status broadcast_body(tfr_session *s, tfr_tensor *const *in, const void *a,
                                 tfr_tensor **out) {
  const attrs *at = a;
  if (at->m != tfr_tensor_rank(in[0])) {
    return tfr_broadcast_in_dim(s, in[0], at->n, at->a, NULL, out);
  }
  return tfr_broadcast_in_dim(s, in[0], at->n, at->a, at->b, out);
}
OP_FN(op_broadcast_in_dim) {
  static char *kw[] = {"operand", "shape", "broadcast_dimensions", NULL};
  PyObject *x, *shape, *dims;
  attrs at;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO", kw, &x, &shape, &dims)) return NULL;
  if (int64_seq(shape, "shape", at.a, &at.n) < 0 ||
      int64_seq(dims, "broadcast_dimensions", at.b, &at.m) < 0)
    return NULL;
  return run_op(&x, 1, broadcast_body, &at);
}

static tfr_status reverse_body(tfr_session *s, tfr_tensor *const *in, const void *a,
                               tfr_tensor **out) {
  const attrs *at = a;
  return tfr_reverse(s, in[0], at->n, at->a, out);
}
OP_FN(op_reverse) {
  static char *kw[] = {"operand", "dimensions", NULL};
  PyObject *x, *dims;
  attrs at;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO", kw, &x, &dims)) return NULL;
  if (int64_seq(dims, "dimensions", at.a, &at.n) < 0) return NULL;
  return run_op(&x, 1, reverse_body, &at);
}

static tfr_status slice_body(tfr_session *s, tfr_tensor *const *in, const void *a,
                             tfr_tensor **out) {
  const attrs *at = a;
  int r = tfr_tensor_rank(in[0]);
  if (at->n != r || at->m != r || (at->k && at->k != r)) {
    // Let the library name the problem: a NULL array is an invalid argument.
    return tfr_slice(s, in[0], NULL, NULL, NULL, out);
  }
  return tfr_slice(s, in[0], at->a, at->b, at->k ? at->c : NULL, out);
}
OP_FN(op_slice) {
  static char *kw[] = {"operand", "start_indices", "limit_indices", "strides", NULL};
  PyObject *x, *start, *limit, *strides = Py_None;
  attrs at;
  int ns = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO|O", kw, &x, &start, &limit, &strides))
    return NULL;
  if (int64_seq(start, "start_indices", at.a, &at.n) < 0 ||
      int64_seq(limit, "limit_indices", at.b, &at.m) < 0 ||
      int64_seq(strides, "strides", at.c, &ns) < 0)
    return NULL;
  at.k = ns;
  return run_op(&x, 1, slice_body, &at);
}

static tfr_status concat_body(tfr_session *s, tfr_tensor *const *in, const void *a,
                              tfr_tensor **out) {
  const attrs *at = a;
  return tfr_concatenate(s, at->n, (const tfr_tensor *const *)in, (int)at->k, out);
}
OP_FN(op_concatenate) {
  static char *kw[] = {"inputs", "dimension", NULL};
  PyObject *inputs;
  long long dim;
  attrs at;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OL", kw, &inputs, &dim)) return NULL;
  PyObject *seq = PySequence_Fast(inputs, "concatenate: inputs must be a sequence");
  if (!seq) return NULL;
  at.n = (int)PySequence_Fast_GET_SIZE(seq);
  at.k = dim;
  PyObject *res = run_op(PySequence_Fast_ITEMS(seq), at.n, concat_body, &at);
  Py_DECREF(seq);
  return res;
}

static tfr_status tri_body(tfr_session *s, tfr_tensor *const *in, const void *a,
                           tfr_tensor **out) {
  const attrs *at = a;
  return at->n ? tfr_triu(s, in[0], at->k, out) : tfr_tril(s, in[0], at->k, out);
}
OP_FN(op_tril_triu) {
  static char *kw[] = {"operand", "k", NULL};
  PyObject *x;
  long long k = 0;
  attrs at;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|L", kw, &x, &k)) return NULL;
  at.k = k;
  at.n = (int)PyLong_AsLong(self);
  return run_op(&x, 1, tri_body, &at);
}

static tfr_status diag_body(tfr_session *s, tfr_tensor *const *in, const void *a,
                            tfr_tensor **out) {
  const attrs *at = a;
  return tfr_extract_diagonal(s, in[0], (int)at->a[0], (int)at->a[1], out);
}
OP_FN(op_extract_diagonal) {
  static char *kw[] = {"operand", "axis_a", "axis_b", NULL};
  PyObject *x;
  int ax = 0, bx = 1;
  attrs at;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|ii", kw, &x, &ax, &bx)) return NULL;
  at.a[0] = ax;
  at.a[1] = bx;
  return run_op(&x, 1, diag_body, &at);
}

static tfr_status iota_body(tfr_session *s, tfr_tensor *const *in, const void *a,
                            tfr_tensor **out) {
  const attrs *at = a;
  return tfr_iota(s, at->dtype, at->n, at->a, (int)at->k, out);
}
OP_FN(op_iota) {
  static char *kw[] = {"shape", "iota_dimension", "dtype", NULL};
  PyObject *shape, *dt = NULL;
  int dim = 0;
  attrs at;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|iO", kw, &shape, &dim, &dt)) return NULL;
  at.dtype = TFR_I64;
  if (dt && tfrpy_dtype_from_object(dt, &at.dtype) < 0) return NULL;
  if (int64_seq(shape, "shape", at.a, &at.n) < 0) return NULL;
  at.k = dim;
  return run_op(NULL, 0, iota_body, &at);
}

// ---------------------------------------------------------------------------
// Reductions
// ---------------------------------------------------------------------------
static tfr_status reduce_body(tfr_session *s, tfr_tensor *const *in, const void *a,
                              tfr_tensor **out) {
  const attrs *at = a;
  tfr_reduce_combiner c = (tfr_reduce_combiner)at->k;
  if (in[1]) return tfr_reduce(s, in[0], in[1], c, at->n, at->a, out);
  switch (c) {
    case TFR_REDUCE_ADD: return tfr_reduce_sum(s, in[0], at->n, at->a, out);
    case TFR_REDUCE_MULTIPLY: return tfr_reduce_prod(s, in[0], at->n, at->a, out);
    case TFR_REDUCE_MAXIMUM: return tfr_reduce_max(s, in[0], at->n, at->a, out);
    case TFR_REDUCE_MINIMUM: return tfr_reduce_min(s, in[0], at->n, at->a, out);
    default: break;
  }
  // and / or / xor: the identity (all bits set for and, else 0) as a rank-0
  // host tensor of the operand's dtype.
  tfr_dtype dt = tfr_tensor_dtype(in[0]);
  unsigned char bytes[16] = {0};
  if (c == TFR_REDUCE_AND) memset(bytes, dt == TFR_BOOL ? 1 : 0xFF, tfr_dtype_size(dt));
  tfr_tensor *init = NULL;
  tfr_status st = tfr_tensor_from_host(dt, 0, NULL, bytes, &init);
  if (!st) st = tfr_reduce(s, in[0], init, c, at->n, at->a, out);
  tfr_tensor_release(init);
  return st;
}
OP_FN(op_reduce) {
  static char *kw[] = {"operand", "dimensions", "init_value", NULL};
  PyObject *x[2] = {NULL, NULL}, *dims = Py_None;
  attrs at;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OO", kw, &x[0], &dims, &x[1]))
    return NULL;
  if (x[1] == Py_None) x[1] = NULL;
  at.k = PyLong_AsLong(self);
  if (dims == Py_None) {
    // Every axis of the operand.
    tfr_tensor *t;
    if (tfrpy_operand(x[0], &t) < 0) return NULL;
    at.n = tfr_tensor_rank(t);
    for (int i = 0; i < at.n; ++i) at.a[i] = i;
    tfr_tensor_release(t);
  } else if (int64_seq(dims, "dimensions", at.a, &at.n) < 0) {
    return NULL;
  }
  if (!x[1]) {
    // run_op loads every listed object: give it the operand only.
    return run_op(x, 1, reduce_body, &at);  // in[1] stays NULL
  }
  return run_op(x, 2, reduce_body, &at);
}

// ---------------------------------------------------------------------------
// dot_general and gather
// ---------------------------------------------------------------------------
typedef struct {
  tfr_dot_config cfg;
  int64_t lb[TFR_MAX_RANK], rb[TFR_MAX_RANK], lc[TFR_MAX_RANK], rc[TFR_MAX_RANK];
} dot_attrs;

static tfr_status dot_body(tfr_session *s, tfr_tensor *const *in, const void *a,
                           tfr_tensor **out) {
  return tfr_dot_general(s, in[0], in[1], &((const dot_attrs *)a)->cfg, out);
}
OP_FN(op_dot_general) {
  static char *kw[] = {"lhs", "rhs", "lhs_batching_dimensions", "rhs_batching_dimensions",
                       "lhs_contracting_dimensions", "rhs_contracting_dimensions", "lhs_conj",
                       "rhs_conj", NULL};
  PyObject *x[2], *lb = NULL, *rb = NULL, *lc = NULL, *rc = NULL;
  int lconj = 0, rconj = 0;
  dot_attrs d;
  memset(&d, 0, sizeof d);
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|OOOOpp", kw, &x[0], &x[1], &lb, &rb, &lc,
                                   &rc, &lconj, &rconj))
    return NULL;
  int nlb, nrb, nlc, nrc;
  if (int64_seq(lb, "lhs_batching_dimensions", d.lb, &nlb) < 0 ||
      int64_seq(rb, "rhs_batching_dimensions", d.rb, &nrb) < 0 ||
      int64_seq(lc, "lhs_contracting_dimensions", d.lc, &nlc) < 0 ||
      int64_seq(rc, "rhs_contracting_dimensions", d.rc, &nrc) < 0)
    return NULL;
  if (nlb != nrb || nlc != nrc) {
    PyErr_SetString(PyExc_ValueError,
                    "dot_general: lhs and rhs must list as many batching dimensions, and as "
                    "many contracting dimensions");
    return NULL;
  }
  d.cfg.num_batching_dims = nlb;
  d.cfg.lhs_batching_dimensions = d.lb;
  d.cfg.rhs_batching_dimensions = d.rb;
  d.cfg.num_contracting_dims = nlc;
  d.cfg.lhs_contracting_dimensions = d.lc;
  d.cfg.rhs_contracting_dimensions = d.rc;
  d.cfg.lhs_conj = lconj;
  d.cfg.rhs_conj = rconj;
  return run_op(x, 2, dot_body, &d);
}

typedef struct {
  tfr_gather_config cfg;
  int64_t off[TFR_MAX_RANK], col[TFR_MAX_RANK], ob[TFR_MAX_RANK], sb[TFR_MAX_RANK],
      map[TFR_MAX_RANK], sizes[TFR_MAX_RANK];
  int nsizes;
} gather_attrs;

static tfr_status gather_body(tfr_session *s, tfr_tensor *const *in, const void *a,
                              tfr_tensor **out) {
  const gather_attrs *g = a;
  if (g->nsizes != tfr_tensor_rank(in[0])) {
    tfr_gather_config bad = g->cfg;
    bad.slice_sizes = NULL;  // the library reports it
    return tfr_gather(s, in[0], in[1], &bad, out);
  }
  return tfr_gather(s, in[0], in[1], &g->cfg, out);
}
OP_FN(op_gather) {
  static char *kw[] = {"operand", "start_indices", "offset_dims", "collapsed_slice_dims",
                       "start_index_map", "index_vector_dim", "slice_sizes",
                       "operand_batching_dims", "start_indices_batching_dims",
                       "indices_are_sorted", NULL};
  PyObject *x[2], *off, *col, *map, *sizes, *ob = NULL, *sb = NULL;
  long long ivd;
  int sorted = 0;
  gather_attrs g;
  memset(&g, 0, sizeof g);
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOOOLO|OOp", kw, &x[0], &x[1], &off, &col,
                                   &map, &ivd, &sizes, &ob, &sb, &sorted))
    return NULL;
  if (int64_seq(off, "offset_dims", g.off, &g.cfg.num_offset_dims) < 0 ||
      int64_seq(col, "collapsed_slice_dims", g.col, &g.cfg.num_collapsed_slice_dims) < 0 ||
      int64_seq(map, "start_index_map", g.map, &g.cfg.num_start_index_map) < 0 ||
      int64_seq(sizes, "slice_sizes", g.sizes, &g.nsizes) < 0 ||
      int64_seq(ob, "operand_batching_dims", g.ob, &g.cfg.num_operand_batching_dims) < 0 ||
      int64_seq(sb, "start_indices_batching_dims", g.sb,
                &g.cfg.num_start_indices_batching_dims) < 0)
    return NULL;
  g.cfg.offset_dims = g.off;
  g.cfg.collapsed_slice_dims = g.col;
  g.cfg.operand_batching_dims = g.ob;
  g.cfg.start_indices_batching_dims = g.sb;
  g.cfg.start_index_map = g.map;
  g.cfg.index_vector_dim = ivd;
  g.cfg.slice_sizes = g.sizes;
  g.cfg.indices_are_sorted = sorted;
  return run_op(x, 2, gather_body, &g);
}

typedef struct {
  tfr_scatter_config cfg;
  int64_t uw[TFR_MAX_RANK], iw[TFR_MAX_RANK], ib[TFR_MAX_RANK], sb[TFR_MAX_RANK],
      map[TFR_MAX_RANK];
} scatter_attrs;

static tfr_status scatter_body(tfr_session *s, tfr_tensor *const *in, const void *a,
                               tfr_tensor **out) {
  return tfr_scatter(s, in[0], in[1], in[2], &((const scatter_attrs *)a)->cfg, out);
}
OP_FN(op_scatter) {
  static char *kw[] = {"operand", "scatter_indices", "updates", "update_window_dims",
                       "inserted_window_dims", "scatter_dims_to_operand_dims",
                       "index_vector_dim", "combiner", "input_batching_dims",
                       "scatter_indices_batching_dims", "indices_are_sorted", "unique_indices",
                       NULL};
  static const char *combiners[] = {"replace", "add", "multiply", "maximum", "minimum"};
  PyObject *x[3], *uw, *iw, *map, *ib = NULL, *sb = NULL;
  long long ivd;
  const char *comb = "replace";
  int sorted = 0, unique = 0;
  scatter_attrs g;
  memset(&g, 0, sizeof g);
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOOOOL|sOOpp", kw, &x[0], &x[1], &x[2], &uw,
                                   &iw, &map, &ivd, &comb, &ib, &sb, &sorted, &unique))
    return NULL;
  int c = -1;
  for (int i = 0; i < 5; ++i)
    if (strcmp(comb, combiners[i]) == 0) c = i;
  if (c < 0)
    return PyErr_Format(PyExc_ValueError,
                        "scatter: combiner '%s' (replace add multiply maximum minimum)", comb);
  if (int64_seq(uw, "update_window_dims", g.uw, &g.cfg.num_update_window_dims) < 0 ||
      int64_seq(iw, "inserted_window_dims", g.iw, &g.cfg.num_inserted_window_dims) < 0 ||
      int64_seq(map, "scatter_dims_to_operand_dims", g.map,
                &g.cfg.num_scatter_dims_to_operand_dims) < 0 ||
      int64_seq(ib, "input_batching_dims", g.ib, &g.cfg.num_input_batching_dims) < 0 ||
      int64_seq(sb, "scatter_indices_batching_dims", g.sb,
                &g.cfg.num_scatter_indices_batching_dims) < 0)
    return NULL;
  g.cfg.update_window_dims = g.uw;
  g.cfg.inserted_window_dims = g.iw;
  g.cfg.scatter_dims_to_operand_dims = g.map;
  g.cfg.input_batching_dims = g.ib;
  g.cfg.scatter_indices_batching_dims = g.sb;
  g.cfg.index_vector_dim = ivd;
  g.cfg.combiner = (tfr_scatter_combiner)c;
  g.cfg.indices_are_sorted = sorted;
  g.cfg.unique_indices = unique;
  return run_op(x, 3, scatter_body, &g);
}

static tfr_status pad_body(tfr_session *s, tfr_tensor *const *in, const void *a,
                           tfr_tensor **out) {
  const attrs *at = a;
  int r = tfr_tensor_rank(in[0]);
  if (at->n != r || at->m != r || (at->k && at->k != r))
    return tfr_pad(s, in[0], in[1], NULL, NULL, NULL, out);  // the library names it
  static const int64_t zeros[TFR_MAX_RANK];
  return tfr_pad(s, in[0], in[1], at->a, at->b, at->k ? at->c : zeros, out);
}
OP_FN(op_pad) {
  static char *kw[] = {"operand", "padding_value", "edge_padding_low", "edge_padding_high",
                       "interior_padding", NULL};
  PyObject *x[2], *lo, *hi, *interior = Py_None;
  attrs at;
  int ni = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOO|O", kw, &x[0], &x[1], &lo, &hi,
                                   &interior))
    return NULL;
  if (int64_seq(lo, "edge_padding_low", at.a, &at.n) < 0 ||
      int64_seq(hi, "edge_padding_high", at.b, &at.m) < 0 ||
      int64_seq(interior, "interior_padding", at.c, &ni) < 0)
    return NULL;
  at.k = ni;
  return run_op(x, 2, pad_body, &at);
}

static tfr_status precision_body(tfr_session *s, tfr_tensor *const *in, const void *a,
                                 tfr_tensor **out) {
  const attrs *at = a;
  return tfr_reduce_precision(s, in[0], at->n, at->m, out);
}
OP_FN(op_reduce_precision) {
  static char *kw[] = {"operand", "exponent_bits", "mantissa_bits", NULL};
  PyObject *x;
  attrs at;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Oii", kw, &x, &at.n, &at.m)) return NULL;
  return run_op(&x, 1, precision_body, &at);
}

static tfr_status embed_body(tfr_session *s, tfr_tensor *const *in, const void *a,
                             tfr_tensor **out) {
  const attrs *at = a;
  return tfr_embed_diagonal(s, in[0], at->n, at->m, out);
}
OP_FN(op_embed_diagonal) {
  static char *kw[] = {"operand", "axis_a", "axis_b", NULL};
  PyObject *x;
  attrs at;
  at.n = 0;
  at.m = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|ii", kw, &x, &at.n, &at.m)) return NULL;
  return run_op(&x, 1, embed_body, &at);
}

// dynamic_slice / dynamic_update_slice: objs = operand, [update,] start indices.
static tfr_status dyn_slice_body(tfr_session *s, tfr_tensor *const *in, const void *a,
                                 tfr_tensor **out) {
  const attrs *at = a;
  if (at->n != tfr_tensor_rank(in[0]) || at->m != at->n)
    return tfr_dynamic_slice(s, in[0], (const tfr_tensor *const *)(in + 1), NULL, out);  // the library names it
  return tfr_dynamic_slice(s, in[0], (const tfr_tensor *const *)(in + 1), at->a, out);
}
static tfr_status dyn_update_body(tfr_session *s, tfr_tensor *const *in, const void *a,
                                  tfr_tensor **out) {
  const attrs *at = a;
  if (at->n != tfr_tensor_rank(in[0])) return tfr_dynamic_update_slice(s, in[0], in[1], NULL, out);
  return tfr_dynamic_update_slice(s, in[0], in[1], (const tfr_tensor *const *)(in + 2), out);
}
// Runs body over (head..., *start_indices): `head` objects then the indices.
static PyObject *run_with_indices(PyObject *const *head, int nhead, PyObject *starts,
                                  op_body body, attrs *at) {
  PyObject *seq = PySequence_Fast(starts, "start_indices must be a sequence");
  if (!seq) return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  if (n > TFR_MAX_RANK) {
    Py_DECREF(seq);
    return PyErr_Format(PyExc_ValueError, "more than %d start indices", TFR_MAX_RANK);
  }
  PyObject *objs[TFR_MAX_RANK + 2];
  for (int i = 0; i < nhead; ++i) objs[i] = head[i];
  for (Py_ssize_t i = 0; i < n; ++i) objs[nhead + i] = PySequence_Fast_GET_ITEM(seq, i);
  at->n = (int)n;
  PyObject *res = run_op(objs, nhead + (int)n, body, at);
  Py_DECREF(seq);
  return res;
}
OP_FN(op_dynamic_slice) {
  static char *kw[] = {"operand", "start_indices", "slice_sizes", NULL};
  PyObject *x, *starts, *sizes;
  attrs at;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO", kw, &x, &starts, &sizes)) return NULL;
  if (int64_seq(sizes, "slice_sizes", at.a, &at.m) < 0) return NULL;
  return run_with_indices(&x, 1, starts, dyn_slice_body, &at);
}
OP_FN(op_dynamic_update_slice) {
  static char *kw[] = {"operand", "update", "start_indices", NULL};
  PyObject *x[2], *starts;
  attrs at;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO", kw, &x[0], &x[1], &starts)) return NULL;
  return run_with_indices(x, 2, starts, dyn_update_body, &at);
}

typedef struct {
  tfr_reduce_combiner combiner;
  int rank, ns, nb, nw, np;
  int64_t dims[TFR_MAX_RANK], strides[TFR_MAX_RANK], base[TFR_MAX_RANK], wdil[TFR_MAX_RANK],
      padding[2 * TFR_MAX_RANK];
} window_attrs;

// Window arguments shared by reduce_window and select_and_scatter: the
// dimensions, strides and padding pairs ([(low, high), ...]) into w.
static int parse_window(PyObject *dims, PyObject *strides, PyObject *pad, window_attrs *w) {
  if (int64_seq(dims, "window_dimensions", w->dims, &w->rank) < 0 ||
      int64_seq(strides, "window_strides", w->strides, &w->ns) < 0)
    return -1;
  if (pad == Py_None) return 0;
  PyObject *seq = PySequence_Fast(pad, "padding must be a sequence of (low, high) pairs");
  if (!seq) return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  for (Py_ssize_t i = 0; i < n && i < TFR_MAX_RANK; ++i) {
    int k = 0;
    if (int64_seq(PySequence_Fast_GET_ITEM(seq, i), "padding pair", w->padding + 2 * i, &k) < 0 ||
        k != 2) {
      Py_DECREF(seq);
      if (!PyErr_Occurred())
        PyErr_SetString(PyExc_ValueError, "padding: each entry must be a (low, high) pair");
      return -1;
    }
    w->np += 2;
  }
  Py_DECREF(seq);
  return 0;
}

static tfr_status window_body(tfr_session *s, tfr_tensor *const *in, const void *a,
                              tfr_tensor **out) {
  const window_attrs *w = a;
  int r = tfr_tensor_rank(in[0]);
  bool ok = w->rank == r && (!w->ns || w->ns == r) && (!w->nb || w->nb == r) &&
            (!w->nw || w->nw == r) && (!w->np || w->np == 2 * r);
  if (!ok)  // the library reports the NULL window
    return tfr_reduce_window(s, in[0], in[1], w->combiner, NULL, NULL, NULL, NULL, NULL, out);
  return tfr_reduce_window(s, in[0], in[1], w->combiner, w->dims, w->ns ? w->strides : NULL,
                           w->nb ? w->base : NULL, w->nw ? w->wdil : NULL,
                           w->np ? w->padding : NULL, out);
}
OP_FN(op_reduce_window) {
  static char *kw[] = {"operand", "init_value", "window_dimensions", "window_strides",
                       "base_dilations", "window_dilations", "padding", "combiner", NULL};
  static const char *combiners[] = {"add", "multiply", "maximum", "minimum", "and", "or", "xor"};
  PyObject *x[2], *dims, *strides = Py_None, *base = Py_None, *wdil = Py_None, *pad = Py_None;
  const char *comb = "add";
  window_attrs w;
  memset(&w, 0, sizeof w);
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO|OOOOs", kw, &x[0], &x[1], &dims, &strides,
                                   &base, &wdil, &pad, &comb))
    return NULL;
  int c = -1;
  for (int i = 0; i < 7; ++i)
    if (strcmp(comb, combiners[i]) == 0) c = i;
  if (c < 0)
    return PyErr_Format(PyExc_ValueError,
                        "reduce_window: combiner '%s' (add multiply maximum minimum and or xor)",
                        comb);
  w.combiner = (tfr_reduce_combiner)c;
  if (parse_window(dims, strides, pad, &w) < 0 ||
      int64_seq(base, "base_dilations", w.base, &w.nb) < 0 ||
      int64_seq(wdil, "window_dilations", w.wdil, &w.nw) < 0)
    return NULL;
  return run_op(x, 2, window_body, &w);
}

typedef struct {
  window_attrs w;
  tfr_compare_direction select;
} select_scatter_attrs;

static tfr_status select_scatter_body(tfr_session *s, tfr_tensor *const *in, const void *a,
                                      tfr_tensor **out) {
  const select_scatter_attrs *sa = a;
  const window_attrs *w = &sa->w;
  int r = tfr_tensor_rank(in[0]);
  bool ok = w->rank == r && (!w->ns || w->ns == r) && (!w->np || w->np == 2 * r);
  return tfr_select_and_scatter(s, in[0], in[1], in[2], sa->select, w->combiner,
                                ok ? w->dims : NULL, ok && w->ns ? w->strides : NULL,
                                ok && w->np ? w->padding : NULL, out);
}
OP_FN(op_select_and_scatter) {
  static char *kw[] = {"operand", "source", "init_value", "window_dimensions", "window_strides",
                       "padding", "select_direction", "combiner", NULL};
  static const char *dirs[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
  static const char *combiners[] = {"add", "multiply", "maximum", "minimum", "and", "or", "xor"};
  PyObject *x[3], *dims, *strides = Py_None, *pad = Py_None;
  const char *dir = "GE", *comb = "add";
  select_scatter_attrs sa;
  memset(&sa, 0, sizeof sa);
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOO|OOss", kw, &x[0], &x[1], &x[2], &dims,
                                   &strides, &pad, &dir, &comb))
    return NULL;
  int d = -1, c = -1;
  for (int i = 0; i < 6; ++i)
    if (strcmp(dir, dirs[i]) == 0) d = i;
  for (int i = 0; i < 7; ++i)
    if (strcmp(comb, combiners[i]) == 0) c = i;
  if (d < 0 || c < 0)
    return PyErr_Format(PyExc_ValueError,
                        "select_and_scatter: select_direction '%s' (EQ NE LT LE GT GE), "
                        "combiner '%s' (add multiply maximum minimum and or xor)",
                        dir, comb);
  sa.select = (tfr_compare_direction)d;
  sa.w.combiner = (tfr_reduce_combiner)c;
  if (parse_window(dims, strides, pad, &sa.w) < 0) return NULL;
  return run_op(x, 3, select_scatter_body, &sa);
}

// ---------------------------------------------------------------------------
// The table: registry names -> binding
// ---------------------------------------------------------------------------
typedef struct {
  const char *name;
  PyCFunction fn;
  long param;
  const char *signature;
} binding;

static const binding bindings[] = {
    {"compare", (PyCFunction)(void (*)(void))op_compare, 0,
     "compare(lhs, rhs, comparison_direction='EQ')"},
    {"select", (PyCFunction)(void (*)(void))op_select, 0, "select(pred, on_true, on_false)"},
    {"clamp", (PyCFunction)(void (*)(void))op_clamp, 0, "clamp(min, operand, max)"},
    {"convert", (PyCFunction)(void (*)(void))op_convert, 0, "convert(operand, dtype)"},
    {"copy", (PyCFunction)(void (*)(void))op_copy, 0, "copy(operand)"},
    {"bitcast_convert", (PyCFunction)(void (*)(void))op_bitcast_convert, 0,
     "bitcast_convert(operand, dtype)"},
    {"transpose", (PyCFunction)(void (*)(void))op_transpose, 0, "transpose(operand, permutation)"},
    {"reshape", (PyCFunction)(void (*)(void))op_reshape, 0, "reshape(operand, shape)"},
    {"broadcast_in_dim", (PyCFunction)(void (*)(void))op_broadcast_in_dim, 0,
     "broadcast_in_dim(operand, shape, broadcast_dimensions)"},
    {"reverse", (PyCFunction)(void (*)(void))op_reverse, 0, "reverse(operand, dimensions)"},
    {"slice", (PyCFunction)(void (*)(void))op_slice, 0,
     "slice(operand, start_indices, limit_indices, strides=None)"},
    {"concatenate", (PyCFunction)(void (*)(void))op_concatenate, 0,
     "concatenate(inputs, dimension)"},
    {"tril", (PyCFunction)(void (*)(void))op_tril_triu, 0, "tril(operand, k=0)"},
    {"triu", (PyCFunction)(void (*)(void))op_tril_triu, 1, "triu(operand, k=0)"},
    {"extract_diagonal", (PyCFunction)(void (*)(void))op_extract_diagonal, 0,
     "extract_diagonal(operand, axis_a=0, axis_b=1)"},
    {"iota", (PyCFunction)(void (*)(void))op_iota, 0, "iota(shape, iota_dimension=0, dtype='i64')"},
    {"reduce_add", (PyCFunction)(void (*)(void))op_reduce, TFR_REDUCE_ADD,
     "reduce_add(operand, dimensions=None, init_value=None)"},
    {"reduce_multiply", (PyCFunction)(void (*)(void))op_reduce, TFR_REDUCE_MULTIPLY,
     "reduce_multiply(operand, dimensions=None, init_value=None)"},
    {"reduce_maximum", (PyCFunction)(void (*)(void))op_reduce, TFR_REDUCE_MAXIMUM,
     "reduce_maximum(operand, dimensions=None, init_value=None)"},
    {"reduce_minimum", (PyCFunction)(void (*)(void))op_reduce, TFR_REDUCE_MINIMUM,
     "reduce_minimum(operand, dimensions=None, init_value=None)"},
    {"reduce_and", (PyCFunction)(void (*)(void))op_reduce, TFR_REDUCE_AND,
     "reduce_and(operand, dimensions=None, init_value=None)"},
    {"reduce_or", (PyCFunction)(void (*)(void))op_reduce, TFR_REDUCE_OR,
     "reduce_or(operand, dimensions=None, init_value=None)"},
    {"reduce_xor", (PyCFunction)(void (*)(void))op_reduce, TFR_REDUCE_XOR,
     "reduce_xor(operand, dimensions=None, init_value=None)"},
    {"dot_general", (PyCFunction)(void (*)(void))op_dot_general, 0,
     "dot_general(lhs, rhs, lhs_batching_dimensions=(), rhs_batching_dimensions=(),\n"
     "            lhs_contracting_dimensions=(), rhs_contracting_dimensions=(),\n"
     "            lhs_conj=False, rhs_conj=False)"},
    {"gather", (PyCFunction)(void (*)(void))op_gather, 0,
     "gather(operand, start_indices, offset_dims, collapsed_slice_dims, start_index_map,\n"
     "       index_vector_dim, slice_sizes, operand_batching_dims=(),\n"
     "       start_indices_batching_dims=(), indices_are_sorted=False)"},
    {"scatter", (PyCFunction)(void (*)(void))op_scatter, 0,
     "scatter(operand, scatter_indices, updates, update_window_dims, inserted_window_dims,\n"
     "        scatter_dims_to_operand_dims, index_vector_dim, combiner='replace',\n"
     "        input_batching_dims=(), scatter_indices_batching_dims=(),\n"
     "        indices_are_sorted=False, unique_indices=False)\n"
     "combiner: 'replace', 'add', 'multiply', 'maximum' or 'minimum' (the body)."},
    {"pad", (PyCFunction)(void (*)(void))op_pad, 0,
     "pad(operand, padding_value, edge_padding_low, edge_padding_high,\n"
     "    interior_padding=None)   (padding_value: rank 0, the operand's dtype)"},
    {"reduce_precision", (PyCFunction)(void (*)(void))op_reduce_precision, 0,
     "reduce_precision(operand, exponent_bits, mantissa_bits)"},
    {"embed_diagonal", (PyCFunction)(void (*)(void))op_embed_diagonal, 0,
     "embed_diagonal(operand, axis_a=0, axis_b=1)"},
    {"dynamic_slice", (PyCFunction)(void (*)(void))op_dynamic_slice, 0,
     "dynamic_slice(operand, start_indices, slice_sizes)   (start_indices: one integer\n"
     "or rank-0 integer tensor per axis, clamped so the slice fits)"},
    {"dynamic_update_slice", (PyCFunction)(void (*)(void))op_dynamic_update_slice, 0,
     "dynamic_update_slice(operand, update, start_indices)"},
    {"select_and_scatter", (PyCFunction)(void (*)(void))op_select_and_scatter, 0,
     "select_and_scatter(operand, source, init_value, window_dimensions,\n"
     "                   window_strides=None, padding=None, select_direction='GE',\n"
     "                   combiner='add')   (the gradient of max pooling with the defaults)"},
    {"reduce_window", (PyCFunction)(void (*)(void))op_reduce_window, 0,
     "reduce_window(operand, init_value, window_dimensions, window_strides=None,\n"
     "              base_dilations=None, window_dilations=None, padding=None,\n"
     "              combiner='add')   (padding: [(low, high), ...]; combiner: add multiply\n"
     "              maximum minimum and or xor)"},
};

// Aliases in numpy / jax.lax vocabulary for the reduce bodies.
static const struct {
  const char *alias, *name;
} aliases[] = {{"reduce_sum", "reduce_add"},
               {"reduce_prod", "reduce_multiply"},
               {"reduce_max", "reduce_maximum"},
               {"reduce_min", "reduce_minimum"}};

// The dtypes of op `id` as "f32 f64 ..." for its docstring.
static void dtype_list(tfr_op_id id, char *buf, size_t n) {
  uint32_t mask = 0;
  buf[0] = '\0';
  if (tfr_op_dtypes(id, &mask)) return;
  size_t used = 0;
  for (int d = 0; d < TFR_DTYPE_COUNT; ++d)
    if (mask & (1u << d)) {
      int w = snprintf(buf + used, n - used, "%s%s", used ? " " : "", tfr_dtype_name((tfr_dtype)d));
      if (w < 0 || (size_t)w >= n - used) return;
      used += (size_t)w;
    }
}

int tfrpy_ops_init(PyObject *module) {
  PyObject *ops = PyModule_New("tenferro.ops");
  if (!ops) return -1;
  if (PyModule_SetDocString(
          ops,
          "The op set, StableHLO names and attributes (made from the op registry at\n"
          "import). Operands: Tensors, numpy arrays (no copy), DLPack producers; binary\n"
          "ops take operands of one shape and dtype (no implicit broadcasting or\n"
          "promotion: use broadcast_in_dim and convert). Results are Tensors (numpy\n"
          "arrays when every operand is one). Errors: tenferro.Error subclasses with\n"
          "the library's message. The GIL is released while an op runs.") < 0)
    goto fail;
  uint32_t count = tfr_op_count();
  PyObject *all = PyList_New(0);
  if (!all) goto fail;
  for (uint32_t id = 0; id < count; ++id) {
    const char *name = tfr_op_name(id);
    PyCFunction fn = NULL;
    long param = 0;
    char sig[512];
    sig[0] = '\0';
    for (int k = 0; k < TFR_UNARY_OP_COUNT && !fn; ++k)
      if (strcmp(name, tfr_unary_op_name((tfr_unary_op)k)) == 0) {
        fn = (PyCFunction)(void (*)(void))op_unary;
        param = k;
        snprintf(sig, sizeof sig, "%s(operand)", name);
      }
    for (int k = 0; k < TFR_BINARY_OP_COUNT && !fn; ++k)
      if (strcmp(name, tfr_binary_op_name((tfr_binary_op)k)) == 0) {
        fn = (PyCFunction)(void (*)(void))op_binary;
        param = k;
        snprintf(sig, sizeof sig, "%s(lhs, rhs)", name);
      }
    for (size_t k = 0; k < sizeof bindings / sizeof bindings[0] && !fn; ++k)
      if (strcmp(name, bindings[k].name) == 0) {
        fn = bindings[k].fn;
        param = bindings[k].param;
        snprintf(sig, sizeof sig, "%s", bindings[k].signature);
      }
    if (!fn) continue;  // an op family without a binding yet
    char dtypes[256];
    dtype_list(id, dtypes, sizeof dtypes);
    // Method definitions live as long as the process (the module is never
    // unloaded); one allocation per op.
    size_t doclen = strlen(sig) + strlen(dtypes) + 160;
    PyMethodDef *def = PyMem_RawCalloc(1, sizeof(PyMethodDef) + doclen);
    if (!def) {
      Py_DECREF(all);
      PyErr_NoMemory();
      goto fail;
    }
    char *doc = (char *)(def + 1);
    snprintf(doc, doclen,
             "%s\n\nStableHLO `%s` (see ops.h). Operand dtypes: %s.\n"
             "Errors: tenferro.Error subclasses with the library's message.",
             sig, name, dtypes);
    def->ml_name = name;
    def->ml_meth = fn;
    def->ml_flags = METH_VARARGS | METH_KEYWORDS;
    def->ml_doc = doc;
    PyObject *self = PyLong_FromLong(param);
    PyObject *f = self ? PyCFunction_NewEx(def, self, NULL) : NULL;
    Py_XDECREF(self);
    PyObject *pyname = PyUnicode_FromString(name);
    if (!f || !pyname || PyModule_AddObjectRef(ops, name, f) < 0 ||
        PyList_Append(all, pyname) < 0) {
      Py_XDECREF(f);
      Py_XDECREF(pyname);
      Py_DECREF(all);
      goto fail;
    }
    Py_DECREF(f);
    Py_DECREF(pyname);
  }
  for (size_t k = 0; k < sizeof aliases / sizeof aliases[0]; ++k) {
    PyObject *f = PyObject_GetAttrString(ops, aliases[k].name);
    if (!f) {
      PyErr_Clear();
      continue;
    }
    int r = PyModule_AddObjectRef(ops, aliases[k].alias, f);
    Py_DECREF(f);
    if (r < 0) {
      Py_DECREF(all);
      goto fail;
    }
  }
  if (PyModule_AddObject(ops, "__all__", all) < 0) {
    Py_DECREF(all);
    goto fail;
  }
  // `import tenferro.ops` works too.
  PyObject *modules = PyImport_GetModuleDict();
  if (PyDict_SetItemString(modules, "tenferro.ops", ops) < 0) goto fail;
  if (PyModule_AddObject(module, "ops", ops) < 0) goto fail;
  return 0;
fail:
  Py_DECREF(ops);
  return -1;
}
