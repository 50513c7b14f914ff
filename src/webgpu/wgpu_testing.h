// Test hooks of the webgpu backend, for tests/unit/test_webgpu.c only: they
// reach states the public API cannot (a broken kernel, a lost device, tiny
// limits). Not exported from the shared library; the tests link the static one.
#ifndef TENFERRO_SRC_WEBGPU_WGPU_TESTING_H_
#define TENFERRO_SRC_WEBGPU_WGPU_TESTING_H_

#include <stdbool.h>
#include <stdint.h>

#include "core/backend_impl.h"
#include "tenferro/backend.h"

// The webgpu vtable (to check that every slot is filled).
const tfr_backend_vtable *tfr_wgpu_vtable_for_tests(void);

// Compiles `source` as a kernel named `variant` (no cache, no templating) and
// drops the pipeline. Errors as for any kernel: TFR_ERR_INTERNAL with the
// variant, line:column and Dawn's text.
tfr_status tfr_wgpu_test_compile(tfr_backend *backend, const char *variant, const char *source);

// Runs the template expander on `tmpl` with n substitutions; *out is freed
// with tfr_wgpu_test_free.
tfr_status tfr_wgpu_test_expand(const char *variant, const char *tmpl, const char *const *names,
                                const char *const *values, int n, char **out);
void tfr_wgpu_test_free(void *p);

// Destroys the device (wgpuDeviceDestroy) as a driver reset would lose it.
void tfr_wgpu_test_lose_device(tfr_backend *backend);

// Fault injection: after n more successful device-buffer creations (tensor,
// staging, uniform buffers) the next one fails as an exhausted device's
// would (TFR_ERR_OUT_OF_MEMORY); once, then creations succeed again. n < 0
// turns it off.
void tfr_wgpu_test_fail_buffers_after(tfr_backend *backend, long n);

// Likewise for buffer mappings (uploads' and downloads' staging buffers):
// the mapping completes with an error status.
void tfr_wgpu_test_fail_maps_after(tfr_backend *backend, long n);

// Whether the queue has finished all submitted work, asked without waiting.
tfr_status tfr_wgpu_test_queue_idle(tfr_backend *backend, bool *idle);

// Lowers limits to exercise rare paths (0 keeps a value): workgroups per grid
// dimension (grid folding), and the transfer piece size (split transfers).
void tfr_wgpu_test_limits(tfr_backend *backend, uint32_t max_groups_per_dim,
                          uint64_t transfer_chunk);

// The transposing copy's variant, as TFR_WEBGPU_TRANSPOSE_TILE / _VEC set it
// at creation: tile 32 or 64 (anything else: the default), vec 0 or 1
// (negative: the default). Pipelines of every variant stay cached.
void tfr_wgpu_test_transpose(tfr_backend *backend, uint32_t tile, int vec);

// transpose_vec4.wgsl dispatches recorded so far (the 16-byte path taken).
uint64_t tfr_wgpu_test_transpose_vec_dispatches(tfr_backend *backend);

// Elements per dispatch of the compact elementwise kernel (a multiple of 4;
// 0 restores the default, bounded by the binding limit), so that tests reach
// the split into several dispatches without gigabyte tensors.
void tfr_wgpu_test_ew_piece(tfr_backend *backend, int64_t elements);

// Storage buffers an elementwise kernel may bind (0 restores the device's
// limit), so that tests reach the packing of inputs and outputs (ew_kernel.c)
// with few operands.
void tfr_wgpu_test_fusion_budget(tfr_backend *backend, int buffers);

// Generated elementwise kernels (single ops and fused plans) in the backend's
// table (ew_kernel.c), for tests of its key.
int tfr_wgpu_test_elementwise_kernels(tfr_backend *backend);

#endif  // TENFERRO_SRC_WEBGPU_WGPU_TESTING_H_
