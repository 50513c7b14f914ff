// The webgpu backend object: creation, the vtable, sessions, native handles,
// statistics and the test hooks. The op families live in their own files.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "webgpu/capability.h"
#include "webgpu/transfer.h"
#include "webgpu/wgpu.h"
#include "webgpu/wgpu_testing.h"

// ---------------------------------------------------------------------------
// Life cycle
// ---------------------------------------------------------------------------

// Frees everything; safe on a partly created backend.
static void tfr_wgpu_free(tfr_wgpu_backend *b) {
  if (b->p) {
    tfr_wgpu_pipelines_release(b);
    tfr_wgpu_queue_release(b);
    tfr_wgpu_transfer_release(b);
    tfr_wgpu_memory_release(b);
    tfr_wgpu_device_release(b);
  }
  pthread_mutex_destroy(&b->pool.lock);
  pthread_mutex_destroy(&b->error_lock);
  tfr_free(b);
}

static void tfr_wgpu_destroy(tfr_backend *base) {
  tfr_wgpu_backend *b = tfr_wgpu_cast(base);
  // No session is active (sessions hold a reference): finish what an ended
  // session left queued before the buffers go. Failures are moot now.
  if (b->device && !atomic_load(&b->lost)) {
    tfr_status st = tfr_wgpu_finish(b, "backend_release");
    (void)st;
  }
  tfr_wgpu_free(b);
}

// ---------------------------------------------------------------------------
// Sessions
// ---------------------------------------------------------------------------

static tfr_status tfr_wgpu_session_begin(tfr_backend *base, tfr_session *s) {
  (void)s;
  tfr_wgpu_backend *b = tfr_wgpu_cast(base);
  TFR_RETURN_IF_ERROR(tfr_wgpu_check(b, "session_begin"));
  tfr_wgpu_release_deferred(b);
  return TFR_OK;
}

static tfr_status tfr_wgpu_session_end(tfr_backend *base, tfr_session *s) {
  (void)s;
  tfr_wgpu_backend *b = tfr_wgpu_cast(base);
  tfr_status st = TFR_OK;
  if (atomic_load(&b->lost)) {
    st = tfr_wgpu_check(b, "session_end");
  } else {
    st = tfr_wgpu_finish(b, "session_end");
  }
  if (st) {
    tfr_wgpu_discard(b);  // the next session starts clean
  }
  tfr_wgpu_release_deferred(b);
  return st;
}

static tfr_status tfr_wgpu_synchronize(tfr_backend *base, tfr_session *s) {
  (void)s;
  return tfr_wgpu_finish(tfr_wgpu_cast(base), "session_synchronize");
}

static void *tfr_wgpu_session_native(tfr_backend *base, tfr_session *s) {
  (void)s;
  tfr_wgpu_backend *b = tfr_wgpu_cast(base);
  // So that whatever the caller submits runs after the session's work.
  tfr_status st = tfr_wgpu_flush(b, "session_native");
  (void)st;  // a failure is reported again by the next call on the backend
  return &b->native;
}

// The einsum's one-loop form is a cpu one: on a GPU one dispatch per pairwise
// step is recorded, not run, and the steps' kernels are what the device is
// good at (backend_impl.h: declining sends the einsum to its steps).
static tfr_status tfr_wgpu_sum_of_products(tfr_backend *b, const tfr_sum_of_products_desc *d) {
  (void)b;
  (void)d;
  return TFR_ERR_UNSUPPORTED_DTYPE;
}

static const tfr_backend_vtable tfr_wgpu_vtable = {
    .destroy = tfr_wgpu_destroy,
    .storage_alloc = tfr_wgpu_storage_alloc,
    .storage_free = tfr_wgpu_storage_free,
    .session_begin = tfr_wgpu_session_begin,
    .session_end = tfr_wgpu_session_end,
    .session_native = tfr_wgpu_session_native,
    .synchronize = tfr_wgpu_synchronize,
    .upload = tfr_wgpu_upload,
    .download = tfr_wgpu_download,
    .elementwise = tfr_wgpu_elementwise,
    .structural = tfr_wgpu_structural,
    .reduction = tfr_wgpu_reduction,
    .dot_general = tfr_wgpu_dot_general,
    .gather = tfr_wgpu_gather,
    .scatter = tfr_wgpu_scatter,
    .fusion = tfr_wgpu_fusion,
    .sum_of_products = tfr_wgpu_sum_of_products,
    .supports = tfr_wgpu_supports,
};

// ---------------------------------------------------------------------------
// Public functions
// ---------------------------------------------------------------------------

tfr_status tfr_backend_create_webgpu(const tfr_webgpu_options *options, tfr_backend **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "backend_create_webgpu: out is NULL");
  *out = NULL;
  tfr_webgpu_options o;
  memset(&o, 0, sizeof o);
  if (options) o = *options;
  if ((unsigned)o.backend_type > TFR_WEBGPU_BACKEND_D3D12)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "backend_create_webgpu: backend_type %d is not a tfr_webgpu_backend_type",
                     (int)o.backend_type);
  if ((unsigned)o.power_preference > TFR_WEBGPU_POWER_HIGH_PERFORMANCE)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "backend_create_webgpu: power_preference %d is not a "
                     "tfr_webgpu_power_preference",
                     (int)o.power_preference);
  if (o.adapter_index < 0)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "backend_create_webgpu: adapter_index is %d, must be >= 0", o.adapter_index);
  if (o.dispatches_per_submit < 0 || o.dispatches_per_submit > TFR_WGPU_MAX_PER_SUBMIT)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "backend_create_webgpu: dispatches_per_submit is %d, must be in [0, %d]",
                     o.dispatches_per_submit, TFR_WGPU_MAX_PER_SUBMIT);
  const tfr_wgpu_procs *procs;
  const char *path;
  TFR_RETURN_IF_ERROR(tfr_wgpu_load(&procs, &path));

  tfr_wgpu_backend *b = tfr_calloc(1, sizeof *b);
  if (!b) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "backend_create_webgpu: out of host memory");
  if (pthread_mutex_init(&b->pool.lock, NULL) != 0) {
    tfr_free(b);
    return tfr_error(TFR_ERR_OUT_OF_MEMORY, "backend_create_webgpu: cannot create a lock");
  }
  if (pthread_mutex_init(&b->error_lock, NULL) != 0) {
    pthread_mutex_destroy(&b->pool.lock);
    tfr_free(b);
    return tfr_error(TFR_ERR_OUT_OF_MEMORY, "backend_create_webgpu: cannot create a lock");
  }
  // Another thread entering a session waits, as on the cpu backend.
  tfr_status st =
      tfr_backend_init(&b->base, &tfr_wgpu_vtable, TFR_BACKEND_WEBGPU, "webgpu", false, true);
  if (st) {
    pthread_mutex_destroy(&b->pool.lock);
    pthread_mutex_destroy(&b->error_lock);
    tfr_free(b);
    return st;
  }
  b->p = procs;
  atomic_init(&b->lost, false);
  atomic_init(&b->fault_buffers, -1);
  atomic_init(&b->fault_maps, -1);
  atomic_init(&b->error_pending, false);
  b->pool.enabled = !o.disable_pool;
  b->pool.cap = o.pool_cap_bytes ? o.pool_cap_bytes : TFR_WGPU_DEFAULT_POOL_CAP;
  b->rec.per_submit = o.dispatches_per_submit ? o.dispatches_per_submit : TFR_WGPU_DEFAULT_PER_SUBMIT;
  b->xfer.transfer_chunk = TFR_WGPU_TRANSFER_CHUNK;
  b->xfer.upload_chunk = TFR_WGPU_UPLOAD_CHUNK;
  b->xfer.upload_direct_max = TFR_WGPU_UPLOAD_DIRECT_MAX;
  // Tuning knob (bytes of one upload piece; 0: every upload through
  // wgpuQueueWriteBuffer), for bench/webgpu_runtime.c.
  b->copy_wg = TFR_WGPU_COPY_WG;
  b->copy_ept = TFR_WGPU_COPY_EPT;
  b->copy_vec = true;
  b->copy_b2b = false;
  const char *env = getenv("TFR_WEBGPU_COPY_WG");
  if (env && atoi(env) >= 32 && atoi(env) <= 1024) b->copy_wg = (uint32_t)atoi(env);
  env = getenv("TFR_WEBGPU_COPY_EPT");
  if (env && atoi(env) >= 1 && atoi(env) <= 64) b->copy_ept = (uint32_t)atoi(env);
  env = getenv("TFR_WEBGPU_COPY_VEC");
  if (env && env[0]) b->copy_vec = atoi(env) != 0;
  env = getenv("TFR_WEBGPU_COPY_B2B");
  if (env && env[0]) b->copy_b2b = atoi(env) != 0;
  b->transpose_tile = TFR_WGPU_TRANSPOSE_TILE;
  b->transpose_vec = TFR_WGPU_TRANSPOSE_VEC;
  env = getenv("TFR_WEBGPU_TRANSPOSE_TILE");
  if (env && (atoi(env) == 32 || atoi(env) == 64)) b->transpose_tile = (uint32_t)atoi(env);
  env = getenv("TFR_WEBGPU_TRANSPOSE_VEC");
  if (env && env[0]) b->transpose_vec = atoi(env) != 0;
  env = getenv("TFR_WEBGPU_EW_EPT");
  if (env && atoi(env) >= 1 && atoi(env) <= 64) b->ew_ept = (uint32_t)atoi(env);
  env = getenv("TFR_WEBGPU_REDUCE_EPT");
  if (env && atoi(env) >= 2 && atoi(env) <= 128) b->reduce_ept = (uint32_t)atoi(env);
  env = getenv("TFR_WEBGPU_REDUCE_RG");
  if (env) {
    int rg = atoi(env);
    if (rg >= 1 && rg <= 256 && (rg & (rg - 1)) == 0) b->reduce_rg = (uint32_t)rg;
  }
  env = getenv("TFR_WEBGPU_SORT_EPT");
  if (env && atoi(env) >= 1 && atoi(env) <= 64) b->sort_ept = (uint32_t)atoi(env);
  env = getenv("TFR_WEBGPU_UPLOAD_CHUNK");
  if (env && env[0]) {
    unsigned long long v = strtoull(env, NULL, 0);
    b->xfer.upload_chunk = v ? (v + 3) & ~3ULL : 0;
  }
  st = tfr_wgpu_device_create(b, &o);
  // A discrete GPU has memory to spare for reuse (see pool_cap_bytes).
  if (!st && !o.pool_cap_bytes && b->info.adapter_type &&
      strcmp(b->info.adapter_type, "discrete GPU") == 0)
    b->pool.cap = TFR_WGPU_DISCRETE_POOL_CAP;
  // Waits poll first on a GPU, not on a CPU adapter, whose work needs the
  // host's cores (device.c, tfr_wgpu_wait_on).
  if (!st && !(b->info.adapter_type && strcmp(b->info.adapter_type, "CPU") == 0))
    b->wait_spin_ns = TFR_WGPU_WAIT_SPIN_NS;
  env = getenv("TFR_WEBGPU_WAIT_SPIN_US");
  if (env && env[0]) b->wait_spin_ns = strtoull(env, NULL, 10) * UINT64_C(1000);
  if (!st) st = tfr_wgpu_queue_init(b);
  if (!st) st = tfr_wgpu_pipelines_init(b);
  if (st) {
    pthread_mutex_destroy(&b->base.session_lock);
    tfr_wgpu_free(b);
    return st;
  }
  *out = &b->base;
  return TFR_OK;
}

static tfr_status tfr_wgpu_public_cast(const char *op, const tfr_backend *backend, const void *out,
                                       tfr_wgpu_backend **b) {
  if (!backend || !out)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: %s is NULL", op, backend ? "out" : "backend");
  if (backend->kind != TFR_BACKEND_WEBGPU || backend->vtable != &tfr_wgpu_vtable)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: the backend is %s, not webgpu", op,
                     backend->name);
  *b = (tfr_wgpu_backend *)backend;
  return TFR_OK;
}

tfr_status tfr_webgpu_get_adapter_info(const tfr_backend *backend, tfr_webgpu_adapter_info *out) {
  tfr_wgpu_backend *b = NULL;
  TFR_RETURN_IF_ERROR(tfr_wgpu_public_cast("webgpu_get_adapter_info", backend, out, &b));
  *out = b->info;
  return TFR_OK;
}

tfr_status tfr_webgpu_get_stats(const tfr_backend *backend, tfr_webgpu_stats *out) {
  tfr_wgpu_backend *b = NULL;
  TFR_RETURN_IF_ERROR(tfr_wgpu_public_cast("webgpu_get_stats", backend, out, &b));
  memset(out, 0, sizeof *out);
  pthread_mutex_lock(&b->pool.lock);
  out->tensor_bytes = b->pool.tensor_bytes;
  out->pooled_bytes = b->pool.bytes;
  out->device_bytes = b->pool.tensor_bytes + b->pool.bytes + b->pool.deferred_bytes + b->pool.other_bytes;
  out->buffers_created = b->pool.buffers_created;
  out->pool_hits = b->pool.hits;
  pthread_mutex_unlock(&b->pool.lock);
  out->pipelines = (uint64_t)atomic_load(&b->kernels.published);
  out->dispatches = atomic_load(&b->rec.dispatches);
  out->submits = atomic_load(&b->rec.submits);
  out->bind_groups_created = atomic_load(&b->rec.bind_groups_created);
  out->bind_group_hits = atomic_load(&b->rec.bind_group_hits);
  out->bind_groups_cached = (uint64_t)atomic_load(&b->rec.bind_groups_cached);
  return TFR_OK;
}

// ---------------------------------------------------------------------------
// Test hooks (src/webgpu/wgpu_testing.h)
// ---------------------------------------------------------------------------

const tfr_backend_vtable *tfr_wgpu_vtable_for_tests(void) { return &tfr_wgpu_vtable; }

tfr_status tfr_wgpu_test_compile(tfr_backend *backend, const char *variant, const char *source) {
  tfr_wgpu_backend *b = tfr_wgpu_cast(backend);
  WGPUComputePipeline pipeline = NULL;
  TFR_RETURN_IF_ERROR(tfr_wgpu_compile(b, variant, source, NULL, 0, 0, 0, &pipeline));
  b->p->wgpuComputePipelineRelease(pipeline);
  return TFR_OK;
}

tfr_status tfr_wgpu_test_expand(const char *variant, const char *tmpl, const char *const *names,
                                const char *const *values, int n, char **out) {
  tfr_wgsl_subst subst[16];
  if (n > 16) n = 16;
  for (int i = 0; i < n; i++) subst[i] = (tfr_wgsl_subst){names[i], values[i]};
  return tfr_wgsl_expand(variant, tmpl, subst, n, out);
}

void tfr_wgpu_test_free(void *p) { tfr_free(p); }

void tfr_wgpu_test_fail_buffers_after(tfr_backend *backend, long n) {
  atomic_store(&tfr_wgpu_cast(backend)->fault_buffers, n);
}

void tfr_wgpu_test_fail_maps_after(tfr_backend *backend, long n) {
  atomic_store(&tfr_wgpu_cast(backend)->fault_maps, n);
}

void tfr_wgpu_test_lose_device(tfr_backend *backend) {
  tfr_wgpu_backend *b = tfr_wgpu_cast(backend);
  b->p->wgpuDeviceDestroy(b->device);
  // The loss is reported through the device-lost callback; let Dawn run it.
  b->p->wgpuInstanceProcessEvents(b->instance);
}

static void tfr_wgpu_test_on_done(uint32_t status, WGPUStringView message, void *ud1, void *ud2) {
  (void)status;
  (void)message;
  (void)ud2;
  *(bool *)ud1 = true;
}

tfr_status tfr_wgpu_test_queue_idle(tfr_backend *backend, bool *idle) {
  tfr_wgpu_backend *b = tfr_wgpu_cast(backend);
  *idle = false;
  // Zero timeout: complete only if the queue has already finished everything.
  bool done = false;
  WGPUQueueWorkDoneCallbackInfo info = {NULL, WGPU_CALLBACK_MODE_WAIT_ANY_ONLY,
                                        tfr_wgpu_test_on_done, &done, NULL};
  WGPUFuture f = b->p->wgpuQueueOnSubmittedWorkDone(b->queue, info);
  WGPUFutureWaitInfo w = {f, 0};
  uint32_t ws = b->p->wgpuInstanceWaitAny(b->instance, 1, &w, 0);
  if (ws == WGPU_WAIT_STATUS_SUCCESS && w.completed) {
    *idle = true;
    return TFR_OK;
  }
  // Not idle: let the callback run before `done` goes out of scope.
  return tfr_wgpu_wait(b, f, "test_queue_idle");
}

void tfr_wgpu_test_limits(tfr_backend *backend, uint32_t max_groups_per_dim,
                          uint64_t transfer_chunk) {
  tfr_wgpu_backend *b = tfr_wgpu_cast(backend);
  if (max_groups_per_dim) b->max_groups_per_dim = max_groups_per_dim;
  if (transfer_chunk) {
    b->xfer.transfer_chunk = transfer_chunk;
    b->xfer.upload_chunk = transfer_chunk;  // uploads of any size in pieces, staged
    b->xfer.upload_direct_max = 0;
  }
}

void tfr_wgpu_test_transpose(tfr_backend *backend, uint32_t tile, int vec) {
  tfr_wgpu_backend *b = tfr_wgpu_cast(backend);
  b->transpose_tile = tile == 32 || tile == 64 ? tile : TFR_WGPU_TRANSPOSE_TILE;
  b->transpose_vec = vec < 0 ? TFR_WGPU_TRANSPOSE_VEC : vec != 0;
}

uint64_t tfr_wgpu_test_transpose_vec_dispatches(tfr_backend *backend) {
  return tfr_wgpu_cast(backend)->transpose_vec_dispatches;
}
