// The webgpu capability table (src/webgpu/capability.c) against the kernels:
// for every op x dtype, tfr_backend_supports(webgpu) is true exactly when
// running the op on small inputs does not give TFR_ERR_UNSUPPORTED_DTYPE.
// Skips without an adapter unless TFR_REQUIRE_WEBGPU=1.
#include "registry_run.h"

static void test_supports_agrees_with_the_kernels(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  int n = reg_check_backend(tfr_test_gpu);
  print_message("webgpu runs %d (op, dtype) pairs of %u ops\n", n, (unsigned)tfr_op_count());
  // Spot checks of the table itself.
  tfr_op_id op = 0;
  bool ok = false;
  TFR_ASSERT_OK(tfr_op_lookup("exponential", &op));
  TFR_ASSERT_OK(tfr_backend_supports(tfr_test_gpu, op, TFR_F32, &ok));
  assert_true(ok);
  TFR_ASSERT_OK(tfr_backend_supports(tfr_test_gpu, op, TFR_F64, &ok));
  assert_false(ok);
  TFR_ASSERT_OK(tfr_op_lookup("gather", &op));
  TFR_ASSERT_OK(tfr_backend_supports(tfr_test_gpu, op, TFR_C128, &ok));
  assert_true(ok);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_supports_agrees_with_the_kernels, tfr_test_teardown_session),
  };
  return TFR_TEST_RUN_WEBGPU(tests);
}
