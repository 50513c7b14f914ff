// How a kernel sees a tensor view, for every kernel family: the bound window
// of its buffer, the reach of its strides, and the axis planner of views of
// one shape.
#ifndef TENFERRO_SRC_WEBGPU_BINDING_H_
#define TENFERRO_SRC_WEBGPU_BINDING_H_

#include "webgpu/wgpu.h"

// The range of `t`'s buffer that a kernel reading elements [off + lo,
// off + hi] must bind (aligned outwards to minStorageBufferOffsetAlignment
// and to `es`), and `*rel`, the element offset `off` relative to the bound
// range. `es` is the byte size of the kernel's element (the dtype's, or 16 for
// vec4 accesses); off, lo, hi count such elements. `name` names the tensor in
// messages. Errors: TFR_ERR_OUT_OF_MEMORY when the range exceeds
// maxStorageBufferBindingSize.
tfr_status tfr_wgpu_window(tfr_wgpu_backend *b, const char *op, const char *name,
                           const tfr_tensor *t, int64_t es, int64_t off, int64_t lo, int64_t hi,
                           tfr_wgpu_binding *bind, uint32_t *rel);
// The lowest (<= 0) and highest (>= 0) element offsets, relative to element
// (0, ..., 0), of a view of `n` axes with `shape` and `stride`.
void tfr_wgpu_reach(int n, const int64_t *shape, const int64_t *stride, int64_t *lo, int64_t *hi);

// Plans the axes of `nops` operands of one shape (core/plan_axes.h, as the cpu does):
// extent-1 axes dropped, the rest ordered by ops[0]'s |stride|, neighbours
// merged when every operand steps over the inner axis exactly. Fills *nd
// (>= 1; innermost first), shape[nd] and stride[i * TFR_MAX_RANK + axis].
void tfr_wgpu_plan_axes_n(int nops, const tfr_tensor *const *ops, int *nd, int64_t *shape,
                          int64_t *stride);

#endif  // TENFERRO_SRC_WEBGPU_BINDING_H_
