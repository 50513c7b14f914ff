// python/src/tfrpy.h: shared declarations of the `tenferro` Python module.
//
// Files: module.c (module init, backends, sessions), errors.c (exceptions
// from tfr_status), dlpack.h/dlpack.c (DLPack structs, capsules in and out),
// tensor.c (tenferro.Tensor, operands from Python objects), einsum.c (einsum,
// contract_path, contract_expression), pathinfo.c (opt_einsum's PathInfo),
// ops.c (tenferro.ops).
//
// Threads: every library call that computes runs with the GIL released
// (Py_BEGIN_ALLOW_THREADS), inside a session on the calling thread: the
// thread's open tenferro.Session when it has one, else a session opened and
// ended around the call (tfrpy_call_begin / tfrpy_call_end).
#ifndef TENFERRO_PYTHON_TFRPY_H_
#define TENFERRO_PYTHON_TFRPY_H_

#include <Python.h>
#include <stdbool.h>
#include <stdint.h>

#include "tenferro/tenferro.h"

// ---- errors.c ----
// Adds tenferro.Error and its subclasses to `module`. Returns 0, or -1 with
// an exception set.
int tfrpy_errors_init(PyObject *module);
// Raises the exception class of `st` with the library's message of the
// calling thread's last failure; returns NULL (for `return tfrpy_raise(st);`).
PyObject *tfrpy_raise(tfr_status st);
// tenferro.Error (borrowed).
PyObject *tfrpy_error_class(void);

// ---- module.c: backends and sessions ----
typedef struct {
  PyObject_HEAD
  tfr_backend *backend;  // owned reference
} tfrpy_backend;
extern PyTypeObject tfrpy_backend_type;
extern PyTypeObject tfrpy_session_type;

// The backend an operation runs on: `spec` None (the thread's open session's
// backend, else the thread's `with Backend` one, else the default cpu
// backend), "cpu", "webgpu" or a tenferro.Backend. Returns a borrowed
// reference, or NULL with an exception set.
tfrpy_backend *tfrpy_backend_resolve(PyObject *spec);

// A session for one call. Begun and ended with the GIL released.
typedef struct {
  tfr_session *session;
  bool owned;  // opened for this call (ended by tfrpy_call_end)
} tfrpy_call;
// Uses the thread's open session when it is on `backend`, else opens one
// (waiting while another thread holds the cpu backend). Call with the GIL
// released. A thread session on another backend: TFR_ERR_WRONG_BACKEND.
tfr_status tfrpy_call_begin(tfr_backend *backend, tfrpy_call *call);
// Ends a session the call opened; keeps the first failure in *st.
void tfrpy_call_end(tfrpy_call *call, tfr_status *st);

// Uploads the host tensors among t[0..n) to the session's backend when it is
// a device backend (nothing on the cpu backend), replacing each reference
// in t by the uploaded tensor's. Call with the GIL released.
tfr_status tfrpy_upload_operands(tfr_session *session, tfr_tensor **t, int n);

// One computation on `backend` in the thread's session (or one of its own):
// body(session, in, attrs, out) with the GIL released, after the host
// tensors among in[0..n_upload) were uploaded to a device backend
// (tfrpy_upload_operands: the caller's references in `in` are replaced). The
// caller holds the GIL; on failure raises the library's error and returns
// NULL, else the result tensor (a new reference).
typedef tfr_status (*tfrpy_body)(tfr_session *session, tfr_tensor *const *in,
                                 const void *attrs, tfr_tensor **out);
tfr_tensor *tfrpy_run(tfr_backend *backend, tfrpy_body body, tfr_tensor **in, int n_upload,
                      const void *attrs);

// ---- tensor.c ----
typedef struct {
  PyObject_HEAD
  tfr_tensor *tensor;   // owned reference
  PyObject *backend;    // tfrpy_backend of a device tensor; NULL for host tensors
  PyObject *weakrefs;
} tfrpy_tensor;
extern PyTypeObject tfrpy_tensor_type;

// Wraps host memory, element (0,..,0) at `data`, strides in elements of any
// sign (NULL: compact), as a host tensor without copying. release(ctx, base)
// runs when the last reference goes, or at once when this fails or the tensor
// is empty. Returns 0, or -1 with an exception set.
int tfrpy_wrap_strided(tfr_dtype dt, int rank, const int64_t *shape, const int64_t *strides,
                       char *data, tfr_release_fn release, void *ctx, tfr_tensor **out);
// Wraps `t` (steals the reference) in a new tenferro.Tensor; `backend` (a
// tfrpy_backend or NULL for host) is retained. On failure releases `t`.
PyObject *tfrpy_tensor_new(tfr_tensor *t, PyObject *backend);

// A library tensor for a Python operand, without copying host memory:
// a tenferro.Tensor (a new reference to its tensor), an object with the
// buffer protocol (numpy arrays: strides of any sign; JAX's CPU arrays), an
// object with __dlpack__ (PyTorch, JAX; CPU memory; also one whose buffer
// was refused, unless it is a numpy array), else numpy.asarray(obj) (Python
// scalars and lists, a copy). The wrapped tensor keeps the producer alive.
// Returns 0 and a new reference in *out, or -1 with an exception set.
int tfrpy_operand(PyObject *obj, tfr_tensor **out);
// As tfrpy_operand; `writable` asks for a writable buffer (an `out` array)
// and refuses objects that only have DLPack or need numpy.asarray.
int tfrpy_operand_ex(PyObject *obj, bool writable, tfr_tensor **out);
// Whether `obj` is a numpy.ndarray (exact type) or a numpy scalar, without
// importing numpy.
bool tfrpy_is_ndarray(PyObject *obj);
// numpy.asarray(tensor): a zero-copy numpy view of a host Tensor.
PyObject *tfrpy_to_numpy(PyObject *tensor);
// The module's numpy (imported on first use); borrowed; NULL with an
// exception when numpy is missing.
PyObject *tfrpy_numpy(void);
// The dtype of `name` (a str, a numpy dtype or type, or anything with a
// `name` attribute), in *out; -1 with an exception set.
int tfrpy_dtype_from_object(PyObject *obj, tfr_dtype *out);

// ---- numpy_fast.c ----
// A tensor over a numpy.ndarray through numpy's C API: 0 (done), -1 (an
// exception) or 1 (not handled here: use the buffer protocol).
int tfrpy_numpy_operand(PyObject *obj, bool writable, tfr_tensor **out);
// A numpy array sharing a host Tensor's memory (its base is the Tensor);
// numpy.asarray(tensor) when the C API is not usable.
PyObject *tfrpy_numpy_wrap(PyObject *tensor);
// As tfrpy_numpy_wrap, but a numpy scalar for a rank-0 tensor: the result of
// einsum or an op on numpy operands, as numpy returns them. A bf16 tensor
// (no numpy dtype) is returned itself.
PyObject *tfrpy_numpy_result(PyObject *tensor);

// A view of the numpy.ndarray `obj` (exact type) through numpy's C API, for
// einsum's one-operand rearrangements (einsum.c; axis_out as
// tfr_einsum_plan_view_axes gives it): output axis j of rank `out_rank` takes
// the extent of the operand's axes k with axis_out[k] == j and the sum of
// their strides (a transpose; a diagonal where several axes map to j; an axis
// with axis_out[k] == -1 is left out). Writeable when `obj` is; its base is `obj` (numpy collapses the
// chain to the array owning the memory, as numpy.einsum's views). A rank-0
// result is a numpy scalar, as numpy.einsum returns. 0 (done), -1 (an
// exception) or 1 (not handled here: no C API, not an exact ndarray, strides
// past int64).
int tfrpy_numpy_view(PyObject *obj, int out_rank, const int32_t *axis_out, PyObject **out);

// ---- dlpack.c ----
// tenferro.from_dlpack(x): a Tensor sharing the memory of a DLPack producer.
PyObject *tfrpy_from_dlpack(PyObject *self, PyObject *obj);
// Wraps a DLPack capsule (versioned or legacy; consumed) as a library tensor.
int tfrpy_tensor_from_capsule(PyObject *capsule, tfr_tensor **out);
// Tensor.__dlpack__ and Tensor.__dlpack_device__.
PyObject *tfrpy_tensor_dlpack(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *tfrpy_tensor_dlpack_device(PyObject *self, PyObject *unused);

// ---- einsum.c / pathinfo.c ----
int tfrpy_einsum_init(PyObject *module);
PyObject *tfrpy_einsum(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *tfrpy_contract_path(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *tfrpy_contract_expression(PyObject *self, PyObject *args, PyObject *kwargs);
// The PathInfo of a plan made for `eq` over `shapes` (a list of tuples).
PyObject *tfrpy_path_info_new(PyObject *eq, PyObject *shapes, const int32_t *path,
                              int num_steps);
int tfrpy_pathinfo_init(PyObject *module);

// ---- ops.c ----
// Adds the submodule tenferro.ops. Returns 0, or -1 with an exception set.
int tfrpy_ops_init(PyObject *module);

#endif  // TENFERRO_PYTHON_TFRPY_H_
