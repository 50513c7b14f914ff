// Helpers the benchmark programs share: a monotonic clock, exiting on a
// failed call with the library's message, and waiting for a device.
// Define TFR_BENCH_PROG (the program's name, for messages) before including.
#ifndef TENFERRO_BENCH_BENCH_UTIL_H_
#define TENFERRO_BENCH_BENCH_UTIL_H_

#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tenferro/tenferro.h"

// Bit casts: the float / double whose bits are b, and the bits of f / d.
static inline float tfr_bench_f32_of(uint32_t b) {
  float f;
  memcpy(&f, &b, 4);
  return f;
}

static inline uint32_t tfr_bench_f32_bits(float f) {
  uint32_t b;
  memcpy(&b, &f, 4);
  return b;
}

static inline double tfr_bench_f64_of(uint64_t u) {
  double d;
  memcpy(&d, &u, 8);
  return d;
}

static inline uint64_t tfr_bench_f64_bits(double d) {
  uint64_t u;
  memcpy(&u, &d, 8);
  return u;
}

#ifndef TFR_BENCH_PROG
#define TFR_BENCH_PROG "tenferro-bench"
#endif

// Seconds on the monotonic clock.
static inline double tfr_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// Prints "<program>: what: status: message" and exits with status 1.
static inline void tfr_die(const char *what, tfr_status st) {
  fprintf(stderr, TFR_BENCH_PROG ": %s: %s: %s\n", what, tfr_status_string(st),
          tfr_last_error_message());
  exit(1);
}

#define TFR_CHECK(what, expr)      \
  do {                             \
    tfr_status st_ = (expr);       \
    if (st_) tfr_die((what), st_); \
  } while (0)

// Waits for everything recorded in `s`: a download waits for all earlier
// work, and one small tensor costs little else.
static inline void tfr_sync(tfr_session *s, const tfr_tensor *probe) {
  tfr_tensor *h = NULL;
  TFR_CHECK("sync", tfr_download(s, probe, &h));
  tfr_tensor_release(h);
}

// The webgpu backend on adapter `adapter` (tfr_webgpu_options.adapter_index);
// exits with the message where it is not available.
static inline tfr_backend *tfr_bench_webgpu(int adapter) {
  tfr_webgpu_options opts;
  memset(&opts, 0, sizeof opts);
  opts.adapter_index = adapter;
  tfr_backend *gpu = NULL;
  TFR_CHECK("webgpu backend", tfr_backend_create_webgpu(&opts, &gpu));
  return gpu;
}

// A compact rank-1 tensor of n elements of dtype dt (elem bytes each) on the
// session's backend, copied from host memory `data`.
static inline tfr_tensor *tfr_bench_upload(tfr_session *s, tfr_dtype dt, int64_t n, size_t elem,
                                           const void *data) {
  tfr_tensor *h = NULL, *d = NULL;
  TFR_CHECK("tensor",
            tfr_tensor_wrap_host(dt, 1, &n, NULL, (void *)data, (size_t)n * elem, NULL, NULL, &h));
  TFR_CHECK("upload", tfr_upload(s, h, &d));
  tfr_tensor_release(h);
  return d;
}

// Copies the tensor t of the session's backend to `out` (nbytes).
static inline void tfr_bench_read_back(tfr_session *s, const tfr_tensor *t, void *out,
                                       size_t nbytes) {
  tfr_tensor *h = NULL;
  TFR_CHECK("download", tfr_download(s, t, &h));
  TFR_CHECK("read", tfr_tensor_read(h, out, nbytes));
  tfr_tensor_release(h);
}

#endif  // TENFERRO_BENCH_BENCH_UTIL_H_
