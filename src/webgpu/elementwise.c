// Elementwise ops (unary, binary, compare, select, clamp): kernels to come (issue #7).
#include "webgpu/wgpu.h"

tfr_status tfr_wgpu_elementwise(tfr_backend *base, const tfr_elementwise_desc *d) {
  (void)base;
  const char *op = "elementwise";
  switch (d->kind) {
    case TFR_EW_UNARY: op = tfr_unary_op_name((tfr_unary_op)d->op); break;
    case TFR_EW_BINARY: op = tfr_binary_op_name((tfr_binary_op)d->op); break;
    case TFR_EW_COMPARE: op = "compare"; break;
    case TFR_EW_SELECT: op = "select"; break;
    case TFR_EW_CLAMP: op = "clamp"; break;
  }
  return tfr_error(TFR_ERR_UNSUPPORTED_DTYPE,
                   "%s: not implemented on the webgpu backend yet (dtype %s)", op,
                   tfr_dtype_name(d->dtype));
}
