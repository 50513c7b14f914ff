// python/src/errors.c: the exception classes of tenferro and raising them
// from a tfr_status with the library's message.
#include "tfrpy.h"

// One class per status code, tenferro.Error the base of all of them.
// Each also derives from the builtin exception a Python user expects.
typedef struct {
  tfr_status status;
  const char *name;     // attribute name in the module
  const char *doc;
  PyObject **builtin;   // second base (NULL: RuntimeError only through Error)
} tfrpy_error_row;

static PyObject *error_base;                      // tenferro.Error
static PyObject *error_classes[TFR_ERR_INTERNAL + 1];

static const tfrpy_error_row rows[] = {
    {TFR_ERR_INVALID_ARGUMENT, "InvalidArgumentError",
     "An argument is wrong (a shape, axis, extent, subscript string or attribute).",
     &PyExc_ValueError},
    {TFR_ERR_UNSUPPORTED_DTYPE, "UnsupportedDtypeError",
     "The op is not defined for this dtype, or the backend does not store it.",
     &PyExc_TypeError},
    {TFR_ERR_WRONG_BACKEND, "WrongBackendError",
     "A tensor lives on another backend than the session's (move it with upload/download).",
     &PyExc_ValueError},
    {TFR_ERR_OUT_OF_MEMORY, "OutOfMemoryError", "A host or device allocation failed.",
     &PyExc_MemoryError},
    {TFR_ERR_SESSION_REENTERED, "SessionReenteredError",
     "This thread already has an active session.", NULL},
    {TFR_ERR_SESSION_CONTENDED, "SessionContendedError",
     "Another thread holds a session on the backend.", NULL},
    {TFR_ERR_NO_SESSION, "NoSessionError", "The session is not active on this thread.", NULL},
    {TFR_ERR_NOT_VIEWABLE, "NotViewableError",
     "The tensor's strides cannot express the view; copy it first.", &PyExc_ValueError},
    {TFR_ERR_IO, "IOError", "A file could not be read or written.", &PyExc_OSError},
    {TFR_ERR_FORMAT, "FormatError", "A file or buffer is malformed.", &PyExc_ValueError},
    {TFR_ERR_BACKEND_UNAVAILABLE, "BackendUnavailableError",
     "The backend cannot be created here (provider library or adapter missing).", NULL},
    {TFR_ERR_DEVICE_LOST, "DeviceLostError", "The device was lost.", NULL},
    {TFR_ERR_INTERNAL, "InternalError", "A bug in tenferro; please report it.", NULL},
};

PyObject *tfrpy_error_class(void) { return error_base; }

int tfrpy_errors_init(PyObject *module) {
  error_base = PyErr_NewExceptionWithDoc(
      "tenferro.Error",
      "Base class of every error the tenferro library reports. `status` is the\n"
      "library's status name (\"TFR_ERR_INVALID_ARGUMENT\"), the message the\n"
      "library's own (tfr_last_error_message).",
      PyExc_RuntimeError, NULL);
  if (!error_base || PyModule_AddObjectRef(module, "Error", error_base) < 0) return -1;
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; ++i) {
    char qualified[96];
    snprintf(qualified, sizeof qualified, "tenferro.%s", rows[i].name);
    PyObject *bases = rows[i].builtin ? PyTuple_Pack(2, error_base, *rows[i].builtin)
                                      : PyTuple_Pack(1, error_base);
    if (!bases) return -1;
    PyObject *cls = PyErr_NewExceptionWithDoc(qualified, rows[i].doc, bases, NULL);
    Py_DECREF(bases);
    if (!cls) return -1;
    error_classes[rows[i].status] = cls;
    if (PyModule_AddObjectRef(module, rows[i].name, cls) < 0) return -1;
  }
  return 0;
}

PyObject *tfrpy_raise(tfr_status st) {
  PyObject *cls = (st > TFR_OK && st <= TFR_ERR_INTERNAL) ? error_classes[st] : NULL;
  if (!cls) cls = error_base;
  const char *msg = tfr_last_error_message();
  PyObject *exc = PyObject_CallFunction(cls, "s", (msg && *msg) ? msg : tfr_status_string(st));
  if (!exc) return NULL;
  PyObject *name = PyUnicode_FromString(tfr_status_string(st));
  if (name) {
    (void)PyObject_SetAttrString(exc, "status", name);
    Py_DECREF(name);
  }
  PyErr_SetObject(cls, exc);
  Py_DECREF(exc);
  return NULL;
}
