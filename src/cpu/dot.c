// PLACEHOLDER, being replaced in this session by the BLAS-backed kernel.
#include "cpu/cpu.h"
tfr_status tfr_cpu_dot_general(tfr_backend *b, const tfr_dot_desc *d) {
  (void)b; (void)d;
  return tfr_error(TFR_ERR_INTERNAL, "cpu dot_general: kernel not built yet");
}
