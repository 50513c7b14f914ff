// python/src/numpy_fast.c: numpy arrays in and out through numpy's C API,
// when the module was built with numpy's headers (TFRPY_HAVE_NUMPY_CAPI) and
// the running numpy accepts them: the fast path of einsum and ops on tiny
// operands (no buffer-protocol export, no Python call to make the result
// array). Without it, or when numpy's import fails (another ABI), everything
// goes through the buffer protocol (tensor.c) with the same results.
#include "tfrpy.h"

// bf16 results stay Tensors: numpy has no bfloat16.
static bool numpy_has_dtype(PyObject *tensor) {
  return tfr_dtype_get_info(tfr_tensor_dtype(((tfrpy_tensor *)tensor)->tensor))->descr != NULL;
}

#ifdef TFRPY_HAVE_NUMPY_CAPI
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL tfrpy_numpy_api
#include <numpy/arrayobject.h>

static int capi_state;  // 0: not tried, 1: usable, -1: unusable

static bool capi_ready(void) {
  if (capi_state == 0) {
    // Only once numpy is imported by someone: never import it for this.
    PyObject *mods = PyImport_GetModuleDict();
    if (!PyDict_GetItemString(mods, "numpy")) return false;
    capi_state = _import_array() < 0 ? -1 : 1;
    if (capi_state < 0) PyErr_Clear();
  }
  return capi_state > 0;
}

// The dtype of numpy's type number `typenum` of `itemsize` bytes.
static int dtype_of_typenum(int typenum, int itemsize, tfr_dtype *out) {
  switch (typenum) {
    case NPY_BOOL: *out = TFR_BOOL; return 0;
    case NPY_BYTE: *out = TFR_I8; return 0;
    case NPY_UBYTE: *out = TFR_U8; return 0;
    case NPY_SHORT: *out = TFR_I16; return 0;
    case NPY_USHORT: *out = TFR_U16; return 0;
    case NPY_HALF: *out = TFR_F16; return 0;
    case NPY_FLOAT: *out = TFR_F32; return 0;
    case NPY_DOUBLE: *out = TFR_F64; return 0;
    case NPY_CFLOAT: *out = TFR_C64; return 0;
    case NPY_CDOUBLE: *out = TFR_C128; return 0;
    default: break;
  }
  // The integer type numbers alias by size (long vs long long, int vs long).
  if (PyTypeNum_ISSIGNED(typenum) || PyTypeNum_ISUNSIGNED(typenum)) {
    bool is_signed = PyTypeNum_ISSIGNED(typenum);
    if (itemsize == 4) *out = is_signed ? TFR_I32 : TFR_U32;
    else if (itemsize == 8) *out = is_signed ? TFR_I64 : TFR_U64;
    else return -1;
    return 0;
  }
  return -1;
}

static void release_array(void *ctx, void *data) {
  if (!Py_IsInitialized()) return;
  PyGILState_STATE g = PyGILState_Ensure();
  Py_DECREF((PyObject *)ctx);
  PyGILState_Release(g);
}

int tfrpy_numpy_operand(PyObject *obj, bool writable, tfr_tensor **out) {
  if (!capi_ready() || !PyArray_CheckExact(obj)) return 1;
  PyArrayObject *arr = (PyArrayObject *)obj;
  tfr_dtype dt;
  int nd = PyArray_NDIM(arr);
  if (!PyArray_ISNOTSWAPPED(arr) ||
      dtype_of_typenum(PyArray_TYPE(arr), (int)PyArray_ITEMSIZE(arr), &dt) < 0 ||
      nd > TFR_MAX_RANK || (writable && !PyArray_ISWRITEABLE(arr)))
    return 1;  // the buffer path says what is wrong
  npy_intp esize = PyArray_ITEMSIZE(arr);
  int64_t shape[TFR_MAX_RANK], strides[TFR_MAX_RANK];
  for (int k = 0; k < nd; ++k) {
    npy_intp s = PyArray_STRIDES(arr)[k];
    if (s % esize != 0) return 1;
    shape[k] = PyArray_DIMS(arr)[k];
    strides[k] = s / esize;
  }
  Py_INCREF(obj);  // released by release_array when the last tensor goes
  return tfrpy_wrap_strided(dt, nd, shape, strides, PyArray_BYTES(arr), release_array, obj,
                            out);
}

PyObject *tfrpy_numpy_result(PyObject *tensor) {
  if (!numpy_has_dtype(tensor)) return Py_NewRef(tensor);
  PyObject *arr = tfrpy_numpy_wrap(tensor);
  if (!arr || !PyArray_Check(arr) || PyArray_NDIM((PyArrayObject *)arr) != 0) return arr;
  return PyArray_Return((PyArrayObject *)arr);  // a numpy scalar, as numpy.einsum gives
}

PyObject *tfrpy_numpy_wrap(PyObject *tensor) {
  if (!capi_ready()) return tfrpy_to_numpy(tensor);
  tfr_tensor *t = ((tfrpy_tensor *)tensor)->tensor;
  const tfr_dtype_info *info = tfr_dtype_get_info(tfr_tensor_dtype(t));
  void *data = NULL;
  if (!info->descr || tfr_tensor_host_data(t, &data)) return tfrpy_to_numpy(tensor);
  // numpy's descriptor of each dtype, made once from the library's typestr.
  static PyArray_Descr *descrs[TFR_DTYPE_COUNT];
  tfr_dtype dt = tfr_tensor_dtype(t);
  if (!descrs[dt]) {
    PyObject *descr_str = PyUnicode_FromString(info->descr);
    PyArray_Descr *made = NULL;
    int ok = descr_str && PyArray_DescrConverter(descr_str, &made);
    Py_XDECREF(descr_str);
    if (!ok) return NULL;
    descrs[dt] = made;  // kept for the module's lifetime
  }
  PyArray_Descr *descr = descrs[dt];
  Py_INCREF(descr);
  int nd = tfr_tensor_rank(t);
  npy_intp dims[TFR_MAX_RANK], strides[TFR_MAX_RANK];
  for (int k = 0; k < nd; ++k) {
    dims[k] = (npy_intp)tfr_tensor_shape(t)[k];
    strides[k] = (npy_intp)(tfr_tensor_strides(t)[k] * (int64_t)info->size);
  }
  // Steals the descr reference. Compact results (every einsum and op
  // result) leave the strides to numpy, which then knows the flags without
  // reading them.
  PyObject *arr = PyArray_NewFromDescr(&PyArray_Type, descr, nd, dims,
                                       tfr_tensor_is_contiguous(t) ? NULL : strides, data,
                                       NPY_ARRAY_WRITEABLE, NULL);
  if (!arr) return NULL;
  if (PyArray_SetBaseObject((PyArrayObject *)arr, Py_NewRef(tensor)) < 0) {
    Py_DECREF(arr);
    return NULL;
  }
  return arr;
}

int tfrpy_numpy_view(PyObject *obj, int out_rank, const int32_t *axis_out, PyObject **out) {
  if (!capi_ready() || !PyArray_CheckExact(obj)) return 1;
  PyArrayObject *arr = (PyArrayObject *)obj;
  int nd = PyArray_NDIM(arr);
  npy_intp dims[TFR_MAX_RANK], strides[TFR_MAX_RANK];
  for (int j = 0; j < out_rank; ++j) strides[j] = 0;
  for (int k = 0; k < nd; ++k) {
    int j = axis_out[k];
    if (j < 0) continue;  // a broadcast axis of extent 1: steps along nothing
    npy_intp s = PyArray_STRIDES(arr)[k];
    // Summed strides of a diagonal could pass npy_intp only on an empty
    // array (numpy's strides of one are not bounded by memory): copy then.
    if ((s > 0 && strides[j] > NPY_MAX_INTP - s) || (s < 0 && strides[j] < NPY_MIN_INTP - s))
      return 1;
    dims[j] = PyArray_DIMS(arr)[k];
    strides[j] += s;
  }
  PyArray_Descr *descr = PyArray_DESCR(arr);
  Py_INCREF(descr);  // stolen by PyArray_NewFromDescr
  PyObject *view = PyArray_NewFromDescr(&PyArray_Type, descr, out_rank, dims, strides,
                                        PyArray_DATA(arr),
                                        PyArray_ISWRITEABLE(arr) ? NPY_ARRAY_WRITEABLE : 0, NULL);
  if (!view) return -1;
  if (PyArray_SetBaseObject((PyArrayObject *)view, Py_NewRef(obj)) < 0) {
    Py_DECREF(view);
    return -1;
  }
  *out = out_rank ? view : PyArray_Return((PyArrayObject *)view);
  return *out ? 0 : -1;
}

#else  // no numpy headers at build time

int tfrpy_numpy_operand(PyObject *obj, bool writable, tfr_tensor **out) { return 1; }
int tfrpy_numpy_view(PyObject *obj, int out_rank, const int32_t *axis_out, PyObject **out) {
  return 1;
}
PyObject *tfrpy_numpy_wrap(PyObject *tensor) { return tfrpy_to_numpy(tensor); }

PyObject *tfrpy_numpy_result(PyObject *tensor) {
  if (!numpy_has_dtype(tensor)) return Py_NewRef(tensor);
  PyObject *arr = tfrpy_to_numpy(tensor);
  if (!arr || tfr_tensor_rank(((tfrpy_tensor *)tensor)->tensor) != 0) return arr;
  PyObject *empty = PyTuple_New(0);
  PyObject *scalar = empty ? PyObject_GetItem(arr, empty) : NULL;  // arr[()]
  Py_XDECREF(empty);
  Py_DECREF(arr);
  return scalar;
}

#endif
