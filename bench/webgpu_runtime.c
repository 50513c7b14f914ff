// tenferro-bench-webgpu-runtime: what the webgpu backend's runtime costs,
// before any arithmetic kernel: transfer bandwidth, the cost of one dispatch
// (batched 64 per submit, or one per submit), and the tiled transpose.
// Peers measured in the same run: the cpu backend's transpose (blocked,
// OpenMP) and a plain device-to-device copy of the same bytes (the kernel's
// ceiling on this device).
//
// usage: tenferro-bench-webgpu-runtime [--quick] [--transpose-size N] [--adapter I]
//                                      [--only transfers|dispatch|transpose]
//   --quick             fewer repeats and sizes (a smoke run)
//   --only S            run one section (variant runs with TFR_WEBGPU_* knobs)
//   --transpose-size N  edge of the square f32 matrix (default 8192; lowered
//                       to the largest power of two whose matrix fits the
//                       device's maxStorageBufferBindingSize, e.g. 4096 on lavapipe)
//   --adapter I         tfr_webgpu_options.adapter_index
// Times are wall-clock, each the best of 3 trials of R repeats (in µs or GB/s;
// GB = 1e9 bytes), after a warm-up; every timed region ends with the queue idle.
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tenferro/tenferro.h"

#define TFR_BENCH_PROG "tenferro-bench-webgpu-runtime"
#include "bench_util.h"

static tfr_tensor *tfr_host_f32(int rank, const int64_t *shape) {
  int64_t n = 1;
  for (int k = 0; k < rank; k++) n *= shape[k];
  float *buf = malloc((size_t)n * sizeof *buf);
  if (!buf) tfr_die("host buffer", TFR_ERR_OUT_OF_MEMORY);
  for (int64_t i = 0; i < n; i++) buf[i] = (float)(i % 4093) * 0.25f;
  tfr_tensor *t = NULL;
  TFR_CHECK("tensor_from_host", tfr_tensor_from_host(TFR_F32, rank, shape, buf, &t));
  free(buf);
  return t;
}

// ---------------------------------------------------------------------------
// Transfers
// ---------------------------------------------------------------------------

// GB/s of a memcpy of `bytes` into freshly allocated host memory: what a
// download pays at least, since tfr_download returns a new host tensor (on a
// VM that reports freed pages to its host, first touches are slow).
static double tfr_fresh_memcpy(const void *src, size_t bytes) {
  double best = 1e30;
  for (int trial = 0; trial < 3; trial++) {
    double t0 = tfr_now();
    unsigned char *d = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
    if (!d) tfr_die("host buffer", TFR_ERR_OUT_OF_MEMORY);
    memcpy(d, src, bytes);
    volatile unsigned char sink = d[bytes - 1];  // keeps the copy
    (void)sink;
    free(d);
    double t = tfr_now() - t0;
    if (t < best) best = t;
  }
  return (double)bytes / best * 1e-9;
}

static void tfr_bench_transfers(tfr_backend *gpu, bool quick) {
  static const int64_t sizes_mib[] = {1, 16, 64, 256};
  int nsizes = quick ? 3 : 4;
  printf("\ntransfers (f32, compact)       upload GB/s  download GB/s  peer: memcpy to new host memory\n");
  tfr_session *s = NULL;
  TFR_CHECK("session_begin", tfr_session_begin(gpu, &s));
  int64_t one = 1;
  tfr_tensor *h1 = tfr_host_f32(1, &one), *probe = NULL;
  TFR_CHECK("upload", tfr_upload(s, h1, &probe));
  for (int i = 0; i < nsizes; i++) {
    int64_t n = sizes_mib[i] << 18;  // elements of 4 bytes
    double bytes = (double)n * 4;
    int reps = (int)((quick ? 64.0 : 512.0) * 1048576.0 / bytes);
    if (reps < 2) reps = 2;
    tfr_tensor *h = tfr_host_f32(1, &n);
    double best_up = 1e30, best_down = 1e30;
    tfr_tensor *d = NULL;
    TFR_CHECK("upload", tfr_upload(s, h, &d));  // warm-up: buffers, staging
    tfr_sync(s, probe);
    for (int trial = 0; trial < 3; trial++) {
      double t0 = tfr_now();
      for (int r = 0; r < reps; r++) {
        tfr_tensor *u = NULL;
        TFR_CHECK("upload", tfr_upload(s, h, &u));
        tfr_tensor_release(u);
      }
      tfr_sync(s, probe);
      double t1 = tfr_now();
      for (int r = 0; r < reps; r++) {
        tfr_tensor *back = NULL;
        TFR_CHECK("download", tfr_download(s, d, &back));
        tfr_tensor_release(back);
      }
      double t2 = tfr_now();
      if ((t1 - t0) / reps < best_up) best_up = (t1 - t0) / reps;
      if ((t2 - t1) / reps < best_down) best_down = (t2 - t1) / reps;
    }
    void *src = NULL;
    TFR_CHECK("host data", tfr_tensor_host_data(h, &src));
    printf("  %4" PRId64 " MiB  (%3d repeats)      %8.2f       %8.2f       %8.2f\n", sizes_mib[i],
           reps, bytes / best_up * 1e-9, bytes / best_down * 1e-9,
           tfr_fresh_memcpy(src, (size_t)bytes));
    tfr_tensor_release(d);
    tfr_tensor_release(h);
  }
  tfr_tensor_release(probe);
  tfr_tensor_release(h1);
  TFR_CHECK("session_end", tfr_session_end(s));
}

// ---------------------------------------------------------------------------
// Dispatch cost
// ---------------------------------------------------------------------------

// µs per tfr_copy of a 64-element tensor: one pooled allocation, one bind
// group, one dispatch. `round_trip` downloads the result each time.
static double tfr_bench_dispatch(const tfr_webgpu_options *o, int reps, bool round_trip) {
  tfr_backend *b = NULL;
  TFR_CHECK("backend_create_webgpu", tfr_backend_create_webgpu(o, &b));
  tfr_session *s = NULL;
  TFR_CHECK("session_begin", tfr_session_begin(b, &s));
  int64_t n = 64;
  tfr_tensor *h = tfr_host_f32(1, &n), *d = NULL;
  TFR_CHECK("upload", tfr_upload(s, h, &d));
  double best = 1e30;
  for (int trial = 0; trial < 4; trial++) {  // trial 0 is the warm-up
    double t0 = tfr_now();
    for (int r = 0; r < reps; r++) {
      tfr_tensor *y = NULL;
      TFR_CHECK("copy", tfr_copy(s, d, &y));
      if (round_trip) tfr_sync(s, y);
      tfr_tensor_release(y);
    }
    tfr_sync(s, d);
    double t = (tfr_now() - t0) / reps;
    if (trial > 0 && t < best) best = t;
  }
  tfr_tensor_release(d);
  tfr_tensor_release(h);
  TFR_CHECK("session_end", tfr_session_end(s));
  tfr_backend_release(b);
  return best * 1e6;
}

// ---------------------------------------------------------------------------
// Transpose
// ---------------------------------------------------------------------------

typedef enum tfr_bench_op { TFR_OP_TRANSPOSE, TFR_OP_COPY, TFR_OP_COPY_INTO } tfr_bench_op;

// Seconds per call of `op` on `x`, best of 3 trials. `probe` (a one-element
// device tensor, NULL on the cpu backend) is downloaded after each trial so
// that the queue is idle when the clock stops. (The first H200 run passed `x`
// itself as the probe: each trial then also downloaded all 256 MiB of it at
// the host's ~1.3 GB/s, and that download, not the kernels, was the 20.9 ms.)
// TFR_OP_COPY_INTO writes into `into`, allocated once.
static double tfr_time_op(tfr_session *s, const tfr_tensor *x, tfr_bench_op op, int reps,
                          const tfr_tensor *probe, tfr_tensor *into) {
  int64_t perm[2] = {1, 0};
  double best = 1e30;
  for (int trial = 0; trial < 4; trial++) {  // trial 0 is the warm-up
    double t0 = tfr_now();
    for (int r = 0; r < reps; r++) {
      tfr_tensor *y = NULL;
      switch (op) {
        case TFR_OP_TRANSPOSE: TFR_CHECK("transpose", tfr_transpose(s, x, perm, &y)); break;
        case TFR_OP_COPY: TFR_CHECK("copy", tfr_copy(s, x, &y)); break;
        case TFR_OP_COPY_INTO: TFR_CHECK("copy_into", tfr_copy_into(s, x, into)); break;
      }
      tfr_tensor_release(y);
    }
    if (probe) tfr_sync(s, probe);
    double t = (tfr_now() - t0) / reps;
    if (trial > 0 && t < best) best = t;
  }
  return best;
}

// Checks on the device's results (fresh data, not zeros): y == x for a copy,
// y == x^T for a transpose. Exits on a mismatch.
static void tfr_check_result(tfr_session *s, const tfr_tensor *hx, const tfr_tensor *dy,
                             int64_t edge, bool transposed, const char *what) {
  tfr_tensor *hy = NULL;
  TFR_CHECK("download", tfr_download(s, dy, &hy));
  void *px = NULL, *py = NULL;
  TFR_CHECK("host data", tfr_tensor_host_data((tfr_tensor *)hx, &px));
  TFR_CHECK("host data", tfr_tensor_host_data(hy, &py));
  const float *a = px, *b = py;
  int64_t bad = 0;
  for (int64_t i = 0; i < edge; i++)
    for (int64_t j = 0; j < edge; j++)
      bad += b[i * edge + j] != (transposed ? a[j * edge + i] : a[i * edge + j]);
  tfr_tensor_release(hy);
  if (bad) {
    fprintf(stderr, "tenferro-bench-webgpu-runtime: %s: %" PRId64 " wrong elements\n", what, bad);
    exit(1);
  }
}

static void tfr_bench_transpose(tfr_backend *gpu, tfr_backend *cpu, int64_t edge, bool quick) {
  tfr_webgpu_adapter_info info;
  TFR_CHECK("adapter info", tfr_webgpu_get_adapter_info(gpu, &info));
  int64_t want = edge;
  while (edge > 256 && (uint64_t)(edge * edge * 4) > info.max_storage_buffer_binding_size) edge /= 2;
  int64_t shape[2] = {edge, edge};
  double bytes = 2.0 * (double)(edge * edge * 4);  // read + written
  int reps = quick ? 2 : edge >= 8192 ? 50 : 20;
  // The variant the backend read at creation (src/webgpu/backend.c).
  const char *knob_tile = getenv("TFR_WEBGPU_TRANSPOSE_TILE");
  const char *knob_vec = getenv("TFR_WEBGPU_TRANSPOSE_VEC");
  printf("\ntranspose %" PRId64 "x%" PRId64 " f32 (%d repeats, TFR_WEBGPU_TRANSPOSE_TILE=%s "
         "TFR_WEBGPU_TRANSPOSE_VEC=%s)%s\n",
         edge, edge, reps, knob_tile ? knob_tile : "(default)", knob_vec ? knob_vec : "(default)",
         edge != want ? "  [smaller than asked: the device's maxStorageBufferBindingSize]" : "");
  tfr_tensor *h = tfr_host_f32(2, shape);

  tfr_session *s = NULL;
  TFR_CHECK("session_begin", tfr_session_begin(gpu, &s));
  int64_t one = 1;
  tfr_tensor *h1 = tfr_host_f32(1, &one), *probe = NULL, *d = NULL, *into = NULL;
  TFR_CHECK("upload", tfr_upload(s, h1, &probe));
  TFR_CHECK("upload", tfr_upload(s, h, &d));
  // Correctness on this device first (also warms the pipelines).
  {
    int64_t perm[2] = {1, 0};
    tfr_tensor *y = NULL;
    TFR_CHECK("transpose", tfr_transpose(s, d, perm, &y));
    tfr_check_result(s, h, y, edge, true, "transpose");
    tfr_tensor_release(y);
    TFR_CHECK("copy", tfr_copy(s, d, &y));
    tfr_check_result(s, h, y, edge, false, "copy");
    into = y;  // the preallocated output of copy_into
  }
  double t_tr = tfr_time_op(s, d, TFR_OP_TRANSPOSE, reps, probe, NULL);
  double t_cp = tfr_time_op(s, d, TFR_OP_COPY, reps, probe, NULL);
  double t_ci = tfr_time_op(s, d, TFR_OP_COPY_INTO, reps, probe, into);
  // What the first run's harness added to each trial: one download of `d`.
  double t0 = tfr_now();
  tfr_sync(s, d);
  double t_whole = tfr_now() - t0;
  t0 = tfr_now();
  tfr_sync(s, probe);
  double t_probe = tfr_now() - t0;
  tfr_tensor_release(into);
  tfr_tensor_release(d);
  tfr_tensor_release(probe);
  tfr_tensor_release(h1);
  TFR_CHECK("session_end", tfr_session_end(s));

  double t_cpu = 0;
  if (cpu) {
    TFR_CHECK("session_begin", tfr_session_begin(cpu, &s));
    t_cpu = tfr_time_op(s, h, TFR_OP_TRANSPOSE, quick ? 2 : 10, NULL, NULL);
    TFR_CHECK("session_end", tfr_session_end(s));
  }
  tfr_tensor_release(h);

  printf("                                        ms       GB/s   vs webgpu transpose\n");
  printf("  webgpu transpose (tiled)         %9.3f  %9.2f   1.00\n", t_tr * 1e3,
         bytes / t_tr * 1e-9);
  printf("  webgpu copy, same bytes          %9.3f  %9.2f   %.2f\n", t_cp * 1e3,
         bytes / t_cp * 1e-9, t_tr / t_cp);
  printf("  webgpu copy_into (output kept)   %9.3f  %9.2f   %.2f\n", t_ci * 1e3,
         bytes / t_ci * 1e-9, t_tr / t_ci);
  if (cpu)
    printf("  cpu backend transpose            %9.3f  %9.2f   %.2f\n", t_cpu * 1e3,
           bytes / t_cpu * 1e-9, t_tr / t_cpu);
  printf("  sync by downloading 1 element    %9.3f\n", t_probe * 1e3);
  printf("  sync by downloading the input    %9.3f   (what the first run's harness added per trial)\n",
         t_whole * 1e3);
}

int main(int argc, char **argv) {
  bool quick = false;
  const char *only = NULL;
  int64_t edge = 8192;
  tfr_webgpu_options o;
  memset(&o, 0, sizeof o);
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0) {
      quick = true;
    } else if (strcmp(argv[i], "--transpose-size") == 0 && i + 1 < argc) {
      edge = strtoll(argv[++i], NULL, 10);
    } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
      only = argv[++i];
    } else if (strcmp(argv[i], "--adapter") == 0 && i + 1 < argc) {
      o.adapter_index = atoi(argv[++i]);
    } else {
      fprintf(stderr,
              "usage: tenferro-bench-webgpu-runtime [--quick] [--transpose-size N] "
              "[--adapter I] [--only transfers|dispatch|transpose]\n");
      return 2;
    }
  }
  if (edge < 16) edge = 16;
  double t0 = tfr_now();
  tfr_backend *gpu = NULL, *cpu = NULL;
  TFR_CHECK("backend_create_webgpu", tfr_backend_create_webgpu(&o, &gpu));
  double t_create = tfr_now() - t0;
  TFR_CHECK("backend_create_cpu", tfr_backend_create_cpu(NULL, &cpu));
  tfr_webgpu_adapter_info info;
  TFR_CHECK("adapter info", tfr_webgpu_get_adapter_info(gpu, &info));
  printf("tenferro %s, webgpu on %s (%s, %s), backend ready in %.0f ms\n", tfr_version_string(),
         info.name, info.adapter_type, info.driver, t_create * 1e3);

  if (!only || strcmp(only, "transfers") == 0) tfr_bench_transfers(gpu, quick);

  if (!only || strcmp(only, "dispatch") == 0) {
    int reps = quick ? 200 : 2000;
    tfr_webgpu_options o64 = o, o1 = o;
    o64.dispatches_per_submit = 64;
    o1.dispatches_per_submit = 1;
    double us64 = tfr_bench_dispatch(&o64, reps, false);
    double us1 = tfr_bench_dispatch(&o1, reps, false);
    double us_rt = tfr_bench_dispatch(&o1, reps / 4, true);
    printf("\ndispatch cost: tfr_copy of 64 f32 (%d repeats)      us per op\n", reps);
    printf("  64 dispatches per submit                       %8.2f\n", us64);
    printf("  1 dispatch per submit                          %8.2f\n", us1);
    printf("  1 per submit, download after each (round trip) %8.2f\n", us_rt);
  }

  if (!only || strcmp(only, "transpose") == 0)
    tfr_bench_transpose(gpu, only ? NULL : cpu, edge, quick);
  tfr_webgpu_stats st;
  TFR_CHECK("stats", tfr_webgpu_get_stats(gpu, &st));
  printf("\nbackend stats: %" PRIu64 " buffers created, %" PRIu64 " pool hits, %" PRIu64
         " pipelines, %" PRIu64 " dispatches, %" PRIu64 " submits\n",
         st.buffers_created, st.pool_hits, st.pipelines, st.dispatches, st.submits);
  tfr_backend_release(cpu);
  tfr_backend_release(gpu);
  return 0;
}
