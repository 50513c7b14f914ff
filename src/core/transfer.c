// Transfers between host memory and a backend: tfr_upload and tfr_download
// (validation here, the copy in the backend's vtable).
#include "core/backend_impl.h"
#include "core/core.h"
#include "tenferro/backend.h"

tfr_status tfr_upload(tfr_session *session, const tfr_tensor *host, tfr_tensor **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "upload: out is NULL");
  *out = NULL;
  TFR_RETURN_IF_ERROR(tfr_session_check("upload", session));
  if (!host) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "upload: tensor is NULL");
  if (!host->storage->host)
    return tfr_error(TFR_ERR_WRONG_BACKEND,
                     "upload: the tensor lives on the %s backend, not in host memory",
                     host->storage->backend->name);
  tfr_backend *b = session->backend;
  if (b->host_memory) {
    tfr_tensor_retain((tfr_tensor *)host);
    *out = (tfr_tensor *)host;
    return TFR_OK;
  }
  tfr_tensor *t = NULL;
  TFR_RETURN_IF_ERROR(tfr_tensor_alloc(b, host->dtype, host->rank, host->shape, false, &t));
  tfr_status st = b->vtable->upload(b, host, t);
  if (st) {
    tfr_tensor_release(t);
    return st;
  }
  *out = t;
  return TFR_OK;
}

tfr_status tfr_download(tfr_session *session, const tfr_tensor *t, tfr_tensor **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "download: out is NULL");
  *out = NULL;
  TFR_RETURN_IF_ERROR(tfr_session_check("download", session));
  TFR_RETURN_IF_ERROR(tfr_check_placement("download", "tensor", session, t));
  tfr_backend *b = session->backend;
  if (b->host_memory) {
    tfr_tensor_retain((tfr_tensor *)t);
    *out = (tfr_tensor *)t;
    return TFR_OK;
  }
  tfr_tensor *h;
  TFR_RETURN_IF_ERROR(tfr_tensor_alloc(NULL, t->dtype, t->rank, t->shape, false, &h));
  tfr_status st = b->vtable->download(b, t, h);
  if (st) {
    tfr_tensor_release(h);
    return st;
  }
  *out = h;
  return TFR_OK;
}
