// The public webgpu functions of a build configured with -DTFR_WEBGPU=OFF:
// they exist, so that programs link either way, and report that the backend
// was left out.
#include <stddef.h>

#include "core/core.h"
#include "tenferro/webgpu.h"

static tfr_status tfr_wgpu_off(const char *op) {
  return tfr_error(TFR_ERR_BACKEND_UNAVAILABLE,
                   "%s: this build of tenferro has no webgpu backend (configured with "
                   "-DTFR_WEBGPU=OFF)",
                   op);
}

tfr_status tfr_backend_create_webgpu(const tfr_webgpu_options *options, tfr_backend **out) {
  (void)options;
  if (out) *out = NULL;
  return tfr_wgpu_off("backend_create_webgpu");
}

tfr_status tfr_webgpu_enumerate_adapters(const tfr_webgpu_options *options,
                                         tfr_webgpu_adapter_info **out_infos, int *out_count) {
  (void)options;
  if (out_infos) *out_infos = NULL;
  if (out_count) *out_count = 0;
  return tfr_wgpu_off("webgpu_enumerate_adapters");
}

void tfr_webgpu_adapter_infos_free(tfr_webgpu_adapter_info *infos) { (void)infos; }

tfr_status tfr_webgpu_get_adapter_info(const tfr_backend *backend, tfr_webgpu_adapter_info *out) {
  (void)backend;
  (void)out;
  return tfr_error(TFR_ERR_INVALID_ARGUMENT, "webgpu_get_adapter_info: not a webgpu backend");
}

tfr_status tfr_webgpu_get_stats(const tfr_backend *backend, tfr_webgpu_stats *out) {
  (void)backend;
  (void)out;
  return tfr_error(TFR_ERR_INVALID_ARGUMENT, "webgpu_get_stats: not a webgpu backend");
}

tfr_status tfr_webgpu_provider_path(const char **out_path) {
  if (out_path) *out_path = NULL;
  return tfr_wgpu_off("webgpu_provider_path");
}
