// Reductions: kernels to come (issue #7).
#include "webgpu/wgpu.h"

tfr_status tfr_wgpu_reduction(tfr_backend *base, const tfr_reduce_desc *d) {
  (void)base;
  static const char *const names[] = {"add", "multiply", "maximum", "minimum", "and", "or", "xor"};
  const char *c = (unsigned)d->combiner < sizeof names / sizeof names[0] ? names[d->combiner] : "?";
  return tfr_error(TFR_ERR_UNSUPPORTED_DTYPE,
                   "reduce (%s): not implemented on the webgpu backend yet (dtype %s)", c,
                   tfr_dtype_name(d->dtype));
}
