// The webgpu backend's internal interface: the provider's function table, the
// backend object (its parts in pool.h, staging.h, recorder.h and
// kernel_cache.h, one per owning file), and the entry points of the loader,
// device, queue, memory and pipeline files. The kernel families' shared
// helpers have their own headers (binding.h, copy.h, structural.h,
// wgsl_types.h, wgsl_text.h, wgsl_access.h, capability.h).
#ifndef TENFERRO_SRC_WEBGPU_WGPU_H_
#define TENFERRO_SRC_WEBGPU_WGPU_H_

#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#include "core/backend_impl.h"
#include "tenferro/webgpu.h"
#include "webgpu/kernel_cache.h"
#include "webgpu/pool.h"
#include "webgpu/recorder.h"
#include "webgpu/staging.h"
#include "webgpu/webgpu_abi.h"

// ---------------------------------------------------------------------------
// Loader (loader.c)
// ---------------------------------------------------------------------------

// The provider's functions, resolved by name (see TFR_WGPU_PROCS).
typedef struct tfr_wgpu_procs {
#define TFR_WGPU_PROC_FIELD(ret, name, params) ret(*name) params;
  TFR_WGPU_PROCS(TFR_WGPU_PROC_FIELD)
  // Optional (NULL when the provider lacks it): frees the subgroup matrix
  // configurations chained to wgpuAdapterGetInfo.
  void (*wgpuAdapterPropertiesSubgroupMatrixConfigsFreeMembers)(
      WGPUAdapterPropertiesSubgroupMatrixConfigs value);
#undef TFR_WGPU_PROC_FIELD
} tfr_wgpu_procs;

// Loads the provider once per process (retried after a failure) and returns
// its table and path. Errors: TFR_ERR_BACKEND_UNAVAILABLE with every path
// tried, or the missing function.
tfr_status tfr_wgpu_load(const tfr_wgpu_procs **out_procs, const char **out_path);

// ---------------------------------------------------------------------------
// The backend object
// ---------------------------------------------------------------------------

// copy_strided.wgsl: 256 invocations of 4 elements each (see copy.c).
#define TFR_WGPU_COPY_WG 256
#define TFR_WGPU_COPY_EPT 4
// Tiled transposing copies (copy.c): 64 x 64 tiles, 16-byte accesses for
// 4-byte elements where the view allows (TFR_WEBGPU_TRANSPOSE_TILE / _VEC).
#define TFR_WGPU_TRANSPOSE_TILE 64
#define TFR_WGPU_TRANSPOSE_VEC true
#define TFR_WGPU_DEFAULT_POOL_CAP ((size_t)1 << 30)
#define TFR_WGPU_DISCRETE_POOL_CAP ((size_t)8 << 30)
// How long a wait polls before it blocks, on GPU adapters (device.c,
// tfr_wgpu_wait_on); TFR_WEBGPU_WAIT_SPIN_US overrides it, 0 turns polling off.
#define TFR_WGPU_WAIT_SPIN_NS UINT64_C(1000000)
typedef struct tfr_wgpu_backend {
  tfr_backend base;  // first
  const tfr_wgpu_procs *p;
  WGPUInstance instance;
  WGPUAdapter adapter;
  WGPUDevice device;
  WGPUQueue queue;
  WGPULimits limits;              // the device's
  tfr_webgpu_adapter_info info;
  tfr_webgpu_native native;
  uint32_t max_groups_per_dim;    // limits.maxComputeWorkgroupsPerDimension (tests lower it)

  // Errors reported by Dawn's callbacks (any thread): a lost device is
  // final; an uncaptured error waits for the next check.
  pthread_mutex_t error_lock;
  atomic_bool lost;
  // Fault injection for the tests (wgpu_testing.h): the n-th buffer creation
  // or mapping from now fails as the device's would; -1: none.
  atomic_long fault_buffers, fault_maps;
  bool destroying;                // our own release of the device: not a loss
  char lost_message[512];
  atomic_bool error_pending;
  uint32_t error_type;
  char error_message[1024];

  tfr_wgpu_pool pool;              // memory.c (pool.h)
  tfr_wgpu_transfers xfer;         // transfer.c (staging.h)
  // Compact-copy tuning (copy.c; environment knobs read at creation):
  // TFR_WEBGPU_COPY_WG / _EPT (invocations per workgroup, elements per
  // invocation), TFR_WEBGPU_COPY_VEC=0 (no 16-byte elements for compact
  // copies), TFR_WEBGPU_COPY_B2B=1 (compact copies as buffer-to-buffer copies).
  uint32_t copy_wg, copy_ept;
  bool copy_vec, copy_b2b;
  uint64_t wait_spin_ns;  // waits poll this long before blocking (device.c)
  // Transposing copies (copy.c; environment knobs read at creation, also set
  // by tfr_wgpu_test_transpose): TFR_WEBGPU_TRANSPOSE_TILE=32|64 (tile edge),
  // TFR_WEBGPU_TRANSPOSE_VEC=0|1 (transpose_vec4.wgsl for 4-byte elements).
  uint32_t transpose_tile;
  bool transpose_vec;
  uint64_t transpose_vec_dispatches;  // transpose_vec4 dispatches recorded (for tests)
  // Measurement knobs read at creation (0: the kernels' defaults):
  // TFR_WEBGPU_EW_EPT (1..64, chunks per invocation of elementwise_compact)
  // TFR_WEBGPU_REDUCE_EPT (2..128, units per invocation of a reduction pass),
  // TFR_WEBGPU_REDUCE_RG (1..256, a power of two: invocations per task of the
  // lanes layout)
  // and TFR_WEBGPU_SORT_EPT (1..64, keys per invocation of the scatter's sort).
  uint32_t ew_ept, reduce_ept, reduce_rg, sort_ept;

  tfr_wgpu_recorder rec;           // queue.c (recorder.h)

  // Every pipeline and layout (pipeline.c, through kernel_cache.h).
  tfr_wgpu_kernel_cache kernels;
  int64_t ew_piece;               // compact elementwise dispatch size; 0: default (test hook)
  int fusion_budget;              // storage buffers a fused kernel may use; 0: the device's (test hook)
} tfr_wgpu_backend;

static inline tfr_wgpu_backend *tfr_wgpu_cast(tfr_backend *b) {
  assert(b->kind == TFR_BACKEND_WEBGPU);
  return (tfr_wgpu_backend *)b;
}

// A WGPUStringView of a NUL-terminated string.
static inline WGPUStringView tfr_wgpu_str(const char *s) {
  WGPUStringView v = {s, WGPU_STRLEN};
  return v;
}

// ---------------------------------------------------------------------------
// Device (device.c): instance, adapters, device, callbacks, waits, errors
// ---------------------------------------------------------------------------

// Creates instance, adapter, device and queue of `b` per `opts` (validated).
tfr_status tfr_wgpu_device_create(tfr_wgpu_backend *b, const tfr_webgpu_options *opts);
// Releases what tfr_wgpu_device_create made (NULL handles are skipped).
void tfr_wgpu_device_release(tfr_wgpu_backend *b);

// Waits for `future` (created with WaitAnyOnly mode). `what` names the wait
// for messages. Errors: TFR_ERR_DEVICE_LOST, TFR_ERR_INTERNAL.
tfr_status tfr_wgpu_wait(tfr_wgpu_backend *b, WGPUFuture future, const char *what);

// Fails with TFR_ERR_DEVICE_LOST once the device is lost, and turns a pending
// uncaptured Dawn error into a status (OUT_OF_MEMORY or INTERNAL) with Dawn's
// text appended. `op` names the caller.
tfr_status tfr_wgpu_check(tfr_wgpu_backend *b, const char *op);

// Marks the device lost (callback or test hook).
void tfr_wgpu_set_lost(tfr_wgpu_backend *b, const char *reason, WGPUStringView message);

// Copies a WGPUStringView (not NUL-terminated) into dst[cap] with a NUL.
void tfr_wgpu_copy_view(char *dst, size_t cap, WGPUStringView v);

// Creates a device buffer of `size` bytes (counted in the stats); `what`
// names it in messages.
tfr_status tfr_wgpu_buffer_create(tfr_wgpu_backend *b, uint64_t size, WGPUBufferUsage usage,
                                  const char *what, WGPUBuffer *out);

// Fault injection (wgpu_testing.h): true when this call is the one a test's
// countdown (fault_buffers, fault_maps) makes fail.
bool tfr_wgpu_fault(atomic_long *countdown);

// ---------------------------------------------------------------------------
// Recording and submission (queue.c)
// ---------------------------------------------------------------------------

// Allocates the uniform arena (after the device exists).
tfr_status tfr_wgpu_queue_init(tfr_wgpu_backend *b);
void tfr_wgpu_queue_release(tfr_wgpu_backend *b);

// Records one dispatch of `pipeline` over `groups` workgroups (folded into a
// 2-D/3-D grid when above maxComputeWorkgroupsPerDimension: kernels compute
// their linear workgroup index from workgroup_id and num_workgroups), with
// `params` (<= TFR_WGPU_PARAM_SLOT bytes) in the uniform arena. Submits when
// the encoder holds `per_submit` dispatches. The kernel has one read-only
// (binding 1) and one read-write (binding 2) storage buffer.
tfr_status tfr_wgpu_dispatch(tfr_wgpu_backend *b, WGPUComputePipeline pipeline,
                             const void *params, size_t params_size, tfr_wgpu_binding src,
                             tfr_wgpu_binding dst, uint64_t groups);

// The same for a kernel of any binding signature: `bindings` holds `nread`
// read-only buffers (bindings 1 .. nread) then `nwrite` read-write ones
// (bindings nread+1 .. nread+nwrite), as the pipeline's tfr_wgsl_variant
// declared them.
tfr_status tfr_wgpu_dispatch_n(tfr_wgpu_backend *b, WGPUComputePipeline pipeline,
                               const void *params, size_t params_size,
                               const tfr_wgpu_binding *bindings, int nread, int nwrite,
                               uint64_t groups);

// Drops the cached bind groups that bind `buf` (session thread, or the
// backend's release): called before the backend releases a buffer, so that no
// cached bind group keeps it alive.
void tfr_wgpu_bind_groups_drop_buffer(tfr_wgpu_backend *b, WGPUBuffer buf);

// The open command encoder with no compute pass open, for copies and clears.
tfr_status tfr_wgpu_copy_encoder(tfr_wgpu_backend *b, WGPUCommandEncoder *out);

// Drops what is recorded and not submitted (after a failed session end).
void tfr_wgpu_discard(tfr_wgpu_backend *b);

// Submits the recorded work, if any, without waiting.
tfr_status tfr_wgpu_flush(tfr_wgpu_backend *b, const char *op);

// Submits the recorded work and waits until the queue has finished it.
tfr_status tfr_wgpu_finish(tfr_wgpu_backend *b, const char *op);

// The grid of `groups` workgroups with at most `max_per_dim` per dimension.
void tfr_wgpu_fold_grid(uint64_t groups, uint32_t max_per_dim, uint32_t grid[3]);

// ---------------------------------------------------------------------------
// Memory (memory.c)
// ---------------------------------------------------------------------------

tfr_status tfr_wgpu_storage_alloc(tfr_backend *b, size_t nbytes, bool zero, tfr_storage *out);
void tfr_wgpu_storage_free(tfr_backend *b, tfr_storage *s);
// Releases the buffers freed by other threads (session thread only).
void tfr_wgpu_release_deferred(tfr_wgpu_backend *b);
// Releases every pooled and deferred buffer.
void tfr_wgpu_memory_release(tfr_wgpu_backend *b);

// ---------------------------------------------------------------------------
// Pipelines (pipeline.c)
// ---------------------------------------------------------------------------

// One {{NAME}} -> value substitution of a kernel template.
typedef struct tfr_wgsl_subst {
  const char *name;
  const char *value;
} tfr_wgsl_subst;

// One `override` constant of a kernel.
typedef struct tfr_wgsl_override {
  const char *name;
  uint32_t value;
} tfr_wgsl_override;

// What makes a pipeline: the kernel file, snippets of kernels/common/ placed
// before it, the substitutions, the override constants, the binding
// signature, and the variant name (the Dawn label and the cache key, with the
// overrides and the signature appended).
typedef struct tfr_wgsl_variant {
  const char *variant;
  const char *file;               // "copy_strided.wgsl"
  const char *const *snippets;    // NULL-terminated list, or NULL
  const tfr_wgsl_subst *subst;
  int nsubst;
  const tfr_wgsl_override *overrides;
  int noverrides;
  // Read-only and read-write storage buffers (see tfr_wgpu_dispatch_n);
  // 0 and 0 mean 1 and 1 (tfr_wgpu_dispatch's kernels).
  int nread, nwrite;
} tfr_wgsl_variant;

tfr_status tfr_wgpu_pipelines_init(tfr_wgpu_backend *b);
void tfr_wgpu_pipelines_release(tfr_wgpu_backend *b);
// The cached pipeline of `v`, compiled on first use. Errors: TFR_ERR_INTERNAL
// (an unfilled or unknown placeholder; a WGSL error, with line:column and
// Dawn's text), TFR_ERR_DEVICE_LOST, TFR_ERR_OUT_OF_MEMORY.
tfr_status tfr_wgpu_pipeline_get(tfr_wgpu_backend *b, const tfr_wgsl_variant *v,
                                 WGPUComputePipeline *out);
// The pipeline of `v` when it is cached already, else NULL (compiles
// nothing; the substitutions are not looked at: the variant name must
// determine them). Lets a caller generate substitutions only on a miss.
WGPUComputePipeline tfr_wgpu_pipeline_cached(tfr_wgpu_backend *b, const tfr_wgsl_variant *v);
// The pipeline a generated kernel family cached under (family, key[len]),
// else NULL: lets the family generate its source only on a miss.
WGPUComputePipeline tfr_wgpu_kernel_find(tfr_wgpu_backend *b, tfr_wgpu_kernel_family family,
                                         const void *key, size_t len);
// Compiles `v` (as tfr_wgpu_pipeline_get does) and caches the pipeline under
// (family, key[len]) instead of under the variant's text.
tfr_status tfr_wgpu_kernel_build(tfr_wgpu_backend *b, tfr_wgpu_kernel_family family,
                                 const void *key, size_t len, const tfr_wgsl_variant *v,
                                 WGPUComputePipeline *out);
// Expands `{{NAME}}` placeholders of `tmpl`. `*out` is tfr_alloc'ed.
tfr_status tfr_wgsl_expand(const char *variant, const char *tmpl, const tfr_wgsl_subst *subst,
                           int nsubst, char **out);
// Compiles `source` as variant `variant` (no cache): the test hook's path.
// `nread`/`nwrite` as in tfr_wgsl_variant (0, 0: one of each).
tfr_status tfr_wgpu_compile(tfr_wgpu_backend *b, const char *variant, const char *source,
                            const tfr_wgsl_override *overrides, int noverrides, int nread,
                            int nwrite, WGPUComputePipeline *out);
// The bind group layout and pipeline layout of a binding signature, made on
// first use (errors: TFR_ERR_INTERNAL, TFR_ERR_INVALID_ARGUMENT when the
// device has fewer storage buffers per stage).
tfr_status tfr_wgpu_layout_get(tfr_wgpu_backend *b, int nread, int nwrite,
                               WGPUBindGroupLayout *bind, WGPUPipelineLayout *pipeline);

// ---------------------------------------------------------------------------
// The vtable's op entries (backend.c fills the vtable with them)
// ---------------------------------------------------------------------------

tfr_status tfr_wgpu_structural(tfr_backend *b, const tfr_structural_desc *d);
// The other vtable entries, one file each: structural.c, elementwise.c,
// reduce.c, dot.c, gather_scatter.c (elementwise.c holds the fusion entry too).
tfr_status tfr_wgpu_elementwise(tfr_backend *b, const tfr_elementwise_desc *d);
tfr_status tfr_wgpu_reduction(tfr_backend *b, const tfr_reduce_desc *d);
tfr_status tfr_wgpu_dot_general(tfr_backend *b, const tfr_dot_desc *d);
tfr_status tfr_wgpu_gather(tfr_backend *b, const tfr_gather_desc *d);
tfr_status tfr_wgpu_scatter(tfr_backend *b, const tfr_scatter_desc *d);
tfr_status tfr_wgpu_fusion(tfr_backend *b, const tfr_fusion_desc *d);

#endif  // TENFERRO_SRC_WEBGPU_WGPU_H_
