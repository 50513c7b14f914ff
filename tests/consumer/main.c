// A minimal program built against an *installed* tenferro, the way a user of
// the library would build it: only <tenferro/tenferro.h> and the public API.
// .ci/run builds it twice (CMake package, pkg-config) to check that the
// installed headers, libraries, tenferroConfig.cmake and tenferro.pc work.
//
// It creates a cpu backend and a session, transposes a 2x3 f32 tensor and
// checks the values; prints "OK" and exits 0 on success.
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <tenferro/tenferro.h>

// Reports a failed call with the library's own message and status name.
static int fail(const char *what, tfr_status st) {
  fprintf(stderr, "consumer: %s failed: %s: %s\n", what, tfr_status_string(st),
          tfr_last_error_message());
  return 1;
}

// Runs inside the session: x = [[1 2 3] [4 5 6]] -> transpose -> [[1 4] [2 5] [3 6]].
static tfr_status body(tfr_session *session, void *ctx) {
  int *mismatch = ctx;
  static const float data[6] = {1, 2, 3, 4, 5, 6};
  static const float want[6] = {1, 4, 2, 5, 3, 6};
  const int64_t shape[2] = {2, 3};
  const int64_t perm[2] = {1, 0};
  tfr_tensor *x = NULL, *y = NULL;
  float got[6] = {0};

  tfr_status st = tfr_tensor_from_host(TFR_F32, 2, shape, data, &x);
  if (st != TFR_OK) return st;
  st = tfr_transpose(session, x, perm, &y);
  if (st == TFR_OK) {
    const int64_t *ys = tfr_tensor_shape(y);
    if (tfr_tensor_rank(y) != 2 || ys[0] != 3 || ys[1] != 2 || tfr_tensor_dtype(y) != TFR_F32) {
      fprintf(stderr, "consumer: transpose gave the wrong shape or dtype\n");
      *mismatch = 1;
    } else {
      st = tfr_tensor_read(y, got, sizeof got);
      if (st == TFR_OK && memcmp(got, want, sizeof want) != 0) {
        fprintf(stderr, "consumer: transpose gave [%g %g %g %g %g %g]\n", got[0], got[1], got[2],
                got[3], got[4], got[5]);
        *mismatch = 1;
      }
    }
  }
  tfr_tensor_release(y);
  tfr_tensor_release(x);
  return st;
}

int main(void) {
  tfr_backend *cpu = NULL;
  tfr_status st = tfr_backend_create_cpu(NULL, &cpu);
  if (st != TFR_OK) return fail("tfr_backend_create_cpu", st);

  int mismatch = 0;
  st = tfr_with_session(cpu, body, &mismatch);
  tfr_backend_release(cpu);
  if (st != TFR_OK) return fail("transpose in a cpu session", st);
  if (mismatch) return 1;

  printf("consumer: OK (tenferro %s, backends: %s)\n", tfr_version_string(),
         tfr_backends_compiled());
  return 0;
}
