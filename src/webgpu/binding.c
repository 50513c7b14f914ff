// How a kernel sees a tensor view (binding.h).
#include "webgpu/binding.h"

#include "core/plan_axes.h"

#include <stdlib.h>

// The bound range of `t`'s buffer that elements [off + lo, off + hi] need,
// and `off` relative to its start (in elements; in bytes for 1-byte types).
// `es` is the byte size of the kernel's element (the dtype's, or 16 for a
// vectorised compact copy); `off`, `lo`, `hi` count such elements.
tfr_status tfr_wgpu_window(tfr_wgpu_backend *b, const char *op, const char *name,
                           const tfr_tensor *t, int64_t es, int64_t off, int64_t lo, int64_t hi,
                           tfr_wgpu_binding *bind, uint32_t *rel) {
  // Offsets must be multiples of the device's alignment, and of the element
  // size so that the relative offset counts whole elements.
  int64_t align = b->limits.minStorageBufferOffsetAlignment;
  if (align < 4) align = 4;
  if (align < es) align = es;
  int64_t first = (off + lo) * es, end = (off + hi + 1) * es;
  int64_t base = first & ~(align - 1);
  uint64_t size = (uint64_t)(end - base + 3) & ~(uint64_t)3;
  if (size > b->limits.maxStorageBufferBindingSize)
    return tfr_error(TFR_ERR_OUT_OF_MEMORY,
                     "%s: webgpu: the %s view spans %llu bytes of its buffer, more than the "
                     "device binds at once (maxStorageBufferBindingSize %llu on %s)",
                     op, name, (unsigned long long)size,
                     (unsigned long long)b->limits.maxStorageBufferBindingSize, b->info.name);
  bind->buffer = t->storage->device;
  bind->offset = (uint64_t)base;
  bind->size = size;
  *rel = (uint32_t)((off * es - base) / es);
  return TFR_OK;
}

void tfr_wgpu_reach(int n, const int64_t *shape, const int64_t *stride, int64_t *lo, int64_t *hi) {
  *lo = *hi = 0;
  for (int d = 0; d < n; d++) {
    int64_t r = (shape[d] - 1) * stride[d];
    if (r < 0) *lo += r;
    else *hi += r;
  }
}

void tfr_wgpu_plan_axes_n(int nops, const tfr_tensor *const *ops, int *out_nd, int64_t *shape,
                          int64_t *stride) {
  tfr_plan_axes(nops, ops, out_nd, shape, stride);
}
