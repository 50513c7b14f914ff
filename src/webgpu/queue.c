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
// Why one uniform buffer: each dispatch's parameters take one 512-byte slot of
// a host-side arena; at submit the used slots are written to one device
// buffer with wgpuQueueWriteBuffer just before wgpuQueueSubmit. Queue
// operations run in order, so the next batch may overwrite the buffer: the
// previous submit has read it by then. Bind groups point at the slot (a
// sub-range), so no buffer is created per dispatch.
//
// Why a bind group cache: wgpuDeviceCreateBindGroup was the largest host cost
// of a small op (validation, a descriptor set, and a descriptor pool whenever
// the ones of unfinished submits are full). Ops in a loop bind the same
// pooled buffers again and again, so bind groups are kept by what they bind
// (see tfr_wgpu_bg_entry) and reused. For that the parameter slot must not
// change with the position of the dispatch in its batch: parameters go to a
// slot chosen by the hash of their bytes (linear probing among 2 x per_submit
// slots), and dispatches of a batch with equal parameters share one. A
// dispatch with the same pipeline and bind group as the previous one of the
// pass records only the dispatch. (A dynamic offset for the slot would let
// one bind group serve every slot, but lavapipe copies the descriptor set at
// each bind with dynamic offsets: a chain of five different ops ran 1.7x
// slower there.)
#include <string.h>

#include "webgpu/wgpu.h"

tfr_status tfr_wgpu_queue_init(tfr_wgpu_backend *b) {
  // Every device allows offsets of 256 (the spec's largest alignment).
  if (b->limits.minUniformBufferOffsetAlignment > TFR_WGPU_PARAM_SLOT)
    return tfr_error(TFR_ERR_BACKEND_UNAVAILABLE,
                     "backend_create_webgpu: minUniformBufferOffsetAlignment %u exceeds %d",
                     b->limits.minUniformBufferOffsetAlignment, TFR_WGPU_PARAM_SLOT);
  // Twice the dispatches of a batch: a free slot is always found, mostly at
  // the parameters' home.
  b->rec.nslots = 2 * (uint32_t)b->rec.per_submit;
  uint64_t size = (uint64_t)b->rec.nslots * TFR_WGPU_PARAM_SLOT;
  TFR_RETURN_IF_ERROR(tfr_wgpu_buffer_create(b, size,
                                             WGPU_BUFFER_USAGE_UNIFORM | WGPU_BUFFER_USAGE_COPY_DST,
                                             "uniform arena", &b->rec.uniforms));
  b->pool.other_bytes += size;
  b->rec.arena = tfr_alloc((size_t)size);
  b->rec.slot_batch = tfr_calloc(b->rec.nslots, sizeof *b->rec.slot_batch);
  b->rec.slot_size = tfr_calloc(b->rec.nslots, sizeof *b->rec.slot_size);
  b->rec.bind_groups = tfr_calloc(TFR_WGPU_BG_SETS * TFR_WGPU_BG_WAYS, sizeof *b->rec.bind_groups);
  b->rec.bind_sigs = tfr_calloc(TFR_WGPU_BG_SETS * TFR_WGPU_BG_WAYS, sizeof *b->rec.bind_sigs);
  b->rec.bind_hashes =
      tfr_calloc(TFR_WGPU_BG_SETS * TFR_WGPU_BG_WAYS, sizeof *b->rec.bind_hashes);
  if (!b->rec.arena || !b->rec.slot_batch || !b->rec.slot_size || !b->rec.bind_groups ||
      !b->rec.bind_sigs || !b->rec.bind_hashes)
    return tfr_error(TFR_ERR_OUT_OF_MEMORY, "backend_create_webgpu: out of host memory");
  b->rec.batch = 1;
  return TFR_OK;
}

// One of 64 bits for a buffer (its entries' signature bit).
static uint64_t tfr_wgpu_bg_bit(WGPUBuffer buf) {
  return UINT64_C(1) << (((uint64_t)(uintptr_t)buf * UINT64_C(0x9e3779b97f4a7c15)) >> 58);
}

static void tfr_wgpu_bg_evict(tfr_wgpu_backend *b, tfr_wgpu_bg_entry *e) {
  if (!e->used) return;
  b->rec.bind_sigs[e - b->rec.bind_groups] = 0;
  b->rec.bind_hashes[e - b->rec.bind_groups] = 0;
  // The pass keeps what it recorded; forget it as bound, since a new bind
  // group could be made at the same address.
  if (b->rec.bound_group == e->group) b->rec.bound_group = NULL;
  b->p->wgpuBindGroupRelease(e->group);
  e->group = NULL;
  e->used = 0;
  atomic_fetch_sub(&b->rec.bind_groups_cached, 1);
}

void tfr_wgpu_bind_groups_drop_buffer(tfr_wgpu_backend *b, WGPUBuffer buf) {
  if (!b->rec.bind_groups || !b->rec.bind_sigs || !buf) return;
  uint64_t bit = tfr_wgpu_bg_bit(buf);
  for (int i = 0; i < TFR_WGPU_BG_SETS * TFR_WGPU_BG_WAYS; i++) {
    if (!(b->rec.bind_sigs[i] & bit)) continue;  // binds no buffer of this bit
    tfr_wgpu_bg_entry *e = &b->rec.bind_groups[i];
    if (!e->used) continue;
    for (int k = 0; k < e->nread + e->nwrite; k++)
      if (e->bind[k].buffer == buf) {
        tfr_wgpu_bg_evict(b, e);
        break;
      }
  }
}

void tfr_wgpu_queue_release(tfr_wgpu_backend *b) {
  const tfr_wgpu_procs *p = b->p;
  if (b->rec.bind_groups)
    for (int i = 0; i < TFR_WGPU_BG_SETS * TFR_WGPU_BG_WAYS; i++)
      tfr_wgpu_bg_evict(b, &b->rec.bind_groups[i]);
  tfr_free(b->rec.bind_groups);
  b->rec.bind_groups = NULL;
  tfr_free(b->rec.bind_sigs);
  b->rec.bind_sigs = NULL;
  tfr_free(b->rec.bind_hashes);
  b->rec.bind_hashes = NULL;
  tfr_free(b->rec.slot_batch);
  tfr_free(b->rec.slot_size);
  b->rec.slot_batch = NULL;
  b->rec.slot_size = NULL;
  if (b->rec.pass) p->wgpuComputePassEncoderRelease(b->rec.pass);
  if (b->rec.encoder) p->wgpuCommandEncoderRelease(b->rec.encoder);
  if (b->rec.uniforms) p->wgpuBufferRelease(b->rec.uniforms);
  b->rec.pass = NULL;
  b->rec.encoder = NULL;
  b->rec.uniforms = NULL;
  tfr_free(b->rec.arena);
  b->rec.arena = NULL;
}

// Starts a new batch of parameter slots: every slot free again.
static void tfr_wgpu_next_batch(tfr_wgpu_backend *b) {
  b->rec.arena_lo = b->rec.arena_hi = 0;
  if (++b->rec.batch == 0) {  // wrapped: no stale slot may look current
    memset(b->rec.slot_batch, 0, b->rec.nslots * sizeof *b->rec.slot_batch);
    b->rec.batch = 1;
  }
}

// FNV-1a over 64-bit words (then bytes) of `n` bytes at `p`.
static uint64_t tfr_wgpu_hash_bytes(uint64_t h, const void *p, size_t n) {
  const unsigned char *c = p;
  for (; n >= 8; n -= 8, c += 8) {
    uint64_t w;
    memcpy(&w, c, 8);
    h = (h ^ w) * 1099511628211ULL;
  }
  for (; n > 0; n--, c++) h = (h ^ *c) * 1099511628211ULL;
  return h ^ (h >> 29);
}

// The slot of `params` in the open batch: the one that holds the same bytes
// already, else (*fresh) a free one, probed from the bytes' hash, so that the
// same parameters land in the same slot batch after batch and the bind groups
// that point there can be reused. A fresh slot is taken by tfr_wgpu_take_slot
// once the dispatch is recorded, so a batch never takes more slots than it
// has dispatches (fewer than per_submit): a free slot always exists.
static uint32_t tfr_wgpu_param_slot(const tfr_wgpu_backend *b, const void *params, size_t size,
                                    bool *fresh) {
  uint32_t i = (uint32_t)(tfr_wgpu_hash_bytes(1469598103934665603ULL ^ size, params, size) %
                          b->rec.nslots);
  for (;; i = i + 1 == b->rec.nslots ? 0 : i + 1) {
    *fresh = b->rec.slot_batch[i] != b->rec.batch;
    if (*fresh) return i;
    if (b->rec.slot_size[i] == size &&
        (size == 0 || memcmp(b->rec.arena + (size_t)i * TFR_WGPU_PARAM_SLOT, params, size) == 0))
      return i;
  }
}

static void tfr_wgpu_take_slot(tfr_wgpu_backend *b, uint32_t i, const void *params, size_t size) {
  size_t off = (size_t)i * TFR_WGPU_PARAM_SLOT;
  b->rec.slot_batch[i] = b->rec.batch;
  b->rec.slot_size[i] = (uint32_t)size;
  if (size) memcpy(b->rec.arena + off, params, size);
  if (b->rec.arena_hi == 0 || off < b->rec.arena_lo) b->rec.arena_lo = off;
  if (off + TFR_WGPU_PARAM_SLOT > b->rec.arena_hi) b->rec.arena_hi = off + TFR_WGPU_PARAM_SLOT;
}

// The hash of a bind group's key.
static uint64_t tfr_wgpu_bg_hash(int nread, int nwrite, uint32_t param_offset,
                                 uint32_t param_size, const tfr_wgpu_binding *bind) {
  uint64_t head[2] = {(uint64_t)nread << 40 | (uint64_t)nwrite << 32 | param_size, param_offset};
  uint64_t h = tfr_wgpu_hash_bytes(1469598103934665603ULL, head, sizeof head);
  return tfr_wgpu_hash_bytes(h, bind, (size_t)(nread + nwrite) * sizeof *bind);
}

// The bind group of the parameters (param_size bytes at param_offset of the
// uniform arena) and `bind`, from the cache or made and cached. Borrowed: the
// cache owns it.
static tfr_status tfr_wgpu_bind_group(tfr_wgpu_backend *b, WGPUBindGroupLayout layout,
                                      int nread, int nwrite, uint32_t param_offset,
                                      uint32_t param_size, const tfr_wgpu_binding *bind,
                                      WGPUBindGroup *out) {
  int n = nread + nwrite;
  uint64_t h = tfr_wgpu_bg_hash(nread, nwrite, param_offset, param_size, bind);
  if (h == 0) h = 1;  // 0 marks an empty way
  size_t first = (size_t)(h % TFR_WGPU_BG_SETS) * TFR_WGPU_BG_WAYS;
  tfr_wgpu_bg_entry *set = &b->rec.bind_groups[first];
  const uint64_t *hashes = &b->rec.bind_hashes[first];
  for (int w = 0; w < TFR_WGPU_BG_WAYS; w++) {
    if (hashes[w] != h) continue;
    tfr_wgpu_bg_entry *e = &set[w];
    if (e->nread == nread && e->nwrite == nwrite && e->param_offset == param_offset &&
        e->param_size == param_size && memcmp(e->bind, bind, (size_t)n * sizeof *bind) == 0) {
      e->used = ++b->rec.bg_clock;
      atomic_fetch_add(&b->rec.bind_group_hits, 1);
      *out = e->group;
      return TFR_OK;
    }
  }
  // A miss: an empty way first, else the least recently used.
  tfr_wgpu_bg_entry *victim = &set[0];
  for (int w = 1; w < TFR_WGPU_BG_WAYS; w++)
    if (set[w].used < victim->used) victim = &set[w];
  WGPUBindGroupEntry entries[1 + TFR_WGPU_MAX_READ + TFR_WGPU_MAX_WRITE];
  memset(entries, 0, (size_t)(1 + n) * sizeof entries[0]);
  entries[0].binding = 0;
  entries[0].buffer = b->rec.uniforms;
  entries[0].offset = param_offset;
  entries[0].size = param_size;
  for (int i = 0; i < n; i++) {
    entries[1 + i].binding = (uint32_t)(1 + i);
    entries[1 + i].buffer = bind[i].buffer;
    entries[1 + i].offset = bind[i].offset;
    entries[1 + i].size = bind[i].size;
  }
  WGPUBindGroupDescriptor bd;
  memset(&bd, 0, sizeof bd);
  bd.layout = layout;
  bd.entryCount = (size_t)(1 + n);
  bd.entries = entries;
  WGPUBindGroup group = b->p->wgpuDeviceCreateBindGroup(b->device, &bd);
  // An invalid bind group (Dawn reports it to the uncaptured-error callback)
  // is not kept: the error surfaces now.
  tfr_status st = atomic_load(&b->error_pending) ? tfr_wgpu_check(b, "webgpu") : TFR_OK;
  if (st || !group) {
    if (group) b->p->wgpuBindGroupRelease(group);
    if (st) return st;
    TFR_RETURN_IF_ERROR(tfr_wgpu_check(b, "webgpu"));
    return tfr_error(TFR_ERR_INTERNAL, "webgpu: wgpuDeviceCreateBindGroup returned NULL");
  }
  atomic_fetch_add(&b->rec.bind_groups_created, 1);
  tfr_wgpu_bg_evict(b, victim);
  victim->used = ++b->rec.bg_clock;
  victim->group = group;
  victim->nread = nread;
  victim->nwrite = nwrite;
  victim->param_offset = param_offset;
  victim->param_size = param_size;
  memcpy(victim->bind, bind, (size_t)n * sizeof *bind);
  uint64_t sig = 0;
  for (int i = 0; i < n; i++) sig |= tfr_wgpu_bg_bit(bind[i].buffer);
  b->rec.bind_sigs[victim - b->rec.bind_groups] = sig;
  b->rec.bind_hashes[victim - b->rec.bind_groups] = h;
  atomic_fetch_add(&b->rec.bind_groups_cached, 1);
  *out = group;
  return TFR_OK;
}

static tfr_status tfr_wgpu_open_encoder(tfr_wgpu_backend *b) {
  if (b->rec.encoder) return TFR_OK;
  WGPUCommandEncoderDescriptor d;
  memset(&d, 0, sizeof d);
  d.label = tfr_wgpu_str("tenferro session");
  b->rec.encoder = b->p->wgpuDeviceCreateCommandEncoder(b->device, &d);
  if (!b->rec.encoder) {
    TFR_RETURN_IF_ERROR(tfr_wgpu_check(b, "webgpu"));
    return tfr_error(TFR_ERR_INTERNAL, "webgpu: wgpuDeviceCreateCommandEncoder returned NULL");
  }
  return TFR_OK;
}

static void tfr_wgpu_end_pass(tfr_wgpu_backend *b) {
  if (!b->rec.pass) return;
  b->p->wgpuComputePassEncoderEnd(b->rec.pass);
  b->p->wgpuComputePassEncoderRelease(b->rec.pass);
  b->rec.pass = NULL;
}

tfr_status tfr_wgpu_copy_encoder(tfr_wgpu_backend *b, WGPUCommandEncoder *out) {
  TFR_RETURN_IF_ERROR(tfr_wgpu_open_encoder(b));
  tfr_wgpu_end_pass(b);
  *out = b->rec.encoder;
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
  assert(params_size <= TFR_WGPU_PARAM_SLOT && b->rec.recorded < b->rec.per_submit);
  if (groups == 0) return TFR_OK;
  uint64_t m = b->max_groups_per_dim;
  if (groups > m * m * m)
    return tfr_error(TFR_ERR_INTERNAL, "webgpu: %llu workgroups exceed a %llu^3 grid",
                     (unsigned long long)groups, (unsigned long long)m);
  WGPUBindGroupLayout layout;
  TFR_RETURN_IF_ERROR(tfr_wgpu_layout_get(b, nread, nwrite, &layout, NULL));
  const tfr_wgpu_procs *p = b->p;
  TFR_RETURN_IF_ERROR(tfr_wgpu_open_encoder(b));
  if (!b->rec.pass) {
    WGPUComputePassDescriptor pd;
    memset(&pd, 0, sizeof pd);
    b->rec.pass = p->wgpuCommandEncoderBeginComputePass(b->rec.encoder, &pd);
    if (!b->rec.pass) {
      TFR_RETURN_IF_ERROR(tfr_wgpu_check(b, "webgpu"));
      return tfr_error(TFR_ERR_INTERNAL, "webgpu: wgpuCommandEncoderBeginComputePass returned NULL");
    }
    b->rec.bound_pipeline = NULL;
    b->rec.bound_group = NULL;
  }
  // Uniform structs are 16-byte multiples; an empty one still binds 16.
  uint32_t param_size = params_size ? (uint32_t)((params_size + 15) & ~(size_t)15) : 16;
  bool fresh;
  uint32_t slot = tfr_wgpu_param_slot(b, params, params_size, &fresh);
  WGPUBindGroup group;
  TFR_RETURN_IF_ERROR(tfr_wgpu_bind_group(b, layout, nread, nwrite,
                                          slot * (uint32_t)TFR_WGPU_PARAM_SLOT, param_size,
                                          bindings, &group));
  if (fresh) tfr_wgpu_take_slot(b, slot, params, params_size);
  uint32_t grid[3];
  tfr_wgpu_fold_grid(groups, b->max_groups_per_dim, grid);
  if (b->rec.bound_pipeline != pipeline) {
    p->wgpuComputePassEncoderSetPipeline(b->rec.pass, pipeline);
    b->rec.bound_pipeline = pipeline;
  }
  if (b->rec.bound_group != group) {
    p->wgpuComputePassEncoderSetBindGroup(b->rec.pass, 0, group, 0, NULL);
    b->rec.bound_group = group;
  }
  p->wgpuComputePassEncoderDispatchWorkgroups(b->rec.pass, grid[0], grid[1], grid[2]);
  b->rec.recorded++;
  atomic_fetch_add(&b->rec.dispatches, 1);
  if (b->rec.recorded >= b->rec.per_submit) return tfr_wgpu_flush(b, "webgpu");
  return TFR_OK;
}

tfr_status tfr_wgpu_flush(tfr_wgpu_backend *b, const char *op) {
  if (!b->rec.encoder) return tfr_wgpu_check(b, op);
  const tfr_wgpu_procs *p = b->p;
  tfr_wgpu_end_pass(b);
  WGPUCommandBuffer cmd = p->wgpuCommandEncoderFinish(b->rec.encoder, NULL);
  p->wgpuCommandEncoderRelease(b->rec.encoder);
  b->rec.encoder = NULL;
  // Before the submit, so that its dispatches read this batch's parameters
  // (the span of the slots it used).
  if (b->rec.arena_hi)
    p->wgpuQueueWriteBuffer(b->queue, b->rec.uniforms, b->rec.arena_lo, b->rec.arena + b->rec.arena_lo,
                            b->rec.arena_hi - b->rec.arena_lo);
  if (cmd) {
    p->wgpuQueueSubmit(b->queue, 1, &cmd);
    p->wgpuCommandBufferRelease(cmd);
  }
  atomic_fetch_add(&b->rec.submits, 1);
  b->rec.recorded = 0;
  tfr_wgpu_next_batch(b);
  return tfr_wgpu_check(b, op);
}

void tfr_wgpu_discard(tfr_wgpu_backend *b) {
  if (b->rec.pass) b->p->wgpuComputePassEncoderRelease(b->rec.pass);
  if (b->rec.encoder) b->p->wgpuCommandEncoderRelease(b->rec.encoder);
  b->rec.pass = NULL;
  b->rec.encoder = NULL;
  b->rec.recorded = 0;
  tfr_wgpu_next_batch(b);
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
