// PLACEHOLDER, being replaced in this session by the full kernel set.
#include "cpu/cpu.h"
tfr_status tfr_cpu_elementwise(tfr_backend *b, const tfr_elementwise_desc *d) {
  (void)b; (void)d;
  return tfr_error(TFR_ERR_INTERNAL, "cpu elementwise: kernels not built yet");
}
