// The elementwise op table of the webgpu backend: the value types of the
// elementwise kernels and one WGSL expression of the inputs a, b, c per (op,
// operand dtype), read by the one elementwise kernel generator (ew_kernel.c)
// for single ops and fused plans alike.
#ifndef TENFERRO_SRC_WEBGPU_EW_TABLE_H_
#define TENFERRO_SRC_WEBGPU_EW_TABLE_H_

#include "core/backend_impl.h"
#include "webgpu/wgsl_types.h"

typedef enum tfr_ew_type {
  TFR_EW_F32 = 0,
  TFR_EW_I32 = 1,
  TFR_EW_B8 = 2,
  TFR_EW_C64 = 3,
  TFR_EW_F64 = 4,  // vec2<u32>: the bits, computed on by common/f64.wgsl
  TFR_EW_I64 = 5,  // vec2<u32>(low word, high word), common/u64.wgsl
  TFR_EW_U64 = 6,  // the same words, unsigned
  TFR_EW_U32 = 7,  // u32, native
  TFR_EW_I8 = 8,   // i32, sign-extended (wgsl_types.h), wrapped to 8 bits
  TFR_EW_I16 = 9,  // i32, sign-extended, wrapped to 16 bits
  TFR_EW_U8 = 10,  // u32, zero-extended, wrapped to 8 bits
  TFR_EW_U16 = 11, // u32, zero-extended, wrapped to 16 bits
  TFR_EW_F16 = 12, // f32, each result rounded once to f16 (common/half.wgsl)
  TFR_EW_BF16 = 13, // f32, each result rounded once to bf16
  TFR_EW_C128 = 14, // vec4<u32>(real part's bits, imaginary part's bits), common/c128.wgsl
  TFR_EW_NTYPES = 15,
} tfr_ew_type;

// The WGSL types (wgsl_types.h) of a kernel value type.
const tfr_wgsl_type *tfr_ew_wgsl(int type);

// The kernel value type of a dtype, or -1 (no kernels for it).
int tfr_ew_type_of(tfr_dtype dt);

// Snippets an op expression needs (besides common/convert.wgsl and
// common/ew_exact.wgsl, which every elementwise kernel has).
enum {
  TFR_EW_LIB_F32 = 1,      // common/math_f32.wgsl (and common/u64.wgsl)
  TFR_EW_LIB_C64 = 2,      // common/math_c64.wgsl (and math_f32)
  TFR_EW_LIB_COMPLEX = 4,  // common/ew_complex.wgsl (needs math_c64)
  TFR_EW_LIB_SPECIAL = 8,  // common/math_special_f32.wgsl (and math_f32)
  TFR_EW_LIB_F64 = 16,     // common/u64.wgsl and common/f64.wgsl
  TFR_EW_LIB_U64 = 32,     // common/u64.wgsl (i64, u64)
  TFR_EW_LIB_C128 = 64,    // common/c128.wgsl (and u64, f64)
  TFR_EW_LIB_HALF = 128,   // common/half.wgsl (f16, bf16 operands or results)
  TFR_EW_LIB_MATH_F64 = 256,  // common/math_f64.wgsl (with TFR_EW_LIB_F64)
  TFR_EW_LIB_C128_STEPS = 512,  // common/c128_steps.wgsl (with TFR_EW_LIB_C128)
  TFR_EW_LIB_ERF_F64 = 1024,    // common/math_f64_erf.wgsl (with TFR_EW_LIB_MATH_F64)
  TFR_EW_LIB_POW_F64 = 2048,    // common/math_f64_pow.wgsl (with TFR_EW_LIB_MATH_F64)
  TFR_EW_LIB_MATH_C128 = 4096,  // common/math_c128.wgsl (with C128 and MATH_F64)
  TFR_EW_LIB_EXP_F64 = 8192,    // common/exp_f64.wgsl (with F64; MATH_F64 brings it too)
};
// At most this many snippets come from tfr_ew_lib_snippets.
#define TFR_EW_MAX_LIB_SNIPPETS 16

// Writes the snippets of an elementwise or fused kernel whose expressions need
// `lib` (an OR of TFR_EW_LIB_*) into `snippets`, in dependency order, starting
// with common/convert.wgsl and common/ew_exact.wgsl; returns their number
// (<= TFR_EW_MAX_LIB_SNIPPETS). No NULL terminator is written.
int tfr_ew_lib_snippets(unsigned lib, const char **snippets);

typedef struct tfr_ew_expr {
  const char *e;  // WGSL expression of a, b, c (the operands' value types)
  unsigned lib;
} tfr_ew_expr;

// The expression of op `op` of family `kind` on operand type `type` (on_true's
// for select), or NULL where the core's op table rejects the dtype.
const tfr_ew_expr *tfr_ew_expr_of(tfr_ew_kind kind, int op, int type);

// The op's name for labels and messages: the unary/binary op's name, else
// "compare", "select" or "clamp".
const char *tfr_ew_op_name(tfr_ew_kind kind, int op);

#endif  // TENFERRO_SRC_WEBGPU_EW_TABLE_H_
