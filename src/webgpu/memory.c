// Device memory: the size-bucketed buffer pool behind tensor storages (the
// transfers between host and device are transfer.c's).
//
// Device layout: a storage holds the host layout's bytes (i64, f64, c64, c128
// included: kernels that need the values decode 32-bit words), bool one byte
// per element, so four bools share a 32-bit word. Buffers are sized in
// multiples of 4 bytes because WebGPU copies, clears and storage bindings work
// on 4-byte units.
//
// Ordering: every command goes through the one queue, in order. A buffer that
// returns to the pool while recorded dispatches still read it can therefore be
// handed to a later op of the same session at once (that op's writes are
// recorded after the reads).
#include <stdio.h>
#include <string.h>

#include "webgpu/wgpu.h"

// Size class of `nbytes` (four per power of two, from 256 bytes) and the
// class's byte size.
static int tfr_wgpu_size_class(uint64_t nbytes, uint64_t *class_bytes) {
  if (nbytes < 256) nbytes = 256;
  int lg = 63 - __builtin_clzll((unsigned long long)nbytes);
  uint64_t base = (uint64_t)1 << lg;
  uint64_t quarter = base >> 2;
  int sub = (int)((nbytes - base + quarter - 1) / quarter);
  if (sub == 4) {
    lg++;
    sub = 0;
    base <<= 1;
    quarter <<= 1;
  }
  *class_bytes = base + (uint64_t)sub * quarter;
  return lg * 4 + sub;
}

// A list is a binary min-heap by creation number (serial): the pool takes
// the free buffer of a class that was made first (tfr_wgpu_list_pop).
static void tfr_wgpu_list_swap(tfr_wgpu_buffer_list *l, int i, int j) {
  WGPUBuffer b = l->items[i];
  uint64_t s = l->serials[i];
  l->items[i] = l->items[j], l->serials[i] = l->serials[j];
  l->items[j] = b, l->serials[j] = s;
}

static bool tfr_wgpu_list_push(tfr_wgpu_buffer_list *l, WGPUBuffer buf, uint64_t serial) {
  if (l->count == l->capacity) {
    int cap = l->capacity ? 2 * l->capacity : 8;
    WGPUBuffer *items = tfr_realloc(l->items, (size_t)cap * sizeof *items);
    if (!items) return false;
    l->items = items;
    uint64_t *serials = tfr_realloc(l->serials, (size_t)cap * sizeof *serials);
    if (!serials) return false;  // items grew: harmless, capacity stays
    l->serials = serials;
    l->capacity = cap;
  }
  int i = l->count++;
  l->items[i] = buf;
  l->serials[i] = serial;
  while (i > 0 && l->serials[(i - 1) / 2] > l->serials[i]) {
    tfr_wgpu_list_swap(l, i, (i - 1) / 2);
    i = (i - 1) / 2;
  }
  return true;
}

// Takes the buffer with the lowest serial (count > 0).
static WGPUBuffer tfr_wgpu_list_pop(tfr_wgpu_buffer_list *l, uint64_t *serial) {
  WGPUBuffer buf = l->items[0];
  *serial = l->serials[0];
  l->count--;
  l->items[0] = l->items[l->count];
  l->serials[0] = l->serials[l->count];
  for (int i = 0;;) {
    int c = 2 * i + 1;
    if (c >= l->count) break;
    if (c + 1 < l->count && l->serials[c + 1] < l->serials[c]) c++;
    if (l->serials[i] <= l->serials[c]) break;
    tfr_wgpu_list_swap(l, i, c);
    i = c;
  }
  return buf;
}

// True on the thread that holds the session of `b`: the only one that may
// make Dawn calls on the device (Dawn objects are not thread-safe).
static bool tfr_wgpu_on_session_thread(tfr_wgpu_backend *b) {
  tfr_session *s = tfr_session_current();
  return s && s->backend == &b->base;
}

// Releases a buffer that kernels may have bound (session thread only), after
// the cached bind groups that bind it.
static void tfr_wgpu_buffer_release(tfr_wgpu_backend *b, WGPUBuffer buf) {
  tfr_wgpu_bind_groups_drop_buffer(b, buf);
  b->p->wgpuBufferRelease(buf);
}

// The same for every buffer of `l`, and frees the list.
static void tfr_wgpu_buffers_release(tfr_wgpu_backend *b, tfr_wgpu_buffer_list *l) {
  for (int i = 0; i < l->count; i++) tfr_wgpu_buffer_release(b, l->items[i]);
  tfr_free(l->items);
  tfr_free(l->serials);
}

// Releases every pooled buffer (session thread only); returns whether there
// was any.
static bool tfr_wgpu_pool_trim(tfr_wgpu_backend *b) {
  bool any = false;
  for (int c = 0; c < TFR_WGPU_POOL_CLASSES; c++) {
    pthread_mutex_lock(&b->pool.lock);
    tfr_wgpu_buffer_list l = b->pool.classes[c];
    memset(&b->pool.classes[c], 0, sizeof b->pool.classes[c]);
    pthread_mutex_unlock(&b->pool.lock);
    tfr_wgpu_buffers_release(b, &l);
    any |= l.count > 0;
  }
  pthread_mutex_lock(&b->pool.lock);
  b->pool.bytes = 0;
  pthread_mutex_unlock(&b->pool.lock);
  return any;
}

tfr_status tfr_wgpu_storage_alloc(tfr_backend *base, size_t nbytes, bool zero, tfr_storage *out) {
  tfr_wgpu_backend *b = tfr_wgpu_cast(base);
  // The core allocates an op's output before calling the op: this is where a
  // lost device shows first.
  TFR_RETURN_IF_ERROR(tfr_wgpu_check(b, "tensor allocation"));
  out->host = false;
  out->data = NULL;
  out->device = NULL;
  out->capacity = 0;
  out->serial = 0;
  if (nbytes == 0) return TFR_OK;  // an empty tensor needs no buffer
  if (!tfr_wgpu_on_session_thread(b))
    return tfr_error(TFR_ERR_NO_SESSION,
                     "tensor: webgpu device memory is allocated only inside a session on the "
                     "backend");
  if ((uint64_t)nbytes > b->limits.maxBufferSize)
    return tfr_error(TFR_ERR_OUT_OF_MEMORY,
                     "tensor: webgpu: %zu bytes exceed the device's maxBufferSize of %llu bytes "
                     "(%s)",
                     nbytes, (unsigned long long)b->limits.maxBufferSize, b->info.name);
  uint64_t cap;
  int cls = tfr_wgpu_size_class(nbytes, &cap);
  if (cap > b->limits.maxBufferSize) {  // the class would not fit: exact size, never pooled
    cls = -1;
    cap = ((uint64_t)nbytes + 3) & ~(uint64_t)3;
  }
  WGPUBuffer buf = NULL;
  uint64_t serial = 0;
  pthread_mutex_lock(&b->pool.lock);
  if (cls >= 0 && b->pool.classes[cls].count > 0) {
    // The free buffer of the class made first, not the last one freed (record
    // once, replay): an allocation then gets the buffer that a new one would
    // have been in the first run, whatever order the buffers came back in,
    // so a plan executed again binds the buffers of its first execution and
    // its dispatches find their bind groups cached (docs/webgpu.md).
    buf = tfr_wgpu_list_pop(&b->pool.classes[cls], &serial);
    b->pool.bytes -= cap;
    b->pool.hits++;
  }
  pthread_mutex_unlock(&b->pool.lock);
  if (!buf) {
    const WGPUBufferUsage usage =
        WGPU_BUFFER_USAGE_STORAGE | WGPU_BUFFER_USAGE_COPY_SRC | WGPU_BUFFER_USAGE_COPY_DST;
    tfr_status st = tfr_wgpu_buffer_create(b, cap, usage, "tensor", &buf);
    if (st == TFR_ERR_OUT_OF_MEMORY && tfr_wgpu_pool_trim(b))  // the pool's memory first
      st = tfr_wgpu_buffer_create(b, cap, usage, "tensor", &buf);
    if (st) return st;
  }
  if (zero) {
    // Recorded, not immediate: a pooled buffer may still be read by recorded
    // work, which must see its old contents.
    WGPUCommandEncoder enc;
    tfr_status st = tfr_wgpu_copy_encoder(b, &enc);
    if (st) {
      tfr_wgpu_buffer_release(b, buf);
      return st;
    }
    b->p->wgpuCommandEncoderClearBuffer(enc, buf, 0, ((uint64_t)nbytes + 3) & ~(uint64_t)3);
  }
  pthread_mutex_lock(&b->pool.lock);
  b->pool.tensor_bytes += cap;
  if (serial == 0) serial = ++b->pool.tensor_serial;  // a buffer made just now
  pthread_mutex_unlock(&b->pool.lock);
  out->device = buf;
  out->capacity = (size_t)cap;
  out->serial = serial;
  return TFR_OK;
}

void tfr_wgpu_storage_free(tfr_backend *base, tfr_storage *s) {
  tfr_wgpu_backend *b = tfr_wgpu_cast(base);
  WGPUBuffer buf = s->device;
  if (!buf) return;
  uint64_t cap = s->capacity, class_bytes;
  int cls = tfr_wgpu_size_class(cap, &class_bytes);
  bool session_thread = tfr_wgpu_on_session_thread(b);
  pthread_mutex_lock(&b->pool.lock);
  b->pool.tensor_bytes -= cap;
  if (b->pool.enabled && class_bytes == cap && b->pool.bytes + cap <= b->pool.cap &&
      tfr_wgpu_list_push(&b->pool.classes[cls], buf, s->serial)) {
    b->pool.bytes += cap;
    buf = NULL;
  } else if (!session_thread && tfr_wgpu_list_push(&b->pool.deferred, buf, 0)) {
    // Another thread may be using the device right now: the session thread
    // releases it at its next begin, end or download.
    b->pool.deferred_bytes += cap;
    buf = NULL;
  }
  pthread_mutex_unlock(&b->pool.lock);
  // Only a release, never wgpuBufferDestroy: recorded commands may still use
  // the buffer, and Dawn keeps it alive for them. Off the session thread the
  // bind group cache is not ours to touch: its entries keep such a buffer
  // (only when the deferred list could not grow) until they are replaced.
  if (buf && session_thread) tfr_wgpu_buffer_release(b, buf);
  else if (buf) b->p->wgpuBufferRelease(buf);
  s->device = NULL;
}

void tfr_wgpu_release_deferred(tfr_wgpu_backend *b) {
  pthread_mutex_lock(&b->pool.lock);
  tfr_wgpu_buffer_list l = b->pool.deferred;
  memset(&b->pool.deferred, 0, sizeof b->pool.deferred);
  b->pool.deferred_bytes = 0;
  pthread_mutex_unlock(&b->pool.lock);
  tfr_wgpu_buffers_release(b, &l);
}

void tfr_wgpu_memory_release(tfr_wgpu_backend *b) {
  tfr_wgpu_pool_trim(b);
  tfr_wgpu_release_deferred(b);
}

