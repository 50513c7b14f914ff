// gather and scatter: kernels to come (issue #8).
#include "webgpu/wgpu.h"

tfr_status tfr_wgpu_gather(tfr_backend *base, const tfr_gather_desc *d) {
  (void)base;
  return tfr_error(TFR_ERR_UNSUPPORTED_DTYPE,
                   "gather: not implemented on the webgpu backend yet (dtype %s)",
                   tfr_dtype_name(d->dtype));
}

tfr_status tfr_wgpu_scatter(tfr_backend *base, const tfr_scatter_desc *d) {
  (void)base;
  return tfr_error(TFR_ERR_UNSUPPORTED_DTYPE,
                   "scatter: not implemented on the webgpu backend yet (dtype %s)",
                   tfr_dtype_name(d->dtype));
}
