// The kernel cache (see kernel_cache.h): entries in insertion order, found
// through an open-addressing table of their indices. A lookup hashes the key
// (FNV-1a), then compares the stored key whole.
#include "webgpu/kernel_cache.h"

#include <string.h>

static uint64_t tfr_wgpu_kernel_hash(tfr_wgpu_kernel_family family, const void *key, size_t len) {
  const unsigned char *d = key;
  uint64_t h = (1469598103934665603ULL ^ (unsigned char)family) * 1099511628211ULL;
  for (size_t i = 0; i < len; i++) h = (h ^ d[i]) * 1099511628211ULL;
  return h;
}

static bool tfr_wgpu_kernel_match(const tfr_wgpu_kernel_entry *e, uint64_t h,
                                  tfr_wgpu_kernel_family family, const void *key, size_t len) {
  return e->hash == h && e->key_len == len + 1 && e->key[0] == (unsigned char)family &&
         memcmp(e->key + 1, key, len) == 0;
}

WGPUComputePipeline tfr_wgpu_kernel_cache_find(const tfr_wgpu_kernel_cache *c,
                                               tfr_wgpu_kernel_family family, const void *key,
                                               size_t len) {
  if (!c->nslots) return NULL;
  uint64_t h = tfr_wgpu_kernel_hash(family, key, len);
  uint32_t mask = c->nslots - 1;
  for (uint32_t i = (uint32_t)h & mask;; i = (i + 1) & mask) {
    uint32_t s = c->slots[i];
    if (!s) return NULL;
    const tfr_wgpu_kernel_entry *e = &c->entries[s - 1];
    if (tfr_wgpu_kernel_match(e, h, family, key, len)) return e->pipeline;
  }
}

static void tfr_wgpu_kernel_place(uint32_t *slots, uint32_t nslots, uint64_t h, uint32_t index) {
  uint32_t mask = nslots - 1;
  uint32_t i = (uint32_t)h & mask;
  while (slots[i]) i = (i + 1) & mask;
  slots[i] = index + 1;
}

tfr_status tfr_wgpu_kernel_cache_add(tfr_wgpu_kernel_cache *c, tfr_wgpu_kernel_family family,
                                     const void *key, size_t len, WGPUComputePipeline pipeline,
                                     const char *what) {
  if ((uint32_t)(c->count + 1) * 2 > c->nslots) {  // keep the table at most half full
    uint32_t n = c->nslots ? 2 * c->nslots : 64;
    uint32_t *slots = tfr_calloc(n, sizeof *slots);
    if (!slots) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "webgpu: kernel %s: out of host memory", what);
    for (int i = 0; i < c->count; i++) tfr_wgpu_kernel_place(slots, n, c->entries[i].hash, (uint32_t)i);
    tfr_free(c->slots);
    c->slots = slots;
    c->nslots = n;
  }
  if (c->count == c->capacity) {
    int cap = c->capacity ? 2 * c->capacity : 32;
    tfr_wgpu_kernel_entry *e = tfr_realloc(c->entries, (size_t)cap * sizeof *e);
    if (!e) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "webgpu: kernel %s: out of host memory", what);
    c->entries = e;
    c->capacity = cap;
  }
  unsigned char *k = tfr_alloc(len + 1);
  if (!k) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "webgpu: kernel %s: out of host memory", what);
  k[0] = (unsigned char)family;
  if (len) memcpy(k + 1, key, len);
  uint64_t h = tfr_wgpu_kernel_hash(family, key, len);
  c->entries[c->count] = (tfr_wgpu_kernel_entry){h, k, len + 1, pipeline};
  tfr_wgpu_kernel_place(c->slots, c->nslots, h, (uint32_t)c->count);
  c->count++;
  c->family_count[family]++;
  atomic_store(&c->published, c->count);
  return TFR_OK;
}

void tfr_wgpu_kernel_cache_clear(tfr_wgpu_kernel_cache *c,
                                 void (*release)(void *ctx, WGPUComputePipeline pipeline),
                                 void *ctx) {
  for (int i = 0; i < c->count; i++) {
    release(ctx, c->entries[i].pipeline);
    tfr_free(c->entries[i].key);
  }
  tfr_free(c->entries);
  tfr_free(c->slots);
  c->entries = NULL;
  c->slots = NULL;
  c->count = c->capacity = 0;
  c->nslots = 0;
  memset(c->family_count, 0, sizeof c->family_count);
  atomic_store(&c->published, 0);
}
