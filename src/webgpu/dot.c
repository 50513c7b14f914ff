// dot_general: kernels to come (issue #8).
#include "webgpu/wgpu.h"

tfr_status tfr_wgpu_dot_general(tfr_backend *base, const tfr_dot_desc *d) {
  (void)base;
  return tfr_error(TFR_ERR_UNSUPPORTED_DTYPE,
                   "dot_general: not implemented on the webgpu backend yet (dtype %s)",
                   tfr_dtype_name(d->dtype));
}
