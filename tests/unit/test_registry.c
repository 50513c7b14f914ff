// Tests of the op registry (tenferro/registry.h, src/core/op_registry.def):
// the public lookups and their errors, and that the registry agrees with the
// public enums. That every backend runs an op on exactly the dtypes
// tfr_backend_supports answers yes for is test_backend_ops' part.
#include <string.h>

#include "core/op_registry.h"
#include "support.h"
#include "tenferro/tenferro.h"

static void test_lookup(void **state) {
  (void)state;
  assert_true(tfr_op_count() > TFR_UNARY_OP_COUNT + TFR_BINARY_OP_COUNT);
  for (tfr_op_id op = 0; op < tfr_op_count(); op++) {
    tfr_op_id back = 9999;
    TFR_ASSERT_OK(tfr_op_lookup(tfr_op_name(op), &back));
    assert_int_equal(back, op);
  }
  tfr_op_id op = 9999;
  TFR_ASSERT_OK(tfr_op_lookup("exponential", &op));
  uint32_t mask = 0;
  TFR_ASSERT_OK(tfr_op_dtypes(op, &mask));
  assert_true(mask & (1u << TFR_F32));
  assert_true(mask & (1u << TFR_C64));
  assert_false(mask & (1u << TFR_I32));
  // abs and sign: signed integers, floats, complex (not unsigned, not bool).
  TFR_ASSERT_OK(tfr_op_lookup("abs", &op));
  TFR_ASSERT_OK(tfr_op_dtypes(op, &mask));
  assert_true(mask & (1u << TFR_I8));
  assert_false(mask & (1u << TFR_U8));
  assert_false(mask & (1u << TFR_BOOL));
  // The unary and binary names are the public enums' names.
  for (int u = 0; u < TFR_UNARY_OP_COUNT; u++) {
    TFR_ASSERT_OK(tfr_op_lookup(tfr_unary_op_name((tfr_unary_op)u), &op));
    assert_ptr_equal(tfr_op_info_of(op), tfr_unary_info((tfr_unary_op)u));
  }
  for (int b = 0; b < TFR_BINARY_OP_COUNT; b++) {
    TFR_ASSERT_OK(tfr_op_lookup(tfr_binary_op_name((tfr_binary_op)b), &op));
    assert_ptr_equal(tfr_op_info_of(op), tfr_binary_info((tfr_binary_op)b));
  }
  assert_string_equal(tfr_op_name(tfr_op_count()), "invalid");
}

static void test_errors(void **state) {
  (void)state;
  tfr_op_id op = 1234;
  TFR_ASSERT_ERROR(tfr_op_lookup("exp", &op), TFR_ERR_INVALID_ARGUMENT, "no op named \"exp\"");
  assert_int_equal(op, 1234);
  TFR_ASSERT_ERROR(tfr_op_lookup(NULL, &op), TFR_ERR_INVALID_ARGUMENT, "name is NULL");
  TFR_ASSERT_ERROR(tfr_op_lookup("add", NULL), TFR_ERR_INVALID_ARGUMENT, "out is NULL");
  uint32_t mask = 77;
  TFR_ASSERT_ERROR(tfr_op_dtypes(tfr_op_count(), &mask), TFR_ERR_INVALID_ARGUMENT, "out of range");
  assert_int_equal(mask, 77);
  TFR_ASSERT_ERROR(tfr_op_dtypes(0, NULL), TFR_ERR_INVALID_ARGUMENT, "mask_out is NULL");
  tfr_backend *cpu = NULL;
  TFR_ASSERT_OK(tfr_backend_create_cpu(NULL, &cpu));
  bool ok = true;
  TFR_ASSERT_ERROR(tfr_backend_supports(NULL, 0, TFR_F32, &ok), TFR_ERR_INVALID_ARGUMENT,
                   "backend is NULL");
  TFR_ASSERT_ERROR(tfr_backend_supports(cpu, 0, TFR_F32, NULL), TFR_ERR_INVALID_ARGUMENT,
                   "out is NULL");
  TFR_ASSERT_ERROR(tfr_backend_supports(cpu, tfr_op_count(), TFR_F32, &ok),
                   TFR_ERR_INVALID_ARGUMENT, "out of range");
  TFR_ASSERT_OK(tfr_backend_supports(cpu, 0, (tfr_dtype)TFR_DTYPE_COUNT, &ok));
  assert_false(ok);
  tfr_backend_release(cpu);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lookup),
      cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
