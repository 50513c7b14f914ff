// tenferro/dtype.h: element types.
//
// One table (src/core/dtype.c) describes every dtype: its name, numpy's
// dtype string, its size and its kind. Complex values are stored interleaved
// (real part, then imaginary part), like C99 `float _Complex` and numpy.
// bool is stored as one byte, 0 or 1. f16 is IEEE 754 binary16 and bf16 the
// bfloat16 format (the upper half of a binary32: 8 exponent bits, 7 stored
// mantissa bits); both are stored as their 16-bit patterns, and the cpu
// backend computes on them in f32, rounding each result once (to nearest,
// ties to even). Unsigned integers wrap around like the signed ones.
#ifndef TENFERRO_DTYPE_H_
#define TENFERRO_DTYPE_H_

#include <stddef.h>

#include "tenferro/status.h"

#ifdef __cplusplus
extern "C" {
#endif

// Element types. New types are added at the end; values never change.
typedef enum tfr_dtype {
  TFR_BOOL = 0,  // 1 byte, 0 or 1
  TFR_I32 = 1,   // int32_t, two's complement
  TFR_I64 = 2,   // int64_t, two's complement
  TFR_F32 = 3,   // IEEE 754 binary32
  TFR_F64 = 4,   // IEEE 754 binary64
  TFR_C64 = 5,   // complex, two f32 (re, im)
  TFR_C128 = 6,  // complex, two f64 (re, im)
  TFR_I8 = 7,    // int8_t, two's complement
  TFR_I16 = 8,   // int16_t, two's complement
  TFR_U8 = 9,    // uint8_t
  TFR_U16 = 10,  // uint16_t
  TFR_U32 = 11,  // uint32_t
  TFR_U64 = 12,  // uint64_t
  TFR_F16 = 13,  // IEEE 754 binary16 (numpy float16), stored as its bits
  TFR_BF16 = 14, // bfloat16 (no numpy dtype), stored as its bits
} tfr_dtype;

// Number of dtypes; valid values are 0 .. TFR_DTYPE_COUNT - 1.
#define TFR_DTYPE_COUNT 15

// The kind of a dtype, as numpy's `dtype.kind`.
typedef enum tfr_dtype_kind {
  TFR_KIND_BOOL = 0,     // 'b'
  TFR_KIND_INT = 1,      // 'i' (signed integer)
  TFR_KIND_UINT = 2,     // 'u' (unsigned integer)
  TFR_KIND_FLOAT = 3,    // 'f'
  TFR_KIND_COMPLEX = 4,  // 'c'
} tfr_dtype_kind;

// One row of the dtype table.
typedef struct tfr_dtype_info {
  tfr_dtype dtype;
  const char *name;   // tenferro / StableHLO short name: "bool", "i32", "f64", "c128"
  const char *descr;  // numpy dtype string, little-endian: "|b1", "<i4", "<f8", "<c16";
                      // NULL for bf16, which numpy lacks (.npy load/save refuse it)
  size_t size;        // bytes per element
  tfr_dtype_kind kind;
  tfr_dtype real;     // the real dtype of the same precision (itself if not complex)
} tfr_dtype_info;

// Returns the table row of `dtype`, or NULL when `dtype` is not a valid value.
// Static storage.
TFR_API const tfr_dtype_info *tfr_dtype_get_info(tfr_dtype dtype);

// Returns the short name of `dtype` ("f32"), or "invalid" for an invalid value.
TFR_API const char *tfr_dtype_name(tfr_dtype dtype);

// Returns the element size in bytes of `dtype`, or 0 for an invalid value.
TFR_API size_t tfr_dtype_size(tfr_dtype dtype);

// Looks up a dtype by its short name ("f32", "u8", "bf16") or by a numpy
// name ("float32", "complex128", "int64", "uint8", "float16", "bool";
// "bfloat16" as ml_dtypes calls it).
//   name       NUL-terminated string.
//   out_dtype  receives the dtype.
// Errors: TFR_ERR_INVALID_ARGUMENT (NULL argument),
//         TFR_ERR_UNSUPPORTED_DTYPE (no dtype has that name).
TFR_API TFR_NODISCARD tfr_status tfr_dtype_from_name(const char *name, tfr_dtype *out_dtype);

#ifdef __cplusplus
}
#endif

#endif  // TENFERRO_DTYPE_H_
