// Many threads at once on the cpu backend (issue #22's ThreadSanitizer
// target; it runs in every build, and under -fsanitize=thread in CI):
// * one backend per thread, all contracting the same read-only operands
//   (shared tensors retained and released from every thread) along a sliced
//   plan whose slices run on several OpenMP threads, plus elementwise, reduce
//   and dot_general ops; each thread's results equal the single-threaded
//   reference bit for bit (the same backend settings, the same order);
// * several threads contending for one backend's session, each contracting
//   while it holds it (the buffer pool handed from one session to the next);
// * a plan shared by threads that execute it at once on their own backends.
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#define NTHREADS 6
#define ROUNDS 3

typedef struct shared_work {
  const tfr_tensor *ops[4];   // operands of "abc,cd,de,eab->" style network
  tfr_einsum_plan *plan;      // sliced: its slices run on several threads
  tfr_backend *common;        // one backend the contention test shares
  double want_contract;       // the single-threaded references
  double want_sum[8];
  atomic_int failures;
  atomic_int inside;          // threads inside `common`'s session
  atomic_int max_inside;
} shared_work;

static const char *const kNetwork = "abc,cd,de,eab->";
static const int kRanks[4] = {3, 2, 2, 3};
static const int64_t kS0[] = {6, 5, 40}, kS1[] = {40, 30}, kS2[] = {30, 7}, kS3[] = {7, 6, 5};
static const int64_t *const kShapes[4] = {kS0, kS1, kS2, kS3};

static double read_scalar(const tfr_tensor *t) {
  double v = 0;
  if (tfr_tensor_read(t, &v, sizeof v) != TFR_OK) return NAN;
  return v;
}

// The thread's whole job on session `s`: the contraction and a few ops whose
// results are summed to scalars; false on any error.
static bool run_work(tfr_session *s, shared_work *w, double *contract, double sums[8]) {
  tfr_tensor *r = NULL, *e = NULL, *red = NULL, *d = NULL, *dr = NULL;
  bool ok = tfr_einsum_plan_execute(s, w->plan, w->ops, &r) == TFR_OK &&
            tfr_session_synchronize(s) == TFR_OK;
  if (ok) *contract = read_scalar(r);
  // x * x summed over axes (1, 2); dot_general of the shared operands.
  ok = ok && tfr_multiply(s, w->ops[0], w->ops[0], &e) == TFR_OK;
  ok = ok && tfr_reduce_sum(s, e, 2, (int64_t[]){1, 2}, &red) == TFR_OK;
  tfr_dot_config dn = {.num_contracting_dims = 1,
                       .lhs_contracting_dimensions = (const int64_t[]){2},
                       .rhs_contracting_dimensions = (const int64_t[]){0}};
  ok = ok && tfr_dot_general(s, w->ops[0], w->ops[1], &dn, &d) == TFR_OK;
  ok = ok && tfr_reduce_sum(s, d, 3, (int64_t[]){0, 1, 2}, &dr) == TFR_OK;
  double rv[6] = {0};
  ok = ok && tfr_session_synchronize(s) == TFR_OK &&
       tfr_tensor_read(red, rv, sizeof rv) == TFR_OK;
  if (ok) {
    memcpy(sums, rv, sizeof rv);
    sums[6] = read_scalar(dr);
    sums[7] = (double)tfr_tensor_numel(d);
  }
  tfr_tensor_release(r);
  tfr_tensor_release(e);
  tfr_tensor_release(red);
  tfr_tensor_release(d);
  tfr_tensor_release(dr);
  return ok;
}

static bool matches(const shared_work *w, double contract, const double sums[8]) {
  return contract == w->want_contract && memcmp(sums, w->want_sum, 8 * sizeof(double)) == 0;
}

// One backend per thread (2 OpenMP threads each), the shared operands
// retained for the thread's lifetime.
static void *own_backend_main(void *arg) {
  shared_work *w = arg;
  for (int i = 0; i < 4; i++) tfr_tensor_retain((tfr_tensor *)w->ops[i]);
  tfr_cpu_options o = {.num_threads = 2};
  tfr_backend *b = NULL;
  if (tfr_backend_create_cpu(&o, &b) != TFR_OK) {
    atomic_fetch_add(&w->failures, 1);
    return NULL;
  }
  for (int round = 0; round < ROUNDS; round++) {
    tfr_session *s = NULL;
    double c = 0, sums[8] = {0};
    if (tfr_session_begin(b, &s) != TFR_OK || !run_work(s, w, &c, sums) || !matches(w, c, sums))
      atomic_fetch_add(&w->failures, 1);
    if (s && tfr_session_end(s) != TFR_OK) atomic_fetch_add(&w->failures, 1);
  }
  tfr_backend_release(b);
  for (int i = 0; i < 4; i++) tfr_tensor_release((tfr_tensor *)w->ops[i]);
  return NULL;
}

// Threads contending for one backend: sessions are exclusive, so at most one
// is inside at any time; each contracts while it holds it.
static void *common_backend_main(void *arg) {
  shared_work *w = arg;
  for (int round = 0; round < ROUNDS; round++) {
    tfr_session *s = NULL;
    if (tfr_session_begin(w->common, &s) != TFR_OK) {
      atomic_fetch_add(&w->failures, 1);
      continue;
    }
    int now = atomic_fetch_add(&w->inside, 1) + 1;
    int seen = atomic_load(&w->max_inside);
    while (now > seen && !atomic_compare_exchange_weak(&w->max_inside, &seen, now)) {
    }
    double c = 0, sums[8] = {0};
    if (!run_work(s, w, &c, sums) || !matches(w, c, sums)) atomic_fetch_add(&w->failures, 1);
    atomic_fetch_sub(&w->inside, 1);
    if (tfr_session_end(s) != TFR_OK) atomic_fetch_add(&w->failures, 1);
  }
  return NULL;
}

static void test_threads(void **state) {
  (void)state;
  shared_work w;
  memset(&w, 0, sizeof w);
  for (int i = 0; i < 4; i++)
    w.ops[i] = tfr_test_random_tensor(TFR_F64, kRanks[i], kShapes[i], 100 + (uint64_t)i);
  // Slices of at most 3300 elements, the operands (2820) included: labels are sliced, and the plan's slices
  // run several at once on the backend's threads.
  tfr_einsum_options o = {.path_kind = TFR_EINSUM_PATH_GREEDY};
  TFR_ASSERT_OK(tfr_einsum_plan_create(kNetwork, 4, kRanks, kShapes, &o, &w.plan));
  TFR_ASSERT_OK(tfr_einsum_plan_slice_to_fit(w.plan, 3300));
  assert_true(tfr_einsum_plan_info(w.plan)->num_slices > 1);

  // The reference: the same work on this thread alone, same settings.
  tfr_cpu_options two = {.num_threads = 2};
  TFR_ASSERT_OK(tfr_backend_create_cpu(&two, &w.common));
  tfr_session *s = NULL;
  TFR_ASSERT_OK(tfr_session_begin(w.common, &s));
  assert_true(tfr_einsum_plan_slice_threads(w.plan, s) > 1);
  assert_true(run_work(s, &w, &w.want_contract, w.want_sum));
  // Against an unsliced contraction of the same network (rounding apart).
  tfr_tensor *whole = NULL;
  TFR_ASSERT_OK(tfr_einsum(s, kNetwork, 4, w.ops, NULL, &whole));
  double wv = read_scalar(whole);
  assert_true(fabs(wv - w.want_contract) <= 1e-12 * fabs(wv) + 1e-300);
  tfr_tensor_release(whole);
  TFR_ASSERT_OK(tfr_session_end(s));

  pthread_t th[2 * NTHREADS];
  for (int i = 0; i < NTHREADS; i++)
    assert_int_equal(pthread_create(&th[i], NULL, own_backend_main, &w), 0);
  for (int i = 0; i < NTHREADS; i++)
    assert_int_equal(pthread_create(&th[NTHREADS + i], NULL, common_backend_main, &w), 0);
  for (int i = 0; i < 2 * NTHREADS; i++) pthread_join(th[i], NULL);
  assert_int_equal(atomic_load(&w.failures), 0);
  assert_int_equal(atomic_load(&w.max_inside), 1);

  tfr_backend_release(w.common);
  tfr_einsum_plan_release(w.plan);
  for (int i = 0; i < 4; i++) tfr_tensor_release((tfr_tensor *)w.ops[i]);
}

// Reference counts of one tensor moved by many threads at once: retained and
// released in pairs, the tensor stays alive and readable throughout.
typedef struct refcount_ctx {
  tfr_tensor *t;
  atomic_int failures;
} refcount_ctx;

static void *refcount_main(void *arg) {
  refcount_ctx *c = arg;
  for (int i = 0; i < 20000; i++) {
    tfr_tensor_retain(c->t);
    if (tfr_tensor_numel(c->t) != 64) atomic_fetch_add(&c->failures, 1);
    tfr_tensor_release(c->t);
  }
  return NULL;
}

static void test_refcounts(void **state) {
  (void)state;
  refcount_ctx c = {.t = tfr_test_random_tensor(TFR_F32, 2, (int64_t[]){8, 8}, 7)};
  pthread_t th[8];
  for (int i = 0; i < 8; i++) assert_int_equal(pthread_create(&th[i], NULL, refcount_main, &c), 0);
  for (int i = 0; i < 8; i++) pthread_join(th[i], NULL);
  assert_int_equal(atomic_load(&c.failures), 0);
  float v[64];
  TFR_ASSERT_OK(tfr_tensor_read(c.t, v, sizeof v));
  tfr_tensor_release(c.t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_threads),
      cmocka_unit_test(test_refcounts),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
