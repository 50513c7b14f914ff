// Tests of src/core/session.c and src/cpu/backend.c: sessions on real
// threads, re-entry, native handles, placement, upload/download, the
// backend vtable and allocation failures.
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/backend_impl.h"
#include "support.h"

const tfr_backend_vtable *tfr_cpu_vtable_for_tests(void);

static void test_vtable_complete(void **state) {
  (void)state;
  // Every entry is required: a NULL slot would be a backend that declines ops.
  const tfr_backend_vtable *vt = tfr_cpu_vtable_for_tests();
  void (*slots[TFR_BACKEND_VTABLE_SLOTS])(void);
  memcpy(slots, vt, sizeof slots);
  for (size_t i = 0; i < TFR_BACKEND_VTABLE_SLOTS; i++) assert_non_null(slots[i]);
  assert_ptr_equal(slots[0], (void (*)(void))vt->destroy);
}

static void test_begin_end(void **state) {
  (void)state;
  tfr_backend *b = NULL;
  TFR_ASSERT_OK(tfr_backend_create_cpu(NULL, &b));
  assert_int_equal(tfr_backend_get_kind(b), TFR_BACKEND_CPU);
  assert_string_equal(tfr_backend_name(b), "cpu");
  assert_non_null(strstr(tfr_backends_compiled(), "cpu"));
  tfr_session *s = NULL, *s2 = NULL;
  TFR_ASSERT_OK(tfr_session_begin(b, &s));
  assert_ptr_equal(tfr_session_backend(s), b);
  // Re-entry on the same thread, on the same or another backend.
  TFR_ASSERT_ERROR(tfr_session_begin(b, &s2), TFR_ERR_SESSION_REENTERED, "already",
                   "cpu");
  assert_null(s2);
  tfr_backend *other = NULL;
  TFR_ASSERT_OK(tfr_backend_create_cpu(NULL, &other));
  TFR_ASSERT_ERROR(tfr_session_begin(other, &s2), TFR_ERR_SESSION_REENTERED, "already");
  void *native = NULL;
  TFR_ASSERT_OK(tfr_session_native(s, TFR_BACKEND_CPU, &native));
  assert_true(((tfr_cpu_native *)native)->num_threads >= 1);
  TFR_ASSERT_ERROR(tfr_session_native(s, TFR_BACKEND_WEBGPU, &native), TFR_ERR_INVALID_ARGUMENT,
                   "kind 2", "cpu");
  assert_null(native);
  TFR_ASSERT_OK(tfr_session_synchronize(s));
  TFR_ASSERT_ERROR(tfr_session_synchronize(NULL), TFR_ERR_INVALID_ARGUMENT, "session is NULL");
  TFR_ASSERT_OK(tfr_session_end(s));
  TFR_ASSERT_ERROR(tfr_session_synchronize(s), TFR_ERR_NO_SESSION, "session_synchronize");
  // After the end the old pointer is refused (without being dereferenced).
  TFR_ASSERT_ERROR(tfr_session_end(s), TFR_ERR_NO_SESSION, "not active");
  assert_null(tfr_session_backend(s));
  tfr_tensor *x = tfr_test_tensor(TFR_F32, 0, NULL, (float[]){1.0f});
  tfr_tensor *y = NULL;
  TFR_ASSERT_ERROR(tfr_copy(s, x, &y), TFR_ERR_NO_SESSION, "copy");
  TFR_ASSERT_ERROR(tfr_copy(NULL, x, &y), TFR_ERR_INVALID_ARGUMENT, "session is NULL");
  tfr_tensor_release(x);
  TFR_ASSERT_OK(tfr_session_begin(other, &s2));
  TFR_ASSERT_OK(tfr_session_end(s2));
  TFR_ASSERT_ERROR(tfr_session_begin(NULL, &s2), TFR_ERR_INVALID_ARGUMENT, "backend");
  TFR_ASSERT_ERROR(tfr_session_begin(b, NULL), TFR_ERR_INVALID_ARGUMENT, "out");
  tfr_backend_release(other);
  tfr_backend_release(b);
  tfr_cpu_options bad = {.num_threads = -3};
  TFR_ASSERT_ERROR(tfr_backend_create_cpu(&bad, &b), TFR_ERR_INVALID_ARGUMENT, "-3");
  assert_null(b);
}

typedef struct tfr_with_ctx {
  int calls;
  tfr_status result;
} tfr_with_ctx;

static tfr_status tfr_with_body(tfr_session *s, void *ctx) {
  tfr_with_ctx *c = ctx;
  c->calls++;
  // Nested entry from inside the body is refused.
  tfr_session *inner = NULL;
  tfr_status st = tfr_session_begin(tfr_session_backend(s), &inner);
  assert_int_equal(st, TFR_ERR_SESSION_REENTERED);
  if (c->result) {
    tfr_dtype d;
    return tfr_dtype_from_name("no-such-dtype", &d);  // sets a message
  }
  return TFR_OK;
}

static void test_with_session(void **state) {
  (void)state;
  tfr_backend *b = NULL;
  TFR_ASSERT_OK(tfr_backend_create_cpu(NULL, &b));
  tfr_with_ctx c = {0, TFR_OK};
  TFR_ASSERT_OK(tfr_with_session(b, tfr_with_body, &c));
  assert_int_equal(c.calls, 1);
  // The body's failure and message come back; the session is ended anyway.
  c.result = TFR_ERR_UNSUPPORTED_DTYPE;
  TFR_ASSERT_ERROR(tfr_with_session(b, tfr_with_body, &c), TFR_ERR_UNSUPPORTED_DTYPE,
                   "no-such-dtype");
  assert_int_equal(c.calls, 2);
  assert_null(tfr_session_current());
  TFR_ASSERT_ERROR(tfr_with_session(b, NULL, &c), TFR_ERR_INVALID_ARGUMENT, "fn");
  // Re-entry through with_session runs nothing.
  tfr_session *s = NULL;
  TFR_ASSERT_OK(tfr_session_begin(b, &s));
  TFR_ASSERT_ERROR(tfr_with_session(b, tfr_with_body, &c), TFR_ERR_SESSION_REENTERED, "already");
  assert_int_equal(c.calls, 2);
  TFR_ASSERT_OK(tfr_session_end(s));
  tfr_backend_release(b);
}

// Threads: a second thread entering a session on the cpu backend waits until
// the first ends it. The first holds its session while the others start; a
// counter shows that sessions never overlap.
typedef struct tfr_thread_ctx {
  tfr_backend *backend;
  atomic_int inside;
  atomic_int max_inside;
  atomic_int entered;
  atomic_int failures;
} tfr_thread_ctx;

static void tfr_sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static void *tfr_thread_main(void *arg) {
  tfr_thread_ctx *c = arg;
  for (int round = 0; round < 5; round++) {
    tfr_session *s = NULL;
    if (tfr_session_begin(c->backend, &s) != TFR_OK) {
      atomic_fetch_add(&c->failures, 1);
      continue;
    }
    int now = atomic_fetch_add(&c->inside, 1) + 1;
    int prev = atomic_load(&c->max_inside);
    while (now > prev && !atomic_compare_exchange_weak(&c->max_inside, &prev, now)) {
    }
    atomic_fetch_add(&c->entered, 1);
    // Do real work inside the session.
    tfr_tensor *x = NULL, *y = NULL;
    double v[4] = {1, 2, 3, 4};
    if (tfr_tensor_from_host(TFR_F64, 2, (int64_t[]){2, 2}, v, &x) != TFR_OK ||
        tfr_transpose(s, x, (int64_t[]){1, 0}, &y) != TFR_OK)
      atomic_fetch_add(&c->failures, 1);
    tfr_tensor_release(x);
    tfr_tensor_release(y);
    tfr_sleep_ms(2);
    atomic_fetch_sub(&c->inside, 1);
    if (tfr_session_end(s) != TFR_OK) atomic_fetch_add(&c->failures, 1);
  }
  return NULL;
}

static void test_threads_wait(void **state) {
  (void)state;
  tfr_thread_ctx c = {0};
  TFR_ASSERT_OK(tfr_backend_create_cpu(NULL, &c.backend));
  // This thread holds a session while four threads try to enter.
  tfr_session *s = NULL;
  TFR_ASSERT_OK(tfr_session_begin(c.backend, &s));
  pthread_t th[4];
  for (int i = 0; i < 4; i++) assert_int_equal(pthread_create(&th[i], NULL, tfr_thread_main, &c), 0);
  tfr_sleep_ms(50);
  assert_int_equal(atomic_load(&c.entered), 0);  // all of them are waiting
  TFR_ASSERT_OK(tfr_session_end(s));
  for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
  assert_int_equal(atomic_load(&c.failures), 0);
  assert_int_equal(atomic_load(&c.entered), 20);
  assert_int_equal(atomic_load(&c.max_inside), 1);
  tfr_backend_release(c.backend);
}

// A session begun on one thread is not usable from another.
typedef struct tfr_foreign_ctx {
  tfr_session *session;
  tfr_status st;
} tfr_foreign_ctx;

static void *tfr_foreign_main(void *arg) {
  tfr_foreign_ctx *c = arg;
  c->st = tfr_session_end(c->session);
  return NULL;
}

static void test_foreign_thread(void **state) {
  (void)state;
  tfr_backend *b = NULL;
  TFR_ASSERT_OK(tfr_backend_create_cpu(NULL, &b));
  tfr_foreign_ctx c = {0};
  TFR_ASSERT_OK(tfr_session_begin(b, &c.session));
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, tfr_foreign_main, &c), 0);
  pthread_join(th, NULL);
  assert_int_equal(c.st, TFR_ERR_NO_SESSION);
  TFR_ASSERT_OK(tfr_session_end(c.session));
  tfr_backend_release(b);
}

static void test_upload_download_cpu(void **state) {
  tfr_test_env *env = *state;
  tfr_tensor *x = tfr_test_random_tensor(TFR_C64, 2, (int64_t[]){3, 5}, 1);
  tfr_tensor *up = NULL, *down = NULL;
  TFR_ASSERT_OK(tfr_upload(env->session, x, &up));
  assert_ptr_equal(up, x);  // host memory is the cpu backend's memory
  TFR_ASSERT_OK(tfr_download(env->session, up, &down));
  assert_ptr_equal(down, x);
  tfr_tensor_release(up);
  tfr_tensor_release(down);
  TFR_ASSERT_ERROR(tfr_upload(env->session, NULL, &up), TFR_ERR_INVALID_ARGUMENT, "NULL");
  TFR_ASSERT_ERROR(tfr_download(env->session, x, NULL), TFR_ERR_INVALID_ARGUMENT, "out");
  tfr_tensor_release(x);
}

// The buffer pool: a loop of ops reuses buffers instead of growing.
static void test_pool_reuse(void **state) {
  (void)state;
  tfr_backend *b = NULL;
  TFR_ASSERT_OK(tfr_backend_create_cpu(NULL, &b));
  tfr_session *s = NULL;
  TFR_ASSERT_OK(tfr_session_begin(b, &s));
  tfr_tensor *x = tfr_test_random_tensor(TFR_F64, 2, (int64_t[]){100, 70}, 3);
  const void *first = NULL;
  for (int i = 0; i < 10; i++) {
    tfr_tensor *y = NULL;
    TFR_ASSERT_OK(tfr_transpose(s, x, (int64_t[]){1, 0}, &y));
    void *p;
    TFR_ASSERT_OK(tfr_tensor_host_data(y, &p));
    if (i == 0) first = p;
    assert_ptr_equal(p, first);  // the same pooled buffer every time
    tfr_tensor_release(y);
  }
  tfr_tensor_release(x);
  TFR_ASSERT_OK(tfr_session_end(s));
  tfr_backend_release(b);
}

// Large buffers (4 MiB and more) are reused by any request of at least half
// their size, and the reused buffer holds the new result.
static void test_pool_large_reuse(void **state) {
  (void)state;
  tfr_backend *b = NULL;
  TFR_ASSERT_OK(tfr_backend_create_cpu(&(tfr_cpu_options){.num_threads = 1}, &b));
  tfr_session *s = NULL;
  TFR_ASSERT_OK(tfr_session_begin(b, &s));
  tfr_tensor *x = tfr_test_random_tensor(TFR_F64, 2, (int64_t[]){1024, 1024}, 5);  // 8 MiB
  tfr_tensor *x2 = tfr_test_random_tensor(TFR_F64, 2, (int64_t[]){700, 1000}, 6);  // 5.3 MiB
  tfr_tensor *y = NULL, *y2 = NULL;
  TFR_ASSERT_OK(tfr_transpose(s, x, (int64_t[]){1, 0}, &y));
  void *p, *p2;
  TFR_ASSERT_OK(tfr_tensor_host_data(y, &p));
  tfr_tensor_release(y);
  TFR_ASSERT_OK(tfr_transpose(s, x2, (int64_t[]){1, 0}, &y2));
  TFR_ASSERT_OK(tfr_tensor_host_data(y2, &p2));
  assert_ptr_equal(p, p2);
  const double *in, *out;
  TFR_ASSERT_OK(tfr_tensor_host_data(x2, (void **)&in));
  out = p2;
  for (int i = 0; i < 700; i += 37)
    for (int j = 0; j < 1000; j += 13) assert_true(out[j * 700 + i] == in[i * 1000 + j]);
  tfr_tensor_release(y2);
  // A request of more than the kept buffer gets a new one (and the kept one
  // is given back: the peak would grow otherwise); results stay right.
  tfr_tensor *x3 = tfr_test_random_tensor(TFR_F64, 2, (int64_t[]){2048, 1024}, 7);
  tfr_tensor *y3 = NULL;
  TFR_ASSERT_OK(tfr_transpose(s, x3, (int64_t[]){1, 0}, &y3));
  TFR_ASSERT_OK(tfr_tensor_host_data(x3, (void **)&in));
  TFR_ASSERT_OK(tfr_tensor_host_data(y3, (void **)&out));
  for (int i = 0; i < 2048; i += 41)
    for (int j = 0; j < 1024; j += 17) assert_true(out[j * 2048 + i] == in[i * 1024 + j]);
  tfr_tensor_release(y3);
  tfr_tensor_release(x);
  tfr_tensor_release(x2);
  tfr_tensor_release(x3);
  TFR_ASSERT_OK(tfr_session_end(s));
  tfr_backend_release(b);
}

// Tensors outlive the release of their backend (storage retains it).
static void test_tensor_outlives_backend(void **state) {
  (void)state;
  tfr_backend *b = NULL;
  TFR_ASSERT_OK(tfr_backend_create_cpu(&(tfr_cpu_options){.num_threads = 1, .disable_pool = 1}, &b));
  tfr_session *s = NULL;
  TFR_ASSERT_OK(tfr_session_begin(b, &s));
  tfr_tensor *x = tfr_test_random_tensor(TFR_I64, 1, (int64_t[]){9}, 4), *y = NULL;
  TFR_ASSERT_OK(tfr_copy(s, x, &y));
  TFR_ASSERT_OK(tfr_session_end(s));
  tfr_backend_release(b);
  int64_t vx[9], vy[9];
  TFR_ASSERT_OK(tfr_tensor_read(x, vx, sizeof vx));
  TFR_ASSERT_OK(tfr_tensor_read(y, vy, sizeof vy));
  assert_memory_equal(vx, vy, sizeof vx);
  tfr_tensor_release(x);
  tfr_tensor_release(y);  // frees the backend last
}

// Every allocation failing in turn: each call fails cleanly with
// TFR_ERR_OUT_OF_MEMORY or succeeds; ASan shows nothing leaks.
static void test_allocation_failures(void **state) {
  (void)state;
  int failures_seen = 0;
  for (long n = 0; n < 40; n++) {
    tfr_alloc_fail_after(n);
    tfr_backend *b = NULL;
    tfr_session *s = NULL;
    tfr_tensor *x = NULL, *y = NULL, *z = NULL;
    tfr_status st = tfr_backend_create_cpu(NULL, &b);
    if (!st) st = tfr_session_begin(b, &s);
    if (!st) st = tfr_tensor_from_host(TFR_F32, 2, (int64_t[]){4, 3}, (float[12]){0}, &x);
    if (!st) st = tfr_transpose(s, x, (int64_t[]){1, 0}, &y);
    if (!st) st = tfr_embed_diagonal(s, y, 0, 2, &z);
    if (st) {
      assert_int_equal(st, TFR_ERR_OUT_OF_MEMORY);
      failures_seen++;
    }
    tfr_alloc_fail_after(-1);
    tfr_tensor_release(x);
    tfr_tensor_release(y);
    tfr_tensor_release(z);
    if (s) TFR_ASSERT_OK(tfr_session_end(s));
    tfr_backend_release(b);
  }
  assert_true(failures_seen > 5);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_vtable_complete),
      cmocka_unit_test(test_begin_end),
      cmocka_unit_test(test_with_session),
      cmocka_unit_test(test_threads_wait),
      cmocka_unit_test(test_foreign_thread),
      cmocka_unit_test_setup_teardown(test_upload_download_cpu, tfr_test_setup_cpu,
                                      tfr_test_teardown_cpu),
      cmocka_unit_test(test_pool_reuse),
      cmocka_unit_test(test_pool_large_reuse),
      cmocka_unit_test(test_tensor_outlives_backend),
      cmocka_unit_test(test_allocation_failures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
