// Recording and submission: one command encoder per session, compute
// dispatches batched into it, kernel parameters in a uniform arena, and the
// waits at download and session end.
//
// Why batched: a submit with a wait after it costs ~55 us on the H200 and
// ~80-100 us on lavapipe, a dispatch in a batch of 64 ~3-5 us (DESIGN.md,
// ../shared/webgpu/README.md). So ops only record; the encoder goes to the
// queue every `per_submit` dispatches without waiting, and only a download
// or the session end waits.
//
// Why one uniform buffer: each dispatch's parameters take one 256-byte slot of
// a host-side arena; at submit the arena is written to one device buffer with
// wgpuQueueWriteBuffer just before wgpuQueueSubmit. Queue operations run in
// order, so the next batch may overwrite the buffer: the previous submit has
// read it by then. Bind groups point at the slot (a sub-range), so no buffer
// is created per dispatch.
#include <string.h>

#include "webgpu/wgpu.h"

tfr_status tfr_wgpu_queue_init(tfr_wgpu_backend *b) {
  // Every device allows offsets of 256 (the spec's largest alignment).
  if (b->limits.minUniformBufferOffsetAlignment > TFR_WGPU_PARAM_SLOT)
    return tfr_error(TFR_ERR_BACKEND_UNAVAILABLE,
                     "backend_create_webgpu: minUniformBufferOffsetAlignment %u exceeds %d",
                     b->limits.minUniformBufferOffsetAlignment, TFR_WGPU_PARAM_SLOT);
  uint64_t size = (uint64_t)b->per_submit * TFR_WGPU_PARAM_SLOT;
  TFR_RETURN_IF_ERROR(tfr_wgpu_buffer_create(b, size,
                                             WGPU_BUFFER_USAGE_UNIFORM | WGPU_BUFFER_USAGE_COPY_DST,
                                             "uniform arena", &b->uniforms));
  b->other_bytes += size;
  b->arena = tfr_alloc((size_t)size);
  if (!b->arena)
    return tfr_error(TFR_ERR_OUT_OF_MEMORY, "backend_create_webgpu: out of host memory");
  return TFR_OK;
}

void tfr_wgpu_queue_release(tfr_wgpu_backend *b) {
  const tfr_wgpu_procs *p = b->p;
  if (b->pass) p->wgpuComputePassEncoderRelease(b->pass);
  if (b->encoder) p->wgpuCommandEncoderRelease(b->encoder);
  if (b->uniforms) p->wgpuBufferRelease(b->uniforms);
  b->pass = NULL;
  b->encoder = NULL;
  b->uniforms = NULL;
  tfr_free(b->arena);
  b->arena = NULL;
}

static tfr_status tfr_wgpu_open_encoder(tfr_wgpu_backend *b) {
  if (b->encoder) return TFR_OK;
  WGPUCommandEncoderDescriptor d;
  memset(&d, 0, sizeof d);
  d.label = tfr_wgpu_str("tenferro session");
  b->encoder = b->p->wgpuDeviceCreateCommandEncoder(b->device, &d);
  if (!b->encoder) {
    TFR_RETURN_IF_ERROR(tfr_wgpu_check(b, "webgpu"));
    return tfr_error(TFR_ERR_INTERNAL, "webgpu: wgpuDeviceCreateCommandEncoder returned NULL");
  }
  return TFR_OK;
}

static void tfr_wgpu_end_pass(tfr_wgpu_backend *b) {
  if (!b->pass) return;
  b->p->wgpuComputePassEncoderEnd(b->pass);
  b->p->wgpuComputePassEncoderRelease(b->pass);
  b->pass = NULL;
}

tfr_status tfr_wgpu_copy_encoder(tfr_wgpu_backend *b, WGPUCommandEncoder *out) {
  TFR_RETURN_IF_ERROR(tfr_wgpu_open_encoder(b));
  tfr_wgpu_end_pass(b);
  *out = b->encoder;
  return TFR_OK;
}

void tfr_wgpu_fold_grid(uint64_t groups, uint32_t max_per_dim, uint32_t grid[3]) {
  // Kernels rebuild the linear index as x + nx * (y + ny * z) and return
  // early past the end, so the grid may overshoot `groups`.
  uint64_t m = max_per_dim;
  if (groups <= m) {
    grid[0] = (uint32_t)groups;
    grid[1] = grid[2] = 1;
    return;
  }
  uint64_t y = (groups + m - 1) / m;
  grid[0] = (uint32_t)m;
  if (y <= m) {
    grid[1] = (uint32_t)y;
    grid[2] = 1;
  } else {
    grid[1] = (uint32_t)m;
    grid[2] = (uint32_t)((y + m - 1) / m);
  }
}

tfr_status tfr_wgpu_dispatch(tfr_wgpu_backend *b, WGPUComputePipeline pipeline,
                             const void *params, size_t params_size, tfr_wgpu_binding src,
                             tfr_wgpu_binding dst, uint64_t groups) {
  tfr_wgpu_binding bindings[2] = {src, dst};
  return tfr_wgpu_dispatch_n(b, pipeline, params, params_size, bindings, 1, 1, groups);
}

tfr_status tfr_wgpu_dispatch_n(tfr_wgpu_backend *b, WGPUComputePipeline pipeline,
                               const void *params, size_t params_size,
                               const tfr_wgpu_binding *bindings, int nread, int nwrite,
                               uint64_t groups) {
  assert(params_size <= TFR_WGPU_PARAM_SLOT && b->recorded < b->per_submit);
  if (groups == 0) return TFR_OK;
  uint64_t m = b->max_groups_per_dim;
  if (groups > m * m * m)
    return tfr_error(TFR_ERR_INTERNAL, "webgpu: %llu workgroups exceed a %llu^3 grid",
                     (unsigned long long)groups, (unsigned long long)m);
  WGPUBindGroupLayout layout;
  TFR_RETURN_IF_ERROR(tfr_wgpu_layout_get(b, nread, nwrite, &layout, NULL));
  const tfr_wgpu_procs *p = b->p;
  TFR_RETURN_IF_ERROR(tfr_wgpu_open_encoder(b));
  if (!b->pass) {
    WGPUComputePassDescriptor pd;
    memset(&pd, 0, sizeof pd);
    b->pass = p->wgpuCommandEncoderBeginComputePass(b->encoder, &pd);
    if (!b->pass) {
      TFR_RETURN_IF_ERROR(tfr_wgpu_check(b, "webgpu"));
      return tfr_error(TFR_ERR_INTERNAL, "webgpu: wgpuCommandEncoderBeginComputePass returned NULL");
    }
  }
  size_t offset = b->arena_used;
  if (params_size) memcpy(b->arena + offset, params, params_size);
  b->arena_used += TFR_WGPU_PARAM_SLOT;

  WGPUBindGroupEntry entries[1 + TFR_WGPU_MAX_READ + TFR_WGPU_MAX_WRITE];
  int n = 1 + nread + nwrite;
  memset(entries, 0, sizeof entries);
  entries[0].binding = 0;
  entries[0].buffer = b->uniforms;
  entries[0].offset = offset;
  // Uniform structs are 16-byte multiples; an empty one still binds 16.
  entries[0].size = params_size ? (params_size + 15) & ~(size_t)15 : 16;
  for (int i = 1; i < n; i++) {
    entries[i].binding = (uint32_t)i;
    entries[i].buffer = bindings[i - 1].buffer;
    entries[i].offset = bindings[i - 1].offset;
    entries[i].size = bindings[i - 1].size;
  }
  WGPUBindGroupDescriptor bd;
  memset(&bd, 0, sizeof bd);
  bd.layout = layout;
  bd.entryCount = (size_t)n;
  bd.entries = entries;
  WGPUBindGroup group = p->wgpuDeviceCreateBindGroup(b->device, &bd);
  if (!group) {
    TFR_RETURN_IF_ERROR(tfr_wgpu_check(b, "webgpu"));
    return tfr_error(TFR_ERR_INTERNAL, "webgpu: wgpuDeviceCreateBindGroup returned NULL");
  }
  uint32_t grid[3];
  tfr_wgpu_fold_grid(groups, b->max_groups_per_dim, grid);
  p->wgpuComputePassEncoderSetPipeline(b->pass, pipeline);
  p->wgpuComputePassEncoderSetBindGroup(b->pass, 0, group, 0, NULL);
  p->wgpuComputePassEncoderDispatchWorkgroups(b->pass, grid[0], grid[1], grid[2]);
  p->wgpuBindGroupRelease(group);  // the encoder keeps what it needs
  b->recorded++;
  atomic_fetch_add(&b->dispatches, 1);
  if (b->recorded >= b->per_submit) return tfr_wgpu_flush(b, "webgpu");
  return TFR_OK;
}

tfr_status tfr_wgpu_flush(tfr_wgpu_backend *b, const char *op) {
  if (!b->encoder) return tfr_wgpu_check(b, op);
  const tfr_wgpu_procs *p = b->p;
  tfr_wgpu_end_pass(b);
  WGPUCommandBuffer cmd = p->wgpuCommandEncoderFinish(b->encoder, NULL);
  p->wgpuCommandEncoderRelease(b->encoder);
  b->encoder = NULL;
  // Before the submit, so that its dispatches read this batch's parameters.
  if (b->arena_used) p->wgpuQueueWriteBuffer(b->queue, b->uniforms, 0, b->arena, b->arena_used);
  if (cmd) {
    p->wgpuQueueSubmit(b->queue, 1, &cmd);
    p->wgpuCommandBufferRelease(cmd);
  }
  atomic_fetch_add(&b->submits, 1);
  b->recorded = 0;
  b->arena_used = 0;
  return tfr_wgpu_check(b, op);
}

typedef struct tfr_wgpu_done {
  uint32_t status;
  char message[256];
} tfr_wgpu_done;

static void tfr_wgpu_on_done(uint32_t status, WGPUStringView message, void *ud1, void *ud2) {
  (void)ud2;
  tfr_wgpu_done *d = ud1;
  d->status = status;
  tfr_wgpu_copy_view(d->message, sizeof d->message, message);
}

tfr_status tfr_wgpu_finish(tfr_wgpu_backend *b, const char *op) {
  TFR_RETURN_IF_ERROR(tfr_wgpu_flush(b, op));
  tfr_wgpu_done done = {0, ""};
  WGPUQueueWorkDoneCallbackInfo cb = {NULL, WGPU_CALLBACK_MODE_WAIT_ANY_ONLY, tfr_wgpu_on_done,
                                      &done, NULL};
  WGPUFuture f = b->p->wgpuQueueOnSubmittedWorkDone(b->queue, cb);
  tfr_status st = tfr_wgpu_wait(b, f, op);
  // A lost device ends the wait: report it with Dawn's reason.
  tfr_status check = tfr_wgpu_check(b, op);
  if (check) return check;
  if (st) return st;
  if (done.status != WGPU_STATUS_SUCCESS)
    return tfr_error(TFR_ERR_INTERNAL, "%s: webgpu: waiting for the queue failed (status %u): %s",
                     op, done.status, done.message);
  return TFR_OK;
}
