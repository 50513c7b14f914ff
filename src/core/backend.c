// The common part of every backend: initialisation, reference counts, kind and
// name, and which backends this build has.
#include "core/backend_impl.h"
#include "core/core.h"
#include "tenferro/backend.h"

tfr_status tfr_backend_init(tfr_backend *b, const tfr_backend_vtable *vtable,
                            tfr_backend_kind kind, const char *name, bool host_memory,
                            bool session_waits) {
  b->vtable = vtable;
  atomic_init(&b->refcount, 1);
  b->kind = kind;
  b->name = name;
  b->host_memory = host_memory;
  b->session_waits = session_waits;
  if (pthread_mutex_init(&b->session_lock, NULL) != 0)
    return tfr_error(TFR_ERR_OUT_OF_MEMORY, "%s: cannot create the session lock", name);
  return TFR_OK;
}

void tfr_backend_retain(tfr_backend *backend) {
  if (backend) atomic_fetch_add_explicit(&backend->refcount, 1, memory_order_relaxed);
}

void tfr_backend_release(tfr_backend *backend) {
  if (!backend) return;
  if (atomic_fetch_sub_explicit(&backend->refcount, 1, memory_order_acq_rel) != 1) return;
  pthread_mutex_destroy(&backend->session_lock);
  backend->vtable->destroy(backend);
}

tfr_backend_kind tfr_backend_get_kind(const tfr_backend *backend) { return backend->kind; }

const char *tfr_backend_name(const tfr_backend *backend) {
  return backend ? backend->name : "host";
}

const char *tfr_backends_compiled(void) {
#ifdef TFR_HAVE_WEBGPU
  return "cpu webgpu";
#else
  return "cpu";
#endif
}
