// The elementwise op table of the webgpu backend (ew_table.h): one WGSL
// expression per (op, operand dtype), over the exact helpers of
// common/ew_exact.wgsl and the math library (common/math_f32.wgsl,
// common/math_c64.wgsl, common/math_special_f32.wgsl) for the analytic
// functions, correctly rounded f32 division and fmod. f64 runs in software
// on its bits (common/f64.wgsl): the exact ops (arithmetic, sqrt, rsqrt,
// fmod, comparisons, min/max, rounding, sign), bit for bit the cpu's, and
// the analytic functions exp (common/exp_f64.wgsl, fixed-point), expm1,
// log, log1p, tanh, sinh, cosh, logistic, sin, cos, tan, asin, acos, atan,
// atan2, asinh, acosh, atanh and cbrt (common/math_f64.wgsl), erf and erfc
// (common/math_f64_erf.wgsl), power (common/math_f64_pow.wgsl), each within
// 1 ulp of the correctly rounded result (measured max 1 ulp:
// docs/accuracy.md, "f64 on webgpu");
// the other analytic functions (the special functions lgamma, digamma,
// erf_inv, bessel_i1e) have no f64 entry yet, so the capability table
// (capability.c) refuses them. i64 and u64 run on the same words
// (common/u64.wgsl): every op the core's table has for them, exact, with
// the cpu's wrapping, division and shift rules. c128 runs on pairs of those
// f64 (common/c128.wgsl): add, subtract, multiply (the textbook product),
// negate, conj, real, imag, complex(f64, f64), compare EQ/NE, maximum,
// minimum, select, and (common/c128_steps.wgsl) divide (__divdc3), abs
// (hypot), sign, sqrt (csqrt) and rsqrt, bit for bit the cpu's. u32 is
// native; i8/i16 run as sign-extended i32 and u8/u16 as zero-extended u32 (wgsl_types.h), each
// result wrapped back to the width (common/convert.wgsl's tfr_wrap_*),
// with the width-dependent shift counts, logical shifts and popcnt spelled
// out. f16 and bf16 run the f32 expression and round its result once
// (common/half.wgsl), as the cpu; negate, abs, conj, real and select keep
// the bits, next_after steps in the dtype's own bits. The semantics are the
// cpu backend's (src/cpu/scalar_math.h).
#include "webgpu/ew_table.h"

#include <stddef.h>

// ---------------------------------------------------------------------------
// Value types
// ---------------------------------------------------------------------------

// The dtype of each kernel value type.
static const tfr_dtype tfr_ew_dtypes[TFR_EW_NTYPES] = {
    [TFR_EW_F32] = TFR_F32, [TFR_EW_I32] = TFR_I32, [TFR_EW_B8] = TFR_BOOL, [TFR_EW_C64] = TFR_C64,
    [TFR_EW_F64] = TFR_F64, [TFR_EW_I64] = TFR_I64, [TFR_EW_U64] = TFR_U64,
    [TFR_EW_U32] = TFR_U32, [TFR_EW_I8] = TFR_I8,   [TFR_EW_I16] = TFR_I16,
    [TFR_EW_U8] = TFR_U8,   [TFR_EW_U16] = TFR_U16, [TFR_EW_F16] = TFR_F16,
    [TFR_EW_BF16] = TFR_BF16, [TFR_EW_C128] = TFR_C128};

const tfr_wgsl_type *tfr_ew_wgsl(int type) { return tfr_wgsl_type_of(tfr_ew_dtypes[type]); }

int tfr_ew_type_of(tfr_dtype dt) {
  switch (dt) {
    case TFR_F32: return TFR_EW_F32;
    case TFR_I32: return TFR_EW_I32;
    case TFR_BOOL: return TFR_EW_B8;
    case TFR_C64: return TFR_EW_C64;
    case TFR_F64: return TFR_EW_F64;
    case TFR_I64: return TFR_EW_I64;
    case TFR_U64: return TFR_EW_U64;
    case TFR_U32: return TFR_EW_U32;
    case TFR_I8: return TFR_EW_I8;
    case TFR_I16: return TFR_EW_I16;
    case TFR_U8: return TFR_EW_U8;
    case TFR_U16: return TFR_EW_U16;
    case TFR_F16: return TFR_EW_F16;
    case TFR_BF16: return TFR_EW_BF16;
    case TFR_C128: return TFR_EW_C128;
    default: return -1;
  }
}

// ---------------------------------------------------------------------------
// The op tables: one WGSL expression of the inputs a, b, c per (op, operand
// dtype), with the snippets it needs. NULL where the op table of the core
// (src/core/elementwise_table.c) rejects the dtype.
// ---------------------------------------------------------------------------

typedef struct tfr_ew_row {
  tfr_ew_expr t[TFR_EW_NTYPES];
} tfr_ew_row;

// f32 entries; F_ and FM also give f16 and bf16 the f32 expression with its
// result rounded once (as the cpu's f16/bf16 ops), FP_ gives them the f32
// expression as it is: a bool result, or one that keeps a's bits (negate,
// abs: the sign bit; a NaN is not quieted, as on the cpu).
#define H_(e, lib)                                                         \
  [TFR_EW_F16] = {"tfr_round_f16(" e ")", (lib) | TFR_EW_LIB_HALF},       \
  [TFR_EW_BF16] = {"tfr_round_bf16(" e ")", (lib) | TFR_EW_LIB_HALF}
#define F_(e) [TFR_EW_F32] = {e, 0}, H_(e, 0)
#define FM(e) [TFR_EW_F32] = {e, TFR_EW_LIB_F32}, H_(e, TFR_EW_LIB_F32)
#define FP_(e) [TFR_EW_F32] = {e, 0}, [TFR_EW_F16] = {e, TFR_EW_LIB_HALF}, \
               [TFR_EW_BF16] = {e, TFR_EW_LIB_HALF}
#define I_(e) [TFR_EW_I32] = {e, 0}
#define B_(e) [TFR_EW_B8] = {e, 0}
#define C_(e) [TFR_EW_C64] = {e, 0}
#define CM(e) [TFR_EW_C64] = {e, TFR_EW_LIB_C64}
// f64, from common/f64.wgsl.
#define D_(e) [TFR_EW_F64] = {e, TFR_EW_LIB_F64}
// An analytic function of common/math_f64.wgsl on f64.
#define DM(e) [TFR_EW_F64] = {e, TFR_EW_LIB_F64 | TFR_EW_LIB_MATH_F64}
// exp, from common/exp_f64.wgsl (fixed-point, on u64.wgsl and f64.wgsl only).
#define DX(e) [TFR_EW_F64] = {e, TFR_EW_LIB_F64 | TFR_EW_LIB_EXP_F64}
// erf and erfc, from common/math_f64_erf.wgsl (on math_f64.wgsl).
#define DE(e) [TFR_EW_F64] = {e, TFR_EW_LIB_F64 | TFR_EW_LIB_MATH_F64 | TFR_EW_LIB_ERF_F64}
// power, from common/math_f64_pow.wgsl (on math_f64.wgsl).
#define DP(e) [TFR_EW_F64] = {e, TFR_EW_LIB_F64 | TFR_EW_LIB_MATH_F64 | TFR_EW_LIB_POW_F64}
// i64 / u64, from common/u64.wgsl; X_ is the same expression for both.
#define L_(e) [TFR_EW_I64] = {e, TFR_EW_LIB_U64}
#define U_(e) [TFR_EW_U64] = {e, TFR_EW_LIB_U64}
#define X_(e) L_(e), U_(e)
// c128, from common/c128.wgsl (on f64.wgsl); ZS: divide, abs, sign, sqrt,
// rsqrt, from the step machine of common/c128_steps.wgsl.
#define Z_(e) [TFR_EW_C128] = {e, TFR_EW_LIB_C128}
#define ZS(e) [TFR_EW_C128] = {e, TFR_EW_LIB_C128 | TFR_EW_LIB_C128_STEPS}
// ZM: an analytic function of common/math_c128.wgsl (on math_f64.wgsl).
#define ZM(e)                                                                               \
  [TFR_EW_C128] = {e, TFR_EW_LIB_C128 | TFR_EW_LIB_F64 | TFR_EW_LIB_MATH_F64 |              \
                          TFR_EW_LIB_MATH_C128}
// i8 / i16 (i32 values): SW_ wraps the i32 expression e to the width, SN_ is
// e as it is (its result stays in range), SF_ calls f(a[, b], width).
#define SW_(e) [TFR_EW_I8] = {"tfr_wrap_s(" e ", 8u)", 0}, \
               [TFR_EW_I16] = {"tfr_wrap_s(" e ", 16u)", 0}
#define SN_(e) [TFR_EW_I8] = {e, 0}, [TFR_EW_I16] = {e, 0}
#define SF_(f, args) [TFR_EW_I8] = {f "(" args "8u)", 0}, [TFR_EW_I16] = {f "(" args "16u)", 0}
// u8 / u16 / u32 (u32 values), the same three forms.
#define UW_(e) [TFR_EW_U8] = {"tfr_wrap_u(" e ", 8u)", 0}, \
               [TFR_EW_U16] = {"tfr_wrap_u(" e ", 16u)", 0}, [TFR_EW_U32] = {e, 0}
#define UN_(e) [TFR_EW_U8] = {e, 0}, [TFR_EW_U16] = {e, 0}, [TFR_EW_U32] = {e, 0}
#define UF_(f, args) [TFR_EW_U8] = {f "(" args "8u)", 0}, [TFR_EW_U16] = {f "(" args "16u)", 0}, \
                     [TFR_EW_U32] = {f "(" args "32u)", 0}
// An analytic function of the math library on f32 and c64 / on f32 only.
#define FN_FC(name) \
  {{FM("tfr_" name "_f32(a)"), CM("tfr_" name "_c64(a)")}}
#define FN_F(name) {{FM("tfr_" name "_f32(a)")}}
// The same on f32, c64 and f64 (common/math_f64.wgsl).
#define FN_FCD(name) \
  {{FM("tfr_" name "_f32(a)"), CM("tfr_" name "_c64(a)"), DM("tfr_" name "_f64(a)")}}
// The special functions (common/math_special_f32.wgsl), f32 only.
#define FN_S(name)                                                                          \
  {{[TFR_EW_F32] = {"tfr_" name "_f32(a)", TFR_EW_LIB_F32 | TFR_EW_LIB_SPECIAL},            \
    H_("tfr_" name "_f32(a)", TFR_EW_LIB_F32 | TFR_EW_LIB_SPECIAL)}}

static const tfr_ew_row tfr_ew_unary_rows[TFR_UNARY_OP_COUNT] = {
    [TFR_NEGATE] = {{FP_("tfr_ew_neg_f32(a)"), I_("tfr_ew_neg_i32(a)"), C_("tfr_ew_neg_c64(a)"),
                   D_("tfr_f64_neg(a)"), X_("tfr_u64_neg(a)"), SW_("tfr_ew_neg_i32(a)"),
                   UW_("(0u - a)"), Z_("tfr_c128_neg(a)")}},
    [TFR_ABS] = {{FP_("tfr_ew_abs_f32(a)"), I_("tfr_ew_abs_i32(a)"), CM("tfr_abs_c64(a)"),
                ZS("tfr_c128_abs(a)"), D_("tfr_f64_abs(a)"), L_("tfr_i64_abs(a)"),
                SW_("tfr_ew_abs_i32(a)")}},
    [TFR_SIGN] = {{F_("tfr_ew_sign_f32(a)"), I_("tfr_ew_sign_i32(a)"), CM("tfr_sign_c64(a)"),
                 ZS("tfr_c128_sign(a)"), D_("tfr_f64_sign(a)"), L_("tfr_i64_sign(a)"),
                 SN_("tfr_ew_sign_i32(a)")}},
    [TFR_CONJ] = {{FP_("a"), I_("a"), C_("tfr_ew_conj_c64(a)"), D_("a"), X_("a"), SN_("a"),
                 UN_("a"), Z_("tfr_c128_conj(a)")}},
    [TFR_NOT] = {{I_("~a"), B_("a ^ 1u"), X_("~a"), SN_("~a"), UW_("~a")}},
    [TFR_FLOOR] = {{F_("floor(a)"), D_("tfr_f64_floor(a)")}},
    [TFR_CEIL] = {{F_("ceil(a)"), D_("tfr_f64_ceil(a)")}},
    // WGSL's round() rounds halves to even.
    [TFR_ROUND_NEAREST_EVEN] = {{F_("round(a)"), D_("tfr_f64_round_even(a)")}},
    [TFR_ROUND_NEAREST_AFZ] = {{F_("tfr_ew_round_afz_f32(a)"), D_("tfr_f64_round_afz(a)")}},
    [TFR_IS_FINITE] = {{FP_("select(0u, 1u, tfr_ew_is_finite_f32(a))"),
                      D_("select(0u, 1u, tfr_f64_is_finite(a))")}},
    [TFR_REAL] = {{FP_("a"), C_("a.x"), D_("a"), Z_("a.xy")}},
    [TFR_IMAG] = {{FP_("0.0"), C_("a.y"), D_("vec2<u32>(0u, 0u)"), Z_("a.zw")}},
    [TFR_EXP] = {{FM("tfr_exp_f32(a)"), CM("tfr_exp_c64(a)"), DX("tfr_exp_f64(a)"),
                  ZM("tfr_exp_c128(a)")}},
    [TFR_LOG] = {{FM("tfr_log_f32(a)"), CM("tfr_log_c64(a)"), DM("tfr_log_f64(a)"),
                  ZM("tfr_log_c128(a)")}},
    [TFR_SIN] = FN_FCD("sin"),
    [TFR_COS] = FN_FCD("cos"),
    [TFR_TAN] = FN_FCD("tan"),
    [TFR_TANH] = FN_FCD("tanh"),
    [TFR_SQRT] = {{FM("tfr_sqrt_f32(a)"), CM("tfr_sqrt_c64(a)"), D_("tfr_f64_sqrt(a)"),
                  ZS("tfr_c128_sqrt(a)")}},
    // 1 / sqrt(a), two roundings as on the cpu.
    [TFR_RSQRT] = {{FM("tfr_rsqrt_f32(a)"), CM("tfr_rsqrt_c64(a)"), D_("tfr_f64_rsqrt(a)"),
                   ZS("tfr_c128_rsqrt(a)")}},
    [TFR_CBRT] = {{FM("tfr_cbrt_f32(a)"), DM("tfr_cbrt_f64(a)")}},
    [TFR_EXPM1] = FN_FCD("expm1"),
    [TFR_LOG1P] = FN_FCD("log1p"),
    [TFR_ERF] = {{FM("tfr_erf_f32(a)"), DE("tfr_erf_f64(a)")}},
    [TFR_LOGISTIC] = FN_FCD("logistic"),
    [TFR_ASIN] = FN_FCD("asin"),
    [TFR_ACOS] = FN_FCD("acos"),
    [TFR_ATAN] = FN_FCD("atan"),
    [TFR_SINH] = FN_FCD("sinh"),
    [TFR_COSH] = FN_FCD("cosh"),
    [TFR_ASINH] = FN_FCD("asinh"),
    [TFR_ACOSH] = FN_FCD("acosh"),
    [TFR_ATANH] = FN_FCD("atanh"),
    [TFR_ERFC] = {{FM("tfr_erfc_f32(a)"), DE("tfr_erfc_f64(a)")}},
    [TFR_POPCNT] = {{I_("countOneBits(a)"), X_("tfr_u64_popcnt(a)"),
                     SF_("tfr_ew_popcnt_s", "a, "), UN_("countOneBits(a)")}},
    [TFR_LGAMMA] = FN_S("lgamma"),
    [TFR_DIGAMMA] = FN_S("digamma"),
    [TFR_ERF_INV] = FN_S("erf_inv"),
    [TFR_BESSEL_I1E] = FN_S("bessel_i1e"),
};

static const tfr_ew_row tfr_ew_binary_rows[TFR_BINARY_OP_COUNT] = {
    [TFR_ADD] = {{F_("a + b"), I_("tfr_ew_add_i32(a, b)"), C_("a + b"), D_("tfr_f64_add(a, b)"),
                 X_("tfr_u64_add(a, b)"), SW_("tfr_ew_add_i32(a, b)"), UW_("(a + b)"),
                 Z_("tfr_c128_add(a, b)")}},
    [TFR_SUBTRACT] = {{F_("a - b"), I_("tfr_ew_sub_i32(a, b)"), C_("a - b"),
                      D_("tfr_f64_sub(a, b)"), X_("tfr_u64_sub(a, b)"),
                      SW_("tfr_ew_sub_i32(a, b)"), UW_("(a - b)"), Z_("tfr_c128_sub(a, b)")}},
    [TFR_MULTIPLY] = {{F_("a * b"), I_("tfr_ew_mul_i32(a, b)"), CM("tfr_mul_c64(a, b)"),
                      D_("tfr_f64_mul(a, b)"), X_("tfr_u64_mul_lo(a, b)"),
                      SW_("tfr_ew_mul_i32(a, b)"), UW_("(a * b)"), Z_("tfr_c128_mul(a, b)")}},
    // WGSL's f32 `/` is only within 2.5 ulp: the library's is correctly rounded.
    [TFR_DIVIDE] = {{FM("tfr_div_f32(a, b)"), I_("tfr_ew_div_i32(a, b)"),
                     CM("tfr_div_c64(a, b)"), D_("tfr_f64_div(a, b)"),
                     ZS("tfr_c128_div(a, b)"),
                     L_("tfr_i64_div(a, b)"), U_("tfr_u64_div(a, b)"),
                     SW_("tfr_ew_div_i32(a, b)"), UW_("tfr_ew_div_u32(a, b)")}},
    [TFR_REMAINDER] = {{FM("tfr_fmod_f32(a, b)"), I_("tfr_ew_rem_i32(a, b)"),
                       D_("tfr_f64_fmod(a, b)"), L_("tfr_i64_rem(a, b)"),
                       U_("tfr_u64_rem(a, b)"), SN_("tfr_ew_rem_i32(a, b)"),
                       UN_("tfr_ew_rem_u32(a, b)")}},
    [TFR_MAXIMUM] = {{F_("tfr_ew_max_f32(a, b)"), I_("max(a, b)"), B_("a | b"),
                      C_("tfr_ew_max_c64(a, b)"), D_("tfr_f64_max(a, b)"),
                      L_("tfr_i64_max(a, b)"), U_("tfr_u64_max(a, b)"), SN_("max(a, b)"),
                      UN_("max(a, b)"), Z_("tfr_c128_max(a, b)")}},
    [TFR_MINIMUM] = {{F_("tfr_ew_min_f32(a, b)"), I_("min(a, b)"), B_("a & b"),
                      C_("tfr_ew_min_c64(a, b)"), D_("tfr_f64_min(a, b)"),
                      L_("tfr_i64_min(a, b)"), U_("tfr_u64_min(a, b)"), SN_("min(a, b)"),
                      UN_("min(a, b)"), Z_("tfr_c128_min(a, b)")}},
    [TFR_POWER] = {{FM("tfr_pow_f32(a, b)"), I_("tfr_ew_pow_i32(a, b)"),
                    CM("tfr_pow_c64(a, b)"), DP("tfr_pow_f64(a, b)"), L_("tfr_i64_pow(a, b)"),
                    U_("tfr_u64_pow(a, b)"), SW_("tfr_ew_pow_i32(a, b)"),
                    UW_("tfr_ew_pow_nonneg(a, b)")}},
    [TFR_AND] = {{I_("a & b"), B_("a & b"), X_("a & b"), SN_("a & b"), UN_("a & b")}},
    [TFR_OR] = {{I_("a | b"), B_("a | b"), X_("a | b"), SN_("a | b"), UN_("a | b")}},
    [TFR_XOR] = {{I_("a ^ b"), B_("a ^ b"), X_("a ^ b"), SN_("a ^ b"), UN_("a ^ b")}},
    [TFR_ATAN2] = {{FM("tfr_atan2_f32(a, b)"),
                    [TFR_EW_C64] = {"tfr_ew_atan2_c64(a, b)", TFR_EW_LIB_C64 | TFR_EW_LIB_COMPLEX},
                    DM("tfr_atan2_f64(a, b)")}},
    [TFR_SHIFT_LEFT] = {{I_("tfr_ew_shl_i32(a, b)"), X_("tfr_x64_shift_left(a, b)"),
                         SF_("tfr_ew_shl_s", "a, b, "), UF_("tfr_ew_shl_u", "a, b, ")}},
    [TFR_SHIFT_RIGHT_ARITHMETIC] = {{I_("tfr_ew_shr_arithmetic_i32(a, b)"),
                                     X_("tfr_x64_shift_right_arithmetic(a, b)"),
                                     SF_("tfr_ew_shr_arithmetic_s", "a, b, "),
                                     UF_("tfr_ew_shr_arithmetic_u", "a, b, ")}},
    [TFR_SHIFT_RIGHT_LOGICAL] = {{I_("tfr_ew_shr_logical_i32(a, b)"),
                                  X_("tfr_x64_shift_right_logical(a, b)"),
                                  SF_("tfr_ew_shr_logical_s", "a, b, "),
                                  UF_("tfr_ew_shr_logical_u", "a, b, ")}},
    [TFR_NEXT_AFTER] = {{[TFR_EW_F32] = {"tfr_ew_next_after_f32(a, b)", 0},
                         [TFR_EW_F16] = {"tfr_next_after_f16(a, b)", TFR_EW_LIB_HALF},
                         [TFR_EW_BF16] = {"tfr_next_after_bf16(a, b)", TFR_EW_LIB_HALF},
                         D_("tfr_f64_next_after(a, b)")}},
    [TFR_COMPLEX] = {{[TFR_EW_F32] = {"vec2<f32>(a, b)", 0}, [TFR_EW_F64] = {"vec4<u32>(a, b)", 0}}},
};

// IEEE comparisons: every ordered one is false with a NaN, NE true. NaN is
// decided on the bits, so no driver shortcut changes the answer; bool
// compares as unsigned.
#define CMP_ROW(op, f64, i64, u64)                                                \
  {{FP_("select(0u, 1u, tfr_ew_ordered_f32(a, b) && a " op " b)"),               \
    I_("select(0u, 1u, a " op " b)"), B_("select(0u, 1u, a " op " b)"),           \
    D_("select(0u, 1u, " f64 ")"), L_("select(0u, 1u, " i64 ")"),                 \
    U_("select(0u, 1u, " u64 ")"), SN_("select(0u, 1u, a " op " b)"),            \
    UN_("select(0u, 1u, a " op " b)")}}
static const tfr_ew_row tfr_ew_compare_rows[TFR_GE + 1] = {
    [TFR_EQ] = {{FP_("select(0u, 1u, tfr_ew_ordered_f32(a, b) && a == b)"),
                 I_("select(0u, 1u, a == b)"), B_("select(0u, 1u, a == b)"),
                 C_("select(0u, 1u, tfr_ew_eq_c64(a, b))"),
                 D_("select(0u, 1u, tfr_f64_eq(a, b))"),
                 X_("select(0u, 1u, tfr_u64_eq(a, b))"), SN_("select(0u, 1u, a == b)"),
                 UN_("select(0u, 1u, a == b)"), Z_("select(0u, 1u, tfr_c128_eq(a, b))")}},
    [TFR_NE] = {{FP_("select(0u, 1u, !tfr_ew_ordered_f32(a, b) || a != b)"),
                 I_("select(0u, 1u, a != b)"), B_("select(0u, 1u, a != b)"),
                 C_("select(0u, 1u, !tfr_ew_eq_c64(a, b))"),
                 D_("select(0u, 1u, !tfr_f64_eq(a, b))"),
                 X_("select(0u, 1u, !tfr_u64_eq(a, b))"), SN_("select(0u, 1u, a != b)"),
                 UN_("select(0u, 1u, a != b)"), Z_("select(0u, 1u, !tfr_c128_eq(a, b))")}},
    [TFR_LT] = CMP_ROW("<", "tfr_f64_lt(a, b)", "tfr_i64_lt(a, b)", "tfr_u64_lt(a, b)"),
    [TFR_LE] = CMP_ROW("<=", "tfr_f64_le(a, b)", "tfr_i64_le(a, b)", "tfr_u64_le(a, b)"),
    [TFR_GT] = CMP_ROW(">", "tfr_f64_lt(b, a)", "tfr_i64_lt(b, a)", "tfr_u64_lt(b, a)"),
    [TFR_GE] = CMP_ROW(">=", "tfr_f64_le(b, a)", "tfr_i64_le(b, a)", "tfr_u64_le(b, a)"),
};
#undef CMP_ROW

// select(pred, on_true, on_false) copies one value; the row is indexed by
// on_true's dtype.
static const tfr_ew_row tfr_ew_select_row = {
    {FP_("select(c, b, a != 0u)"), I_("select(c, b, a != 0u)"), B_("select(c, b, a != 0u)"),
     C_("select(c, b, a != 0u)"), [TFR_EW_F64] = {"select(c, b, a != 0u)", 0},
     [TFR_EW_I64] = {"select(c, b, a != 0u)", 0}, [TFR_EW_U64] = {"select(c, b, a != 0u)", 0},
     SN_("select(c, b, a != 0u)"), UN_("select(c, b, a != 0u)"),
     [TFR_EW_C128] = {"select(c, b, a != 0u)", 0}}};

// clamp(min, operand, max) = minimum(maximum(operand, min), max).
static const tfr_ew_row tfr_ew_clamp_row = {
    {F_("tfr_ew_clamp_f32(a, b, c)"), I_("tfr_ew_clamp_i32(a, b, c)"), B_("(b | a) & c"),
     D_("tfr_f64_clamp(a, b, c)"), L_("tfr_i64_clamp(a, b, c)"), U_("tfr_u64_clamp(a, b, c)"),
     SN_("tfr_ew_clamp_i32(a, b, c)"), UN_("tfr_ew_clamp_u32(a, b, c)")}};

#undef F_
#undef H_
#undef FP_
#undef FM
#undef I_
#undef B_
#undef C_
#undef CM
#undef D_
#undef DM
#undef L_
#undef U_
#undef X_
#undef Z_
#undef SW_
#undef SN_
#undef SF_
#undef UW_
#undef UN_
#undef UF_
#undef FN_FC
#undef FN_F
#undef FN_FCD
#undef FN_S

const char *tfr_ew_op_name(tfr_ew_kind kind, int op) {
  switch (kind) {
    case TFR_EW_UNARY: return tfr_unary_op_name((tfr_unary_op)op);
    case TFR_EW_BINARY: return tfr_binary_op_name((tfr_binary_op)op);
    case TFR_EW_COMPARE: return "compare";
    case TFR_EW_SELECT: return "select";
    case TFR_EW_CLAMP: return "clamp";
  }
  return "elementwise";
}

const tfr_ew_expr *tfr_ew_expr_of(tfr_ew_kind kind, int op_, int type) {
  const tfr_ew_row *row = NULL;
  unsigned op = (unsigned)op_;
  switch (kind) {
    case TFR_EW_UNARY: row = op < TFR_UNARY_OP_COUNT ? &tfr_ew_unary_rows[op] : NULL; break;
    case TFR_EW_BINARY: row = op < TFR_BINARY_OP_COUNT ? &tfr_ew_binary_rows[op] : NULL; break;
    case TFR_EW_COMPARE: row = op <= TFR_GE ? &tfr_ew_compare_rows[op] : NULL; break;
    case TFR_EW_SELECT: row = &tfr_ew_select_row; break;
    case TFR_EW_CLAMP: row = &tfr_ew_clamp_row; break;
  }
  if (!row || type < 0 || type >= TFR_EW_NTYPES || !row->t[type].e) return NULL;
  return &row->t[type];
}

int tfr_ew_lib_snippets(unsigned lib, const char **snippets) {
  int ns = 0;
  snippets[ns++] = "common/convert.wgsl";  // tfr_f32_is_nan
  snippets[ns++] = "common/ew_exact.wgsl";
  bool math = lib & (TFR_EW_LIB_F32 | TFR_EW_LIB_C64 | TFR_EW_LIB_SPECIAL);
  if (math || (lib & (TFR_EW_LIB_F64 | TFR_EW_LIB_U64 | TFR_EW_LIB_C128)))
    snippets[ns++] = "common/u64.wgsl";
  if (math) snippets[ns++] = "common/math_f32.wgsl";
  if (lib & TFR_EW_LIB_SPECIAL) snippets[ns++] = "common/math_special_f32.wgsl";
  if (lib & TFR_EW_LIB_C64) snippets[ns++] = "common/math_c64.wgsl";
  if (lib & TFR_EW_LIB_COMPLEX) snippets[ns++] = "common/ew_complex.wgsl";
  if (lib & (TFR_EW_LIB_F64 | TFR_EW_LIB_C128)) snippets[ns++] = "common/f64.wgsl";
  if (lib & (TFR_EW_LIB_EXP_F64 | TFR_EW_LIB_MATH_F64)) snippets[ns++] = "common/exp_f64.wgsl";
  if (lib & TFR_EW_LIB_MATH_F64) snippets[ns++] = "common/math_f64.wgsl";
  if (lib & TFR_EW_LIB_ERF_F64) snippets[ns++] = "common/math_f64_erf.wgsl";
  if (lib & TFR_EW_LIB_POW_F64) snippets[ns++] = "common/math_f64_pow.wgsl";
  if (lib & TFR_EW_LIB_C128) snippets[ns++] = "common/c128.wgsl";
  if (lib & TFR_EW_LIB_C128_STEPS) snippets[ns++] = "common/c128_steps.wgsl";
  if (lib & TFR_EW_LIB_MATH_C128) snippets[ns++] = "common/math_c128.wgsl";
  if (lib & TFR_EW_LIB_HALF) snippets[ns++] = "common/half.wgsl";
  return ns;
}
