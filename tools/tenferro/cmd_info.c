// `tenferro info`: what this build contains and what it finds at run time.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/op_registry.h"
#include "tenferro/tenferro.h"

// From OpenBLAS (cblas.h declares them; declared here to avoid pulling the
// whole header into the tool).
char *openblas_get_config(void);
char *openblas_get_corename(void);
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

// ---- op registry ----
// `tenferro info --ops [--json]`: the op x dtype x backend matrix of the op
// registry (tenferro/registry.h), for cpu and, when an adapter exists, webgpu.
static void tfr_cli_json_dtypes(const tfr_backend *b, tfr_op_id op) {
  printf("[");
  int n = 0;
  for (int d = 0; d < TFR_DTYPE_COUNT; d++) {
    bool ok = false;
    uint32_t mask = 0;
    if (b ? tfr_backend_supports(b, op, (tfr_dtype)d, &ok) != TFR_OK
          : tfr_op_dtypes(op, &mask) != TFR_OK)
      continue;
    if (b ? ok : (mask & (1u << d)) != 0)
      printf("%s\"%s\"", n++ ? ", " : "", tfr_dtype_name((tfr_dtype)d));
  }
  printf("]");
}

static int tfr_cli_info_ops(bool json) {
  tfr_backend *backends[2] = {NULL, NULL};
  const char *names[2] = {"cpu", "webgpu"};
  if (tfr_backend_create_cpu(NULL, &backends[0]) != TFR_OK) return tfr_cli_fail("cpu backend");
  const char *webgpu_why = NULL;
  if (tfr_backend_create_webgpu(NULL, &backends[1]) != TFR_OK) {
    webgpu_why = tfr_last_error_message();
    backends[1] = NULL;
  }
  int nb = backends[1] ? 2 : 1;
  uint32_t count = tfr_op_count();
  if (json) {
    printf("{\"dtypes\": [");
    for (int d = 0; d < TFR_DTYPE_COUNT; d++)
      printf("%s\"%s\"", d ? ", " : "", tfr_dtype_name((tfr_dtype)d));
    printf("],\n \"backends\": [");
    for (int k = 0; k < nb; k++) printf("%s\"%s\"", k ? ", " : "", names[k]);
    printf("],\n \"ops\": [\n");
    for (tfr_op_id op = 0; op < count; op++) {
      const tfr_op_info *i = tfr_op_info_of(op);
      printf("  {\"name\": \"%s\", \"family\": \"%s\", \"origin\": \"%s\", \"arity\": %d, "
             "\"result\": \"%s\", \"tolerance\": \"%s\", \"attributes\": \"%s\", \"dtypes\": ",
             i->name, tfr_op_family_name(i->family), tfr_op_origin_name(i->origin), i->arity,
             tfr_result_rule_name(i->rule), tfr_tol_class_name(i->tol), i->attrs);
      tfr_cli_json_dtypes(NULL, op);
      printf(", \"backends\": {");
      for (int k = 0; k < nb; k++) {
        printf("%s\"%s\": ", k ? ", " : "", names[k]);
        tfr_cli_json_dtypes(backends[k], op);
      }
      printf("}}%s\n", op + 1 < count ? "," : "");
    }
    printf(" ]}\n");
  } else {
    printf("op x dtype x backend (tenferro %s): ", tfr_version_string());
    if (nb == 2)
      printf("'+' cpu and webgpu, 'c' cpu only, '.' not defined for the dtype\n");
    else
      printf("'c' cpu, '.' not defined for the dtype (webgpu: %s)\n",
             webgpu_why ? webgpu_why : "not available");
    printf("%-24s", "op");
    for (int d = 0; d < TFR_DTYPE_COUNT; d++) printf(" %4s", tfr_dtype_name((tfr_dtype)d));
    printf("  result\n");
    for (tfr_op_id op = 0; op < count; op++) {
      printf("%-24s", tfr_op_name(op));
      for (int d = 0; d < TFR_DTYPE_COUNT; d++) {
        bool on[2] = {false, false};
        for (int k = 0; k < nb; k++)
          if (tfr_backend_supports(backends[k], op, (tfr_dtype)d, &on[k]) != TFR_OK) on[k] = false;
        printf(" %4s", on[1] ? "+" : on[0] ? "c" : ".");
      }
      printf("  %s\n", tfr_result_rule_name(tfr_op_info_of(op)->rule));
    }
  }
  for (int k = 0; k < nb; k++) tfr_backend_release(backends[k]);
  return 0;
}
// ---- end op registry ----

int tfr_cli_info(int argc, char **argv) {
  bool ops = false, json = false;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      printf("usage: tenferro info [--ops [--json]]\n\nPrints the library version, the backends "
             "compiled in and, for each, what it finds on this machine.\n\n"
             "  --ops   the op registry: one line per op (StableHLO names), one column per\n"
             "          dtype: '+' runs on cpu and webgpu, 'c' on cpu only, '.' the op is not\n"
             "          defined for the dtype. The webgpu column needs an adapter; without\n"
             "          one only cpu is shown. docs/registry.md explains the table.\n"
             "  --json  with --ops: the same as JSON (name, family, origin, arity, result\n"
             "          rule, tolerance class, attributes, dtypes, dtypes per backend).\n");
      return 0;
    }
    if (strcmp(argv[i], "--ops") == 0) {
      ops = true;
    } else if (strcmp(argv[i], "--json") == 0) {
      json = true;
    } else {
      fprintf(stderr, "tenferro info: unexpected argument '%s'\n", argv[i]);
      return 2;
    }
  }
  if (json && !ops) {
    fprintf(stderr, "tenferro info: --json needs --ops\n");
    return 2;
  }
  if (ops) return tfr_cli_info_ops(json);
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
  const char *forced = getenv("OPENBLAS_CORETYPE");
  printf("  BLAS:          %s, kernels %s%s%s%s, called single-threaded\n",
         openblas_get_config(), openblas_get_corename(), forced ? " (OPENBLAS_CORETYPE=" : "",
         forced ? forced : "", forced ? ")" : "");
  printf("  dtypes:       ");
  for (int d = 0; d < TFR_DTYPE_COUNT; d++) printf(" %s", tfr_dtype_name((tfr_dtype)d));
  printf("\n");
  if (tfr_session_end(s) != TFR_OK) rc = tfr_cli_fail("cpu session_end");
  tfr_backend_release(cpu);
  tfr_cli_info_webgpu();
  return rc;
}
