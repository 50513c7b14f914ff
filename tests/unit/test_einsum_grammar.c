// numpy's einsum grammar beyond the numeric cases of test_einsum.c, against
// tests/ref/gen_einsum_grammar.py's data: bool operands (numpy's logical
// einsum: AND of products, OR of sums; numpy.einsum's own results) and an
// ellipsis present in the operands but dropped from an explicit output (its
// axes summed; the reference is numpy.einsum with "..." kept, summed after).
// On the cpu every case; on webgpu too (bool exactly, f64 in f64: software
// binary64 there, 1e-12 of numpy's).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

// The host data of t.
static const void *gr_data(const tfr_tensor *t) {
  void *p = NULL;
  TFR_ASSERT_OK(tfr_tensor_host_data(t, &p));
  return p;
}

typedef struct gr_case {
  char id[32], dtype[16], expr[256];
  int n;
  tfr_tensor *ops[8], *want;
} gr_case;

// Reads the next case of `f` with its operands and expected result.
static bool gr_next(FILE *f, const char *dir, gr_case *c) {
  if (fscanf(f, "%31s %15s %d %255s", c->id, c->dtype, &c->n, c->expr) != 4) return false;
  if (strcmp(c->expr, "-") == 0) c->expr[0] = '\0';
  assert_true(c->n >= 1 && c->n <= 8);
  char path[1200];
  for (int k = 0; k < c->n; k++) {
    snprintf(path, sizeof path, "%s/%s_in%d.npy", dir, c->id, k);
    TFR_ASSERT_OK(tfr_npy_load(path, &c->ops[k]));
  }
  snprintf(path, sizeof path, "%s/%s_out.npy", dir, c->id);
  TFR_ASSERT_OK(tfr_npy_load(path, &c->want));
  return true;
}

static void gr_free(gr_case *c) {
  for (int k = 0; k < c->n; k++) tfr_tensor_release(c->ops[k]);
  tfr_tensor_release(c->want);
}

static FILE *gr_open(char *dir, size_t n) {
  snprintf(dir, n, "%s/einsum_grammar", TFR_TEST_DATA_DIR);
  char path[1200];
  snprintf(path, sizeof path, "%s/cases.txt", dir);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  return f;
}

// Bool results must match exactly, numeric ones closely.
static void gr_check(const tfr_tensor *got, const tfr_tensor *want, const char *what) {
  assert_int_equal(tfr_tensor_dtype(got), tfr_tensor_dtype(want));
  assert_int_equal(tfr_tensor_rank(got), tfr_tensor_rank(want));
  for (int k = 0; k < tfr_tensor_rank(got); k++)
    assert_int_equal(tfr_tensor_shape(got)[k], tfr_tensor_shape(want)[k]);
  if (tfr_tensor_dtype(want) != TFR_BOOL) {
    tfr_test_expect_close(got, want, what);
    return;
  }
  if (!tfr_tensor_is_contiguous(got) || !tfr_tensor_is_contiguous(want))
    fail_msg("%s: the result (%d) or numpy's (%d) is not compact", what,
             tfr_tensor_is_contiguous(got), tfr_tensor_is_contiguous(want));
  const uint8_t *g = gr_data(got);
  const uint8_t *w = gr_data(want);
  for (int64_t i = 0; i < tfr_tensor_numel(want); i++)
    if (g[i] != w[i]) fail_msg("%s: element %lld is %d, numpy says %d", what, (long long)i, g[i], w[i]);
}

static void test_cpu(void **state) {
  (void)state;
  char dir[1024];
  FILE *f = gr_open(dir, sizeof dir);
  int count = 0, bools = 0, dropped = 0;
  gr_case c;
  while (gr_next(f, dir, &c)) {
    tfr_session *s = tfr_test_begin(tfr_test_cpu);
    tfr_tensor *got = NULL;
    tfr_status st = tfr_einsum(s, c.expr, c.n, (const tfr_tensor *const *)c.ops, NULL, &got);
    if (st != TFR_OK) fail_msg("case %s (%s, %s): %s", c.id, c.expr, c.dtype, tfr_last_error_message());
    // The operands' own path: the optimal search agrees (bool on every path).
    tfr_einsum_options opt = {.path_kind = TFR_EINSUM_PATH_OPTIMAL};
    tfr_tensor *got2 = NULL;
    TFR_ASSERT_OK(tfr_einsum(s, c.expr, c.n, (const tfr_tensor *const *)c.ops, &opt, &got2));
    tfr_test_end(s);
    char what[400];
    snprintf(what, sizeof what, "case %s %s (%s, cpu)", c.id, c.expr, c.dtype);
    gr_check(got, c.want, what);
    gr_check(got2, c.want, what);
    bools += tfr_tensor_dtype(c.want) == TFR_BOOL;
    dropped += c.id[0] == 'e';
    tfr_tensor_release(got);
    tfr_tensor_release(got2);
    gr_free(&c);
    count++;
  }
  fclose(f);
  assert_int_equal(count, 180);
  assert_int_equal(dropped, 60);
  assert_int_equal(bools, 140);
}

static void test_webgpu(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  char dir[1024];
  FILE *f = gr_open(dir, sizeof dir);
  int count = 0;
  gr_case c;
  while (gr_next(f, dir, &c)) {
    bool logical = tfr_tensor_dtype(c.want) == TFR_BOOL;
    tfr_dtype dt = logical ? TFR_BOOL : TFR_F64;
    tfr_tensor *narrow[8] = {0}, *dev[8] = {0}, *want = NULL;
    tfr_session *h = tfr_test_begin(tfr_test_cpu);
    for (int k = 0; k < c.n; k++) TFR_ASSERT_OK(tfr_convert(h, c.ops[k], dt, &narrow[k]));
    TFR_ASSERT_OK(tfr_convert(h, c.want, dt, &want));
    tfr_test_end(h);
    tfr_session *s = tfr_test_begin(tfr_test_gpu);
    for (int k = 0; k < c.n; k++) dev[k] = tfr_test_upload(s, narrow[k]);
    tfr_tensor *got_dev = NULL;
    tfr_status st = tfr_einsum(s, c.expr, c.n, (const tfr_tensor *const *)dev, NULL, &got_dev);
    if (st != TFR_OK)
      fail_msg("case %s (%s, %s on webgpu): %s", c.id, c.expr, c.dtype, tfr_last_error_message());
    tfr_tensor *got = tfr_test_download(s, got_dev);
    tfr_test_end(s);
    char what[400];
    snprintf(what, sizeof what, "case %s %s (%s, webgpu)", c.id, c.expr, c.dtype);
    gr_check(got, want, what);
    tfr_tensor_release(got);
    tfr_tensor_release(got_dev);
    for (int k = 0; k < c.n; k++) {
      tfr_tensor_release(dev[k]);
      tfr_tensor_release(narrow[k]);
    }
    tfr_tensor_release(want);
    gr_free(&c);
    count++;
  }
  fclose(f);
  assert_int_equal(count, 180);
}

// Hand-derived: a chain of 70 all-true 2 x 2 bool matrices has 2^69 true
// products per element, a count that wraps to 0 in 64 bits; each step
// converts back to bool, so the result stays true. And "...i->i" on a 2 x 3
// x 4 f64 tensor is the sum over the first two axes.
static void test_hand_derived(void **state) {
  (void)state;
  enum { N = 70 };
  tfr_session *s = tfr_test_begin(tfr_test_cpu);
  int64_t shape[2] = {2, 2};
  uint8_t ones[4] = {1, 1, 1, 1};
  tfr_tensor *m = tfr_test_tensor(TFR_BOOL, 2, shape, ones);
  const tfr_tensor *ops[N];
  for (int i = 0; i < N; i++) ops[i] = m;
  // The chain by integer labels: operand i is (i, i + 1).
  int ranks[N];
  const int64_t *shapes[N];
  int32_t lab[N][2];
  const int32_t *labels[N];
  for (int i = 0; i < N; i++) {
    ranks[i] = 2;
    shapes[i] = shape;
    lab[i][0] = i;
    lab[i][1] = i + 1;
    labels[i] = lab[i];
  }
  int32_t out_labels[2] = {0, N};
  tfr_einsum_plan *p = NULL;
  TFR_ASSERT_OK(tfr_einsum_plan_create_labels(N, ranks, shapes, labels, 2, out_labels, NULL, &p));
  tfr_tensor *r = NULL;
  TFR_ASSERT_OK(tfr_einsum_plan_execute(s, p, ops, &r));
  assert_int_equal(tfr_tensor_dtype(r), TFR_BOOL);
  const uint8_t *v = gr_data(r);
  for (int i = 0; i < 4; i++) assert_int_equal(v[i], 1);
  tfr_tensor_release(r);
  tfr_einsum_plan_release(p);

  int64_t xs[3] = {2, 3, 4};
  double xv[24];
  for (int i = 0; i < 24; i++) xv[i] = i + 1;
  tfr_tensor *x = tfr_test_tensor(TFR_F64, 3, xs, xv);
  const tfr_tensor *xo[1] = {x};
  TFR_ASSERT_OK(tfr_einsum(s, "...i->i", 1, xo, NULL, &r));
  assert_int_equal(tfr_tensor_rank(r), 1);
  const double *rv = gr_data(r);
  for (int i = 0; i < 4; i++) {
    double want = 0;
    for (int j = 0; j < 6; j++) want += xv[j * 4 + i];
    assert_true(rv[i] == want);
  }
  tfr_tensor_release(r);
  tfr_test_end(s);
  tfr_tensor_release(x);
  tfr_tensor_release(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_cpu, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_hand_derived, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_webgpu, tfr_test_teardown_session),
  };
  return TFR_TEST_RUN_WEBGPU(tests);
}
