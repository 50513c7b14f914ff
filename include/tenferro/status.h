// tenferro/status.h: status codes, error messages, export macros.
//
// Every public function that can fail returns a `tfr_status`; TFR_OK is 0, so
// `if (st) ...` tests for failure. On failure a message is stored per thread
// and can be read with tfr_last_error_message(). The message names the op, the
// backend and dtype where they matter, and the offending value, e.g.
//   "dot_general: lhs contracting dim 1 has extent 3, rhs contracting dim 0 has extent 4"
//
// Policy (applies to every function of the library):
//   * Invalid input is reported before any output is written; on error every
//     `out` pointer argument is set to NULL (or left untouched where the
//     function documents so) and nothing is leaked.
//   * Nothing aborts the process on bad input.
//   * Filling a `tfr_X **out` hands one reference to the caller, who releases
//     it with the matching `tfr_X_release`. Pointer arguments are borrowed:
//     the callee retains what it keeps.
#ifndef TENFERRO_STATUS_H_
#define TENFERRO_STATUS_H_

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define TFR_API __declspec(dllexport)
#elif defined(__GNUC__)
#define TFR_API __attribute__((visibility("default")))
#else
#define TFR_API
#endif

#if defined(__GNUC__)
#define TFR_NODISCARD __attribute__((warn_unused_result))
#define TFR_PRINTF(fmt_index, first_arg) __attribute__((format(printf, fmt_index, first_arg)))
#else
#define TFR_NODISCARD
#define TFR_PRINTF(fmt_index, first_arg)
#endif

// Status codes. Each says what the caller can do about the failure.
typedef enum tfr_status {
  // Success.
  TFR_OK = 0,
  // An argument is wrong: NULL where a value is needed, a shape, axis,
  // extent or attribute that the op's specification does not allow. Fix the
  // arguments.
  TFR_ERR_INVALID_ARGUMENT = 1,
  // The op is defined, but not for this dtype (e.g. `and` on f32, `abs` on
  // bool), or this backend does not store this dtype. Convert the operand.
  TFR_ERR_UNSUPPORTED_DTYPE = 2,
  // A tensor lives on another backend instance than the session's, or is a
  // host tensor in a device session. Move it with tfr_upload/tfr_download.
  TFR_ERR_WRONG_BACKEND = 3,
  // A host or device allocation failed.
  TFR_ERR_OUT_OF_MEMORY = 4,
  // A session was entered on a thread that already has an active session.
  // Nothing ran. End the active session first.
  TFR_ERR_SESSION_REENTERED = 5,
  // Another thread holds a session on the backend and the backend does not
  // wait (documented per backend). Try again later.
  TFR_ERR_SESSION_CONTENDED = 6,
  // The session is not active on the calling thread (already ended, or
  // begun by another thread).
  TFR_ERR_NO_SESSION = 7,
  // A view was asked for that the tensor's strides cannot express (e.g. a
  // reshape of a non-contiguous view). Copy it first (tfr_copy).
  TFR_ERR_NOT_VIEWABLE = 8,
  // A file could not be opened, read or written (the message has errno's text).
  TFR_ERR_IO = 9,
  // A file or buffer is malformed: a broken .npy header, truncated or
  // trailing data, a bool byte other than 0/1. (A well-formed file of a dtype
  // tenferro lacks is TFR_ERR_UNSUPPORTED_DTYPE.)
  TFR_ERR_FORMAT = 10,
  // The backend cannot be created here: its provider library or a usable
  // adapter is missing. The message says what was looked for.
  TFR_ERR_BACKEND_UNAVAILABLE = 11,
  // The device was lost; every later call on the backend fails with this.
  TFR_ERR_DEVICE_LOST = 12,
  // A bug in tenferro or in a provider (a broken invariant). Please report.
  TFR_ERR_INTERNAL = 13,
} tfr_status;

// Returns the enum name of `status` ("TFR_ERR_INVALID_ARGUMENT"), or
// "TFR_ERR_UNKNOWN" for a value outside the enum. Static storage; never NULL.
TFR_API const char *tfr_status_string(tfr_status status);

// Returns the message of the most recent failure on the calling thread, or ""
// when no call on this thread has failed yet. Owned by the library; valid until
// the next failing call on this thread. Successful calls do not clear it.
TFR_API const char *tfr_last_error_message(void);

// Returns the library version, "MAJOR.MINOR.PATCH". Static storage.
TFR_API const char *tfr_version_string(void);

#ifdef __cplusplus
}
#endif

#endif  // TENFERRO_STATUS_H_
