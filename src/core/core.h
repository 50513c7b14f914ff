// Internal helpers shared by every layer: error reporting, checked size
// arithmetic, the host allocator. Not part of the public API.
#ifndef TENFERRO_SRC_CORE_CORE_H_
#define TENFERRO_SRC_CORE_CORE_H_

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tenferro/dtype.h"
#include "tenferro/status.h"

// Records a formatted message for the calling thread and returns `code`.
// Messages read "op: fact, fact" (see include/tenferro/status.h).
tfr_status tfr_error(tfr_status code, const char *fmt, ...) TFR_PRINTF(2, 3);

// Prefixes the thread's current message with "prefix: " (used where a lower
// layer's error is passed up with context) and returns `code`.
tfr_status tfr_error_prefix(tfr_status code, const char *prefix);

// Propagates a failure. Only for paths that hold no resources.
#define TFR_RETURN_IF_ERROR(expr)                   \
  do {                                              \
    tfr_status tfr_st_ = (expr);                    \
    if (tfr_st_ != TFR_OK) return tfr_st_;          \
  } while (0)

// Checked arithmetic: return false on overflow (result untouched then).
static inline bool tfr_mul_size(size_t a, size_t b, size_t *out) {
  return !__builtin_mul_overflow(a, b, out);
}
static inline bool tfr_add_size(size_t a, size_t b, size_t *out) {
  return !__builtin_add_overflow(a, b, out);
}
static inline bool tfr_mul_i64(int64_t a, int64_t b, int64_t *out) {
  return !__builtin_mul_overflow(a, b, out);
}
static inline bool tfr_add_i64(int64_t a, int64_t b, int64_t *out) {
  return !__builtin_add_overflow(a, b, out);
}

// The largest element count and byte size a tensor may have. Far beyond any
// machine's memory, but small enough that index arithmetic in int64 (element
// count times element size, offsets plus strides) can never overflow.
#define TFR_MAX_NUMEL (INT64_C(1) << 50)

// Host allocator. Every host allocation of the library goes through these,
// so tests can make the N-th allocation fail (tfr_alloc_fail_after) and show
// that error paths leak nothing. tfr_alloc_aligned returns 64-byte aligned
// memory (for tensor data); tfr_free / tfr_free_aligned accept NULL.
void *tfr_alloc(size_t nbytes);
void *tfr_calloc(size_t count, size_t size);
void *tfr_realloc(void *ptr, size_t nbytes);
void tfr_free(void *ptr);
void *tfr_alloc_aligned(size_t nbytes);
void tfr_free_aligned(void *ptr);
char *tfr_strdup(const char *s);

// One element of `dtype` written to `bytes` (16 bytes; the rest zeroed):
// floats get `fv` rounded once to the dtype, complex (fv, 0); bool and the
// integers the low bits of `iv` (two's complement: iv = (uint64_t)-1 is all
// bits set, INT8_MAX etc. as they are). Host byte order. (src/core/dtype.c)
void tfr_scalar_set(tfr_dtype dtype, double fv, uint64_t iv, unsigned char *bytes);
// Whether the element of `dtype` at `bytes` is zero (either sign; complex:
// both parts).
bool tfr_scalar_is_zero(tfr_dtype dtype, const unsigned char *bytes);
// The element of integer (or bool) dtype `dt` at `p` as an int64; u64
// values above INT64_MAX give INT64_MAX (start indices are clamped anyway).
static inline int64_t tfr_read_index(tfr_dtype dt, const void *p) {
  switch (dt) {
    case TFR_I8: return *(const int8_t *)p;
    case TFR_U8:
    case TFR_BOOL: return *(const uint8_t *)p;
    case TFR_I16: {
      int16_t v;
      memcpy(&v, p, sizeof v);
      return v;
    }
    case TFR_U16: {
      uint16_t v;
      memcpy(&v, p, sizeof v);
      return v;
    }
    case TFR_I32: {
      int32_t v;
      memcpy(&v, p, sizeof v);
      return v;
    }
    case TFR_U32: {
      uint32_t v;
      memcpy(&v, p, sizeof v);
      return v;
    }
    case TFR_U64: {
      uint64_t v;
      memcpy(&v, p, sizeof v);
      return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
    }
    default: {
      int64_t v;
      memcpy(&v, p, sizeof v);
      return v;
    }
  }
}

// The largest value of an integer dtype, as a bit pattern (INT8_MAX, ...,
// UINT64_MAX), and the smallest (INT8_MIN sign-extended to 64 bits, 0).
uint64_t tfr_int_max_bits(tfr_dtype dtype);
uint64_t tfr_int_min_bits(tfr_dtype dtype);

// Test hook: after `n` more successful allocations, every allocation fails
// until called again with n < 0 (the default: never fail). Process-wide.
void tfr_alloc_fail_after(long n);

#endif  // TENFERRO_SRC_CORE_CORE_H_
