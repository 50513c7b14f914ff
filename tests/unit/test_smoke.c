#include "support.h"
static void test_version(void **state) { (void)state; assert_string_equal(tfr_version_string(), "0.1.0"); }
int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_version)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
