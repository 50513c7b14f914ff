// The op registry (op_registry.def): the internal view. Core validation, the
// cpu kernel lists, the webgpu capability table, the conformance runner and
// `tenferro info --ops` read it; include/tenferro/registry.h is the public
// view (tfr_op_lookup, tfr_op_dtypes, tfr_backend_supports).
#ifndef TENFERRO_SRC_CORE_OP_REGISTRY_H_
#define TENFERRO_SRC_CORE_OP_REGISTRY_H_

#include <stdint.h>

#include "tenferro/dtype.h"
#include "tenferro/ops.h"
#include "tenferro/registry.h"

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

// The dtype groups of the DTYPES column (ops.h names them in its header).
#define TFR_DTG_BOOL TFR_DT_BOOL
#define TFR_DTG_INT TFR_DT_INT
#define TFR_DTG_SIGNED (TFR_DT_SINT | TFR_DT_FLOAT | TFR_DT_COMPLEX)
#define TFR_DTG_FLOAT TFR_DT_FLOAT
#define TFR_DTG_F32_F64 TFR_DT_F32_F64
#define TFR_DTG_FC (TFR_DT_FLOAT | TFR_DT_COMPLEX)
#define TFR_DTG_IF (TFR_DT_INT | TFR_DT_FLOAT)
#define TFR_DTG_BI (TFR_DT_BOOL | TFR_DT_INT)
#define TFR_DTG_BIF (TFR_DT_BOOL | TFR_DT_INT | TFR_DT_FLOAT)
#define TFR_DTG_NUMERIC TFR_DT_NUMERIC
#define TFR_DTG_ALL TFR_DT_ALL

// Internal op ids: TFR_OPID_<ID>, the row number of the .def (= tfr_op_id).
typedef enum tfr_opid {
#define X(ID, name, FAMILY, ORIGIN, arity, DTYPES, RESULT, TOL, param, attrs) TFR_OPID_##ID,
#include "core/op_registry.def"
#undef X
  TFR_OPID_COUNT
} tfr_opid;

typedef enum tfr_op_family {
  TFR_FAMILY_UNARY, TFR_FAMILY_BINARY, TFR_FAMILY_COMPARE, TFR_FAMILY_SELECT, TFR_FAMILY_CLAMP,
  TFR_FAMILY_CONVERT, TFR_FAMILY_STRUCTURAL, TFR_FAMILY_REDUCE, TFR_FAMILY_DOT,
  TFR_FAMILY_GATHER, TFR_FAMILY_SCATTER, TFR_FAMILY_WINDOW,
} tfr_op_family;

typedef enum tfr_op_origin {
  TFR_ORIGIN_SHLO, TFR_ORIGIN_CHLO, TFR_ORIGIN_BOTH, TFR_ORIGIN_TFR,
} tfr_op_origin;

// How the result dtype follows from the operand dtype.
typedef enum tfr_result_rule {
  TFR_RESULT_SAME = 0,     // the operand's dtype
  TFR_RESULT_REAL = 1,     // the real dtype of the same precision (c64 -> f32)
  TFR_RESULT_BOOL = 2,     // bool
  TFR_RESULT_COMPLEX = 3,  // the complex dtype of the same precision (f32 -> c64)
  TFR_RESULT_ATTR = 4,     // an argument of the op names it
} tfr_result_rule;

// Conformance tolerance classes (tools/tenferro/conformance/tolerance.c).
typedef enum tfr_tol_class {
  TFR_TOL_EXACT,
  TFR_TOL_FUNCTION,
  TFR_TOL_ACCUMULATE,
  TFR_TOL_COMPLEX_FUNCTION,  // function on complex operands, else exact
  TFR_TOL_INEXACT_FUNCTION,  // function on float and complex operands, else exact
  TFR_TOL_COMBINER,          // accumulate when the body adds or multiplies, else exact
} tfr_tol_class;

typedef struct tfr_op_info {
  const char *name;      // StableHLO / CHLO name
  tfr_op_family family;
  tfr_op_origin origin;
  int arity;             // -1: variadic
  uint32_t dtypes;       // TFR_DT_* mask of the operand dtypes the core accepts
  tfr_result_rule rule;
  tfr_tol_class tol;
  int param;             // enum value within the family
  const char *attrs;
} tfr_op_info;

// The row of `op`, or NULL for an id out of range.
const tfr_op_info *tfr_op_info_of(tfr_op_id op);
// The row of a unary / binary / reduce op by its public enum, or NULL.
const tfr_op_info *tfr_unary_info(tfr_unary_op op);
const tfr_op_info *tfr_binary_info(tfr_binary_op op);
const tfr_op_info *tfr_reduce_info(tfr_reduce_combiner combiner);
// The op id of a reduce combiner (TFR_OPID_REDUCE_ADD ...); -1 if invalid.
int tfr_reduce_opid(tfr_reduce_combiner combiner);

// The result dtype of `rule` applied to `dtype` (ATTR: `dtype`).
tfr_dtype tfr_result_dtype(tfr_result_rule rule, tfr_dtype dtype);

// Names of the enum values, for printing.
const char *tfr_op_family_name(tfr_op_family f);
const char *tfr_op_origin_name(tfr_op_origin o);
const char *tfr_tol_class_name(tfr_tol_class t);
const char *tfr_result_rule_name(tfr_result_rule r);

#endif  // TENFERRO_SRC_CORE_OP_REGISTRY_H_
