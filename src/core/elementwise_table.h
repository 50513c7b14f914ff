// The elementwise op table: for each op its StableHLO name, the dtypes it
// is defined for and the rule for the result dtype. Validation, the cpu
// kernels, the diff tests (and later WGSL variants and fusion) all read it.
#ifndef TENFERRO_SRC_CORE_ELEMENTWISE_TABLE_H_
#define TENFERRO_SRC_CORE_ELEMENTWISE_TABLE_H_

#include <stdint.h>

#include "tenferro/dtype.h"
#include "tenferro/ops.h"

// Dtype sets as bit masks over tfr_dtype values.
#define TFR_DT(d) (1u << (d))
#define TFR_DT_BOOL TFR_DT(TFR_BOOL)
#define TFR_DT_SINT (TFR_DT(TFR_I8) | TFR_DT(TFR_I16) | TFR_DT(TFR_I32) | TFR_DT(TFR_I64))
#define TFR_DT_UINT (TFR_DT(TFR_U8) | TFR_DT(TFR_U16) | TFR_DT(TFR_U32) | TFR_DT(TFR_U64))
#define TFR_DT_INT (TFR_DT_SINT | TFR_DT_UINT)
// The floats with a complex dtype of the same precision (complex(), ...).
#define TFR_DT_F32_F64 (TFR_DT(TFR_F32) | TFR_DT(TFR_F64))
#define TFR_DT_HALF (TFR_DT(TFR_F16) | TFR_DT(TFR_BF16))
#define TFR_DT_FLOAT (TFR_DT_F32_F64 | TFR_DT_HALF)
#define TFR_DT_COMPLEX (TFR_DT(TFR_C64) | TFR_DT(TFR_C128))
#define TFR_DT_NUMERIC (TFR_DT_INT | TFR_DT_FLOAT | TFR_DT_COMPLEX)
#define TFR_DT_ALL (TFR_DT_BOOL | TFR_DT_NUMERIC)

// How the result dtype follows from the operand dtype.
typedef enum tfr_result_rule {
  TFR_RESULT_SAME = 0,     // the operand's dtype
  TFR_RESULT_REAL = 1,     // the real dtype of the same precision (c64 -> f32)
  TFR_RESULT_BOOL = 2,     // bool
  TFR_RESULT_COMPLEX = 3,  // the complex dtype of the same precision (f32 -> c64)
} tfr_result_rule;

typedef struct tfr_ew_info {
  const char *name;     // StableHLO name
  uint32_t dtypes;      // TFR_DT_* mask of allowed operand dtypes
  tfr_result_rule rule;
} tfr_ew_info;

// Table rows, indexed by op value; NULL for an invalid value.
const tfr_ew_info *tfr_unary_info(tfr_unary_op op);
const tfr_ew_info *tfr_binary_info(tfr_binary_op op);

// The result dtype of `rule` applied to `dtype`.
tfr_dtype tfr_result_dtype(tfr_result_rule rule, tfr_dtype dtype);

#endif  // TENFERRO_SRC_CORE_ELEMENTWISE_TABLE_H_
