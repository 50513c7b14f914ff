// The webgpu capability table (capability.h): which dtypes each kernel family
// computes on, and from it which ops of the registry (src/core/op_registry.def)
// this backend runs on which dtypes. Every dtype gate of src/webgpu/ and
// tfr_backend_supports read this one table; tests/unit/test_backend_ops.c
// runs every op x dtype and checks that the answers agree with what the op
// returns.
//   * elementwise (elementwise.c, ew_kernel.c), convert (copy.c), iota
//     (structural.c), reductions (reduce.c), and the window ops (composed
//     of elementwise ops by the core): bool, i32, f32 and c64, the dtypes
//     WGSL computes on, f64 in software on its bits (common/f64.wgsl),
//     i64 and u64 on pairs of u32 words (common/u64.wgsl), exact, c128
//     on pairs of those f64 (common/c128.wgsl), and the narrow dtypes: u32,
//     i8, i16, u8, u16 (as i32 / u32, wrapped to their width) and f16, bf16
//     (in f32, each result rounded once: common/half.wgsl), exact but for
//     the analytic functions. On c128 the op table has add, subtract,
//     multiply, divide, negate, conj, real, imag, complex, abs, sign, sqrt,
//     rsqrt, compare, maximum, minimum, select, exp and log (common/math_c128.wgsl;
//     not the other analytic functions yet); reductions add and multiply.
//     An elementwise op runs where the op table (ew_table.c) has its
//     expression: on f64 the exact ops (arithmetic, sqrt, rsqrt, remainder,
//     comparisons, min/max, rounding, sign, select, clamp) and exp, expm1,
//     log, log1p, tanh, sinh, cosh, logistic, sin, cos, tan, asin, acos,
//     atan, atan2, asinh, acosh, atanh, cbrt (common/math_f64.wgsl), erf,
//     erfc (common/math_f64_erf.wgsl), power (common/math_f64_pow.wgsl),
//     not the special functions (lgamma, digamma, erf_inv, bessel_i1e).
//     Reductions on f64: add,
//     multiply, maximum, minimum (the combiners the registry has for f64);
//     on i64/u64 every op and combiner the registry has for them;
//   * dot_general (dot.c): f32, i32, c64, f64, i64, u64, c128, and the
//     narrow dtypes through converted i32 / f32 copies;
//   * reduce_precision (copy.c): f16, bf16, f32, f64 (on the bits);
//   * data movement (copy, transpose, slice, pad, ..., tril/triu by element
//     size in structural.c), gather and scatter with `replace`
//     (gather_scatter.c): every dtype, since they move bits; scatter's
//     add/multiply/maximum/minimum also on f64 (common/f64.wgsl, in the
//     cpu's order: bit for bit), i64 and u64 (32-bit words), c128 and the
//     narrow dtypes.
#include "webgpu/capability.h"

#include "core/op_registry.h"
#include "webgpu/ew_table.h"

// f32, i32, bool and c64: the dtypes WGSL computes on natively.
static bool tfr_wgpu_is_word_type(tfr_dtype dt) {
  return dt == TFR_F32 || dt == TFR_I32 || dt == TFR_BOOL || dt == TFR_C64;
}

// u32 (native) and i8, i16, u8, u16: packed, computed as i32 / u32 and
// wrapped to their width (wgsl_types.h, ew_table.c).
static bool tfr_wgpu_is_narrow_int(tfr_dtype dt) {
  return dt == TFR_U32 || dt == TFR_I8 || dt == TFR_I16 || dt == TFR_U8 || dt == TFR_U16;
}

// Those, f64 (common/f64.wgsl), i64 and u64 (common/u64.wgsl): the value
// types of the elementwise kernels.
static bool tfr_wgpu_is_value_type(tfr_dtype dt) {
  return tfr_wgpu_is_word_type(dt) || dt == TFR_F64 || dt == TFR_I64 || dt == TFR_U64 ||
         tfr_wgpu_is_narrow_int(dt) || dt == TFR_F16 || dt == TFR_BF16;
}

bool tfr_wgpu_dtype_computes(tfr_wgpu_family family, tfr_dtype dt) {
  if ((unsigned)dt >= TFR_DTYPE_COUNT) return false;
  switch (family) {
    case TFR_WGPU_ELEMENTWISE:
    case TFR_WGPU_CONVERT:
    case TFR_WGPU_REDUCE:
    case TFR_WGPU_IOTA: return tfr_wgpu_is_value_type(dt) || dt == TFR_C128;
    case TFR_WGPU_DOT:
      return dt == TFR_F32 || dt == TFR_I32 || dt == TFR_C64 || dt == TFR_F64 || dt == TFR_I64 ||
             dt == TFR_U64 || dt == TFR_C128 || tfr_wgpu_is_narrow_int(dt) || dt == TFR_F16 ||
             dt == TFR_BF16;
    case TFR_WGPU_REDUCE_PRECISION:
      return dt == TFR_F32 || dt == TFR_F64 || dt == TFR_F16 || dt == TFR_BF16;
    case TFR_WGPU_TRIANGLE:
    case TFR_WGPU_SCATTER_REPLACE: return true;  // bits, by element size
    case TFR_WGPU_SCATTER_ARITHMETIC:
    case TFR_WGPU_SCATTER_MINMAX: return tfr_wgpu_is_value_type(dt) || dt == TFR_C128;
  }
  return false;
}

// The kernel family that runs registry op `op` (for scatter: `replace`, the
// combiner every dtype has; for convert: a change of dtype).
static tfr_wgpu_family tfr_wgpu_family_of(const tfr_op_info *info, tfr_op_id op) {
  switch (info->family) {
    case TFR_FAMILY_CONVERT: return TFR_WGPU_CONVERT;
    case TFR_FAMILY_REDUCE: return TFR_WGPU_REDUCE;
    case TFR_FAMILY_DOT: return TFR_WGPU_DOT;
    case TFR_FAMILY_GATHER:
    case TFR_FAMILY_SCATTER: return TFR_WGPU_SCATTER_REPLACE;
    case TFR_FAMILY_STRUCTURAL:
      if (op == TFR_OPID_REDUCE_PRECISION) return TFR_WGPU_REDUCE_PRECISION;
      if (op == TFR_OPID_IOTA) return TFR_WGPU_IOTA;
      return TFR_WGPU_TRIANGLE;  // data movement: every dtype
    case TFR_FAMILY_UNARY:
    case TFR_FAMILY_BINARY:
    case TFR_FAMILY_COMPARE:
    case TFR_FAMILY_SELECT:
    case TFR_FAMILY_CLAMP:
    case TFR_FAMILY_WINDOW: break;
  }
  return TFR_WGPU_ELEMENTWISE;
}

// Whether the elementwise op table has the op of `info` (a unary, binary,
// compare, select or clamp row) on `dtype`: not every op on every dtype that
// elementwise kernels compute on (f64: not sin, cos, pow, ...).
static bool tfr_wgpu_has_expr(const tfr_op_info *info, tfr_dtype dtype) {
  int type = tfr_ew_type_of(dtype);
  switch (info->family) {
    case TFR_FAMILY_UNARY: return tfr_ew_expr_of(TFR_EW_UNARY, info->param, type) != NULL;
    case TFR_FAMILY_BINARY: return tfr_ew_expr_of(TFR_EW_BINARY, info->param, type) != NULL;
    case TFR_FAMILY_COMPARE: return tfr_ew_expr_of(TFR_EW_COMPARE, TFR_EQ, type) != NULL;
    case TFR_FAMILY_SELECT: return tfr_ew_expr_of(TFR_EW_SELECT, 0, type) != NULL;
    case TFR_FAMILY_CLAMP: return tfr_ew_expr_of(TFR_EW_CLAMP, 0, type) != NULL;
    default: return true;
  }
}

bool tfr_wgpu_supports(tfr_backend *b, tfr_op_id op, tfr_dtype dtype) {
  (void)b;
  const tfr_op_info *info = tfr_op_info_of(op);
  if (!info || (unsigned)dtype >= TFR_DTYPE_COUNT || !(info->dtypes & TFR_DT(dtype))) return false;
  tfr_wgpu_family family = tfr_wgpu_family_of(info, op);
  return tfr_wgpu_dtype_computes(family, dtype) &&
         (family != TFR_WGPU_ELEMENTWISE || tfr_wgpu_has_expr(info, dtype));
}
