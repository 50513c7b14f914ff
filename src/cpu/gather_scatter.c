// PLACEHOLDER, being replaced in this session by the real kernels.
#include "cpu/cpu.h"
tfr_status tfr_cpu_gather(tfr_backend *b, const tfr_gather_desc *d) {
  (void)b; (void)d;
  return tfr_error(TFR_ERR_INTERNAL, "cpu gather: kernel not built yet");
}
tfr_status tfr_cpu_scatter(tfr_backend *b, const tfr_scatter_desc *d) {
  (void)b; (void)d;
  return tfr_error(TFR_ERR_INTERNAL, "cpu scatter: kernel not built yet");
}
