// Helpers the benchmark programs share: a monotonic clock, exiting on a
// failed call with the library's message, and waiting for a device.
// Define TFR_BENCH_PROG (the program's name, for messages) before including.
#ifndef TENFERRO_BENCH_BENCH_UTIL_H_
#define TENFERRO_BENCH_BENCH_UTIL_H_

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tenferro/tenferro.h"

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

#endif  // TENFERRO_BENCH_BENCH_UTIL_H_
