// python/src/dlpack.c: DLPack in (tenferro.from_dlpack) and out
// (Tensor.__dlpack__, Tensor.__dlpack_device__).
#include <string.h>

#include "dlpack.h"
#include "tfrpy.h"

static const char *const CAPSULE_VERSIONED = "dltensor_versioned";
static const char *const CAPSULE_LEGACY = "dltensor";
static const char *const CAPSULE_VERSIONED_USED = "used_dltensor_versioned";
static const char *const CAPSULE_LEGACY_USED = "used_dltensor";

// ---------------------------------------------------------------------------
// dtypes
// ---------------------------------------------------------------------------
static tfrpy_dl_dtype dl_dtype_of(tfr_dtype dt) {
  tfrpy_dl_dtype d = {0, (uint8_t)(tfr_dtype_size(dt) * 8), 1};
  switch (tfr_dtype_get_info(dt)->kind) {
    case TFR_KIND_BOOL: d.code = TFRPY_DL_BOOL; break;
    case TFR_KIND_INT: d.code = TFRPY_DL_INT; break;
    case TFR_KIND_UINT: d.code = TFRPY_DL_UINT; break;
    case TFR_KIND_FLOAT: d.code = dt == TFR_BF16 ? TFRPY_DL_BFLOAT : TFRPY_DL_FLOAT; break;
    case TFR_KIND_COMPLEX: d.code = TFRPY_DL_COMPLEX; break;
  }
  return d;
}

static int dtype_of_dl(tfrpy_dl_dtype d, tfr_dtype *out) {
  if (d.lanes != 1) return -1;
  for (int i = 0; i < TFR_DTYPE_COUNT; ++i) {
    tfrpy_dl_dtype e = dl_dtype_of((tfr_dtype)i);
    if (e.code == d.code && e.bits == d.bits) {
      *out = (tfr_dtype)i;
      return 0;
    }
  }
  // PyTorch exports bool as kDLUInt 8 in older versions: not a bool here.
  return -1;
}

// ---------------------------------------------------------------------------
// Import
// ---------------------------------------------------------------------------
static void release_versioned(void *ctx, void *data) {
  tfrpy_dl_managed_versioned *m = ctx;
  if (!m->deleter) return;
  if (Py_IsInitialized()) {
    PyGILState_STATE g = PyGILState_Ensure();
    m->deleter(m);
    PyGILState_Release(g);
  }
}

static void release_legacy(void *ctx, void *data) {
  tfrpy_dl_managed *m = ctx;
  if (!m->deleter) return;
  if (Py_IsInitialized()) {
    PyGILState_STATE g = PyGILState_Ensure();
    m->deleter(m);
    PyGILState_Release(g);
  }
}

// A tensor over a DLPack tensor; release(ctx, ...) lets the producer go.
static int wrap_dl(const tfrpy_dl_tensor *dl, tfr_release_fn release, void *ctx,
                   tfr_tensor **out) {
  tfr_dtype dt;
  if (dl->device.device_type != TFRPY_DL_CPU && dl->device.device_type != TFRPY_DL_CUDA_HOST) {
    release(ctx, NULL);
    PyErr_Format(PyExc_BufferError,
                 "from_dlpack: device type %d is not host memory (tenferro takes kDLCPU "
                 "tensors; copy to the host first)",
                 (int)dl->device.device_type);
    return -1;
  }
  if (dtype_of_dl(dl->dtype, &dt) < 0) {
    release(ctx, NULL);
    PyErr_Format(PyExc_TypeError,
                 "from_dlpack: tenferro has no dtype for DLPack code %d, %d bits, %d lanes",
                 (int)dl->dtype.code, (int)dl->dtype.bits, (int)dl->dtype.lanes);
    return -1;
  }
  if (dl->ndim < 0 || dl->ndim > TFR_MAX_RANK) {
    release(ctx, NULL);
    PyErr_Format(PyExc_ValueError, "from_dlpack: rank %d out of range", (int)dl->ndim);
    return -1;
  }
  char *data = (char *)dl->data + dl->byte_offset;
  // Extents, strides and offsets are checked by the library (wrap + view).
  return tfrpy_wrap_strided(dt, dl->ndim, dl->shape, dl->strides, data, release, ctx, out);
}

int tfrpy_tensor_from_capsule(PyObject *capsule, tfr_tensor **out) {
  *out = NULL;
  if (PyCapsule_IsValid(capsule, CAPSULE_VERSIONED)) {
    tfrpy_dl_managed_versioned *m = PyCapsule_GetPointer(capsule, CAPSULE_VERSIONED);
    if (!m) return -1;
    if (m->version.major != TFRPY_DLPACK_MAJOR) {
      PyErr_Format(PyExc_BufferError, "from_dlpack: DLPack major version %u (tenferro reads 1)",
                   (unsigned)m->version.major);
      return -1;  // not consumed: the capsule's destructor frees it
    }
    if (PyCapsule_SetName(capsule, CAPSULE_VERSIONED_USED) < 0) return -1;
    return wrap_dl(&m->dl_tensor, release_versioned, m, out);
  }
  if (PyCapsule_IsValid(capsule, CAPSULE_LEGACY)) {
    tfrpy_dl_managed *m = PyCapsule_GetPointer(capsule, CAPSULE_LEGACY);
    if (!m) return -1;
    if (PyCapsule_SetName(capsule, CAPSULE_LEGACY_USED) < 0) return -1;
    return wrap_dl(&m->dl_tensor, release_legacy, m, out);
  }
  PyErr_SetString(PyExc_TypeError,
                  "from_dlpack: __dlpack__ returned no unused 'dltensor' or "
                  "'dltensor_versioned' capsule");
  return -1;
}

PyObject *tfrpy_from_dlpack(PyObject *self, PyObject *obj) {
  if (PyObject_TypeCheck(obj, &tfrpy_tensor_type)) return Py_NewRef(obj);
  PyObject *fn = PyObject_GetAttrString(obj, "__dlpack__");
  if (!fn) {
    PyErr_Format(PyExc_TypeError, "from_dlpack: %.100s has no __dlpack__",
                 Py_TYPE(obj)->tp_name);
    return NULL;
  }
  // Ask for the versioned capsule; producers older than DLPack 1.0 (numpy
  // < 2.1) take no max_version: then the legacy one.
  PyObject *args = PyTuple_New(0);
  PyObject *kwargs = args ? Py_BuildValue("{s:(ii)}", "max_version", 1, 0) : NULL;
  PyObject *capsule = kwargs ? PyObject_Call(fn, args, kwargs) : NULL;
  Py_XDECREF(kwargs);
  Py_XDECREF(args);
  if (!capsule && PyErr_ExceptionMatches(PyExc_TypeError)) {
    PyErr_Clear();
    capsule = PyObject_CallNoArgs(fn);
  }
  Py_DECREF(fn);
  if (!capsule) return NULL;
  tfr_tensor *t = NULL;
  int r = tfrpy_tensor_from_capsule(capsule, &t);
  Py_DECREF(capsule);
  if (r < 0) return NULL;
  return tfrpy_tensor_new(t, NULL);
}

// ---------------------------------------------------------------------------
// Export
// ---------------------------------------------------------------------------
// One allocation per export: the managed tensor (one of the two forms), the
// tensor reference it holds and its shape and strides.
typedef struct {
  tfrpy_dl_managed_versioned versioned;
  tfrpy_dl_managed legacy;
  tfr_tensor *tensor;
  int64_t dims[];  // shape[rank], then strides[rank]
} export_ctx;

static void export_free(export_ctx *ctx) {
  tfr_tensor_release(ctx->tensor);
  free(ctx);
}
static void deleter_versioned(tfrpy_dl_managed_versioned *m) { export_free(m->manager_ctx); }
static void deleter_legacy(tfrpy_dl_managed *m) { export_free(m->manager_ctx); }

static void capsule_destructor(PyObject *capsule) {
  // Unconsumed capsules only (a consumer renames what it takes).
  if (PyCapsule_IsValid(capsule, CAPSULE_VERSIONED)) {
    tfrpy_dl_managed_versioned *m = PyCapsule_GetPointer(capsule, CAPSULE_VERSIONED);
    if (m && m->deleter) m->deleter(m);
  } else if (PyCapsule_IsValid(capsule, CAPSULE_LEGACY)) {
    tfrpy_dl_managed *m = PyCapsule_GetPointer(capsule, CAPSULE_LEGACY);
    if (m && m->deleter) m->deleter(m);
  } else {
    PyErr_Clear();
  }
}

static int device_of(const tfrpy_tensor *t, int32_t *type) {
  *type = t->backend ? TFRPY_DL_WEBGPU : TFRPY_DL_CPU;
  return 0;
}

PyObject *tfrpy_tensor_dlpack_device(PyObject *self, PyObject *unused) {
  int32_t type;
  device_of((tfrpy_tensor *)self, &type);
  return Py_BuildValue("(ii)", (int)type, 0);
}

PyObject *tfrpy_tensor_dlpack(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"stream", "max_version", "dl_device", "copy", NULL};
  PyObject *stream = Py_None, *max_version = Py_None, *dl_device = Py_None, *copy = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$OOOO:__dlpack__", kwlist, &stream,
                                   &max_version, &dl_device, &copy))
    return NULL;
  tfrpy_tensor *t = (tfrpy_tensor *)self;
  bool versioned = false;
  if (max_version != Py_None) {
    unsigned major = 0, minor = 0;
    if (!PyArg_ParseTuple(max_version, "II:max_version", &major, &minor)) return NULL;
    versioned = major >= 1;
  }
  if (stream != Py_None && !t->backend && !(PyLong_Check(stream))) {
    PyErr_SetString(PyExc_TypeError, "__dlpack__: stream must be None or an int");
    return NULL;
  }
  int want_copy = copy == Py_None ? -1 : PyObject_IsTrue(copy);
  if (want_copy < 0 && copy != Py_None) return NULL;
  int32_t own_type;
  device_of(t, &own_type);
  int32_t target = -1;  // the device asked for (-1: none, the tensor's own)
  if (dl_device != Py_None) {
    int dev_type = 0, dev_id = 0;
    if (!PyArg_ParseTuple(dl_device, "ii:dl_device", &dev_type, &dev_id)) return NULL;
    // Host memory only: a host tensor's own, or a host copy of a webgpu one.
    if (dev_type != TFRPY_DL_CPU || dev_id != 0) {
      PyErr_Format(PyExc_BufferError,
                   "__dlpack__: cannot export to device (%d, %d): tenferro exports host memory "
                   "only, dl_device=(1, 0)",
                   dev_type, dev_id);
      return NULL;
    }
    target = dev_type;
  }
  // The tensor to export: itself, a host copy, or a download.
  PyObject *src = NULL;
  bool copied = false;
  if (own_type == TFRPY_DL_WEBGPU) {
    // Device memory leaves only as a host copy, and only when asked for:
    // copy=True, or dl_device=(1, 0) (a copy is needed there, which
    // copy=None allows).
    if (want_copy == 0 || (want_copy != 1 && target != TFRPY_DL_CPU)) {
      PyErr_SetString(PyExc_BufferError,
                      want_copy == 0
                          ? "__dlpack__: a webgpu tensor's memory is on the device and "
                            "copy=False forbids a copy; tenferro exports a webgpu tensor only as "
                            "a host copy (copy=True or dl_device=(1, 0))"
                          : "__dlpack__: a webgpu tensor (device type 15, kDLWebGPU) is exported "
                            "only as a host copy, made when asked: __dlpack__(copy=True) or "
                            "__dlpack__(dl_device=(1, 0)) (numpy.from_dlpack(t, device='cpu')), "
                            "or t.download() / t.numpy()");
      return NULL;
    }
    src = PyObject_CallMethod(self, "download", NULL);
    copied = true;
  } else if (want_copy == 1) {
    src = PyObject_CallMethod(self, "copy", NULL);
    copied = true;
  } else {
    src = Py_NewRef(self);
  }
  if (!src) return NULL;
  tfr_tensor *x = ((tfrpy_tensor *)src)->tensor;
  void *data = NULL;
  tfr_status st = tfr_tensor_host_data(x, &data);
  if (st) {
    Py_DECREF(src);
    return tfrpy_raise(st);
  }
  int r = tfr_tensor_rank(x);
  export_ctx *ctx = calloc(1, sizeof(export_ctx) + sizeof(int64_t) * (size_t)(2 * r));
  if (!ctx) {
    Py_DECREF(src);
    return PyErr_NoMemory();
  }
  tfr_tensor_retain(x);
  ctx->tensor = x;
  Py_DECREF(src);
  if (r > 0) {
    memcpy(ctx->dims, tfr_tensor_shape(x), sizeof(int64_t) * (size_t)r);
    memcpy(ctx->dims + r, tfr_tensor_strides(x), sizeof(int64_t) * (size_t)r);
  }
  tfrpy_dl_tensor dl = {data, {TFRPY_DL_CPU, 0}, r, dl_dtype_of(tfr_tensor_dtype(x)),
                        r ? ctx->dims : NULL, r ? ctx->dims + r : NULL, 0};
  PyObject *capsule;
  if (versioned) {
    ctx->versioned.version.major = TFRPY_DLPACK_MAJOR;
    ctx->versioned.version.minor = TFRPY_DLPACK_MINOR;
    ctx->versioned.manager_ctx = ctx;
    ctx->versioned.deleter = deleter_versioned;
    ctx->versioned.flags = copied ? TFRPY_DL_FLAG_IS_COPIED : 0;
    ctx->versioned.dl_tensor = dl;
    capsule = PyCapsule_New(&ctx->versioned, CAPSULE_VERSIONED, capsule_destructor);
  } else {
    ctx->legacy.dl_tensor = dl;
    ctx->legacy.manager_ctx = ctx;
    ctx->legacy.deleter = deleter_legacy;
    capsule = PyCapsule_New(&ctx->legacy, CAPSULE_LEGACY, capsule_destructor);
  }
  if (!capsule) export_free(ctx);
  return capsule;
}
