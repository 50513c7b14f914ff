// Conformance runner: elementwise ops (ops.h "Elementwise").
//
// The `kinds` column is the dtype group ops.h documents for each op; a case
// outside it is a skip ("the API does not define it"), while an error from
// the library inside it is a failure.
#include <string.h>

#include "conformance.h"

#define M_BI (TFR_CONF_M_BOOL | TFR_CONF_M_INT)
#define M_FC (TFR_CONF_M_FLOAT | TFR_CONF_M_COMPLEX)

static bool tfr_conf_run_unary(const tfr_conf_op *op, tfr_conf_exec *x, const tfr_conf_instr *in,
                               tfr_tensor *const *args, tfr_tensor **out) {
  if (!tfr_conf_want_operands(x, in, 1)) return false;
  tfr_status st = tfr_unary(x->session, (tfr_unary_op)op->param, args[0], out);
  return st ? tfr_conf_lib_fail(x, in, st) : true;
}

static bool tfr_conf_run_binary(const tfr_conf_op *op, tfr_conf_exec *x, const tfr_conf_instr *in,
                                tfr_tensor *const *args, tfr_tensor **out) {
  if (!tfr_conf_want_operands(x, in, 2)) return false;
  tfr_status st = tfr_binary(x->session, (tfr_binary_op)op->param, args[0], args[1], out);
  return st ? tfr_conf_lib_fail(x, in, st) : true;
}

// ---------------------------------------------------------------------------
// compare
// ---------------------------------------------------------------------------

static const struct {
  const char *name;
  tfr_compare_direction dir;
} tfr_conf_directions[] = {
    {"EQ", TFR_EQ}, {"NE", TFR_NE}, {"LT", TFR_LT}, {"LE", TFR_LE}, {"GT", TFR_GT}, {"GE", TFR_GE},
};

static bool tfr_conf_direction(const char *name, tfr_compare_direction *out) {
  for (size_t i = 0; i < sizeof tfr_conf_directions / sizeof tfr_conf_directions[0]; i++)
    if (strcmp(tfr_conf_directions[i].name, name) == 0) {
      *out = tfr_conf_directions[i].dir;
      return true;
    }
  return false;
}

// tfr_compare has no compare_type: it compares floats by IEEE 754, signed
// integers as signed and bool as unsigned. Only the compare_type that matches
// the dtype is what the API computes; TOTALORDER (ordering NaNs and -0.0) has
// no API form at all.
static const char *tfr_conf_check_compare(const tfr_conf_op *op, const tfr_conf_case *c,
                                          const tfr_conf_instr *in, char *buf) {
  char err[TFR_CONF_MSG];
  const char *type = tfr_conf_attr_string(in, "compare_type", err);
  const char *dirname = tfr_conf_attr_string(in, "comparison_direction", err);
  tfr_compare_direction dir;
  if (!type || !dirname || !tfr_conf_direction(dirname, &dir) || in->noperands != 2)
    return NULL;  // malformed: the run reports it
  if (strcmp(type, "TOTALORDER") == 0) return "no compare TOTALORDER";
  const tfr_conf_dtype *dt = tfr_conf_operand_type(c, in, 0)->dtype;
  const char *want = "FLOAT";
  if (dt->kind == TFR_CONF_KIND_INT) want = "SIGNED";
  if (dt->kind == TFR_CONF_KIND_UINT || dt->kind == TFR_CONF_KIND_BOOL) want = "UNSIGNED";
  if (strcmp(type, want) != 0) {
    snprintf(buf, TFR_CONF_MSG, "no compare %.20s on %s", type, tfr_conf_kind_name(dt));
    return buf;
  }
  if (dt->kind == TFR_CONF_KIND_COMPLEX && dir != TFR_EQ && dir != TFR_NE)
    return "no ordering compare on complex";
  return NULL;
}

static bool tfr_conf_run_compare(const tfr_conf_op *op, tfr_conf_exec *x,
                                 const tfr_conf_instr *in, tfr_tensor *const *args,
                                 tfr_tensor **out) {
  if (!tfr_conf_want_operands(x, in, 2)) return false;
  const char *name = tfr_conf_attr_string(in, "comparison_direction", x->msg);
  if (!name) return false;
  tfr_compare_direction dir;
  if (!tfr_conf_direction(name, &dir))
    return tfr_conf_fail(x, "compare: unknown comparison_direction \"%.20s\"", name);
  tfr_status st = tfr_compare(x->session, dir, args[0], args[1], out);
  return st ? tfr_conf_lib_fail(x, in, st) : true;
}

// ---------------------------------------------------------------------------
// select, clamp
// ---------------------------------------------------------------------------

static bool tfr_conf_run_select(const tfr_conf_op *op, tfr_conf_exec *x, const tfr_conf_instr *in,
                                tfr_tensor *const *args, tfr_tensor **out) {
  if (!tfr_conf_want_operands(x, in, 3)) return false;
  tfr_status st = tfr_select(x->session, args[0], args[1], args[2], out);
  return st ? tfr_conf_lib_fail(x, in, st) : true;
}

// clamp's operands are (min, operand, max): the dtype group is the operand's.
static const char *tfr_conf_check_clamp(const tfr_conf_op *op, const tfr_conf_case *c,
                                        const tfr_conf_instr *in, char *buf) {
  if (in->noperands != 3) return NULL;
  const tfr_conf_dtype *dt = tfr_conf_operand_type(c, in, 1)->dtype;
  return (op->kinds & (1u << dt->kind)) ? NULL : tfr_conf_kind_reason(in, dt, buf);
}

static bool tfr_conf_run_clamp(const tfr_conf_op *op, tfr_conf_exec *x, const tfr_conf_instr *in,
                               tfr_tensor *const *args, tfr_tensor **out) {
  if (!tfr_conf_want_operands(x, in, 3)) return false;
  tfr_status st = tfr_clamp(x->session, args[0], args[1], args[2], out);
  return st ? tfr_conf_lib_fail(x, in, st) : true;
}

// ---------------------------------------------------------------------------
// The table
// ---------------------------------------------------------------------------

#define UNARY(name, chlo, op, kinds) {name, chlo, NULL, tfr_conf_run_unary, op, kinds}
#define BINARY(name, chlo, op, kinds) {name, chlo, NULL, tfr_conf_run_binary, op, kinds}

const tfr_conf_op tfr_conf_ops_elementwise[] = {
    UNARY("negate", false, TFR_NEGATE, TFR_CONF_M_NUMERIC),
    UNARY("abs", false, TFR_ABS, TFR_CONF_M_NUMERIC),
    UNARY("sign", false, TFR_SIGN, TFR_CONF_M_NUMERIC),
    UNARY("not", false, TFR_NOT, M_BI),
    UNARY("floor", false, TFR_FLOOR, TFR_CONF_M_FLOAT),
    UNARY("ceil", false, TFR_CEIL, TFR_CONF_M_FLOAT),
    UNARY("round_nearest_even", false, TFR_ROUND_NEAREST_EVEN, TFR_CONF_M_FLOAT),
    UNARY("round_nearest_afz", false, TFR_ROUND_NEAREST_AFZ, TFR_CONF_M_FLOAT),
    UNARY("is_finite", false, TFR_IS_FINITE, TFR_CONF_M_FLOAT),
    UNARY("real", false, TFR_REAL, M_FC),
    UNARY("imag", false, TFR_IMAG, M_FC),
    UNARY("exponential", false, TFR_EXP, M_FC),
    UNARY("log", false, TFR_LOG, M_FC),
    UNARY("sine", false, TFR_SIN, M_FC),
    UNARY("cosine", false, TFR_COS, M_FC),
    UNARY("tan", false, TFR_TAN, M_FC),
    UNARY("tanh", false, TFR_TANH, M_FC),
    UNARY("sqrt", false, TFR_SQRT, M_FC),
    UNARY("rsqrt", false, TFR_RSQRT, M_FC),
    UNARY("cbrt", false, TFR_CBRT, TFR_CONF_M_FLOAT),
    UNARY("exponential_minus_one", false, TFR_EXPM1, M_FC),
    UNARY("log_plus_one", false, TFR_LOG1P, M_FC),
    UNARY("logistic", false, TFR_LOGISTIC, M_FC),
    UNARY("popcnt", false, TFR_POPCNT, TFR_CONF_M_INT),
    // CHLO ops (dialect "chlo"); `tan` exists in both dialects.
    UNARY("tan", true, TFR_TAN, M_FC),
    UNARY("erf", true, TFR_ERF, TFR_CONF_M_FLOAT),
    UNARY("erfc", true, TFR_ERFC, TFR_CONF_M_FLOAT),
    UNARY("asin", true, TFR_ASIN, M_FC),
    UNARY("acos", true, TFR_ACOS, M_FC),
    UNARY("atan", true, TFR_ATAN, M_FC),
    UNARY("sinh", true, TFR_SINH, M_FC),
    UNARY("cosh", true, TFR_COSH, M_FC),
    UNARY("asinh", true, TFR_ASINH, M_FC),
    UNARY("acosh", true, TFR_ACOSH, M_FC),
    UNARY("atanh", true, TFR_ATANH, M_FC),

    BINARY("add", false, TFR_ADD, TFR_CONF_M_NUMERIC),
    BINARY("subtract", false, TFR_SUBTRACT, TFR_CONF_M_NUMERIC),
    BINARY("multiply", false, TFR_MULTIPLY, TFR_CONF_M_NUMERIC),
    BINARY("divide", false, TFR_DIVIDE, TFR_CONF_M_NUMERIC),
    BINARY("remainder", false, TFR_REMAINDER, TFR_CONF_M_INT | TFR_CONF_M_FLOAT),
    BINARY("maximum", false, TFR_MAXIMUM, TFR_CONF_M_ALL),
    BINARY("minimum", false, TFR_MINIMUM, TFR_CONF_M_ALL),
    BINARY("power", false, TFR_POWER, TFR_CONF_M_NUMERIC),
    BINARY("and", false, TFR_AND, M_BI),
    BINARY("or", false, TFR_OR, M_BI),
    BINARY("xor", false, TFR_XOR, M_BI),
    BINARY("atan2", false, TFR_ATAN2, M_FC),
    BINARY("shift_left", false, TFR_SHIFT_LEFT, TFR_CONF_M_INT),
    BINARY("shift_right_arithmetic", false, TFR_SHIFT_RIGHT_ARITHMETIC, TFR_CONF_M_INT),
    BINARY("shift_right_logical", false, TFR_SHIFT_RIGHT_LOGICAL, TFR_CONF_M_INT),
    BINARY("complex", false, TFR_COMPLEX, TFR_CONF_M_FLOAT),
    BINARY("next_after", true, TFR_NEXT_AFTER, TFR_CONF_M_FLOAT),

    {"compare", false, tfr_conf_check_compare, tfr_conf_run_compare, 0, TFR_CONF_M_ALL},
    {"select", false, NULL, tfr_conf_run_select, 0, 0},
    {"clamp", false, tfr_conf_check_clamp, tfr_conf_run_clamp, 0,
     TFR_CONF_M_BOOL | TFR_CONF_M_INT | TFR_CONF_M_FLOAT},
    {NULL, false, NULL, NULL, 0, 0},
};
