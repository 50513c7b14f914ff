// PLACEHOLDER, being replaced in this session by the full kernel set.
#include "cpu/cpu.h"
tfr_status tfr_cpu_reduction(tfr_backend *b, const tfr_reduce_desc *d) {
  (void)b; (void)d;
  return tfr_error(TFR_ERR_INTERNAL, "cpu reduction: kernels not built yet");
}
