// Unit tests of the conformance runner's comparison rules
// (tools/tenferro/conformance/compare.c; tests/conformance/FORMAT.md "Checks").
#include <float.h>
#include <math.h>
#include <string.h>

#include "compare.h"
#include "support.h"

static uint64_t f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static uint64_t f64_bits(double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return u;
}

#define F32 TFR_CONF_FMT_F32
#define F64 TFR_CONF_FMT_F64
#define F16 TFR_CONF_FMT_F16
#define BF16 TFR_CONF_FMT_BF16

static void test_dtype_table(void **state) {
  (void)state;
  const tfr_conf_dtype *bf16 = tfr_conf_dtype_find("bf16");
  assert_non_null(bf16);
  assert_int_equal(bf16->size, 2);
  assert_int_equal(bf16->kind, TFR_CONF_KIND_FLOAT);
  assert_int_equal(bf16->format, BF16);
  const tfr_conf_dtype *c128 = tfr_conf_dtype_find("c128");
  assert_non_null(c128);
  assert_int_equal(c128->size, 16);
  assert_int_equal(c128->format, F64);
  assert_int_equal(tfr_conf_dtype_find("u64")->kind, TFR_CONF_KIND_UINT);
  assert_null(tfr_conf_dtype_find("f8"));
  assert_null(tfr_conf_dtype_find(NULL));
}

static void test_half_decoding(void **state) {
  (void)state;
  assert_true(tfr_conf_float_value(F16, 0x3c00) == 1.0);
  assert_true(tfr_conf_float_value(F16, 0xc000) == -2.0);
  assert_true(tfr_conf_float_value(F16, 0x0001) == ldexp(1.0, -24));  // smallest subnormal
  assert_true(tfr_conf_float_value(F16, 0x0400) == ldexp(1.0, -14));  // smallest normal
  assert_true(tfr_conf_float_value(F16, 0x7bff) == 65504.0);
  assert_true(isinf(tfr_conf_float_value(F16, 0xfc00)) && tfr_conf_float_value(F16, 0xfc00) < 0);
  assert_true(isnan(tfr_conf_float_value(F16, 0x7e00)));
  double neg_zero = tfr_conf_float_value(F16, 0x8000);
  assert_true(neg_zero == 0.0 && signbit(neg_zero));
  // FORMAT.md's example: bf16 0x3fe2 = 1.765625, 0xc06b = -3.671875.
  assert_true(tfr_conf_float_value(BF16, 0x3fe2) == 1.765625);
  assert_true(tfr_conf_float_value(BF16, 0xc06b) == -3.671875);
  const unsigned char le[] = {0xe2, 0x3f};
  assert_int_equal(tfr_conf_load_bits(BF16, le), 0x3fe2);
}

static void test_ulp_basic(void **state) {
  (void)state;
  assert_int_equal(tfr_conf_ulp_distance(F32, f32_bits(1.5f), f32_bits(1.5f)), 0);
  assert_int_equal(tfr_conf_ulp_distance(F32, f32_bits(1.0f), f32_bits(nextafterf(1.0f, 2.0f))), 1);
  assert_int_equal(tfr_conf_ulp_distance(F32, f32_bits(nextafterf(1.0f, 0.0f)), f32_bits(1.0f)), 1);
  // Symmetric, and counts across a binade boundary.
  assert_int_equal(tfr_conf_ulp_distance(F32, f32_bits(2.0f), f32_bits(nextafterf(2.0f, 0.0f))),
                   1);
  assert_int_equal(tfr_conf_ulp_distance(F64, f64_bits(1.0), f64_bits(1.0 + 4 * DBL_EPSILON)), 4);
  // Opposite signs: A + E.
  assert_int_equal(tfr_conf_ulp_distance(F32, f32_bits(1.0f), f32_bits(-1.0f)),
                   2 * (uint64_t)0x3f800000);
  assert_int_equal(tfr_conf_ulp_distance(F16, 0x3c00, 0x3c03), 3);
  assert_int_equal(tfr_conf_ulp_distance(BF16, 0x3f80, 0x3f7f), 1);
}

static void test_ulp_signed_zero(void **state) {
  (void)state;
  assert_int_equal(tfr_conf_ulp_distance(F32, f32_bits(0.0f), f32_bits(-0.0f)), 0);
  assert_int_equal(tfr_conf_ulp_distance(F64, f64_bits(-0.0), f64_bits(0.0)), 0);
  assert_int_equal(tfr_conf_ulp_distance(F16, 0x8000, 0x0000), 0);
  // The smallest subnormals of both signs are 2 apart (through the zeros).
  assert_int_equal(tfr_conf_ulp_distance(F32, 0x00000001, 0x80000001), 2);
  assert_int_equal(tfr_conf_ulp_distance(F32, 0x80000000, 0x00000001), 1);
}

static void test_ulp_subnormal(void **state) {
  (void)state;
  // Largest subnormal to smallest normal is one step.
  assert_int_equal(tfr_conf_ulp_distance(F32, 0x007fffff, 0x00800000), 1);
  assert_int_equal(tfr_conf_ulp_distance(F64, f64_bits(DBL_MIN), f64_bits(nextafter(DBL_MIN, 0))),
                   1);
  assert_int_equal(tfr_conf_ulp_distance(F32, f32_bits(FLT_TRUE_MIN), f32_bits(0.0f)), 1);
  assert_int_equal(tfr_conf_ulp_distance(F16, 0x0001, 0x03ff), 0x3fe);
}

static void test_ulp_nan_inf(void **state) {
  (void)state;
  // Two NaNs are 0 apart, whatever sign or payload.
  assert_int_equal(tfr_conf_ulp_distance(F32, 0x7fc00000, 0xffc00000), 0);
  assert_int_equal(tfr_conf_ulp_distance(F32, 0x7fc00001, 0x7f800001), 0);
  assert_int_equal(tfr_conf_ulp_distance(F64, 0x7ff8000000000000, 0xfff0000000000001), 0);
  assert_int_equal(tfr_conf_ulp_distance(F16, 0x7e00, 0xfe01), 0);
  // NaN against a number or an infinity.
  assert_true(tfr_conf_ulp_distance(F32, 0x7fc00000, f32_bits(1.0f)) == TFR_CONF_ULP_INF);
  assert_true(tfr_conf_ulp_distance(F32, f32_bits(INFINITY), 0x7fc00000) == TFR_CONF_ULP_INF);
  // Infinities match only themselves: not the largest finite value, next to it.
  assert_int_equal(tfr_conf_ulp_distance(F32, f32_bits(INFINITY), f32_bits(INFINITY)), 0);
  assert_true(tfr_conf_ulp_distance(F32, f32_bits(INFINITY), f32_bits(FLT_MAX)) ==
              TFR_CONF_ULP_INF);
  assert_true(tfr_conf_ulp_distance(F32, f32_bits(INFINITY), f32_bits(-INFINITY)) ==
              TFR_CONF_ULP_INF);
  assert_true(tfr_conf_ulp_distance(BF16, 0x7f80, 0x7f7f) == TFR_CONF_ULP_INF);
}

static void test_float_ok(void **state) {
  (void)state;
  const tfr_conf_tolerance exact = {0, 0.0, false}, n8 = {8, 0.0, false};
  uint64_t one = f32_bits(1.0f), one8 = one + 8, one9 = one + 9;
  assert_true(tfr_conf_float_ok(F32, one, one, TFR_CONF_CHECK_CLOSE, &exact, 0.0));
  assert_false(tfr_conf_float_ok(F32, one + 1, one, TFR_CONF_CHECK_CLOSE, &exact, 0.0));
  assert_true(tfr_conf_float_ok(F32, one8, one, TFR_CONF_CHECK_CLOSE, &n8, 0.0));
  assert_false(tfr_conf_float_ok(F32, one9, one, TFR_CONF_CHECK_CLOSE, &n8, 0.0));
  // The absolute bound (T * eps * M) rescues an element small next to M.
  assert_true(tfr_conf_float_ok(F32, one9, one, TFR_CONF_CHECK_CLOSE, &n8, 1e-5));
  // +0 and -0 pass even bit-exact; NaN against NaN too; NULL tolerance = exact.
  assert_true(tfr_conf_float_ok(F32, 0x80000000, 0, TFR_CONF_CHECK_CLOSE, NULL, 0.0));
  assert_true(tfr_conf_float_ok(F32, 0xffc00000, 0x7fc00000, TFR_CONF_CHECK_CLOSE, NULL, 0.0));
  assert_false(tfr_conf_float_ok(F32, 0x7fc00000, one, TFR_CONF_CHECK_ALMOST_EQ, &n8, 1e30));
  // `eq` is byte equality: the NaN and zero leniencies do not apply.
  assert_false(tfr_conf_float_ok(F32, 0xffc00000, 0x7fc00000, TFR_CONF_CHECK_EQ, &n8, 1.0));
  assert_false(tfr_conf_float_ok(F32, 0x80000000, 0, TFR_CONF_CHECK_EQ, &n8, 1.0));
  // Infinities have no tolerance, whatever the bound.
  assert_false(tfr_conf_float_ok(F32, f32_bits(FLT_MAX), f32_bits(INFINITY),
                                 TFR_CONF_CHECK_ALMOST_EQ, &n8, INFINITY));
  assert_false(tfr_conf_float_ok(F64, f64_bits(-INFINITY), f64_bits(INFINITY),
                                 TFR_CONF_CHECK_ALMOST_EQ, &n8, INFINITY));
  assert_true(tfr_conf_float_ok(F64, f64_bits(-INFINITY), f64_bits(-INFINITY),
                                TFR_CONF_CHECK_CLOSE, &exact, 0.0));
}

static void test_almost_eq(void **state) {
  (void)state;
  const tfr_conf_tolerance exact = {0, 0.0, false};
  // |a - e| <= 1e-3 passes almost_eq but not close.
  uint64_t a = f64_bits(1000.0), e = f64_bits(1000.0009);
  assert_true(tfr_conf_float_ok(F64, a, e, TFR_CONF_CHECK_ALMOST_EQ, &exact, 0.0));
  assert_false(tfr_conf_float_ok(F64, a, e, TFR_CONF_CHECK_CLOSE, &exact, 0.0));
  assert_false(tfr_conf_float_ok(F64, a, f64_bits(1000.0011), TFR_CONF_CHECK_ALMOST_EQ, &exact,
                                 0.0));
  // In f16 the bound is checked on the decoded values: 1.0 and 1.0009765625
  // (one f16 ULP) are 9.8e-4 apart.
  assert_true(tfr_conf_float_ok(F16, 0x3c00, 0x3c01, TFR_CONF_CHECK_ALMOST_EQ, &exact, 0.0));
  assert_false(tfr_conf_float_ok(F16, 0x3c00, 0x3c02, TFR_CONF_CHECK_ALMOST_EQ, &exact, 0.0));
}

static void test_flush_subnormals(void **state) {
  (void)state;
  const tfr_conf_tolerance exact = {0, 0.0, false}, flush = {0, 0.0, true};
  uint64_t sub = 0x00000005;  // a subnormal f32
  assert_false(tfr_conf_float_ok(F32, 0, sub, TFR_CONF_CHECK_CLOSE, &exact, 0.0));
  assert_true(tfr_conf_float_ok(F32, 0, sub, TFR_CONF_CHECK_CLOSE, &flush, 0.0));
  assert_true(tfr_conf_float_ok(F32, 0x80000000, 0x80000005, TFR_CONF_CHECK_CLOSE, &flush, 0.0));
  // Only a subnormal expected value may flush: a normal one may not.
  assert_false(tfr_conf_float_ok(F32, 0, 0x00800000, TFR_CONF_CHECK_CLOSE, &flush, 0.0));
  // And the actual value must be a zero, not another subnormal.
  assert_false(tfr_conf_float_ok(F32, 0x00000009, sub, TFR_CONF_CHECK_CLOSE, &flush, 0.0));
}

static void test_abs_bound(void **state) {
  (void)state;
  const tfr_conf_dtype *f32 = tfr_conf_dtype_find("f32");
  // M is the largest finite |element|: the infinity and the NaN do not count.
  float v[4] = {-4.0f, 2.0f, INFINITY, NAN};
  double b = tfr_conf_abs_bound(f32, v, 4, 64.0);
  assert_true(b == 64.0 * ldexp(1.0, -23) * 4.0);
  assert_true(tfr_conf_abs_bound(f32, v, 4, 0.0) == 0.0);
  // At least the smallest normal number.
  float z[2] = {0.0f, -0.0f};
  assert_true(tfr_conf_abs_bound(f32, z, 2, 1.0) == ldexp(1.0, -23) * ldexp(1.0, -126));
  assert_true(tfr_conf_abs_bound(f32, z, 0, 1.0) == ldexp(1.0, -23) * ldexp(1.0, -126));
  // Complex: M over both parts.
  const tfr_conf_dtype *c128 = tfr_conf_dtype_find("c128");
  double c[4] = {1.0, -8.0, 2.0, 0.5};
  assert_true(tfr_conf_abs_bound(c128, c, 2, 1.0) == ldexp(1.0, -52) * 8.0);
  assert_true(tfr_conf_abs_bound(tfr_conf_dtype_find("i32"), c, 2, 1.0) == 0.0);
}

static void test_compare_complex_per_part(void **state) {
  (void)state;
  const tfr_conf_dtype *c64 = tfr_conf_dtype_find("c64");
  const tfr_conf_tolerance n2 = {2, 0.0, false};
  float e[6] = {1.0f, 2.0f, 3.0f, -4.0f, 0.0f, 5.0f};
  float g[6];
  memcpy(g, e, sizeof g);
  tfr_conf_mismatch mm;
  assert_true(tfr_conf_compare(c64, g, e, 3, TFR_CONF_CHECK_CLOSE, &n2, &mm));
  assert_int_equal(mm.count, 0);
  assert_int_equal(mm.index, -1);
  // Two ULP in the real part of element 1: passes.
  g[2] = nextafterf(nextafterf(3.0f, 4.0f), 4.0f);
  assert_true(tfr_conf_compare(c64, g, e, 3, TFR_CONF_CHECK_CLOSE, &n2, &mm));
  // Real part fine, imaginary part of element 1 off by 3 ULP: fails there.
  g[2] = 3.0f;
  g[3] = nextafterf(nextafterf(nextafterf(-4.0f, -5.0f), -5.0f), -5.0f);
  assert_false(tfr_conf_compare(c64, g, e, 3, TFR_CONF_CHECK_CLOSE, &n2, &mm));
  assert_int_equal(mm.count, 1);
  assert_int_equal(mm.index, 1);
  assert_int_equal(mm.part, 1);
  assert_int_equal(mm.ulps, 3);
  // Both parts of element 2 wrong: still one failing element, first part reported.
  g[4] = 1.0f;
  g[5] = NAN;
  assert_false(tfr_conf_compare(c64, g, e, 3, TFR_CONF_CHECK_CLOSE, &n2, &mm));
  assert_int_equal(mm.count, 2);
  assert_int_equal(mm.index, 1);
  assert_int_equal(mm.worst_index, 2);  // the NaN against 5.0: infinitely far
  assert_true(mm.worst_ulps == TFR_CONF_ULP_INF);
  // -0.0 against 0.0 in the real part passes bit-exact.
  float ez[2] = {0.0f, 1.0f}, gz[2] = {-0.0f, 1.0f};
  assert_true(tfr_conf_compare(c64, gz, ez, 1, TFR_CONF_CHECK_CLOSE, NULL, &mm));
}

static void test_compare_bytes(void **state) {
  (void)state;
  const tfr_conf_dtype *i16 = tfr_conf_dtype_find("i16");
  int16_t e[4] = {1, -2, 3, -4}, g[4] = {1, -2, 3, -4};
  tfr_conf_mismatch mm;
  const tfr_conf_tolerance loose = {1000, 1000.0, true};
  assert_true(tfr_conf_compare(i16, g, e, 4, TFR_CONF_CHECK_EQ, &loose, &mm));
  // Integers are compared by bytes whatever the check and tolerance.
  g[2] = 4;
  g[3] = 0;
  assert_false(tfr_conf_compare(i16, g, e, 4, TFR_CONF_CHECK_CLOSE, &loose, &mm));
  assert_int_equal(mm.count, 2);
  assert_int_equal(mm.index, 2);
  // `eq` on floats is bytes too: -0.0 is not 0.0 there.
  const tfr_conf_dtype *f64 = tfr_conf_dtype_find("f64");
  double de[1] = {0.0}, dg[1] = {-0.0};
  assert_false(tfr_conf_compare(f64, dg, de, 1, TFR_CONF_CHECK_EQ, &loose, &mm));
  assert_true(tfr_conf_compare(f64, dg, de, 1, TFR_CONF_CHECK_CLOSE, NULL, &mm));
  // Empty tensors pass.
  assert_true(tfr_conf_compare(f64, dg, de, 0, TFR_CONF_CHECK_CLOSE, NULL, &mm));
}

static void test_compare_tensor_bound(void **state) {
  (void)state;
  // An element far below M may be many ULPs off and still pass under T:
  // FORMAT.md's "512 ULP on an element of 0.0057 in an f32 matrix product".
  const tfr_conf_dtype *f32 = tfr_conf_dtype_find("f32");
  const tfr_conf_tolerance accumulate = {16, 64.0, false};
  float e[2] = {0.0057f, 10.0f}, g[2] = {0.0057f, 10.0f};
  uint32_t bits = (uint32_t)f32_bits(e[0]) + 512;
  memcpy(&g[0], &bits, sizeof bits);
  tfr_conf_mismatch mm;
  assert_true(tfr_conf_compare(f32, g, e, 2, TFR_CONF_CHECK_CLOSE, &accumulate, &mm));
  assert_true(mm.abs_bound == 64.0 * ldexp(1.0, -23) * 10.0);
  // The same error on the largest element is far outside.
  g[0] = e[0];
  bits = (uint32_t)f32_bits(e[1]) + 512;
  memcpy(&g[1], &bits, sizeof bits);
  assert_false(tfr_conf_compare(f32, g, e, 2, TFR_CONF_CHECK_CLOSE, &accumulate, &mm));
  assert_int_equal(mm.index, 1);
  assert_int_equal(mm.ulps, 512);
}

static void test_format_element(void **state) {
  (void)state;
  char buf[128];
  float f[1] = {-1.5f};
  tfr_conf_format_element(tfr_conf_dtype_find("f32"), f, 0, buf, sizeof buf);
  assert_string_equal(buf, "-1.5 (0xbfc00000)");
  int8_t i[2] = {3, -7};
  tfr_conf_format_element(tfr_conf_dtype_find("i8"), i, 1, buf, sizeof buf);
  assert_string_equal(buf, "-7");
  uint8_t b[1] = {1};
  tfr_conf_format_element(tfr_conf_dtype_find("bool"), b, 0, buf, sizeof buf);
  assert_string_equal(buf, "true (0x01)");
  uint64_t u[1] = {UINT64_MAX};
  tfr_conf_format_element(tfr_conf_dtype_find("u64"), u, 0, buf, sizeof buf);
  assert_string_equal(buf, "18446744073709551615");
  float c[2] = {1.0f, -2.0f};
  tfr_conf_format_element(tfr_conf_dtype_find("c64"), c, 0, buf, sizeof buf);
  assert_string_equal(buf, "re 1 (0x3f800000), im -2 (0xc0000000)");
  // A short buffer truncates without overrunning.
  char small[6];
  tfr_conf_format_element(tfr_conf_dtype_find("c64"), c, 0, small, sizeof small);
  assert_int_equal(strlen(small), 5);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dtype_table),
      cmocka_unit_test(test_half_decoding),
      cmocka_unit_test(test_ulp_basic),
      cmocka_unit_test(test_ulp_signed_zero),
      cmocka_unit_test(test_ulp_subnormal),
      cmocka_unit_test(test_ulp_nan_inf),
      cmocka_unit_test(test_float_ok),
      cmocka_unit_test(test_almost_eq),
      cmocka_unit_test(test_flush_subnormals),
      cmocka_unit_test(test_abs_bound),
      cmocka_unit_test(test_compare_complex_per_part),
      cmocka_unit_test(test_compare_bytes),
      cmocka_unit_test(test_compare_tensor_bound),
      cmocka_unit_test(test_format_element),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
