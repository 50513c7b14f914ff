// fuzz_api: random sequences of public API calls on the cpu backend.
//
// The input is read as a program. Its first byte picks one of two cpu
// backends (with and without the buffer pool: without it every buffer is
// freed at once, so AddressSanitizer sees any access past a result's end);
// the next bytes seed a pool of POOL live tensors; then each step reads an
// opcode, a mode byte (NULL session, NULL out, the `_into` form) and a pool
// slot for the result, and calls one public function on pool tensors with
// attributes decoded from the bytes that follow: every dtype, shapes with
// extents 0..4 and sometimes huge ones (2^31, 2^40, INT64_MAX), strided,
// zero-stride and negative-stride views, valid and invalid attributes. A
// successful result replaces the pool slot.
//
// The harness aborts when the library breaks its contract (status.h,
// tensor.h, ops.h): an unknown or internal status, an empty error message,
// an `out` not NULL after an error, an `_into` output changed by a failed
// call, a result with an invalid dtype, rank or shape, an op result that is
// not compact, a bool element other than 0/1, a result of the wrong shape
// or dtype for the simple ops, a dtype accepted or refused against the op
// registry's word.
//
// Work is bounded so that each input runs in milliseconds: a call is made
// only when the harness's estimate of its work and result size is at most
// WORK_CAP elements, or when the result is so large (HUGE_ELEMS elements or
// more) that allocating it must fail at once (run with ASan's
// allocator_may_return_null=1; the library must then return
// TFR_ERR_OUT_OF_MEMORY or TFR_ERR_INVALID_ARGUMENT).
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_support.h"
#include "tenferro/tenferro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define POOL 8
#define MAX_STEPS 32
#define MAX_TEMPS 256
// The most elements a call may touch or produce (see the top).
#define WORK_CAP 100000.0
// Results of at least this many elements cannot be allocated under ASan
// (its largest allocation is 2^40 bytes), so calls that would make them are
// safe to try: they must fail with TFR_ERR_OUT_OF_MEMORY.
#define HUGE_ELEMS 8796093022208.0 /* 2^43 */
// The length of every attribute array the harness passes: longer than any
// valid rank, so a count read past a rank stays inside the array.
#define CAPA (TFR_MAX_RANK + 8)

// The state of one input.
typedef struct fz {
  const uint8_t *p;
  size_t n, at;
  uint64_t rng;
  tfr_backend *backend;
  tfr_session *s;   // the input's session
  tfr_session *sa;  // the session argument of this step's call (NULL sometimes)
  bool null_out;    // this step passes NULL for `out`
  bool into;        // this step calls the `_into` form where there is one
  unsigned dst;     // the pool slot a result goes to
  tfr_tensor *pool[POOL];
  tfr_tensor *tmp[MAX_TEMPS];  // released at the end of the step
  int ntmp;
} fz;

// Reports a broken invariant (the harness line and the library's last
// message) and aborts, which libFuzzer records as a crash.
_Noreturn static void fail_at(int line) {
  fprintf(stderr, "fuzz_api: invariant of line %d broken; last error message: \"%s\"\n", line,
          tfr_last_error_message());
  abort();
}
#define FAIL() fail_at(__LINE__)

// A non-NULL pointer that no function returns: `out` is set to it before a
// call, so that a call that neither fills nor clears it is caught.
static max_align_t sentinel_object;
#define SENTINEL ((tfr_tensor *)(void *)&sentinel_object)

// ---------------------------------------------------------------------------
// Reading the input
// ---------------------------------------------------------------------------

static unsigned byte(fz *f) { return f->at < f->n ? f->p[f->at++] : 0; }

// splitmix64: the values of tensors, seeded from the input.
static uint64_t next_rand(fz *f) {
  uint64_t z = (f->rng += UINT64_C(0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

static int to_int(int64_t v) { return v > INT_MAX ? INT_MAX : v < INT_MIN ? INT_MIN : (int)v; }

// A dtype: every valid one, and a few invalid values.
static tfr_dtype dtype_of(fz *f) {
  unsigned b = byte(f) % 18;
  if (b < TFR_DTYPE_COUNT) return (tfr_dtype)b;
  return b == 15 ? (tfr_dtype)TFR_DTYPE_COUNT : b == 16 ? (tfr_dtype)-1 : (tfr_dtype)1000;
}

static const tfr_dtype int_dtypes[] = {TFR_I32, TFR_I64, TFR_I8,  TFR_I16,
                                       TFR_U8,  TFR_U16, TFR_U32, TFR_U64};

// An integer dtype for index tensors, sometimes a wrong one.
static tfr_dtype index_dtype(fz *f) {
  unsigned b = byte(f) % 10;
  return b < 8 ? int_dtypes[b] : b == 8 ? TFR_F32 : TFR_BOOL;
}

// A rank: mostly 0..4, sometimes the largest, larger or negative.
static int rank_of(fz *f) {
  unsigned b = byte(f);
  if (b < 240) return (int)(b % 5);
  static const int odd[] = {TFR_MAX_RANK, TFR_MAX_RANK + 1, -1, INT_MAX, INT_MIN, 5, 6, 8};
  return odd[b % 8];
}

static const int64_t odd_extents[] = {1000,
                                      64,
                                      16,
                                      300,
                                      INT64_C(1) << 31,
                                      INT64_C(1) << 40,
                                      INT64_MAX,
                                      INT64_C(1) << 50,
                                      (INT64_C(1) << 50) + 1,
                                      INT64_C(1) << 62,
                                      -1,
                                      INT64_MIN,
                                      INT64_C(1) << 43,
                                      INT64_C(1) << 25,
                                      5,
                                      7};

// An extent: mostly 0..4, sometimes large, huge or negative.
static int64_t extent_from(unsigned b) { return b < 240 ? (int64_t)(b % 5) : odd_extents[b - 240]; }
static int64_t extent(fz *f) { return extent_from(byte(f)); }

// A shape of `rank` extents (ranks above 4 have mostly extents of 1).
static void shape_of(fz *f, int rank, int64_t *shape) {
  for (int k = 0; k < rank && k < CAPA; k++) {
    unsigned b = byte(f);
    shape[k] = rank > 4 && b < 200 ? 1 : extent_from(b);
  }
}

// An axis of a tensor of `rank` axes, sometimes out of range.
static int64_t axis(fz *f, int rank) {
  static const int64_t odd[] = {-1,
                                TFR_MAX_RANK,
                                TFR_MAX_RANK + 1,
                                INT64_MAX,
                                INT64_MIN,
                                INT32_MAX,
                                INT32_MIN,
                                -2,
                                0,
                                1,
                                (INT64_C(1) << 32) + 1,
                                4};
  unsigned b = byte(f);
  if (b < 232 && rank > 0) return (int64_t)(b % (unsigned)rank);
  if (b == 255) return rank;
  return odd[b % 12];
}

// A signed attribute (start, padding, offset k), mostly small.
static int64_t ival(fz *f) {
  static const int64_t odd[] = {INT64_MAX,
                                INT64_MIN,
                                INT64_C(1) << 31,
                                -(INT64_C(1) << 31),
                                INT64_C(1) << 40,
                                -(INT64_C(1) << 40),
                                INT64_C(1) << 50,
                                INT64_C(1) << 62,
                                100,
                                -100,
                                INT64_C(1) << 20,
                                INT64_MAX - 1,
                                INT64_MIN + 1,
                                1000,
                                -5,
                                16};
  unsigned b = byte(f);
  return b < 240 ? (int64_t)(b % 8) - 2 : odd[b - 240];
}

// A stride in elements: mostly -4..4 (0 and negative included).
static int64_t stride_of(fz *f) {
  static const int64_t odd[] = {INT64_MAX,
                                INT64_MIN,
                                INT64_C(1) << 40,
                                -(INT64_C(1) << 40),
                                INT64_C(1) << 50,
                                (INT64_C(1) << 50) + 1,
                                -(INT64_C(1) << 50),
                                INT64_C(1) << 62,
                                1000,
                                -1000,
                                64,
                                65536};
  unsigned b = byte(f);
  return b < 216 ? (int64_t)(b % 9) - 4 : odd[b % 12];
}

// A count of array entries in [0, lim], sometimes negative or too large
// (never above CAPA: the harness's arrays are that long).
static int count_of(fz *f, int lim) {
  unsigned b = byte(f);
  if (lim < 0) lim = 0;
  if (lim > CAPA) lim = CAPA;
  if (b < 244) return (int)(b % (unsigned)(lim + 1));
  static const int odd[] = {-1, INT_MIN, CAPA, 1};
  int v = odd[b % 4];
  return v == 1 ? (lim + 1 < CAPA ? lim + 1 : CAPA) : v;
}

// A random permutation of 0 .. rank-1 (rank <= TFR_MAX_RANK), sometimes broken.
static void permutation_of(fz *f, int rank, int64_t *perm, bool may_break) {
  for (int k = 0; k < rank; k++) perm[k] = k;
  for (int k = rank - 1; k > 0; k--) {
    int j = (int)(byte(f) % (unsigned)(k + 1));
    int64_t t = perm[k];
    perm[k] = perm[j];
    perm[j] = t;
  }
  if (may_break && rank > 0 && byte(f) % 8 == 0) perm[byte(f) % (unsigned)rank] = axis(f, rank);
}

// A sorted random subset of [0, n) of size m (m <= n) in out.
static void subset_of(fz *f, int n, int m, int64_t *out) {
  int chosen = 0;
  for (int pos = 0; pos < n && chosen < m; pos++) {
    int left = n - pos;
    if ((int)(byte(f) % (unsigned)left) < m - chosen) out[chosen++] = pos;
  }
}

// ---------------------------------------------------------------------------
// Estimates (doubles: only compared with the bounds above)
// ---------------------------------------------------------------------------

// Elements of a shape; 0 when empty or invalid.
static double numel_est(int rank, const int64_t *shape) {
  if (rank < 0 || rank > TFR_MAX_RANK || (rank > 0 && !shape)) return 0;
  double n = 1;
  for (int k = 0; k < rank; k++) {
    if (shape[k] <= 0) return 0;
    n *= (double)shape[k];
  }
  return n;
}

static double nel(const tfr_tensor *t) { return t ? (double)tfr_tensor_numel(t) : 0; }

// Whether a call of about `work` element operations making a result of
// `out` elements may run (see the top).
static bool affordable(double work, double out) {
  return out >= HUGE_ELEMS || (work <= WORK_CAP && out <= WORK_CAP);
}

// Whether `t` has an axis of extent > 1 and stride 0: an `_into` output
// that the library must refuse (self-overlap), however large.
static bool self_overlapping(const tfr_tensor *t) {
  if (!t) return false;
  const int64_t *sh = tfr_tensor_shape(t), *st = tfr_tensor_strides(t);
  for (int k = 0; k < tfr_tensor_rank(t); k++)
    if (sh[k] > 1 && st[k] == 0) return true;
  return false;
}

// Whether an `_into` call writing `out` after `work` operations may run.
static bool into_affordable(double work, const tfr_tensor *out) {
  return work <= WORK_CAP || self_overlapping(out);
}

// ---------------------------------------------------------------------------
// Invariants
// ---------------------------------------------------------------------------

// Every failing call returns a known status other than "internal" and
// leaves a message. `extra` is one more status this call may return.
static void check_status(tfr_status st, tfr_status extra) {
  switch (st) {
    case TFR_OK:
      return;
    case TFR_ERR_INVALID_ARGUMENT:
    case TFR_ERR_UNSUPPORTED_DTYPE:
    case TFR_ERR_OUT_OF_MEMORY:
      break;
    default:
      if (st != extra || extra == TFR_OK) FAIL();
  }
  const char *m = tfr_last_error_message();
  if (!m || !*m) FAIL();
}

// A tensor handed out by the library: a valid dtype, rank, shape, element
// count and byte size; host memory; compact when `compact`. Its elements
// are read (every view stays inside its storage) when there are few, and
// bool elements must be 0 or 1.
static void check_tensor(const tfr_tensor *t, bool compact) {
  const tfr_dtype_info *info = tfr_dtype_get_info(tfr_tensor_dtype(t));
  if (!info) FAIL();
  int rank = tfr_tensor_rank(t);
  if (rank < 0 || rank > TFR_MAX_RANK) FAIL();
  const int64_t *sh = tfr_tensor_shape(t);
  if ((rank > 0) != (sh != NULL) || (rank > 0) != (tfr_tensor_strides(t) != NULL)) FAIL();
  int64_t n = 1;
  bool empty = false;
  for (int k = 0; k < rank; k++) {
    if (sh[k] < 0) FAIL();
    if (sh[k] == 0) empty = true;
  }
  for (int k = 0; k < rank && !empty; k++) {
    if (sh[k] > (INT64_C(1) << 50) / n) FAIL();  // more than 2^50 elements
    n *= sh[k];
  }
  if (empty) n = 0;
  if (tfr_tensor_numel(t) != n) FAIL();
  if (tfr_tensor_nbytes(t) != (size_t)n * info->size) FAIL();
  if (!tfr_tensor_is_host(t)) FAIL();
  if (compact && !tfr_tensor_is_contiguous(t)) FAIL();
  if ((double)n > WORK_CAP) return;
  size_t nb = (size_t)n * info->size;
  unsigned char *buf = malloc(nb + 1);
  if (!buf) return;
  if (tfr_tensor_read(t, buf, nb) != TFR_OK) FAIL();
  if (info->kind == TFR_KIND_BOOL)
    for (size_t i = 0; i < nb; i++)
      if (buf[i] > 1) FAIL();
  free(buf);
}

static bool same_shape(const tfr_tensor *a, const tfr_tensor *b) {
  int r = tfr_tensor_rank(a);
  if (r != tfr_tensor_rank(b)) return false;
  return r == 0 ||
         memcmp(tfr_tensor_shape(a), tfr_tensor_shape(b), (size_t)r * sizeof(int64_t)) == 0;
}

// The bytes of an `_into` output before the call: a failing call must not
// change them.
typedef struct snapshot {
  unsigned char *bytes;
  size_t n;
} snapshot;

static snapshot take_snapshot(const tfr_tensor *t) {
  snapshot s = {NULL, 0};
  if (!t || nel(t) > WORK_CAP) return s;
  s.n = tfr_tensor_nbytes(t);
  s.bytes = malloc(s.n + 1);
  if (s.bytes && tfr_tensor_read(t, s.bytes, s.n) != TFR_OK) FAIL();
  return s;
}

// Checks the outcome of an `_into` call on `out`.
static void check_into(fz *f, tfr_status st, const tfr_tensor *out, snapshot *s) {
  check_status(st, TFR_ERR_NO_SESSION);
  if ((!f->sa || !out) && st == TFR_OK) FAIL();
  if (st == TFR_OK) check_tensor(out, false);
  if (st != TFR_OK && s->bytes) {
    unsigned char *now = malloc(s->n + 1);
    if (now) {
      if (tfr_tensor_read(out, now, s->n) != TFR_OK) FAIL();
      if (memcmp(now, s->bytes, s->n) != 0) FAIL();  // a failed call wrote its output
      free(now);
    }
  }
  free(s->bytes);
  s->bytes = NULL;
}

// Whether op `name` accepts `dtype` according to the registry (-1: the
// registry does not know the name).
// The cpu backend runs every op on every dtype the op is defined for.
static int registry_accepts(const tfr_backend *backend, const char *name, tfr_dtype dtype) {
  tfr_op_id id;
  uint32_t mask;
  if (tfr_op_lookup(name, &id) != TFR_OK || tfr_op_dtypes(id, &mask) != TFR_OK) return -1;
  bool yes = (mask >> (unsigned)dtype) & 1u;
  bool runs = !yes;
  if (tfr_backend_supports(backend, id, dtype, &runs) != TFR_OK || runs != yes) FAIL();
  return yes;
}

// ---------------------------------------------------------------------------
// The pool and temporaries
// ---------------------------------------------------------------------------

// Puts a new reference into slot `slot`, releasing the old one.
static void store(fz *f, unsigned slot, tfr_tensor *t) {
  tfr_tensor_release(f->pool[slot % POOL]);
  f->pool[slot % POOL] = t;
}

// Keeps `t` until the end of the step.
static tfr_tensor *temp(fz *f, tfr_tensor *t) {
  if (!t) return NULL;
  if (f->ntmp == MAX_TEMPS) {
    tfr_tensor_release(t);
    return NULL;
  }
  f->tmp[f->ntmp++] = t;
  return t;
}

static void release_temps(fz *f) {
  for (int i = 0; i < f->ntmp; i++) tfr_tensor_release(f->tmp[i]);
  f->ntmp = 0;
}

// A pool tensor (NULL for an empty slot: a NULL argument).
static tfr_tensor *pick(fz *f) { return f->pool[byte(f) % POOL]; }

// Checks the outcome of a call that fills `out` (set to SENTINEL before)
// and keeps a successful result in this step's slot.
static void result(fz *f, tfr_status st, tfr_tensor *out, bool compact, tfr_status extra) {
  check_status(st, extra);
  if ((f->null_out || !f->sa) && st == TFR_OK) FAIL();
  if (st != TFR_OK) {
    if (!f->null_out && out != NULL) FAIL();  // an error leaves *out NULL
    return;
  }
  if (!out || out == SENTINEL) FAIL();
  check_tensor(out, compact);
  store(f, f->dst, out);
}

#define OUT (f->null_out ? NULL : &out)

// ---------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------

static const double float_specials[] = {0.0,
                                        -0.0,
                                        1.0,
                                        -1.0,
                                        0.5,
                                        -2.5,
                                        NAN,
                                        INFINITY,
                                        -INFINITY,
                                        4.9406564584124654e-324,
                                        1.401298464324817e-45,
                                        1.1754943508222875e-38,
                                        3.4028234663852886e+38,
                                        1.7976931348623157e+308,
                                        65504.0,
                                        6.103515625e-05,
                                        5.960464477539063e-08,
                                        2.2250738585072014e-308,
                                        1e300,
                                        3.0};
static const int64_t int_specials[] = {
    0,     1,      -1,    2,  INT64_MIN, INT64_MAX, INT32_MIN, INT32_MAX, 127, -128, 255,
    32767, -32768, 65535, 63, 64,        31,        32,        7,         8,   15,   16};
static const uint16_t f16_specials[] = {0x0000, 0x8000, 0x3C00, 0xBC00, 0x3800, 0x7C00,
                                        0xFC00, 0x7E00, 0x7C01, 0x0001, 0x03FF, 0x0400,
                                        0x7BFF, 0xFBFF, 0x4000, 0xC500};
static const uint16_t f16_small[] = {0xC200, 0xC000, 0xBC00, 0x0000,
                                     0x3C00, 0x4000, 0x4200, 0x4400};

static void put_bits(unsigned char *p, size_t n, uint64_t v) {
  for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(v >> (8 * i));
}

// Writes one element of `dt` drawn from `x`. Styles: 0 small integers
// (-3..3), 1 mixed, 2 raw bits, 3 index-like (0..4, sometimes -1 or 1000).
static void put_value(tfr_dtype dt, unsigned char *p, uint64_t x, unsigned style) {
  const tfr_dtype_info *info = tfr_dtype_get_info(dt);
  if (!info) return;
  unsigned kind = style == 1 ? (unsigned)(x & 3) : style;
  uint64_t y = x >> 8;
  int64_t small = (int64_t)(y % 7) - 3;
  int64_t index = y % 16 == 0 ? ((y >> 4) % 2 ? -1 : 1000) : (int64_t)(y % 5);
  if (info->kind == TFR_KIND_BOOL) {
    *p = (unsigned char)(y & 1);
    return;
  }
  if (info->kind == TFR_KIND_INT || info->kind == TFR_KIND_UINT) {
    int64_t v = kind == 0   ? small
                : kind == 1 ? int_specials[y % (sizeof int_specials / sizeof int_specials[0])]
                : kind == 2 ? (int64_t)(y ^ (x << 56))
                            : index;
    put_bits(p, info->size, (uint64_t)v);
    return;
  }
  int parts = info->kind == TFR_KIND_COMPLEX ? 2 : 1;
  size_t psize = info->size / (size_t)parts;
  for (int j = 0; j < parts; j++, y = (y >> 5) | (y << 59), p += psize) {
    if (kind == 2) {
      put_bits(p, psize, y * UINT64_C(0x2545F4914F6CDD1D));
      continue;
    }
    double v = kind == 0   ? (double)((int64_t)(y % 7) - 3)
               : kind == 1 ? float_specials[y % (sizeof float_specials / sizeof float_specials[0])]
                           : (double)index;
    if (info->real == TFR_F64) {
      memcpy(p, &v, 8);
    } else if (info->real == TFR_F32) {
      float fv = (float)v;
      memcpy(p, &fv, 4);
    } else if (info->real == TFR_BF16) {
      float fv = (float)v;
      uint32_t bits;
      memcpy(&bits, &fv, 4);
      put_bits(p, 2, bits >> 16);
    } else {  // f16: exact patterns of the same kinds of values
      uint16_t h = kind == 0       ? f16_small[y % 7]
                   : kind == 1     ? f16_specials[y % 16]
                   : index == -1   ? 0xBC00
                   : index == 1000 ? 0x63D0
                                   : f16_small[3 + index];
      put_bits(p, 2, h);
    }
  }
}

static void fill(fz *f, tfr_dtype dt, int64_t n, unsigned char *buf, unsigned style) {
  size_t sz = tfr_dtype_size(dt);
  f->rng += (uint64_t)byte(f) << 17;
  for (int64_t i = 0; i < n; i++) put_value(dt, buf + (size_t)i * sz, next_rand(f), style);
}

// A compact host tensor of `dt` and `shape` with values from the input, kept
// until the end of the step; NULL when too large or invalid.
static tfr_tensor *fresh(fz *f, tfr_dtype dt, int rank, const int64_t *shape, unsigned style) {
  size_t sz = tfr_dtype_size(dt);
  if (!sz || rank < 0 || rank > TFR_MAX_RANK) return NULL;
  for (int k = 0; k < rank; k++)
    if (shape[k] < 0) return NULL;
  double n = numel_est(rank, shape);
  if (n > WORK_CAP) return NULL;
  unsigned char *buf = malloc((size_t)n * sz + 1);
  if (!buf) return NULL;
  fill(f, dt, (int64_t)n, buf, style);
  tfr_tensor *t = NULL;
  tfr_status st = tfr_tensor_from_host(dt, rank, shape, buf, &t);
  free(buf);
  check_status(st, TFR_OK);
  return st == TFR_OK ? temp(f, t) : NULL;
}

// A compact tensor of zeros of `dt` and `shape`, kept until the end of the step.
static tfr_tensor *zeros(fz *f, tfr_dtype dt, int rank, const int64_t *shape) {
  if (numel_est(rank, shape) > WORK_CAP) return NULL;
  tfr_tensor *t = NULL;
  tfr_status st = tfr_tensor_zeros_host(dt, rank, shape, &t);
  check_status(st, TFR_OK);
  return st == TFR_OK ? temp(f, t) : NULL;
}

// A tensor like `ref` (its dtype and shape) for an operand that must match
// it: `ref` itself, a fresh one, a reversed view of a fresh one, a scalar
// broadcast to its shape (stride 0), or any pool tensor.
static tfr_tensor *operand_like(fz *f, tfr_tensor *ref, tfr_dtype dt) {
  unsigned b = byte(f) % 10;
  if (!ref || b < 3) return pick(f);
  if (b == 3) return ref;
  int rank = tfr_tensor_rank(ref);
  const int64_t *sh = tfr_tensor_shape(ref);
  if (b <= 6) return fresh(f, dt, rank, sh, byte(f) % 4);
  if (b == 7 || b == 8) {
    tfr_tensor *base = fresh(f, dt, rank, sh, byte(f) % 4), *v = NULL;
    if (!base) return NULL;
    int64_t axes[CAPA];
    for (int k = 0; k < rank; k++) axes[k] = k;
    if (tfr_tensor_view_reverse(base, rank, axes, &v) != TFR_OK) FAIL();
    return temp(f, v);
  }
  tfr_tensor *one = fresh(f, dt, 0, NULL, byte(f) % 4), *v = NULL;
  if (!one) return NULL;
  if (tfr_tensor_view_broadcast_in_dim(one, rank, sh, NULL, &v) != TFR_OK) FAIL();
  return temp(f, v);
}

// A rank-0 tensor of `dt` (an init or padding value), sometimes a wrong one.
static tfr_tensor *scalar_arg(fz *f, tfr_dtype dt) {
  unsigned b = byte(f) % 10;
  if (b == 0) return pick(f);
  if (b == 1) return NULL;
  if (b == 2) dt = dtype_of(f);
  return fresh(f, dt, 0, NULL, 1);
}

// An output for an `_into` call that expects `dt` and the shape of `like`:
// a compact or reversed tensor of zeros, `like` itself (in place), a view
// overlapping `like`, a scalar broadcast (self-overlap), or any pool tensor.
static tfr_tensor *into_target(fz *f, tfr_tensor *like, tfr_dtype dt) {
  unsigned b = byte(f) % 9;
  if (!like || b < 2) return pick(f);
  if (b == 2) return like;
  if (b == 3) dt = dtype_of(f);
  int rank = tfr_tensor_rank(like);
  const int64_t *sh = tfr_tensor_shape(like);
  int64_t axes[CAPA];
  for (int k = 0; k < rank; k++) axes[k] = k;
  tfr_tensor *v = NULL;
  if (b == 4) {  // a reversed view of `like` itself: overlaps it
    if (tfr_tensor_view_reverse(like, rank, axes, &v) != TFR_OK) FAIL();
    return temp(f, v);
  }
  if (b == 5) {  // zeros of one element broadcast to the shape
    tfr_tensor *one = zeros(f, dt, 0, NULL);
    if (!one) return NULL;
    if (tfr_tensor_view_broadcast_in_dim(one, rank, sh, NULL, &v) != TFR_OK) FAIL();
    return temp(f, v);
  }
  tfr_tensor *z = zeros(f, dt, rank, sh);
  if (!z || b != 6) return z;
  if (tfr_tensor_view_reverse(z, rank, axes, &v) != TFR_OK) FAIL();
  return temp(f, v);
}

// ---------------------------------------------------------------------------
// Tensors and views
// ---------------------------------------------------------------------------

static void free_buffer(void *ctx, void *data) {
  (void)ctx;
  free(data);
}

// tfr_tensor_from_host, tfr_tensor_zeros_host or tfr_tensor_wrap_host.
static void op_new(fz *f) {
  f->sa = f->s;  // no session needed
  tfr_dtype dt = dtype_of(f);
  int rank = rank_of(f);
  int64_t shape[CAPA] = {0}, strides[CAPA] = {0};
  shape_of(f, rank, shape);
  unsigned mode = byte(f);
  bool valid_rank = rank >= 0 && rank <= TFR_MAX_RANK;
  bool negative = false;
  for (int k = 0; valid_rank && k < rank; k++) negative = negative || shape[k] < 0;
  double n = valid_rank ? numel_est(rank, shape) : 0;
  size_t sz = tfr_dtype_size(dt);
  tfr_tensor *out = SENTINEL;
  tfr_status st;
  bool compact = true;
  if (mode % 4 <= 1) {
    // Data for a tensor of few elements; NULL for a huge one (the library
    // must fail, for the size or the NULL data).
    if (n > WORK_CAP && n < HUGE_ELEMS) return;
    unsigned char *buf = NULL;
    if (n <= WORK_CAP) {
      buf = malloc((size_t)n * (sz ? sz : 1) + 1);
      if (!buf) return;
      fill(f, sz ? dt : TFR_U8, (int64_t)n, buf, byte(f) % 4);
      // A bool byte other than 0/1 must be refused.
      if (dt == TFR_BOOL && n >= 1 && mode == 0x80) buf[0] = 2;
    }
    st = tfr_tensor_from_host(dt, rank, shape, (mode & 0x40) && n == 0 ? NULL : buf, OUT);
    free(buf);
    if (st == TFR_OK && dt == TFR_BOOL && mode == 0x80 && n >= 1) FAIL();
  } else if (mode % 4 == 2) {
    if (n > WORK_CAP && n < HUGE_ELEMS) return;
    st = tfr_tensor_zeros_host(dt, rank, shape, OUT);
  } else {
    // A user buffer (freed by the release callback), with strides that may
    // reach outside it.
    if (n > WORK_CAP || !sz || !valid_rank || negative) return;
    bool with_strides = byte(f) % 2;
    compact = !with_strides;
    for (int k = 0; k < rank; k++) strides[k] = stride_of(f);
    size_t nbytes = (size_t)n * sz;
    unsigned b = byte(f) % 4;
    if (b == 1) nbytes += sz * (byte(f) % 8);
    if (b == 2 && nbytes >= sz) nbytes -= sz;
    unsigned char *buf = malloc(nbytes + 1);
    if (!buf) return;
    fill(f, dt, (int64_t)(nbytes / sz), buf, byte(f) % 4);
    st = tfr_tensor_wrap_host(dt, rank, shape, with_strides ? strides : NULL, buf, nbytes,
                              free_buffer, NULL, OUT);
    if (st != TFR_OK) free(buf);  // not taken over on failure
  }
  result(f, st, f->null_out ? NULL : out, compact, TFR_OK);
}

// A slice of `t`: start, limit, strides per axis; returns the estimated
// number of elements of the slice (0 when invalid).
static double slice_args(fz *f, const tfr_tensor *t, int64_t *start, int64_t *limit,
                         int64_t *strides, bool unit_strides) {
  int rank = t ? tfr_tensor_rank(t) : 0;
  const int64_t *sh = t ? tfr_tensor_shape(t) : NULL;
  double n = 1;
  bool valid = true;
  for (int k = 0; k < rank; k++) {
    int64_t d = sh[k];
    unsigned b = byte(f);
    if (b < 224) {
      start[k] = d <= 8    ? (int64_t)(b % (unsigned)(d + 1))
                 : (b & 1) ? (int64_t)(b % 4)
                           : d - (int64_t)(b % 4);
      int64_t room = d - start[k];
      unsigned c = byte(f);
      limit[k] = start[k] + (room <= 8 ? (int64_t)(c % (unsigned)(room + 1)) : (int64_t)(c % 5));
    } else {
      start[k] = ival(f);
      limit[k] = ival(f);
    }
    unsigned c = byte(f);
    strides[k] = c < 240 ? 1 + (int64_t)(c % 3) : stride_of(f);
    if (unit_strides) strides[k] = 1;  // the call passes NULL strides
    if (start[k] < 0 || limit[k] < start[k] || limit[k] > d || strides[k] < 1) {
      valid = false;
    } else if (limit[k] == start[k]) {
      n = 0;
    } else {
      n *= (double)((limit[k] - start[k] - 1) / strides[k] + 1);
    }
  }
  return valid ? n : 0;
}

// The result shape and broadcast dimensions of a broadcast of `t`.
static int broadcast_args(fz *f, const tfr_tensor *t, int64_t *shape, int64_t *dims) {
  int rank = t ? tfr_tensor_rank(t) : 0;
  const int64_t *sh = t ? tfr_tensor_shape(t) : NULL;
  unsigned b = byte(f);
  int r = b < 248 ? rank + (int)(b % 3) : rank_of(f);
  if (r < 0 || r > TFR_MAX_RANK) return r;
  if (r >= rank) {
    subset_of(f, r, rank, dims);
  } else {
    for (int k = 0; k < rank; k++) dims[k] = k;
  }
  for (int k = 0; k < r; k++) shape[k] = extent(f);
  for (int k = 0; k < rank && r >= rank; k++)
    if (sh[k] != 1 || byte(f) % 2) shape[dims[k]] = sh[k];
  if (rank > 0 && byte(f) % 8 == 0) dims[byte(f) % (unsigned)rank] = axis(f, r);
  return r;
}

// A new shape for a reshape of `t`: mostly one of the same element count.
static int reshape_args(fz *f, const tfr_tensor *t, int64_t *shape) {
  int rank = t ? tfr_tensor_rank(t) : 0;
  const int64_t *sh = t ? tfr_tensor_shape(t) : NULL;
  int64_t n = t ? tfr_tensor_numel(t) : 1;
  switch (byte(f) % 7) {
    case 0:
      shape[0] = n;
      return 1;
    case 1:
      for (int k = 0; k < rank; k++) shape[k] = sh[rank - 1 - k];
      return rank;
    case 2: {
      if (rank >= TFR_MAX_RANK) return rank;
      int at = (int)(byte(f) % (unsigned)(rank + 1));
      for (int k = 0, j = 0; k <= rank; k++) shape[k] = k == at ? 1 : sh[j++];
      return rank + 1;
    }
    case 3:
      if (n % 2) break;
      shape[0] = 2;
      shape[1] = n / 2;
      return 2;
    case 4:
      return 0;
    case 5:
      for (int k = 0; k < rank; k++) shape[k] = sh[k];
      if (rank >= 2) {  // merge the last two axes
        if (sh[rank - 1] != 0 && sh[rank - 2] > INT64_MAX / sh[rank - 1]) return rank;
        shape[rank - 2] = sh[rank - 2] * sh[rank - 1];
        return rank - 1;
      }
      return rank;
    default:
      break;
  }
  int r = rank_of(f);
  shape_of(f, r, shape);
  return r;
}

// The view functions of tensor.h.
static void op_view(fz *f) {
  f->sa = f->s;  // no session needed
  tfr_tensor *t = pick(f);
  int rank = t ? tfr_tensor_rank(t) : 0;
  int64_t a[CAPA] = {0}, b[CAPA] = {0}, c[CAPA] = {0};
  tfr_tensor *out = SENTINEL;
  tfr_status st;
  tfr_status extra = TFR_OK;
  switch (byte(f) % 6) {
    case 0: {  // any shape, strides and offset onto the storage
      int r = rank_of(f);
      shape_of(f, r, a);
      for (int k = 0; k < r && k < CAPA; k++) b[k] = stride_of(f);
      unsigned o = byte(f);
      int64_t offset = o < 224 ? (t ? tfr_tensor_offset(t) : 0) + (int64_t)(o % 16) - 4 : ival(f);
      st = tfr_tensor_view(t, r, a, byte(f) % 8 == 0 ? NULL : b, offset, OUT);
      break;
    }
    case 1:
      permutation_of(f, rank, a, true);
      st = tfr_tensor_view_transpose(t, a, OUT);
      break;
    case 2: {
      bool unit = byte(f) % 4 == 0;
      slice_args(f, t, a, b, c, unit);
      st = tfr_tensor_view_slice(t, a, b, unit ? NULL : c, OUT);
      break;
    }
    case 3: {
      int naxes = count_of(f, rank);
      for (int k = 0; k < naxes && k < CAPA; k++) a[k] = axis(f, rank);
      st = tfr_tensor_view_reverse(t, naxes, a, OUT);
      break;
    }
    case 4: {
      int r = broadcast_args(f, t, a, b);
      st = tfr_tensor_view_broadcast_in_dim(t, r, a, b, OUT);
      break;
    }
    default: {
      int r = reshape_args(f, t, a);
      st = tfr_tensor_view_reshape(t, r, a, OUT);
      extra = TFR_ERR_NOT_VIEWABLE;
      break;
    }
  }
  if (st == TFR_OK && !f->null_out && (!t || tfr_tensor_dtype(out) != tfr_tensor_dtype(t))) FAIL();
  result(f, st, f->null_out ? NULL : out, false, extra);
}

// tfr_tensor_retain/release, host data, reads with a short buffer,
// upload and download, and dropping a pool slot.
static void op_tensor_misc(fz *f) {
  tfr_tensor *t = pick(f);
  switch (byte(f) % 5) {
    case 0:
      tfr_tensor_retain(t);
      tfr_tensor_release(t);
      break;
    case 1: {
      void *p = NULL;
      tfr_status st = tfr_tensor_host_data(t, &p);
      check_status(st, TFR_OK);
      if ((st == TFR_OK) != (t != NULL) || (st == TFR_OK && !p)) FAIL();
      if (t && tfr_tensor_nbytes(t) > 0) {
        unsigned char small[8];
        st = tfr_tensor_read(t, small, tfr_tensor_nbytes(t) - 1 < 8 ? tfr_tensor_nbytes(t) - 1 : 7);
        if (st != TFR_ERR_INVALID_ARGUMENT) FAIL();  // the buffer is too small
        check_status(st, TFR_OK);
      }
      break;
    }
    case 2:
    case 3: {
      tfr_tensor *out = SENTINEL;
      tfr_status st = byte(f) % 2 ? tfr_upload(f->sa, t, OUT) : tfr_download(f->sa, t, OUT);
      check_status(st, TFR_ERR_NO_SESSION);
      if (st == TFR_OK && !f->null_out && out != t) FAIL();  // cpu: the same tensor
      if (st == TFR_OK && (f->null_out || !f->sa || !t)) FAIL();
      if (st != TFR_OK) {
        if (!f->null_out && out != NULL) FAIL();
        break;
      }
      store(f, f->dst, out);
      break;
    }
    default:
      store(f, f->dst, NULL);
      break;
  }
}

// ---------------------------------------------------------------------------
// Elementwise ops
// ---------------------------------------------------------------------------

typedef tfr_status (*unary_fn)(tfr_session *, const tfr_tensor *, tfr_tensor **);
typedef tfr_status (*binary_fn)(tfr_session *, const tfr_tensor *, const tfr_tensor *,
                                tfr_tensor **);

static tfr_dtype complex_of(tfr_dtype dt) {
  return dt == TFR_F32 ? TFR_C64 : dt == TFR_F64 ? TFR_C128 : dt;
}

static tfr_dtype unary_result_dtype(tfr_unary_op op, tfr_dtype dt) {
  const tfr_dtype_info *info = tfr_dtype_get_info(dt);
  if (op == TFR_IS_FINITE) return TFR_BOOL;
  if ((op == TFR_ABS || op == TFR_REAL || op == TFR_IMAG) && info) return info->real;
  return dt;
}

static void op_unary(fz *f) {
  static const unary_fn fns[] = {tfr_negate,
                                 tfr_abs,
                                 tfr_sign,
                                 tfr_conj,
                                 tfr_not,
                                 tfr_floor,
                                 tfr_ceil,
                                 tfr_round_nearest_even,
                                 tfr_round_nearest_afz,
                                 tfr_is_finite,
                                 tfr_real,
                                 tfr_imag,
                                 tfr_exp,
                                 tfr_log,
                                 tfr_sin,
                                 tfr_cos,
                                 tfr_tan,
                                 tfr_tanh,
                                 tfr_sqrt,
                                 tfr_rsqrt,
                                 tfr_cbrt,
                                 tfr_expm1,
                                 tfr_log1p,
                                 tfr_erf,
                                 tfr_logistic};
  tfr_tensor *x = pick(f);
  unsigned b = byte(f);
  tfr_unary_op op = b < 234    ? (tfr_unary_op)(b % TFR_UNARY_OP_COUNT)
                    : b == 255 ? (tfr_unary_op)-1
                               : (tfr_unary_op)(TFR_UNARY_OP_COUNT + (int)(b % 3));
  bool valid_op = (unsigned)op < TFR_UNARY_OP_COUNT;
  tfr_dtype dt = x ? tfr_tensor_dtype(x) : TFR_F32;
  if (f->into) {
    tfr_tensor *out = into_target(f, x, unary_result_dtype(op, dt));
    if (!into_affordable(nel(x), out)) return;
    snapshot s = take_snapshot(out);
    check_into(f, tfr_unary_into(f->sa, op, x, out), out, &s);
    return;
  }
  if (!affordable(nel(x), nel(x))) return;
  tfr_tensor *out = SENTINEL;
  tfr_status st = valid_op && (unsigned)op < sizeof fns / sizeof fns[0] && byte(f) % 2
                      ? fns[op](f->sa, x, OUT)
                      : tfr_unary(f->sa, op, x, OUT);
  if (st == TFR_OK && !f->null_out &&
      (!same_shape(out, x) || tfr_tensor_dtype(out) != unary_result_dtype(op, dt)))
    FAIL();
  // The registry's dtypes are those the op accepts.
  if (valid_op && x && f->sa && !f->null_out && st != TFR_ERR_OUT_OF_MEMORY) {
    int yes = registry_accepts(f->backend, tfr_unary_op_name(op), dt);
    if (yes >= 0 && yes != (st == TFR_OK)) FAIL();
  }
  result(f, st, f->null_out ? NULL : out, true, TFR_OK);
}

static void op_binary(fz *f) {
  static const binary_fn fns[] = {tfr_add,       tfr_subtract, tfr_multiply, tfr_divide,
                                  tfr_remainder, tfr_maximum,  tfr_minimum,  tfr_power,
                                  tfr_and,       tfr_or,       tfr_xor};
  tfr_tensor *lhs = pick(f);
  tfr_dtype dt = lhs ? tfr_tensor_dtype(lhs) : TFR_F32;
  unsigned b = byte(f);
  tfr_binary_op op = b < 240    ? (tfr_binary_op)(b % TFR_BINARY_OP_COUNT)
                     : b == 255 ? (tfr_binary_op)-1
                                : (tfr_binary_op)(TFR_BINARY_OP_COUNT + (int)(b % 3));
  tfr_tensor *rhs = operand_like(f, lhs, dt);
  double work = fmax(nel(lhs), nel(rhs));
  tfr_dtype rdt = op == TFR_COMPLEX ? complex_of(dt) : dt;
  if (f->into) {
    tfr_tensor *out = into_target(f, lhs, rdt);
    if (!into_affordable(work, out)) return;
    snapshot s = take_snapshot(out);
    check_into(f, tfr_binary_into(f->sa, op, lhs, rhs, out), out, &s);
    return;
  }
  if (!affordable(work, work)) return;
  tfr_tensor *out = SENTINEL;
  tfr_status st;
  unsigned how = byte(f);
  if (op == TFR_COMPLEX && how % 2)
    st = tfr_complex(f->sa, lhs, rhs, OUT);
  else if ((unsigned)op < sizeof fns / sizeof fns[0] && how % 2)
    st = fns[op](f->sa, lhs, rhs, OUT);
  else
    st = tfr_binary(f->sa, op, lhs, rhs, OUT);
  if (st == TFR_OK && !f->null_out && (!same_shape(out, lhs) || tfr_tensor_dtype(out) != rdt))
    FAIL();
  if ((unsigned)op < TFR_BINARY_OP_COUNT && lhs && rhs && f->sa && !f->null_out &&
      tfr_tensor_dtype(rhs) == dt && same_shape(lhs, rhs) && st != TFR_ERR_OUT_OF_MEMORY) {
    int yes = registry_accepts(f->backend, tfr_binary_op_name(op), dt);
    if (yes >= 0 && yes != (st == TFR_OK)) FAIL();
  }
  result(f, st, f->null_out ? NULL : out, true, TFR_OK);
}

static void op_compare(fz *f) {
  tfr_tensor *lhs = pick(f);
  tfr_dtype dt = lhs ? tfr_tensor_dtype(lhs) : TFR_F32;
  unsigned b = byte(f);
  tfr_compare_direction dir = b < 250 ? (tfr_compare_direction)(b % 6)
                                      : (tfr_compare_direction)(b == 255 ? -1 : 6 + (int)(b % 3));
  tfr_tensor *rhs = operand_like(f, lhs, dt);
  double work = fmax(nel(lhs), nel(rhs));
  if (f->into) {
    tfr_tensor *out = into_target(f, lhs, TFR_BOOL);
    if (!into_affordable(work, out)) return;
    snapshot s = take_snapshot(out);
    check_into(f, tfr_compare_into(f->sa, dir, lhs, rhs, out), out, &s);
    return;
  }
  if (!affordable(work, work)) return;
  tfr_tensor *out = SENTINEL;
  tfr_status st = tfr_compare(f->sa, dir, lhs, rhs, OUT);
  if (st == TFR_OK && !f->null_out && (!same_shape(out, lhs) || tfr_tensor_dtype(out) != TFR_BOOL))
    FAIL();
  result(f, st, f->null_out ? NULL : out, true, TFR_OK);
}

static void op_select(fz *f) {
  tfr_tensor *on_true = pick(f);
  tfr_dtype dt = on_true ? tfr_tensor_dtype(on_true) : TFR_F32;
  tfr_tensor *on_false = operand_like(f, on_true, dt);
  tfr_tensor *pred;
  switch (byte(f) % 4) {
    case 0:
      pred = pick(f);
      break;
    case 1:
      pred = fresh(f, TFR_BOOL, 0, NULL, 2);
      break;
    default:
      pred = operand_like(f, on_true, TFR_BOOL);
      break;
  }
  double work = fmax(fmax(nel(on_true), nel(on_false)), nel(pred));
  if (f->into) {
    tfr_tensor *out = into_target(f, on_true, dt);
    if (!into_affordable(work, out)) return;
    snapshot s = take_snapshot(out);
    check_into(f, tfr_select_into(f->sa, pred, on_true, on_false, out), out, &s);
    return;
  }
  if (!affordable(work, work)) return;
  tfr_tensor *out = SENTINEL;
  tfr_status st = tfr_select(f->sa, pred, on_true, on_false, OUT);
  if (st == TFR_OK && !f->null_out && (!same_shape(out, on_true) || tfr_tensor_dtype(out) != dt))
    FAIL();
  result(f, st, f->null_out ? NULL : out, true, TFR_OK);
}

static void op_clamp(fz *f) {
  tfr_tensor *x = pick(f);
  tfr_dtype dt = x ? tfr_tensor_dtype(x) : TFR_F32;
  tfr_tensor *lo = byte(f) % 2 ? scalar_arg(f, dt) : operand_like(f, x, dt);
  tfr_tensor *hi = byte(f) % 2 ? scalar_arg(f, dt) : operand_like(f, x, dt);
  double work = fmax(fmax(nel(x), nel(lo)), nel(hi));
  if (f->into) {
    tfr_tensor *out = into_target(f, x, dt);
    if (!into_affordable(work, out)) return;
    snapshot s = take_snapshot(out);
    check_into(f, tfr_clamp_into(f->sa, lo, x, hi, out), out, &s);
    return;
  }
  if (!affordable(work, work)) return;
  tfr_tensor *out = SENTINEL;
  tfr_status st = tfr_clamp(f->sa, lo, x, hi, OUT);
  if (st == TFR_OK && !f->null_out && (!same_shape(out, x) || tfr_tensor_dtype(out) != dt)) FAIL();
  result(f, st, f->null_out ? NULL : out, true, TFR_OK);
}

// convert, bitcast_convert, reduce_precision, copy.
static void op_convert(fz *f) {
  tfr_tensor *x = pick(f);
  unsigned kind = byte(f) % 4;
  tfr_dtype dt = dtype_of(f);
  double n = nel(x);
  tfr_tensor *out = SENTINEL;
  tfr_status st;
  if (f->into && (kind == 0 || kind == 3)) {
    tfr_tensor *target = into_target(f, x, kind == 0 ? dt : x ? tfr_tensor_dtype(x) : dt);
    if (!into_affordable(n, target)) return;
    snapshot s = take_snapshot(target);
    st = kind == 0 ? tfr_convert_into(f->sa, x, target) : tfr_copy_into(f->sa, x, target);
    check_into(f, st, target, &s);
    return;
  }
  switch (kind) {
    case 0:
      if (!affordable(n, n)) return;
      st = tfr_convert(f->sa, x, dt, OUT);
      if (st == TFR_OK && !f->null_out && (!same_shape(out, x) || tfr_tensor_dtype(out) != dt))
        FAIL();
      break;
    case 1:
      if (!affordable(16 * n, 16 * n)) return;
      st = tfr_bitcast_convert(f->sa, x, dt, OUT);
      if (st == TFR_OK && !f->null_out && tfr_tensor_dtype(out) != dt) FAIL();
      if (st == TFR_OK && !f->null_out && tfr_tensor_nbytes(out) != tfr_tensor_nbytes(x)) FAIL();
      break;
    case 2: {
      if (!affordable(n, n)) return;
      static const int odd[] = {0, -1, INT_MAX, INT_MIN, 31, 32, 64, 100};
      unsigned e = byte(f), m = byte(f);
      int ebits = e < 224 ? 1 + (int)(e % 11) : odd[e % 8];
      int mbits = m < 224 ? (int)(m % 53) : odd[m % 8];
      st = tfr_reduce_precision(f->sa, x, ebits, mbits, OUT);
      if (st == TFR_OK && !f->null_out &&
          (!same_shape(out, x) || tfr_tensor_dtype(out) != tfr_tensor_dtype(x)))
        FAIL();
      break;
    }
    default:
      if (!affordable(n, n)) return;
      st = tfr_copy(f->sa, x, OUT);
      if (st == TFR_OK && !f->null_out &&
          (!same_shape(out, x) || tfr_tensor_dtype(out) != tfr_tensor_dtype(x)))
        FAIL();
      break;
  }
  result(f, st, f->null_out ? NULL : out, true, TFR_OK);
}

// ---------------------------------------------------------------------------
// Structural ops
// ---------------------------------------------------------------------------

// transpose, reshape, broadcast_in_dim, reverse and slice as ops.
static void op_structural(fz *f) {
  tfr_tensor *x = pick(f);
  int rank = x ? tfr_tensor_rank(x) : 0;
  int64_t a[CAPA] = {0}, b[CAPA] = {0}, c[CAPA] = {0};
  double n = nel(x);
  tfr_tensor *out = SENTINEL;
  tfr_status st;
  bool compact = true;
  switch (byte(f) % 5) {
    case 0:
      permutation_of(f, rank, a, true);
      if (!affordable(n, n)) return;
      st = tfr_transpose(f->sa, x, a, OUT);
      break;
    case 1: {
      int r = reshape_args(f, x, a);
      if (!affordable(n, n)) return;
      st = tfr_reshape(f->sa, x, r, a, OUT);
      compact = false;  // a view when the strides allow it
      break;
    }
    case 2: {
      int r = broadcast_args(f, x, a, b);
      st = tfr_broadcast_in_dim(f->sa, x, r, a, b, OUT);
      compact = false;  // a stride-0 view
      break;
    }
    case 3: {
      int naxes = count_of(f, rank);
      for (int k = 0; k < naxes && k < CAPA; k++) a[k] = axis(f, rank);
      if (!affordable(n, n)) return;
      st = tfr_reverse(f->sa, x, naxes, a, OUT);
      if (st == TFR_OK && !f->null_out && !same_shape(out, x)) FAIL();
      break;
    }
    default: {
      bool unit = byte(f) % 4 == 0;
      double m = slice_args(f, x, a, b, c, unit);
      if (!affordable(m, m)) return;
      st = tfr_slice(f->sa, x, a, b, unit ? NULL : c, OUT);
      if (st == TFR_OK && !f->null_out && nel(out) != m) FAIL();
      break;
    }
  }
  result(f, st, f->null_out ? NULL : out, compact, TFR_OK);
}

// extract_diagonal, embed_diagonal, tril, triu, iota.
static void op_diagonal(fz *f) {
  tfr_tensor *x = pick(f);
  int rank = x ? tfr_tensor_rank(x) : 0;
  double n = nel(x);
  tfr_tensor *out = SENTINEL;
  tfr_status st;
  switch (byte(f) % 5) {
    case 0: {
      int a = to_int(axis(f, rank)), b = to_int(axis(f, rank));
      if (n > WORK_CAP) return;  // the result is smaller than the work
      st = tfr_extract_diagonal(f->sa, x, a, b, OUT);
      break;
    }
    case 1: {
      int a = to_int(axis(f, rank)), b = to_int(axis(f, rank + 1));
      double m = n * (x && a >= 0 && a < rank ? (double)tfr_tensor_shape(x)[a] : 1.0);
      if (!affordable(m, m)) return;
      st = tfr_embed_diagonal(f->sa, x, a, b, OUT);
      break;
    }
    case 2:
    case 3: {
      int64_t k = ival(f);
      if (!affordable(n, n)) return;
      st = byte(f) % 2 ? tfr_tril(f->sa, x, k, OUT) : tfr_triu(f->sa, x, k, OUT);
      if (st == TFR_OK && !f->null_out && !same_shape(out, x)) FAIL();
      break;
    }
    default: {
      tfr_dtype dt = dtype_of(f);
      int r = rank_of(f);
      int64_t shape[CAPA] = {0};
      shape_of(f, r, shape);
      int dim = to_int(axis(f, r));
      double m = numel_est(r, shape);
      if (!affordable(m, m)) return;
      st = tfr_iota(f->sa, dt, r, shape, dim, OUT);
      if (st == TFR_OK && !f->null_out && (tfr_tensor_dtype(out) != dt || nel(out) != m)) FAIL();
      break;
    }
  }
  result(f, st, f->null_out ? NULL : out, true, TFR_OK);
}

// reduce with every combiner, and its four shorthands.
static void op_reduce(fz *f) {
  tfr_tensor *x = pick(f);
  int rank = x ? tfr_tensor_rank(x) : 0;
  tfr_dtype dt = x ? tfr_tensor_dtype(x) : TFR_F32;
  int64_t axes[CAPA] = {0};
  int naxes = count_of(f, rank);
  for (int k = 0; k < naxes && k < CAPA; k++) axes[k] = axis(f, rank);
  unsigned b = byte(f);
  if (nel(x) > WORK_CAP) return;  // a small result may take all the work
  // An empty reduced axis makes a result of the init value as large as the
  // other axes (a (2^28, 0) operand gives 2^28 elements): bounded too.
  double res = 1;
  for (int k = 0; k < rank; k++) {
    bool reduced = false;
    for (int j = 0; j < naxes && j < CAPA; j++) reduced |= axes[j] == k;
    if (!reduced) res *= (double)tfr_tensor_shape(x)[k];
  }
  if (!affordable(nel(x), res)) return;
  tfr_tensor *out = SENTINEL;
  tfr_status st;
  switch (b % 6) {
    case 0:
      st = tfr_reduce_sum(f->sa, x, naxes, axes, OUT);
      break;
    case 1:
      st = tfr_reduce_prod(f->sa, x, naxes, axes, OUT);
      break;
    case 2:
      st = tfr_reduce_max(f->sa, x, naxes, axes, OUT);
      break;
    case 3:
      st = tfr_reduce_min(f->sa, x, naxes, axes, OUT);
      break;
    default: {
      unsigned c = byte(f);
      tfr_reduce_combiner comb = c < 250 ? (tfr_reduce_combiner)(c % 7)
                                         : (tfr_reduce_combiner)(c == 255 ? -1 : 7 + (int)(c % 3));
      tfr_tensor *init = scalar_arg(f, dt);
      st = tfr_reduce(f->sa, x, init, comb, naxes, axes, OUT);
      break;
    }
  }
  if (st == TFR_OK && !f->null_out &&
      (tfr_tensor_dtype(out) != dt || tfr_tensor_rank(out) != rank - naxes))
    FAIL();
  result(f, st, f->null_out ? NULL : out, true, TFR_OK);
}

// ---------------------------------------------------------------------------
// dot_general and dot plans
// ---------------------------------------------------------------------------

typedef struct dot_args {
  int64_t lb[CAPA], rb[CAPA], lc[CAPA], rc[CAPA];
  tfr_dot_config c;
  tfr_tensor *rhs;
} dot_args;

// Dimension numbers for lhs and an rhs: either any pool tensor with random
// dims, or a fresh rhs built to match the chosen lhs batch and contracting
// axes (so that most of these calls are valid).
static void dot_args_of(fz *f, tfr_tensor *lhs, dot_args *d) {
  memset(d, 0, sizeof *d);
  int rl = lhs ? tfr_tensor_rank(lhs) : 0;
  const int64_t *ls = lhs ? tfr_tensor_shape(lhs) : NULL;
  tfr_dtype dt = lhs ? tfr_tensor_dtype(lhs) : TFR_F32;
  int64_t perm[CAPA];
  permutation_of(f, rl, perm, false);  // lhs axes in a random order: batch, then contracting
  int nb = rl ? (int)(byte(f) % (unsigned)(rl + 1)) : 0;
  if (nb > 2) nb = 2;
  int nc = rl - nb ? (int)(byte(f) % (unsigned)(rl - nb + 1)) : 0;
  for (int i = 0; i < nb; i++) d->lb[i] = perm[i];
  for (int i = 0; i < nc; i++) d->lc[i] = perm[nb + i];
  d->c.num_batching_dims = nb;
  d->c.num_contracting_dims = nc;
  d->c.lhs_batching_dimensions = d->lb;
  d->c.rhs_batching_dimensions = d->rb;
  d->c.lhs_contracting_dimensions = d->lc;
  d->c.rhs_contracting_dimensions = d->rc;
  d->c.lhs_conj = byte(f) % 2;
  d->c.rhs_conj = byte(f) % 2;
  if (byte(f) % 4 == 0 || !lhs) {
    // Any pool tensor, random rhs dims.
    d->rhs = pick(f);
    int rr = d->rhs ? tfr_tensor_rank(d->rhs) : 0;
    for (int i = 0; i < nb; i++) d->rb[i] = axis(f, rr);
    for (int i = 0; i < nc; i++) d->rc[i] = axis(f, rr);
  } else {
    // rhs axes: batch, contracting and 0..2 free ones, in a random order.
    int nfree = (int)(byte(f) % 3);
    int rr = nb + nc + nfree;
    int64_t rperm[CAPA], rshape[CAPA];
    permutation_of(f, rr, rperm, false);
    for (int i = 0; i < nb; i++) {
      d->rb[i] = rperm[i];
      rshape[rperm[i]] = d->lb[i] >= 0 && d->lb[i] < rl ? ls[d->lb[i]] : 1;
    }
    for (int i = 0; i < nc; i++) {
      d->rc[i] = rperm[nb + i];
      rshape[rperm[nb + i]] = d->lc[i] >= 0 && d->lc[i] < rl ? ls[d->lc[i]] : 1;
    }
    for (int i = 0; i < nfree; i++) rshape[rperm[nb + nc + i]] = extent(f);
    d->rhs = fresh(f, byte(f) % 8 ? dt : dtype_of(f), rr, rshape, byte(f) % 4);
  }
  // Sometimes a broken attribute.
  unsigned b = byte(f);
  if (b % 8 == 0) {
    int64_t *arrays[] = {d->lb, d->rb, d->lc, d->rc};
    arrays[(b >> 3) % 4][byte(f) % 3] = axis(f, rl);
  } else if (b % 8 == 1) {
    if ((b >> 3) % 2)
      d->c.num_batching_dims = count_of(f, 3);
    else
      d->c.num_contracting_dims = count_of(f, 3);
  }
}

// The result size and the multiply-adds of dot_general(lhs, rhs, c) for
// shapes ls and rs, as far as the dimension numbers are in range.
static void dot_estimate(int rl, const int64_t *ls, int rr, const int64_t *rs,
                         const tfr_dot_config *c, double *work, double *out) {
  bool lused[CAPA] = {false}, rused[CAPA] = {false};
  double contract = 1;
  int nb = c->num_batching_dims > 0 ? c->num_batching_dims : 0;
  int nc = c->num_contracting_dims > 0 ? c->num_contracting_dims : 0;
  for (int i = 0; i < nc && i < CAPA; i++) {
    int64_t a = c->lhs_contracting_dimensions[i], b = c->rhs_contracting_dimensions[i];
    if (a >= 0 && a < rl) {
      lused[a] = true;
      contract *= (double)(ls[a] > 0 ? ls[a] : 0);
    }
    if (b >= 0 && b < rr) rused[b] = true;
  }
  for (int i = 0; i < nb && i < CAPA; i++) {
    int64_t b = c->rhs_batching_dimensions[i];
    if (b >= 0 && b < rr) rused[b] = true;
  }
  double o = 1;
  for (int k = 0; k < rl; k++)
    if (!lused[k]) o *= (double)(ls[k] > 0 ? ls[k] : 0);
  for (int k = 0; k < rr; k++)
    if (!rused[k]) o *= (double)(rs[k] > 0 ? rs[k] : 0);
  *out = o;
  *work = o * (contract > 1 ? contract : 1);
}

static void dot_estimate_tensors(const tfr_tensor *lhs, const tfr_tensor *rhs,
                                 const tfr_dot_config *c, double *work, double *out) {
  dot_estimate(lhs ? tfr_tensor_rank(lhs) : 0, lhs ? tfr_tensor_shape(lhs) : NULL,
               rhs ? tfr_tensor_rank(rhs) : 0, rhs ? tfr_tensor_shape(rhs) : NULL, c, work, out);
  *work += nel(lhs) + nel(rhs);
}

// alpha or beta of dot_general_accumulate: one value of `dt`.
static const void *scalar_bytes(fz *f, tfr_dtype dt, unsigned char *buf) {
  unsigned b = byte(f);
  if (b % 16 == 0) return NULL;
  memset(buf, 0, 16);
  put_value(dt, buf, next_rand(f) ^ b, (b >> 4) % 4);
  return buf;
}

static void op_dot(fz *f) {
  tfr_tensor *lhs = pick(f);
  dot_args d;
  dot_args_of(f, lhs, &d);
  const tfr_dot_config *cfg = byte(f) % 32 ? &d.c : NULL;
  double work, out_n;
  dot_estimate_tensors(lhs, d.rhs, &d.c, &work, &out_n);
  if (f->into) {
    // The accumulating form into a pool tensor or zeros of a guessed shape.
    tfr_dtype dt = lhs ? tfr_tensor_dtype(lhs) : TFR_F32;
    tfr_tensor *out = NULL;
    tfr_tensor *ref = SENTINEL;
    tfr_status st = TFR_ERR_INVALID_ARGUMENT;
    if (byte(f) % 2 && affordable(work, out_n) && out_n <= WORK_CAP) {
      st = tfr_dot_general(f->s, lhs, d.rhs, &d.c, &ref);
      check_status(st, TFR_OK);
    }
    out = st == TFR_OK ? into_target(f, temp(f, ref), dt) : pick(f);  // the result's shape
    if (!into_affordable(work, out) || !affordable(work, 0)) return;
    unsigned char alpha[16], beta[16];
    const void *pa = scalar_bytes(f, dt, alpha), *pb = scalar_bytes(f, dt, beta);
    snapshot s = take_snapshot(out);
    check_into(f, tfr_dot_general_accumulate(f->sa, lhs, d.rhs, cfg, pa, pb, out), out, &s);
    return;
  }
  if (!affordable(work, out_n)) return;
  tfr_tensor *out = SENTINEL;
  tfr_status st = tfr_dot_general(f->sa, lhs, d.rhs, cfg, OUT);
  if (st == TFR_OK && !f->null_out && nel(out) != out_n) FAIL();
  result(f, st, f->null_out ? NULL : out, true, TFR_OK);
}

// A dot plan: created from tensors or from shapes, packed, executed,
// executed accumulating, unpacked, released.
static void op_dot_plan(fz *f) {
  tfr_tensor *lhs = pick(f);
  dot_args d;
  dot_args_of(f, lhs, &d);
  // Results go to a pool slot while the plan still runs: keep the operands.
  tfr_tensor_retain(lhs);
  tfr_tensor_retain(d.rhs);
  temp(f, lhs);
  temp(f, d.rhs);
  tfr_dot_plan *plan = (tfr_dot_plan *)(void *)&sentinel_object;
  tfr_status st;
  if (byte(f) % 3 || !lhs || !d.rhs) {
    st = tfr_dot_plan_create_like(f->sa, lhs, d.rhs, byte(f) % 32 ? &d.c : NULL, &plan);
  } else {
    // From shapes: the tensors' shapes, sometimes with random strides or dtype.
    int64_t ls[CAPA], rs[CAPA];
    int rl = tfr_tensor_rank(lhs), rr = tfr_tensor_rank(d.rhs);
    for (int k = 0; k < rl; k++) ls[k] = stride_of(f);
    for (int k = 0; k < rr; k++) rs[k] = stride_of(f);
    unsigned b = byte(f);
    tfr_dtype dt = b % 4 ? tfr_tensor_dtype(lhs) : dtype_of(f);
    st = tfr_dot_plan_create(f->sa, dt, rl, tfr_tensor_shape(lhs), b & 4 ? ls : NULL, rr,
                             tfr_tensor_shape(d.rhs), b & 8 ? rs : NULL, &d.c, &plan);
  }
  check_status(st, TFR_ERR_NO_SESSION);
  if (st != TFR_OK) {
    if (plan) FAIL();  // NULL on error
    return;
  }
  if (!f->sa) FAIL();
  int prank = tfr_dot_plan_result_rank(plan);
  if (prank < 0 || prank > TFR_MAX_RANK || !tfr_dtype_get_info(tfr_dot_plan_dtype(plan))) FAIL();
  double work, out_n;
  dot_estimate_tensors(lhs, d.rhs, &d.c, &work, &out_n);
  if (out_n != numel_est(prank, tfr_dot_plan_result_shape(plan))) FAIL();
  unsigned steps = 1 + byte(f) % 4;
  for (unsigned i = 0; i < steps; i++) {
    tfr_tensor *a = byte(f) % 4 ? lhs : pick(f), *b = byte(f) % 4 ? d.rhs : pick(f);
    double w2, o2;
    dot_estimate_tensors(a, b, &d.c, &w2, &o2);
    if (!affordable(fmax(w2, work), out_n)) continue;
    switch (byte(f) % 5) {
      case 0:
      case 1: {
        tfr_tensor *out = SENTINEL;
        f->null_out = byte(f) == 0xFE;
        st = tfr_dot_plan_execute(f->sa, plan, a, b, OUT);
        if (st == TFR_OK && !f->null_out &&
            (tfr_tensor_rank(out) != prank || nel(out) != out_n ||
             (prank && memcmp(tfr_tensor_shape(out), tfr_dot_plan_result_shape(plan),
                              (size_t)prank * sizeof(int64_t)))))
          FAIL();
        result(f, st, f->null_out ? NULL : out, true, TFR_OK);
        f->null_out = false;
        break;
      }
      case 2: {
        if (out_n > WORK_CAP) break;
        tfr_tensor *out =
            byte(f) % 4 ? zeros(f, tfr_dot_plan_dtype(plan), prank, tfr_dot_plan_result_shape(plan))
                        : pick(f);
        if (!into_affordable(w2, out)) break;
        unsigned char alpha[16], beta[16];
        tfr_dtype dt = tfr_dot_plan_dtype(plan);
        const void *pa = scalar_bytes(f, dt, alpha), *pb = scalar_bytes(f, dt, beta);
        snapshot s = take_snapshot(out);
        check_into(f, tfr_dot_plan_execute_accumulate(f->sa, plan, a, b, pa, pb, out), out, &s);
        break;
      }
      case 3: {
        tfr_dot_operand which = (tfr_dot_operand)(byte(f) % 3);
        st = tfr_dot_plan_pack(f->sa, plan, which, which == TFR_DOT_LHS ? a : b);
        check_status(st, TFR_OK);
        break;
      }
      default:
        tfr_dot_plan_unpack(plan, (tfr_dot_operand)(byte(f) % 3));
        break;
    }
  }
  tfr_dot_plan_release(plan);
}

// ---------------------------------------------------------------------------
// Indexing
// ---------------------------------------------------------------------------

// `rank` rank-0 index tensors (start indices), values from the input.
static void start_indices(fz *f, int rank, const tfr_tensor **starts) {
  tfr_dtype dt = index_dtype(f);
  unsigned style = byte(f) % 4;
  for (int k = 0; k < rank && k < CAPA; k++) {
    unsigned b = byte(f);
    if (b == 0xFF)
      starts[k] = NULL;
    else if (b == 0xFE)
      starts[k] = fresh(f, index_dtype(f), 0, NULL, style);
    else if (b == 0xFD)
      starts[k] = pick(f);
    else
      starts[k] = fresh(f, dt, 0, NULL, style);
  }
}

static void op_dynamic_slice(fz *f) {
  tfr_tensor *x = pick(f);
  int rank = x ? tfr_tensor_rank(x) : 0;
  const int64_t *sh = x ? tfr_tensor_shape(x) : NULL;
  const tfr_tensor *starts[CAPA] = {NULL};
  start_indices(f, rank, starts);
  tfr_tensor *out = SENTINEL;
  tfr_status st;
  if (byte(f) % 2) {
    int64_t sizes[CAPA] = {0};
    for (int k = 0; k < rank; k++) {
      unsigned b = byte(f);
      int64_t m = sh[k] < 4 ? sh[k] : 4;
      sizes[k] = b < 240 ? (int64_t)(b % (unsigned)(m + 1)) : ival(f);
    }
    double m = numel_est(rank, sizes);
    if (!affordable(m, m)) return;
    st = tfr_dynamic_slice(f->sa, x, starts, sizes, OUT);
    if (st == TFR_OK && !f->null_out && nel(out) != m) FAIL();
  } else {
    // The update: a fresh tensor no larger than x, or any pool tensor.
    tfr_tensor *update;
    if (x && byte(f) % 4) {
      int64_t ushape[CAPA];
      for (int k = 0; k < rank; k++) {
        int64_t m = sh[k] < 3 ? sh[k] : 3;
        ushape[k] = (int64_t)(byte(f) % (unsigned)(m + 1));
      }
      update = fresh(f, byte(f) % 8 ? tfr_tensor_dtype(x) : dtype_of(f), rank, ushape, byte(f) % 4);
    } else {
      update = pick(f);
    }
    double n = nel(x);
    if (!affordable(n + nel(update), n)) return;
    st = tfr_dynamic_update_slice(f->sa, x, update, starts, OUT);
    if (st == TFR_OK && !f->null_out && !same_shape(out, x)) FAIL();
  }
  result(f, st, f->null_out ? NULL : out, true, TFR_OK);
}

static void op_pad(fz *f) {
  tfr_tensor *x = pick(f);
  int rank = x ? tfr_tensor_rank(x) : 0;
  const int64_t *sh = x ? tfr_tensor_shape(x) : NULL;
  tfr_tensor *value = scalar_arg(f, x ? tfr_tensor_dtype(x) : TFR_F32);
  int64_t lo[CAPA] = {0}, hi[CAPA] = {0}, in[CAPA] = {0};
  double m = 1;
  for (int k = 0; k < rank; k++) {
    unsigned b = byte(f);
    lo[k] = b < 240 ? (int64_t)(b % 5) - 1 : ival(f);
    b = byte(f);
    hi[k] = b < 240 ? (int64_t)(b % 5) - 1 : ival(f);
    b = byte(f);
    in[k] = b < 240 ? (int64_t)(b % 3) : ival(f);
    double d = (double)sh[k];
    double e = (double)lo[k] + d + fmax(d - 1, 0) * (double)in[k] + (double)hi[k];
    m *= e > 0 ? e : 0;
  }
  unsigned nulls = byte(f);
  if (!affordable(m + nel(x), m)) return;
  tfr_tensor *out = SENTINEL;
  tfr_status st = tfr_pad(f->sa, x, value, nulls == 1 ? NULL : lo, nulls == 2 ? NULL : hi,
                          nulls == 3 ? NULL : in, OUT);
  result(f, st, f->null_out ? NULL : out, true, TFR_OK);
}

static void op_concatenate(fz *f) {
  tfr_tensor *first = pick(f);
  int rank = first ? tfr_tensor_rank(first) : 0;
  int dim = to_int(axis(f, rank));
  unsigned b = byte(f);
  int n = b < 250 ? 1 + (int)(b % 4) : b == 255 ? -1 : 0;
  const tfr_tensor *inputs[4] = {first, NULL, NULL, NULL};
  double total = nel(first);
  for (int i = 1; i < n; i++) {
    // Mostly the first's shape with another extent along `dim`.
    if (first && dim >= 0 && dim < rank && byte(f) % 4) {
      int64_t shape[CAPA];
      memcpy(shape, tfr_tensor_shape(first), (size_t)rank * sizeof(int64_t));
      shape[dim] = (int64_t)(byte(f) % 4);
      inputs[i] =
          fresh(f, byte(f) % 8 ? tfr_tensor_dtype(first) : dtype_of(f), rank, shape, byte(f) % 4);
    } else {
      inputs[i] = pick(f);
    }
    total += nel(inputs[i]);
  }
  if (!affordable(total, total)) return;
  tfr_tensor *out = SENTINEL;
  tfr_status st = tfr_concatenate(f->sa, n, n > 0 ? inputs : NULL, dim, OUT);
  if (st == TFR_OK && !f->null_out && nel(out) != total) FAIL();
  result(f, st, f->null_out ? NULL : out, true, TFR_OK);
}

// The batch shape of gather/scatter indices: `sb` extents, the one at
// position `pb` (when >= 0) equal to `batch_extent`; then the index vector
// dim inserted (extent nidx) or implicit. Returns the indices' rank.
static int indices_shape(fz *f, int sb, int pb, int64_t batch_extent, int nidx, int64_t *ivd,
                         int64_t *ishape, int64_t *bshape) {
  for (int i = 0; i < sb; i++) bshape[i] = i == pb ? batch_extent : (int64_t)(byte(f) % 4);
  bool implicit = nidx == 1 && byte(f) % 2;
  int v = implicit ? sb : (int)(byte(f) % (unsigned)(sb + 1));
  int q = implicit ? sb : sb + 1;
  for (int i = 0, j = 0; i < q; i++) ishape[i] = !implicit && i == v ? nidx : bshape[j++];
  *ivd = v;
  return q;
}

// Batching dim choice and shuffled candidate dims shared by gather and scatter.
static int pick_dims(fz *f, int r, bool *batch, int64_t *bd, int64_t *cand, int *ncand) {
  int nb = r > 0 && byte(f) % 4 == 0 ? 1 : 0;
  for (int d = 0; d < r; d++) batch[d] = false;
  if (nb) {
    *bd = byte(f) % (unsigned)r;
    batch[*bd] = true;
  }
  *ncand = 0;
  for (int d = 0; d < r; d++)
    if (!batch[d]) cand[(*ncand)++] = d;
  for (int k = *ncand - 1; k > 0; k--) {
    int j = (int)(byte(f) % (unsigned)(k + 1));
    int64_t t = cand[k];
    cand[k] = cand[j];
    cand[j] = t;
  }
  return nb;
}

// Sometimes breaks one of `n` arrays or counts of dimension numbers.
static void corrupt(fz *f, int n, int64_t **arrays, int **counts, int r) {
  unsigned b = byte(f);
  if (b % 6 != 0) return;
  unsigned which = (b >> 3) % (unsigned)n;
  if (b & 0x80)
    *counts[which] = count_of(f, *counts[which] + 1);
  else
    arrays[which][byte(f) % 4] = axis(f, r + 1);
}

static void op_gather(fz *f) {
  tfr_tensor *x = pick(f);
  int r = x ? tfr_tensor_rank(x) : 0;
  const int64_t *sh = x ? tfr_tensor_shape(x) : NULL;
  int64_t offset[CAPA] = {0}, collapsed[CAPA] = {0}, obatch[CAPA] = {0}, ibatch[CAPA] = {0},
          sim[CAPA] = {0}, sizes[CAPA] = {0}, cand[CAPA], ishape[CAPA], bshape[CAPA];
  bool batch[CAPA], coll[CAPA] = {false};
  int64_t bd = 0;
  int ncand;
  int nb = pick_dims(f, r, batch, &bd, cand, &ncand);
  obatch[0] = bd;
  int nc = 0;
  for (int d = 0; d < r; d++)
    if (!batch[d] && byte(f) % 3 == 0) {
      coll[d] = true;
      collapsed[nc++] = d;
    }
  int nidx = (int)(byte(f) % (unsigned)((ncand < 3 ? ncand : 3) + 1));
  for (int i = 0; i < nidx; i++) sim[i] = cand[i];
  double slice_n = 1;
  for (int d = 0; d < r; d++) {
    int64_t m = sh[d] < 4 ? sh[d] : 4;
    if (batch[d] || coll[d]) m = m < 1 ? m : 1;
    unsigned b = byte(f);
    sizes[d] = b < 240 ? (batch[d] || coll[d] ? m : (int64_t)(b % (unsigned)(m + 1))) : ival(f);
    slice_n *= sizes[d] > 1 ? (double)sizes[d] : 1;
  }
  int sb = (int)(byte(f) % 3) + nb;
  int pb = nb ? (int)(byte(f) % (unsigned)sb) : -1;
  tfr_gather_config c = {0};
  int q = indices_shape(f, sb, pb, nb ? sh[bd] : 0, nidx, &c.index_vector_dim, ishape, bshape);
  ibatch[0] = pb < c.index_vector_dim ? pb : pb + 1;
  int nofs = r - nc - nb;
  subset_of(f, sb + nofs, nofs, offset);
  tfr_tensor *idx = byte(f) % 8 ? fresh(f, index_dtype(f), q, ishape, 3) : pick(f);
  c.num_offset_dims = nofs;
  c.offset_dims = offset;
  c.num_collapsed_slice_dims = nc;
  c.collapsed_slice_dims = collapsed;
  c.num_operand_batching_dims = nb;
  c.operand_batching_dims = obatch;
  c.num_start_indices_batching_dims = nb;
  c.start_indices_batching_dims = ibatch;
  c.num_start_index_map = nidx;
  c.start_index_map = sim;
  c.slice_sizes = sizes;
  c.indices_are_sorted = byte(f) % 2;
  int64_t *arrays[] = {offset, collapsed, obatch, ibatch, sim};
  int *counts[] = {&c.num_offset_dims, &c.num_collapsed_slice_dims, &c.num_operand_batching_dims,
                   &c.num_start_indices_batching_dims, &c.num_start_index_map};
  corrupt(f, 5, arrays, counts, r);
  if (byte(f) % 16 == 0) c.index_vector_dim = axis(f, q + 1);
  // The result: one slice per index vector (every indices axis counted).
  double batches = 1;
  for (int k = 0; idx && k < tfr_tensor_rank(idx); k++) {
    int64_t e = tfr_tensor_shape(idx)[k];
    batches *= e > 1 ? (double)e : 1;
  }
  double m = batches * slice_n;
  if (!affordable(m + nel(idx), m)) return;
  tfr_tensor *out = SENTINEL;
  tfr_status st = tfr_gather(f->sa, x, idx, byte(f) % 32 ? &c : NULL, OUT);
  result(f, st, f->null_out ? NULL : out, true, TFR_OK);
}

static void op_scatter(fz *f) {
  tfr_tensor *x = pick(f);
  int r = x ? tfr_tensor_rank(x) : 0;
  const int64_t *sh = x ? tfr_tensor_shape(x) : NULL;
  tfr_dtype dt = x ? tfr_tensor_dtype(x) : TFR_F32;
  int64_t uwd[CAPA] = {0}, inserted[CAPA] = {0}, ibatch[CAPA] = {0}, sbatch[CAPA] = {0},
          sdod[CAPA] = {0}, window[CAPA] = {0}, cand[CAPA], ishape[CAPA], bshape[CAPA],
          ushape[CAPA] = {0};
  bool batch[CAPA];
  int64_t bd = 0;
  int ncand;
  int nb = pick_dims(f, r, batch, &bd, cand, &ncand);
  ibatch[0] = bd;
  int nins = 0, nw = 0;
  for (int d = 0; d < r; d++) {
    if (batch[d]) continue;
    if (byte(f) % 3 == 0) {
      inserted[nins++] = d;
    } else {
      int64_t m = sh[d] < 4 ? sh[d] : 4;
      window[nw++] = (int64_t)(byte(f) % (unsigned)(m + 1));
    }
  }
  int nidx = (int)(byte(f) % (unsigned)((ncand < 3 ? ncand : 3) + 1));
  for (int i = 0; i < nidx; i++) sdod[i] = cand[i];
  int sb = (int)(byte(f) % 3) + nb;
  int pb = nb ? (int)(byte(f) % (unsigned)sb) : -1;
  tfr_scatter_config c = {0};
  int q = indices_shape(f, sb, pb, nb ? sh[bd] : 0, nidx, &c.index_vector_dim, ishape, bshape);
  sbatch[0] = pb < c.index_vector_dim ? pb : pb + 1;
  int u = sb + nw;
  subset_of(f, u, nw, uwd);
  for (int k = 0, iw = 0, ib = 0; k < u; k++)
    ushape[k] = iw < nw && uwd[iw] == k ? window[iw++] : bshape[ib++];
  tfr_tensor *idx = byte(f) % 8 ? fresh(f, index_dtype(f), q, ishape, 3) : pick(f);
  tfr_tensor *upd =
      byte(f) % 8 ? fresh(f, byte(f) % 8 ? dt : dtype_of(f), u, ushape, byte(f) % 4) : pick(f);
  unsigned b = byte(f);
  c.combiner = b < 250 ? (tfr_scatter_combiner)(b % 5)
                       : (tfr_scatter_combiner)(b == 255 ? -1 : 5 + (int)(b % 3));
  c.num_update_window_dims = nw;
  c.update_window_dims = uwd;
  c.num_inserted_window_dims = nins;
  c.inserted_window_dims = inserted;
  c.num_input_batching_dims = nb;
  c.input_batching_dims = ibatch;
  c.num_scatter_indices_batching_dims = nb;
  c.scatter_indices_batching_dims = sbatch;
  c.num_scatter_dims_to_operand_dims = nidx;
  c.scatter_dims_to_operand_dims = sdod;
  c.indices_are_sorted = byte(f) % 2;
  c.unique_indices = byte(f) % 2;
  int64_t *arrays[] = {uwd, inserted, ibatch, sbatch, sdod};
  int *counts[] = {&c.num_update_window_dims, &c.num_inserted_window_dims,
                   &c.num_input_batching_dims, &c.num_scatter_indices_batching_dims,
                   &c.num_scatter_dims_to_operand_dims};
  corrupt(f, 5, arrays, counts, r);
  if (byte(f) % 16 == 0) c.index_vector_dim = axis(f, q + 1);
  double n = nel(x);
  if (!affordable(n + nel(idx) + nel(upd), n)) return;
  tfr_tensor *out = SENTINEL;
  tfr_status st = tfr_scatter(f->sa, x, idx, upd, byte(f) % 32 ? &c : NULL, OUT);
  if (st == TFR_OK && !f->null_out && (!same_shape(out, x) || tfr_tensor_dtype(out) != dt)) FAIL();
  result(f, st, f->null_out ? NULL : out, true, TFR_OK);
}

// ---------------------------------------------------------------------------
// Windows
// ---------------------------------------------------------------------------

typedef struct window_args {
  int64_t dims[CAPA], strides[CAPA], base[CAPA], wdil[CAPA], pad[2 * CAPA];
  const int64_t *pdims, *pstrides, *pbase, *pwdil, *ppad;
  double windows[CAPA];  // windows per axis (for a valid call)
  double out, work;
} window_args;

static int64_t window_value(fz *f, int64_t lo, unsigned spread) {
  unsigned b = byte(f);
  return b < 240 ? lo + (int64_t)(b % spread) : ival(f);
}

// Window arguments for an operand of shape (r, sh) and estimates of the
// result size and work (windows times window size, plus the padded operand).
static void window_args_of(fz *f, int r, const int64_t *sh, bool dilations, window_args *w) {
  for (int k = 0; k < r; k++) {
    w->dims[k] = window_value(f, 1, 3);
    w->strides[k] = window_value(f, 1, 3);
    w->base[k] = dilations ? window_value(f, 1, 2) : 1;
    w->wdil[k] = dilations ? window_value(f, 1, 2) : 1;
    w->pad[2 * k] = window_value(f, dilations ? -1 : 0, 3);
    w->pad[2 * k + 1] = window_value(f, dilations ? -1 : 0, 3);
  }
  unsigned nulls = byte(f);
  w->pdims = nulls == 0xFF ? NULL : w->dims;
  w->pstrides = nulls & 1 ? NULL : w->strides;
  w->pbase = nulls & 2 ? NULL : w->base;
  w->pwdil = nulls & 4 ? NULL : w->wdil;
  w->ppad = nulls & 8 ? NULL : w->pad;
  double out = 1, wsize = 1, padded_n = 1;
  for (int k = 0; k < r; k++) {
    double d = (double)sh[k];
    double bdil = w->pbase ? fmax((double)w->base[k], 1) : 1;
    double wdil = w->pwdil ? fmax((double)w->wdil[k], 1) : 1;
    double lo = w->ppad ? (double)w->pad[2 * k] : 0, hi = w->ppad ? (double)w->pad[2 * k + 1] : 0;
    double padded = (d > 0 ? (d - 1) * bdil + 1 : 0) + lo + hi;
    double wd = fmax((double)w->dims[k], 1);
    double dw = (wd - 1) * wdil + 1;
    double s = w->pstrides ? fmax((double)w->strides[k], 1) : 1;
    double cnt = padded <= 0 || padded < dw ? 0 : floor((padded - dw) / s) + 1;
    w->windows[k] = cnt;
    out *= cnt;
    wsize *= wd;
    padded_n *= fmax(padded, 0);
  }
  w->out = out;
  w->work = out * wsize + padded_n;
}

static tfr_reduce_combiner combiner_of(fz *f) {
  unsigned c = byte(f);
  return c < 250 ? (tfr_reduce_combiner)(c % 7)
                 : (tfr_reduce_combiner)(c == 255 ? -1 : 7 + (int)(c % 3));
}

static void op_reduce_window(fz *f) {
  tfr_tensor *x = pick(f);
  int r = x ? tfr_tensor_rank(x) : 0;
  tfr_dtype dt = x ? tfr_tensor_dtype(x) : TFR_F32;
  tfr_reduce_combiner comb = combiner_of(f);
  tfr_tensor *init = scalar_arg(f, dt);
  window_args w;
  window_args_of(f, r, x ? tfr_tensor_shape(x) : NULL, true, &w);
  if (!affordable(w.work + nel(x), w.out)) return;
  tfr_tensor *out = SENTINEL;
  tfr_status st =
      tfr_reduce_window(f->sa, x, init, comb, w.pdims, w.pstrides, w.pbase, w.pwdil, w.ppad, OUT);
  if (st == TFR_OK && !f->null_out && nel(out) != w.out) FAIL();
  result(f, st, f->null_out ? NULL : out, true, TFR_OK);
}

static void op_select_and_scatter(fz *f) {
  tfr_tensor *x = pick(f);
  int r = x ? tfr_tensor_rank(x) : 0;
  tfr_dtype dt = x ? tfr_tensor_dtype(x) : TFR_F32;
  unsigned b = byte(f);
  tfr_compare_direction dir = b < 250 ? (tfr_compare_direction)(b % 6)
                                      : (tfr_compare_direction)(b == 255 ? -1 : 6 + (int)(b % 3));
  tfr_reduce_combiner comb = combiner_of(f);
  tfr_tensor *init = scalar_arg(f, dt);
  window_args w;
  window_args_of(f, r, x ? tfr_tensor_shape(x) : NULL, false, &w);
  // The source: the shape of the windows, or any pool tensor.
  tfr_tensor *source = NULL;
  if (byte(f) % 4 && w.out <= WORK_CAP) {
    int64_t shape[CAPA];
    for (int k = 0; k < r; k++)  // (one axis may have very many windows when another has none)
      shape[k] = w.windows[k] < 1e18 ? (int64_t)w.windows[k] : INT64_C(1) << 60;
    source = fresh(f, byte(f) % 8 ? dt : dtype_of(f), r, shape, byte(f) % 4);
  } else {
    source = pick(f);
  }
  double n = nel(x);
  if (!affordable(w.work + n + nel(source), n)) return;
  tfr_tensor *out = SENTINEL;
  tfr_status st =
      tfr_select_and_scatter(f->sa, x, source, init, dir, comb, w.pdims, w.pstrides, w.ppad, OUT);
  if (st == TFR_OK && !f->null_out && (!same_shape(out, x) || tfr_tensor_dtype(out) != dt)) FAIL();
  result(f, st, f->null_out ? NULL : out, true, TFR_OK);
}

// ---------------------------------------------------------------------------
// einsum, fusion, .npy
// ---------------------------------------------------------------------------

static void op_einsum(fz *f) {
  int n = 1 + (int)(byte(f) % 3);
  const tfr_tensor *ops[3];
  int ranks[3];
  const int64_t *shapes[3];
  int32_t labels[3][CAPA];
  memset(labels, 0, sizeof labels);
  const int32_t *lp[3];
  char expr[512];
  size_t len = 0;
  static const char *const odd[] = {".", "-", ">", " ", ",", "A", "\xC3\xA9", "\xFF", "0", "..."};
  for (int i = 0; i < n; i++) {
    ops[i] = pick(f);
    ranks[i] = ops[i] ? tfr_tensor_rank(ops[i]) : 0;
    shapes[i] = ops[i] ? tfr_tensor_shape(ops[i]) : NULL;
    lp[i] = labels[i];
    if (i) expr[len++] = ',';
    unsigned e = byte(f);
    int nl = ranks[i];
    if (e % 8 == 0 && nl > 0) {  // an ellipsis for the first 1..rank axes
      memcpy(expr + len, "...", 3);
      len += 3;
      nl -= 1 + (int)(byte(f) % (unsigned)nl);
    } else if (e % 8 == 1) {
      nl += (int)(byte(f) % 3) - 1;  // a label count that is wrong
    }
    for (int k = 0; k < nl && len < 400; k++) {
      unsigned b = byte(f);
      labels[i][k < CAPA ? k : 0] = (int32_t)(b % 6);
      if (b < 240) {
        expr[len++] = (char)('a' + b % 6);
      } else {
        const char *s = odd[b % 10];
        memcpy(expr + len, s, strlen(s));
        len += strlen(s);
      }
    }
  }
  unsigned o = byte(f) % 4;
  int32_t out_labels[4];
  int num_out = 0;
  if (o) {
    memcpy(expr + len, "->", 2);
    len += 2;
    if (o == 3) {
      memcpy(expr + len, "...", 3);
      len += 3;
    }
    num_out = (int)(byte(f) % 4);
    for (int k = 0; k < num_out; k++) {
      unsigned b = byte(f);
      out_labels[k] = (int32_t)(b % 7) - (b >= 240 ? 100 : 0);
      expr[len++] = (char)('a' + b % 7);
    }
  }
  expr[len] = '\0';
  tfr_einsum_options opt = {0};
  unsigned pk = byte(f) % 10;
  static const tfr_einsum_path_kind kinds[] = {
      TFR_EINSUM_PATH_GREEDY,    TFR_EINSUM_PATH_OPTIMAL, TFR_EINSUM_PATH_RANDOM_GREEDY,
      TFR_EINSUM_PATH_DP,        TFR_EINSUM_PATH_TREESA,  TFR_EINSUM_PATH_AUTO,
      TFR_EINSUM_PATH_PARTITION, TFR_EINSUM_PATH_GIVEN};
  opt.path_kind = pk < 8 ? kinds[pk] : pk == 8 ? (tfr_einsum_path_kind)99 : TFR_EINSUM_PATH_GREEDY;
  int32_t given[4] = {(int32_t)(byte(f) % 3), (int32_t)(byte(f) % 3), 0, 1};
  opt.path = given;
  opt.path_len = n - 1 - (byte(f) % 8 == 0);
  opt.trials = 2;
  opt.max_time = 0.01;
  opt.minimize = (tfr_einsum_minimize)(byte(f) % 5);
  opt.seed = byte(f);
  unsigned b = byte(f);
  if (b % 8 == 1) opt.subtree_size = (int)(b % 20) - 1;
  if (b % 8 == 2) opt.max_intermediate_elements = 1 + (int64_t)(b % 16);
  if (b % 8 == 3) opt.max_slice_elements = 1 + (double)(b % 64);
  tfr_einsum_plan *plan = (tfr_einsum_plan *)(void *)&sentinel_object;
  tfr_status st = byte(f) % 4 ? tfr_einsum_plan_create(expr, n, ranks, shapes, &opt, &plan)
                              : tfr_einsum_plan_create_labels(n, ranks, shapes, lp, num_out,
                                                              out_labels, &opt, &plan);
  check_status(st, TFR_OK);
  if (st != TFR_OK) {
    if (plan) FAIL();
    return;
  }
  const tfr_einsum_path_info *info = tfr_einsum_plan_info(plan);
  if (!info || info->num_steps != (n > 1 ? n - 1 : 0) || info->num_slices < 0) FAIL();
  unsigned how = byte(f);
  if (how % 8 == 1) {
    char sl[2] = {(char)('a' + byte(f) % 6), '\0'};
    check_status(tfr_einsum_plan_slice(plan, sl), TFR_OK);
  } else if (how % 8 == 2) {
    check_status(tfr_einsum_plan_slice_to_fit(plan, (double)(byte(f) % 32)), TFR_OK);
  }
  info = tfr_einsum_plan_info(plan);
  // Each slice costs its views and steps even when it has no flops (an
  // operand with an empty axis sliced 2^25 ways took minutes): the slices
  // count as work too.
  if (info->sliced_peak_live_elements <= WORK_CAP && info->peak_live_elements <= WORK_CAP &&
      info->sliced_flops <= 4 * WORK_CAP && info->flops <= 4 * WORK_CAP &&
      (double)info->num_slices <= WORK_CAP) {
    tfr_tensor *out = SENTINEL;
    switch ((how >> 3) % 4) {
      case 0:
        st = tfr_einsum_plan_execute(f->sa, plan, ops, OUT);
        break;
      case 1: {
        int64_t start[CAPA];
        int64_t k = (int64_t)(byte(f) % 4) - (byte(f) == 0xFF);
        st = tfr_einsum_plan_execute_slice(f->sa, plan, ops, k, start, OUT);
        break;
      }
      case 2: {
        tfr_einsum_profile *prof = (tfr_einsum_profile *)(void *)&sentinel_object;
        st = tfr_einsum_plan_profile(f->sa, plan, ops, &prof, OUT);
        if (st != TFR_OK && prof) FAIL();
        tfr_einsum_profile_free(st == TFR_OK ? prof : NULL);
        break;
      }
      default:
        opt.max_slice_elements = 0;
        st = tfr_einsum(f->sa, expr, n, ops, &opt, OUT);
        break;
    }
    result(f, st, f->null_out ? NULL : out, true, TFR_ERR_NO_SESSION);
  }
  tfr_einsum_plan_release(plan);
}

static void op_fusion(fz *f) {
  unsigned b = byte(f);
  int nin = b < 250 ? 1 + (int)(b % 3) : b == 255 ? 0 : TFR_FUSION_MAX_INPUTS + 1;
  tfr_tensor *inputs[TFR_FUSION_MAX_INPUTS + 1] = {NULL};
  tfr_dtype dts[TFR_FUSION_MAX_INPUTS + 1];
  inputs[0] = pick(f);
  dts[0] = inputs[0] ? tfr_tensor_dtype(inputs[0]) : dtype_of(f);
  for (int i = 1; i < nin; i++) {
    unsigned c = byte(f) % 4;
    // The first's dtype, or another one (a bool predicate, a scalar to broadcast).
    dts[i] = c == 0 ? dtype_of(f) : c == 1 ? TFR_BOOL : dts[0];
    inputs[i] = operand_like(f, inputs[0], dts[i]);
  }
  tfr_fusion_plan *plan = (tfr_fusion_plan *)(void *)&sentinel_object;
  tfr_status st = tfr_fusion_plan_create(nin, dts, &plan);
  check_status(st, TFR_OK);
  if (st != TFR_OK) {
    if (plan) FAIL();
    return;
  }
  // Inputs of rank 0 or smaller than the first may be broadcast.
  int r0 = inputs[0] ? tfr_tensor_rank(inputs[0]) : 0;
  for (int i = 1; i < nin; i++) {
    if (byte(f) % 4) continue;
    int64_t dims[CAPA] = {0};
    int nd = inputs[i] ? tfr_tensor_rank(inputs[i]) : 0;
    if (nd <= r0) subset_of(f, r0, nd, dims);
    check_status(tfr_fusion_plan_broadcast_input(plan, i, nd, dims), TFR_OK);
  }
  int nvalues = nin, ninstr = 1 + (int)(byte(f) % 4);
  for (int k = 0; k < ninstr; k++) {
    int v = -2, a = (int)(byte(f) % (unsigned)nvalues), c = (int)(byte(f) % (unsigned)nvalues),
        d = (int)(byte(f) % (unsigned)nvalues);
    if (byte(f) % 16 == 0) a = nvalues + (int)(byte(f) % 3) - 1;
    unsigned op = byte(f);
    switch (byte(f) % 5) {
      case 0:
        st = tfr_fusion_plan_unary(plan, (tfr_unary_op)(op % (TFR_UNARY_OP_COUNT + 1)), a, &v);
        break;
      case 1:
        st =
            tfr_fusion_plan_binary(plan, (tfr_binary_op)(op % (TFR_BINARY_OP_COUNT + 1)), a, c, &v);
        break;
      case 2:
        st = tfr_fusion_plan_compare(plan, (tfr_compare_direction)(op % 7), a, c, &v);
        break;
      case 3:
        st = tfr_fusion_plan_select(plan, a, c, d, &v);
        break;
      default:
        st = tfr_fusion_plan_clamp(plan, a, c, d, &v);
        break;
    }
    check_status(st, TFR_OK);
    if (st == TFR_OK) {
      if (v != nvalues) FAIL();  // values are numbered in order
      nvalues++;
    } else if (v != -2) {
      FAIL();  // nothing handed out on error
    }
  }
  int nout = 1 + (int)(byte(f) % 2);
  for (int k = 0; k < nout; k++) {
    unsigned c = byte(f);
    int v = c % 4 ? nvalues - 1 - k : (int)(c % (unsigned)(nvalues + 1));
    check_status(tfr_fusion_plan_output(plan, v), TFR_OK);
  }
  nout = tfr_fusion_plan_num_outputs(plan);
  if (nout < 0 || nout > TFR_FUSION_MAX_OUTPUTS) FAIL();
  for (int k = 0; k < nout; k++)
    if (!tfr_dtype_get_info(tfr_fusion_plan_output_dtype(plan, k))) FAIL();
  double work = 0;
  for (int i = 0; i < nin; i++) work = fmax(work, nel(inputs[i]));
  if (affordable(work * 4, work)) {
    tfr_tensor *outs[TFR_FUSION_MAX_OUTPUTS];
    for (int k = 0; k < TFR_FUSION_MAX_OUTPUTS; k++) outs[k] = SENTINEL;
    st = tfr_fusion_execute(f->sa, plan, (const tfr_tensor *const *)inputs, outs);
    check_status(st, TFR_ERR_NO_SESSION);
    for (int k = 0; k < nout; k++) {
      if (st != TFR_OK) {
        if (outs[k]) FAIL();
        continue;
      }
      if (!outs[k] || outs[k] == SENTINEL) FAIL();
      check_tensor(outs[k], true);
      if (tfr_tensor_dtype(outs[k]) != tfr_fusion_plan_output_dtype(plan, k)) FAIL();
      if (k == 0)
        store(f, f->dst, outs[k]);
      else
        tfr_tensor_release(outs[k]);
    }
  }
  tfr_fusion_plan_release(plan);
}

// A .npy image of a pool tensor (too small a buffer first, sometimes), read
// back: the same dtype, shape and bytes.
static void op_npy(fz *f) {
  tfr_tensor *t = pick(f);
  if (!t || nel(t) > WORK_CAP) return;
  size_t n = 0;
  tfr_status st = tfr_npy_save_buffer(t, NULL, 0, &n);
  check_status(st, TFR_OK);
  if (st != TFR_OK) return;
  unsigned char *img = malloc(n + 1);
  if (!img) return;
  size_t n2 = 0;
  if (byte(f) % 4 == 0 && n > 0) {
    st = tfr_npy_save_buffer(t, img, n - 1, &n2);
    if (st != TFR_ERR_INVALID_ARGUMENT || n2 != n) FAIL();
  }
  st = tfr_npy_save_buffer(t, img, n, &n2);
  check_status(st, TFR_OK);
  if (st != TFR_OK || n2 != n) FAIL();
  tfr_tensor *back = SENTINEL;
  st = tfr_npy_load_buffer(img, n, &back);
  if (st != TFR_OK) FAIL();
  size_t nb = tfr_tensor_nbytes(t);
  if (tfr_tensor_dtype(back) != tfr_tensor_dtype(t) || !same_shape(back, t) ||
      tfr_tensor_nbytes(back) != nb)
    FAIL();
  unsigned char *x = malloc(nb + 1), *y = malloc(nb + 1);
  if (x && y) {
    if (tfr_tensor_read(t, x, nb) != TFR_OK || tfr_tensor_read(back, y, nb) != TFR_OK) FAIL();
    if (memcmp(x, y, nb) != 0) FAIL();
  }
  free(x);
  free(y);
  free(img);
  check_tensor(back, true);
  store(f, f->dst, back);
}

// ---------------------------------------------------------------------------
// Sessions, names and the registry
// ---------------------------------------------------------------------------

static tfr_status nothing(tfr_session *s, void *ctx) {
  (void)s;
  (void)ctx;
  FAIL();  // never called: the thread already has a session
}

// A short NUL-terminated string from the input.
static void string_of(fz *f, char *buf, size_t cap) {
  size_t n = byte(f) % cap;
  for (size_t i = 0; i < n; i++) {
    unsigned b = byte(f);
    buf[i] = b ? (char)b : 'x';
  }
  buf[n] = '\0';
}

static void op_misc(fz *f) {
  char name[24];
  unsigned b = byte(f);
  int v = (int)(b % 40) - 4;
  switch (byte(f) % 8) {
    case 0:
      if (!tfr_status_string((tfr_status)v) || !tfr_dtype_name((tfr_dtype)v) ||
          !tfr_unary_op_name((tfr_unary_op)v) || !tfr_binary_op_name((tfr_binary_op)v) ||
          !tfr_einsum_path_kind_name((tfr_einsum_path_kind)v) ||
          !tfr_einsum_minimize_name((tfr_einsum_minimize)v) || !tfr_op_name((tfr_op_id)v))
        FAIL();
      if ((tfr_dtype_size((tfr_dtype)v) != 0) != (tfr_dtype_get_info((tfr_dtype)v) != NULL)) FAIL();
      break;
    case 1: {
      tfr_dtype dt = (tfr_dtype)77;
      string_of(f, name, sizeof name);
      tfr_status st = tfr_dtype_from_name(name, &dt);
      check_status(st, TFR_OK);
      if (st == TFR_OK && !tfr_dtype_get_info(dt)) FAIL();
      break;
    }
    case 2: {
      tfr_op_id id = 0;
      uint32_t mask = 0;
      bool yes = false;
      string_of(f, name, sizeof name);
      tfr_status st = tfr_op_lookup(byte(f) % 2 ? name : tfr_op_name((tfr_op_id)v), &id);
      check_status(st, TFR_OK);
      if (st != TFR_OK) id = (tfr_op_id)v;
      st = tfr_op_dtypes(id, &mask);
      check_status(st, TFR_OK);
      st = tfr_backend_supports(f->backend, id, (tfr_dtype)(byte(f) % 17), &yes);
      check_status(st, TFR_OK);
      if ((id < tfr_op_count()) != (st == TFR_OK)) FAIL();
      break;
    }
    case 3: {
      tfr_session *s2 = (tfr_session *)(void *)&sentinel_object;
      tfr_status st = tfr_session_begin(f->backend, &s2);
      if (st != TFR_ERR_SESSION_REENTERED || s2) FAIL();
      check_status(st, st);
      st = tfr_with_session(f->backend, nothing, NULL);
      if (st != TFR_ERR_SESSION_REENTERED) FAIL();
      check_status(st, st);
      break;
    }
    case 4: {
      void *h = NULL;
      tfr_backend_kind kind = (tfr_backend_kind)(byte(f) % 4);
      tfr_status st = tfr_session_native(f->sa, kind, &h);
      check_status(st, TFR_ERR_NO_SESSION);
      if ((st == TFR_OK) != (kind == TFR_BACKEND_CPU && f->sa)) FAIL();
      if (st == TFR_OK && (!h || ((tfr_cpu_native *)h)->num_threads != 1)) FAIL();
      st = tfr_session_synchronize(f->sa);
      check_status(st, TFR_ERR_NO_SESSION);
      if ((st == TFR_OK) != (f->sa != NULL)) FAIL();
      if (tfr_session_backend(f->s) != f->backend) FAIL();
      break;
    }
    case 5: {
      tfr_einsum_path_kind k;
      tfr_einsum_minimize m;
      string_of(f, name, sizeof name);
      check_status(tfr_einsum_path_kind_from_name(name, &k), TFR_OK);
      check_status(tfr_einsum_minimize_from_name(name, &m), TFR_OK);
      break;
    }
    default: {
      // Ops with NULL where a tensor belongs.
      tfr_tensor *out = SENTINEL;
      tfr_status st = tfr_unary(f->s, TFR_NEGATE, NULL, &out);
      if (st != TFR_ERR_INVALID_ARGUMENT || out) FAIL();
      check_status(st, TFR_OK);
      break;
    }
  }
}

// ---------------------------------------------------------------------------
// The driver
// ---------------------------------------------------------------------------

// The shared cpu backend (default buffer pool), or one of one thread
// without a pool, made on first use.
static tfr_backend *backend(bool pooled) {
  static tfr_backend *unpooled;
  if (pooled) return tfr_fuzz_cpu();
  if (!unpooled) {
    tfr_cpu_options o = {.num_threads = 1, .disable_pool = 1};
    if (tfr_backend_create_cpu(&o, &unpooled) != TFR_OK) FAIL();
  }
  return unpooled;
}

typedef void (*op_fn)(fz *);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const op_fn ops[] = {op_new,
                              op_view,
                              op_tensor_misc,
                              op_unary,
                              op_binary,
                              op_compare,
                              op_select,
                              op_clamp,
                              op_convert,
                              op_structural,
                              op_diagonal,
                              op_reduce,
                              op_dot,
                              op_dot_plan,
                              op_dynamic_slice,
                              op_pad,
                              op_concatenate,
                              op_gather,
                              op_scatter,
                              op_reduce_window,
                              op_select_and_scatter,
                              op_einsum,
                              op_fusion,
                              op_npy,
                              op_misc,
                              op_unary,
                              op_binary,
                              op_view,
                              op_new};
  if (size == 0) return 0;
  fz *f = calloc(1, sizeof *f);
  if (!f) return 0;
  f->p = data;
  f->n = size;
  f->rng = UINT64_C(0x2545F4914F6CDD1D) ^ size;
  f->backend = backend(byte(f) % 2);
  if (tfr_session_begin(f->backend, &f->s) != TFR_OK) FAIL();
  // Seed the pool.
  unsigned seeds = 1 + byte(f) % 4;
  f->sa = f->s;
  for (unsigned i = 0; i < seeds; i++) {
    f->dst = i;
    op_new(f);
    release_temps(f);
  }
  for (int step = 0; step < MAX_STEPS && f->at < f->n; step++) {
    unsigned op = byte(f) % (unsigned)(sizeof ops / sizeof ops[0]);
    unsigned mode = byte(f);
    f->sa = mode == 0xFF ? NULL : f->s;
    f->null_out = mode == 0xFE;
    f->into = mode % 4 == 1;
    f->dst = byte(f) % POOL;
    ops[op](f);
    release_temps(f);
  }
  for (int i = 0; i < POOL; i++) tfr_tensor_release(f->pool[i]);
  if (tfr_session_end(f->s) != TFR_OK) FAIL();
  free(f);
  return 0;
}
