// einsum on the webgpu backend: the 300 random expressions of
// tests/ref/gen_einsum.py (numpy's einsum results) run with every operand on
// the device, in their own dtypes (f64, c128 and i64 as they are), and
// compared with numpy's result (tfr_test_expect_close: 1e-12 of the largest
// |expected| for f64, 2e-5 for single precision, integers exactly).
// Intermediates stay on the device. test_plan_replay: a plan executed again
// reuses what its first execution made.
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

// The chain of test_plan_replay's operands, near the identity so that 300
// products stay within f32's range: operand i is d_i x d_(i+1) (odd i stored
// transposed, so that steps read operands both ways), values I + 0.25 (u -
// 1/2) from the seed.
enum { REPLAY_N = 300 };
static int64_t replay_dim(int i) { return 2 + i % 4; }

static tfr_tensor *replay_operand(int i, uint64_t seed) {
  bool t = i & 1;
  int64_t r = replay_dim(i), c = replay_dim(i + 1);
  int64_t shape[2] = {t ? c : r, t ? r : c};
  float v[25];
  for (int64_t a = 0; a < shape[0]; a++)
    for (int64_t b = 0; b < shape[1]; b++) {
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      double u = (double)(seed >> 11) * 0x1p-53;
      v[a * shape[1] + b] = (float)((a == b ? 1.0 : 0.0) + 0.25 * (u - 0.5));
    }
  tfr_tensor *h = NULL;
  TFR_ASSERT_OK(tfr_tensor_from_host(TFR_F32, 2, shape, v, &h));
  return h;
}

// Record once, replay: a plan contracted again on webgpu, its operands'
// values rewritten in place (tfr_copy_into, same shapes), creates no
// pipeline, no bind group and no buffer (tfr_webgpu_get_stats around the
// execution), and its result matches the cpu backend's for the new values.
// A chain of 300 matrices, about twice as many dispatches as the bind group
// cache held before it was sized for whole plans.
static void test_plan_replay(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  int ranks[REPLAY_N];
  int64_t shp[REPLAY_N][2];
  int32_t lab[REPLAY_N][2];
  const int64_t *shapes[REPLAY_N];
  const int32_t *labels[REPLAY_N];
  for (int i = 0; i < REPLAY_N; i++) {
    bool t = i & 1;
    ranks[i] = 2;
    shp[i][0] = replay_dim(t ? i + 1 : i), shp[i][1] = replay_dim(t ? i : i + 1);
    lab[i][0] = t ? i + 1 : i, lab[i][1] = t ? i : i + 1;
    shapes[i] = shp[i];
    labels[i] = lab[i];
  }
  int32_t out_labels[2] = {0, REPLAY_N};
  tfr_einsum_options opts = {.path_kind = TFR_EINSUM_PATH_GREEDY};
  tfr_einsum_plan *plan = NULL;
  TFR_ASSERT_OK(tfr_einsum_plan_create_labels(REPLAY_N, ranks, shapes, labels, 2, out_labels,
                                              &opts, &plan));
  // The cpu's results for both sets of values first (one session at a time).
  tfr_tensor *host[REPLAY_N], *next[REPLAY_N], *dev[REPLAY_N], *want[2] = {NULL, NULL};
  for (int i = 0; i < REPLAY_N; i++) {
    host[i] = replay_operand(i, 1000 + (uint64_t)i);
    next[i] = replay_operand(i, 5000 + (uint64_t)i);
  }
  tfr_session *c = tfr_test_begin(tfr_test_cpu);
  TFR_ASSERT_OK(tfr_einsum_plan_execute(c, plan, (const tfr_tensor *const *)host, &want[0]));
  TFR_ASSERT_OK(tfr_einsum_plan_execute(c, plan, (const tfr_tensor *const *)next, &want[1]));
  tfr_test_end(c);
  tfr_session *s = tfr_test_begin(tfr_test_gpu);
  for (int i = 0; i < REPLAY_N; i++) dev[i] = tfr_test_upload(s, host[i]);
  // Round 0 creates what the plan needs; rounds 1 and 2 (the same values)
  // and 3 (new ones) replay: the pool hands out the buffers of round 0
  // whatever order they came back in, so the bind groups are round 0's.
  for (int round = 0; round < 4; round++) {
    if (round == 3)  // new values, written into the operands' own buffers
      for (int i = 0; i < REPLAY_N; i++) {
        tfr_tensor *tmp = tfr_test_upload(s, next[i]);
        TFR_ASSERT_OK(tfr_copy_into(s, tmp, dev[i]));
        tfr_tensor_release(tmp);
      }
    TFR_ASSERT_OK(tfr_session_synchronize(s));
    tfr_webgpu_stats before, after;
    TFR_ASSERT_OK(tfr_webgpu_get_stats(tfr_test_gpu, &before));
    tfr_tensor *got_dev = NULL;
    TFR_ASSERT_OK(tfr_einsum_plan_execute(s, plan, (const tfr_tensor *const *)dev, &got_dev));
    TFR_ASSERT_OK(tfr_session_synchronize(s));
    TFR_ASSERT_OK(tfr_webgpu_get_stats(tfr_test_gpu, &after));
    uint64_t dispatches = after.dispatches - before.dispatches;
    print_message("round %d: %llu dispatches, %llu bind groups created, %llu pipelines, %llu "
                  "buffers\n",
                  round, (unsigned long long)dispatches,
                  (unsigned long long)(after.bind_groups_created - before.bind_groups_created),
                  (unsigned long long)(after.pipelines - before.pipelines),
                  (unsigned long long)(after.buffers_created - before.buffers_created));
    assert_true(dispatches >= REPLAY_N - 1);
    if (round >= 1) {  // the replays
      assert_int_equal(after.bind_groups_created, before.bind_groups_created);
      assert_int_equal(after.bind_group_hits - before.bind_group_hits, dispatches);
      assert_int_equal(after.pipelines, before.pipelines);
      assert_int_equal(after.buffers_created, before.buffers_created);
    }
    tfr_tensor *got = tfr_test_download(s, got_dev);
    tfr_tensor_release(got_dev);
    tfr_test_expect_close(got, want[round == 3],
                          round == 3 ? "replay with new values" : "plan on webgpu");
    tfr_tensor_release(got);
  }
  tfr_test_end(s);
  for (int i = 0; i < REPLAY_N; i++) {
    tfr_tensor_release(host[i]);
    tfr_tensor_release(next[i]);
    tfr_tensor_release(dev[i]);
  }
  tfr_tensor_release(want[0]);
  tfr_tensor_release(want[1]);
  tfr_einsum_plan_release(plan);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_numpy_random_expressions, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_plan_replay, tfr_test_teardown_session),
  };
  return TFR_TEST_RUN_WEBGPU(tests);
}
