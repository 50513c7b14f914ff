// python/src/module.c: the module `tenferro`, its backends
// (tenferro.Backend) and sessions (tenferro.Session).
#include "tfrpy.h"

// ---------------------------------------------------------------------------
// Per-thread state: the open tenferro.Session and the `with Backend` stack.
// ---------------------------------------------------------------------------
#define TFRPY_BACKEND_STACK 64

typedef struct {
  tfr_session *session;              // the thread's open session, or NULL
  tfrpy_backend *session_backend;    // its backend (borrowed from the Session)
  tfrpy_backend *stack[TFRPY_BACKEND_STACK];  // `with Backend` (borrowed)
  int depth;
} tfrpy_thread_state;

static _Thread_local tfrpy_thread_state tls;

// The default backends, created on first use.
static tfrpy_backend *default_cpu;
static tfrpy_backend *default_webgpu;

static tfrpy_backend *backend_wrap(tfr_backend *b) {
  tfrpy_backend *self = PyObject_New(tfrpy_backend, &tfrpy_backend_type);
  if (!self) {
    tfr_backend_release(b);
    return NULL;
  }
  self->backend = b;
  return self;
}

static tfrpy_backend *backend_create(const char *name, int num_threads) {
  tfr_backend *b = NULL;
  tfr_status st;
  if (strcmp(name, "cpu") == 0) {
    tfr_cpu_options o = {0};
    o.num_threads = num_threads;
    Py_BEGIN_ALLOW_THREADS
    st = tfr_backend_create_cpu(&o, &b);
    Py_END_ALLOW_THREADS
  } else if (strcmp(name, "webgpu") == 0) {
    Py_BEGIN_ALLOW_THREADS
    st = tfr_backend_create_webgpu(NULL, &b);
    Py_END_ALLOW_THREADS
  } else {
    PyErr_Format(PyExc_ValueError, "unknown backend '%s' (known: 'cpu', 'webgpu')", name);
    return NULL;
  }
  if (st) return (tfrpy_backend *)tfrpy_raise(st);
  return backend_wrap(b);
}

static tfrpy_backend *default_backend(const char *name) {
  tfrpy_backend **slot = strcmp(name, "webgpu") == 0 ? &default_webgpu : &default_cpu;
  if (!*slot) *slot = backend_create(name, 0);
  return *slot;
}

tfrpy_backend *tfrpy_backend_resolve(PyObject *spec) {
  tfrpy_backend *b = NULL;
  if (spec == NULL || spec == Py_None) {
    if (tls.session) return tls.session_backend;
    if (tls.depth > 0) return tls.stack[tls.depth - 1];
    return default_backend("cpu");
  }
  if (PyObject_TypeCheck(spec, &tfrpy_backend_type)) {
    b = (tfrpy_backend *)spec;
  } else if (PyUnicode_Check(spec)) {
    const char *name = PyUnicode_AsUTF8(spec);
    if (!name) return NULL;
    if (strcmp(name, "cpu") != 0 && strcmp(name, "webgpu") != 0) {
      PyErr_Format(PyExc_ValueError, "unknown backend '%s' (known: 'cpu', 'webgpu')", name);
      return NULL;
    }
    // The thread's session or `with` backend of that kind, else the default.
    tfr_backend_kind kind = name[0] == 'c' ? TFR_BACKEND_CPU : TFR_BACKEND_WEBGPU;
    if (tls.session && tfr_backend_get_kind(tls.session_backend->backend) == kind)
      return tls.session_backend;
    for (int i = tls.depth - 1; i >= 0; --i)
      if (tfr_backend_get_kind(tls.stack[i]->backend) == kind) {
        b = tls.stack[i];
        break;
      }
    if (!b) b = default_backend(name);
    if (!b) return NULL;
  } else {
    PyErr_Format(PyExc_TypeError,
                 "backend must be None, 'cpu', 'webgpu' or a tenferro.Backend, not %.100s",
                 Py_TYPE(spec)->tp_name);
    return NULL;
  }
  if (tls.session && tls.session_backend != b) {
    PyErr_Format(PyExc_ValueError,
                 "this thread has an open tenferro.Session on the %s backend; the operation "
                 "asks for another backend (end the session first)",
                 tfr_backend_name(tls.session_backend->backend));
    return NULL;
  }
  return b;
}

tfr_status tfrpy_call_begin(tfr_backend *backend, tfrpy_call *call) {
  if (tls.session) {
    call->session = tls.session;
    call->owned = false;
    return TFR_OK;
  }
  call->owned = true;
  return tfr_session_begin(backend, &call->session);
}

void tfrpy_call_end(tfrpy_call *call, tfr_status *st) {
  if (!call->owned || !call->session) return;
  tfr_status e = tfr_session_end(call->session);
  call->session = NULL;
  if (*st == TFR_OK) *st = e;
}

tfr_status tfrpy_upload_operands(tfr_session *session, tfr_tensor **t, int n) {
  if (tfr_backend_get_kind(tfr_session_backend(session)) == TFR_BACKEND_CPU) return TFR_OK;
  for (int i = 0; i < n; ++i) {
    if (!t[i] || !tfr_tensor_is_host(t[i])) continue;
    tfr_tensor *moved = NULL;
    tfr_status st = tfr_upload(session, t[i], &moved);
    if (st) return st;
    tfr_tensor_release(t[i]);
    t[i] = moved;
  }
  return TFR_OK;
}

tfr_tensor *tfrpy_run(tfr_backend *backend, tfrpy_body body, tfr_tensor **in, int n_upload,
                      const void *attrs) {
  tfr_tensor *res = NULL;
  tfr_status st;
  tfrpy_call call;
  Py_BEGIN_ALLOW_THREADS
  st = tfrpy_call_begin(backend, &call);
  if (!st) {
    st = tfrpy_upload_operands(call.session, in, n_upload);
    if (!st) st = body(call.session, in, attrs, &res);
    tfrpy_call_end(&call, &st);
  }
  Py_END_ALLOW_THREADS
  if (st) {
    tfr_tensor_release(res);
    tfrpy_raise(st);
    return NULL;
  }
  return res;
}

// ---------------------------------------------------------------------------
// tenferro.Backend
// ---------------------------------------------------------------------------
static PyObject *backend_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"kind", "num_threads", NULL};
  const char *kind = "cpu";
  int num_threads = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|s$i:Backend", kwlist, &kind, &num_threads))
    return NULL;
  return (PyObject *)backend_create(kind, num_threads);
}

static void backend_dealloc(PyObject *self) {
  tfr_backend_release(((tfrpy_backend *)self)->backend);
  PyObject_Free(self);
}

static PyObject *backend_repr(PyObject *self) {
  return PyUnicode_FromFormat("tenferro.Backend('%s')",
                              tfr_backend_name(((tfrpy_backend *)self)->backend));
}

static PyObject *backend_get_name(PyObject *self, void *closure) {
  return PyUnicode_FromString(tfr_backend_name(((tfrpy_backend *)self)->backend));
}

static PyObject *backend_enter(PyObject *self, PyObject *unused) {
  if (tls.depth >= TFRPY_BACKEND_STACK)
    return PyErr_Format(PyExc_RuntimeError, "more than %d nested `with tenferro.Backend`",
                        TFRPY_BACKEND_STACK);
  Py_INCREF(self);  // held while it is on the stack
  tls.stack[tls.depth++] = (tfrpy_backend *)self;
  return Py_NewRef(self);
}

static PyObject *backend_exit(PyObject *self, PyObject *args) {
  if (tls.depth == 0 || tls.stack[tls.depth - 1] != (tfrpy_backend *)self) {
    PyErr_SetString(PyExc_RuntimeError,
                    "tenferro.Backend exited out of order or on another thread");
    return NULL;
  }
  tls.depth--;
  Py_DECREF(self);
  Py_RETURN_FALSE;
}

static PyObject *backend_session(PyObject *self, PyObject *unused) {
  return PyObject_CallOneArg((PyObject *)&tfrpy_session_type, self);
}

static PyMethodDef backend_methods[] = {
    {"__enter__", backend_enter, METH_NOARGS,
     "Makes this backend the thread's default for einsum and ops until __exit__."},
    {"__exit__", backend_exit, METH_VARARGS, "Restores the previous default backend."},
    {"session", backend_session, METH_NOARGS,
     "A new tenferro.Session on this backend (a context manager)."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef backend_getset[] = {
    {"name", backend_get_name, NULL, "'cpu' or 'webgpu'.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject tfrpy_backend_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tenferro.Backend",
    .tp_basicsize = sizeof(tfrpy_backend),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Backend(kind='cpu', *, num_threads=0)\n\n"
              "A tenferro backend: 'cpu' (num_threads 0 = OpenMP's default) or 'webgpu'\n"
              "(Dawn loaded at run time; BackendUnavailableError when it cannot be\n"
              "created). As a context manager (`with tenferro.Backend('cpu', num_threads=1):`)\n"
              "it is the thread's default backend for einsum and the ops inside the block.\n"
              "Creating a cpu backend sets OpenBLAS's thread count to 1 (see backend.h).",
    .tp_new = backend_new,
    .tp_dealloc = backend_dealloc,
    .tp_repr = backend_repr,
    .tp_methods = backend_methods,
    .tp_getset = backend_getset,
};

// ---------------------------------------------------------------------------
// tenferro.Session
// ---------------------------------------------------------------------------
typedef struct {
  PyObject_HEAD
  tfrpy_backend *backend;  // owned
  tfr_session *session;    // while entered
} tfrpy_session;

static PyObject *session_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"backend", NULL};
  PyObject *spec = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:Session", kwlist, &spec)) return NULL;
  tfrpy_backend *b = tfrpy_backend_resolve(spec);
  if (!b) return NULL;
  tfrpy_session *self = PyObject_New(tfrpy_session, type);
  if (!self) return NULL;
  self->backend = (tfrpy_backend *)Py_NewRef(b);
  self->session = NULL;
  return (PyObject *)self;
}

static void session_dealloc(PyObject *obj) {
  tfrpy_session *self = (tfrpy_session *)obj;
  if (self->session && tls.session == self->session) {
    // Collected while open on this thread (never exited): end it here.
    tfr_status st;
    Py_BEGIN_ALLOW_THREADS
    st = tfr_session_end(self->session);
    Py_END_ALLOW_THREADS
    (void)st;
    tls.session = NULL;
    tls.session_backend = NULL;
  }
  Py_XDECREF(self->backend);
  PyObject_Free(obj);
}

static PyObject *session_enter(PyObject *obj, PyObject *unused) {
  tfrpy_session *self = (tfrpy_session *)obj;
  if (self->session) {
    PyErr_SetString(PyExc_RuntimeError, "this tenferro.Session is already open");
    return NULL;
  }
  tfr_status st;
  tfr_session *s = NULL;
  Py_BEGIN_ALLOW_THREADS
  st = tfr_session_begin(self->backend->backend, &s);
  Py_END_ALLOW_THREADS
  if (st) return tfrpy_raise(st);
  self->session = s;
  tls.session = s;
  tls.session_backend = self->backend;
  return Py_NewRef(obj);
}

static PyObject *session_exit(PyObject *obj, PyObject *args) {
  tfrpy_session *self = (tfrpy_session *)obj;
  if (!self->session || tls.session != self->session) {
    PyErr_SetString(PyExc_RuntimeError,
                    "tenferro.Session exited while not open on this thread");
    return NULL;
  }
  tfr_status st;
  tfr_session *s = self->session;
  Py_BEGIN_ALLOW_THREADS
  st = tfr_session_end(s);
  Py_END_ALLOW_THREADS
  self->session = NULL;
  tls.session = NULL;
  tls.session_backend = NULL;
  if (st) return tfrpy_raise(st);
  Py_RETURN_FALSE;
}

static PyObject *session_synchronize(PyObject *obj, PyObject *unused) {
  tfrpy_session *self = (tfrpy_session *)obj;
  if (!self->session) {
    PyErr_SetString(PyExc_RuntimeError, "the tenferro.Session is not open");
    return NULL;
  }
  tfr_status st;
  Py_BEGIN_ALLOW_THREADS
  st = tfr_session_synchronize(self->session);
  Py_END_ALLOW_THREADS
  if (st) return tfrpy_raise(st);
  Py_RETURN_NONE;
}

static PyObject *session_get_backend(PyObject *obj, void *closure) {
  return Py_NewRef(((tfrpy_session *)obj)->backend);
}

static PyObject *session_get_active(PyObject *obj, void *closure) {
  return PyBool_FromLong(((tfrpy_session *)obj)->session != NULL);
}

static PyMethodDef session_methods[] = {
    {"__enter__", session_enter, METH_NOARGS,
     "Opens the session on the calling thread (waits while another thread holds the cpu "
     "backend). SessionReenteredError when the thread has an open session."},
    {"__exit__", session_exit, METH_VARARGS,
     "Ends the session (waits for its queued device work)."},
    {"synchronize", session_synchronize, METH_NOARGS,
     "Waits until the backend has finished every op of the session."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef session_getset[] = {
    {"backend", session_get_backend, NULL, "The session's tenferro.Backend.", NULL},
    {"active", session_get_active, NULL, "True while the session is open.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject tfrpy_session_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tenferro.Session",
    .tp_basicsize = sizeof(tfrpy_session),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Session(backend=None)\n\n"
              "A tenferro session as a context manager: `with tenferro.Session('cpu'):`\n"
              "opens it on the calling thread and every einsum and op of that thread\n"
              "runs in it until the block ends (without one, each call opens and ends\n"
              "its own). A thread has at most one open session; on the cpu backend\n"
              "another thread's calls wait until it ends (with the GIL released).",
    .tp_new = session_new,
    .tp_dealloc = session_dealloc,
    .tp_methods = session_methods,
    .tp_getset = session_getset,
};

// ---------------------------------------------------------------------------
// Module functions and init
// ---------------------------------------------------------------------------
static PyObject *mod_blas_coretype_advice(PyObject *self, PyObject *unused) {
  const char *advice = tfr_cpu_blas_coretype_advice();
  if (!advice) Py_RETURN_NONE;
  return PyUnicode_FromString(advice);
}

// tenferro.live_objects(): {kind name: count} from tfr_live_objects.
static PyObject *mod_live_objects(PyObject *self, PyObject *unused) {
  PyObject *d = PyDict_New();
  if (!d) return NULL;
  for (int k = 0; k < TFR_OBJECT_KIND_COUNT; k++) {
    PyObject *n = PyLong_FromLongLong(tfr_live_objects((tfr_object_kind)k));
    if (!n || PyDict_SetItemString(d, tfr_object_kind_name((tfr_object_kind)k), n) < 0) {
      Py_XDECREF(n);
      Py_DECREF(d);
      return NULL;
    }
    Py_DECREF(n);
  }
  return d;
}

static PyObject *mod_backends_compiled(PyObject *self, PyObject *unused) {
  return PyUnicode_FromString(tfr_backends_compiled());
}

static tfr_status convert_body(tfr_session *s, tfr_tensor *const *in, const void *dtype,
                               tfr_tensor **out) {
  return tfr_convert(s, in[0], *(const tfr_dtype *)dtype, out);
}

static tfr_status upload_body(tfr_session *s, tfr_tensor *const *in, const void *attrs,
                              tfr_tensor **out) {
  return tfr_upload(s, in[0], out);
}

// tenferro.asarray: a Tensor of obj, converted to `dtype` on the backend it
// is on, then moved to `backend` when one is named.
static PyObject *mod_asarray(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"obj", "dtype", "backend", NULL};
  static PyObject *cpu_name;  // 'cpu' (made once)
  PyObject *obj, *dtype_obj = Py_None, *backend_obj = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O$O:asarray", kwlist, &obj, &dtype_obj,
                                   &backend_obj))
    return NULL;
  if (!cpu_name && !(cpu_name = PyUnicode_InternFromString("cpu"))) return NULL;
  // A Tensor as it is (on its backend); anything else a host Tensor over it.
  PyObject *src;
  if (PyObject_TypeCheck(obj, &tfrpy_tensor_type)) {
    src = Py_NewRef(obj);
  } else {
    tfr_tensor *t = NULL;
    if (tfrpy_operand(obj, &t) < 0) return NULL;
    if (!(src = tfrpy_tensor_new(t, NULL))) return NULL;
  }
  tfrpy_tensor *s = (tfrpy_tensor *)src;
  if (dtype_obj != Py_None) {
    tfr_dtype dt;
    if (tfrpy_dtype_from_object(dtype_obj, &dt) < 0) goto fail;
    if (dt != tfr_tensor_dtype(s->tensor)) {
      tfrpy_backend *b = tfrpy_backend_resolve(s->backend ? s->backend : cpu_name);
      tfr_tensor *in = s->tensor;
      tfr_tensor *c = b ? tfrpy_run(b->backend, convert_body, &in, 0, &dt) : NULL;
      if (!c) goto fail;
      PyObject *conv = tfrpy_tensor_new(c, s->backend);
      Py_DECREF(src);
      if (!(src = conv)) return NULL;
      s = (tfrpy_tensor *)src;
    }
  }
  if (backend_obj == Py_None) return src;
  tfrpy_backend *target = tfrpy_backend_resolve(backend_obj);
  if (!target) goto fail;
  if (tfr_backend_get_kind(target->backend) == TFR_BACKEND_CPU) {
    if (!s->backend) return src;
    PyObject *host = PyObject_CallMethod(src, "download", NULL);  // an explicit copy
    Py_DECREF(src);
    return host;
  }
  if (s->backend == (PyObject *)target) return src;
  if (s->backend) {
    PyErr_SetString(PyExc_ValueError,
                    "asarray: the tensor is on another device backend: download() it first");
    goto fail;
  }
  tfr_tensor *in = s->tensor;
  tfr_tensor *u = tfrpy_run(target->backend, upload_body, &in, 0, NULL);
  Py_DECREF(src);
  return u ? tfrpy_tensor_new(u, (PyObject *)target) : NULL;
fail:
  Py_DECREF(src);
  return NULL;
}

static PyMethodDef module_methods[] = {
    {"einsum", (PyCFunction)(void (*)(void))tfrpy_einsum, METH_VARARGS | METH_KEYWORDS,
     "einsum(eq, *operands, optimize='auto', backend=None, memory_limit=None, out=None,\n"
     "       progress=None)\n\n"
     "numpy.einsum / opt_einsum.contract on tenferro. `eq` is numpy's subscript\n"
     "grammar (implicit outputs, '...', repeated labels, any Unicode labels).\n"
     "operands: tenferro.Tensor, numpy arrays (zero-copy, any strides), DLPack\n"
     "producers in host memory (PyTorch, JAX; zero-copy), or anything numpy.asarray\n"
     "takes. Operands of different dtypes are promoted as numpy.result_type does.\n"
     "optimize: 'auto' (True), 'greedy', 'optimal', 'dp', 'random-greedy', 'treesa',\n"
     "'partition', False (left to right), or a path: a list of pairs of positions\n"
     "(opt_einsum's format; numpy's ['einsum_path', ...] too).\n"
     "backend: None (where device operands live, else the thread's session or default),\n"
     "'cpu', 'webgpu' or a Backend; host operands are uploaded to a device backend.\n"
     "memory_limit: a number of elements: the contraction is sliced so that one slice\n"
     "needs at most that many (the operands and the output counted whole, plus the live\n"
     "intermediates: tfr_einsum_options.max_slice_elements); 'max_input': no intermediate\n"
     "larger than the largest operand (the path search keeps to it, or fails).\n"
     "out: a writable numpy array or host Tensor of the result's shape and dtype.\n"
     "progress: called as progress(steps_done, num_steps, flops_done) after each step.\n"
     "Returns a numpy.ndarray sharing the result's memory when every operand is a\n"
     "numpy array or scalar (as opt_einsum returns the operands' type; a numpy scalar for\n"
     "a rank-0 result, as numpy.einsum; a Tensor for bf16, which numpy lacks), else a\n"
     "tenferro.Tensor (on the backend it ran on); `out` when given. Like numpy.einsum,\n"
     "a one-operand rearrangement returns a view: one operand, out=None, the cpu backend\n"
     "and no label summed (a transpose 'ij->ji', a diagonal 'ii->i', '...' allowed) give\n"
     "a view of the operand, not a copy: a numpy view (writeable when the operand is) of\n"
     "a numpy array, else a Tensor over the operand's memory. The GIL is released\n"
     "while it runs. Plans of named optimisers are cached by (eq, optimize,\n"
     "memory_limit, shapes).\n"
     "Errors: tenferro.InvalidArgumentError (a ValueError) for a bad subscript string\n"
     "or shapes, UnsupportedDtypeError (a TypeError), ValueError for a bad optimize."},
    {"contract_path", (PyCFunction)(void (*)(void))tfrpy_contract_path,
     METH_VARARGS | METH_KEYWORDS,
     "contract_path(eq, *operands, optimize='auto', memory_limit=None, shapes=False)\n\n"
     "opt_einsum.contract_path on tenferro: returns (path, info), path a list of\n"
     "pairs, info a tenferro.PathInfo with opt_einsum's fields. Operands are arrays\n"
     "(anything with .shape) or, with shapes=True (or given as tuples), shapes."},
    {"contract_expression", (PyCFunction)(void (*)(void))tfrpy_contract_expression,
     METH_VARARGS | METH_KEYWORDS,
     "contract_expression(eq, *shapes, optimize='auto', memory_limit=None)\n\n"
     "opt_einsum.contract_expression: plans the contraction once for these shapes;\n"
     "the returned ContractExpression is called with operands of those shapes, any\n"
     "number of times: expr(*operands, backend=None, out=None, progress=None)."},
    {"from_dlpack", tfrpy_from_dlpack, METH_O,
     "from_dlpack(x)\n\n"
     "A tenferro.Tensor sharing the memory of `x`, a DLPack producer in host memory\n"
     "(numpy, PyTorch, JAX, a tenferro.Tensor): x.__dlpack__(max_version=(1, 0)), or\n"
     "the legacy unversioned capsule from producers that take no max_version. No copy;\n"
     "the Tensor keeps x's memory alive. BufferError for device memory, TypeError for\n"
     "an object without __dlpack__, UnsupportedDtypeError for a dtype tenferro lacks."},
    {"asarray", (PyCFunction)(void (*)(void))mod_asarray, METH_VARARGS | METH_KEYWORDS,
     "asarray(obj, dtype=None, *, backend=None)\n\n"
     "A tenferro.Tensor of obj: a Tensor itself; else a host Tensor, zero-copy for\n"
     "numpy arrays and DLPack producers, a copy for Python lists and scalars (through\n"
     "numpy). A converted copy when dtype (a tenferro or numpy dtype name, e.g. 'bf16',\n"
     "'float32') differs, made on the tensor's backend. backend: None (stay where it\n"
     "is), 'cpu' (a webgpu tensor is downloaded: a copy), 'webgpu' or a Backend (a host\n"
     "tensor is uploaded: a copy)."},
    {"blas_coretype_advice", mod_blas_coretype_advice, METH_NOARGS,
     "The OPENBLAS_CORETYPE this process should have had when OpenBLAS loaded\n"
     "('Haswell', 'SkylakeX', 'Cooperlake'), or None when OpenBLAS's own kernels are\n"
     "right (tfr_cpu_blas_coretype_advice). OpenBLAS reads it only while it loads:\n"
     "set it in the environment before starting Python (the CLI re-executes itself)."},
    {"live_objects", mod_live_objects, METH_NOARGS,
     "live_objects()\n\n"
     "The library's live objects in this process, by kind: a dict {'tensor': n,\n"
     "'storage': n, 'session': n, 'einsum_plan': n, 'dot_plan': n, 'fusion_plan': n}\n"
     "(tfr_live_objects). Every Tensor holds one library tensor, and a Tensor over\n"
     "numpy or DLPack memory one storage; cached einsum plans and open Sessions count\n"
     "too. For leak checks: with no call running, the counts return to what they were\n"
     "once every object made since is released."},
    {"backends_compiled", mod_backends_compiled, METH_NOARGS,
     "The backends this build contains, e.g. 'cpu' or 'cpu webgpu'."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "tenferro",
    .m_doc = "tenferro: tensor contraction (einsum, contraction paths) and StableHLO ops\n"
             "on a CPU backend and a WebGPU backend, from the C library of that name.\n\n"
             "  import numpy as np, tenferro\n"
             "  a, b = np.random.rand(3, 4), np.random.rand(4, 5)\n"
             "  c = tenferro.einsum('ij,jk->ik', a, b)   # numpy in, numpy out, no copies\n"
             "  path, info = tenferro.contract_path('ij,jk,kl->il', a, b, b.T)\n",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit_tenferro(void);
PyMODINIT_FUNC PyInit_tenferro(void) {
  if (PyType_Ready(&tfrpy_backend_type) < 0 || PyType_Ready(&tfrpy_session_type) < 0 ||
      PyType_Ready(&tfrpy_tensor_type) < 0)
    return NULL;
  PyObject *m = PyModule_Create(&module_def);
  if (!m) return NULL;
  if (tfrpy_errors_init(m) < 0 ||
      PyModule_AddObjectRef(m, "Backend", (PyObject *)&tfrpy_backend_type) < 0 ||
      PyModule_AddObjectRef(m, "Session", (PyObject *)&tfrpy_session_type) < 0 ||
      PyModule_AddObjectRef(m, "Tensor", (PyObject *)&tfrpy_tensor_type) < 0 ||
      PyModule_AddStringConstant(m, "__version__", tfr_version_string()) < 0 ||
      tfrpy_einsum_init(m) < 0 || tfrpy_pathinfo_init(m) < 0 || tfrpy_ops_init(m) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
