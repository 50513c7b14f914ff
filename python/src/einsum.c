// python/src/einsum.c: tenferro.einsum, contract_path and contract_expression
// (opt_einsum's API) over the library's plans (einsum.h).
#include <string.h>

#include "tfrpy.h"

// ---------------------------------------------------------------------------
// Progress callbacks: called by the library from the calling thread with the
// GIL released; the first exception a callback raises is kept per thread and
// raised when the call returns.
// ---------------------------------------------------------------------------
// The kept exception: one object from Python 3.12 on (PyErr_Fetch is
// deprecated there), the (type, value, traceback) triple before.
#if PY_VERSION_HEX >= 0x030C0000
static _Thread_local PyObject *progress_exc;
static bool progress_kept(void) { return progress_exc != NULL; }
static void progress_keep(void) { progress_exc = PyErr_GetRaisedException(); }
static void progress_restore(void) {
  PyErr_SetRaisedException(progress_exc);
  progress_exc = NULL;
}
#else
static _Thread_local PyObject *progress_type, *progress_value, *progress_tb;
static bool progress_kept(void) { return progress_type != NULL; }
static void progress_keep(void) { PyErr_Fetch(&progress_type, &progress_value, &progress_tb); }
static void progress_restore(void) {
  PyErr_Restore(progress_type, progress_value, progress_tb);
  progress_type = progress_value = progress_tb = NULL;
}
#endif

static void progress_trampoline(void *ctx, int done, int total, double flops) {
  PyGILState_STATE g = PyGILState_Ensure();
  if (!progress_kept()) {
    PyObject *r = PyObject_CallFunction((PyObject *)ctx, "iid", done, total, flops);
    if (r) {
      Py_DECREF(r);
    } else {
      progress_keep();
    }
  }
  PyGILState_Release(g);
}

// Raises the kept progress exception, if any: returns -1 then.
static int progress_check(void) {
  if (!progress_kept()) return 0;
  progress_restore();
  return -1;
}

// ---------------------------------------------------------------------------
// Options: optimize, memory_limit, progress
// ---------------------------------------------------------------------------
typedef struct {
  tfr_einsum_options opts;
  int32_t *path;  // PyMem, for a given path
  PyObject *memory_limit;
} plan_options;

static void plan_options_free(plan_options *o) {
  PyMem_Free(o->path);
  o->path = NULL;
}

// Fills o from optimize / memory_limit / progress for n operands. On failure
// too, the caller frees o with plan_options_free.
static int plan_options_parse(plan_options *o, PyObject *optimize, PyObject *memory_limit,
                              PyObject *progress, int n) {
  memset(o, 0, sizeof *o);
  o->opts.path_kind = TFR_EINSUM_PATH_AUTO;
  if (optimize == Py_None || optimize == Py_True) {
    // auto
  } else if (optimize == Py_False) {
    // Left to right, as numpy's optimize=False contracts.
    o->opts.path_kind = TFR_EINSUM_PATH_GIVEN;
    o->path = PyMem_Calloc((size_t)(n > 1 ? 2 * (n - 1) : 1), sizeof(int32_t));
    if (!o->path) return PyErr_NoMemory(), -1;
    for (int i = 0; i + 1 < n; ++i) {
      o->path[2 * i] = 0;
      o->path[2 * i + 1] = 1;
    }
    o->opts.path = o->path;
    o->opts.path_len = n > 1 ? n - 1 : 0;
  } else if (PyUnicode_Check(optimize)) {
    const char *name = PyUnicode_AsUTF8(optimize);
    if (!name) return -1;
    tfr_status st = tfr_einsum_path_kind_from_name(name, &o->opts.path_kind);
    if (st) return tfrpy_raise(st), -1;
  } else if (PyList_Check(optimize) || PyTuple_Check(optimize)) {
    PyObject *seq = PySequence_Fast(optimize, "optimize");
    if (!seq) return -1;
    Py_ssize_t len = PySequence_Fast_GET_SIZE(seq), first = 0;
    if (len > 0 && PyUnicode_Check(PySequence_Fast_GET_ITEM(seq, 0)) &&
        PyUnicode_CompareWithASCIIString(PySequence_Fast_GET_ITEM(seq, 0), "einsum_path") == 0)
      first = 1;  // numpy.einsum_path's format
    o->path = PyMem_Calloc((size_t)(2 * (len + 1)), sizeof(int32_t));
    if (!o->path) {
      Py_DECREF(seq);
      return PyErr_NoMemory(), -1;
    }
    int steps = 0;
    for (Py_ssize_t i = first; i < len; ++i) {
      PyObject *pair = PySequence_Fast_GET_ITEM(seq, i);
      PyObject *ps = PySequence_Fast(pair, "optimize: each path step must be a pair");
      if (!ps) {
        Py_DECREF(seq);
        return -1;
      }
      Py_ssize_t plen = PySequence_Fast_GET_SIZE(ps);
      if (plen == 1 && n == 1) {  // opt_einsum's [(0,)] for one operand
        Py_DECREF(ps);
        continue;
      }
      if (plen != 2) {
        Py_DECREF(ps);
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError,
                     "optimize: path step %zd has %zd positions; tenferro contracts pairs", i,
                     plen);
        return -1;
      }
      for (int k = 0; k < 2; ++k) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(ps, k));
        if (v == -1 && PyErr_Occurred()) {
          Py_DECREF(ps);
          Py_DECREF(seq);
          return -1;
        }
        if (v < 0 || v > INT32_MAX) {
          Py_DECREF(ps);
          Py_DECREF(seq);
          PyErr_Format(PyExc_ValueError, "optimize: path position %ld out of range", v);
          return -1;
        }
        o->path[2 * steps + k] = (int32_t)v;
      }
      Py_DECREF(ps);
      ++steps;
    }
    Py_DECREF(seq);
    o->opts.path_kind = TFR_EINSUM_PATH_GIVEN;
    o->opts.path = o->path;
    o->opts.path_len = steps;
  } else {
    PyErr_Format(PyExc_TypeError,
                 "optimize must be a str, a bool or a path (list of pairs), not %.100s",
                 Py_TYPE(optimize)->tp_name);
    return -1;
  }
  o->memory_limit = memory_limit;
  if (progress && progress != Py_None) {
    if (!PyCallable_Check(progress)) {
      PyErr_SetString(PyExc_TypeError, "progress must be callable");
      plan_options_free(o);
      return -1;
    }
    o->opts.progress = progress_trampoline;
    o->opts.progress_ctx = progress;
  }
  return 0;
}

// memory_limit: a number -> max_slice_elements (one slice's memory in
// elements as the library counts it: the operands and the output whole, plus
// the live intermediates); 'max_input' -> max_intermediate_elements = the
// largest operand's size. `sizes` are the operands' element counts.
static int apply_memory_limit(plan_options *o, int n, const int64_t *sizes) {
  PyObject *m = o->memory_limit;
  if (!m || m == Py_None) return 0;
  if (PyUnicode_Check(m)) {
    if (PyUnicode_CompareWithASCIIString(m, "max_input") != 0) {
      PyErr_SetString(PyExc_ValueError, "memory_limit must be None, a number or 'max_input'");
      return -1;
    }
    // opt_einsum's meaning: no intermediate larger than the largest operand
    // (the library refuses a path that cannot keep to it).
    int64_t mx = 1;
    for (int i = 0; i < n; ++i) mx = sizes[i] > mx ? sizes[i] : mx;
    o->opts.max_intermediate_elements = mx;
    return 0;
  }
  double v = PyFloat_AsDouble(m);
  if (v == -1.0 && PyErr_Occurred()) return -1;
  if (!(v > 0)) {
    PyErr_SetString(PyExc_ValueError, "memory_limit must be positive");
    return -1;
  }
  o->opts.max_slice_elements = v;
  return 0;
}

// Plans `eq` for n operands of the given ranks and shapes, GIL released.
static tfr_einsum_plan *make_plan(const char *eq, int n, const int *ranks,
                                  const int64_t *const *shapes, plan_options *o) {
  int64_t *sizes = PyMem_Malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
  if (!sizes) return PyErr_NoMemory(), NULL;
  for (int i = 0; i < n; ++i) {
    sizes[i] = 1;
    for (int k = 0; k < ranks[i]; ++k) sizes[i] *= shapes[i][k];
  }
  int r = apply_memory_limit(o, n, sizes);
  PyMem_Free(sizes);
  if (r < 0) return NULL;
  tfr_einsum_plan *plan = NULL;
  tfr_status st;
  Py_BEGIN_ALLOW_THREADS
  st = tfr_einsum_plan_create(eq, n, ranks, shapes, &o->opts, &plan);
  Py_END_ALLOW_THREADS
  if (st) return tfrpy_raise(st), NULL;
  return plan;
}

// ---------------------------------------------------------------------------
// Operands
// ---------------------------------------------------------------------------
// Up to this many operands live in the struct itself (no allocation per call).
#define OPERANDS_INLINE 8
typedef struct {
  int n;
  tfr_tensor **t;  // owned references
  int *ranks;
  const int64_t **shapes;
  tfr_tensor *t_inline[OPERANDS_INLINE];  // t, ranks and shapes of few operands
  int ranks_inline[OPERANDS_INLINE];
  const int64_t *shapes_inline[OPERANDS_INLINE];
  bool all_ndarray;
  PyObject *device;  // the backend of the first device Tensor operand (borrowed), or NULL
  tfr_dtype dtype;   // the common dtype
  bool promote;      // some operand is of another dtype
} operands;

static void operands_free(operands *ops) {
  for (int i = 0; i < ops->n; ++i) tfr_tensor_release(ops->t[i]);
  if (ops->t != ops->t_inline) {
    PyMem_Free(ops->t);
    PyMem_Free(ops->ranks);
    PyMem_Free((void *)ops->shapes);
  }
  ops->n = 0;
  ops->t = NULL;
  ops->ranks = NULL;
  ops->shapes = NULL;
}

// The numpy dtype string of a dtype (for numpy.result_type), or NULL (bf16).
static int common_dtype(operands *ops) {
  PyObject *np = tfrpy_numpy();
  if (!np) return -1;
  PyObject *args = PyTuple_New(ops->n);
  if (!args) return -1;
  for (int i = 0; i < ops->n; ++i) {
    const tfr_dtype_info *info = tfr_dtype_get_info(tfr_tensor_dtype(ops->t[i]));
    if (!info->descr) {
      Py_DECREF(args);
      PyErr_SetString(PyExc_TypeError,
                      "einsum: operands of different dtypes, one bf16: convert them to one "
                      "dtype first (numpy has no bf16 promotion rules)");
      return -1;
    }
    PyTuple_SET_ITEM(args, i, PyUnicode_FromString(info->descr));
  }
  PyObject *fn = PyObject_GetAttrString(np, "result_type");
  PyObject *res = fn ? PyObject_Call(fn, args, NULL) : NULL;
  Py_XDECREF(fn);
  Py_DECREF(args);
  if (!res) return -1;
  int r = tfrpy_dtype_from_object(res, &ops->dtype);
  Py_DECREF(res);
  return r;
}

static int operands_load(operands *ops, PyObject *args, Py_ssize_t first) {
  Py_ssize_t n = PyTuple_GET_SIZE(args) - first;
  ops->n = 0;
  ops->t = NULL;
  ops->device = NULL;
  ops->promote = false;
  if (n < 1) {
    PyErr_SetString(PyExc_TypeError, "einsum needs at least one operand");
    return -1;
  }
  if (n > INT32_MAX / 2) {
    PyErr_SetString(PyExc_ValueError, "too many operands");
    return -1;
  }
  if (n <= OPERANDS_INLINE) {
    ops->t = ops->t_inline;
    ops->ranks = ops->ranks_inline;
    ops->shapes = ops->shapes_inline;
  } else {
    ops->t = PyMem_Calloc((size_t)n, sizeof(tfr_tensor *));
    ops->ranks = PyMem_Calloc((size_t)n, sizeof(int));
    ops->shapes = PyMem_Calloc((size_t)n, sizeof(int64_t *));
    if (!ops->t || !ops->ranks || !ops->shapes) {
      PyMem_Free(ops->t);
      PyMem_Free(ops->ranks);
      PyMem_Free((void *)ops->shapes);
      ops->t = NULL;
      PyErr_NoMemory();
      return -1;
    }
  }
  ops->all_ndarray = true;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *obj = PyTuple_GET_ITEM(args, first + i);
    if (ops->all_ndarray && !tfrpy_is_ndarray(obj)) ops->all_ndarray = false;
    if (PyObject_TypeCheck(obj, &tfrpy_tensor_type) && ((tfrpy_tensor *)obj)->backend)
      if (!ops->device) ops->device = ((tfrpy_tensor *)obj)->backend;
    if (tfrpy_operand(obj, &ops->t[i]) < 0) {
      operands_free(ops);
      return -1;
    }
    ops->n = (int)i + 1;
    ops->ranks[i] = tfr_tensor_rank(ops->t[i]);
    ops->shapes[i] = tfr_tensor_shape(ops->t[i]);
    if (i == 0) ops->dtype = tfr_tensor_dtype(ops->t[0]);
    else if (tfr_tensor_dtype(ops->t[i]) != ops->dtype) ops->promote = true;
  }
  if (ops->promote && common_dtype(ops) < 0) {
    operands_free(ops);
    return -1;
  }
  return 0;
}

// ---------------------------------------------------------------------------
// Running a plan
// ---------------------------------------------------------------------------
// Contracts ops along plan on backend b; writes into out_obj when given.
// Returns the result object (see einsum's docstring).
static PyObject *run_plan(const tfr_einsum_plan *plan, operands *ops, tfrpy_backend *b,
                          PyObject *out_obj) {
  tfr_tensor *out_t = NULL;
  if (out_obj && out_obj != Py_None && tfrpy_operand_ex(out_obj, true, &out_t) < 0)
    return NULL;
  bool device = tfr_backend_get_kind(b->backend) != TFR_BACKEND_CPU;
  tfr_tensor *res = NULL;
  tfr_status st;
  tfrpy_call call;
  Py_BEGIN_ALLOW_THREADS
  st = tfrpy_call_begin(b->backend, &call);
  if (!st) st = tfrpy_upload_operands(call.session, ops->t, ops->n);
  for (int i = 0; !st && ops->promote && i < ops->n; ++i) {
    tfr_tensor *moved = NULL;
    if (tfr_tensor_dtype(ops->t[i]) != ops->dtype) {
      st = tfr_convert(call.session, ops->t[i], ops->dtype, &moved);
      if (moved) {
        tfr_tensor_release(ops->t[i]);
        ops->t[i] = moved;
      }
    }
  }
  if (!st) st = tfr_einsum_plan_execute(call.session, plan, (const tfr_tensor *const *)ops->t, &res);
  if (!st && out_t) st = tfr_copy_into(call.session, res, out_t);
  tfrpy_call_end(&call, &st);
  Py_END_ALLOW_THREADS
  if (progress_check() < 0) {
    tfr_tensor_release(res);
    tfr_tensor_release(out_t);
    return NULL;
  }
  if (st) {
    tfr_tensor_release(res);
    tfr_tensor_release(out_t);
    return tfrpy_raise(st);
  }
  if (out_t) {
    tfr_tensor_release(res);
    tfr_tensor_release(out_t);
    return Py_NewRef(out_obj);
  }
  PyObject *t = tfrpy_tensor_new(res, device ? (PyObject *)b : NULL);
  if (!t || device || !ops->all_ndarray) return t;
  PyObject *arr = tfrpy_numpy_result(t);
  Py_DECREF(t);
  return arr;
}

// ---------------------------------------------------------------------------
// One-operand rearrangements: views, as numpy.einsum returns them
// ---------------------------------------------------------------------------
// A numpy array without numpy's C API (numpy_fast.c): an array over the
// Tensor view `tv` (stolen), read-only when the operand `obj` is.
static PyObject *numpy_over_view(PyObject *tv, PyObject *obj) {
  PyObject *arr = tfrpy_numpy_result(tv);
  Py_DECREF(tv);
  PyObject *flags = arr ? PyObject_GetAttrString(obj, "flags") : NULL;
  PyObject *w = flags ? PyObject_GetAttrString(flags, "writeable") : NULL;
  Py_XDECREF(flags);
  int writeable = w ? PyObject_IsTrue(w) : -1;
  Py_XDECREF(w);
  flags = writeable == 0 ? PyObject_GetAttrString(arr, "flags") : NULL;
  if (writeable < 0 || (writeable == 0 && (!flags || PyObject_SetAttrString(
                                                         flags, "writeable", Py_False) < 0))) {
    Py_XDECREF(flags);
    Py_XDECREF(arr);
    return NULL;
  }
  Py_XDECREF(flags);
  return arr;
}

// einsum(eq, obj) without out=, as numpy.einsum (>= 1.10): when the plan
// only rearranges its operand (tfr_einsum_plan_view_axes: a transpose, a
// diagonal), the result is a view of the operand, not a copy. A
// numpy.ndarray gives a numpy view (writeable when the operand is;
// numpy_fast.c); any other host operand a Tensor over its storage
// (tfr_einsum_plan_view): a Tensor's, the memory a DLPack producer (PyTorch,
// JAX) or a buffer shares, kept alive by the storage as the operand's own
// tensor keeps it, or the copy numpy.asarray made of a list. Returns 0 with
// *result, -1 with an exception, 1 when the plan runs instead (a label
// summed, a device backend or tensor, a numpy scalar).
static int one_operand_view(const tfr_einsum_plan *plan, PyObject *obj, const operands *ops,
                            const tfrpy_backend *b, PyObject **result) {
  tfr_tensor *t = ops->t[0];
  int32_t axis_out[TFR_MAX_RANK];
  if (tfr_backend_get_kind(b->backend) != TFR_BACKEND_CPU || !tfr_tensor_is_host(t)) return 1;
  int out_rank = tfr_einsum_plan_view_axes(plan, axis_out);
  if (out_rank < 0) return 1;
  if (ops->all_ndarray) {
    int r = tfrpy_numpy_view(obj, out_rank, axis_out, result);
    if (r <= 0 || ops->ranks[0] == 0) return r;  // a numpy scalar operand: the plan makes one
  }
  tfr_tensor *v = NULL;
  tfr_status st = tfr_einsum_plan_view(plan, t, &v);
  if (st) return tfrpy_raise(st), -1;
  PyObject *tv = tfrpy_tensor_new(v, NULL);
  *result = tv && ops->all_ndarray ? numpy_over_view(tv, obj) : tv;
  return *result ? 0 : -1;
}

// ---------------------------------------------------------------------------
// Plan cache of einsum: (eq, optimize, memory_limit, shapes) -> plan, for
// named optimisers without a progress callback.
// ---------------------------------------------------------------------------
#define PLAN_CACHE_MAX 512
static PyObject *plan_cache;  // dict: key -> capsule of a plan

static void plan_capsule_free(PyObject *capsule) {
  tfr_einsum_plan_release(PyCapsule_GetPointer(capsule, "tenferro.plan"));
}

static PyObject *plan_cache_key(PyObject *eq, PyObject *optimize, PyObject *memory_limit,
                                const operands *ops) {
  PyObject *key = PyTuple_New(3 + ops->n);
  if (!key) return NULL;
  PyTuple_SET_ITEM(key, 0, Py_NewRef(eq));
  PyTuple_SET_ITEM(key, 1, Py_NewRef(optimize));
  PyTuple_SET_ITEM(key, 2, Py_NewRef(memory_limit));
  for (int i = 0; i < ops->n; ++i) {
    PyObject *shape = PyTuple_New(ops->ranks[i]);
    if (!shape) {
      Py_DECREF(key);
      return NULL;
    }
    for (int k = 0; k < ops->ranks[i]; ++k)
      PyTuple_SET_ITEM(shape, k, PyLong_FromLongLong(ops->shapes[i][k]));
    PyTuple_SET_ITEM(key, 3 + i, shape);
  }
  return key;
}

// In front of the dict: the last few plans, found by the identity of eq,
// optimize and memory_limit (a string literal is the same object call after
// call) and the shapes, without building a key.
#define RECENT_MAX 8
#define RECENT_CODES 48
typedef struct {
  PyObject *eq, *optimize, *memory_limit, *capsule;  // strong references
  int len;
  int64_t codes[RECENT_CODES];  // per operand: rank, then its extents
} recent_plan;
static recent_plan recent[RECENT_MAX];
static int recent_next;

// The shapes of ops as codes; -1 when they do not fit.
static int recent_codes(const operands *ops, int64_t *codes) {
  int len = 0;
  for (int i = 0; i < ops->n; ++i) {
    if (len + 1 + ops->ranks[i] > RECENT_CODES) return -1;
    codes[len++] = ops->ranks[i];
    for (int k = 0; k < ops->ranks[i]; ++k) codes[len++] = ops->shapes[i][k];
  }
  return len;
}

static PyObject *recent_find(PyObject *eq, PyObject *optimize, PyObject *memory_limit,
                             const int64_t *codes, int len) {
  for (int i = 0; i < RECENT_MAX; ++i) {
    recent_plan *r = &recent[i];
    if (r->capsule && r->eq == eq && r->optimize == optimize &&
        r->memory_limit == memory_limit && r->len == len &&
        memcmp(r->codes, codes, sizeof(int64_t) * (size_t)len) == 0)
      return r->capsule;
  }
  return NULL;
}

static void recent_add(PyObject *eq, PyObject *optimize, PyObject *memory_limit,
                       const int64_t *codes, int len, PyObject *capsule) {
  recent_plan *r = &recent[recent_next];
  recent_next = (recent_next + 1) % RECENT_MAX;
  PyObject *old[4] = {r->eq, r->optimize, r->memory_limit, r->capsule};
  r->eq = Py_NewRef(eq);
  r->optimize = Py_NewRef(optimize);
  r->memory_limit = Py_NewRef(memory_limit);
  r->capsule = Py_NewRef(capsule);
  r->len = len;
  memcpy(r->codes, codes, sizeof(int64_t) * (size_t)len);
  for (int i = 0; i < 4; ++i) Py_XDECREF(old[i]);
}

int tfrpy_einsum_init(PyObject *module) {
  plan_cache = PyDict_New();
  return plan_cache ? 0 : -1;
}

// ---------------------------------------------------------------------------
// einsum
// ---------------------------------------------------------------------------
// Keyword arguments of einsum and ContractExpression.__call__.
static int parse_kwargs(PyObject *kwargs, const char *const *names, PyObject **values,
                        int count, const char *fname) {
  if (!kwargs) return 0;
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  while (PyDict_Next(kwargs, &pos, &key, &value)) {
    int found = 0;
    for (int i = 0; i < count; ++i)
      if (PyUnicode_CompareWithASCIIString(key, names[i]) == 0) {
        values[i] = value;
        found = 1;
      }
    if (!found) {
      PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", fname, key);
      return -1;
    }
  }
  return 0;
}

// The equation, args[0] (borrowed), or NULL with a TypeError naming `call`
// ("einsum(eq, *operands)").
static PyObject *eq_argument(PyObject *args, const char *call) {
  if (PyTuple_GET_SIZE(args) >= 1 && PyUnicode_Check(PyTuple_GET_ITEM(args, 0)))
    return PyTuple_GET_ITEM(args, 0);
  PyErr_Format(PyExc_TypeError, "%s: eq must be a str", call);
  return NULL;
}

PyObject *tfrpy_einsum(PyObject *self, PyObject *args, PyObject *kwargs) {
  static const char *const names[] = {"optimize", "backend", "memory_limit", "out",
                                      "progress", "dtype",   "order",        "casting"};
  static PyObject *auto_str;  // 'auto', the default optimize (made once)
  if (!auto_str && !(auto_str = PyUnicode_InternFromString("auto"))) return NULL;
  PyObject *v[8] = {auto_str, Py_None, Py_None, Py_None, Py_None, Py_None, Py_None, Py_None};
  PyObject *result = NULL;
  if (parse_kwargs(kwargs, names, v, 8, "einsum") < 0) goto done;
  if (!eq_argument(args, "einsum(eq, *operands)")) goto done;
  if (v[5] != Py_None) {
    PyErr_SetString(PyExc_TypeError, "einsum: dtype= is not supported; convert the operands");
    goto done;
  }
  PyObject *eq = PyTuple_GET_ITEM(args, 0);
  const char *eq_s = PyUnicode_AsUTF8(eq);
  if (!eq_s) goto done;
  operands ops;
  if (operands_load(&ops, args, 1) < 0) goto done;
  // backend=None: where the device operands live, else the thread's default.
  tfrpy_backend *b = tfrpy_backend_resolve(v[1] == Py_None && ops.device ? ops.device : v[1]);
  if (!b) {
    operands_free(&ops);
    goto done;
  }
  bool cacheable = v[4] == Py_None && !PyList_Check(v[0]) && !PyTuple_Check(v[0]);
  PyObject *key = NULL, *held = NULL;  // held: the cached plan's capsule, while used
  const tfr_einsum_plan *plan = NULL;
  tfr_einsum_plan *own_plan = NULL;
  int64_t codes[RECENT_CODES];
  int ncodes = cacheable ? recent_codes(&ops, codes) : -1;
  if (ncodes >= 0) {
    PyObject *cap = recent_find(eq, v[0], v[2], codes, ncodes);
    if (cap) {
      held = Py_NewRef(cap);
      plan = PyCapsule_GetPointer(cap, "tenferro.plan");
      cacheable = false;  // found: no key needed
    }
  }
  if (cacheable) {
    key = plan_cache_key(eq, v[0], v[2], &ops);
    if (!key) goto free_ops;
    PyObject *cap = PyDict_GetItemWithError(plan_cache, key);
    if (cap) {
      // Another thread may clear the cache while this one runs the plan.
      held = Py_NewRef(cap);
      plan = PyCapsule_GetPointer(cap, "tenferro.plan");
      if (ncodes >= 0) recent_add(eq, v[0], v[2], codes, ncodes, cap);
    } else if (PyErr_Occurred()) {
      PyErr_Clear();  // unhashable optimize or memory_limit: no caching
      Py_CLEAR(key);
    }
  }
  if (!plan) {
    plan_options o;
    if (plan_options_parse(&o, v[0], v[2], v[4], ops.n) < 0) {
      plan_options_free(&o);
      goto free_key;
    }
    own_plan = make_plan(eq_s, ops.n, ops.ranks, ops.shapes, &o);
    plan_options_free(&o);
    if (!own_plan) goto free_key;
    plan = own_plan;
    if (key) {
      if (PyDict_GET_SIZE(plan_cache) >= PLAN_CACHE_MAX) PyDict_Clear(plan_cache);
      PyObject *cap = PyCapsule_New(own_plan, "tenferro.plan", plan_capsule_free);
      if (!cap) goto free_plan;
      own_plan = NULL;  // the capsule owns it now
      held = cap;
      if (PyDict_SetItem(plan_cache, key, cap) < 0) goto free_key;
      if (ncodes >= 0) recent_add(eq, v[0], v[2], codes, ncodes, cap);
    }
  }
  if (ops.n == 1 && v[3] == Py_None &&
      one_operand_view(plan, PyTuple_GET_ITEM(args, 1), &ops, b, &result) <= 0)
    goto free_plan;  // a view (or its error)
  result = run_plan(plan, &ops, b, v[3]);
free_plan:
  tfr_einsum_plan_release(own_plan);
free_key:
  Py_XDECREF(held);
  Py_XDECREF(key);
free_ops:
  operands_free(&ops);
done:
  return result;
}

// ---------------------------------------------------------------------------
// contract_path
// ---------------------------------------------------------------------------
// Shapes of contract_path's operands: tuples/lists of ints, or objects with
// a .shape. Returns a list of tuples.
static PyObject *shapes_of(PyObject *args, Py_ssize_t first, bool as_shapes) {
  Py_ssize_t n = PyTuple_GET_SIZE(args) - first;
  PyObject *list = PyList_New(n);
  if (!list) return NULL;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *obj = PyTuple_GET_ITEM(args, first + i), *shape;
    if (as_shapes || PyTuple_Check(obj) || PyList_Check(obj))
      shape = PySequence_Tuple(obj);
    else {
      PyObject *s = PyObject_GetAttrString(obj, "shape");
      shape = s ? PySequence_Tuple(s) : NULL;
      Py_XDECREF(s);
    }
    if (!shape) {
      Py_DECREF(list);
      return NULL;
    }
    PyList_SET_ITEM(list, i, shape);
  }
  return list;
}

// ranks/shapes arrays over a list of shape tuples (PyMem; free both).
static int shapes_arrays(PyObject *list, int **ranks, int64_t ***shapes) {
  Py_ssize_t n = PyList_GET_SIZE(list);
  *ranks = PyMem_Calloc((size_t)(n ? n : 1), sizeof(int));
  *shapes = PyMem_Calloc((size_t)(n ? n : 1), sizeof(int64_t *));
  if (!*ranks || !*shapes) return PyErr_NoMemory(), -1;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *t = PyList_GET_ITEM(list, i);
    Py_ssize_t r = PyTuple_GET_SIZE(t);
    if (r > TFR_MAX_RANK) {
      PyErr_Format(PyExc_ValueError, "operand %zd has rank %zd > %d", i, r, TFR_MAX_RANK);
      return -1;
    }
    (*ranks)[i] = (int)r;
    (*shapes)[i] = PyMem_Calloc((size_t)(r ? r : 1), sizeof(int64_t));
    if (!(*shapes)[i]) return PyErr_NoMemory(), -1;
    for (Py_ssize_t k = 0; k < r; ++k) {
      long long e = PyLong_AsLongLong(PyTuple_GET_ITEM(t, k));
      if (e == -1 && PyErr_Occurred()) return -1;
      (*shapes)[i][k] = e;
    }
  }
  return 0;
}

static void shapes_arrays_free(Py_ssize_t n, int *ranks, int64_t **shapes) {
  if (shapes)
    for (Py_ssize_t i = 0; i < n; ++i) PyMem_Free(shapes[i]);
  PyMem_Free(shapes);
  PyMem_Free(ranks);
}

// Plans eq over a list of shapes; *shapes_out receives the list.
static tfr_einsum_plan *plan_for_shapes(PyObject *eq, PyObject *shapes, PyObject *optimize,
                                        PyObject *memory_limit, PyObject *progress) {
  const char *eq_s = PyUnicode_AsUTF8(eq);
  if (!eq_s) return NULL;
  Py_ssize_t n = PyList_GET_SIZE(shapes);
  if (n < 1) {
    PyErr_SetString(PyExc_TypeError, "at least one operand is needed");
    return NULL;
  }
  int *ranks = NULL;
  int64_t **sh = NULL;
  tfr_einsum_plan *plan = NULL;
  plan_options o;
  if (shapes_arrays(shapes, &ranks, &sh) == 0) {
    if (plan_options_parse(&o, optimize, memory_limit, progress, (int)n) == 0)
      plan = make_plan(eq_s, (int)n, ranks, (const int64_t *const *)sh, &o);
    plan_options_free(&o);  // also after a failed parse (a partly read path)
  }
  shapes_arrays_free(n, ranks, sh);
  return plan;
}

static PyObject *path_list(const tfr_einsum_plan *plan, int n) {
  int steps = tfr_einsum_plan_info(plan)->num_steps;
  const int32_t *p = tfr_einsum_plan_path(plan);
  if (n == 1) return Py_BuildValue("[(i)]", 0);  // opt_einsum's one-operand path
  PyObject *list = PyList_New(steps);
  if (!list) return NULL;
  for (int i = 0; i < steps; ++i) {
    PyObject *pair = Py_BuildValue("(ii)", (int)p[2 * i], (int)p[2 * i + 1]);
    if (!pair) {
      Py_DECREF(list);
      return NULL;
    }
    PyList_SET_ITEM(list, i, pair);
  }
  return list;
}

PyObject *tfrpy_contract_path(PyObject *self, PyObject *args, PyObject *kwargs) {
  static const char *const names[] = {"optimize", "memory_limit", "shapes", "use_blas"};
  PyObject *v[4] = {Py_None, Py_None, Py_False, Py_None};
  if (parse_kwargs(kwargs, names, v, 4, "contract_path") < 0) return NULL;
  PyObject *eq = eq_argument(args, "contract_path(eq, *operands)");
  if (!eq) return NULL;
  PyObject *shapes = shapes_of(args, 1, PyObject_IsTrue(v[2]) == 1);
  if (!shapes) return NULL;
  tfr_einsum_plan *plan = plan_for_shapes(eq, shapes, v[0], v[1], NULL);
  PyObject *res = NULL;
  if (plan) {
    int n = (int)PyList_GET_SIZE(shapes);
    PyObject *path = path_list(plan, n);
    PyObject *info =
        path ? tfrpy_path_info_new(eq, shapes, tfr_einsum_plan_path(plan),
                                   tfr_einsum_plan_info(plan)->num_steps)
             : NULL;
    if (info) res = PyTuple_Pack(2, path, info);
    Py_XDECREF(path);
    Py_XDECREF(info);
    tfr_einsum_plan_release(plan);
  }
  Py_DECREF(shapes);
  return res;
}

// ---------------------------------------------------------------------------
// contract_expression: tenferro.ContractExpression
// ---------------------------------------------------------------------------
typedef struct {
  PyObject_HEAD
  tfr_einsum_plan *plan;
  PyObject *eq;
  PyObject *shapes;    // list of tuples
  PyObject *progress;  // callable or NULL (the plan's progress_ctx)
} tfrpy_expression;

static void expression_dealloc(PyObject *obj) {
  tfrpy_expression *e = (tfrpy_expression *)obj;
  tfr_einsum_plan_release(e->plan);
  Py_XDECREF(e->eq);
  Py_XDECREF(e->shapes);
  Py_XDECREF(e->progress);
  PyObject_Free(obj);
}

static PyObject *expression_call(PyObject *obj, PyObject *args, PyObject *kwargs) {
  tfrpy_expression *e = (tfrpy_expression *)obj;
  static const char *const names[] = {"backend", "out"};
  PyObject *v[2] = {Py_None, Py_None};
  if (parse_kwargs(kwargs, names, v, 2, "ContractExpression") < 0) return NULL;
  Py_ssize_t n = PyList_GET_SIZE(e->shapes);
  if (PyTuple_GET_SIZE(args) != n) {
    PyErr_Format(PyExc_ValueError, "this expression contracts %zd operands, got %zd", n,
                 PyTuple_GET_SIZE(args));
    return NULL;
  }
  operands ops;
  if (operands_load(&ops, args, 0) < 0) return NULL;
  tfrpy_backend *b = tfrpy_backend_resolve(v[0] == Py_None && ops.device ? ops.device : v[0]);
  PyObject *res = b ? run_plan(e->plan, &ops, b, v[1]) : NULL;
  operands_free(&ops);
  return res;
}

static PyObject *expression_get_path(PyObject *obj, void *c) {
  tfrpy_expression *e = (tfrpy_expression *)obj;
  return path_list(e->plan, (int)PyList_GET_SIZE(e->shapes));
}

static PyObject *expression_get_info(PyObject *obj, void *c) {
  tfrpy_expression *e = (tfrpy_expression *)obj;
  return tfrpy_path_info_new(e->eq, e->shapes, tfr_einsum_plan_path(e->plan),
                             tfr_einsum_plan_info(e->plan)->num_steps);
}

static PyObject *expression_get_num_slices(PyObject *obj, void *c) {
  return PyLong_FromLongLong(tfr_einsum_plan_num_slices(((tfrpy_expression *)obj)->plan));
}

static PyObject *expression_repr(PyObject *obj) {
  tfrpy_expression *e = (tfrpy_expression *)obj;
  return PyUnicode_FromFormat("<ContractExpression('%U')>", e->eq);
}

static PyGetSetDef expression_getset[] = {
    {"path", expression_get_path, NULL, "The contraction path, a list of pairs.", NULL},
    {"info", expression_get_info, NULL, "The tenferro.PathInfo of the plan.", NULL},
    {"num_slices", expression_get_num_slices, NULL,
     "Slices the plan runs (1 without a memory_limit that needs slicing).", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject expression_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tenferro.ContractExpression",
    .tp_basicsize = sizeof(tfrpy_expression),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A planned contraction (contract_expression): call it with operands of the\n"
              "shapes it was made for: expr(*operands, backend=None, out=None). Planning\n"
              "(parsing, path search, slicing) happened once, at construction.",
    .tp_dealloc = expression_dealloc,
    .tp_call = expression_call,
    .tp_repr = expression_repr,
    .tp_getset = expression_getset,
};

PyObject *tfrpy_contract_expression(PyObject *self, PyObject *args, PyObject *kwargs) {
  static const char *const names[] = {"optimize", "memory_limit", "progress", "shapes"};
  PyObject *v[4] = {Py_None, Py_None, Py_None, Py_True};
  if (parse_kwargs(kwargs, names, v, 4, "contract_expression") < 0) return NULL;
  PyObject *eq = eq_argument(args, "contract_expression(eq, *shapes)");
  if (!eq || PyType_Ready(&expression_type) < 0) return NULL;
  PyObject *shapes = shapes_of(args, 1, false);
  if (!shapes) return NULL;
  tfr_einsum_plan *plan = plan_for_shapes(eq, shapes, v[0], v[1], v[2]);
  if (!plan) {
    Py_DECREF(shapes);
    return NULL;
  }
  tfrpy_expression *e = PyObject_New(tfrpy_expression, &expression_type);
  if (!e) {
    tfr_einsum_plan_release(plan);
    Py_DECREF(shapes);
    return NULL;
  }
  e->plan = plan;
  e->eq = Py_NewRef(eq);
  e->shapes = shapes;
  e->progress = v[2] != Py_None ? Py_NewRef(v[2]) : NULL;
  return (PyObject *)e;
}
