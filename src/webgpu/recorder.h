// The command recorder's state: the open encoder and compute pass, the
// uniform arena, the bind group cache and the dispatch counters (queue.c
// owns it; part of the backend object).
#ifndef TENFERRO_SRC_WEBGPU_RECORDER_H_
#define TENFERRO_SRC_WEBGPU_RECORDER_H_

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "webgpu/kernel_cache.h"  // TFR_WGPU_MAX_READ / _WRITE
#include "webgpu/webgpu_abi.h"

// Bytes of one slot of the uniform arena: every kernel's parameters fit (the
// strided elementwise kernel's table of 16 axes is the largest), and it is a
// multiple of every minUniformBufferOffsetAlignment (at most 256).
#define TFR_WGPU_PARAM_SLOT 512
#define TFR_WGPU_DEFAULT_PER_SUBMIT 64
#define TFR_WGPU_MAX_PER_SUBMIT 4096

// Bind groups (queue.c) by what they bind: the binding signature, the slot
// and size of the parameters in the uniform arena and every storage binding
// (buffer, offset, size). TFR_WGPU_BG_SETS sets of TFR_WGPU_BG_WAYS entries,
// least recently used replaced; an entry holds a reference to its bind group,
// hence to its buffers, so every buffer the backend releases has its entries
// dropped first (tfr_wgpu_bind_groups_drop_buffer). 4096 entries (about 600
// bytes each): a plan of about a thousand dispatches replays with every bind
// group cached (docs/webgpu.md, "Record once, replay"); 256 entries, the size
// before, made a network of 368 dispatches create ~180 bind groups per run.
#define TFR_WGPU_BG_SETS 512
#define TFR_WGPU_BG_WAYS 8

// A buffer range bound to a kernel.
typedef struct tfr_wgpu_binding {
  WGPUBuffer buffer;
  uint64_t offset;  // bytes, a multiple of minStorageBufferOffsetAlignment
  uint64_t size;    // bytes, a multiple of 4
} tfr_wgpu_binding;

// (Its hash is in tfr_wgpu_recorder.bind_hashes.)
typedef struct tfr_wgpu_bg_entry {
  uint64_t used;        // clock of the last use; 0: empty
  WGPUBindGroup group;  // owned
  int nread, nwrite;
  uint32_t param_offset;  // of the parameter binding in the uniform arena
  uint32_t param_size;    // bytes of the parameter binding
  tfr_wgpu_binding bind[TFR_WGPU_MAX_READ + TFR_WGPU_MAX_WRITE];
} tfr_wgpu_bg_entry;

// Only the session's thread touches these (the atomics excepted).
typedef struct tfr_wgpu_recorder {
  WGPUCommandEncoder encoder;
  WGPUComputePassEncoder pass;
  int per_submit;
  int recorded;                   // dispatches in the open encoder
  WGPUBuffer uniforms;            // the uniform arena on the device: nslots slots
  unsigned char *arena;           // its host image for the open encoder
  uint32_t nslots;                // 2 * per_submit
  uint32_t batch;                 // number of the open batch (never 0)
  uint32_t *slot_batch;           // [nslots]: the batch that last took the slot
  uint32_t *slot_size;            // [nslots]: bytes of parameters in it
  size_t arena_lo, arena_hi;      // span of the slots the open batch took (hi 0: none)
  // What the open compute pass has bound (NULL: nothing yet), so that a
  // dispatch with the same pipeline or bind group as the one before it does
  // not record it again.
  WGPUComputePipeline bound_pipeline;
  WGPUBindGroup bound_group;
  tfr_wgpu_bg_entry *bind_groups;  // [TFR_WGPU_BG_SETS * TFR_WGPU_BG_WAYS]
  // [TFR_WGPU_BG_SETS * TFR_WGPU_BG_WAYS], dense: bit tfr_wgpu_bg_bit(buffer)
  // of every buffer entry i binds (0: empty), so that releasing a buffer
  // looks only at the entries that may bind it.
  uint64_t *bind_sigs;
  // [TFR_WGPU_BG_SETS * TFR_WGPU_BG_WAYS], dense: entry i's hash (0: empty;
  // a key's hash is never 0), so that a lookup reads a set's 8 hashes (64 bytes)
  // and touches only the entry whose hash matches.
  uint64_t *bind_hashes;
  uint64_t bg_clock;
  atomic_uint_fast64_t dispatches;  // atomics: tfr_webgpu_get_stats reads them anywhere
  atomic_uint_fast64_t submits;
  atomic_uint_fast64_t bind_groups_created;
  atomic_uint_fast64_t bind_group_hits;
  atomic_int bind_groups_cached;
} tfr_wgpu_recorder;

#endif  // TENFERRO_SRC_WEBGPU_RECORDER_H_
