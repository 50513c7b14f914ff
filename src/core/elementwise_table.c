// The elementwise op table (see elementwise_table.h).
#include "core/elementwise_table.h"

#define FC (TFR_DT_FLOAT | TFR_DT_COMPLEX)
#define SIGNED (TFR_DT_SINT | TFR_DT_FLOAT | TFR_DT_COMPLEX)

static const tfr_ew_info tfr_unary_table[TFR_UNARY_OP_COUNT] = {
    [TFR_NEGATE] = {"negate", TFR_DT_NUMERIC, TFR_RESULT_SAME},
    // StableHLO defines abs and sign on signed integers, floats and complex
    // only; negate wraps unsigned integers (0 - x).
    [TFR_ABS] = {"abs", SIGNED, TFR_RESULT_REAL},
    [TFR_SIGN] = {"sign", SIGNED, TFR_RESULT_SAME},
    [TFR_CONJ] = {"conj", TFR_DT_NUMERIC, TFR_RESULT_SAME},
    [TFR_NOT] = {"not", TFR_DT_BOOL | TFR_DT_INT, TFR_RESULT_SAME},
    [TFR_FLOOR] = {"floor", TFR_DT_FLOAT, TFR_RESULT_SAME},
    [TFR_CEIL] = {"ceil", TFR_DT_FLOAT, TFR_RESULT_SAME},
    [TFR_ROUND_NEAREST_EVEN] = {"round_nearest_even", TFR_DT_FLOAT, TFR_RESULT_SAME},
    [TFR_ROUND_NEAREST_AFZ] = {"round_nearest_afz", TFR_DT_FLOAT, TFR_RESULT_SAME},
    [TFR_IS_FINITE] = {"is_finite", TFR_DT_FLOAT, TFR_RESULT_BOOL},
    [TFR_REAL] = {"real", FC, TFR_RESULT_REAL},
    [TFR_IMAG] = {"imag", FC, TFR_RESULT_REAL},
    [TFR_EXP] = {"exponential", FC, TFR_RESULT_SAME},
    [TFR_LOG] = {"log", FC, TFR_RESULT_SAME},
    [TFR_SIN] = {"sine", FC, TFR_RESULT_SAME},
    [TFR_COS] = {"cosine", FC, TFR_RESULT_SAME},
    [TFR_TAN] = {"tan", FC, TFR_RESULT_SAME},
    [TFR_TANH] = {"tanh", FC, TFR_RESULT_SAME},
    [TFR_SQRT] = {"sqrt", FC, TFR_RESULT_SAME},
    [TFR_RSQRT] = {"rsqrt", FC, TFR_RESULT_SAME},
    [TFR_CBRT] = {"cbrt", TFR_DT_FLOAT, TFR_RESULT_SAME},
    [TFR_EXPM1] = {"exponential_minus_one", FC, TFR_RESULT_SAME},
    [TFR_LOG1P] = {"log_plus_one", FC, TFR_RESULT_SAME},
    [TFR_ERF] = {"erf", TFR_DT_FLOAT, TFR_RESULT_SAME},
    [TFR_LOGISTIC] = {"logistic", FC, TFR_RESULT_SAME},
    [TFR_ASIN] = {"asin", FC, TFR_RESULT_SAME},
    [TFR_ACOS] = {"acos", FC, TFR_RESULT_SAME},
    [TFR_ATAN] = {"atan", FC, TFR_RESULT_SAME},
    [TFR_SINH] = {"sinh", FC, TFR_RESULT_SAME},
    [TFR_COSH] = {"cosh", FC, TFR_RESULT_SAME},
    [TFR_ASINH] = {"asinh", FC, TFR_RESULT_SAME},
    [TFR_ACOSH] = {"acosh", FC, TFR_RESULT_SAME},
    [TFR_ATANH] = {"atanh", FC, TFR_RESULT_SAME},
    [TFR_ERFC] = {"erfc", TFR_DT_FLOAT, TFR_RESULT_SAME},
    [TFR_POPCNT] = {"popcnt", TFR_DT_INT, TFR_RESULT_SAME},
};

static const tfr_ew_info tfr_binary_table[TFR_BINARY_OP_COUNT] = {
    [TFR_ADD] = {"add", TFR_DT_NUMERIC, TFR_RESULT_SAME},
    [TFR_SUBTRACT] = {"subtract", TFR_DT_NUMERIC, TFR_RESULT_SAME},
    [TFR_MULTIPLY] = {"multiply", TFR_DT_NUMERIC, TFR_RESULT_SAME},
    [TFR_DIVIDE] = {"divide", TFR_DT_NUMERIC, TFR_RESULT_SAME},
    [TFR_REMAINDER] = {"remainder", TFR_DT_INT | TFR_DT_FLOAT, TFR_RESULT_SAME},
    [TFR_MAXIMUM] = {"maximum", TFR_DT_ALL, TFR_RESULT_SAME},
    [TFR_MINIMUM] = {"minimum", TFR_DT_ALL, TFR_RESULT_SAME},
    [TFR_POWER] = {"power", TFR_DT_NUMERIC, TFR_RESULT_SAME},
    [TFR_AND] = {"and", TFR_DT_BOOL | TFR_DT_INT, TFR_RESULT_SAME},
    [TFR_OR] = {"or", TFR_DT_BOOL | TFR_DT_INT, TFR_RESULT_SAME},
    [TFR_XOR] = {"xor", TFR_DT_BOOL | TFR_DT_INT, TFR_RESULT_SAME},
    [TFR_ATAN2] = {"atan2", FC, TFR_RESULT_SAME},
    [TFR_SHIFT_LEFT] = {"shift_left", TFR_DT_INT, TFR_RESULT_SAME},
    [TFR_SHIFT_RIGHT_ARITHMETIC] = {"shift_right_arithmetic", TFR_DT_INT, TFR_RESULT_SAME},
    [TFR_SHIFT_RIGHT_LOGICAL] = {"shift_right_logical", TFR_DT_INT, TFR_RESULT_SAME},
    [TFR_NEXT_AFTER] = {"next_after", TFR_DT_FLOAT, TFR_RESULT_SAME},
    [TFR_COMPLEX] = {"complex", TFR_DT_F32_F64, TFR_RESULT_COMPLEX},
};

const tfr_ew_info *tfr_unary_info(tfr_unary_op op) {
  return (unsigned)op < TFR_UNARY_OP_COUNT ? &tfr_unary_table[op] : NULL;
}

const tfr_ew_info *tfr_binary_info(tfr_binary_op op) {
  return (unsigned)op < TFR_BINARY_OP_COUNT ? &tfr_binary_table[op] : NULL;
}

const char *tfr_unary_op_name(tfr_unary_op op) {
  const tfr_ew_info *info = tfr_unary_info(op);
  return info ? info->name : "invalid";
}

const char *tfr_binary_op_name(tfr_binary_op op) {
  const tfr_ew_info *info = tfr_binary_info(op);
  return info ? info->name : "invalid";
}

tfr_dtype tfr_result_dtype(tfr_result_rule rule, tfr_dtype dtype) {
  switch (rule) {
    case TFR_RESULT_SAME: return dtype;
    case TFR_RESULT_REAL: return tfr_dtype_get_info(dtype)->real;
    case TFR_RESULT_BOOL: return TFR_BOOL;
    case TFR_RESULT_COMPLEX: return dtype == TFR_F32 ? TFR_C64 : TFR_C128;
  }
  return dtype;
}
