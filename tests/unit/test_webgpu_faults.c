// WebGPU faults (issue #22): a device that runs out of memory, a buffer
// mapping that fails and a device lost with work in flight each turn into an
// error from the call that met them, never a crash, hang or abort. Out of
// memory and a failed mapping leave the backend usable (the same work then
// succeeds with the right values, and no device memory stays held); a loss
// fails that call and every later one on the backend, while releasing
// tensors and the backend still works. Failures are injected at each buffer
// creation and each mapping in turn (wgpu_testing.h), and met for real:
// a result past the device's maxBufferSize, and wgpuDeviceDestroy.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "webgpu/wgpu_testing.h"

static bool g_require;
// The session a test opened on this thread: a failing test leaves it open,
// and the teardown ends it so that the next test can begin one.
static tfr_session *g_open;

static tfr_session *begin(tfr_backend *b) {
  tfr_session *s = NULL;
  TFR_ASSERT_OK(tfr_session_begin(b, &s));
  g_open = s;
  return s;
}

static int end_open_session(void **state) {
  (void)state;
  if (g_open) {
    tfr_status st = tfr_session_end(g_open);
    (void)st;
    g_open = NULL;
  }
  return 0;
}

static int group_setup(void **state) {
  (void)state;
  const char *req = getenv("TFR_REQUIRE_WEBGPU");
  g_require = req && strcmp(req, "1") == 0;
  return 0;
}

// A new webgpu backend (the buffer pool off: every allocation creates a
// buffer, so that each creation can be made to fail), or a skip.
static tfr_backend *gpu_or_skip(void) {
  tfr_webgpu_options o = {.disable_pool = 1};
  tfr_backend *b = NULL;
  tfr_status st = tfr_backend_create_webgpu(&o, &b);
  if (st) {
    if (g_require)
      fail_msg("webgpu backend unavailable (%s): %s (and TFR_REQUIRE_WEBGPU=1)",
               tfr_status_string(st), tfr_last_error_message());
    print_message("[  SKIP    ] webgpu backend unavailable: %s\n", tfr_last_error_message());
    skip();
  }
  return b;
}

// The network of the einsum tests: four f32 operands, three steps.
static const char *const kNet = "ab,bc,cd,de->ae";
static const int kRanks[4] = {2, 2, 2, 2};
static const int64_t kA[] = {8, 9}, kB[] = {9, 10}, kC[] = {10, 11}, kD[] = {11, 12};
static const int64_t *const kShapes[4] = {kA, kB, kC, kD};

typedef struct network {
  tfr_tensor *host[4];
  float want[8 * 12];
} network;

static void network_make(network *n) {
  tfr_backend *cpu = NULL;
  TFR_ASSERT_OK(tfr_backend_create_cpu(NULL, &cpu));
  tfr_session *s = NULL;
  TFR_ASSERT_OK(tfr_session_begin(cpu, &s));
  for (int i = 0; i < 4; i++)
    n->host[i] = tfr_test_random_tensor(TFR_F32, 2, kShapes[i], 40 + (uint64_t)i);
  tfr_tensor *r = NULL;
  TFR_ASSERT_OK(tfr_einsum(s, kNet, 4, (const tfr_tensor *const *)n->host, NULL, &r));
  TFR_ASSERT_OK(tfr_tensor_read(r, n->want, sizeof n->want));
  tfr_tensor_release(r);
  TFR_ASSERT_OK(tfr_session_end(s));
  tfr_backend_release(cpu);
}

static void network_free(network *n) {
  for (int i = 0; i < 4; i++) tfr_tensor_release(n->host[i]);
}

// The device result `r` downloaded equals the cpu's to f32 rounding.
static void assert_result(tfr_session *s, const tfr_tensor *r, const network *n) {
  tfr_tensor *h = NULL;
  TFR_ASSERT_OK(tfr_download(s, r, &h));
  float got[8 * 12];
  TFR_ASSERT_OK(tfr_tensor_read(h, got, sizeof got));
  for (int i = 0; i < 8 * 12; i++)
    assert_true(fabsf(got[i] - n->want[i]) <= 1e-4f * (1.0f + fabsf(n->want[i])));
  tfr_tensor_release(h);
}

static uint64_t tensor_bytes(const tfr_backend *b) {
  tfr_webgpu_stats st;
  TFR_ASSERT_OK(tfr_webgpu_get_stats(b, &st));
  return st.tensor_bytes;
}

// Each device-buffer creation of a contraction fails in turn: the
// contraction reports TFR_ERR_OUT_OF_MEMORY, holds nothing afterwards, and
// the next one succeeds.
static void test_buffer_creation_fails(void **state) {
  (void)state;
  tfr_backend *b = gpu_or_skip();
  network n;
  network_make(&n);
  tfr_session *s = begin(b);
  tfr_tensor *d[4];
  for (int i = 0; i < 4; i++) TFR_ASSERT_OK(tfr_upload(s, n.host[i], &d[i]));
  tfr_einsum_plan *p = NULL;
  tfr_einsum_options o = {.path_kind = TFR_EINSUM_PATH_GREEDY};
  TFR_ASSERT_OK(tfr_einsum_plan_create(kNet, 4, kRanks, kShapes, &o, &p));
  TFR_ASSERT_OK(tfr_session_synchronize(s));
  uint64_t held = tensor_bytes(b);
  int failures = 0, k = 0;
  for (;; k++) {
    tfr_wgpu_test_fail_buffers_after(b, k);
    tfr_tensor *r = NULL;
    tfr_status st = tfr_einsum_plan_execute(s, p, (const tfr_tensor *const *)d, &r);
    if (st == TFR_OK) st = tfr_session_synchronize(s);
    tfr_wgpu_test_fail_buffers_after(b, -1);
    if (st == TFR_OK) {
      assert_result(s, r, &n);
      tfr_tensor_release(r);
      break;  // k creations were more than the contraction made
    }
    TFR_ASSERT_ERROR(st, TFR_ERR_OUT_OF_MEMORY, "webgpu", "injected failure");
    assert_null(r);
    failures++;
    assert_int_equal(tensor_bytes(b), held);  // nothing of the failed run is held
    tfr_tensor *again = NULL;
    TFR_ASSERT_OK(tfr_einsum_plan_execute(s, p, (const tfr_tensor *const *)d, &again));
    assert_result(s, again, &n);
    tfr_tensor_release(again);
    assert_true(k < 200);
  }
  // Every intermediate and the result needed a buffer: some creations failed.
  assert_true(failures >= 3);
  assert_int_equal(tensor_bytes(b), held);
  // An upload whose buffer cannot be made: refused, nothing held.
  tfr_wgpu_test_fail_buffers_after(b, 0);
  tfr_tensor *u = NULL;
  TFR_ASSERT_ERROR(tfr_upload(s, n.host[0], &u), TFR_ERR_OUT_OF_MEMORY, "injected failure");
  assert_null(u);
  tfr_einsum_plan_release(p);
  for (int i = 0; i < 4; i++) tfr_tensor_release(d[i]);
  g_open = NULL;
  TFR_ASSERT_OK(tfr_session_end(s));
  network_free(&n);
  tfr_backend_release(b);
}

// Each mapping of a download or an upload split in pieces fails in turn:
// the transfer reports the failure, and the next one moves the right bytes.
static void test_mapping_fails(void **state) {
  (void)state;
  tfr_backend *b = gpu_or_skip();
  // 4 KiB pieces, uploads staged too: a 40000-byte tensor takes 10 maps.
  tfr_wgpu_test_limits(b, 0, 4096);
  int64_t len = 10000;
  tfr_tensor *h = tfr_test_random_tensor(TFR_F32, 1, &len, 9);
  float want[10000], got[10000];
  TFR_ASSERT_OK(tfr_tensor_read(h, want, sizeof want));
  tfr_session *s = begin(b);
  tfr_tensor *d = NULL;
  TFR_ASSERT_OK(tfr_upload(s, h, &d));
  int down_failures = 0, up_failures = 0;
  for (int k = 0; k < 12; k++) {
    tfr_wgpu_test_fail_maps_after(b, k);
    tfr_tensor *back = NULL;
    tfr_status st = tfr_download(s, d, &back);
    tfr_wgpu_test_fail_maps_after(b, -1);
    if (st != TFR_OK) {
      TFR_ASSERT_ERROR(st, TFR_ERR_INTERNAL, "download", "mapping", "injected failure");
      assert_null(back);
      down_failures++;
      TFR_ASSERT_OK(tfr_download(s, d, &back));
    }
    TFR_ASSERT_OK(tfr_tensor_read(back, got, sizeof got));
    assert_memory_equal(got, want, sizeof want);
    tfr_tensor_release(back);

    tfr_wgpu_test_fail_maps_after(b, k);
    tfr_tensor *up = NULL;
    st = tfr_upload(s, h, &up);
    tfr_wgpu_test_fail_maps_after(b, -1);
    if (st != TFR_OK) {
      TFR_ASSERT_ERROR(st, TFR_ERR_INTERNAL, "upload", "mapping", "failed");
      assert_null(up);
      up_failures++;
      TFR_ASSERT_OK(tfr_upload(s, h, &up));
    }
    TFR_ASSERT_OK(tfr_download(s, up, &back));
    TFR_ASSERT_OK(tfr_tensor_read(back, got, sizeof got));
    assert_memory_equal(got, want, sizeof want);
    tfr_tensor_release(back);
    tfr_tensor_release(up);
  }
  assert_int_equal(down_failures, 10);  // one per piece
  assert_true(up_failures >= 8);        // the slots' re-mappings after their copies
  tfr_tensor_release(d);
  g_open = NULL;
  TFR_ASSERT_OK(tfr_session_end(s));
  tfr_tensor_release(h);
  tfr_backend_release(b);
}

// A result past what the device can hold in one buffer: refused before any
// work, and the backend goes on.
static void test_result_past_device_limits(void **state) {
  (void)state;
  tfr_backend *b = gpu_or_skip();
  tfr_webgpu_adapter_info ai;
  TFR_ASSERT_OK(tfr_webgpu_get_adapter_info(b, &ai));
  tfr_session *s = begin(b);
  float one = 1.5f;
  tfr_tensor *h = tfr_test_tensor(TFR_F32, 0, NULL, &one), *d = NULL, *big = (tfr_tensor *)&ai;
  TFR_ASSERT_OK(tfr_upload(s, h, &d));
  // A broadcast is a view (no memory); its copy needs rows * 65536 * 4
  // bytes, the first power of two above the device's largest buffer; so
  // does an iota of that shape.
  int64_t rows = 1;
  while ((double)rows * 4.0 * 65536.0 <= (double)ai.max_buffer_size) rows *= 2;
  tfr_tensor *view = NULL;
  TFR_ASSERT_OK(tfr_broadcast_in_dim(s, d, 2, (int64_t[]){rows, 65536}, NULL, &view));
  TFR_ASSERT_ERROR(tfr_copy(s, view, &big), TFR_ERR_OUT_OF_MEMORY, "webgpu");
  assert_null(big);
  big = (tfr_tensor *)&ai;
  TFR_ASSERT_ERROR(tfr_iota(s, TFR_F32, 2, (int64_t[]){rows, 65536}, 1, &big),
                   TFR_ERR_OUT_OF_MEMORY, "webgpu");
  assert_null(big);
  tfr_tensor_release(view);
  // The same op within the limits still runs.
  tfr_tensor *small = NULL, *back = NULL;
  TFR_ASSERT_OK(tfr_broadcast_in_dim(s, d, 1, (int64_t[]){5}, NULL, &small));
  TFR_ASSERT_OK(tfr_download(s, small, &back));
  float v[5];
  TFR_ASSERT_OK(tfr_tensor_read(back, v, sizeof v));
  for (int i = 0; i < 5; i++) assert_true(v[i] == one);
  tfr_tensor_release(back);
  tfr_tensor_release(small);
  tfr_tensor_release(d);
  tfr_tensor_release(h);
  g_open = NULL;
  TFR_ASSERT_OK(tfr_session_end(s));
  tfr_backend_release(b);
}

// The device is lost in the middle of a contraction (the progress callback,
// run between steps, destroys it): the contraction fails with
// TFR_ERR_DEVICE_LOST and so does every later call on the backend.
typedef struct lose_ctx {
  tfr_backend *b;
  int at_step;
  int calls;
} lose_ctx;

static void lose_on_step(void *ctx, int steps_done, int num_steps, double flops_done) {
  (void)num_steps;
  (void)flops_done;
  lose_ctx *c = ctx;
  c->calls++;
  if (steps_done == c->at_step) tfr_wgpu_test_lose_device(c->b);
}

static void test_lost_mid_contraction(void **state) {
  (void)state;
  tfr_backend *b = gpu_or_skip();
  network n;
  network_make(&n);
  tfr_session *s = begin(b);
  tfr_tensor *d[4];
  for (int i = 0; i < 4; i++) TFR_ASSERT_OK(tfr_upload(s, n.host[i], &d[i]));
  lose_ctx c = {b, 1, 0};
  tfr_einsum_options o = {.path_kind = TFR_EINSUM_PATH_GREEDY, .progress = lose_on_step,
                          .progress_ctx = &c};
  tfr_einsum_plan *p = NULL;
  TFR_ASSERT_OK(tfr_einsum_plan_create(kNet, 4, kRanks, kShapes, &o, &p));
  tfr_tensor *r = NULL;
  TFR_ASSERT_ERROR(tfr_einsum_plan_execute(s, p, (const tfr_tensor *const *)d, &r),
                   TFR_ERR_DEVICE_LOST, "lost");
  assert_null(r);
  assert_true(c.calls >= 1 && c.calls < 3);  // stopped at the step after the loss
  tfr_tensor *y = NULL;
  TFR_ASSERT_ERROR(tfr_einsum_plan_execute(s, p, (const tfr_tensor *const *)d, &y),
                   TFR_ERR_DEVICE_LOST, "lost");
  TFR_ASSERT_ERROR(tfr_multiply(s, d[0], d[0], &y), TFR_ERR_DEVICE_LOST, "lost");
  TFR_ASSERT_ERROR(tfr_download(s, d[1], &y), TFR_ERR_DEVICE_LOST, "lost");
  TFR_ASSERT_ERROR(tfr_session_synchronize(s), TFR_ERR_DEVICE_LOST, "lost");
  assert_null(y);
  g_open = NULL;
  TFR_ASSERT_ERROR(tfr_session_end(s), TFR_ERR_DEVICE_LOST, "session_end");
  TFR_ASSERT_ERROR(tfr_session_begin(b, &s), TFR_ERR_DEVICE_LOST, "session_begin");
  tfr_einsum_plan_release(p);
  for (int i = 0; i < 4; i++) tfr_tensor_release(d[i]);
  network_free(&n);
  tfr_backend_release(b);
}

// Work recorded and not yet waited for when the device goes: the wait
// reports the loss instead of hanging.
static void test_lost_with_work_queued(void **state) {
  (void)state;
  tfr_backend *b = gpu_or_skip();
  int64_t len = 1 << 20;
  tfr_tensor *h = tfr_test_random_tensor(TFR_F32, 1, &len, 3);
  tfr_session *s = begin(b);
  tfr_tensor *x = NULL, *y = NULL;
  TFR_ASSERT_OK(tfr_upload(s, h, &x));
  for (int i = 0; i < 20; i++) {
    tfr_tensor *z = NULL;
    TFR_ASSERT_OK(tfr_exp(s, y ? y : x, &z));
    tfr_tensor_release(y);
    y = z;
  }
  tfr_wgpu_test_lose_device(b);
  TFR_ASSERT_ERROR(tfr_session_synchronize(s), TFR_ERR_DEVICE_LOST, "lost");
  tfr_tensor *back = NULL;
  TFR_ASSERT_ERROR(tfr_download(s, y, &back), TFR_ERR_DEVICE_LOST, "lost");
  assert_null(back);
  g_open = NULL;
  TFR_ASSERT_ERROR(tfr_session_end(s), TFR_ERR_DEVICE_LOST, "session_end");
  tfr_tensor_release(x);
  tfr_tensor_release(y);
  tfr_tensor_release(h);
  tfr_backend_release(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_buffer_creation_fails, end_open_session),
      cmocka_unit_test_teardown(test_mapping_fails, end_open_session),
      cmocka_unit_test_teardown(test_result_past_device_limits, end_open_session),
      cmocka_unit_test_teardown(test_lost_mid_contraction, end_open_session),
      cmocka_unit_test_teardown(test_lost_with_work_queued, end_open_session),
  };
  return cmocka_run_group_tests(tests, group_setup, NULL);
}
