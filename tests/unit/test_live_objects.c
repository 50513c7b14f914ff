// tfr_live_objects (tenferro/tensor.h): the counts go up by exactly the
// objects made, stay while any reference holds them, and come back to their
// starting values after tensors, views, wrapped buffers, op and einsum
// results, plans and sessions are released, on error paths (every
// allocation failing in turn) and from several threads at once.
#include <pthread.h>

#include "core/core.h"  // tfr_alloc_fail_after

#include "support.h"

// The counts of every kind, and the total.
typedef struct {
  int64_t n[TFR_OBJECT_KIND_COUNT];
  int64_t all;
} counts;

static counts snapshot(void) {
  counts c;
  for (int k = 0; k < TFR_OBJECT_KIND_COUNT; k++) c.n[k] = tfr_live_objects((tfr_object_kind)k);
  c.all = tfr_live_objects(TFR_OBJECT_ALL);
  return c;
}

// Asserts that the counts are `base` plus `delta` (one entry per kind).
static void expect_delta(const counts *base, const int64_t *delta, const char *what) {
  counts now = snapshot();
  int64_t sum = 0;
  for (int k = 0; k < TFR_OBJECT_KIND_COUNT; k++) {
    if (now.n[k] != base->n[k] + delta[k])
      fail_msg("%s: %s count %lld, expected %lld", what,
               tfr_object_kind_name((tfr_object_kind)k), (long long)now.n[k],
               (long long)(base->n[k] + delta[k]));
    sum += now.n[k];
  }
  assert_int_equal(now.all, sum);
}

static void expect_same(const counts *base, const char *what) {
  int64_t zero[TFR_OBJECT_KIND_COUNT] = {0};
  expect_delta(base, zero, what);
}

static void test_kinds_and_names(void **state) {
  (void)state;
  assert_int_equal(tfr_live_objects((tfr_object_kind)TFR_OBJECT_KIND_COUNT), -1);
  assert_int_equal(tfr_live_objects((tfr_object_kind)-2), -1);
  assert_null(tfr_object_kind_name((tfr_object_kind)TFR_OBJECT_KIND_COUNT));
  assert_string_equal(tfr_object_kind_name(TFR_OBJECT_ALL), "all");
  assert_string_equal(tfr_object_kind_name(TFR_OBJECT_TENSOR), "tensor");
  assert_string_equal(tfr_object_kind_name(TFR_OBJECT_STORAGE), "storage");
  assert_string_equal(tfr_object_kind_name(TFR_OBJECT_SESSION), "session");
  assert_string_equal(tfr_object_kind_name(TFR_OBJECT_EINSUM_PLAN), "einsum_plan");
  assert_string_equal(tfr_object_kind_name(TFR_OBJECT_DOT_PLAN), "dot_plan");
  assert_string_equal(tfr_object_kind_name(TFR_OBJECT_FUSION_PLAN), "fusion_plan");
  for (int k = 0; k < TFR_OBJECT_KIND_COUNT; k++)
    assert_true(tfr_live_objects((tfr_object_kind)k) >= 0);
}

// A tensor and five views share one storage; the storage lives until the
// last of them goes, whichever order they are released in.
static void test_tensors_and_views(void **state) {
  (void)state;
  counts base = snapshot();
  double data[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  tfr_tensor *a = NULL, *v[5] = {NULL};
  TFR_ASSERT_OK(tfr_tensor_from_host(TFR_F64, 2, (int64_t[]){3, 4}, data, &a));
  expect_delta(&base, (int64_t[TFR_OBJECT_KIND_COUNT]){[TFR_OBJECT_TENSOR] = 1, [TFR_OBJECT_STORAGE] = 1},
               "from_host");
  TFR_ASSERT_OK(tfr_tensor_view_transpose(a, (int64_t[]){1, 0}, &v[0]));
  TFR_ASSERT_OK(tfr_tensor_view_slice(a, (int64_t[]){0, 1}, (int64_t[]){3, 4}, (int64_t[]){2, 2},
                                      &v[1]));
  TFR_ASSERT_OK(tfr_tensor_view_reverse(a, 1, (int64_t[]){1}, &v[2]));
  TFR_ASSERT_OK(tfr_tensor_view_reshape(a, 1, (int64_t[]){12}, &v[3]));
  TFR_ASSERT_OK(tfr_tensor_view(v[0], 1, (int64_t[]){3}, (int64_t[]){5}, 0, &v[4]));  // diagonal
  expect_delta(&base, (int64_t[TFR_OBJECT_KIND_COUNT]){[TFR_OBJECT_TENSOR] = 6, [TFR_OBJECT_STORAGE] = 1},
               "five views");
  // A view that fails to form adds nothing.
  tfr_tensor *bad = NULL;
  TFR_ASSERT_ERROR(tfr_tensor_view(a, 1, (int64_t[]){13}, NULL, 0, &bad),
                   TFR_ERR_INVALID_ARGUMENT, "outside");
  assert_null(bad);
  tfr_tensor_release(a);  // the views keep the storage
  expect_delta(&base, (int64_t[TFR_OBJECT_KIND_COUNT]){[TFR_OBJECT_TENSOR] = 5, [TFR_OBJECT_STORAGE] = 1},
               "base released first");
  tfr_tensor_retain(v[2]);
  for (int i = 0; i < 5; i++) tfr_tensor_release(v[i]);
  expect_delta(&base, (int64_t[TFR_OBJECT_KIND_COUNT]){[TFR_OBJECT_TENSOR] = 1, [TFR_OBJECT_STORAGE] = 1},
               "one view with a second reference");
  tfr_tensor_release(v[2]);
  expect_same(&base, "every view released");
  // Rank 0 and empty tensors are objects like any other.
  tfr_tensor *s = NULL, *e = NULL;
  TFR_ASSERT_OK(tfr_tensor_zeros_host(TFR_F32, 0, NULL, &s));
  TFR_ASSERT_OK(tfr_tensor_zeros_host(TFR_F32, 2, (int64_t[]){0, 5}, &e));
  expect_delta(&base, (int64_t[TFR_OBJECT_KIND_COUNT]){[TFR_OBJECT_TENSOR] = 2, [TFR_OBJECT_STORAGE] = 2},
               "rank 0 and empty");
  tfr_tensor_release(s);
  tfr_tensor_release(e);
  expect_same(&base, "rank 0 and empty released");
}

static int releases;
static void count_release(void *ctx, void *data) {
  (void)ctx;
  (void)data;
  releases++;
}

// A wrapped buffer is one storage; a refused wrap makes nothing and keeps
// the caller's buffer (release not called).
static void test_wrapped_buffers(void **state) {
  (void)state;
  counts base = snapshot();
  float buf[6] = {1, 2, 3, 4, 5, 6};
  tfr_tensor *w = NULL, *bad = NULL;
  releases = 0;
  TFR_ASSERT_OK(tfr_tensor_wrap_host(TFR_F32, 2, (int64_t[]){2, 3}, NULL, buf, sizeof buf,
                                     count_release, NULL, &w));
  expect_delta(&base, (int64_t[TFR_OBJECT_KIND_COUNT]){[TFR_OBJECT_TENSOR] = 1, [TFR_OBJECT_STORAGE] = 1},
               "wrap_host");
  TFR_ASSERT_ERROR(tfr_tensor_wrap_host(TFR_F32, 2, (int64_t[]){3, 3}, NULL, buf, sizeof buf,
                                        count_release, NULL, &bad),
                   TFR_ERR_INVALID_ARGUMENT, "outside");
  expect_delta(&base, (int64_t[TFR_OBJECT_KIND_COUNT]){[TFR_OBJECT_TENSOR] = 1, [TFR_OBJECT_STORAGE] = 1},
               "refused wrap_host");
  tfr_tensor_release(w);
  assert_int_equal(releases, 1);
  expect_same(&base, "wrapped buffer released");
}

// Sessions, op results, einsum (one-shot and planned), dot and fusion plans:
// each counted while it lives, nothing left once all are released.
static void test_ops_einsum_plans(void **state) {
  (void)state;
  counts base = snapshot();
  tfr_backend *b = NULL;
  TFR_ASSERT_OK(tfr_backend_create_cpu(&(tfr_cpu_options){.num_threads = 2}, &b));
  expect_same(&base, "backends are not counted");
  tfr_session *s = NULL;
  TFR_ASSERT_OK(tfr_session_begin(b, &s));
  expect_delta(&base, (int64_t[TFR_OBJECT_KIND_COUNT]){[TFR_OBJECT_SESSION] = 1}, "session");
  counts in_session = snapshot();
  tfr_tensor *x = tfr_test_random_tensor(TFR_F64, 2, (int64_t[]){4, 5}, 1);
  tfr_tensor *y = tfr_test_random_tensor(TFR_F64, 2, (int64_t[]){5, 3}, 2);
  tfr_tensor *z = tfr_test_random_tensor(TFR_F64, 2, (int64_t[]){3, 6}, 3);
  tfr_tensor *sum = NULL, *t = NULL, *e = NULL, *e2 = NULL, *d = NULL;
  TFR_ASSERT_OK(tfr_add(s, x, x, &sum));
  TFR_ASSERT_OK(tfr_transpose(s, x, (int64_t[]){1, 0}, &t));
  TFR_ASSERT_OK(tfr_einsum(s, "ij,jk,kl->il", 3, (const tfr_tensor *const[]){x, y, z}, NULL, &e));
  // A path of three steps makes and drops intermediates: only the result stays.
  expect_delta(&in_session,
               (int64_t[TFR_OBJECT_KIND_COUNT]){[TFR_OBJECT_TENSOR] = 6, [TFR_OBJECT_STORAGE] = 6},
               "operands and three results");
  tfr_einsum_plan *plan = NULL;
  TFR_ASSERT_OK(tfr_einsum_plan_create("ij,jk,kl->il", 3, (int[]){2, 2, 2},
                                       (const int64_t *const[]){tfr_tensor_shape(x),
                                                                tfr_tensor_shape(y),
                                                                tfr_tensor_shape(z)},
                                       NULL, &plan));
  TFR_ASSERT_OK(tfr_einsum_plan_execute(s, plan, (const tfr_tensor *const[]){x, y, z}, &e2));
  tfr_test_expect_close(e2, e, "planned einsum");
  tfr_dot_plan *dp = NULL;
  tfr_dot_config cfg = {.num_contracting_dims = 1,
                        .lhs_contracting_dimensions = (int64_t[]){1},
                        .rhs_contracting_dimensions = (int64_t[]){0}};
  TFR_ASSERT_OK(tfr_dot_plan_create_like(s, x, y, &cfg, &dp));
  TFR_ASSERT_OK(tfr_dot_plan_execute(s, dp, x, y, &d));
  tfr_fusion_plan *fp = NULL;
  TFR_ASSERT_OK(tfr_fusion_plan_create(1, (tfr_dtype[]){TFR_F64}, &fp));
  expect_delta(&in_session,
               (int64_t[TFR_OBJECT_KIND_COUNT]){[TFR_OBJECT_TENSOR] = 8,
                                                [TFR_OBJECT_STORAGE] = 8,
                                                [TFR_OBJECT_EINSUM_PLAN] = 1,
                                                [TFR_OBJECT_DOT_PLAN] = 1,
                                                [TFR_OBJECT_FUSION_PLAN] = 1},
               "plans and their results");
  // A refused plan leaves nothing behind.
  tfr_einsum_plan *bad = NULL;
  TFR_ASSERT_ERROR(tfr_einsum_plan_create("ij,jk->ik", 2, (int[]){2, 2},
                                          (const int64_t *const[]){(int64_t[]){2, 3},
                                                                   (int64_t[]){4, 5}},
                                          NULL, &bad),
                   TFR_ERR_INVALID_ARGUMENT, "extent 4");
  assert_null(bad);
  tfr_einsum_plan_release(plan);
  tfr_dot_plan_release(dp);
  tfr_fusion_plan_release(fp);
  tfr_fusion_plan_release(NULL);  // ignored: no count goes below its start
  tfr_tensor *all[] = {x, y, z, sum, t, e, e2, d};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) tfr_tensor_release(all[i]);
  expect_same(&in_session, "every result released");
  TFR_ASSERT_OK(tfr_session_end(s));
  tfr_backend_release(b);
  expect_same(&base, "session ended, backend released");
}

// Every allocation failing in turn, through a wrapped buffer, a session,
// views, ops and an einsum: whatever fails, the counts come back.
static void test_allocation_failures(void **state) {
  (void)state;
  counts base = snapshot();
  int failures_seen = 0;
  for (long n = 0; n < 80; n++) {
    tfr_alloc_fail_after(n);
    tfr_backend *b = NULL;
    tfr_session *s = NULL;
    tfr_tensor *w = NULL, *x = NULL, *v = NULL, *y = NULL, *e = NULL;
    float buf[4] = {0};
    releases = 0;
    tfr_status st = tfr_tensor_wrap_host(TFR_F32, 1, (int64_t[]){4}, NULL, buf, sizeof buf,
                                         count_release, NULL, &w);
    if (!st) st = tfr_backend_create_cpu(NULL, &b);
    if (!st) st = tfr_session_begin(b, &s);
    if (!st) st = tfr_tensor_zeros_host(TFR_F32, 2, (int64_t[]){4, 3}, &x);
    if (!st) st = tfr_tensor_view_transpose(x, (int64_t[]){1, 0}, &v);
    if (!st) st = tfr_multiply(s, v, v, &y);
    if (!st) st = tfr_einsum(s, "ij,jk,kl->il", 3, (const tfr_tensor *const[]){x, y, x}, NULL, &e);
    if (st) {
      assert_int_equal(st, TFR_ERR_OUT_OF_MEMORY);
      failures_seen++;
    }
    tfr_alloc_fail_after(-1);
    tfr_tensor_release(w);
    assert_int_equal(releases, w ? 1 : 0);  // a refused wrap keeps the buffer
    tfr_tensor_release(x);
    tfr_tensor_release(v);
    tfr_tensor_release(y);
    tfr_tensor_release(e);
    if (s) TFR_ASSERT_OK(tfr_session_end(s));
    tfr_backend_release(b);
    expect_same(&base, "after a failed allocation");
  }
  assert_true(failures_seen > 10);
}

// Threads creating and releasing tensors and views at once: no count is
// lost (each thread counts in its own block, summed by tfr_live_objects).
enum { THREADS = 4, ROUNDS = 20000 };

static void *churn(void *arg) {
  (void)arg;
  for (int i = 0; i < ROUNDS; i++) {
    tfr_tensor *a = NULL, *v = NULL;
    if (tfr_tensor_zeros_host(TFR_I32, 1, (int64_t[]){4}, &a)) return (void *)1;
    if (tfr_tensor_view_reverse(a, 1, (int64_t[]){0}, &v)) return (void *)1;
    tfr_tensor_release(a);
    tfr_tensor_release(v);
  }
  return NULL;
}

// Makes tensors that outlive the thread (the main thread releases them).
enum { KEPT = 50 };
static void *make_kept(void *arg) {
  tfr_tensor **kept = arg;
  for (int i = 0; i < KEPT; i++)
    if (tfr_tensor_zeros_host(TFR_F32, 1, (int64_t[]){3}, &kept[i])) return (void *)1;
  return NULL;
}

// Releases tensors the main thread made.
static void *release_all(void *arg) {
  tfr_tensor **kept = arg;
  for (int i = 0; i < KEPT; i++) tfr_tensor_release(kept[i]);
  return NULL;
}

static void join_ok(pthread_t th) {
  void *r = NULL;
  assert_int_equal(pthread_join(th, &r), 0);
  assert_null(r);
}

static void test_threads(void **state) {
  (void)state;
  counts base = snapshot();
  pthread_t th[THREADS];
  for (int i = 0; i < THREADS; i++) assert_int_equal(pthread_create(&th[i], NULL, churn, NULL), 0);
  for (int i = 0; i < THREADS; i++) join_ok(th[i]);
  expect_same(&base, "after the threads");
  // Made on a thread that has ended, released here; made here, released on
  // another thread: each counted once.
  tfr_tensor *kept[KEPT] = {NULL};
  assert_int_equal(pthread_create(&th[0], NULL, make_kept, kept), 0);
  join_ok(th[0]);
  expect_delta(&base,
               (int64_t[TFR_OBJECT_KIND_COUNT]){[TFR_OBJECT_TENSOR] = KEPT,
                                                [TFR_OBJECT_STORAGE] = KEPT},
               "tensors of an ended thread");
  for (int i = 0; i < KEPT; i++) tfr_tensor_release(kept[i]);
  expect_same(&base, "released by the main thread");
  for (int i = 0; i < KEPT; i++)
    TFR_ASSERT_OK(tfr_tensor_zeros_host(TFR_F32, 1, (int64_t[]){3}, &kept[i]));
  assert_int_equal(pthread_create(&th[0], NULL, release_all, kept), 0);
  join_ok(th[0]);
  expect_same(&base, "released by another thread");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_kinds_and_names),
      cmocka_unit_test(test_tensors_and_views),
      cmocka_unit_test(test_wrapped_buffers),
      cmocka_unit_test(test_ops_einsum_plans),
      cmocka_unit_test(test_allocation_failures),
      cmocka_unit_test(test_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
