// python/src/tensor.c: tenferro.Tensor, and library tensors made from Python
// objects (the buffer protocol, DLPack, numpy.asarray) without copying.
#include <string.h>

#include "dlpack.h"
#include "tfrpy.h"

// ---------------------------------------------------------------------------
// numpy, imported lazily (the module works without it for DLPack producers)
// ---------------------------------------------------------------------------
static PyObject *numpy_module;
static PyObject *numpy_ndarray;  // numpy.ndarray, once numpy is imported anywhere
static PyObject *numpy_generic;  // numpy.generic (numpy scalars)
static PyObject *numpy_asarray;  // numpy.asarray

PyObject *tfrpy_numpy(void) {
  if (!numpy_module) {
    numpy_module = PyImport_ImportModule("numpy");
    if (!numpy_module) return NULL;
    numpy_ndarray = PyObject_GetAttrString(numpy_module, "ndarray");
    numpy_generic = PyObject_GetAttrString(numpy_module, "generic");
    if (!numpy_ndarray || !numpy_generic) {
      Py_CLEAR(numpy_module);
      Py_CLEAR(numpy_ndarray);
      Py_CLEAR(numpy_generic);
      return NULL;
    }
  }
  return numpy_module;
}

bool tfrpy_is_ndarray(PyObject *obj) {
  if (!numpy_ndarray) {
    // numpy already imported by the user? Then look the type up once.
    PyObject *mods = PyImport_GetModuleDict();
    if (!PyDict_GetItemString(mods, "numpy") || !tfrpy_numpy()) {
      PyErr_Clear();
      return false;
    }
  }
  return (PyObject *)Py_TYPE(obj) == numpy_ndarray ||
         PyObject_TypeCheck(obj, (PyTypeObject *)numpy_generic);
}

PyObject *tfrpy_to_numpy(PyObject *tensor) {
  // numpy.asarray takes the Tensor's buffer (no copy; the array's base is
  // the Tensor).
  if (!numpy_asarray) {
    PyObject *np = tfrpy_numpy();
    if (!np) return NULL;
    numpy_asarray = PyObject_GetAttrString(np, "asarray");
    if (!numpy_asarray) return NULL;
  }
  return PyObject_CallOneArg(numpy_asarray, tensor);
}

int tfrpy_dtype_from_object(PyObject *obj, tfr_dtype *out) {
  if (obj == (PyObject *)&PyFloat_Type) return *out = TFR_F64, 0;
  if (obj == (PyObject *)&PyLong_Type) return *out = TFR_I64, 0;
  if (obj == (PyObject *)&PyBool_Type) return *out = TFR_BOOL, 0;
  if (obj == (PyObject *)&PyComplex_Type) return *out = TFR_C128, 0;
  PyObject *name;
  if (PyUnicode_Check(obj)) {
    name = Py_NewRef(obj);
  } else if (PyType_Check(obj)) {
    name = PyObject_GetAttrString(obj, "__name__");  // numpy.float32 -> "float32"
  } else {
    name = PyObject_GetAttrString(obj, "name");  // numpy.dtype('float32').name
  }
  if (!name) return -1;
  const char *s = PyUnicode_Check(name) ? PyUnicode_AsUTF8(name) : NULL;
  if (!s) {
    Py_DECREF(name);
    if (!PyErr_Occurred())
      PyErr_Format(PyExc_TypeError, "not a dtype: %R", obj);
    return -1;
  }
  tfr_status st = tfr_dtype_from_name(s, out);
  Py_DECREF(name);
  if (st) {
    tfrpy_raise(st);
    return -1;
  }
  return 0;
}

// ---------------------------------------------------------------------------
// Wrapping strided host memory
// ---------------------------------------------------------------------------

int tfrpy_wrap_strided(tfr_dtype dt, int rank, const int64_t *shape, const int64_t *strides,
                        char *data, tfr_release_fn release, void *ctx, tfr_tensor **out) {
  size_t esize = tfr_dtype_size(dt);
  int64_t lo = 0, hi = 0, numel = 1;
  for (int k = 0; k < rank; ++k) {
    numel *= shape[k];
    if (shape[k] == 0) break;
    int64_t span = (shape[k] - 1) * (strides ? strides[k] : 1);
    if (span < 0) lo += span; else hi += span;
  }
  tfr_status st;
  if (numel == 0) {
    // Nothing to share: an empty tensor of the shape, the producer let go.
    release(ctx, data);
    st = tfr_tensor_zeros_host(dt, rank, shape, out);
    return st ? (tfrpy_raise(st), -1) : 0;
  }
  if (!strides) {
    hi = numel - 1;
  }
  int64_t count = hi - lo + 1;
  if (lo == 0) {
    // No negative stride: the strides themselves over [data, data + count).
    st = tfr_tensor_wrap_host(dt, rank, shape, strides, data, (size_t)count * esize, release,
                              ctx, out);
    if (st) {
      release(ctx, data);
      tfrpy_raise(st);
      return -1;
    }
    return 0;
  }
  char *base = data + lo * (int64_t)esize;
  tfr_tensor *whole = NULL;
  st = tfr_tensor_wrap_host(dt, 1, &count, NULL, base, (size_t)count * esize, release, ctx,
                            &whole);
  if (st) {
    release(ctx, base);
    tfrpy_raise(st);
    return -1;
  }
  st = tfr_tensor_view(whole, rank, shape, strides, -lo, out);
  tfr_tensor_release(whole);  // the view keeps the storage
  if (st) {
    tfrpy_raise(st);
    return -1;
  }
  return 0;
}

// Runs `fn` with the GIL held, from any thread (the library drops the last
// reference to a wrapped buffer wherever the last tensor goes).
static bool gil_available(void) { return Py_IsInitialized() != 0; }

static void release_buffer(void *ctx, void *data) {
  Py_buffer *view = ctx;
  if (gil_available()) {
    PyGILState_STATE g = PyGILState_Ensure();
    PyBuffer_Release(view);
    PyGILState_Release(g);
  }
  PyMem_RawFree(view);
}

// The dtype of a struct-module format string of `itemsize` bytes.
static int dtype_from_format(const char *fmt, Py_ssize_t itemsize, tfr_dtype *out) {
  const char *f = fmt ? fmt : "B";
  if (*f == '@' || *f == '=' || *f == '<' || *f == '|') ++f;
  else if (*f == '>' || *f == '!') return -1;  // big endian
  bool is_signed = false;
  switch (f[0]) {
    case '?': *out = TFR_BOOL; break;
    case 'b': case 'h': case 'i': case 'l': case 'q': is_signed = true;  // fall through
    /* fall through */
    case 'B': case 'H': case 'I': case 'L': case 'Q':
      switch (itemsize) {
        case 1: *out = is_signed ? TFR_I8 : TFR_U8; break;
        case 2: *out = is_signed ? TFR_I16 : TFR_U16; break;
        case 4: *out = is_signed ? TFR_I32 : TFR_U32; break;
        case 8: *out = is_signed ? TFR_I64 : TFR_U64; break;
        default: return -1;
      }
      break;
    case 'e': *out = TFR_F16; break;
    case 'f': *out = TFR_F32; break;
    case 'd': *out = TFR_F64; break;
    case 'Z':
      if (f[1] == 'f') *out = TFR_C64;
      else if (f[1] == 'd') *out = TFR_C128;
      else return -1;
      if (f[2] != '\0') return -1;
      return (Py_ssize_t)tfr_dtype_size(*out) == itemsize ? 0 : -1;
    default: return -1;
  }
  if (f[1] != '\0') return -1;
  return (Py_ssize_t)tfr_dtype_size(*out) == itemsize ? 0 : -1;
}

// A tensor over an object's buffer; 1 when the object has none (nothing set).
static int operand_from_buffer(PyObject *obj, bool writable, tfr_tensor **out) {
  Py_buffer *view = PyMem_RawMalloc(sizeof *view);
  if (!view) {
    PyErr_NoMemory();
    return -1;
  }
  if (PyObject_GetBuffer(obj, view, writable ? PyBUF_RECORDS : PyBUF_RECORDS_RO) < 0) {
    PyMem_RawFree(view);
    return -1;
  }
  tfr_dtype dt;
  if (dtype_from_format(view->format, view->itemsize, &dt) < 0) {
    PyErr_Format(PyExc_TypeError,
                 "tenferro has no dtype for buffer format '%s' (itemsize %zd) of %.100s",
                 view->format ? view->format : "B", view->itemsize, Py_TYPE(obj)->tp_name);
    PyBuffer_Release(view);
    PyMem_RawFree(view);
    return -1;
  }
  if (view->ndim > TFR_MAX_RANK || view->suboffsets) {
    PyErr_SetString(PyExc_ValueError, "buffer rank above TFR_MAX_RANK or with suboffsets");
    PyBuffer_Release(view);
    PyMem_RawFree(view);
    return -1;
  }
  int64_t shape[TFR_MAX_RANK], strides[TFR_MAX_RANK];
  for (int k = 0; k < view->ndim; ++k) {
    shape[k] = view->shape[k];
    Py_ssize_t s = view->strides ? view->strides[k] : 0;
    if (s % view->itemsize != 0) {
      PyErr_Format(PyExc_ValueError,
                   "buffer stride %zd of axis %d is not a multiple of the item size %zd",
                   s, k, view->itemsize);
      PyBuffer_Release(view);
      PyMem_RawFree(view);
      return -1;
    }
    strides[k] = s / view->itemsize;
  }
  return tfrpy_wrap_strided(dt, view->ndim, shape, view->strides ? strides : NULL, view->buf,
                      release_buffer, view, out);
}

int tfrpy_operand_ex(PyObject *obj, bool writable, tfr_tensor **out) {
  *out = NULL;
  if (PyObject_TypeCheck(obj, &tfrpy_tensor_type)) {
    tfrpy_tensor *t = (tfrpy_tensor *)obj;
    tfr_tensor_retain(t->tensor);
    *out = t->tensor;
    return 0;
  }
  int fast = tfrpy_numpy_operand(obj, writable, out);
  if (fast <= 0) return fast;
  if (PyObject_CheckBuffer(obj)) {
    // The buffer protocol first (numpy without its C API, memoryview, JAX's
    // CPU arrays); DLPack when it fails on another object that has both (a
    // dtype the buffer formats lack, such as JAX's bfloat16). numpy's DLPack
    // export reads no dtype its buffers lack: its buffer error stands.
    bool has_dlpack = !writable && !tfrpy_is_ndarray(obj) &&
                      PyObject_HasAttrString(obj, "__dlpack__");
    int r = operand_from_buffer(obj, writable, out);
    if (r == 0 || !has_dlpack) return r;
    PyErr_Clear();
  }
  if (writable) {
    PyErr_Format(PyExc_TypeError, "out must be a writable numpy array or tenferro.Tensor, not %.100s",
                 Py_TYPE(obj)->tp_name);
    return -1;
  }
  PyObject *capsule_fn = PyObject_GetAttrString(obj, "__dlpack__");
  if (capsule_fn) {
    Py_DECREF(capsule_fn);
    PyObject *t = tfrpy_from_dlpack(NULL, obj);
    if (!t) return -1;
    tfr_tensor_retain(((tfrpy_tensor *)t)->tensor);
    *out = ((tfrpy_tensor *)t)->tensor;
    Py_DECREF(t);
    return 0;
  }
  PyErr_Clear();
  // Python scalars, lists, other array-likes: through numpy (a copy).
  PyObject *np = tfrpy_numpy();
  if (!np) return -1;
  PyObject *arr = PyObject_CallMethod(np, "asarray", "O", obj);
  if (!arr) return -1;
  int r = operand_from_buffer(arr, false, out);
  Py_DECREF(arr);
  return r;
}

int tfrpy_operand(PyObject *obj, tfr_tensor **out) { return tfrpy_operand_ex(obj, false, out); }

// ---------------------------------------------------------------------------
// tenferro.Tensor
// ---------------------------------------------------------------------------
PyObject *tfrpy_tensor_new(tfr_tensor *t, PyObject *backend) {
  tfrpy_tensor *self = PyObject_New(tfrpy_tensor, &tfrpy_tensor_type);
  if (!self) {
    tfr_tensor_release(t);
    return NULL;
  }
  self->tensor = t;
  self->backend = backend ? Py_NewRef(backend) : NULL;
  self->weakrefs = NULL;
  return (PyObject *)self;
}

static PyObject *tensor_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"obj", NULL};
  PyObject *obj;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O:Tensor", kwlist, &obj)) return NULL;
  if (PyObject_TypeCheck(obj, &tfrpy_tensor_type)) return Py_NewRef(obj);
  tfr_tensor *t;
  if (tfrpy_operand(obj, &t) < 0) return NULL;
  return tfrpy_tensor_new(t, NULL);
}

static void tensor_dealloc(PyObject *obj) {
  tfrpy_tensor *self = (tfrpy_tensor *)obj;
  if (self->weakrefs) PyObject_ClearWeakRefs(obj);
  tfr_tensor_release(self->tensor);
  Py_XDECREF(self->backend);
  PyObject_Free(obj);
}

static PyObject *int64_tuple(int n, const int64_t *v) {
  PyObject *t = PyTuple_New(n);
  if (!t) return NULL;
  for (int i = 0; i < n; ++i) {
    PyObject *x = PyLong_FromLongLong(v[i]);
    if (!x) {
      Py_DECREF(t);
      return NULL;
    }
    PyTuple_SET_ITEM(t, i, x);
  }
  return t;
}

#define T(obj) (((tfrpy_tensor *)(obj))->tensor)

static PyObject *tensor_get_shape(PyObject *self, void *c) {
  return int64_tuple(tfr_tensor_rank(T(self)), tfr_tensor_shape(T(self)));
}
static PyObject *tensor_get_strides(PyObject *self, void *c) {
  return int64_tuple(tfr_tensor_rank(T(self)), tfr_tensor_strides(T(self)));
}
static PyObject *tensor_get_ndim(PyObject *self, void *c) {
  return PyLong_FromLong(tfr_tensor_rank(T(self)));
}
static PyObject *tensor_get_size(PyObject *self, void *c) {
  return PyLong_FromLongLong(tfr_tensor_numel(T(self)));
}
static PyObject *tensor_get_nbytes(PyObject *self, void *c) {
  return PyLong_FromSize_t(tfr_tensor_nbytes(T(self)));
}
static PyObject *tensor_get_itemsize(PyObject *self, void *c) {
  return PyLong_FromSize_t(tfr_dtype_size(tfr_tensor_dtype(T(self))));
}
static PyObject *tensor_get_dtype(PyObject *self, void *c) {
  return PyUnicode_FromString(tfr_dtype_name(tfr_tensor_dtype(T(self))));
}
static PyObject *tensor_get_backend(PyObject *self, void *c) {
  tfrpy_tensor *t = (tfrpy_tensor *)self;
  if (t->backend) return Py_NewRef(t->backend);
  return PyUnicode_FromString("cpu");
}
static PyObject *tensor_get_contiguous(PyObject *self, void *c) {
  return PyBool_FromLong(tfr_tensor_is_contiguous(T(self)));
}
static PyObject *tensor_get_data_ptr(PyObject *self, void *c) {
  void *p = NULL;
  tfr_status st = tfr_tensor_host_data(T(self), &p);
  if (st) return tfrpy_raise(st);
  return PyLong_FromVoidPtr(p);
}

static const char *buffer_format(tfr_dtype dt) {
  switch (dt) {
    case TFR_BOOL: return "?";
    case TFR_I8: return "b";
    case TFR_U8: return "B";
    case TFR_I16: return "h";
    case TFR_U16: return "H";
    case TFR_I32: return "i";
    case TFR_U32: return "I";
    case TFR_I64: return "q";
    case TFR_U64: return "Q";
    case TFR_F16: return "e";
    case TFR_F32: return "f";
    case TFR_F64: return "d";
    case TFR_C64: return "Zf";
    case TFR_C128: return "Zd";
    default: return NULL;  // bf16: no struct-module code
  }
}

static PyObject *tensor_get_array_interface(PyObject *self, void *c) {
  tfr_tensor *t = T(self);
  const tfr_dtype_info *info = tfr_dtype_get_info(tfr_tensor_dtype(t));
  if (!info->descr) {
    PyErr_SetString(PyExc_AttributeError,
                    "bf16 has no numpy dtype: use numpy.from_dlpack-aware consumers "
                    "(ml_dtypes, torch.from_dlpack) or convert first");
    return NULL;
  }
  void *p = NULL;
  tfr_status st = tfr_tensor_host_data(t, &p);
  if (st) {
    tfrpy_raise(st);
    PyErr_SetString(PyExc_AttributeError, "a device tensor has no __array_interface__ "
                                          "(download() it first)");
    return NULL;
  }
  int r = tfr_tensor_rank(t);
  PyObject *shape = tensor_get_shape(self, NULL);
  PyObject *strides = PyTuple_New(r);
  if (!shape || !strides) {
    Py_XDECREF(shape);
    Py_XDECREF(strides);
    return NULL;
  }
  for (int k = 0; k < r; ++k)
    PyTuple_SET_ITEM(strides, k,
                     PyLong_FromLongLong(tfr_tensor_strides(t)[k] * (int64_t)info->size));
  return Py_BuildValue("{s:N,s:s,s:(N,O),s:N,s:i}", "shape", shape, "typestr", info->descr,
                       "data", PyLong_FromVoidPtr(p), Py_False, "strides", strides,
                       "version", 3);
}

static int tensor_getbuffer(PyObject *self, Py_buffer *view, int flags) {
  tfr_tensor *t = T(self);
  tfr_dtype dt = tfr_tensor_dtype(t);
  const char *fmt = buffer_format(dt);
  if (!fmt) {
    PyErr_SetString(PyExc_BufferError, "bf16 has no buffer format (use __dlpack__)");
    return -1;
  }
  void *p = NULL;
  if (tfr_tensor_host_data(t, &p)) {
    PyErr_SetString(PyExc_BufferError,
                    "a device tensor has no host buffer: download() it first");
    return -1;
  }
  int r = tfr_tensor_rank(t);
  if (!(flags & PyBUF_STRIDES) && !tfr_tensor_is_contiguous(t)) {
    PyErr_SetString(PyExc_BufferError, "the tensor is not contiguous (ask for strides)");
    return -1;
  }
  Py_ssize_t *dims = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(2 * r + 1));
  if (!dims) {
    PyErr_NoMemory();
    return -1;
  }
  Py_ssize_t isz = (Py_ssize_t)tfr_dtype_size(dt);
  for (int k = 0; k < r; ++k) {
    dims[k] = (Py_ssize_t)tfr_tensor_shape(t)[k];
    dims[r + k] = (Py_ssize_t)tfr_tensor_strides(t)[k] * isz;
  }
  view->buf = p;
  view->obj = Py_NewRef(self);
  view->len = (Py_ssize_t)tfr_tensor_nbytes(t);
  view->readonly = 0;
  view->itemsize = isz;
  view->format = (flags & PyBUF_FORMAT) ? (char *)fmt : NULL;
  view->ndim = r;
  view->shape = (flags & PyBUF_ND) ? dims : NULL;
  view->strides = (flags & PyBUF_STRIDES) ? dims + r : NULL;
  view->suboffsets = NULL;
  view->internal = dims;
  return 0;
}

static void tensor_releasebuffer(PyObject *self, Py_buffer *view) { PyMem_Free(view->internal); }

static PyBufferProcs tensor_as_buffer = {tensor_getbuffer, tensor_releasebuffer};

static tfr_status download_body(tfr_session *s, tfr_tensor *const *in, const void *attrs,
                                tfr_tensor **out) {
  return tfr_download(s, in[0], out);
}

static tfr_status copy_body(tfr_session *s, tfr_tensor *const *in, const void *attrs,
                            tfr_tensor **out) {
  return tfr_copy(s, in[0], out);
}

// Downloads a device tensor into a new host Tensor (a copy).
static PyObject *tensor_download(PyObject *self, PyObject *unused) {
  tfrpy_tensor *t = (tfrpy_tensor *)self;
  if (!t->backend) return Py_NewRef(self);
  tfrpy_backend *b = tfrpy_backend_resolve(t->backend);
  tfr_tensor *h = b ? tfrpy_run(b->backend, download_body, &t->tensor, 0, NULL) : NULL;
  return h ? tfrpy_tensor_new(h, NULL) : NULL;
}

static PyObject *tensor_copy(PyObject *self, PyObject *unused) {
  tfrpy_tensor *t = (tfrpy_tensor *)self;
  tfrpy_backend *b = tfrpy_backend_resolve(t->backend);
  tfr_tensor *c = b ? tfrpy_run(b->backend, copy_body, &t->tensor, 0, NULL) : NULL;
  return c ? tfrpy_tensor_new(c, t->backend) : NULL;
}

// numpy has no bfloat16: the error of every numpy conversion of a bf16 tensor.
static PyObject *bf16_error(void) {
  PyErr_SetString(PyExc_BufferError,
                  "bf16 has no numpy dtype: convert it (tenferro.ops.convert(t, 'f32')) or "
                  "pass it through DLPack to a consumer that has bfloat16");
  return NULL;
}

static PyObject *tensor_array(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"dtype", "copy", NULL};
  PyObject *dtype = Py_None, *copy = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OO:__array__", kwlist, &dtype, &copy))
    return NULL;
  tfrpy_tensor *t = (tfrpy_tensor *)self;
  if (!tfr_dtype_get_info(tfr_tensor_dtype(t->tensor))->descr) {
    return bf16_error();
  }
  PyObject *host;
  if (t->backend) {
    if (copy == Py_False || copy == Py_None) {
      PyErr_SetString(PyExc_BufferError,
                      "a webgpu tensor is copied to the host only when asked: "
                      "numpy.array(t, copy=True), t.numpy() or t.download()");
      return NULL;
    }
    host = tensor_download(self, NULL);
  } else {
    host = Py_NewRef(self);
  }
  if (!host) return NULL;
  PyObject *arr = tfrpy_to_numpy(host);
  Py_DECREF(host);
  if (!arr) return NULL;
  if (dtype != Py_None || copy == Py_True) {
    // astype copies by default.
    PyObject *res = dtype != Py_None ? PyObject_CallMethod(arr, "astype", "O", dtype)
                                     : PyObject_CallMethod(arr, "copy", NULL);
    Py_DECREF(arr);
    return res;
  }
  return arr;
}

static PyObject *tensor_numpy(PyObject *self, PyObject *unused) {
  tfrpy_tensor *t = (tfrpy_tensor *)self;
  if (!tfr_dtype_get_info(tfr_tensor_dtype(t->tensor))->descr) {
    return bf16_error();
  }
  if (!t->backend) return tfrpy_to_numpy(self);
  PyObject *host = tensor_download(self, NULL);
  if (!host) return NULL;
  PyObject *arr = tfrpy_to_numpy(host);
  Py_DECREF(host);
  return arr;
}

static PyObject *tensor_repr(PyObject *self) {
  tfr_tensor *t = T(self);
  PyObject *shape = tensor_get_shape(self, NULL);
  if (!shape) return NULL;
  tfrpy_tensor *pt = (tfrpy_tensor *)self;
  PyObject *r = PyUnicode_FromFormat(
      "tenferro.Tensor(shape=%R, dtype='%s', backend='%s')", shape,
      tfr_dtype_name(tfr_tensor_dtype(t)),
      pt->backend ? tfr_backend_name(((tfrpy_backend *)pt->backend)->backend) : "cpu");
  Py_DECREF(shape);
  return r;
}

static Py_ssize_t tensor_len(PyObject *self) {
  tfr_tensor *t = T(self);
  if (tfr_tensor_rank(t) == 0) {
    PyErr_SetString(PyExc_TypeError, "len() of a rank-0 tensor");
    return -1;
  }
  return (Py_ssize_t)tfr_tensor_shape(t)[0];
}

static PySequenceMethods tensor_as_sequence = {.sq_length = tensor_len};

static PyMethodDef tensor_methods[] = {
    {"__dlpack__", (PyCFunction)(void (*)(void))tfrpy_tensor_dlpack,
     METH_VARARGS | METH_KEYWORDS,
     "__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None)\n\n"
     "A DLPack capsule sharing the tensor's memory: 'dltensor_versioned'\n"
     "(DLManagedTensorVersioned, DLPack 1.0) when max_version >= (1, 0), else the\n"
     "legacy 'dltensor'. copy=True exports a copy (flagged IS_COPIED). A webgpu\n"
     "tensor is exported only as a host copy (kDLCPU, IS_COPIED), made when asked:\n"
     "copy=True or dl_device=(1, 0); otherwise, with copy=False, and for any other\n"
     "dl_device, BufferError."},
    {"__dlpack_device__", tfrpy_tensor_dlpack_device, METH_NOARGS,
     "(device_type, device_id): (1, 0) kDLCPU for host tensors, (15, 0) kDLWebGPU."},
    {"__array__", (PyCFunction)(void (*)(void))tensor_array, METH_VARARGS | METH_KEYWORDS,
     "__array__(dtype=None, copy=None): a numpy array sharing a host tensor's memory\n"
     "(a copy when dtype differs or copy=True). BufferError for bf16 and for a\n"
     "webgpu tensor unless copy=True (numpy.array(t, copy=True) passes it from numpy\n"
     "2 on; with numpy 1.x use t.numpy())."},
    {"numpy", tensor_numpy, METH_NOARGS,
     "A numpy array: the tensor's memory for a host tensor (no copy), a download for\n"
     "a webgpu tensor. BufferError for bf16 (numpy has no bfloat16)."},
    {"download", tensor_download, METH_NOARGS,
     "A host Tensor of a webgpu tensor (a copy); the tensor itself for a host tensor."},
    {"copy", tensor_copy, METH_NOARGS, "A compact copy on the tensor's backend."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef tensor_getset[] = {
    {"shape", tensor_get_shape, NULL, "The extents, a tuple of ints.", NULL},
    {"strides", tensor_get_strides, NULL,
     "The strides in elements (not bytes, unlike numpy), any sign.", NULL},
    {"ndim", tensor_get_ndim, NULL, "The rank.", NULL},
    {"size", tensor_get_size, NULL, "The number of elements.", NULL},
    {"nbytes", tensor_get_nbytes, NULL, "Bytes of a compact copy.", NULL},
    {"itemsize", tensor_get_itemsize, NULL, "Bytes per element.", NULL},
    {"dtype", tensor_get_dtype, NULL,
     "The tenferro dtype name: 'bool', 'i8' .. 'i64', 'u8' .. 'u64', 'f16', 'bf16',\n"
     "'f32', 'f64', 'c64', 'c128'.", NULL},
    {"backend", tensor_get_backend, NULL,
     "'cpu' for host tensors, the tenferro.Backend of a device tensor.", NULL},
    {"is_contiguous", tensor_get_contiguous, NULL, "Compact row-major strides.", NULL},
    {"data_ptr", tensor_get_data_ptr, NULL,
     "The address of element (0, .., 0) of a host tensor (an int).", NULL},
    {"__array_interface__", tensor_get_array_interface, NULL,
     "numpy's array interface (version 3) of a host tensor: no copy.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject tfrpy_tensor_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tenferro.Tensor",
    .tp_basicsize = sizeof(tfrpy_tensor),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Tensor(obj)\n\n"
              "A tenferro tensor: a reference to host memory or to a device buffer of a\n"
              "backend, with a dtype, a shape and strides of any sign. Tensor(obj) shares\n"
              "the memory of a numpy array or DLPack producer (no copy; the producer is\n"
              "kept alive). numpy.asarray(t), numpy.from_dlpack(t), torch.from_dlpack(t)\n"
              "share the tensor's memory in turn. Results of einsum and ops are Tensors.",
    .tp_new = tensor_new,
    .tp_dealloc = tensor_dealloc,
    .tp_repr = tensor_repr,
    .tp_methods = tensor_methods,
    .tp_getset = tensor_getset,
    .tp_as_buffer = &tensor_as_buffer,
    .tp_as_sequence = &tensor_as_sequence,
    .tp_weaklistoffset = offsetof(tfrpy_tensor, weakrefs),
};
