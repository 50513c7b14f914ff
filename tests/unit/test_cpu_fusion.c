// Tests of fusion plans (src/core/fusion.c, src/cpu/fusion.c): fused results
// equal the same ops run one by one (bit for bit: the same kernels run in
// another order of memory traffic), with broadcasts, strided inputs, several
// outputs, every error.
#include <stdlib.h>
#include <string.h>

#include "support.h"

static void tfr_expect_same(const tfr_tensor *a, const tfr_tensor *b) {
  assert_int_equal(tfr_tensor_dtype(a), tfr_tensor_dtype(b));
  assert_int_equal(tfr_tensor_numel(a), tfr_tensor_numel(b));
  size_t n = tfr_tensor_nbytes(a);
  unsigned char *x = malloc(n + 1), *y = malloc(n + 1);
  TFR_ASSERT_OK(tfr_tensor_read(a, x, n));
  TFR_ASSERT_OK(tfr_tensor_read(b, y, n));
  assert_memory_equal(x, y, n);
  free(x);
  free(y);
}

// y = exp(a * b + c) - a;  z = y > c;  plus `a` itself as a third output.
static void tfr_run_chain(tfr_test_env *env, tfr_dtype dt, const tfr_tensor *a,
                          const tfr_tensor *b, const tfr_tensor *c) {
  tfr_fusion_plan *p = NULL;
  TFR_ASSERT_OK(tfr_fusion_plan_create(3, (tfr_dtype[]){dt, dt, dt}, &p));
  int ab, abc, e, y, z;
  TFR_ASSERT_OK(tfr_fusion_plan_binary(p, TFR_MULTIPLY, 0, 1, &ab));
  TFR_ASSERT_OK(tfr_fusion_plan_binary(p, TFR_ADD, ab, 2, &abc));
  TFR_ASSERT_OK(tfr_fusion_plan_unary(p, TFR_EXP, abc, &e));
  TFR_ASSERT_OK(tfr_fusion_plan_binary(p, TFR_SUBTRACT, e, 0, &y));
  TFR_ASSERT_OK(tfr_fusion_plan_compare(p, TFR_GT, y, 2, &z));
  TFR_ASSERT_OK(tfr_fusion_plan_output(p, y));
  TFR_ASSERT_OK(tfr_fusion_plan_output(p, z));
  TFR_ASSERT_OK(tfr_fusion_plan_output(p, 0));
  assert_int_equal(tfr_fusion_plan_num_outputs(p), 3);
  assert_int_equal(tfr_fusion_plan_output_dtype(p, 1), TFR_BOOL);
  tfr_tensor *outs[3];
  TFR_ASSERT_OK(tfr_fusion_execute(env->session, p, (const tfr_tensor *[]){a, b, c}, outs));
  // The unfused sequence.
  tfr_tensor *t1, *t2, *t3, *t4, *t5, *ac;
  TFR_ASSERT_OK(tfr_multiply(env->session, a, b, &t1));
  TFR_ASSERT_OK(tfr_add(env->session, t1, c, &t2));
  TFR_ASSERT_OK(tfr_exp(env->session, t2, &t3));
  TFR_ASSERT_OK(tfr_subtract(env->session, t3, a, &t4));
  TFR_ASSERT_OK(tfr_compare(env->session, TFR_GT, t4, c, &t5));
  TFR_ASSERT_OK(tfr_copy(env->session, a, &ac));
  tfr_expect_same(outs[0], t4);
  tfr_expect_same(outs[1], t5);
  tfr_expect_same(outs[2], ac);
  for (int i = 0; i < 3; i++) {
    assert_true(tfr_tensor_is_contiguous(outs[i]));
    tfr_tensor_release(outs[i]);
  }
  tfr_tensor *t[] = {t1, t2, t3, t4, t5, ac};
  for (int i = 0; i < 6; i++) tfr_tensor_release(t[i]);
  tfr_fusion_plan_release(p);
}

static void test_chain_matches_unfused(void **state) {
  tfr_test_env *env = *state;
  const tfr_dtype dts[] = {TFR_F32, TFR_F64};
  for (int i = 0; i < 2; i++) {
    // Small, large (threads, several blocks per run), odd sizes.
    const int64_t sizes[][2] = {{3, 5}, {301, 257}, {1, 1}, {0, 4}};
    for (int s = 0; s < 4; s++) {
      tfr_tensor *a = tfr_test_random_tensor(dts[i], 2, sizes[s], 1);
      tfr_tensor *b = tfr_test_random_tensor(dts[i], 2, sizes[s], 2);
      tfr_tensor *c = tfr_test_random_tensor(dts[i], 2, sizes[s], 3);
      tfr_run_chain(env, dts[i], a, b, c);
      tfr_tensor_release(a);
      tfr_tensor_release(b);
      tfr_tensor_release(c);
    }
  }
  // Strided inputs: a transposed view, a reversed view, a stride-2 slice.
  tfr_tensor *base = tfr_test_random_tensor(TFR_F64, 2, (int64_t[]){70, 60}, 4);
  tfr_tensor *big = tfr_test_random_tensor(TFR_F64, 2, (int64_t[]){120, 70}, 5);
  tfr_tensor *r = tfr_test_random_tensor(TFR_F64, 2, (int64_t[]){60, 70}, 6);
  tfr_tensor *a = NULL, *b = NULL, *c = NULL;
  TFR_ASSERT_OK(tfr_tensor_view_transpose(base, (int64_t[]){1, 0}, &a));
  TFR_ASSERT_OK(tfr_tensor_view_slice(big, (int64_t[]){0, 0}, (int64_t[]){120, 70}, (int64_t[]){2, 1}, &b));
  TFR_ASSERT_OK(tfr_tensor_view_reverse(r, 1, (int64_t[]){1}, &c));
  tfr_run_chain(env, TFR_F64, a, b, c);
  tfr_tensor *objs[] = {base, big, r, a, b, c};
  for (int i = 0; i < 6; i++) tfr_tensor_release(objs[i]);
}

// A bias row broadcast to every row, a scalar broadcast to everything, and
// select/clamp in the plan: out = select(x > bias, clamp(lo, x * s, hi), bias).
static void test_broadcast_inputs(void **state) {
  tfr_test_env *env = *state;
  tfr_tensor *x = tfr_test_random_tensor(TFR_F32, 2, (int64_t[]){40, 33}, 7);
  tfr_tensor *bias = tfr_test_random_tensor(TFR_F32, 1, (int64_t[]){33}, 8);
  tfr_tensor *s = tfr_test_tensor(TFR_F32, 0, NULL, (float[]){1.5f});
  tfr_tensor *lo = tfr_test_tensor(TFR_F32, 0, NULL, (float[]){-1.0f});
  tfr_tensor *hi = tfr_test_tensor(TFR_F32, 0, NULL, (float[]){1.0f});
  tfr_fusion_plan *p = NULL;
  TFR_ASSERT_OK(tfr_fusion_plan_create(5, (tfr_dtype[]){TFR_F32, TFR_F32, TFR_F32, TFR_F32, TFR_F32}, &p));
  TFR_ASSERT_OK(tfr_fusion_plan_broadcast_input(p, 1, 1, (int64_t[]){1}));
  TFR_ASSERT_OK(tfr_fusion_plan_broadcast_input(p, 2, 0, NULL));
  TFR_ASSERT_OK(tfr_fusion_plan_broadcast_input(p, 3, 0, NULL));
  TFR_ASSERT_OK(tfr_fusion_plan_broadcast_input(p, 4, 0, NULL));
  int gt, xs, cl, sel;
  TFR_ASSERT_OK(tfr_fusion_plan_compare(p, TFR_GT, 0, 1, &gt));
  TFR_ASSERT_OK(tfr_fusion_plan_binary(p, TFR_MULTIPLY, 0, 2, &xs));
  TFR_ASSERT_OK(tfr_fusion_plan_clamp(p, 3, xs, 4, &cl));
  TFR_ASSERT_OK(tfr_fusion_plan_select(p, gt, cl, 1, &sel));
  TFR_ASSERT_OK(tfr_fusion_plan_output(p, sel));
  tfr_tensor *out = NULL;
  TFR_ASSERT_OK(tfr_fusion_execute(env->session, p, (const tfr_tensor *[]){x, bias, s, lo, hi}, &out));
  float xv[40 * 33], bv[33], ov[40 * 33];
  TFR_ASSERT_OK(tfr_tensor_read(x, xv, sizeof xv));
  TFR_ASSERT_OK(tfr_tensor_read(bias, bv, sizeof bv));
  TFR_ASSERT_OK(tfr_tensor_read(out, ov, sizeof ov));
  for (int i = 0; i < 40; i++)
    for (int j = 0; j < 33; j++) {
      float v = xv[i * 33 + j], m = v * 1.5f;
      float want = v > bv[j] ? (m < -1 ? -1 : m > 1 ? 1 : m) : bv[j];
      assert_true(ov[i * 33 + j] == want);
    }
  tfr_tensor_release(out);
  // A broadcast input of the wrong extent.
  tfr_tensor *bad = tfr_test_random_tensor(TFR_F32, 1, (int64_t[]){32}, 9);
  tfr_tensor *outs[1] = {(tfr_tensor *)0x1};
  TFR_ASSERT_ERROR(tfr_fusion_execute(env->session, p, (const tfr_tensor *[]){x, bad, s, lo, hi}, outs),
                   TFR_ERR_INVALID_ARGUMENT, "fusion_execute", "extent 32");
  assert_null(outs[0]);
  tfr_tensor_release(bad);
  tfr_fusion_plan_release(p);
  tfr_tensor *objs[] = {x, bias, s, lo, hi};
  for (int i = 0; i < 5; i++) tfr_tensor_release(objs[i]);
}

static void test_integer_and_complex_plans(void **state) {
  tfr_test_env *env = *state;
  // i64: (a + b) * a with wrapping, then abs; c128: conj(a) * b, real part.
  tfr_tensor *a = tfr_test_random_tensor(TFR_I64, 1, (int64_t[]){1000}, 1);
  tfr_tensor *b = tfr_test_random_tensor(TFR_I64, 1, (int64_t[]){1000}, 2);
  tfr_fusion_plan *p = NULL;
  TFR_ASSERT_OK(tfr_fusion_plan_create(2, (tfr_dtype[]){TFR_I64, TFR_I64}, &p));
  int s, m, ab;
  TFR_ASSERT_OK(tfr_fusion_plan_binary(p, TFR_ADD, 0, 1, &s));
  TFR_ASSERT_OK(tfr_fusion_plan_binary(p, TFR_MULTIPLY, s, 0, &m));
  TFR_ASSERT_OK(tfr_fusion_plan_unary(p, TFR_ABS, m, &ab));
  TFR_ASSERT_OK(tfr_fusion_plan_output(p, ab));
  tfr_tensor *out = NULL, *t1, *t2, *t3;
  TFR_ASSERT_OK(tfr_fusion_execute(env->session, p, (const tfr_tensor *[]){a, b}, &out));
  TFR_ASSERT_OK(tfr_add(env->session, a, b, &t1));
  TFR_ASSERT_OK(tfr_multiply(env->session, t1, a, &t2));
  TFR_ASSERT_OK(tfr_abs(env->session, t2, &t3));
  tfr_expect_same(out, t3);
  tfr_tensor *objs[] = {a, b, out, t1, t2, t3};
  for (int i = 0; i < 6; i++) tfr_tensor_release(objs[i]);
  tfr_fusion_plan_release(p);

  a = tfr_test_random_tensor(TFR_C128, 2, (int64_t[]){17, 19}, 3);
  b = tfr_test_random_tensor(TFR_C128, 2, (int64_t[]){17, 19}, 4);
  TFR_ASSERT_OK(tfr_fusion_plan_create(2, (tfr_dtype[]){TFR_C128, TFR_C128}, &p));
  int cj, pr, re;
  TFR_ASSERT_OK(tfr_fusion_plan_unary(p, TFR_CONJ, 0, &cj));
  TFR_ASSERT_OK(tfr_fusion_plan_binary(p, TFR_MULTIPLY, cj, 1, &pr));
  TFR_ASSERT_OK(tfr_fusion_plan_unary(p, TFR_REAL, pr, &re));
  TFR_ASSERT_OK(tfr_fusion_plan_output(p, re));
  assert_int_equal(tfr_fusion_plan_output_dtype(p, 0), TFR_F64);
  TFR_ASSERT_OK(tfr_fusion_execute(env->session, p, (const tfr_tensor *[]){a, b}, &out));
  TFR_ASSERT_OK(tfr_conj(env->session, a, &t1));
  TFR_ASSERT_OK(tfr_multiply(env->session, t1, b, &t2));
  TFR_ASSERT_OK(tfr_real(env->session, t2, &t3));
  tfr_expect_same(out, t3);
  tfr_tensor *objs2[] = {a, b, out, t1, t2, t3};
  for (int i = 0; i < 6; i++) tfr_tensor_release(objs2[i]);
  tfr_fusion_plan_release(p);
}

static void test_invalid_plans(void **state) {
  tfr_test_env *env = *state;
  tfr_fusion_plan *p = NULL;
  int v = -1;
  TFR_ASSERT_ERROR(tfr_fusion_plan_create(0, (tfr_dtype[]){TFR_F32}, &p), TFR_ERR_INVALID_ARGUMENT,
                   "0 inputs");
  TFR_ASSERT_ERROR(tfr_fusion_plan_create(1, (tfr_dtype[]){(tfr_dtype)99}, &p),
                   TFR_ERR_UNSUPPORTED_DTYPE, "input 0", "99");
  TFR_ASSERT_OK(tfr_fusion_plan_create(2, (tfr_dtype[]){TFR_F32, TFR_I32}, &p));
  TFR_ASSERT_ERROR(tfr_fusion_plan_binary(p, TFR_ADD, 0, 1, &v), TFR_ERR_INVALID_ARGUMENT,
                   "add", "f32", "i32");
  TFR_ASSERT_ERROR(tfr_fusion_plan_binary(p, TFR_ADD, 0, 5, &v), TFR_ERR_INVALID_ARGUMENT,
                   "value 5", "0 .. 1");
  TFR_ASSERT_ERROR(tfr_fusion_plan_unary(p, TFR_NOT, 0, &v), TFR_ERR_UNSUPPORTED_DTYPE, "not",
                   "f32");
  TFR_ASSERT_ERROR(tfr_fusion_plan_unary(p, (tfr_unary_op)500, 0, &v), TFR_ERR_INVALID_ARGUMENT,
                   "500");
  TFR_ASSERT_ERROR(tfr_fusion_plan_select(p, 0, 0, 0, &v), TFR_ERR_INVALID_ARGUMENT, "pred",
                   "bool");
  assert_int_equal(v, -1);
  TFR_ASSERT_ERROR(tfr_fusion_plan_output(p, 2), TFR_ERR_INVALID_ARGUMENT, "value 2");
  TFR_ASSERT_ERROR(tfr_fusion_plan_broadcast_input(p, 2, 0, NULL), TFR_ERR_INVALID_ARGUMENT,
                   "input 2");
  TFR_ASSERT_ERROR(tfr_fusion_plan_broadcast_input(p, 0, 2, (int64_t[]){1, 0}),
                   TFR_ERR_INVALID_ARGUMENT, "not increasing");
  tfr_tensor *x = tfr_test_random_tensor(TFR_F32, 1, (int64_t[]){4}, 1);
  tfr_tensor *y = tfr_test_random_tensor(TFR_I32, 1, (int64_t[]){5}, 1);
  tfr_tensor *out[1];
  TFR_ASSERT_ERROR(tfr_fusion_execute(env->session, p, (const tfr_tensor *[]){x, y}, out),
                   TFR_ERR_INVALID_ARGUMENT, "no outputs");
  int neg;
  TFR_ASSERT_OK(tfr_fusion_plan_unary(p, TFR_NEGATE, 0, &neg));
  TFR_ASSERT_OK(tfr_fusion_plan_output(p, neg));
  TFR_ASSERT_ERROR(tfr_fusion_execute(env->session, p, (const tfr_tensor *[]){x, y}, out),
                   TFR_ERR_INVALID_ARGUMENT, "input 1", "shape");
  TFR_ASSERT_ERROR(tfr_fusion_execute(env->session, p, (const tfr_tensor *[]){y, y}, out),
                   TFR_ERR_INVALID_ARGUMENT, "input 0", "i32", "f32");
  TFR_ASSERT_ERROR(tfr_fusion_execute(NULL, p, (const tfr_tensor *[]){x, y}, out),
                   TFR_ERR_INVALID_ARGUMENT, "session");
  for (int i = 0; i < TFR_FUSION_MAX_INSTRUCTIONS - 1; i++)
    TFR_ASSERT_OK(tfr_fusion_plan_unary(p, TFR_NEGATE, 0, &v));
  TFR_ASSERT_ERROR(tfr_fusion_plan_unary(p, TFR_NEGATE, 0, &v), TFR_ERR_INVALID_ARGUMENT, "64");
  tfr_tensor_release(x);
  tfr_tensor_release(y);
  tfr_fusion_plan_release(p);
  tfr_fusion_plan_release(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_chain_matches_unfused),
      cmocka_unit_test(test_broadcast_inputs),
      cmocka_unit_test(test_integer_and_complex_plans),
      cmocka_unit_test(test_invalid_plans),
  };
  return cmocka_run_group_tests(tests, tfr_test_setup_cpu, tfr_test_teardown_cpu);
}
