// The dtype table: the one place that describes every element type.
#include <string.h>

#include "core/core.h"
#include "tenferro/dtype.h"

static const tfr_dtype_info tfr_dtype_table[TFR_DTYPE_COUNT] = {
    {TFR_BOOL, "bool", "|b1", 1, TFR_KIND_BOOL, TFR_BOOL},
    {TFR_I32, "i32", "<i4", 4, TFR_KIND_INT, TFR_I32},
    {TFR_I64, "i64", "<i8", 8, TFR_KIND_INT, TFR_I64},
    {TFR_F32, "f32", "<f4", 4, TFR_KIND_FLOAT, TFR_F32},
    {TFR_F64, "f64", "<f8", 8, TFR_KIND_FLOAT, TFR_F64},
    {TFR_C64, "c64", "<c8", 8, TFR_KIND_COMPLEX, TFR_F32},
    {TFR_C128, "c128", "<c16", 16, TFR_KIND_COMPLEX, TFR_F64},
};

// numpy's names, accepted by tfr_dtype_from_name besides the short names.
static const char *const tfr_numpy_names[TFR_DTYPE_COUNT] = {
    "bool", "int32", "int64", "float32", "float64", "complex64", "complex128",
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
                   "dtype_from_name: unknown dtype \"%s\" (known: bool i32 i64 f32 f64 c64 "
                   "c128, or numpy's names)",
                   name);
}
