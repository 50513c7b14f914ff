// einsum on the webgpu backend: the 300 random expressions of
// tests/ref/gen_einsum.py (numpy's einsum results) run with every operand on
// the device, in their own dtypes (f64, c128 and i64 as they are), and
// compared with numpy's result (tfr_test_expect_close: 1e-12 of the largest
// |expected| for f64, 2e-5 for single precision, integers exactly).
// Intermediates stay on the device.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static tfr_dtype webgpu_dtype(tfr_dtype dt) { return dt; }

static void test_numpy_random_expressions(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/einsum", TFR_TEST_DATA_DIR);
  char path[1200];
  snprintf(path, sizeof path, "%s/cases.txt", dir);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  char id[32], dt[16], ascii[256], uni[512];
  int n, count = 0;
  while (fscanf(f, "%31s %15s %d %255s %511s", id, dt, &n, ascii, uni) == 5) {
    const char *expr = strcmp(uni, "-") == 0 ? "" : uni;
    tfr_tensor *ops[8] = {0}, *narrow[8] = {0}, *dev[8] = {0}, *want = NULL, *want_n = NULL;
    assert_true(n >= 1 && n <= 8);
    for (int k = 0; k < n; k++) {
      snprintf(path, sizeof path, "%s/%s_in%d.npy", dir, id, k);
      TFR_ASSERT_OK(tfr_npy_load(path, &ops[k]));
    }
    snprintf(path, sizeof path, "%s/%s_out.npy", dir, id);
    TFR_ASSERT_OK(tfr_npy_load(path, &want));
    tfr_dtype wd = webgpu_dtype(tfr_tensor_dtype(want));
    // The narrowing on the cpu backend.
    tfr_session *c = tfr_test_begin(tfr_test_cpu);
    for (int k = 0; k < n; k++) TFR_ASSERT_OK(tfr_convert(c, ops[k], wd, &narrow[k]));
    TFR_ASSERT_OK(tfr_convert(c, want, wd, &want_n));
    tfr_test_end(c);
    tfr_session *s = tfr_test_begin(tfr_test_gpu);
    for (int k = 0; k < n; k++) dev[k] = tfr_test_upload(s, narrow[k]);
    tfr_einsum_options opts = {.path_kind = TFR_EINSUM_PATH_GREEDY};
    tfr_tensor *got_dev = NULL;
    tfr_status st = tfr_einsum(s, expr, n, (const tfr_tensor *const *)dev, &opts, &got_dev);
    if (st != TFR_OK) {
      print_error("case %s (%s, %s on webgpu as %s): %s\n", id, ascii, dt, tfr_dtype_name(wd),
                  tfr_last_error_message());
      fail();
    }
    assert_false(tfr_tensor_is_host(got_dev));
    tfr_tensor *got = tfr_test_download(s, got_dev);
    tfr_test_end(s);
    char what[400];
    snprintf(what, sizeof what, "case %s %s (%s as %s on webgpu)", id, ascii, dt,
             tfr_dtype_name(wd));
    tfr_test_expect_close(got, want_n, what);
    tfr_tensor_release(got);
    tfr_tensor_release(got_dev);
    for (int k = 0; k < n; k++) {
      tfr_tensor_release(dev[k]);
      tfr_tensor_release(narrow[k]);
      tfr_tensor_release(ops[k]);
    }
    tfr_tensor_release(want_n);
    tfr_tensor_release(want);
    count++;
  }
  fclose(f);
  assert_int_equal(count, 300);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_numpy_random_expressions, tfr_test_teardown_session),
  };
  return TFR_TEST_RUN_WEBGPU(tests);
}
