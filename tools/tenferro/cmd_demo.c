// `tenferro demo`: a small end-to-end run of cpu ops. Each result is printed
// and checked against values derived by hand; a mismatch fails the command.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "tenferro/tenferro.h"

static void tfr_demo_print(const char *label, const tfr_tensor *t) {
  int64_t n = tfr_tensor_numel(t);
  double buf[16];
  printf("  %-34s shape [", label);
  for (int k = 0; k < tfr_tensor_rank(t); k++)
    printf(k ? ", %lld" : "%lld", (long long)tfr_tensor_shape(t)[k]);
  printf("] %s = [", tfr_dtype_name(tfr_tensor_dtype(t)));
  if (tfr_tensor_dtype(t) == TFR_F64 && n <= 16 && tfr_tensor_read(t, buf, sizeof buf) == TFR_OK)
    for (int64_t i = 0; i < n; i++) printf(i ? ", %.6g" : "%.6g", buf[i]);
  printf("]\n");
}

// Reads an f64 tensor and compares it with `want` (relative 1e-12).
static int tfr_demo_check(const char *label, const tfr_tensor *t, const double *want, int64_t n) {
  tfr_demo_print(label, t);
  double got[16];
  if (tfr_tensor_numel(t) != n || tfr_tensor_read(t, got, sizeof got) != TFR_OK) {
    fprintf(stderr, "tenferro demo: %s: wrong size\n", label);
    return 1;
  }
  for (int64_t i = 0; i < n; i++)
    if (fabs(got[i] - want[i]) > 1e-12 * fmax(1.0, fabs(want[i]))) {
      fprintf(stderr, "tenferro demo: %s: element %lld is %.17g, expected %.17g\n", label,
              (long long)i, got[i], want[i]);
      return 1;
    }
  return 0;
}

typedef struct tfr_demo_state {
  int failures;
} tfr_demo_state;

static tfr_status tfr_demo_body(tfr_session *s, void *ctx) {
  tfr_demo_state *state = ctx;
  const int64_t shape[2] = {2, 3};
  const double a_data[6] = {1, 2, 3, 4, 5, 6};
  tfr_tensor *a = NULL, *at = NULL, *sum = NULL, *twice = NULL, *e = NULL, *mx = NULL;
  tfr_tensor *diag = NULL, *bad = NULL;
  tfr_status st = tfr_tensor_from_host(TFR_F64, 2, shape, a_data, &a);
  if (st) return st;
  tfr_demo_print("a", a);

  const int64_t perm[2] = {1, 0};
  const int64_t axis1[1] = {1};
  if ((st = tfr_transpose(s, a, perm, &at))) goto done;
  state->failures += tfr_demo_check("transpose(a, [1, 0])", at, (double[]){1, 4, 2, 5, 3, 6}, 6);
  if ((st = tfr_add(s, a, a, &twice))) goto done;
  state->failures += tfr_demo_check("add(a, a)", twice, (double[]){2, 4, 6, 8, 10, 12}, 6);
  if ((st = tfr_exp(s, a, &e))) goto done;
  state->failures += tfr_demo_check("exponential(a)", e,
                                    (double[]){exp(1), exp(2), exp(3), exp(4), exp(5), exp(6)}, 6);
  if ((st = tfr_reduce_sum(s, a, 1, axis1, &sum))) goto done;
  state->failures += tfr_demo_check("reduce_sum(a, axes=[1])", sum, (double[]){6, 15}, 2);
  if ((st = tfr_reduce_max(s, a, 0, NULL, &mx))) goto done;
  {
    // Rank-0 result of a reduction over all axes.
    const int64_t all[2] = {0, 1};
    tfr_tensor_release(mx);
    mx = NULL;
    if ((st = tfr_reduce_max(s, a, 2, all, &mx))) goto done;
    state->failures += tfr_demo_check("reduce_max(a, axes=[0, 1])", mx, (double[]){6}, 1);
  }
  if ((st = tfr_extract_diagonal(s, at, 0, 1, &diag))) goto done;
  state->failures += tfr_demo_check("extract_diagonal(transpose(a))", diag, (double[]){1, 5}, 2);

  // Errors are values: a shape mismatch is reported, nothing runs.
  printf("\n  an invalid call, add(a, transpose(a)), reports:\n");
  tfr_status bad_st = tfr_add(s, a, at, &bad);
  printf("    %s: %s\n", tfr_status_string(bad_st), tfr_last_error_message());
  if (bad_st != TFR_ERR_INVALID_ARGUMENT || bad) state->failures++;

done:
  tfr_tensor_release(a);
  tfr_tensor_release(at);
  tfr_tensor_release(sum);
  tfr_tensor_release(twice);
  tfr_tensor_release(e);
  tfr_tensor_release(mx);
  tfr_tensor_release(diag);
  tfr_tensor_release(bad);
  return st;
}

int tfr_cli_demo(int argc, char **argv) {
  if (argc > 1) {
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
      printf("usage: tenferro demo\n\nRuns a few cpu ops on a 2x3 f64 tensor, prints each "
             "result and checks it against hand-derived values.\n");
      return 0;
    }
    fprintf(stderr, "tenferro demo: unexpected argument '%s'\n", argv[1]);
    return 2;
  }
  tfr_backend *cpu = NULL;
  if (tfr_backend_create_cpu(NULL, &cpu) != TFR_OK) return tfr_cli_fail("cpu backend");
  printf("tenferro demo on the cpu backend:\n");
  tfr_demo_state state = {0};
  tfr_status st = tfr_with_session(cpu, tfr_demo_body, &state);
  tfr_backend_release(cpu);
  if (st != TFR_OK) return tfr_cli_fail("demo");
  if (state.failures) {
    fprintf(stderr, "tenferro demo: %d result(s) differ from the expected values\n",
            state.failures);
    return 1;
  }
  printf("\nall results match the expected values\n");
  return 0;
}
