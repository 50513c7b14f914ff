// Which OpenBLAS kernel set this CPU should run (backend.h,
// tfr_cpu_blas_coretype_advice).
//
// Debian 12's OpenBLAS (0.3.21, DYNAMIC_ARCH) picks its kernels from the
// CPU's family and model at load time and falls back to its generic SSE3
// kernels ("Prescott") for a model it does not know: on the GPU machine's
// Xeon (family 6, model 207, AVX-512) a 256^3 f64 GEMM then ran at 8.8
// GFLOP/s on one core instead of 53 with OPENBLAS_CORETYPE=Cooperlake.
// OpenBLAS reads that variable only while it loads, so the advice is for a
// process that can still set it before loading OpenBLAS (the CLI re-executes
// itself, tools/tenferro/main.c).
#include <cblas.h>
#include <stddef.h>
#include <string.h>

#include "core/core.h"
#include "tenferro/backend.h"

const char *tfr_cpu_blas_coretype_advice(void) {
#if defined(__x86_64__) && defined(__GNUC__)
  // Kernel sets of OpenBLAS older than AVX2 (the generic fallbacks among them).
  static const char *const pre_avx2[] = {"Prescott", "Core2",   "Penryn", "Dunnington",
                                         "Nehalem",  "Atom",    "Sandybridge",
                                         "Barcelona", "Opteron", "Opteron(SSE3)", "Katmai",
                                         "Coppermine", "Northwood", "Banias"};
  const char *core = openblas_get_corename();
  bool old = false;
  for (size_t i = 0; core && i < sizeof pre_avx2 / sizeof pre_avx2[0]; i++)
    old = old || strcmp(core, pre_avx2[i]) == 0;
  if (!old) return NULL;
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
    return __builtin_cpu_supports("avx512bf16") ? "Cooperlake" : "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
#endif
  return NULL;
}
