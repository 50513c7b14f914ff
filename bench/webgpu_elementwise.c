// tenferro-bench-webgpu-elementwise: bandwidth of the webgpu elementwise
// kernels (add, multiply, exponential over 2^N f32; GB/s of bytes read +
// written, as bench/peers/torch_gpu.py counts them), the same for strided and
// broadcast operands, and the host time per small op in a loop of 1000.
//
// usage: tenferro-bench-webgpu-elementwise [--log2n N] [--reps R]
//   --log2n N  elements of the large tensors (default 28; lavapipe: use 22)
//   --reps R   ops per timed trial (default 20); best of 3 trials after a warm-up
// Peer in the same run: tfr_copy of the same bytes (a plain device copy).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tenferro/tenferro.h"

#define TFR_BENCH_PROG "tenferro-bench-webgpu-elementwise"
#include "bench_util.h"

// CPU time of the calling thread: the host cost of recording without the
// time lavapipe's worker threads (executing earlier submits on the same
// cores) take from it.
static double tfr_thread_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static tfr_tensor *tfr_upload_f32(tfr_session *s, int64_t n, float scale) {
  float *buf = malloc((size_t)n * sizeof *buf);
  if (!buf) tfr_die("host buffer", TFR_ERR_OUT_OF_MEMORY);
  for (int64_t i = 0; i < n; i++) buf[i] = (float)(i % 4093) * scale - 8.0f;
  tfr_tensor *h = NULL, *d = NULL;
  TFR_CHECK("tensor_from_host", tfr_tensor_from_host(TFR_F32, 1, &n, buf, &h));
  free(buf);
  TFR_CHECK("upload", tfr_upload(s, h, &d));
  tfr_tensor_release(h);
  return d;
}

typedef enum { OP_ADD, OP_MUL, OP_EXP, OP_COPY } tfr_bench_op;

static void tfr_run(tfr_session *s, tfr_bench_op op, const tfr_tensor *a, const tfr_tensor *b,
                    tfr_tensor *out) {
  switch (op) {
    case OP_ADD: TFR_CHECK("add", tfr_binary_into(s, TFR_ADD, a, b, out)); break;
    case OP_MUL: TFR_CHECK("multiply", tfr_binary_into(s, TFR_MULTIPLY, a, b, out)); break;
    case OP_EXP: TFR_CHECK("exponential", tfr_unary_into(s, TFR_EXP, a, out)); break;
    case OP_COPY: TFR_CHECK("copy", tfr_copy_into(s, a, out)); break;
  }
}

// Best seconds per op over 3 trials of `reps` ops (after one warm-up op).
static double tfr_time(tfr_session *s, tfr_bench_op op, const tfr_tensor *a,
                       const tfr_tensor *b, tfr_tensor *out, const tfr_tensor *probe,
                       int reps) {
  tfr_run(s, op, a, b, out);
  tfr_sync(s, probe);
  double best = 1e30;
  for (int t = 0; t < 3; t++) {
    double t0 = tfr_now();
    for (int r = 0; r < reps; r++) tfr_run(s, op, a, b, out);
    tfr_sync(s, probe);
    double dt = (tfr_now() - t0) / reps;
    if (dt < best) best = dt;
  }
  return best;
}

int main(int argc, char **argv) {
  int log2n = 28, reps = 20;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--log2n") == 0 && i + 1 < argc) log2n = atoi(argv[++i]);
    else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) reps = atoi(argv[++i]);
    else {
      fprintf(stderr, "usage: tenferro-bench-webgpu-elementwise [--log2n N] [--reps R]\n");
      return 2;
    }
  }
  if (log2n < 10 || log2n > 30 || reps < 1) {
    fprintf(stderr, "tenferro-bench-webgpu-elementwise: --log2n in [10, 30], --reps >= 1\n");
    return 2;
  }
  tfr_backend *b = NULL;
  TFR_CHECK("webgpu backend", tfr_backend_create_webgpu(NULL, &b));
  tfr_webgpu_adapter_info info;
  TFR_CHECK("adapter info", tfr_webgpu_get_adapter_info(b, &info));
  printf("tenferro-bench-webgpu-elementwise: %s, 2^%d f32, %d ops per trial, best of 3\n",
         info.name, log2n, reps);
  tfr_session *s = NULL;
  TFR_CHECK("session", tfr_session_begin(b, &s));
  int64_t n = (int64_t)1 << log2n, one = 1, zero = 0;
  tfr_tensor *x = tfr_upload_f32(s, n, 1.0f / 512), *y = tfr_upload_f32(s, n, 1.0f / 1024);
  tfr_tensor *out = NULL, *probe = NULL;
  TFR_CHECK("alloc", tfr_copy(s, x, &out));  // the output of the _into ops
  TFR_CHECK("probe", tfr_slice(s, out, &zero, &one, NULL, &probe));
  double bytes = (double)n * 4;
  printf("\n%-34s %10s %10s\n", "op", "ms", "GB/s");
  struct {
    const char *name;
    tfr_bench_op op;
    double nbytes;
  } rows[] = {{"add (compact)", OP_ADD, 3 * bytes},
              {"multiply (compact)", OP_MUL, 3 * bytes},
              {"exponential (compact)", OP_EXP, 2 * bytes},
              {"peer: copy of the same bytes", OP_COPY, 2 * bytes}};
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    double t = tfr_time(s, rows[i].op, x, y, out, probe, reps);
    printf("%-34s %10.3f %10.1f\n", rows[i].name, t * 1e3, rows[i].nbytes / t / 1e9);
  }
  // A broadcast scalar operand (x + 1) and a strided one (every other element).
  {
    float c = 1.0f;
    tfr_tensor *hc = NULL, *dc = NULL, *bc = NULL;
    TFR_CHECK("scalar", tfr_tensor_from_host(TFR_F32, 0, &zero, &c, &hc));
    TFR_CHECK("upload", tfr_upload(s, hc, &dc));
    int64_t dims = 0;
    TFR_CHECK("broadcast", tfr_broadcast_in_dim(s, dc, 1, &n, &dims, &bc));
    double t = tfr_time(s, OP_ADD, x, bc, out, probe, reps);
    printf("%-34s %10.3f %10.1f\n", "add (x + broadcast scalar)", t * 1e3, 2 * bytes / t / 1e9);
    int64_t half = n / 2, start = 0, two = 2;
    tfr_tensor *xs = NULL, *ys = NULL, *os = NULL;
    TFR_CHECK("slice", tfr_slice(s, x, &start, &n, &two, &xs));
    TFR_CHECK("slice", tfr_slice(s, y, &start, &n, &two, &ys));
    TFR_CHECK("slice", tfr_slice(s, out, &start, &half, NULL, &os));
    t = tfr_time(s, OP_ADD, xs, ys, os, probe, reps);
    printf("%-34s %10.3f %10.1f\n", "add (stride-2 inputs, n/2)", t * 1e3,
           3 * (double)half * 4 / t / 1e9);
    tfr_tensor_release(xs);
    tfr_tensor_release(ys);
    tfr_tensor_release(os);
    tfr_tensor_release(bc);
    tfr_tensor_release(dc);
    tfr_tensor_release(hc);
  }
  // Host time per small op: 1000 adds of 1024 f32 (new outputs), recorded
  // without waiting, then the wait.
  {
    int64_t m = 1024;
    tfr_tensor *a = tfr_upload_f32(s, m, 0.5f), *r = NULL;
    TFR_CHECK("add", tfr_add(s, a, a, &r));
    tfr_sync(s, r);
    tfr_tensor_release(r);
    double best_rec = 1e30, best_all = 1e30, best_cpu = 1e30;
    for (int t = 0; t < 3; t++) {
      double t0 = tfr_now(), c0 = tfr_thread_cpu();
      for (int i = 0; i < 1000; i++) {
        TFR_CHECK("add", tfr_add(s, a, a, &r));
        if (i < 999) tfr_tensor_release(r);
      }
      double t1 = tfr_now(), c1 = tfr_thread_cpu();
      tfr_sync(s, r);
      double t2 = tfr_now();
      tfr_tensor_release(r);
      if (t1 - t0 < best_rec) best_rec = t1 - t0;
      if (t2 - t0 < best_all) best_all = t2 - t0;
      if (c1 - c0 < best_cpu) best_cpu = c1 - c0;
    }
    printf("\n1000 adds of 1024 f32: %.2f us per op of host time (recording), %.2f us per op "
           "until the queue is idle; recording thread's CPU time %.2f us per op\n",
           best_rec * 1e3, best_all * 1e3, best_cpu * 1e3);
    tfr_tensor_release(a);
  }
  tfr_tensor_release(probe);
  tfr_tensor_release(out);
  tfr_tensor_release(x);
  tfr_tensor_release(y);
  TFR_CHECK("session end", tfr_session_end(s));
  tfr_backend_release(b);
  return 0;
}
