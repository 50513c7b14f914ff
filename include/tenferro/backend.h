// tenferro/backend.h: backends, sessions and moving tensors between them.
//
// A backend object owns long-lived resources (cpu: a thread count and a
// buffer pool; webgpu: device, queue, pipeline cache). Every op runs inside a
// session opened on a backend, on one thread:
//
//   tfr_backend *cpu;  tfr_session *s;  tfr_tensor *y;
//   if (tfr_backend_create_cpu(NULL, &cpu)) { /* tfr_last_error_message() */ }
//   if (tfr_session_begin(cpu, &s) == TFR_OK) {
//     if (tfr_exp(s, x, &y) == TFR_OK) { ...; tfr_tensor_release(y); }
//     (void)tfr_session_end(s);
//   }
//   tfr_backend_release(cpu);
//
// Rules:
//   * A thread has at most one active session at a time, whatever the backend.
//     Entering a second one fails with TFR_ERR_SESSION_REENTERED before
//     anything runs. (This makes lock-order deadlocks between backends
//     impossible.)
//   * A backend runs one session at a time. On the cpu backend another thread
//     entering a session waits until the active one ends.
//   * Placement is explicit: a device backend's ops take only tensors of that
//     backend instance (host tensors fail with TFR_ERR_WRONG_BACKEND, naming
//     tfr_upload); the cpu backend takes host tensors. Nothing moves implicitly.
#ifndef TENFERRO_BACKEND_H_
#define TENFERRO_BACKEND_H_

#include <stddef.h>

#include "tenferro/status.h"
#include "tenferro/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tfr_backend tfr_backend;
typedef struct tfr_session tfr_session;

typedef enum tfr_backend_kind {
  TFR_BACKEND_CPU = 1,
  TFR_BACKEND_WEBGPU = 2,
} tfr_backend_kind;

// The most threads a cpu backend takes.
#define TFR_CPU_MAX_THREADS 1024

// Options of the cpu backend. Zero-initialise, then set what you need; a
// NULL pointer means all defaults.
typedef struct tfr_cpu_options {
  // Threads for parallel kernels, 0 .. TFR_CPU_MAX_THREADS; 0 = OpenMP's
  // default (OMP_NUM_THREADS or the number of cores). 1 runs everything on the
  // calling thread.
  int num_threads;
  // Bytes of freed tensor buffers kept for reuse; 0 = the default; SIZE_MAX =
  // unlimited. Buffers over the cap are freed at once. Buffers under 4 MiB
  // are kept by size class (up to 256 MiB by default) and reused by requests
  // of their class; larger ones are reused by any request of at least half
  // their size (a fresh buffer's pages cost the kernel's zeroing on first
  // touch), and by default kept only while what is kept plus the large
  // buffers in use stays within the most the backend's large buffers took
  // at once so far: pooling never raises the memory peak of a workload
  // above what it needed without a pool. All kept buffers are freed with
  // the backend.
  size_t pool_cap_bytes;
  // When nonzero, no buffer pool: every buffer is freed when released.
  int disable_pool;
} tfr_cpu_options;

// The value of OPENBLAS_CORETYPE this process should have had when OpenBLAS
// loaded, or NULL when OpenBLAS's own choice of kernels is right. OpenBLAS
// (Debian 12's 0.3.21) picks its kernels by CPU model and falls back to its
// generic SSE3 ones ("Prescott") on a model it does not know, e.g. a
// 2024 Xeon, where its GEMMs run 5-6 times slower. Returns "Cooperlake",
// "SkylakeX" or "Haswell" (the newest kernel set the CPU's AVX-512 or
// AVX2 + FMA support allows) when the loaded OpenBLAS runs kernels older
// than AVX2 on a CPU that has it; NULL otherwise (also off x86-64). OpenBLAS
// reads OPENBLAS_CORETYPE only while it loads: a program acts on the advice
// by setting it and re-executing itself (the `tenferro` tool does), or by
// setting it before it loads OpenBLAS. The string is static (never freed).
// Thread-safe; no session needed; no error cases.
TFR_API const char *tfr_cpu_blas_coretype_advice(void);

// What tfr_session_native returns for a cpu session.
typedef struct tfr_cpu_native {
  int num_threads;  // threads the session's parallel kernels use
} tfr_cpu_native;

// Creates a cpu backend.
//   Threads: the backend's kernels, GEMMs included, run on its own OpenMP
//   threads (num_threads); OpenBLAS is called single-threaded. Creating a
//   cpu backend therefore sets OpenBLAS's process-wide thread count to 1
//   (openblas_set_num_threads), so that its threads never spin next to ours
//   on the same cores; a caller that uses OpenBLAS directly in the same
//   process and wants it threaded sets its count again afterwards (our
//   GEMMs still run single-threaded inside OpenBLAS then).
//   options  NULL for defaults; see tfr_cpu_options.
//   out      receives the backend; release with tfr_backend_release.
// Errors: TFR_ERR_INVALID_ARGUMENT (NULL out, num_threads outside
//         [0, TFR_CPU_MAX_THREADS]),
//         TFR_ERR_OUT_OF_MEMORY.
TFR_API TFR_NODISCARD tfr_status tfr_backend_create_cpu(const tfr_cpu_options *options,
                                                        tfr_backend **out);

// Adds a reference to `backend`. NULL is ignored.
TFR_API void tfr_backend_retain(tfr_backend *backend);

// Drops a reference. The backend is destroyed when the last reference goes,
// which includes the references its tensors' storages hold: a backend outlives
// every tensor it allocated. Releasing while one of its sessions is active is a
// programming error (the session keeps a reference, so nothing is freed). NULL
// is ignored.
TFR_API void tfr_backend_release(tfr_backend *backend);

// The kind of `backend` (not NULL).
TFR_API tfr_backend_kind tfr_backend_get_kind(const tfr_backend *backend);

// A short name: "cpu" or "webgpu". Static storage.
TFR_API const char *tfr_backend_name(const tfr_backend *backend);

// Opens a session on `backend` for the calling thread.
//   out  receives the session; end it with tfr_session_end on this thread.
// Errors: TFR_ERR_INVALID_ARGUMENT (NULL argument),
//         TFR_ERR_SESSION_REENTERED (this thread has an active session; nothing
//         was changed), TFR_ERR_DEVICE_LOST, TFR_ERR_OUT_OF_MEMORY.
// The cpu backend waits while another thread holds a session on it.
TFR_API TFR_NODISCARD tfr_status tfr_session_begin(tfr_backend *backend, tfr_session **out);

// Ends `session`: waits for the backend's queued work, then frees the session.
// The session pointer is invalid afterwards.
// Errors: TFR_ERR_INVALID_ARGUMENT (NULL), TFR_ERR_NO_SESSION (not the active
//         session of the calling thread), TFR_ERR_DEVICE_LOST (the session is
//         still ended).
TFR_API TFR_NODISCARD tfr_status tfr_session_end(tfr_session *session);

// Body of tfr_with_session; its status is returned by tfr_with_session.
typedef tfr_status (*tfr_session_fn)(tfr_session *session, void *ctx);

// Begins a session, calls fn(session, ctx), ends the session.
// Returns fn's status if it failed, else the status of ending the session.
// Errors: those of tfr_session_begin (fn is not called), of fn, and of
//         tfr_session_end; TFR_ERR_INVALID_ARGUMENT for NULL backend or fn.
TFR_API TFR_NODISCARD tfr_status tfr_with_session(tfr_backend *backend, tfr_session_fn fn,
                                                  void *ctx);

// The backend of an active session (borrowed), or NULL when `session` is not
// the active session of the calling thread.
TFR_API tfr_backend *tfr_session_backend(const tfr_session *session);

// Waits until the backend has finished every op issued in this session so
// far. Ops on a device backend only record work (webgpu: commands go to the
// queue in batches); this submits what is recorded and blocks until the
// device is idle, e.g. to time device work or before reading device memory
// through native handles. On the cpu backend ops are complete when they
// return, so this returns at once.
// Errors: TFR_ERR_INVALID_ARGUMENT (NULL), TFR_ERR_NO_SESSION (not the active
//         session of the calling thread), TFR_ERR_DEVICE_LOST.
TFR_API TFR_NODISCARD tfr_status tfr_session_synchronize(tfr_session *session);

// Returns the native handles of the session's backend, for interop.
//   kind        the backend kind the caller expects; must match.
//   out_handle  receives a pointer to a `tfr_cpu_native` (cpu) or
//               `tfr_webgpu_native` (webgpu), owned by the session and valid
//               until it ends.
// Errors: TFR_ERR_INVALID_ARGUMENT (NULL argument, `kind` is not the
//         backend's kind), TFR_ERR_NO_SESSION.
TFR_API TFR_NODISCARD tfr_status tfr_session_native(tfr_session *session, tfr_backend_kind kind,
                                                    void **out_handle);

// Copies a host tensor to the session's backend.
//   host  a host tensor, any dtype, any strides.
//   out   a compact tensor on the session's backend. On the cpu backend host
//         memory is the backend's memory: `out` is a new reference to `host`
//         itself (no copy).
// Errors: TFR_ERR_INVALID_ARGUMENT (NULL argument), TFR_ERR_NO_SESSION,
//         TFR_ERR_WRONG_BACKEND (`host` is a device tensor),
//         TFR_ERR_OUT_OF_MEMORY, TFR_ERR_DEVICE_LOST.
TFR_API TFR_NODISCARD tfr_status tfr_upload(tfr_session *session, const tfr_tensor *host,
                                            tfr_tensor **out);

// Copies a tensor of the session's backend to a compact host tensor, waiting
// for the work that produces it.
//   t    a tensor of the session's backend (on cpu: any host tensor).
//   out  a host tensor. On the cpu backend `out` is a new reference to `t`.
// Errors: TFR_ERR_INVALID_ARGUMENT (NULL argument), TFR_ERR_NO_SESSION,
//         TFR_ERR_WRONG_BACKEND (`t` belongs to another backend instance),
//         TFR_ERR_OUT_OF_MEMORY, TFR_ERR_DEVICE_LOST.
TFR_API TFR_NODISCARD tfr_status tfr_download(tfr_session *session, const tfr_tensor *t,
                                              tfr_tensor **out);

// Which backends this build of the library contains ("cpu", "cpu webgpu").
// Static storage.
TFR_API const char *tfr_backends_compiled(void);

#ifdef __cplusplus
}
#endif

#endif  // TENFERRO_BACKEND_H_
