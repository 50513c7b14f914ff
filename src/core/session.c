// Sessions: begin/end, the thread's active session, native handles and the
// placement check every op runs (tensor on the session's backend).
#include "core/backend_impl.h"
#include "core/core.h"
#include "core/live.h"
#include "tenferro/backend.h"

// The calling thread's active session (at most one, whatever the backend).
static _Thread_local tfr_session *tfr_tls_session;

tfr_session *tfr_session_current(void) { return tfr_tls_session; }

tfr_session *tfr_session_adopt(tfr_session *session) {
  tfr_session *previous = tfr_tls_session;
  tfr_tls_session = session;
  return previous;
}

tfr_status tfr_session_begin(tfr_backend *backend, tfr_session **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "session_begin: out is NULL");
  *out = NULL;
  if (!backend) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "session_begin: backend is NULL");
  if (tfr_tls_session)
    return tfr_error(TFR_ERR_SESSION_REENTERED,
                     "session_begin: this thread already has an active session on the %s "
                     "backend; end it before beginning another",
                     tfr_tls_session->backend->name);
  tfr_session *s = tfr_calloc(1, sizeof *s);
  if (!s) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "session_begin: out of host memory");
  if (backend->session_waits) {
    pthread_mutex_lock(&backend->session_lock);
  } else if (pthread_mutex_trylock(&backend->session_lock) != 0) {
    tfr_free(s);
    return tfr_error(TFR_ERR_SESSION_CONTENDED,
                     "session_begin: another thread holds a session on the %s backend",
                     backend->name);
  }
  s->backend = backend;
  tfr_backend_retain(backend);
  tfr_status st = backend->vtable->session_begin(backend, s);
  if (st) {
    pthread_mutex_unlock(&backend->session_lock);
    tfr_backend_release(backend);
    tfr_free(s);
    return st;
  }
  tfr_tls_session = s;
  tfr_live_add(TFR_OBJECT_SESSION);
  *out = s;
  return TFR_OK;
}

tfr_status tfr_session_check(const char *op, const tfr_session *session) {
  if (!session) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: session is NULL", op);
  // Compared before any dereference: an ended session's pointer is dangling.
  if (session != tfr_tls_session)
    return tfr_error(TFR_ERR_NO_SESSION,
                     "%s: the session is not active on this thread (ended, or begun by another "
                     "thread)",
                     op);
  return TFR_OK;
}

tfr_status tfr_session_end(tfr_session *session) {
  TFR_RETURN_IF_ERROR(tfr_session_check("session_end", session));
  tfr_backend *backend = session->backend;
  tfr_status st = backend->vtable->session_end(backend, session);
  tfr_tls_session = NULL;
  pthread_mutex_unlock(&backend->session_lock);
  tfr_free(session);
  tfr_live_sub(TFR_OBJECT_SESSION);
  tfr_backend_release(backend);
  return st;
}

tfr_status tfr_with_session(tfr_backend *backend, tfr_session_fn fn, void *ctx) {
  if (!fn) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "with_session: fn is NULL");
  tfr_session *s;
  TFR_RETURN_IF_ERROR(tfr_session_begin(backend, &s));
  tfr_status st = fn(s, ctx);
  if (st) {
    // Keep fn's message: end the session without letting it overwrite.
    char saved[1024];
    strncpy(saved, tfr_last_error_message(), sizeof saved - 1);
    saved[sizeof saved - 1] = '\0';
    tfr_status end_status = tfr_session_end(s);
    (void)end_status;  // fn's failure is the one to report
    return tfr_error(st, "%s", saved);
  }
  return tfr_session_end(s);
}

tfr_backend *tfr_session_backend(const tfr_session *session) {
  if (!session || session != tfr_tls_session) return NULL;
  return session->backend;
}

tfr_status tfr_session_synchronize(tfr_session *session) {
  if (!session) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "session_synchronize: session is NULL");
  TFR_RETURN_IF_ERROR(tfr_session_check("session_synchronize", session));
  return session->backend->vtable->synchronize(session->backend, session);
}

tfr_status tfr_session_native(tfr_session *session, tfr_backend_kind kind, void **out_handle) {
  if (!out_handle) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "session_native: out_handle is NULL");
  *out_handle = NULL;
  TFR_RETURN_IF_ERROR(tfr_session_check("session_native", session));
  if (kind != session->backend->kind)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "session_native: the caller asked for backend kind %d, the session is on "
                     "the %s backend",
                     (int)kind, session->backend->name);
  *out_handle = session->backend->vtable->session_native(session->backend, session);
  return TFR_OK;
}

tfr_status tfr_check_placement(const char *op, const char *name, const tfr_session *session,
                               const tfr_tensor *t) {
  if (!t) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: %s is NULL", op, name);
  const tfr_backend *b = session->backend;
  const tfr_storage *s = t->storage;
  if (b->host_memory) {
    if (!s->host)
      return tfr_error(TFR_ERR_WRONG_BACKEND,
                       "%s: %s lives on the %s backend, the session is on %s; copy it with "
                       "tfr_download",
                       op, name, s->backend->name, b->name);
  } else if (s->host) {
    return tfr_error(TFR_ERR_WRONG_BACKEND,
                     "%s: %s is a host tensor, the session is on the %s backend; copy it with "
                     "tfr_upload",
                     op, name, b->name);
  } else if (s->backend != b) {
    return tfr_error(TFR_ERR_WRONG_BACKEND,
                     "%s: %s lives on another %s backend instance than the session's; move it "
                     "with tfr_download and tfr_upload",
                     op, name, s->backend->name);
  }
  return TFR_OK;
}
