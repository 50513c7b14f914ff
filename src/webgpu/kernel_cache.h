// The kernel cache: every compute pipeline of the backend, owned here, by a
// key that cannot collide (the full key is stored and compared byte for
// byte; the hash only picks the slot), and the bind group / pipeline layouts
// of each binding signature. One cache for every kernel family: a family
// byte leads each key, so keys of two families never meet.
#ifndef TENFERRO_SRC_WEBGPU_KERNEL_CACHE_H_
#define TENFERRO_SRC_WEBGPU_KERNEL_CACHE_H_

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "core/core.h"
#include "webgpu/webgpu_abi.h"

// Storage buffers of one kernel: at most this many read-only and read-write
// ones (and never more in all than the device's
// maxStorageBuffersPerShaderStage, at least 8 on every WebGPU device). A
// fused kernel (ew_kernel.c) may have 16 inputs and 8 outputs.
#define TFR_WGPU_MAX_READ 16
#define TFR_WGPU_MAX_WRITE 8

// Who made a key: the key's first byte.
typedef enum tfr_wgpu_kernel_family {
  // The text of a tfr_wgsl_variant: its name, override constants and binding
  // signature (pipeline.c; every family whose variant name determines its
  // source).
  TFR_WGPU_KERNELS_NAMED = 0,
  // Generated elementwise kernels, single ops and fused plans (ew_kernel.c):
  // the plan's structure.
  TFR_WGPU_KERNELS_ELEMENTWISE = 1,
  // GEMM kernels (dot.c): the dtype, the tile configuration and the operand
  // sides, as a struct of integers (no text formatted per dispatch).
  TFR_WGPU_KERNELS_GEMM = 2,
  TFR_WGPU_KERNEL_FAMILIES = 3,
} tfr_wgpu_kernel_family;

typedef struct tfr_wgpu_kernel_entry {
  uint64_t hash;
  unsigned char *key;  // family byte, then the family's key bytes
  size_t key_len;
  WGPUComputePipeline pipeline;  // owned
} tfr_wgpu_kernel_entry;

typedef struct tfr_wgpu_kernel_cache {
  tfr_wgpu_kernel_entry *entries;
  int count, capacity;
  uint32_t *slots;  // open addressing: entry index + 1, 0 empty
  uint32_t nslots;  // a power of two, at least twice `count`
  int family_count[TFR_WGPU_KERNEL_FAMILIES];
  atomic_int published;  // count, for tfr_webgpu_get_stats (any thread)
  // One bind group layout per binding signature (binding 0 the uniform
  // parameters, then `nread` read-only storage buffers, then `nwrite`
  // read-write ones), made on first use; [nread][nwrite].
  WGPUBindGroupLayout bind_layout[TFR_WGPU_MAX_READ + 1][TFR_WGPU_MAX_WRITE + 1];
  WGPUPipelineLayout pipeline_layout[TFR_WGPU_MAX_READ + 1][TFR_WGPU_MAX_WRITE + 1];
} tfr_wgpu_kernel_cache;

// The pipeline cached under (family, key[len]), or NULL.
WGPUComputePipeline tfr_wgpu_kernel_cache_find(const tfr_wgpu_kernel_cache *c,
                                               tfr_wgpu_kernel_family family, const void *key,
                                               size_t len);
// Caches `pipeline` under (family, key[len]) and takes it over. On failure
// (TFR_ERR_OUT_OF_MEMORY, naming `what`) the caller still owns it.
tfr_status tfr_wgpu_kernel_cache_add(tfr_wgpu_kernel_cache *c, tfr_wgpu_kernel_family family,
                                     const void *key, size_t len, WGPUComputePipeline pipeline,
                                     const char *what);
// Hands every pipeline to `release` and empties the cache (the layouts are
// the owner's to release).
void tfr_wgpu_kernel_cache_clear(tfr_wgpu_kernel_cache *c,
                                 void (*release)(void *ctx, WGPUComputePipeline pipeline),
                                 void *ctx);

#endif  // TENFERRO_SRC_WEBGPU_KERNEL_CACHE_H_
