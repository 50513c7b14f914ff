// `tenferro info`: what this build contains and what it finds at run time.
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "tenferro/tenferro.h"

// From OpenBLAS (cblas.h declares them; declared here to avoid pulling the
// whole header into the tool).
char *openblas_get_config(void);
int openblas_get_num_threads(void);

int tfr_cli_info(int argc, char **argv) {
  if (argc > 1) {
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
      printf("usage: tenferro info\n\nPrints the library version, the backends compiled in "
             "and, for each, what it finds on this machine.\n");
      return 0;
    }
    fprintf(stderr, "tenferro info: unexpected argument '%s'\n", argv[1]);
    return 2;
  }
  printf("tenferro %s\n", tfr_version_string());
  printf("backends compiled in: %s\n", tfr_backends_compiled());

  printf("\ncpu backend:\n");
  tfr_backend *cpu = NULL;
  if (tfr_backend_create_cpu(NULL, &cpu) != TFR_OK) return tfr_cli_fail("cpu backend");
  tfr_session *s = NULL;
  if (tfr_session_begin(cpu, &s) != TFR_OK) {
    tfr_backend_release(cpu);
    return tfr_cli_fail("cpu session");
  }
  void *native = NULL;
  int rc = 0;
  if (tfr_session_native(s, TFR_BACKEND_CPU, &native) == TFR_OK) {
    const tfr_cpu_native *n = native;
    printf("  status:        available\n");
    printf("  threads:       %d (OpenMP)\n", n->num_threads);
  } else {
    rc = tfr_cli_fail("cpu session_native");
  }
  printf("  BLAS:          %s, %d threads\n", openblas_get_config(), openblas_get_num_threads());
  printf("  dtypes:       ");
  for (int d = 0; d < TFR_DTYPE_COUNT; d++) printf(" %s", tfr_dtype_name((tfr_dtype)d));
  printf("\n");
  if (tfr_session_end(s) != TFR_OK) rc = tfr_cli_fail("cpu session_end");
  tfr_backend_release(cpu);
  return rc;
}
