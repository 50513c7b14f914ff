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

// The test hooks (src/webgpu/wgpu_testing.h): tests/unit/test_webgpu.c links
// either way and skips its tests, so these are never reached with effect.
#include "webgpu/wgpu_testing.h"

const tfr_backend_vtable *tfr_wgpu_vtable_for_tests(void) { return NULL; }

tfr_status tfr_wgpu_test_compile(tfr_backend *backend, const char *variant, const char *source) {
  (void)backend;
  (void)variant;
  (void)source;
  return tfr_wgpu_off("test_compile");
}

tfr_status tfr_wgpu_test_expand(const char *variant, const char *tmpl, const char *const *names,
                                const char *const *values, int n, char **out) {
  (void)variant;
  (void)tmpl;
  (void)names;
  (void)values;
  (void)n;
  if (out) *out = NULL;
  return tfr_wgpu_off("test_expand");
}

void tfr_wgpu_test_free(void *p) { (void)p; }

void tfr_wgpu_test_lose_device(tfr_backend *backend) { (void)backend; }

tfr_status tfr_wgpu_test_queue_idle(tfr_backend *backend, bool *idle) {
  (void)backend;
  if (idle) *idle = false;
  return tfr_wgpu_off("test_queue_idle");
}

void tfr_wgpu_test_limits(tfr_backend *backend, uint32_t max_groups_per_dim,
                          uint64_t transfer_chunk) {
  (void)backend;
  (void)max_groups_per_dim;
  (void)transfer_chunk;
}

void tfr_wgpu_test_transpose(tfr_backend *backend, uint32_t tile, int vec) {
  (void)backend;
  (void)tile;
  (void)vec;
}

uint64_t tfr_wgpu_test_transpose_vec_dispatches(tfr_backend *backend) {
  (void)backend;
  return 0;
}
