// `tenferro info`: what this build contains and what it finds at run time.
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "tenferro/tenferro.h"

// From OpenBLAS (cblas.h declares them; declared here to avoid pulling the
// whole header into the tool).
char *openblas_get_config(void);
int openblas_get_num_threads(void);

// ---- webgpu adapters ----
// Prints the webgpu provider and every adapter with its limits and features.
// A missing provider or adapter is a fact about the machine, not a failure of
// `info`: it is printed and the exit status stays 0.
static void tfr_cli_info_webgpu(void) {
  printf("\nwebgpu backend:\n");
  const char *provider = NULL;
  if (tfr_webgpu_provider_path(&provider) != TFR_OK) {
    printf("  status:        unavailable: %s\n", tfr_last_error_message());
    return;
  }
  printf("  provider:      %s\n", provider);
  tfr_webgpu_adapter_info *infos = NULL;
  int n = 0;
  if (tfr_webgpu_enumerate_adapters(NULL, &infos, &n) != TFR_OK) {
    printf("  status:        unavailable: %s\n", tfr_last_error_message());
    return;
  }
  if (n == 0) {
    printf("  status:        no Vulkan adapter (on a machine without a GPU: run "
           "scripts/setup-webgpu.sh, then . /usr/local/lib/tenferro/webgpu.env)\n");
    return;
  }
  printf("  status:        available, %d adapter%s\n", n, n == 1 ? "" : "s");
  for (int i = 0; i < n; i++) {
    const tfr_webgpu_adapter_info *a = &infos[i];
    printf("  adapter %d:     %s (%s, %s)\n", a->index, a->name, a->adapter_type, a->backend);
    printf("    vendor:      %s%s%s, PCI %04x:%04x\n", a->vendor[0] ? a->vendor : "?",
           a->architecture[0] ? " / " : "", a->architecture, a->vendor_id, a->device_id);
    if (a->driver[0]) printf("    driver:      %s\n", a->driver);
    printf("    subgroups:   %s, size %u..%u\n", a->subgroups ? "yes" : "no",
           a->subgroup_min_size, a->subgroup_max_size);
    printf("    shader-f16:  %s\n", a->shader_f16 ? "yes" : "no");
    printf("    limits:      max buffer %llu B, max storage binding %llu B, max uniform binding "
           "%llu B\n",
           (unsigned long long)a->max_buffer_size,
           (unsigned long long)a->max_storage_buffer_binding_size,
           (unsigned long long)a->max_uniform_buffer_binding_size);
    printf("                 workgroup memory %u B, %u invocations, size %u x %u x %u, "
           "%u workgroups per dimension\n",
           a->max_compute_workgroup_storage_size, a->max_compute_invocations_per_workgroup,
           a->max_compute_workgroup_size_x, a->max_compute_workgroup_size_y,
           a->max_compute_workgroup_size_z, a->max_compute_workgroups_per_dimension);
    printf("                 %u storage buffers per stage, offset alignment storage %u / "
           "uniform %u\n",
           a->max_storage_buffers_per_shader_stage, a->min_storage_buffer_offset_alignment,
           a->min_uniform_buffer_offset_alignment);
    printf("    features:    %s\n", a->features[0] ? a->features : "(none)");
  }
  tfr_webgpu_adapter_infos_free(infos);
}
// ---- end webgpu adapters ----

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
  tfr_cli_info_webgpu();
  return rc;
}
