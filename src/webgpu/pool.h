// The buffer pool's state (memory.c owns it; part of the backend object).
#ifndef TENFERRO_SRC_WEBGPU_POOL_H_
#define TENFERRO_SRC_WEBGPU_POOL_H_

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "webgpu/webgpu_abi.h"

// Buffer size classes: four per power of two, from 256 bytes.
#define TFR_WGPU_POOL_CLASSES 256

// A size class's free buffers: a binary min-heap by creation number
// (memory.c); the deferred list uses it as a plain list.
typedef struct tfr_wgpu_buffer_list {
  WGPUBuffer *items;
  uint64_t *serials;  // [capacity]: each item's creation number (0: not known)
  int count;
  int capacity;
} tfr_wgpu_buffer_list;

// `lock` guards everything: storage_free runs on any thread.
typedef struct tfr_wgpu_pool {
  pthread_mutex_t lock;
  bool enabled;
  size_t cap;
  size_t bytes;
  tfr_wgpu_buffer_list classes[TFR_WGPU_POOL_CLASSES];
  tfr_wgpu_buffer_list deferred;  // released off the session thread: freed later
  uint64_t deferred_bytes;
  uint64_t tensor_bytes;
  uint64_t other_bytes;           // staging + uniform arena
  uint64_t buffers_created;
  uint64_t tensor_serial;  // creation number of the last tensor buffer made
  uint64_t hits;
} tfr_wgpu_pool;

#endif  // TENFERRO_SRC_WEBGPU_POOL_H_
