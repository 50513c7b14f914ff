// tenferro/webgpu.h: the webgpu backend (WGSL compute kernels through a
// native webgpu.h implementation, Dawn, loaded at run time).
//
//   tfr_backend *gpu;  tfr_session *s;  tfr_tensor *dx, *hy;
//   if (tfr_backend_create_webgpu(NULL, &gpu)) { /* tfr_last_error_message() */ }
//   if (tfr_session_begin(gpu, &s) == TFR_OK) {
//     if (tfr_upload(s, host_x, &dx) == TFR_OK) {          // host -> device
//       ... ops on dx ...
//       if (tfr_download(s, dx, &hy) == TFR_OK) { ...; tfr_tensor_release(hy); }
//       tfr_tensor_release(dx);
//     }
//     (void)tfr_session_end(s);                            // waits for the GPU
//   }
//   tfr_backend_release(gpu);
//
// The provider. The library links no GPU code: the first call that needs it
// dlopen()s (RTLD_NOW | RTLD_LOCAL) the first of
//   1. $TFR_WEBGPU_LIBRARY when set and not empty (then only that path);
//   2. /usr/local/lib/tenferro/libwebgpu_wrapper.so, where
//      scripts/setup-webgpu.sh installs Dawn (npm bun-webgpu-linux-x64@0.1.7);
//   3. libwebgpu_wrapper.so through the dynamic loader's search path;
// and resolves the webgpu.h functions it uses. The provider stays loaded until
// the process exits. Its ABI must be that Dawn build's (see docs/webgpu.md).
//
// The driver. Adapters come from Vulkan by default (Dawn's Null backend, which
// silently computes zeros, is always refused). On a machine without a GPU,
// scripts/setup-webgpu.sh installs lavapipe (a CPU Vulkan driver) privately;
// select it by sourcing /usr/local/lib/tenferro/webgpu.env (it sets
// VK_DRIVER_FILES). The library itself never changes the environment.
//
// Sessions. Ops enqueue compute dispatches into one command encoder per
// session; every `dispatches_per_submit` dispatches the encoder is submitted
// without waiting. tfr_download and tfr_session_end wait for the work (and
// report any error the device raised meanwhile). Another thread entering a
// session on the same backend waits until the active one ends.
//
// Device memory. Tensors live in device buffers from a size-bucketed pool:
// when the last reference to a tensor's storage goes, its buffer returns to the
// pool (up to `pool_cap_bytes`) and is reused by later allocations of that size
// class. Every dtype can be stored and transferred (the bytes are those of the
// host layout; bool is one byte per element, packed four to a 32-bit word).
//
// Ops. Every op of ops.h runs here for bool, i32, f32 and c64: elementwise
// and analytic functions (our own WGSL math library, accuracy in
// docs/accuracy.md), fused elementwise plans, reductions, dot_general,
// gather/scatter and the indexing and window ops, and every data movement op
// (copy, transpose, slice, pad, concatenate, ... and convert's storage side)
// for every dtype. f64 is IEEE binary64 computed in software on u32 word
// pairs: the exact operations bit for bit the cpu's, and the analytic
// functions exp, expm1, log, log1p, sin, cos, tan, asin, acos, atan, atan2,
// sinh, cosh, tanh, asinh, acosh, atanh, logistic, cbrt, erf, erfc and
// power within 1 ulp of the correctly rounded result (not yet lgamma,
// digamma, erf_inv, bessel_i1e). i64 and u64 are exact on u32 word pairs, bit
// for bit the cpu's. c128 runs on pairs of those f64 (arithmetic, divide,
// abs, sign, sqrt, rsqrt, comparisons, maximum/minimum, select, convert,
// reductions add and multiply, scatter, dot_general, exp and log within a
// few ulp per part; not its other analytic functions yet). The narrow dtypes i8,
// i16, u8, u16, u32, f16 and bf16 are packed in u32 words and computed as
// i32 / u32 / f32 (f16 and bf16 rounded once, as the cpu).
// docs/webgpu.md has the details. An op without a kernel for its dtype here
// fails with TFR_ERR_UNSUPPORTED_DTYPE naming the op, the dtype and "webgpu".
// Ask before running: tfr_backend_supports (tenferro/registry.h) answers from
// the same table the kernels check; `tenferro info --ops` prints it.
//
// Device loss. Once the device is lost, every later call on the backend fails
// with TFR_ERR_DEVICE_LOST (the message has Dawn's reason); releasing tensors
// and the backend still works.
#ifndef TENFERRO_WEBGPU_H_
#define TENFERRO_WEBGPU_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tenferro/backend.h"
#include "tenferro/status.h"

#ifdef __cplusplus
extern "C" {
#endif

// Which adapter Dawn should prefer when it chooses (webgpu.h's
// WGPUPowerPreference).
typedef enum tfr_webgpu_power_preference {
  TFR_WEBGPU_POWER_DEFAULT = 0,           // Dawn's choice
  TFR_WEBGPU_POWER_LOW = 1,               // e.g. an integrated GPU
  TFR_WEBGPU_POWER_HIGH_PERFORMANCE = 2,  // e.g. a discrete GPU
} tfr_webgpu_power_preference;

// The native API the adapter is requested from. Dawn's Null backend is never
// used.
typedef enum tfr_webgpu_backend_type {
  TFR_WEBGPU_BACKEND_DEFAULT = 0,  // Vulkan
  TFR_WEBGPU_BACKEND_VULKAN = 1,
  TFR_WEBGPU_BACKEND_METAL = 2,
  TFR_WEBGPU_BACKEND_D3D12 = 3,
} tfr_webgpu_backend_type;

// Options of the webgpu backend. Zero-initialise, then set what you need; a
// NULL pointer means all defaults.
typedef struct tfr_webgpu_options {
  // The native API; default Vulkan.
  tfr_webgpu_backend_type backend_type;
  // Used when adapter_index is 0: the adapter Dawn picks for this preference.
  tfr_webgpu_power_preference power_preference;
  // 0: the adapter Dawn picks for `power_preference` (with the default
  // preference, entry 0 of tfr_webgpu_enumerate_adapters). N > 0: entry N of
  // that list (power_preference is then ignored).
  int adapter_index;
  // Bytes of freed device buffers kept for reuse; 0 = the default (8 GiB on
  // a discrete GPU, 1 GiB otherwise); SIZE_MAX = unlimited. Buffers beyond
  // the cap are released at once. A fresh buffer is expensive (Dawn clears it
  // before first use; on the H200 a chain of ops on 256 MiB tensors ran ~40x
  // slower when the pool could not keep its intermediates).
  size_t pool_cap_bytes;
  // When nonzero, no pool: every buffer is released when its tensor goes.
  int disable_pool;
  // Compute dispatches recorded before the command encoder is submitted
  // (without waiting); 0 = the default (64). At most 4096. 1 submits every
  // dispatch on its own (only useful to measure).
  int dispatches_per_submit;
} tfr_webgpu_options;

// What tfr_session_native returns for a webgpu session: the webgpu.h handles
// (WGPUInstance, WGPUAdapter, WGPUDevice, WGPUQueue), borrowed from the
// backend. Do not release them; call wgpu*AddRef to keep one beyond the
// backend's life. tfr_session_native first submits the session's recorded
// work (without waiting), so work the caller submits to `queue` runs after it.
typedef struct tfr_webgpu_native {
  void *instance;
  void *adapter;
  void *device;
  void *queue;
} tfr_webgpu_native;

// One adapter as tfr_webgpu_enumerate_adapters reports it: what the driver
// says about it, the limits and features the backend would request.
typedef struct tfr_webgpu_adapter_info {
  int index;                 // its position in the list (tfr_webgpu_options.adapter_index)
  char name[128];            // Dawn's device string: "NVIDIA H200", "llvmpipe (LLVM 15.0.6, 256 bits)"
  char vendor[64];           // "nvidia", "mesa", ... (may be empty)
  char architecture[64];     // may be empty
  char driver[128];          // driver description, e.g. "Mesa 25.0.7-2~bpo12+1 (LLVM 15.0.6)"
  const char *backend;       // "vulkan", "metal", "d3d12", ... (static storage)
  const char *adapter_type;  // "discrete GPU", "integrated GPU", "CPU", "unknown" (static)
  uint32_t vendor_id;        // PCI ids
  uint32_t device_id;
  uint32_t subgroup_min_size;
  uint32_t subgroup_max_size;
  bool shader_f16;           // the shader-f16 feature (asked for with Dawn's
                             // vulkan_enable_f16_on_nvidia toggle)
  bool subgroups;            // the subgroups feature
  char features[768];        // every feature reported, names separated by spaces
  // Limits (webgpu.h's names). A device gets all of them.
  uint64_t max_buffer_size;
  uint64_t max_storage_buffer_binding_size;
  uint64_t max_uniform_buffer_binding_size;
  uint32_t max_storage_buffers_per_shader_stage;
  uint32_t max_compute_workgroup_storage_size;
  uint32_t max_compute_invocations_per_workgroup;
  uint32_t max_compute_workgroup_size_x;
  uint32_t max_compute_workgroup_size_y;
  uint32_t max_compute_workgroup_size_z;
  uint32_t max_compute_workgroups_per_dimension;
  uint32_t min_storage_buffer_offset_alignment;
  uint32_t min_uniform_buffer_offset_alignment;
} tfr_webgpu_adapter_info;

// Counters of one backend, for tests and tuning.
typedef struct tfr_webgpu_stats {
  uint64_t device_bytes;     // bytes of all device buffers the backend holds now:
                             // tensors + pool + staging + uniform arena
  uint64_t tensor_bytes;     // of which held by live tensor storages
  uint64_t pooled_bytes;     // of which waiting in the pool
  uint64_t buffers_created;  // device buffers created since the backend was
  uint64_t pool_hits;        // allocations served from the pool
  uint64_t pipelines;        // compute pipelines in the cache
  uint64_t dispatches;       // compute dispatches recorded
  uint64_t submits;          // queue submissions
  uint64_t bind_groups_created;  // bind groups made (a dispatch whose buffer ranges
                                 // were bound before reuses the cached one)
  uint64_t bind_group_hits;      // dispatches served by a cached bind group
  uint64_t bind_groups_cached;   // bind groups in the cache now (at most 4096; those
                                 // of a buffer go when the backend releases it)
} tfr_webgpu_stats;

// Creates a webgpu backend: loads the provider (see above), creates a Dawn
// instance (timed waits enabled), requests the adapter, then a device with all
// of the adapter's limits and with the features the kernels use when present
// (shader-f16, subgroups), an uncaptured-error and a device-lost callback.
//   options  NULL for defaults; see tfr_webgpu_options. Borrowed.
//   out      receives the backend; release it with tfr_backend_release.
// Errors: TFR_ERR_INVALID_ARGUMENT (NULL out, an enum value out of range,
//           adapter_index < 0, dispatches_per_submit outside [0, 4096]),
//         TFR_ERR_BACKEND_UNAVAILABLE (the provider cannot be loaded: every
//           path tried and its dlerror() are in the message; a webgpu.h
//           function is missing from it: the message names it; no adapter of
//           the requested backend type; adapter_index beyond the list; only
//           Dawn's Null backend answers; the device request fails: Dawn's
//           message is appended),
//         TFR_ERR_OUT_OF_MEMORY (host memory; a device buffer the backend
//           needs for itself).
// On error *out is NULL.
TFR_API TFR_NODISCARD tfr_status tfr_backend_create_webgpu(const tfr_webgpu_options *options,
                                                           tfr_backend **out);

// Lists the adapters the backend can use, without creating a device (for
// `tenferro info`). Dawn's C API has no adapter enumeration, so the list is
// what adapter requests with each power preference return (default, high
// performance, low power), without duplicates; entry 0 is Dawn's default.
// Identical GPUs of one machine therefore appear once.
//   options    NULL for defaults; only backend_type is used. Borrowed.
//   out_infos  receives an array of *out_count entries (NULL when none); free
//              it with tfr_webgpu_adapter_infos_free.
//   out_count  receives the number of adapters; 0 is not an error.
// Errors: TFR_ERR_INVALID_ARGUMENT (NULL out_infos or out_count, bad
//           backend_type), TFR_ERR_BACKEND_UNAVAILABLE (the provider cannot be
//           loaded or lacks a function; the message says which),
//         TFR_ERR_OUT_OF_MEMORY.
// On error *out_infos is NULL and *out_count 0.
TFR_API TFR_NODISCARD tfr_status tfr_webgpu_enumerate_adapters(const tfr_webgpu_options *options,
                                                               tfr_webgpu_adapter_info **out_infos,
                                                               int *out_count);

// Frees an array returned by tfr_webgpu_enumerate_adapters. NULL is ignored.
TFR_API void tfr_webgpu_adapter_infos_free(tfr_webgpu_adapter_info *infos);

// The adapter a webgpu backend runs on.
//   backend  a backend made by tfr_backend_create_webgpu. Borrowed.
//   out      filled on success (index is the adapter_index it was created with).
// Errors: TFR_ERR_INVALID_ARGUMENT (NULL argument, `backend` is not a webgpu
//         backend).
TFR_API TFR_NODISCARD tfr_status tfr_webgpu_get_adapter_info(const tfr_backend *backend,
                                                             tfr_webgpu_adapter_info *out);

// The counters of a webgpu backend (see tfr_webgpu_stats); callable from any
// thread, in or outside a session. A snapshot: a concurrent session may change
// them.
// Errors: TFR_ERR_INVALID_ARGUMENT (NULL argument, not a webgpu backend).
TFR_API TFR_NODISCARD tfr_status tfr_webgpu_get_stats(const tfr_backend *backend,
                                                      tfr_webgpu_stats *out);

// Loads the provider if that has not happened yet (see the top of this file)
// and reports which file it is.
//   out_path  receives the path given to dlopen (static storage, valid until
//             the process exits).
// Errors: TFR_ERR_INVALID_ARGUMENT (NULL out_path),
//         TFR_ERR_BACKEND_UNAVAILABLE (not found, or a function is missing;
//         the message lists every path tried and why it failed).
TFR_API TFR_NODISCARD tfr_status tfr_webgpu_provider_path(const char **out_path);

#ifdef __cplusplus
}
#endif

#endif  // TENFERRO_WEBGPU_H_
