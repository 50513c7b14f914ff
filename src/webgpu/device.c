// Instance, adapters and device; Dawn's callbacks; waiting on futures; turning
// Dawn's errors into tfr_status.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "webgpu/wgpu.h"

// Dawn toggle that lets NVIDIA's Vulkan driver expose shader-f16 (DESIGN.md:
// off on the H200 without it). An adapter toggle: it must be chained to the
// adapter request, since features are decided per adapter.
// TFR_WEBGPU_ALLOW_UNSAFE_APIS=1 adds "allow_unsafe_apis", under which Dawn
// offers its experimental features; `tenferro info` then also lists the
// subgroup matrix configurations the adapter has (tfr_wgpu_describe). No
// kernel uses them yet.
static const char *const tfr_wgpu_adapter_toggles[] = {"vulkan_enable_f16_on_nvidia",
                                                       "allow_unsafe_apis"};

// One wait slice: a wait re-checks for device loss this often.
#define TFR_WGPU_WAIT_SLICE_NS UINT64_C(100000000)

void tfr_wgpu_copy_view(char *dst, size_t cap, WGPUStringView v) {
  size_t n = 0;
  if (v.data) n = v.length == WGPU_STRLEN ? strlen(v.data) : v.length;
  if (n >= cap) n = cap - 1;
  if (n) memcpy(dst, v.data, n);
  dst[n] = '\0';
}

// ---------------------------------------------------------------------------
// Waiting
// ---------------------------------------------------------------------------

// Waits for `future` on `instance`. `lost` (may be NULL) is polled between
// slices so that a lost device ends the wait.
// The callbacks of our futures write into the waiter's stack frame, so a wait
// returns only once the future has completed (and its callback has run), even
// on a lost device: Dawn completes every pending future when the device goes,
// and the bound below only guards against a provider that does not.
//
// First, for up to `spin_ns`, the future is polled (a wait with timeout 0),
// then waited on in slices. A blocking wait on the H200 wakes about 30 us
// after the GPU finishes; polling sees it within a few us. A single 256^3
// GEMM took 0.070-0.088 ms with blocking waits and 0.040-0.049 ms with
// polling (docs/webgpu.md, "Waits"). The poll costs a host core while it
// lasts, so it is bounded, and off on CPU adapters, where it would take the
// core the device runs on.
#define TFR_WGPU_LOST_GRACE_SLICES 100

static uint64_t tfr_wgpu_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

static tfr_status tfr_wgpu_wait_on(const tfr_wgpu_procs *p, WGPUInstance instance,
                                   WGPUFuture future, const char *what, atomic_bool *lost,
                                   uint64_t spin_ns) {
  int grace = TFR_WGPU_LOST_GRACE_SLICES;
  uint64_t spin_end = spin_ns ? tfr_wgpu_now_ns() + spin_ns : 0;
  for (;;) {
    WGPUFutureWaitInfo info = {future, 0};
    bool poll = spin_end && tfr_wgpu_now_ns() < spin_end;
    uint32_t ws = p->wgpuInstanceWaitAny(instance, 1, &info, poll ? 0 : TFR_WGPU_WAIT_SLICE_NS);
    bool is_lost = lost && atomic_load(lost);
    if (ws == WGPU_WAIT_STATUS_SUCCESS && info.completed) {
      if (is_lost)
        return tfr_error(TFR_ERR_DEVICE_LOST, "webgpu: %s: the device was lost while waiting",
                         what);
      return TFR_OK;
    }
    if (ws != WGPU_WAIT_STATUS_TIMED_OUT && ws != WGPU_WAIT_STATUS_SUCCESS)
      return tfr_error(TFR_ERR_INTERNAL, "webgpu: %s: wgpuInstanceWaitAny returned status %u",
                       what, ws);
    if (poll) continue;
    if (is_lost && --grace == 0)
      return tfr_error(TFR_ERR_DEVICE_LOST, "webgpu: %s: the device was lost while waiting",
                       what);
  }
}

tfr_status tfr_wgpu_wait(tfr_wgpu_backend *b, WGPUFuture future, const char *what) {
  return tfr_wgpu_wait_on(b->p, b->instance, future, what, &b->lost, b->wait_spin_ns);
}

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

static const char *tfr_wgpu_error_type_name(uint32_t type) {
  switch (type) {
    case WGPU_ERROR_TYPE_VALIDATION: return "a validation error";
    case WGPU_ERROR_TYPE_OUT_OF_MEMORY: return "out of memory";
    case WGPU_ERROR_TYPE_INTERNAL: return "an internal error";
    default: return "an unknown error";
  }
}

void tfr_wgpu_set_lost(tfr_wgpu_backend *b, const char *reason, WGPUStringView message) {
  pthread_mutex_lock(&b->error_lock);
  if (!atomic_load(&b->lost)) {
    char text[400];
    tfr_wgpu_copy_view(text, sizeof text, message);
    snprintf(b->lost_message, sizeof b->lost_message, "%s%s%s", reason, text[0] ? ": " : "",
             text);
    atomic_store(&b->lost, true);
  }
  pthread_mutex_unlock(&b->error_lock);
}

tfr_status tfr_wgpu_check(tfr_wgpu_backend *b, const char *op) {
  if (atomic_load(&b->lost)) {
    char msg[sizeof b->lost_message];
    pthread_mutex_lock(&b->error_lock);
    memcpy(msg, b->lost_message, sizeof msg);
    pthread_mutex_unlock(&b->error_lock);
    return tfr_error(TFR_ERR_DEVICE_LOST, "%s: webgpu: the device was lost (%s)", op, msg);
  }
  if (!atomic_load(&b->error_pending))
    return TFR_OK;
  char msg[sizeof b->error_message];
  pthread_mutex_lock(&b->error_lock);
  uint32_t type = b->error_type;
  memcpy(msg, b->error_message, sizeof msg);
  atomic_store(&b->error_pending, false);
  pthread_mutex_unlock(&b->error_lock);
  return tfr_error(type == WGPU_ERROR_TYPE_OUT_OF_MEMORY ? TFR_ERR_OUT_OF_MEMORY : TFR_ERR_INTERNAL,
                   "%s: webgpu: Dawn reported %s: %s", op, tfr_wgpu_error_type_name(type), msg);
}

// Errors outside any error scope. Dawn calls this synchronously inside the
// failing call, or at submit for errors recorded in an encoder. The first
// error is kept until the next check reports it.
static void tfr_wgpu_on_uncaptured_error(const WGPUDevice *device, uint32_t type,
                                         WGPUStringView message, void *ud1, void *ud2) {
  (void)device;
  (void)ud2;
  tfr_wgpu_backend *b = ud1;
  pthread_mutex_lock(&b->error_lock);
  if (!atomic_load(&b->error_pending)) {
    b->error_type = type;
    tfr_wgpu_copy_view(b->error_message, sizeof b->error_message, message);
    atomic_store(&b->error_pending, true);
  }
  pthread_mutex_unlock(&b->error_lock);
}

static void tfr_wgpu_on_device_lost(const WGPUDevice *device, uint32_t reason,
                                    WGPUStringView message, void *ud1, void *ud2) {
  (void)device;
  (void)ud2;
  tfr_wgpu_backend *b = ud1;
  // Our own release of the device, or of the instance, is not a loss.
  if (b->destroying || reason == WGPU_DEVICE_LOST_CALLBACK_CANCELLED) return;
  tfr_wgpu_set_lost(b, reason == WGPU_DEVICE_LOST_DESTROYED ? "destroyed" : "lost", message);
}

// ---------------------------------------------------------------------------
// Adapters
// ---------------------------------------------------------------------------

typedef struct tfr_wgpu_adapter_request {
  uint32_t status;
  WGPUAdapter adapter;
  char message[512];
} tfr_wgpu_adapter_request;

static void tfr_wgpu_on_adapter(uint32_t status, WGPUAdapter adapter, WGPUStringView message,
                                void *ud1, void *ud2) {
  (void)ud2;
  tfr_wgpu_adapter_request *r = ud1;
  r->status = status;
  r->adapter = adapter;
  tfr_wgpu_copy_view(r->message, sizeof r->message, message);
}

static uint32_t tfr_wgpu_backend_value(tfr_webgpu_backend_type t) {
  switch (t) {
    case TFR_WEBGPU_BACKEND_METAL: return WGPU_BACKEND_METAL;
    case TFR_WEBGPU_BACKEND_D3D12: return WGPU_BACKEND_D3D12;
    default: return WGPU_BACKEND_VULKAN;
  }
}

static const char *tfr_wgpu_backend_type_name(uint32_t t) {
  switch (t) {
    case WGPU_BACKEND_NULL: return "null";
    case WGPU_BACKEND_WEBGPU: return "webgpu";
    case WGPU_BACKEND_D3D11: return "d3d11";
    case WGPU_BACKEND_D3D12: return "d3d12";
    case WGPU_BACKEND_METAL: return "metal";
    case WGPU_BACKEND_VULKAN: return "vulkan";
    case WGPU_BACKEND_OPENGL: return "opengl";
    case WGPU_BACKEND_OPENGLES: return "opengles";
    default: return "unknown";
  }
}

static const char *tfr_wgpu_adapter_type_name(uint32_t t) {
  switch (t) {
    case WGPU_ADAPTER_DISCRETE_GPU: return "discrete GPU";
    case WGPU_ADAPTER_INTEGRATED_GPU: return "integrated GPU";
    case WGPU_ADAPTER_CPU: return "CPU";
    default: return "unknown";
  }
}

// Names of the features of this build's numbering: 1..18 are the WebGPU
// standard features in the order of the webgpu.h the build follows (the README
// confirms ShaderF16 = 10, Subgroups = 17, CoreFeaturesAndLimits = 18); Dawn's
// own start at 0x50000. Unknown values print in hex.
static const char *tfr_wgpu_feature_name(uint32_t f) {
  static const char *const standard[] = {
      NULL, "depth-clip-control", "depth32float-stencil8", "timestamp-query",
      "texture-compression-bc", "texture-compression-bc-sliced-3d",
      "texture-compression-etc2", "texture-compression-astc",
      "texture-compression-astc-sliced-3d", "indirect-first-instance", "shader-f16",
      "rg11b10ufloat-renderable", "bgra8unorm-storage", "float32-filterable",
      "float32-blendable", "clip-distances", "dual-source-blending", "subgroups",
      "core-features-and-limits"};
  if (f > 0 && f < sizeof standard / sizeof standard[0]) return standard[f];
  if (f == WGPU_FEATURE_SUBGROUPS_F16) return "subgroups-f16";
  return NULL;
}

// Fills `info` from an adapter.
static void tfr_wgpu_describe(const tfr_wgpu_procs *p, WGPUAdapter adapter, int index,
                              tfr_webgpu_adapter_info *info) {
  memset(info, 0, sizeof *info);
  info->index = index;
  WGPUAdapterInfo ai;
  memset(&ai, 0, sizeof ai);
  if (p->wgpuAdapterGetInfo(adapter, &ai) == WGPU_STATUS_SUCCESS) {
    tfr_wgpu_copy_view(info->name, sizeof info->name, ai.device);
    tfr_wgpu_copy_view(info->vendor, sizeof info->vendor, ai.vendor);
    tfr_wgpu_copy_view(info->architecture, sizeof info->architecture, ai.architecture);
    tfr_wgpu_copy_view(info->driver, sizeof info->driver, ai.description);
    info->backend = tfr_wgpu_backend_type_name(ai.backendType);
    info->adapter_type = tfr_wgpu_adapter_type_name(ai.adapterType);
    info->vendor_id = ai.vendorID;
    info->device_id = ai.deviceID;
    info->subgroup_min_size = ai.subgroupMinSize;
    info->subgroup_max_size = ai.subgroupMaxSize;
    p->wgpuAdapterInfoFreeMembers(ai);
  } else {
    info->backend = "unknown";
    info->adapter_type = "unknown";
  }
  WGPULimits l;
  memset(&l, 0, sizeof l);
  if (p->wgpuAdapterGetLimits(adapter, &l) == WGPU_STATUS_SUCCESS) {
    info->max_buffer_size = l.maxBufferSize;
    info->max_storage_buffer_binding_size = l.maxStorageBufferBindingSize;
    info->max_uniform_buffer_binding_size = l.maxUniformBufferBindingSize;
    info->max_storage_buffers_per_shader_stage = l.maxStorageBuffersPerShaderStage;
    info->max_compute_workgroup_storage_size = l.maxComputeWorkgroupStorageSize;
    info->max_compute_invocations_per_workgroup = l.maxComputeInvocationsPerWorkgroup;
    info->max_compute_workgroup_size_x = l.maxComputeWorkgroupSizeX;
    info->max_compute_workgroup_size_y = l.maxComputeWorkgroupSizeY;
    info->max_compute_workgroup_size_z = l.maxComputeWorkgroupSizeZ;
    info->max_compute_workgroups_per_dimension = l.maxComputeWorkgroupsPerDimension;
    info->min_storage_buffer_offset_alignment = l.minStorageBufferOffsetAlignment;
    info->min_uniform_buffer_offset_alignment = l.minUniformBufferOffsetAlignment;
  }
  info->shader_f16 = p->wgpuAdapterHasFeature(adapter, WGPU_FEATURE_SHADER_F16) != 0;
  info->subgroups = p->wgpuAdapterHasFeature(adapter, WGPU_FEATURE_SUBGROUPS) != 0;
  WGPUSupportedFeatures sf = {0, NULL};
  p->wgpuAdapterGetFeatures(adapter, &sf);
  size_t used = 0;
  for (size_t i = 0; i < sf.featureCount; i++) {
    char hex[16];
    const char *name = tfr_wgpu_feature_name(sf.features[i]);
    if (!name) {
      snprintf(hex, sizeof hex, "0x%x", (unsigned)sf.features[i]);
      name = hex;
    }
    int n = snprintf(info->features + used, sizeof info->features - used, "%s%s",
                     used ? " " : "", name);
    if (n < 0 || (size_t)n >= sizeof info->features - used) break;
    used += (size_t)n;
  }
  p->wgpuSupportedFeaturesFreeMembers(sf);
  // Dawn's experimental subgroup matrices: under TFR_WEBGPU_ALLOW_UNSAFE_APIS=1
  // the configurations the adapter offers (operand->result type:MxNxK) close
  // the feature list ("subgroup-matrix-configs(none)" when Dawn refuses the
  // query, which it reports on stderr). No kernel of the library uses them.
  const char *unsafe = getenv("TFR_WEBGPU_ALLOW_UNSAFE_APIS");
  if (!unsafe || strcmp(unsafe, "1") != 0 ||
      !p->wgpuAdapterPropertiesSubgroupMatrixConfigsFreeMembers)
    return;
  WGPUAdapterPropertiesSubgroupMatrixConfigs smc;
  memset(&smc, 0, sizeof smc);
  smc.chain.sType = WGPU_STYPE_ADAPTER_PROPERTIES_SUBGROUP_MATRIX_CONFIGS;
  WGPUAdapterInfo ai2;
  memset(&ai2, 0, sizeof ai2);
  ai2.nextInChain = &smc.chain;
  char text[256] = "none";
  if (p->wgpuAdapterGetInfo(adapter, &ai2) == WGPU_STATUS_SUCCESS) {
    static const char *const ct[] = {"?", "f32", "f16", "u32", "i32", "u8", "i8"};
    size_t at = 0;
    for (size_t i = 0; i < smc.configCount; i++) {
      const WGPUSubgroupMatrixConfig *c = &smc.configs[i];
      int n = snprintf(text + at, sizeof text - at, "%s%s->%s:%ux%ux%u", i ? "," : "",
                       ct[c->componentType < 7 ? c->componentType : 0],
                       ct[c->resultComponentType < 7 ? c->resultComponentType : 0], c->M, c->N,
                       c->K);
      if (n < 0 || (size_t)n >= sizeof text - at) break;
      at += (size_t)n;
    }
    p->wgpuAdapterPropertiesSubgroupMatrixConfigsFreeMembers(smc);
    p->wgpuAdapterInfoFreeMembers(ai2);
  }
  snprintf(info->features + used, sizeof info->features - used, "%ssubgroup-matrix-configs(%s)",
           used ? " " : "", text);
}

// Requests the adapter of `backend_type` for `power`. Leaves *out NULL with
// a reason in `why` when there is none, or only Dawn's Null backend (which
// succeeds at everything and computes zeros).
static tfr_status tfr_wgpu_request_adapter(const tfr_wgpu_procs *p, WGPUInstance instance,
                                           uint32_t backend_type, uint32_t power,
                                           WGPUAdapter *out, char *why, size_t why_cap) {
  *out = NULL;
  WGPUDawnTogglesDescriptor toggles;
  memset(&toggles, 0, sizeof toggles);
  toggles.chain.sType = WGPU_STYPE_DAWN_TOGGLES_DESCRIPTOR;
  const char *unsafe = getenv("TFR_WEBGPU_ALLOW_UNSAFE_APIS");
  toggles.enabledToggleCount = unsafe && strcmp(unsafe, "1") == 0 ? 2 : 1;
  toggles.enabledToggles = tfr_wgpu_adapter_toggles;
  WGPURequestAdapterOptions opts;
  memset(&opts, 0, sizeof opts);
  opts.nextInChain = &toggles.chain;
  opts.powerPreference = power;
  opts.backendType = backend_type;
  tfr_wgpu_adapter_request r;
  memset(&r, 0, sizeof r);
  WGPURequestAdapterCallbackInfo cb = {NULL, WGPU_CALLBACK_MODE_WAIT_ANY_ONLY,
                                       tfr_wgpu_on_adapter, &r, NULL};
  WGPUFuture f = p->wgpuInstanceRequestAdapter(instance, &opts, cb);
  TFR_RETURN_IF_ERROR(tfr_wgpu_wait_on(p, instance, f, "request adapter", NULL, 0));
  if (r.status != WGPU_STATUS_SUCCESS || !r.adapter) {
    snprintf(why, why_cap, "no %s adapter (status %u%s%s)", tfr_wgpu_backend_type_name(backend_type),
             r.status, r.message[0] ? ": " : "", r.message);
    if (r.adapter) p->wgpuAdapterRelease(r.adapter);
    return TFR_OK;
  }
  WGPUAdapterInfo ai;
  memset(&ai, 0, sizeof ai);
  uint32_t got = WGPU_BACKEND_UNDEFINED;
  if (p->wgpuAdapterGetInfo(r.adapter, &ai) == WGPU_STATUS_SUCCESS) {
    got = ai.backendType;
    p->wgpuAdapterInfoFreeMembers(ai);
  }
  if (got != backend_type) {
    snprintf(why, why_cap, "asked for a %s adapter, Dawn answered with its %s backend%s",
             tfr_wgpu_backend_type_name(backend_type), tfr_wgpu_backend_type_name(got),
             got == WGPU_BACKEND_NULL ? " (no usable driver; refused: it computes nothing)" : "");
    p->wgpuAdapterRelease(r.adapter);
    return TFR_OK;
  }
  *out = r.adapter;
  return TFR_OK;
}

static WGPUInstance tfr_wgpu_instance_create(const tfr_wgpu_procs *p) {
  WGPUInstanceDescriptor d;
  memset(&d, 0, sizeof d);
  // Without this, wgpuInstanceWaitAny with a timeout fails (README).
  d.capabilities.timedWaitAnyEnable = 1;
  return p->wgpuCreateInstance(&d);
}

#define TFR_WGPU_MAX_ADAPTERS 4

// The adapter list: one request per power preference, without duplicates.
// Returns the adapters (references the caller releases) and the last reason
// a request found nothing.
static tfr_status tfr_wgpu_collect(const tfr_wgpu_procs *p, WGPUInstance instance,
                                   uint32_t backend_type, WGPUAdapter *adapters, int *count,
                                   char *why, size_t why_cap) {
  static const uint32_t powers[] = {WGPU_POWER_UNDEFINED, WGPU_POWER_HIGH_PERFORMANCE,
                                    WGPU_POWER_LOW_POWER};
  tfr_webgpu_adapter_info seen[TFR_WGPU_MAX_ADAPTERS];
  *count = 0;
  for (size_t i = 0; i < sizeof powers / sizeof powers[0]; i++) {
    WGPUAdapter a;
    tfr_status st = tfr_wgpu_request_adapter(p, instance, backend_type, powers[i], &a, why, why_cap);
    if (st) {
      for (int k = 0; k < *count; k++) p->wgpuAdapterRelease(adapters[k]);
      *count = 0;
      return st;
    }
    if (!a) continue;
    tfr_webgpu_adapter_info info;
    tfr_wgpu_describe(p, a, *count, &info);
    bool dup = false;
    for (int k = 0; k < *count && !dup; k++)
      dup = seen[k].vendor_id == info.vendor_id && seen[k].device_id == info.device_id &&
            strcmp(seen[k].name, info.name) == 0 && strcmp(seen[k].driver, info.driver) == 0;
    if (dup) {
      p->wgpuAdapterRelease(a);
      continue;
    }
    seen[*count] = info;
    adapters[(*count)++] = a;
  }
  return TFR_OK;
}

tfr_status tfr_webgpu_enumerate_adapters(const tfr_webgpu_options *options,
                                         tfr_webgpu_adapter_info **out_infos, int *out_count) {
  if (out_infos) *out_infos = NULL;
  if (out_count) *out_count = 0;
  if (!out_infos || !out_count)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "webgpu_enumerate_adapters: %s is NULL",
                     out_infos ? "out_count" : "out_infos");
  tfr_webgpu_backend_type bt = options ? options->backend_type : TFR_WEBGPU_BACKEND_DEFAULT;
  if ((unsigned)bt > TFR_WEBGPU_BACKEND_D3D12)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "webgpu_enumerate_adapters: backend_type %d is not a tfr_webgpu_backend_type",
                     (int)bt);
  const tfr_wgpu_procs *p;
  const char *path;
  TFR_RETURN_IF_ERROR(tfr_wgpu_load(&p, &path));
  WGPUInstance instance = tfr_wgpu_instance_create(p);
  if (!instance)
    return tfr_error(TFR_ERR_BACKEND_UNAVAILABLE,
                     "webgpu_enumerate_adapters: wgpuCreateInstance failed (provider %s)", path);
  WGPUAdapter adapters[TFR_WGPU_MAX_ADAPTERS];
  int n = 0;
  char why[600] = "";
  tfr_status st = tfr_wgpu_collect(p, instance, tfr_wgpu_backend_value(bt), adapters, &n, why,
                                   sizeof why);
  tfr_webgpu_adapter_info *infos = NULL;
  if (!st && n > 0) {
    infos = tfr_calloc((size_t)n, sizeof *infos);
    if (!infos) st = tfr_error(TFR_ERR_OUT_OF_MEMORY, "webgpu_enumerate_adapters: out of host memory");
  }
  for (int i = 0; i < n; i++) {
    if (infos) tfr_wgpu_describe(p, adapters[i], i, &infos[i]);
    p->wgpuAdapterRelease(adapters[i]);
  }
  p->wgpuInstanceRelease(instance);
  if (st) return st;
  *out_infos = infos;
  *out_count = n;
  return TFR_OK;
}

void tfr_webgpu_adapter_infos_free(tfr_webgpu_adapter_info *infos) { tfr_free(infos); }

// ---------------------------------------------------------------------------
// Device
// ---------------------------------------------------------------------------

typedef struct tfr_wgpu_device_request {
  uint32_t status;
  WGPUDevice device;
  char message[512];
} tfr_wgpu_device_request;

static void tfr_wgpu_on_device(uint32_t status, WGPUDevice device, WGPUStringView message,
                               void *ud1, void *ud2) {
  (void)ud2;
  tfr_wgpu_device_request *r = ud1;
  r->status = status;
  r->device = device;
  tfr_wgpu_copy_view(r->message, sizeof r->message, message);
}

tfr_status tfr_wgpu_device_create(tfr_wgpu_backend *b, const tfr_webgpu_options *opts) {
  const tfr_wgpu_procs *p = b->p;
  b->instance = tfr_wgpu_instance_create(p);
  if (!b->instance)
    return tfr_error(TFR_ERR_BACKEND_UNAVAILABLE, "backend_create_webgpu: wgpuCreateInstance failed");
  uint32_t bt = tfr_wgpu_backend_value(opts->backend_type);
  char why[600] = "";
  if (opts->adapter_index == 0) {
    uint32_t power = opts->power_preference == TFR_WEBGPU_POWER_LOW ? WGPU_POWER_LOW_POWER
                     : opts->power_preference == TFR_WEBGPU_POWER_HIGH_PERFORMANCE
                         ? WGPU_POWER_HIGH_PERFORMANCE
                         : WGPU_POWER_UNDEFINED;
    TFR_RETURN_IF_ERROR(
        tfr_wgpu_request_adapter(p, b->instance, bt, power, &b->adapter, why, sizeof why));
  } else {
    WGPUAdapter adapters[TFR_WGPU_MAX_ADAPTERS];
    int n = 0;
    TFR_RETURN_IF_ERROR(tfr_wgpu_collect(p, b->instance, bt, adapters, &n, why, sizeof why));
    for (int i = 0; i < n; i++) {
      if (i == opts->adapter_index) b->adapter = adapters[i];
      else p->wgpuAdapterRelease(adapters[i]);
    }
    if (!b->adapter && n > 0)
      return tfr_error(TFR_ERR_BACKEND_UNAVAILABLE,
                       "backend_create_webgpu: adapter_index %d is beyond the %d adapter%s found",
                       opts->adapter_index, n, n == 1 ? "" : "s");
  }
  if (!b->adapter)
    return tfr_error(TFR_ERR_BACKEND_UNAVAILABLE,
                     "backend_create_webgpu: %s. On a machine without a GPU, run "
                     "scripts/setup-webgpu.sh and source /usr/local/lib/tenferro/webgpu.env "
                     "(lavapipe)",
                     why[0] ? why : "no adapter");
  tfr_wgpu_describe(p, b->adapter, opts->adapter_index, &b->info);

  // The adapter's limits, all of them: without requiredLimits a device gets
  // WebGPU's defaults (256 MiB buffers, 16 KiB workgroup memory).
  WGPULimits limits;
  memset(&limits, 0, sizeof limits);
  if (p->wgpuAdapterGetLimits(b->adapter, &limits) != WGPU_STATUS_SUCCESS)
    return tfr_error(TFR_ERR_BACKEND_UNAVAILABLE,
                     "backend_create_webgpu: wgpuAdapterGetLimits failed on %s", b->info.name);
  uint32_t features[2];
  size_t nfeatures = 0;
  if (b->info.shader_f16) features[nfeatures++] = WGPU_FEATURE_SHADER_F16;
  if (b->info.subgroups) features[nfeatures++] = WGPU_FEATURE_SUBGROUPS;

  WGPUDeviceDescriptor dd;
  memset(&dd, 0, sizeof dd);
  dd.label = tfr_wgpu_str("tenferro");
  dd.requiredFeatureCount = nfeatures;
  dd.requiredFeatures = features;
  dd.requiredLimits = &limits;
  dd.defaultQueue.label = tfr_wgpu_str("tenferro queue");
  // Measurement knob (TFR_WEBGPU_DISABLE_ROBUSTNESS=1): Dawn's
  // "disable_robustness" drops the bounds clamps Tint adds to every storage
  // access. Not a default: an indexing bug would then touch other memory
  // instead of a clamped element.
  static const char *const device_toggles[] = {"disable_robustness"};
  WGPUDawnTogglesDescriptor dt;
  memset(&dt, 0, sizeof dt);
  dt.chain.sType = WGPU_STYPE_DAWN_TOGGLES_DESCRIPTOR;
  dt.enabledToggleCount = 1;
  dt.enabledToggles = device_toggles;
  const char *norobust = getenv("TFR_WEBGPU_DISABLE_ROBUSTNESS");
  if (norobust && strcmp(norobust, "1") == 0) dd.nextInChain = &dt.chain;
  dd.deviceLostCallbackInfo.mode = WGPU_CALLBACK_MODE_ALLOW_SPONTANEOUS;
  dd.deviceLostCallbackInfo.callback = tfr_wgpu_on_device_lost;
  dd.deviceLostCallbackInfo.userdata1 = b;
  dd.uncapturedErrorCallbackInfo.callback = tfr_wgpu_on_uncaptured_error;
  dd.uncapturedErrorCallbackInfo.userdata1 = b;
  tfr_wgpu_device_request r;
  memset(&r, 0, sizeof r);
  WGPURequestDeviceCallbackInfo cb = {NULL, WGPU_CALLBACK_MODE_WAIT_ANY_ONLY, tfr_wgpu_on_device,
                                      &r, NULL};
  WGPUFuture f = p->wgpuAdapterRequestDevice(b->adapter, &dd, cb);
  TFR_RETURN_IF_ERROR(tfr_wgpu_wait(b, f, "backend_create_webgpu: request device"));
  if (r.status != WGPU_STATUS_SUCCESS || !r.device) {
    if (r.device) p->wgpuDeviceRelease(r.device);
    return tfr_error(TFR_ERR_BACKEND_UNAVAILABLE,
                     "backend_create_webgpu: the device request on %s failed (status %u): %s",
                     b->info.name, r.status, r.message);
  }
  b->device = r.device;
  memset(&b->limits, 0, sizeof b->limits);
  if (p->wgpuDeviceGetLimits(b->device, &b->limits) != WGPU_STATUS_SUCCESS) b->limits = limits;
  b->max_groups_per_dim = b->limits.maxComputeWorkgroupsPerDimension;
  if (b->max_groups_per_dim == 0) b->max_groups_per_dim = 65535;
  b->queue = p->wgpuDeviceGetQueue(b->device);
  b->native.instance = b->instance;
  b->native.adapter = b->adapter;
  b->native.device = b->device;
  b->native.queue = b->queue;
  return TFR_OK;
}

void tfr_wgpu_device_release(tfr_wgpu_backend *b) {
  const tfr_wgpu_procs *p = b->p;
  b->destroying = true;
  if (b->queue) p->wgpuQueueRelease(b->queue);
  if (b->device) p->wgpuDeviceRelease(b->device);
  if (b->adapter) p->wgpuAdapterRelease(b->adapter);
  if (b->instance) {
    // Lets Dawn run the callbacks the releases cancelled before it goes.
    p->wgpuInstanceProcessEvents(b->instance);
    p->wgpuInstanceRelease(b->instance);
  }
  b->queue = NULL;
  b->device = NULL;
  b->adapter = NULL;
  b->instance = NULL;
}

// ---------------------------------------------------------------------------
// Buffers
// ---------------------------------------------------------------------------

bool tfr_wgpu_fault(atomic_long *countdown) {
  long n = atomic_load(countdown);
  while (n >= 0 && !atomic_compare_exchange_weak(countdown, &n, n - 1)) {
  }
  return n == 0;
}

tfr_status tfr_wgpu_buffer_create(tfr_wgpu_backend *b, uint64_t size, WGPUBufferUsage usage,
                                  const char *what, WGPUBuffer *out) {
  *out = NULL;
  if (tfr_wgpu_fault(&b->fault_buffers))
    return tfr_error(TFR_ERR_OUT_OF_MEMORY,
                     "webgpu: cannot create a %llu-byte %s buffer on %s (injected failure)",
                     (unsigned long long)size, what, b->info.name);
  WGPUBufferDescriptor d;
  memset(&d, 0, sizeof d);
  d.label = tfr_wgpu_str(what);
  d.usage = usage;
  d.size = size;
  WGPUBuffer buf = b->p->wgpuDeviceCreateBuffer(b->device, &d);
  // Dawn reports an allocation failure through the uncaptured-error callback,
  // inside this call; for absurd sizes it may return NULL with no error.
  tfr_status st = tfr_wgpu_check(b, what);
  if (st) {
    if (buf) b->p->wgpuBufferRelease(buf);
    return st;
  }
  if (!buf)
    return tfr_error(TFR_ERR_OUT_OF_MEMORY, "webgpu: cannot create a %llu-byte %s buffer on %s",
                     (unsigned long long)size, what, b->info.name);
  pthread_mutex_lock(&b->pool.lock);
  b->pool.buffers_created++;
  pthread_mutex_unlock(&b->pool.lock);
  *out = buf;
  return TFR_OK;
}
