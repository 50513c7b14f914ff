// Transfers between host and device: uploads (through wgpuQueueWriteBuffer
// or our own mapped staging buffers), downloads and readbacks (through two
// MapRead staging buffers), and the gather of strided views on either side.
//
// Ordering: large uploads record a copy from a staging buffer into the
// session's encoder, after what is recorded; small ones use
// wgpuQueueWriteBuffer, which the queue orders before *later* submits only, so
// such an upload first submits what is recorded.
#include <stdio.h>
#include <string.h>

#include "webgpu/copy.h"
#include "webgpu/transfer.h"
#include "webgpu/wgpu.h"

// Copies the elements of a strided host tensor, row-major, to `dst`.
static void tfr_wgpu_gather_host(const tfr_tensor *t, unsigned char *dst) {
  size_t es = tfr_dtype_size(t->dtype);
  const unsigned char *base = (const unsigned char *)tfr_tensor_host_ptr(t);
  int64_t idx[TFR_MAX_RANK] = {0};
  int64_t off = 0;  // element offset of idx
  int r = t->rank;
  for (int64_t n = 0; n < t->numel; n++) {
    memcpy(dst + (size_t)n * es, base + off * (int64_t)es, es);
    for (int k = r - 1; k >= 0; k--) {  // odometer, last axis fastest
      off += t->strides[k];
      if (++idx[k] < t->shape[k]) break;
      off -= t->strides[k] * t->shape[k];
      idx[k] = 0;
    }
  }
}

// Through wgpuQueueWriteBuffer: no wait, but Dawn stages every write in host
// memory of its own, and a write above its 4 MiB ring gets a freshly allocated
// (and freshly faulted) staging buffer each time: ~3 GB/s on the H200's host.
// Used for small uploads, and for all when TFR_WEBGPU_UPLOAD_CHUNK=0.
static tfr_status tfr_wgpu_upload_direct(tfr_wgpu_backend *b, WGPUBuffer buf,
                                         const unsigned char *src, size_t nbytes) {
  // The queue orders a write before *later* submits only: submit what is
  // recorded first.
  tfr_status st = tfr_wgpu_flush(b, "upload");
  size_t whole = nbytes & ~(size_t)3;
  // Pieces of at most transfer_chunk bytes: Dawn stages each write in a
  // buffer of its size, and lavapipe crashes on mapped buffers of 2 GiB.
  for (size_t off = 0; !st && off < whole; off += b->xfer.transfer_chunk) {
    size_t n = whole - off < b->xfer.transfer_chunk ? whole - off : (size_t)b->xfer.transfer_chunk;
    b->p->wgpuQueueWriteBuffer(b->queue, buf, off, src + off, n);
  }
  if (!st && whole < nbytes) {  // writes are multiples of 4 bytes: pad the tail
    unsigned char tail[4] = {0, 0, 0, 0};
    memcpy(tail, src + whole, nbytes - whole);
    b->p->wgpuQueueWriteBuffer(b->queue, buf, whole, tail, 4);
  }
  return st;
}

static void tfr_wgpu_on_upload_mapped(uint32_t status, WGPUStringView message, void *ud1,
                                      void *ud2) {
  (void)message;
  (void)ud2;
  *(uint32_t *)ud1 = status;
}

// Waits until upload slot `i` is mapped again (its last copy done).
static tfr_status tfr_wgpu_upload_slot_wait(tfr_wgpu_backend *b, int i) {
  if (!b->xfer.upload_pending[i]) return TFR_OK;
  tfr_status st = tfr_wgpu_wait(b, b->xfer.upload_future[i], "upload");
  b->xfer.upload_pending[i] = false;
  tfr_status check = tfr_wgpu_check(b, "upload");
  if (check) st = check;
  if (!st && tfr_wgpu_fault(&b->fault_maps)) b->xfer.upload_status[i] = 0;  // injected
  if (!st && b->xfer.upload_status[i] != WGPU_STATUS_SUCCESS)
    st = tfr_error(TFR_ERR_INTERNAL, "upload: webgpu: mapping a staging buffer failed (status %u)",
                   b->xfer.upload_status[i]);
  if (st) {  // its state is unknown: make a new one next time
    b->p->wgpuBufferRelease(b->xfer.upload[i]);
    b->xfer.upload[i] = NULL;
  }
  return st;
}

// Releases the upload slots, after their pending maps (which reference the
// backend) have completed.
static void tfr_wgpu_upload_slots_release(tfr_wgpu_backend *b) {
  for (int i = 0; i < TFR_WGPU_UPLOAD_SLOTS; i++) {
    if (!b->xfer.upload[i]) continue;
    if (b->xfer.upload_pending[i]) {
      tfr_status ignored = tfr_wgpu_wait(b, b->xfer.upload_future[i], "upload");
      (void)ignored;
      b->xfer.upload_pending[i] = false;
    }
    b->p->wgpuBufferRelease(b->xfer.upload[i]);
    b->xfer.upload[i] = NULL;
    pthread_mutex_lock(&b->pool.lock);
    b->pool.other_bytes -= b->xfer.upload_size;
    pthread_mutex_unlock(&b->pool.lock);
  }
}

// Through our own staging buffers (MapWrite|CopySrc, created mapped, reused):
// per piece, wait until the slot is mapped again, copy the host bytes into it,
// unmap, record a buffer copy into the session's encoder (after what is
// recorded, so ordering is the encoder's), submit, and ask for the next map
// without waiting. The host fills slot k+1 while the device copies slot k.
static tfr_status tfr_wgpu_upload_staged(tfr_wgpu_backend *b, WGPUBuffer buf,
                                         const unsigned char *src, size_t nbytes) {
  const tfr_wgpu_procs *p = b->p;
  uint64_t chunk = b->xfer.upload_chunk;
  if (b->xfer.upload_size != chunk) tfr_wgpu_upload_slots_release(b);  // a test changed it
  b->xfer.upload_size = chunk;
  for (size_t off = 0; off < nbytes; off += (size_t)chunk) {
    size_t n = nbytes - off < chunk ? nbytes - off : (size_t)chunk;
    uint64_t n4 = ((uint64_t)n + 3) & ~(uint64_t)3;
    int i = b->xfer.upload_next;
    b->xfer.upload_next = (i + 1) % TFR_WGPU_UPLOAD_SLOTS;
    if (!b->xfer.upload[i]) {
      if (tfr_wgpu_fault(&b->fault_buffers))
        return tfr_error(TFR_ERR_OUT_OF_MEMORY,
                         "upload: webgpu: cannot create a %llu-byte staging buffer on %s "
                         "(injected failure)", (unsigned long long)chunk, b->info.name);
      WGPUBufferDescriptor d;
      memset(&d, 0, sizeof d);
      d.label = tfr_wgpu_str("upload staging");
      d.usage = WGPU_BUFFER_USAGE_MAP_WRITE | WGPU_BUFFER_USAGE_COPY_SRC;
      d.size = chunk;
      d.mappedAtCreation = 1;
      b->xfer.upload[i] = p->wgpuDeviceCreateBuffer(b->device, &d);
      TFR_RETURN_IF_ERROR(tfr_wgpu_check(b, "upload"));
      if (!b->xfer.upload[i])
        return tfr_error(TFR_ERR_OUT_OF_MEMORY,
                         "upload: webgpu: cannot create a %llu-byte staging buffer on %s",
                         (unsigned long long)chunk, b->info.name);
      b->xfer.upload_pending[i] = false;
      pthread_mutex_lock(&b->pool.lock);
      b->pool.buffers_created++;
      b->pool.other_bytes += chunk;
      pthread_mutex_unlock(&b->pool.lock);
    } else {
      TFR_RETURN_IF_ERROR(tfr_wgpu_upload_slot_wait(b, i));
    }
    unsigned char *mapped = p->wgpuBufferGetMappedRange(b->xfer.upload[i], 0, (size_t)n4);
    if (!mapped)
      return tfr_error(TFR_ERR_INTERNAL, "upload: webgpu: wgpuBufferGetMappedRange returned NULL");
    memcpy(mapped, src + off, n);
    if (n4 > n) memset(mapped + n, 0, (size_t)(n4 - n));
    p->wgpuBufferUnmap(b->xfer.upload[i]);
    WGPUCommandEncoder enc;
    TFR_RETURN_IF_ERROR(tfr_wgpu_copy_encoder(b, &enc));
    p->wgpuCommandEncoderCopyBufferToBuffer(enc, b->xfer.upload[i], 0, buf, off, n4);
    TFR_RETURN_IF_ERROR(tfr_wgpu_flush(b, "upload"));
    b->xfer.upload_status[i] = 0;
    WGPUBufferMapCallbackInfo cb = {NULL, WGPU_CALLBACK_MODE_WAIT_ANY_ONLY,
                                    tfr_wgpu_on_upload_mapped, &b->xfer.upload_status[i], NULL};
    b->xfer.upload_future[i] = p->wgpuBufferMapAsync(b->xfer.upload[i], WGPU_MAP_MODE_WRITE, 0,
                                                (size_t)chunk, cb);
    b->xfer.upload_pending[i] = true;
  }
  return TFR_OK;
}

tfr_status tfr_wgpu_upload(tfr_backend *base, const tfr_tensor *host, tfr_tensor *out) {
  tfr_wgpu_backend *b = tfr_wgpu_cast(base);
  TFR_RETURN_IF_ERROR(tfr_wgpu_check(b, "upload"));
  size_t nbytes = out->storage->nbytes;
  if (nbytes == 0) return TFR_OK;
  const unsigned char *src = (const unsigned char *)tfr_tensor_host_ptr(host);
  unsigned char *gathered = NULL;
  if (!tfr_tensor_is_contiguous(host)) {
    gathered = tfr_alloc_aligned(nbytes);
    if (!gathered)
      return tfr_error(TFR_ERR_OUT_OF_MEMORY, "upload: cannot allocate %zu bytes of host memory",
                       nbytes);
    tfr_wgpu_gather_host(host, gathered);
    src = gathered;
  }
  WGPUBuffer buf = out->storage->device;
  tfr_status st;
  if (b->xfer.upload_chunk && nbytes > b->xfer.upload_direct_max)
    st = tfr_wgpu_upload_staged(b, buf, src, nbytes);
  else
    st = tfr_wgpu_upload_direct(b, buf, src, nbytes);
  tfr_free_aligned(gathered);
  if (st) return st;
  return tfr_wgpu_check(b, "upload");
}

typedef struct tfr_wgpu_map_result {
  uint32_t status;
  char message[256];
} tfr_wgpu_map_result;

static void tfr_wgpu_on_mapped(uint32_t status, WGPUStringView message, void *ud1, void *ud2) {
  (void)ud2;
  tfr_wgpu_map_result *r = ud1;
  r->status = status;
  tfr_wgpu_copy_view(r->message, sizeof r->message, message);
}

// Staging buffer `i` (MapRead | CopyDst) with at least `size` bytes.
static tfr_status tfr_wgpu_staging(tfr_wgpu_backend *b, int i, uint64_t size) {
  if (b->xfer.staging[i] && b->xfer.staging_size[i] >= size) return TFR_OK;
  if (b->xfer.staging[i]) {
    b->p->wgpuBufferRelease(b->xfer.staging[i]);
    b->xfer.staging[i] = NULL;
    pthread_mutex_lock(&b->pool.lock);
    b->pool.other_bytes -= b->xfer.staging_size[i];
    pthread_mutex_unlock(&b->pool.lock);
    b->xfer.staging_size[i] = 0;
  }
  TFR_RETURN_IF_ERROR(tfr_wgpu_buffer_create(
      b, size, WGPU_BUFFER_USAGE_MAP_READ | WGPU_BUFFER_USAGE_COPY_DST, "staging", &b->xfer.staging[i]));
  pthread_mutex_lock(&b->pool.lock);
  b->pool.other_bytes += size;
  pthread_mutex_unlock(&b->pool.lock);
  b->xfer.staging_size[i] = size;
  return TFR_OK;
}

// One piece of a download in flight: copied into staging buffer `slot`, then
// mapped.
typedef struct tfr_wgpu_piece {
  WGPUFuture future;
  tfr_wgpu_map_result result;
  bool pending;  // mapping asked for and not yet unmapped
} tfr_wgpu_piece;

// Records the copy of piece `k` into its staging buffer, submits, and asks
// for the mapping (without waiting).
static tfr_status tfr_wgpu_issue_piece(tfr_wgpu_backend *b, WGPUBuffer buf, uint64_t offset,
                                       size_t nbytes, size_t k, tfr_wgpu_piece *piece) {
  const tfr_wgpu_procs *p = b->p;
  int slot = (int)(k & 1);
  size_t start = k * (size_t)b->xfer.transfer_chunk;
  size_t n = nbytes - start < b->xfer.transfer_chunk ? nbytes - start : (size_t)b->xfer.transfer_chunk;
  uint64_t n4 = ((uint64_t)n + 3) & ~(uint64_t)3;
  WGPUCommandEncoder enc;
  TFR_RETURN_IF_ERROR(tfr_wgpu_copy_encoder(b, &enc));
  p->wgpuCommandEncoderCopyBufferToBuffer(enc, buf, offset + start, b->xfer.staging[slot], 0, n4);
  TFR_RETURN_IF_ERROR(tfr_wgpu_flush(b, "download"));
  memset(&piece->result, 0, sizeof piece->result);
  WGPUBufferMapCallbackInfo cb = {NULL, WGPU_CALLBACK_MODE_WAIT_ANY_ONLY, tfr_wgpu_on_mapped,
                                  &piece->result, NULL};
  piece->future = p->wgpuBufferMapAsync(b->xfer.staging[slot], WGPU_MAP_MODE_READ, 0, (size_t)n4, cb);
  piece->pending = true;
  return TFR_OK;
}

// Reads `nbytes` from byte `offset` of `buf` (offset a multiple of 4, the
// buffer at least round4(offset + nbytes) long) into `dst`, in pieces of at
// most transfer_chunk bytes, two in flight.
static tfr_status tfr_wgpu_read_buffer(tfr_wgpu_backend *b, WGPUBuffer buf, uint64_t offset,
                                       size_t nbytes, unsigned char *dst) {
  const tfr_wgpu_procs *p = b->p;
  size_t chunk = (size_t)b->xfer.transfer_chunk;
  size_t npieces = (nbytes + chunk - 1) / chunk;
  uint64_t first = ((uint64_t)nbytes + 3) & ~(uint64_t)3;
  if (first > chunk) first = chunk;
  TFR_RETURN_IF_ERROR(tfr_wgpu_staging(b, 0, first));
  if (npieces > 1) TFR_RETURN_IF_ERROR(tfr_wgpu_staging(b, 1, first));
  tfr_wgpu_piece pieces[2];
  memset(pieces, 0, sizeof pieces);
  tfr_status st = tfr_wgpu_issue_piece(b, buf, offset, nbytes, 0, &pieces[0]);
  if (!st && npieces > 1) st = tfr_wgpu_issue_piece(b, buf, offset, nbytes, 1, &pieces[1]);
  for (size_t k = 0; !st && k < npieces; k++) {
    tfr_wgpu_piece *piece = &pieces[k & 1];
    WGPUBuffer staging = b->xfer.staging[k & 1];
    st = tfr_wgpu_wait(b, piece->future, "download");
    tfr_status check = tfr_wgpu_check(b, "download");
    if (check) st = check;
    if (st) break;
    if (tfr_wgpu_fault(&b->fault_maps)) {  // injected: as a failed mapping
      piece->result.status = 0;
      snprintf(piece->result.message, sizeof piece->result.message, "injected failure");
    }
    if (piece->result.status != WGPU_STATUS_SUCCESS) {
      st = tfr_error(TFR_ERR_INTERNAL,
                     "download: webgpu: mapping the staging buffer failed (status %u): %s",
                     piece->result.status, piece->result.message);
      break;
    }
    size_t start = k * chunk;
    size_t n = nbytes - start < chunk ? nbytes - start : chunk;
    const void *mapped = p->wgpuBufferGetConstMappedRange(staging, 0, (n + 3) & ~(size_t)3);
    if (!mapped) {
      st = tfr_error(TFR_ERR_INTERNAL,
                     "download: webgpu: wgpuBufferGetConstMappedRange returned NULL");
      break;
    }
    memcpy(dst + start, mapped, n);
    p->wgpuBufferUnmap(staging);
    piece->pending = false;
    if (k + 2 < npieces) st = tfr_wgpu_issue_piece(b, buf, offset, nbytes, k + 2, piece);
  }
  if (!pieces[0].pending && !pieces[1].pending) return st;
  // After a failure: a pending mapping would block the buffer's next use.
  // Unmapping cancels it; the wait lets its callback run while `pieces` lives.
  // The first failure is the one reported: keep its message.
  char saved[1024];
  snprintf(saved, sizeof saved, "%s", tfr_last_error_message());
  for (int i = 0; i < 2; i++) {
    if (!pieces[i].pending) continue;
    p->wgpuBufferUnmap(b->xfer.staging[i]);
    tfr_status ignored = tfr_wgpu_wait(b, pieces[i].future, "download");
    (void)ignored;
  }
  return tfr_error(st, "%s", saved);
}

tfr_status tfr_wgpu_download(tfr_backend *base, const tfr_tensor *t, tfr_tensor *host_out) {
  tfr_wgpu_backend *b = tfr_wgpu_cast(base);
  TFR_RETURN_IF_ERROR(tfr_wgpu_check(b, "download"));
  tfr_wgpu_release_deferred(b);
  size_t es = tfr_dtype_size(t->dtype);
  size_t nbytes = (size_t)t->numel * es;
  if (nbytes == 0) return TFR_OK;
  // A buffer copy needs a compact range at a 4-byte offset; anything else is
  // first gathered into a compact tensor by the copy kernel.
  const tfr_tensor *src = t;
  tfr_tensor *tmp = NULL;
  if (!tfr_tensor_is_contiguous(t) || (t->offset * (int64_t)es) % 4 != 0) {
    TFR_RETURN_IF_ERROR(tfr_tensor_alloc(base, t->dtype, t->rank, t->shape, false, &tmp));
    tfr_status st = tfr_wgpu_copy(b, "download", t, tmp);
    if (st) {
      tfr_tensor_release(tmp);
      return st;
    }
    src = tmp;
  }
  tfr_status st = tfr_wgpu_read_buffer(b, src->storage->device, (uint64_t)src->offset * es,
                                       nbytes, (unsigned char *)tfr_tensor_host_ptr(host_out));
  tfr_tensor_release(tmp);
  return st;
}

void tfr_wgpu_transfer_release(tfr_wgpu_backend *b) {
  tfr_wgpu_upload_slots_release(b);
  for (int i = 0; i < 2; i++) {
    if (b->xfer.staging[i]) b->p->wgpuBufferRelease(b->xfer.staging[i]);
    b->xfer.staging[i] = NULL;
  }
}
