// Host allocation failures in every op family that the other tests do not
// sweep (reductions, dot_general, gather/scatter, einsum's paths, slicing
// and profiles have their own): elementwise and analytic ops, compare,
// select, clamp, convert, copies, the structural ops, reduce_window, fusion
// and einsum's one-loop form. For each op, tfr_alloc_fail_after(k) makes the
// k-th host allocation fail, for every k until the op succeeds: each failure
// must be TFR_ERR_OUT_OF_MEMORY with the output NULL, the operands' bytes as
// they were and no library object left alive (tfr_live_objects; LeakSanitizer
// checks the bytes in CI's sanitizer stage).
#include <string.h>

#include "core/core.h"  // tfr_alloc_fail_after
#include "support.h"

enum { NUM_INPUTS = 6 };

typedef struct {
  tfr_session *s;
  tfr_tensor *in[NUM_INPUTS];  // x, y (f32 [3, 4]), xt (x transposed: a view), pred, zero, lo/hi
  tfr_fusion_plan *fusion;     // exp(x * y + x), x * y > x
} af_env;

// Op `c` on env's inputs into out[0] (and out[1] for fusion). Returns the
// op's status; -1 past the last op.
static int af_run(int c, af_env *e, tfr_tensor **out) {
  tfr_session *s = e->s;
  const tfr_tensor *x = e->in[0], *y = e->in[1], *xt = e->in[2], *pred = e->in[3],
                   *zero = e->in[4], *bound = e->in[5];
  switch (c) {
    case 0: return tfr_exp(s, xt, out);
    case 1: return tfr_add(s, x, y, out);
    case 2: return tfr_compare(s, TFR_LT, x, y, out);
    case 3: return tfr_select(s, pred, x, y, out);
    case 4: return tfr_clamp(s, bound, x, y, out);
    case 5: return tfr_convert(s, xt, TFR_F64, out);
    case 6: return tfr_copy(s, xt, out);
    case 7: return tfr_transpose(s, x, (int64_t[]){1, 0}, out);
    case 8: return tfr_reshape(s, xt, 2, (int64_t[]){2, 6}, out);
    case 9: return tfr_broadcast_in_dim(s, x, 3, (int64_t[]){2, 3, 4}, (int64_t[]){1, 2}, out);
    case 10: return tfr_tril(s, xt, 0, out);
    case 11: return tfr_iota(s, TFR_I32, 2, (int64_t[]){3, 5}, 1, out);
    case 12: return tfr_slice(s, xt, (int64_t[]){1, 0}, (int64_t[]){3, 4}, (int64_t[]){1, 2}, out);
    case 13: return tfr_reverse(s, x, 1, (int64_t[]){1}, out);
    case 14:
      return tfr_pad(s, x, zero, (int64_t[]){1, 0}, (int64_t[]){0, 2}, (int64_t[]){1, 1}, out);
    case 15: return tfr_concatenate(s, 3, (const tfr_tensor *[]){x, y, x}, 0, out);
    case 16:
      return tfr_reduce_window(s, xt, zero, TFR_REDUCE_ADD, (int64_t[]){2, 2}, (int64_t[]){1, 2},
                               NULL, NULL, (int64_t[]){0, 1, 1, 0}, out);
    case 17: return tfr_fusion_execute(s, e->fusion, (const tfr_tensor *[]){x, y}, out);
    case 18:  // three operands, one loop (sum_of_products)
      return tfr_einsum(s, "ij,kj,kl->il", 3, (const tfr_tensor *[]){x, y, x}, NULL, out);
    case 19: return tfr_unary(s, TFR_TANH, y, out);
    case 20: return tfr_binary(s, TFR_POWER, bound, x, out);
    default: return -1;
  }
}

static const char *const af_names[] = {
    "exp",       "add",     "compare", "select",        "clamp",         "convert",
    "copy",      "transpose", "reshape", "broadcast_in_dim", "tril",      "iota",
    "slice",     "reverse", "pad",     "concatenate",   "reduce_window", "fusion",
    "einsum (one loop)", "tanh", "power"};

// The bytes of tensor t (any strides: copied compact first).
static void af_bytes(tfr_session *s, const tfr_tensor *t, unsigned char *buf, size_t cap,
                     size_t *len) {
  tfr_tensor *c = NULL;
  TFR_ASSERT_OK(tfr_copy(s, t, &c));
  *len = (size_t)tfr_tensor_numel(c) * tfr_dtype_size(tfr_tensor_dtype(c));
  assert_true(*len <= cap);
  TFR_ASSERT_OK(tfr_tensor_read(c, buf, *len));
  tfr_tensor_release(c);
}

static void test_every_allocation_fails_cleanly(void **state) {
  tfr_test_env *env = *state;
  af_env e = {.s = env->session};
  int64_t shape[2] = {3, 4};
  e.in[0] = tfr_test_random_tensor(TFR_F32, 2, shape, 1);
  e.in[1] = tfr_test_random_tensor(TFR_F32, 2, shape, 2);
  tfr_tensor *x43 = tfr_test_random_tensor(TFR_F32, 2, (int64_t[]){4, 3}, 3);
  TFR_ASSERT_OK(tfr_tensor_view_transpose(x43, (int64_t[]){1, 0}, &e.in[2]));
  TFR_ASSERT_OK(tfr_compare(e.s, TFR_GT, e.in[0], e.in[1], &e.in[3]));
  float zero = 0, half = 0.5f;
  e.in[4] = tfr_test_tensor(TFR_F32, 0, NULL, &zero);
  tfr_tensor *h = tfr_test_tensor(TFR_F32, 0, NULL, &half);
  TFR_ASSERT_OK(tfr_broadcast_in_dim(e.s, h, 2, shape, NULL, &e.in[5]));
  tfr_tensor_release(h);
  TFR_ASSERT_OK(tfr_fusion_plan_create(2, (tfr_dtype[]){TFR_F32, TFR_F32}, &e.fusion));
  int xy, xyx, ex, gt;
  TFR_ASSERT_OK(tfr_fusion_plan_binary(e.fusion, TFR_MULTIPLY, 0, 1, &xy));
  TFR_ASSERT_OK(tfr_fusion_plan_binary(e.fusion, TFR_ADD, xy, 0, &xyx));
  TFR_ASSERT_OK(tfr_fusion_plan_unary(e.fusion, TFR_EXP, xyx, &ex));
  TFR_ASSERT_OK(tfr_fusion_plan_compare(e.fusion, TFR_GT, xy, 0, &gt));
  TFR_ASSERT_OK(tfr_fusion_plan_output(e.fusion, ex));
  TFR_ASSERT_OK(tfr_fusion_plan_output(e.fusion, gt));
  unsigned char before[NUM_INPUTS][64], after[64];
  size_t len[NUM_INPUTS];
  for (int i = 0; i < NUM_INPUTS; i++) af_bytes(e.s, e.in[i], before[i], sizeof before[i], &len[i]);
  int64_t base = tfr_live_objects(TFR_OBJECT_ALL);

  int c = 0;
  for (;; c++) {
    tfr_tensor *probe[2] = {NULL, NULL};
    int pst = af_run(c, &e, probe);
    if (pst == -1) break;  // past the last op
    if (pst != TFR_OK) fail_msg("%s: status %d (%s)", af_names[c], pst, tfr_last_error_message());
    tfr_tensor_release(probe[0]);
    tfr_tensor_release(probe[1]);
    int failures = 0;
    for (long k = 0;; k++) {
      assert_true(k < 1000);  // an op that never succeeds
      tfr_tensor *out[2] = {NULL, NULL};
      tfr_alloc_fail_after(k);
      int st = af_run(c, &e, out);
      tfr_alloc_fail_after(-1);
      if (st == TFR_OK) {
        assert_non_null(out[0]);
        tfr_tensor_release(out[0]);
        tfr_tensor_release(out[1]);
        break;
      }
      failures++;
      if (st != TFR_ERR_OUT_OF_MEMORY)
        fail_msg("%s, allocation %ld failing: status %d (%s), not TFR_ERR_OUT_OF_MEMORY",
                 af_names[c], k, st, tfr_last_error_message());
      if (out[0] || out[1]) fail_msg("%s, allocation %ld failing: an output was set", af_names[c], k);
      if (tfr_live_objects(TFR_OBJECT_ALL) != base)
        fail_msg("%s, allocation %ld failing: %lld objects left alive", af_names[c], k,
                 (long long)(tfr_live_objects(TFR_OBJECT_ALL) - base));
      for (int i = 0; i < NUM_INPUTS; i++) {
        size_t n = 0;
        af_bytes(e.s, e.in[i], after, sizeof after, &n);
        if (n != len[i] || memcmp(after, before[i], n) != 0)
          fail_msg("%s, allocation %ld failing: input %d changed", af_names[c], k, i);
      }
    }
    assert_true(failures >= 1);  // every op allocates at least its result
  }
  assert_int_equal(c, (int)(sizeof af_names / sizeof af_names[0]));
  tfr_fusion_plan_release(e.fusion);
  for (int i = 0; i < NUM_INPUTS; i++) tfr_tensor_release(e.in[i]);
  tfr_tensor_release(x43);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_every_allocation_fails_cleanly, tfr_test_setup_cpu,
                                      tfr_test_teardown_cpu),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
