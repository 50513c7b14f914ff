// The dtype table: the one place that describes every element type.
#include <string.h>

#include "core/core.h"
#include "core/half.h"
#include "tenferro/dtype.h"

static const tfr_dtype_info tfr_dtype_table[TFR_DTYPE_COUNT] = {
    {TFR_BOOL, "bool", "|b1", 1, TFR_KIND_BOOL, TFR_BOOL},
    {TFR_I32, "i32", "<i4", 4, TFR_KIND_INT, TFR_I32},
    {TFR_I64, "i64", "<i8", 8, TFR_KIND_INT, TFR_I64},
    {TFR_F32, "f32", "<f4", 4, TFR_KIND_FLOAT, TFR_F32},
    {TFR_F64, "f64", "<f8", 8, TFR_KIND_FLOAT, TFR_F64},
    {TFR_C64, "c64", "<c8", 8, TFR_KIND_COMPLEX, TFR_F32},
    {TFR_C128, "c128", "<c16", 16, TFR_KIND_COMPLEX, TFR_F64},
    {TFR_I8, "i8", "|i1", 1, TFR_KIND_INT, TFR_I8},
    {TFR_I16, "i16", "<i2", 2, TFR_KIND_INT, TFR_I16},
    {TFR_U8, "u8", "|u1", 1, TFR_KIND_UINT, TFR_U8},
    {TFR_U16, "u16", "<u2", 2, TFR_KIND_UINT, TFR_U16},
    {TFR_U32, "u32", "<u4", 4, TFR_KIND_UINT, TFR_U32},
    {TFR_U64, "u64", "<u8", 8, TFR_KIND_UINT, TFR_U64},
    {TFR_F16, "f16", "<f2", 2, TFR_KIND_FLOAT, TFR_F16},
    {TFR_BF16, "bf16", NULL, 2, TFR_KIND_FLOAT, TFR_BF16},
};

// numpy's names, accepted by tfr_dtype_from_name besides the short names.
static const char *const tfr_numpy_names[TFR_DTYPE_COUNT] = {
    "bool",  "int32",  "int64",  "float32", "float64", "complex64", "complex128", "int8",
    "int16", "uint8",  "uint16", "uint32",  "uint64",  "float16",   "bfloat16",
};

const tfr_dtype_info *tfr_dtype_get_info(tfr_dtype dtype) {
  if ((unsigned)dtype >= TFR_DTYPE_COUNT) return NULL;
  return &tfr_dtype_table[dtype];
}

const char *tfr_dtype_name(tfr_dtype dtype) {
  const tfr_dtype_info *info = tfr_dtype_get_info(dtype);
  return info ? info->name : "invalid";
}

size_t tfr_dtype_size(tfr_dtype dtype) {
  const tfr_dtype_info *info = tfr_dtype_get_info(dtype);
  return info ? info->size : 0;
}

tfr_status tfr_dtype_from_name(const char *name, tfr_dtype *out_dtype) {
  if (!name || !out_dtype)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "dtype_from_name: %s is NULL",
                     name ? "out_dtype" : "name");
  for (int i = 0; i < TFR_DTYPE_COUNT; i++) {
    if (strcmp(name, tfr_dtype_table[i].name) == 0 || strcmp(name, tfr_numpy_names[i]) == 0) {
      *out_dtype = tfr_dtype_table[i].dtype;
      return TFR_OK;
    }
  }
  return tfr_error(TFR_ERR_UNSUPPORTED_DTYPE,
                   "dtype_from_name: unknown dtype \"%s\" (known: bool i8 i16 i32 i64 u8 u16 "
                   "u32 u64 f16 bf16 f32 f64 c64 c128, or numpy's names)",
                   name);
}

void tfr_scalar_set(tfr_dtype dtype, double fv, uint64_t iv, unsigned char *bytes) {
  memset(bytes, 0, 16);
  switch (dtype) {
    case TFR_F32:
    case TFR_C64: {
      float v = (float)fv;
      memcpy(bytes, &v, sizeof v);
      return;
    }
    case TFR_F64:
    case TFR_C128: memcpy(bytes, &fv, sizeof fv); return;
    case TFR_F16: {
      uint16_t v = tfr_f64_to_f16(fv);
      memcpy(bytes, &v, sizeof v);
      return;
    }
    case TFR_BF16: {
      uint16_t v = tfr_f64_to_bf16(fv);
      memcpy(bytes, &v, sizeof v);
      return;
    }
    case TFR_BOOL: bytes[0] = iv != 0; return;
    case TFR_I8:
    case TFR_U8: bytes[0] = (uint8_t)iv; return;
    case TFR_I16:
    case TFR_U16: {
      uint16_t v = (uint16_t)iv;
      memcpy(bytes, &v, sizeof v);
      return;
    }
    case TFR_I32:
    case TFR_U32: {
      uint32_t v = (uint32_t)iv;
      memcpy(bytes, &v, sizeof v);
      return;
    }
    case TFR_I64:
    case TFR_U64: memcpy(bytes, &iv, sizeof iv); return;
  }
}

bool tfr_scalar_is_zero(tfr_dtype dtype, const unsigned char *bytes) {
  switch (dtype) {
    case TFR_F32:
    case TFR_C64: {
      float v[2] = {0, 0};
      memcpy(v, bytes, dtype == TFR_C64 ? sizeof v : sizeof v[0]);
      return v[0] == 0 && v[1] == 0;
    }
    case TFR_F64:
    case TFR_C128: {
      double v[2] = {0, 0};
      memcpy(v, bytes, dtype == TFR_C128 ? sizeof v : sizeof v[0]);
      return v[0] == 0 && v[1] == 0;
    }
    case TFR_F16:
    case TFR_BF16: {
      uint16_t v;
      memcpy(&v, bytes, sizeof v);
      return (v & 0x7fffu) == 0;
    }
    default: {
      size_t n = tfr_dtype_size(dtype);
      for (size_t i = 0; i < n; i++)
        if (bytes[i]) return false;
      return true;
    }
  }
}

uint64_t tfr_int_max_bits(tfr_dtype dtype) {
  const tfr_dtype_info *info = tfr_dtype_get_info(dtype);
  unsigned bits = (unsigned)(info->size * 8);
  uint64_t all = bits == 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1;
  return info->kind == TFR_KIND_INT ? all >> 1 : all;
}

uint64_t tfr_int_min_bits(tfr_dtype dtype) {
  return tfr_dtype_get_info(dtype)->kind == TFR_KIND_INT ? ~tfr_int_max_bits(dtype) : 0;
}
