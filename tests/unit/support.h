// Shared helpers of the unit tests (cmocka).
#ifndef TENFERRO_TESTS_UNIT_SUPPORT_H_
#define TENFERRO_TESTS_UNIT_SUPPORT_H_

// cmocka needs these before its header.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <cmocka.h>

#include "tenferro/tenferro.h"

// A cpu backend with an open session on the calling thread.
typedef struct tfr_test_env {
  tfr_backend *backend;
  tfr_session *session;
} tfr_test_env;

// cmocka group/test setup and teardown that create and destroy a
// tfr_test_env in *state (num_threads 2, default pool).
int tfr_test_setup_cpu(void **state);
int tfr_test_teardown_cpu(void **state);

// Asserts st == TFR_OK, printing the library's message otherwise.
#define TFR_ASSERT_OK(expr) tfr_test_assert_ok((expr), #expr, __FILE__, __LINE__)
void tfr_test_assert_ok(tfr_status st, const char *expr, const char *file, int line);

// Asserts that `st` is `want` and that the thread's message contains every
// one of the given NUL-terminated substrings (list ends with NULL).
#define TFR_ASSERT_ERROR(expr, want, ...) \
  tfr_test_assert_error((expr), (want), #expr, __FILE__, __LINE__, __VA_ARGS__, (const char *)NULL)
void tfr_test_assert_error(tfr_status st, tfr_status want, const char *expr, const char *file,
                           int line, ...);

// Host tensor from a row-major array (asserts success).
tfr_tensor *tfr_test_tensor(tfr_dtype dtype, int rank, const int64_t *shape, const void *data);

// Deterministic pseudo-random numbers (splitmix64).
uint64_t tfr_test_rand_u64(uint64_t *state);
// Uniform in [lo, hi).
double tfr_test_rand_uniform(uint64_t *state, double lo, double hi);

// A compact host tensor of random non-zero values: bool random 0/1 (both
// present for n >= 2), signed integers in [-100, 100] \ {0}, unsigned ones in
// [1, 200], floats/complex parts in [-2, 2) with |x| >= 0.01 (f16/bf16: those
// values rounded to the dtype).
tfr_tensor *tfr_test_random_tensor(tfr_dtype dtype, int rank, const int64_t *shape,
                                   uint64_t seed);

// The absolute error (beyond the relative "function" tolerance) that the
// math libraries may make for unary op `op` (a tfr_unary_op) on f32 arguments
// in tfr_test_random_tensor's range [-2, 2]: lgamma and digamma compute x < 0
// by the reflection formula, whose error is a few ulps of its largest term
// (docs/accuracy.md, "Special functions"); near their zeros there that term
// is below 1 in magnitude, so 8 FLT_EPSILON. 0 for every other op.
double tfr_test_abs_floor_f32(int op);

// Distance in units in the last place between two floats/doubles (0 for
// identical values and for two NaNs, INT64_MAX for NaN vs number or
// different infinities).
int64_t tfr_test_ulp_f32(float a, float b);
int64_t tfr_test_ulp_f64(double a, double b);

// The double whose bits are u, and the bits of d.
double tfr_test_f64_of(uint64_t u);
uint64_t tfr_test_f64_bits(double d);

// Asserts that two host tensors of one dtype and shape agree elementwise:
// floats within 1e-12 (f64/c128) or 2e-5 (f32/c64) of the largest |expected|
// (at least 1), integers exactly. `what` names the case in the message.
void tfr_test_expect_close(const tfr_tensor *got, const tfr_tensor *want, const char *what);

// ---------------------------------------------------------------------------
// WebGPU tests (tests/unit/test_webgpu*.c): differential against the cpu
// backend. Without the Dawn provider or an adapter every test SKIPS with the
// reason and the program exits 77 ("Skipped" in ctest); with
// TFR_REQUIRE_WEBGPU=1 (CI) they FAIL instead.
// ---------------------------------------------------------------------------

// Set by tfr_test_setup_webgpu: a cpu backend (2 threads) and the webgpu
// backend, or NULL with tfr_test_gpu_reason saying why.
extern tfr_backend *tfr_test_cpu;
extern tfr_backend *tfr_test_gpu;
extern char tfr_test_gpu_reason[1100];
extern bool tfr_test_gpu_required;  // TFR_REQUIRE_WEBGPU=1
extern int tfr_test_gpu_skipped;

// cmocka group setup / teardown creating and releasing both backends.
int tfr_test_setup_webgpu(void **state);
int tfr_test_teardown_webgpu(void **state);

// First statement of every test that needs the device.
#define TFR_TEST_NEED_GPU()                                                          \
  do {                                                                               \
    if (!tfr_test_gpu) {                                                             \
      if (tfr_test_gpu_required)                                                     \
        fail_msg("%s (and TFR_REQUIRE_WEBGPU=1)", tfr_test_gpu_reason);              \
      print_message("[  SKIP    ] %s\n", tfr_test_gpu_reason);                       \
      tfr_test_gpu_skipped++;                                                        \
      skip();                                                                        \
    }                                                                                \
  } while (0)

// Begins a session on `b` (asserting success); a test that fails with it
// open has it ended by tfr_test_teardown_session (use as each test's
// teardown).
tfr_session *tfr_test_begin(tfr_backend *b);
void tfr_test_end(tfr_session *s);
int tfr_test_teardown_session(void **state);

// Uploads a host tensor / downloads a device tensor (asserting success).
tfr_tensor *tfr_test_upload(tfr_session *s, const tfr_tensor *host);
tfr_tensor *tfr_test_download(tfr_session *s, const tfr_tensor *dev);

// A host tensor [n] of dtype dt from 64-bit words: 8-byte dtypes take them
// as they are, 4-, 2- and 1-byte ones their low bytes, bool bit 0, c64 the two words as
// f32 parts (for the bit-for-bit tests of the software dtypes).
tfr_tensor *tfr_test_words_tensor(tfr_dtype dt, int64_t n, const uint64_t *v);

// Counts of tfr_test_compare_bits.
typedef struct tfr_test_bit_counts {
  int64_t compared, nan_results, nan_bits_equal;
} tfr_test_bit_counts;

// Compares two host tensors of one dtype and shape bit for bit, element by
// element (f64, f32, f16, bf16, c64 and c128 parts: any NaN matches any NaN; how many NaN
// results also match in their bits is counted). The first four mismatches
// are printed with a[i] and b[i] (the operands' words, or NULL), then the
// total; returns how many lines were printed (0: equal).
int tfr_test_compare_bits(const tfr_tensor *want, const tfr_tensor *got, const uint64_t *a,
                          const uint64_t *b, const char *what, tfr_test_bit_counts *cnt);

// One op on the cpu and on webgpu, for the bit-for-bit tests of the software
// dtypes (test_webgpu_f64.c, test_webgpu_i64.c): `run` (ctx, session, inputs,
// result) runs once on the cpu over the host inputs (rank 1, n elements
// each), then on webgpu in `pieces` calls over consecutive slices of the
// uploaded inputs; `compare` (ctx, cpu result sliced as the piece, webgpu
// result downloaded, first element, piece) sees each piece. A failed cpu call
// fails the test; a failed webgpu call stops the pieces and its status is
// returned with the library's message in `err` (TFR_OK otherwise).
typedef tfr_status (*tfr_test_op_fn)(const void *ctx, tfr_session *s, tfr_tensor *const *in,
                                     tfr_tensor **out);
typedef void (*tfr_test_piece_fn)(void *ctx, const tfr_tensor *want, const tfr_tensor *got,
                                  int64_t lo, int piece);
tfr_status tfr_test_cpu_vs_gpu(tfr_test_op_fn run, const void *run_ctx, tfr_tensor *const *host,
                               int nin, int64_t n, int pieces, tfr_test_piece_fn compare,
                               void *compare_ctx, char *err, size_t errcap);

// Runs fusion plan p on the cpu over the host inputs (nin of them) and on
// webgpu over their uploads (failing the test if either fails): want[o] (cpu)
// and got[o] (webgpu, downloaded) receive the nout outputs, for the caller to
// release.
void tfr_test_fusion_cpu_vs_gpu(const tfr_fusion_plan *p, tfr_tensor *const *host, int nin,
                                int nout, tfr_tensor **want, tfr_tensor **got);

// Whether the webgpu device flushes f32 subnormals to zero (WGSL allows it;
// the H200 does, lavapipe does not): probed once, through tfr_multiply
// (FLT_MIN * 0.5, a subnormal result) and tfr_add (2^-149 + 0, a subnormal
// operand) by tfr_test_setup_webgpu, which prints a note when it does.
bool tfr_test_gpu_flushes_subnormals(void);

// Replaces every subnormal f32 value (and subnormal part of a c64 value) of
// a host tensor by a zero of the same sign: what a flushing device reads.
// Other dtypes are left alone.
void tfr_test_flush_subnormals(tfr_tensor *host);

// Runs a cmocka group with the webgpu setup; returns the process exit
// status (77 when tests were skipped for want of a device). TFR_TEST_FILTER
// (a cmocka pattern: `*` and `?`) restricts it to the tests whose names
// match, for runs on a device.
#define TFR_TEST_RUN_WEBGPU(tests)   \
  (tfr_test_apply_filter(), tfr_test_webgpu_exit(cmocka_run_group_tests( \
                                tests, tfr_test_setup_webgpu, tfr_test_teardown_webgpu)))
int tfr_test_webgpu_exit(int failed);
void tfr_test_apply_filter(void);

#endif  // TENFERRO_TESTS_UNIT_SUPPORT_H_
