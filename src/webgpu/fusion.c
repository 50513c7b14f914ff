// Fused elementwise kernels: to come (issue #8).
#include "webgpu/wgpu.h"

tfr_status tfr_wgpu_fusion(tfr_backend *base, const tfr_fusion_desc *d) {
  (void)base;
  const tfr_fusion_plan *p = d->plan;
  return tfr_error(TFR_ERR_UNSUPPORTED_DTYPE,
                   "fusion: not implemented on the webgpu backend yet (dtype %s)",
                   tfr_dtype_name(p->value_dtype[p->outputs[0]]));
}
